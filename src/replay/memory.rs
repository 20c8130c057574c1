//! Estimating the heap memory a replay state holds, counting each shared
//! (reference-counted) value once: how checkpoint memory is measured.

use std::collections::HashSet;
use std::mem::size_of;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::conversation::Message;
use super::engine::Replayer;

/// The addresses of shared values already counted.
#[derive(Default)]
pub struct SeenValues(HashSet<usize>);

impl SeenValues {
    /// Marks a shared value as counted; returns whether it was new.
    fn first_time<T>(&mut self, shared: &Arc<T>) -> bool {
        self.0.insert(Arc::as_ptr(shared) as *const () as usize)
    }
}

/// An estimate of the heap bytes of a JSON value (not counting the `Value`
/// itself, which lives in its parent).
pub fn value_bytes(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        Value::String(s) => s.capacity(),
        Value::Array(items) => {
            items.capacity() * size_of::<Value>() + items.iter().map(value_bytes).sum::<usize>()
        }
        Value::Object(map) => map_bytes(map),
    }
}

fn map_bytes(map: &Map<String, Value>) -> usize {
    // A B-tree node holds up to 11 entries; count each entry with a share of
    // node overhead.
    const ENTRY_OVERHEAD: usize = 16;
    map.iter()
        .map(|(key, value)| {
            size_of::<String>()
                + size_of::<Value>()
                + ENTRY_OVERHEAD
                + key.capacity()
                + value_bytes(value)
        })
        .sum()
}

impl Replayer {
    /// Heap bytes of this state that `seen` does not already account for;
    /// shared values are added to `seen`.
    pub fn unique_heap_bytes(&self, seen: &mut SeenValues) -> usize {
        let mut bytes = 0;
        if seen.first_time(&self.state) {
            bytes += value_bytes(&self.state);
        }
        let messages = self.conversation.messages();
        bytes += messages.len() * (size_of::<Message>() + 2 * size_of::<String>() + 16);
        for message in messages {
            match message {
                Message::Activity(activity) => {
                    bytes += activity.id.capacity() + activity.activity_type.capacity();
                    bytes += activity
                        .subagent_run_id
                        .as_ref()
                        .map_or(0, String::capacity);
                    bytes += activity.metadata.as_ref().map_or(0, map_bytes);
                    if seen.first_time(&activity.content) {
                        bytes += value_bytes(&activity.content);
                    }
                }
                Message::Other(other) => {
                    bytes += other.id.capacity() + map_bytes(&other.fields);
                }
            }
        }
        let string_pair = 2 * size_of::<String>() + 16;
        bytes += self.owners.len() * string_pair
            + self.owners.keys().map(String::capacity).sum::<usize>();
        bytes += self.tool_call_messages.len() * string_pair
            + self
                .tool_call_messages
                .iter()
                .map(|(k, v)| k.capacity() + v.capacity())
                .sum::<usize>();
        bytes
    }
}

/// Heap bytes the `states` hold beyond what `base` holds.
pub fn unique_bytes_beyond(states: &[Replayer], base: &Replayer) -> usize {
    let mut seen = SeenValues::default();
    base.unique_heap_bytes(&mut seen);
    states
        .iter()
        .map(|state| state.unique_heap_bytes(&mut seen))
        .sum()
}
