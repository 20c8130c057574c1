//! Snapshot drift (issue 17.1, E20): when a snapshot replaces something the
//! consumer built from deltas or streamed events since its last baseline,
//! what the consumer held is compared with what the snapshot says.
//!
//! A failed or skipped delta leaves producer and consumer disagreeing until
//! the producer's next snapshot repairs it (R44, R8): a difference then is
//! the normal repair. A difference with no failure since the baseline means
//! the producer and the consumer applied the same deltas differently, which
//! is the bug a user most needs to see. Either way the diagnostic is `info`
//! and carries the RFC 6902 patch from held to snapshot
//! ([`crate::diagnostic::Drift`]).
//!
//! What is tracked, per message id (activities and streamed messages) and
//! for the state: how many changes since the last baseline, the step of the
//! first, and the first that failed. A baseline is a snapshot (an
//! `ACTIVITY_SNAPSHOT` applied or declined, R8; a `MESSAGES_SNAPSHOT` for
//! the messages it carries; a `STATE_SNAPSHOT`) or the creation of the
//! message. The map keeps its recent changes apart from layers shared by
//! every copy ([`LayeredMap`]), so a checkpoint copies only what changed
//! lately (issue 14).

use serde_json::{Map, Value};

use super::codec::{Decoded, Decoder, Encoder, MessageTable, Shared};
use super::layered::{Layer, LayeredMap};
use crate::diagnostic::{Code, Diagnostic, Drift, DriftKind, Seq};

/// Changes since a baseline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Since {
    /// The step of the first change since the baseline.
    pub first: Seq,
    /// How many changes.
    pub deltas: u64,
    /// The first change that failed or was skipped.
    pub failed_at: Option<Seq>,
}

impl Since {
    fn record(&mut self, seq: Seq, failed: bool) {
        if self.deltas == 0 {
            self.first = seq;
        }
        self.deltas += 1;
        if failed && self.failed_at.is_none() {
            self.failed_at = Some(seq);
        }
    }

    fn kind(&self) -> DriftKind {
        if self.failed_at.is_some() {
            DriftKind::Repair
        } else {
            DriftKind::Unexplained
        }
    }

    fn encode(&self, e: &mut Encoder) {
        e.u64(self.first.get());
        e.u64(self.deltas);
        match self.failed_at {
            Some(seq) => {
                e.u8(1);
                e.u64(seq.get());
            }
            None => e.u8(0),
        }
    }

    fn decode(d: &mut Decoder<'_>) -> Decoded<Self> {
        let first = d.seq()?;
        let deltas = d.u64()?;
        let failed_at = if d.bool()? { Some(d.seq()?) } else { None };
        Ok(Self {
            first,
            deltas,
            failed_at,
        })
    }
}

/// What the replay tracks to tell drift (E20).
#[derive(Clone, Debug, Default)]
pub(super) struct DriftWatch {
    /// Per message id: changes by deltas or streamed events since its last
    /// baseline. Absent: none.
    messages: LayeredMap<Since>,
    /// Changes of the state by `STATE_DELTA` since the last snapshot.
    state: Since,
}

impl DriftWatch {
    /// A delta or a streamed event changed (or failed to change) message `id`.
    pub(super) fn message_changed(&mut self, id: &str, seq: Seq, failed: bool) {
        self.messages
            .get_or_insert_with(id, Since::default)
            .record(seq, failed);
    }

    /// Message `id` has a new baseline (a snapshot set it).
    pub(super) fn message_baseline(&mut self, id: &str) {
        self.messages.remove(id);
    }

    /// A copy for a checkpoint ([`LayeredMap::frozen`]).
    pub(super) fn frozen(&self) -> Self {
        Self {
            messages: self.messages.frozen(),
            state: self.state,
        }
    }

    /// The changes of message `id` since its baseline, if any.
    pub(super) fn message(&self, id: &str) -> Option<Since> {
        self.messages.get(id).copied().filter(|s| s.deltas > 0)
    }

    /// A `STATE_DELTA` applied or failed.
    pub(super) fn state_changed(&mut self, seq: Seq, failed: bool) {
        self.state.record(seq, failed);
    }

    /// The changes of the state since its last snapshot; resets them (the
    /// snapshot is the new baseline).
    pub(super) fn take_state(&mut self) -> Option<Since> {
        let since = std::mem::take(&mut self.state);
        (since.deltas > 0).then_some(since)
    }

    /// Encodes the tracking: its map's layers by their number in `table`
    /// (stored once, shared by every checkpoint that holds them).
    pub(super) fn encode(&self, e: &mut Encoder, table: &mut MessageTable) {
        self.state.encode(e);
        let (recent, layers, fold_at) = self.messages.parts();
        e.usize(recent.len());
        for entry in recent {
            e.str(entry.key);
            encode_entry(e, entry.value);
            e.bool(entry.touched);
        }
        e.usize(layers.len());
        for layer in layers {
            e.usize(table.layer_number(layer));
        }
        e.usize(fold_at);
    }

    pub(super) fn decode(d: &mut Decoder<'_>, shared: Shared<'_>) -> Decoded<Self> {
        let state = Since::decode(d)?;
        let n = d.count()?;
        let mut recent = Vec::with_capacity(n);
        for _ in 0..n {
            let id = d.string()?;
            let since = decode_entry(d)?;
            recent.push((id, since, d.bool()?));
        }
        let n = d.count()?;
        let mut layers = Vec::with_capacity(n);
        for _ in 0..n {
            layers.push(shared.tables.layer(shared.blob, d.usize()?)?);
        }
        let fold_at = d.usize()?;
        Ok(Self {
            messages: LayeredMap::from_parts(recent, layers, fold_at),
            state,
        })
    }
}

/// A layer of the drift tracking's map, as stored checkpoints share it.
pub(super) type DriftLayer = Layer<Since>;

fn encode_entry(e: &mut Encoder, since: Option<&Since>) {
    match since {
        Some(since) => {
            e.u8(1);
            since.encode(e);
        }
        None => e.u8(0),
    }
}

fn decode_entry(d: &mut Decoder<'_>) -> Decoded<Option<Since>> {
    Ok(if d.bool()? {
        Some(Since::decode(d)?)
    } else {
        None
    })
}

/// Encodes one layer (its entries in key order).
pub(super) fn encode_layer(e: &mut Encoder, layer: &DriftLayer) {
    e.usize(layer.len());
    for (id, since) in layer.iter() {
        e.str(id);
        encode_entry(e, since.as_ref());
    }
}

/// Decodes a layer [`encode_layer`] wrote; its keys must be in order.
pub(super) fn decode_layer(d: &mut Decoder<'_>) -> Decoded<DriftLayer> {
    let n = d.count()?;
    let mut entries: Vec<(String, Option<Since>)> = Vec::with_capacity(n);
    for _ in 0..n {
        let id = d.string()?;
        if entries.last().is_some_and(|(last, _)| *last >= id) {
            return Err(super::codec::DecodeError(
                "a drift layer in the index is out of order".into(),
            ));
        }
        entries.push((id, decode_entry(d)?));
    }
    Ok(entries.into())
}

/// What a snapshot is compared as: the drift diagnostic for what the
/// consumer held against what the snapshot says, when they differ.
pub(super) struct DriftCheck<'a> {
    pub seq: Seq,
    pub code: Code,
    pub message_id: Option<&'a str>,
    /// What the snapshot names, for the message: `activity "a1"`, `the state`.
    pub subject: String,
    /// The event that repairs: `ACTIVITY_SNAPSHOT`.
    pub event: &'static str,
    /// What changed it: `ACTIVITY_DELTA`, `STATE_DELTA`, `streamed event`.
    pub changes: &'static str,
    /// Where the snapshot's value sits in the event (`/snapshot`,
    /// `/messages/3`, ``).
    pub event_prefix: String,
    pub since: Since,
}

impl DriftCheck<'_> {
    /// The diagnostic, or `None` when held and snapshot are equal.
    pub(super) fn diagnose(self, held: &Value, snapshot: &Value) -> Option<Diagnostic> {
        if held == snapshot {
            return None;
        }
        let patch = json_patch::diff(held, snapshot);
        let patch = serde_json::to_value(&patch).unwrap_or_else(|_| Value::Array(Vec::new()));
        let num_ops = patch.as_array().map_or(0, Vec::len);
        let first_path = patch
            .get(0)
            .and_then(|op| op.get("path"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let Since {
            first,
            deltas,
            failed_at,
        } = self.since;
        let plural = if deltas == 1 { "" } else { "s" };
        let ops = if num_ops == 1 {
            "1 operation".to_owned()
        } else {
            format!("{num_ops} operations")
        };
        let message = match failed_at {
            Some(failed) => format!(
                "drift repaired: {} replaces what the consumer held for {} after {deltas} {}{plural} since step {first}; the one at step {failed} failed or was skipped (R44), and this snapshot is the new baseline (R8); {ops} from held to snapshot",
                self.event, self.subject, self.changes
            ),
            None => format!(
                "unexplained drift: {} differs from what the consumer built for {} from {deltas} {}{plural} since step {first}, none of which failed: the producer and the consumer applied the same {}s differently; {ops} from held to snapshot",
                self.event, self.subject, self.changes, self.changes
            ),
        };
        let mut diagnostic = Diagnostic::new(self.seq, self.code, message)
            .with_path(format!("{}{first_path}", self.event_prefix));
        diagnostic.message_id = self.message_id.map(str::to_owned);
        diagnostic.drift = Some(Box::new(Drift {
            kind: self.since.kind(),
            since: first,
            deltas,
            failed_at,
            patch: patch.into(),
        }));
        Some(diagnostic)
    }
}

/// The part of an activity message a replacing snapshot sets (R3): its
/// type and content, keyed as in the message's JSON so that the patch's
/// pointers are the message's (`/content/…`, `/activityType`).
pub(super) fn activity_part(activity_type: &str, content: &Value) -> Value {
    let mut part = Map::new();
    part.insert("activityType".into(), Value::from(activity_type));
    part.insert("content".into(), content.clone());
    Value::Object(part)
}
