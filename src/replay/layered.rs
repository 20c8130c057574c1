//! A map from message id to a small value whose copies share all but their
//! recent changes (issue 14: what a checkpoint costs).
//!
//! A checkpoint copies the replay's maps. A persistent hash map (`imbl`)
//! shares its nodes between copies, but each key changed after a copy
//! duplicates the nodes on its path (kilobytes each), and a replay changes
//! the same hundred activities between any two checkpoints while the map
//! holds every streamed message ever seen: a copy then cost ~200 KB, most
//! of a checkpoint. Here the keys changed recently sit in a small plain map,
//! copied whole; the others sit in sorted layers that are never changed
//! once written, shared by every copy through an `Arc`. When the recent
//! map grows, the keys not touched since the last fold move into a new
//! layer, and layers of similar size merge (as a log-structured merge tree
//! does), so that a lookup searches a few layers.

use std::sync::Arc;

use rustc_hash::FxHashMap;

/// A layer: sorted by key, keys unique; `None` is a removal.
pub(super) type Layer<V> = Arc<[(String, Option<V>)]>;

/// The map. `None` in a layer or in `recent` is a removal that masks the
/// older layers.
#[derive(Clone, Debug)]
pub(super) struct LayeredMap<V> {
    /// Keys changed since the last fold, with whether they were touched
    /// since it.
    recent: FxHashMap<String, Recent<V>>,
    /// Older values, oldest layer first; each sorted by key, keys unique.
    layers: Vec<Layer<V>>,
    /// `recent` folds when it holds this many keys.
    fold_at: usize,
    /// Whether the newest layer is this copy's own: the recent keys that
    /// [`Self::frozen`] made a layer, held by no other copy when made. An
    /// index stores it with its checkpoint, not in the table of layers
    /// checkpoints share (issue 40: an import holds that table until it
    /// ends, and one such layer per checkpoint was most of it). Cleared
    /// when the layers change.
    own_top: bool,
}

#[derive(Clone, Debug)]
struct Recent<V> {
    value: Option<V>,
    touched: bool,
}

/// A recent key as [`LayeredMap::parts`] gives it.
pub(super) struct RecentEntry<'a, V> {
    pub key: &'a str,
    /// `None`: a removal.
    pub value: Option<&'a V>,
    /// Touched since the last fold.
    pub touched: bool,
}

/// What [`LayeredMap::parts`] gives.
pub(super) struct Parts<'a, V> {
    /// The recent keys, sorted, each with its value (`None`: a removal)
    /// and whether it was touched since the last fold.
    pub recent: Vec<RecentEntry<'a, V>>,
    /// The layers other copies may share, oldest first.
    pub shared: &'a [Layer<V>],
    /// The newest layer, when it is this copy's own.
    pub own_top: Option<&'a Layer<V>>,
    /// The size the recent keys fold at.
    pub fold_at: usize,
}

/// The fewest keys `recent` folds at (and the most it grows by between
/// folds, beyond the keys it keeps).
const MIN_FOLD: usize = 64;

impl<V> Default for LayeredMap<V> {
    fn default() -> Self {
        Self {
            recent: FxHashMap::default(),
            layers: Vec::new(),
            fold_at: MIN_FOLD,
            own_top: false,
        }
    }
}

impl<V: Clone> LayeredMap<V> {
    /// A map holding `entries` (a key given twice keeps its last value).
    #[cfg(test)]
    pub(super) fn from_entries(mut entries: Vec<(String, V)>) -> Self {
        // Stable: of equal keys, the last given stays last.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut layer: Vec<(String, Option<V>)> = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            match layer.last_mut() {
                Some(last) if last.0 == key => last.1 = Some(value),
                _ => layer.push((key, Some(value))),
            }
        }
        let mut map = Self::default();
        if !layer.is_empty() {
            map.layers.push(layer.into());
        }
        map
    }

    /// The value of `key` in the layers (`None`: absent or removed).
    fn in_layers(&self, key: &str) -> Option<&V> {
        for layer in self.layers.iter().rev() {
            if let Ok(i) = layer.binary_search_by(|(k, _)| k.as_str().cmp(key)) {
                return layer[i].1.as_ref();
            }
        }
        None
    }

    /// The value of `key`.
    pub(super) fn get(&self, key: &str) -> Option<&V> {
        match self.recent.get(key) {
            Some(recent) => recent.value.as_ref(),
            None => self.in_layers(key),
        }
    }

    /// The value of `key`, mutably, set to `default()` first if absent.
    pub(super) fn get_or_insert_with(&mut self, key: &str, default: impl FnOnce() -> V) -> &mut V {
        if !self.recent.contains_key(key) {
            let value = self.in_layers(key).cloned();
            if self.recent.len() >= self.fold_at {
                self.fold();
            }
            self.recent.insert(
                key.to_owned(),
                Recent {
                    value,
                    touched: true,
                },
            );
        }
        let Some(recent) = self.recent.get_mut(key) else {
            unreachable!("inserted above")
        };
        recent.touched = true;
        recent.value.get_or_insert_with(default)
    }

    /// A copy for a checkpoint: the same map, its recent keys made one
    /// more layer, which the copy holds alone, and its other layers shared.
    /// A plain copy copied the recent keys' hash table, mostly empty slots
    /// (issue 14: 23 of 149 MB of checkpoints at 1,000,000 events,
    /// before the emptied activities were shared); which keys were
    /// touched since the last fold is not kept, so a replay resumed from
    /// the copy folds its keys later, to the same values.
    pub(super) fn frozen(&self) -> Self {
        let mut layers = self.layers.clone();
        let own_top = !self.recent.is_empty();
        if own_top {
            let mut top: Vec<(String, Option<V>)> = self
                .recent
                .iter()
                .map(|(key, recent)| (key.clone(), recent.value.clone()))
                .collect();
            top.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            layers.push(top.into());
        }
        Self {
            recent: FxHashMap::default(),
            layers,
            fold_at: MIN_FOLD,
            own_top,
        }
    }

    /// Removes `key`.
    pub(super) fn remove(&mut self, key: &str) {
        let in_layers = self.in_layers(key).is_some();
        match self.recent.get_mut(key) {
            Some(recent) if in_layers => {
                recent.value = None;
                recent.touched = true;
            }
            Some(_) => {
                self.recent.remove(key);
            }
            None if in_layers => {
                if self.recent.len() >= self.fold_at {
                    self.fold();
                }
                self.recent.insert(
                    key.to_owned(),
                    Recent {
                        value: None,
                        touched: true,
                    },
                );
            }
            None => {}
        }
    }

    /// Every key with its value, sorted by key: the layers are sorted
    /// already, so they are merged, oldest first, and then the recent keys
    /// (what the tests compare with a plain map).
    #[cfg(test)]
    pub(super) fn sorted_entries(&self) -> Vec<(&str, &V)> {
        let mut all: Vec<(&str, Option<&V>)> = Vec::new();
        for layer in &self.layers {
            all = merge_refs(all, layer.iter().map(|(k, v)| (k.as_str(), v.as_ref())));
        }
        let mut recent: Vec<(&str, Option<&V>)> = self
            .recent
            .iter()
            .map(|(k, recent)| (k.as_str(), recent.value.as_ref()))
            .collect();
        recent.sort_unstable_by(|a, b| a.0.cmp(b.0));
        all = merge_refs(all, recent.into_iter());
        all.into_iter()
            .filter_map(|(key, value)| Some((key, value?)))
            .collect()
    }

    /// What the map is made of, for a stored checkpoint (issue 14: the
    /// layers are stored once, shared by every checkpoint that holds
    /// them).
    pub(super) fn parts(&self) -> Parts<'_, V> {
        let mut recent: Vec<RecentEntry<'_, V>> = self
            .recent
            .iter()
            .map(|(key, r)| RecentEntry {
                key,
                value: r.value.as_ref(),
                touched: r.touched,
            })
            .collect();
        recent.sort_unstable_by(|a, b| a.key.cmp(b.key));
        let (shared, own_top) = match &self.layers[..] {
            [shared @ .., top] if self.own_top => (shared, Some(top)),
            all => (all, None),
        };
        Parts {
            recent,
            shared,
            own_top,
            fold_at: self.fold_at,
        }
    }

    /// The map [`Self::parts`] described (each layer sorted by key, keys
    /// unique: the caller checks): `own_top`, its own newest layer, after
    /// the shared ones.
    pub(super) fn from_parts(
        recent: Vec<(String, Option<V>, bool)>,
        mut layers: Vec<Layer<V>>,
        own_top: Option<Layer<V>>,
        fold_at: usize,
    ) -> Self {
        let has_own_top = own_top.is_some();
        layers.extend(own_top);
        Self {
            recent: recent
                .into_iter()
                .map(|(key, value, touched)| (key, Recent { value, touched }))
                .collect(),
            layers,
            fold_at: fold_at.max(MIN_FOLD),
            own_top: has_own_top,
        }
    }

    /// Moves the keys not touched since the last fold into a new layer,
    /// then merges the newest layers while the newer is at least half the
    /// size of the one before it.
    fn fold(&mut self) {
        let mut moved: Vec<(String, Option<V>)> = Vec::new();
        self.recent.retain(|key, recent| {
            if recent.touched {
                recent.touched = false;
                true
            } else {
                moved.push((key.clone(), recent.value.take()));
                false
            }
        });
        self.fold_at = self.recent.len() + MIN_FOLD;
        if moved.is_empty() {
            return;
        }
        self.own_top = false;
        moved.sort_by(|a, b| a.0.cmp(&b.0));
        self.layers.push(moved.into());
        while let [.., older, newer] = &self.layers[..]
            && older.len() <= 2 * newer.len()
        {
            let bottom = self.layers.len() == 2;
            let merged = merge(older, newer, bottom);
            self.layers.truncate(self.layers.len() - 2);
            if !merged.is_empty() {
                self.layers.push(merged.into());
            }
        }
    }
}

/// Two sorted layers as one, `newer`'s value winning for a key in both;
/// removals dropped when nothing older is left for them to mask.
fn merge<V: Clone>(
    older: &[(String, Option<V>)],
    newer: &[(String, Option<V>)],
    bottom: bool,
) -> Vec<(String, Option<V>)> {
    let mut out = Vec::with_capacity(older.len() + newer.len());
    let (mut a, mut b) = (older.iter().peekable(), newer.iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => match x.0.cmp(&y.0) {
                std::cmp::Ordering::Less => a.next(),
                std::cmp::Ordering::Greater => b.next(),
                std::cmp::Ordering::Equal => {
                    a.next();
                    b.next()
                }
            },
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        if let Some((key, value)) = next
            && (value.is_some() || !bottom)
        {
            out.push((key.clone(), value.clone()));
        }
    }
    out
}

/// Two sorted runs of borrowed entries as one, `newer`'s winning for a
/// key in both; removals are kept (an older run may still hold the key).
#[cfg(test)]
fn merge_refs<'a, V>(
    older: Vec<(&'a str, Option<&'a V>)>,
    newer: impl Iterator<Item = (&'a str, Option<&'a V>)>,
) -> Vec<(&'a str, Option<&'a V>)> {
    let mut out = Vec::with_capacity(older.len());
    let mut older = older.into_iter().peekable();
    for (key, value) in newer {
        while let Some(&(older_key, _)) = older.peek()
            && older_key < key
        {
            out.extend(older.next());
        }
        if older.peek().is_some_and(|&(older_key, _)| older_key == key) {
            older.next();
        }
        out.push((key, value));
    }
    out.extend(older);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A random key and operation (a removal or an addition) from `x`.
    fn random_op(x: &mut u64, step: u64) -> (String, bool) {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        let key = if x.is_multiple_of(3) {
            format!("hot-{}", *x % 10)
        } else {
            format!("k-{}", (*x >> 8) % (step / 4 + 1))
        };
        (key, (*x >> 4).is_multiple_of(7))
    }

    /// Issue 14: a checkpoint's copy holds no recent keys, reads as the map
    /// it was taken from, and a replay resumed from it goes on as the map
    /// itself does (removals of keys in its new layer included).
    #[test]
    fn a_frozen_copy_reads_and_goes_on_as_the_map() {
        let mut map: LayeredMap<u64> = LayeredMap::default();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut checked = 0;
        for step in 0..12_000u64 {
            let (key, remove) = random_op(&mut x, step);
            if remove {
                map.remove(&key);
            } else {
                *map.get_or_insert_with(&key, || 0) += step;
            }
            if step % 1_999 != 1_998 {
                continue;
            }
            let mut frozen = map.frozen();
            assert!(frozen.recent.is_empty());
            assert!(!map.recent.is_empty(), "the test freezes recent keys");
            assert_eq!(frozen.sorted_entries(), map.sorted_entries());
            let mut live = map.clone();
            let mut y = x;
            for later in step..step + 3_000 {
                let (key, remove) = random_op(&mut y, later);
                if remove {
                    frozen.remove(&key);
                    live.remove(&key);
                } else {
                    *frozen.get_or_insert_with(&key, || 0) += later;
                    *live.get_or_insert_with(&key, || 0) += later;
                }
                assert_eq!(frozen.get(&key), live.get(&key), "step {later}");
            }
            assert_eq!(frozen.sorted_entries(), live.sorted_entries());
            checked += 1;
        }
        assert_eq!(checked, 6);
    }

    /// Issue 40: a checkpoint's copy tells its own newest layer (its
    /// recent keys) from the layers other copies share; described by its
    /// parts, it is the same map; a map that folds since has none of its own.
    #[test]
    fn a_frozen_copys_own_layer_is_told_from_the_shared_ones() {
        let mut map: LayeredMap<u64> = LayeredMap::default();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for step in 0..5_000u64 {
            let (key, remove) = random_op(&mut x, step);
            if remove {
                map.remove(&key);
            } else {
                *map.get_or_insert_with(&key, || 0) += step;
            }
        }
        assert!(!map.recent.is_empty() && !map.layers.is_empty());
        assert!(map.parts().own_top.is_none(), "a live map has none");
        let frozen = map.frozen();
        let parts = frozen.parts();
        let top = parts.own_top.expect("its recent keys");
        assert_eq!(top.len(), map.recent.len());
        assert_eq!(parts.shared.len(), map.layers.len());
        for (shared, layer) in parts.shared.iter().zip(&map.layers) {
            assert!(Arc::ptr_eq(shared, layer));
        }
        let rebuilt = LayeredMap::from_parts(
            Vec::new(),
            parts.shared.to_vec(),
            Some(Arc::clone(top)),
            parts.fold_at,
        );
        assert_eq!(rebuilt.sorted_entries(), map.sorted_entries());
        assert!(rebuilt.parts().own_top.is_some());
        // A copy of a copy with no recent keys has no layer of its own.
        assert!(frozen.frozen().parts().own_top.is_none());
        // Resumed and folded, its layers change: none is its own.
        let mut resumed = rebuilt.clone();
        for step in 5_000..6_000u64 {
            let (key, _) = random_op(&mut x, step);
            *resumed.get_or_insert_with(&key, || 0) += step;
        }
        assert!(resumed.parts().own_top.is_none());
    }

    /// Random operations on the map and on a `BTreeMap`, with copies taken
    /// along the way: every copy keeps reading what it held (issue 14).
    #[test]
    fn a_layered_map_reads_as_a_plain_map_and_its_copies_do_not_change() {
        let mut map: LayeredMap<u64> = LayeredMap::default();
        let mut model: BTreeMap<String, u64> = BTreeMap::new();
        let mut copies: Vec<(LayeredMap<u64>, BTreeMap<String, u64>)> = Vec::new();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for step in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // A few hot keys, and a growing number of cold ones.
            let key = if x.is_multiple_of(3) {
                format!("hot-{}", x % 10)
            } else {
                format!("k-{}", (x >> 8) % (step / 4 + 1))
            };
            match (x >> 4) % 7 {
                0 => {
                    map.remove(&key);
                    model.remove(&key);
                }
                _ => {
                    *map.get_or_insert_with(&key, || 0) += step;
                    *model.entry(key.clone()).or_insert(0) += step;
                }
            }
            assert_eq!(map.get(&key), model.get(&key), "step {step}");
            if step.is_multiple_of(997) {
                copies.push((map.clone(), model.clone()));
            }
        }
        assert!(map.layers.len() > 1, "the test folds and merges");
        for (copy, model) in copies.iter().chain([(map.clone(), model.clone())].iter()) {
            let entries: Vec<(String, u64)> = copy
                .sorted_entries()
                .into_iter()
                .map(|(k, v)| (k.to_owned(), *v))
                .collect();
            let expected: Vec<(String, u64)> = model.clone().into_iter().collect();
            assert_eq!(entries, expected);
            for (key, value) in model {
                assert_eq!(copy.get(key), Some(value));
            }
        }
        let rebuilt = LayeredMap::from_entries(vec![
            ("b".to_owned(), 1),
            ("a".to_owned(), 2),
            ("b".to_owned(), 3),
        ]);
        assert_eq!(rebuilt.get("a"), Some(&2));
        assert_eq!(rebuilt.get("b"), Some(&3));
        assert_eq!(rebuilt.get("c"), None);
    }
}
