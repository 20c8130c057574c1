//! One way to keep a derived value between frames: [`Memo`] holds a value
//! with the document generation and the key it was computed for, and
//! computes it again when either changes. The generation
//! ([`crate::app_model::state::AppState::generation`]) counts every change to
//! the document (another file, another replay, new events of a live
//! recording), so a key only says what else the value depends on (a step,
//! marks, a range).

/// A value computed for a generation and a key.
#[derive(Clone, Debug)]
pub struct Memo<K, V> {
    stored: Option<(u64, K, V)>,
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Self { stored: None }
    }
}

impl<K: PartialEq, V> Memo<K, V> {
    /// The value, if it was computed for this generation and key.
    pub fn get(&self, generation: u64, key: &K) -> Option<&V> {
        match &self.stored {
            Some((g, k, value)) if *g == generation && k == key => Some(value),
            _ => None,
        }
    }

    /// The value for this generation and key, computed now unless it was
    /// already.
    pub fn get_or_compute(&mut self, generation: u64, key: K, compute: impl FnOnce(&K) -> V) -> &V {
        match self.stored.take() {
            Some(stored) if stored.0 == generation && stored.1 == key => {
                &self.stored.insert(stored).2
            }
            _ => {
                let value = compute(&key);
                &self.stored.insert((generation, key, value)).2
            }
        }
    }

    /// Puts a value computed for this generation and key.
    pub fn set(&mut self, generation: u64, key: K, value: V) {
        self.stored = Some((generation, key, value));
    }

    /// Forgets the value.
    pub fn clear(&mut self) {
        self.stored = None;
    }

    /// The value kept, whatever it was computed for.
    pub fn last(&self) -> Option<&V> {
        self.stored.as_ref().map(|(_, _, value)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memo_computes_again_when_the_generation_or_the_key_changes() {
        let mut memo: Memo<u64, String> = Memo::default();
        let mut runs = 0;
        let mut get = |memo: &mut Memo<u64, String>, generation, key| {
            memo.get_or_compute(generation, key, |k| {
                runs += 1;
                format!("{generation}:{k}")
            })
            .clone()
        };
        assert_eq!(get(&mut memo, 1, 7), "1:7");
        assert_eq!(get(&mut memo, 1, 7), "1:7");
        assert_eq!(get(&mut memo, 2, 7), "2:7", "a new document");
        assert_eq!(get(&mut memo, 2, 8), "2:8", "another key");
        assert_eq!(runs, 3);
        assert_eq!(memo.get(2, &8).map(String::as_str), Some("2:8"));
        assert_eq!(memo.get(1, &8), None);
        memo.clear();
        assert_eq!(memo.last(), None);
    }
}
