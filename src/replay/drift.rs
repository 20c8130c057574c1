//! Snapshot drift (issue 17.1, E20): when a snapshot replaces something the
//! consumer built from deltas or streamed events since its last baseline,
//! what the consumer held is compared with what the snapshot says.
//!
//! The difference is split by where it lies (issue 39). At paths no delta
//! since the baseline set, the producer changed the value without streaming
//! the change ("changed without a delta": the `*.drift.unstreamed` codes),
//! which is common and worth knowing. At paths the deltas did set, a failed
//! or skipped delta leaves producer and consumer disagreeing until the
//! producer's next snapshot repairs it (R44, R8): a difference then is the
//! normal repair. With no failure since the baseline it means the producer
//! and the consumer applied the same deltas differently, which is the bug a
//! user most needs to see. Each diagnostic is `info` and carries the RFC
//! 6902 operations from held to snapshot at its paths
//! ([`crate::diagnostic::Drift`]).
//!
//! What is tracked, per message id (activities and streamed messages) and
//! for the state: how many changes since the last baseline, the step of the
//! first, the first that failed, and the paths they set ([`Touched`]). A
//! baseline is a snapshot (an
//! `ACTIVITY_SNAPSHOT` applied or declined, R8; a `MESSAGES_SNAPSHOT` for
//! the messages it carries; a `STATE_SNAPSHOT`) or the creation of the
//! message. The map keeps its recent changes apart from layers shared by
//! every copy ([`LayeredMap`]), so a checkpoint copies only what changed
//! lately (issue 14).

use json_patch::PatchOperation;
use serde_json::{Map, Value};

use super::codec::{Decoded, Decoder, Encoder, MessageTable, Shared};
use super::conversation::Message;
use super::layered::{Layer, LayeredMap};
use crate::diagnostic::{Code, Diagnostic, Drift, DriftKind, DriftPatch, Seq};
use crate::protocol::{EventBody, Patch};

/// How many paths [`Touched`] keeps apart before it merges the deepest into
/// their parents: a bound on what a long run of deltas between two
/// snapshots weighs in every checkpoint.
const MAX_TOUCHED: usize = 32;

/// The JSON pointers the changes since a baseline set (issue 39), none
/// inside another. A path holds everything under it; an insertion into or
/// a removal from an array (which moves the elements after it) sets the
/// array. Past [`MAX_TOUCHED`] paths the deepest are merged into their
/// parents, so that a drift can only be taken for one at paths the deltas
/// set, never the other way round.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Touched(Vec<Box<str>>);

impl Touched {
    /// Records that a change set `path` (and everything under it).
    pub(super) fn touch(&mut self, path: &str) {
        if self.0.iter().any(|held| contains(held, path)) {
            return;
        }
        self.0.retain(|held| !contains(path, held));
        self.0.push(path.into());
        while self.0.len() > MAX_TOUCHED {
            self.merge_deepest();
        }
    }

    /// Whether a change of the value at `path` concerns a path set: one
    /// holds the other.
    pub(super) fn overlaps(&self, path: &str) -> bool {
        self.0
            .iter()
            .any(|held| contains(held, path) || contains(path, held))
    }

    /// Replaces the deepest paths by their parents.
    fn merge_deepest(&mut self) {
        let depth = |path: &str| path.matches('/').count();
        let deepest = self.0.iter().map(|p| depth(p)).max().unwrap_or(0);
        let paths = std::mem::take(&mut self.0);
        for path in paths {
            let path = if depth(&path) == deepest {
                parent(&path).into()
            } else {
                path
            };
            if !self.0.iter().any(|held| contains(held, &path)) {
                self.0.retain(|held| !contains(&path, held));
                self.0.push(path);
            }
        }
    }

    /// Records the paths an RFC 6902 patch sets, each under `prefix` (the
    /// pointer of the patched document in the compared value: `/content`
    /// for an activity's content, `` for the state).
    pub(super) fn touch_patch(&mut self, prefix: &str, patch: &Patch) {
        let mut at = |path: &str, moves: bool| {
            // An insertion or a removal in an array moves what follows it:
            // the array is what it set. (An object member named like an
            // index is taken for one: a coarser path, never a wrong kind.)
            let path = if moves && last_token(path).is_some_and(is_array_index) {
                parent(path)
            } else {
                path
            };
            // Most deltas set what an earlier one set: no string is made.
            if !self.0.iter().any(|held| holds_joined(held, prefix, path)) {
                self.touch(&format!("{prefix}{path}"));
            }
        };
        for op in &patch.ops {
            match op {
                PatchOperation::Add(op) => at(op.path.as_str(), true),
                PatchOperation::Remove(op) => at(op.path.as_str(), true),
                PatchOperation::Replace(op) => at(op.path.as_str(), false),
                PatchOperation::Move(op) => {
                    at(op.from.as_str(), true);
                    at(op.path.as_str(), true);
                }
                PatchOperation::Copy(op) => at(op.path.as_str(), true),
                PatchOperation::Test(_) => {}
            }
        }
    }

    /// Records the members of `metadata` under `prefix` (R30: an event's
    /// metadata merges key by key into what it names).
    pub(super) fn touch_metadata(&mut self, prefix: &str, metadata: Option<&Map<String, Value>>) {
        for key in metadata.into_iter().flat_map(Map::keys) {
            self.touch(&format!("{prefix}/metadata/{}", escape(key)));
        }
    }

    fn encode(&self, e: &mut Encoder) {
        e.usize(self.0.len());
        for path in &self.0 {
            e.str(path);
        }
    }

    fn decode(d: &mut Decoder<'_>) -> Decoded<Self> {
        let n = d.count()?;
        let mut paths = Vec::with_capacity(n.min(MAX_TOUCHED));
        for _ in 0..n {
            paths.push(d.string()?.into_boxed_str());
        }
        Ok(Self(paths))
    }
}

/// Whether pointer `outer` holds `inner` (is it or one of its ancestors).
fn contains(outer: &str, inner: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Whether pointer `outer` holds `prefix` followed by `path` (`path` the
/// root or starting with `/`), without joining them.
fn holds_joined(outer: &str, prefix: &str, path: &str) -> bool {
    match outer.strip_prefix(prefix) {
        Some(rest) => contains(rest, path),
        None => contains(outer, prefix),
    }
}

/// The pointer's parent (`` for a member of the root, and for the root).
fn parent(pointer: &str) -> &str {
    pointer.rfind('/').map_or("", |at| &pointer[..at])
}

/// The pointer's last token, unescaped or not (`None` for the root).
fn last_token(pointer: &str) -> Option<&str> {
    pointer.rfind('/').map(|at| &pointer[at + 1..])
}

/// An RFC 6901 array index, or `-` (the end of an array).
fn is_array_index(token: &str) -> bool {
    token == "-"
        || token == "0"
        || (!token.is_empty()
            && !token.starts_with('0')
            && token.bytes().all(|b| b.is_ascii_digit()))
}

/// `key` as a JSON pointer token (RFC 6901: `~` as `~0`, `/` as `~1`).
fn escape(key: &str) -> std::borrow::Cow<'_, str> {
    if key.contains(['~', '/']) {
        key.replace('~', "~0").replace('/', "~1").into()
    } else {
        key.into()
    }
}

/// Changes since a baseline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Since {
    /// The step of the first change since the baseline.
    pub first: Seq,
    /// How many changes.
    pub deltas: u64,
    /// The first change that failed or was skipped.
    pub failed_at: Option<Seq>,
    /// The paths the changes set or, when they failed, would have set.
    pub touched: Touched,
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

    /// The kind of a drift at paths the changes set.
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
        self.touched.encode(e);
    }

    fn decode(d: &mut Decoder<'_>) -> Decoded<Self> {
        let first = d.seq()?;
        let deltas = d.u64()?;
        let failed_at = if d.bool()? { Some(d.seq()?) } else { None };
        let touched = Touched::decode(d)?;
        Ok(Self {
            first,
            deltas,
            failed_at,
            touched,
        })
    }
}

/// Records in `touched` the paths of message `held` (as it is after the
/// event) that a streamed event for it set or would have set (issue 39):
/// `/content` for text and reasoning content, `/toolCalls/<i>` for a tool
/// call's opener and its `/function/arguments` for its arguments, the
/// whole message for a tool result (which makes it), the members a start
/// sets (`/role`, `/name`, `/subagentRunId`) and each metadata member
/// (R30). A start does not set `/content`: a message streamed empty and
/// given a text by a snapshot was changed without a delta.
pub(super) fn touch_streamed(
    touched: &mut Touched,
    body: &EventBody,
    envelope: &crate::protocol::Envelope,
    held: Option<&Message>,
) {
    use EventBody as B;
    let metadata = envelope.metadata.as_ref();
    let call = |tool_call_id: &str| -> String {
        let index = match held {
            Some(Message::Other(message)) => message
                .fields
                .get("toolCalls")
                .and_then(Value::as_array)
                .and_then(|calls| {
                    calls.iter().position(|call| {
                        call.get("id").and_then(Value::as_str) == Some(tool_call_id)
                    })
                }),
            _ => None,
        };
        match index {
            Some(index) => format!("/toolCalls/{index}"),
            // Not held (the event failed): any of the calls.
            None => "/toolCalls".to_owned(),
        }
    };
    let opened = |touched: &mut Touched, named: bool| {
        touched.touch("/role");
        if named {
            touched.touch("/name");
        }
        if envelope.subagent_run_id.is_some() {
            touched.touch("/subagentRunId");
        }
    };
    match body {
        B::TextMessageStart { name, .. } => opened(touched, name.is_some()),
        B::ReasoningMessageStart { .. } => opened(touched, false),
        B::TextMessageContent { .. } | B::ReasoningMessageContent { .. } => {
            touched.touch("/content");
        }
        B::TextMessageChunk {
            role, delta, name, ..
        } => {
            if role.is_some() || name.is_some() {
                opened(touched, name.is_some());
            }
            if delta.is_some() {
                touched.touch("/content");
            }
        }
        B::ReasoningMessageChunk { delta: Some(_), .. } => touched.touch("/content"),
        B::ReasoningEncryptedValue { .. } => {
            touched.touch("/encryptedValue");
            touched.touch("/encryptedValueType");
        }
        B::ToolCallStart { tool_call_id, .. } => {
            touched.touch(&call(tool_call_id));
            return;
        }
        B::ToolCallChunk {
            tool_call_id: Some(tool_call_id),
            tool_call_name,
            ..
        } => {
            let call = call(tool_call_id);
            if tool_call_name.is_some() {
                touched.touch(&call);
                return;
            }
            touched.touch(&format!("{call}/function/arguments"));
            touched.touch_metadata(&call, metadata);
            return;
        }
        B::ToolCallArgs { tool_call_id, .. } => {
            let call = call(tool_call_id);
            touched.touch(&format!("{call}/function/arguments"));
            touched.touch_metadata(&call, metadata);
            return;
        }
        B::ToolCallEnd { tool_call_id } => {
            touched.touch_metadata(&call(tool_call_id), metadata);
            return;
        }
        B::ToolCallResult { .. } => {
            touched.touch("");
            return;
        }
        _ => {}
    }
    touched.touch_metadata("", metadata);
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
    /// A delta or a streamed event changed (or failed to change) message
    /// `id`: its changes, to record the paths it set in.
    pub(super) fn message_changed(&mut self, id: &str, seq: Seq, failed: bool) -> &mut Touched {
        let since = self.messages.get_or_insert_with(id, Since::default);
        since.record(seq, failed);
        &mut since.touched
    }

    /// Message `id` has a new baseline (a snapshot set it).
    pub(super) fn message_baseline(&mut self, id: &str) {
        self.messages.remove(id);
    }

    /// A copy for a checkpoint ([`LayeredMap::frozen`]).
    pub(super) fn frozen(&self) -> Self {
        Self {
            messages: self.messages.frozen(),
            state: self.state.clone(),
        }
    }

    /// The changes of message `id` since its baseline, if any.
    pub(super) fn message(&self, id: &str) -> Option<Since> {
        self.messages.get(id).filter(|s| s.deltas > 0).cloned()
    }

    /// A `STATE_DELTA` applied or failed: the paths its patch sets.
    pub(super) fn state_changed(&mut self, seq: Seq, failed: bool, patch: &Patch) {
        self.state.record(seq, failed);
        self.state.touched.touch_patch("", patch);
    }

    /// The changes of the state since its last snapshot; resets them (the
    /// snapshot is the new baseline).
    pub(super) fn take_state(&mut self) -> Option<Since> {
        let since = std::mem::take(&mut self.state);
        (since.deltas > 0).then_some(since)
    }

    /// Encodes the tracking: its map's shared layers by their number in
    /// `table` (stored once, shared by every checkpoint that holds them),
    /// its own newest layer, if any, in place (issue 40).
    pub(super) fn encode(&self, e: &mut Encoder, table: &mut MessageTable) {
        self.state.encode(e);
        let parts = self.messages.parts();
        e.usize(parts.recent.len());
        for entry in parts.recent {
            e.str(entry.key);
            encode_entry(e, entry.value);
            e.bool(entry.touched);
        }
        e.usize(parts.shared.len());
        for layer in parts.shared {
            e.usize(table.layer_number(layer));
        }
        match parts.own_top {
            Some(top) => {
                e.u8(1);
                encode_layer(e, top);
            }
            None => e.u8(0),
        }
        e.usize(parts.fold_at);
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
        let own_top = if d.bool()? {
            Some(decode_layer(d)?)
        } else {
            None
        };
        let fold_at = d.usize()?;
        Ok(Self {
            messages: LayeredMap::from_parts(recent, layers, own_top, fold_at),
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
            return Err(super::codec::DecodeError::Malformed(
                "a drift layer in the index is out of order",
            ));
        }
        entries.push((id, decode_entry(d)?));
    }
    Ok(entries.into())
}

/// What a snapshot is compared as: the drift diagnostics for what the
/// consumer held against what the snapshot says, when they differ.
pub(super) struct DriftCheck<'a> {
    pub seq: Seq,
    /// The code of a drift at paths the changes set (a repair, or applied
    /// differently): `activity.drift`.
    pub code: Code,
    /// The code of one at paths no change set: `activity.drift.unstreamed`.
    pub unstreamed: Code,
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

/// How many of a drift's paths its message names; the rest are counted.
const PATHS_NAMED: usize = 5;

impl DriftCheck<'_> {
    /// The diagnostics (none when held and snapshot are equal): one for
    /// the operations from held to snapshot at paths the changes since the
    /// baseline set, one for those at paths none set (issue 39), in that
    /// order, each carrying its operations and naming their paths.
    pub(super) fn diagnose(self, held: &Value, snapshot: &Value) -> Vec<Diagnostic> {
        if held == snapshot {
            return Vec::new();
        }
        let patch = json_patch::diff(held, snapshot);
        let ops = match serde_json::to_value(&patch) {
            Ok(Value::Array(ops)) => ops,
            _ => Vec::new(),
        };
        let mut set = Vec::new();
        let mut unset = Vec::new();
        let mut reencoded = Vec::new();
        for op in ops {
            if !self.since.touched.overlaps(op_path(&op)) {
                unset.push(op);
            } else if self.code == Code::MessagesDrift && reencoded_arguments(held, &op) {
                reencoded.push(op_path(&op).to_owned());
                unset.push(op);
            } else {
                set.push(op);
            }
        }
        let mut found = Vec::with_capacity(2);
        if !set.is_empty() {
            found.push(self.diagnostic(self.since.kind(), set, &[]));
        }
        if !unset.is_empty() {
            found.push(self.diagnostic(DriftKind::Unstreamed, unset, &reencoded));
        }
        found
    }

    /// The diagnostic of `kind` for `ops`; `reencoded`, the paths among
    /// them of arguments the snapshot encodes otherwise.
    fn diagnostic(&self, kind: DriftKind, ops: Vec<Value>, reencoded: &[String]) -> Diagnostic {
        let Since {
            first,
            deltas,
            failed_at,
            ..
        } = self.since;
        let changes = self.changes;
        let counted = if deltas == 1 {
            format!("1 {changes}")
        } else {
            format!("{deltas} {changes}s")
        };
        let num_ops = if ops.len() == 1 {
            "1 operation".to_owned()
        } else {
            format!("{} operations", ops.len())
        };
        let paths = named_paths(&ops);
        let (event, subject) = (self.event, &self.subject);
        let (code, message) = match (kind, failed_at) {
            (DriftKind::Unstreamed, _) if !reencoded.is_empty() => (
                self.unstreamed,
                format!(
                    "changed without a delta: {event} changes {subject} at {paths}, which none of the {counted} since step {first} set as the snapshot says (the arguments at {} are the JSON they streamed, encoded otherwise): the producer changed it without streaming the change; {num_ops} from held to snapshot",
                    reencoded.join(", ")
                ),
            ),
            (DriftKind::Unstreamed, _) => (
                self.unstreamed,
                format!(
                    "changed without a delta: {event} changes {subject} at {paths}, which none of the {counted} since step {first} set: the producer changed it without streaming the change; {num_ops} from held to snapshot"
                ),
            ),
            (_, Some(failed)) => (
                self.code,
                format!(
                    "drift repaired: {event} replaces what the consumer held for {subject} at {paths} after {counted} since step {first}; the one at step {failed} failed or was skipped (R44), and this snapshot is the new baseline (R8); {num_ops} from held to snapshot"
                ),
            ),
            (_, None) => (
                self.code,
                format!(
                    "unexplained drift, applied differently: {event} differs from what the consumer built for {subject} at {paths}, which the {counted} since step {first} set, none of which failed: the producer and the consumer applied the same {changes}s differently; {num_ops} from held to snapshot"
                ),
            ),
        };
        let first_path = ops.first().map_or("", op_path);
        let mut diagnostic = Diagnostic::new(self.seq, code, message)
            .with_path(format!("{}{first_path}", self.event_prefix));
        diagnostic.message_id = self.message_id.map(str::to_owned);
        diagnostic.drift = Some(Box::new(Drift {
            kind,
            since: first,
            deltas,
            failed_at,
            patch: compact_patch(Value::Array(ops)),
        }));
        diagnostic
    }
}

/// A drift's patch kept as its compact text (issue 40: see
/// [`DriftPatch::from_written_text`]), or as the value when nested too
/// deeply for its text to be read back.
fn compact_patch(ops: Value) -> DriftPatch {
    if super::codec::depth(&ops) > super::codec::MAX_DEPTH {
        return ops.into();
    }
    match serde_json::to_vec(&ops) {
        Ok(text) => DriftPatch::from_written_text(text),
        Err(_) => ops.into(),
    }
}

/// Whether `op` replaces a tool call's `arguments` in `held` by the same
/// JSON encoded otherwise (`{"a": 1}` by `{"a":1}`): text that no
/// concatenation of the streamed arguments makes, so the producer's own
/// re-encoding, changed without a delta (issue 39, seen from Strands).
fn reencoded_arguments(held: &Value, op: &Value) -> bool {
    let path = op_path(op);
    let is_arguments = path
        .strip_prefix("/toolCalls/")
        .and_then(|rest| rest.strip_suffix("/function/arguments"))
        .is_some_and(is_array_index);
    if !is_arguments || op.get("op").and_then(Value::as_str) != Some("replace") {
        return false;
    }
    let parsed = |text: Option<&Value>| {
        text.and_then(Value::as_str)
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
    };
    match (parsed(held.pointer(path)), parsed(op.get("value"))) {
        (Some(held), Some(snapshot)) => held == snapshot,
        _ => false,
    }
}

/// The `path` of an RFC 6902 operation as JSON.
fn op_path(op: &Value) -> &str {
    op.get("path").and_then(Value::as_str).unwrap_or("")
}

/// The distinct paths of `ops`, the first [`PATHS_NAMED`] by name, the
/// root as `""`: `/a, /b and 2 more`.
fn named_paths(ops: &[Value]) -> String {
    let mut paths: Vec<&str> = Vec::new();
    for op in ops {
        let path = op_path(op);
        if !paths.contains(&path) {
            paths.push(path);
        }
    }
    let shown: Vec<String> = paths
        .iter()
        .take(PATHS_NAMED)
        .map(|path| {
            if path.is_empty() {
                "\"\"".to_owned()
            } else {
                (*path).to_owned()
            }
        })
        .collect();
    let mut text = shown.join(", ");
    if paths.len() > PATHS_NAMED {
        text.push_str(&format!(" and {} more", paths.len() - PATHS_NAMED));
    }
    text
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

#[cfg(test)]
mod tests {
    use super::*;

    fn touched(paths: &[&str]) -> Touched {
        let mut touched = Touched::default();
        for path in paths {
            touched.touch(path);
        }
        touched
    }

    fn held(touched: &Touched) -> Vec<&str> {
        touched.0.iter().map(|p| &**p).collect()
    }

    fn check(touched_paths: &[&str]) -> DriftCheck<'static> {
        DriftCheck {
            seq: Seq::new(9),
            code: Code::ActivityDrift,
            unstreamed: Code::ActivityDriftUnstreamed,
            message_id: Some("a1"),
            subject: "activity \"a1\"".to_owned(),
            event: "ACTIVITY_SNAPSHOT",
            changes: "ACTIVITY_DELTA",
            event_prefix: "/snapshot".to_owned(),
            since: Since {
                first: Seq::new(3),
                deltas: 2,
                failed_at: None,
                touched: touched(touched_paths),
            },
        }
    }

    #[test]
    fn a_drifts_patch_is_kept_as_its_compact_text_and_reads_as_the_operations() {
        // Issue 40: a replay holds every drift it made; each patch is kept
        // as the text an index stores, and reads back as the operations.
        let held = serde_json::json!({"a": {"b": 1, "c": [1, 2.5]}, "x": "y"});
        let snapshot = serde_json::json!({"a": {"b": 2, "c": [1, 2.5, 1e300]}, "z": null});
        let found = check(&["/a"]).diagnose(&held, &snapshot);
        assert_eq!(found.len(), 2, "{found:?}");
        let mut ops = Vec::new();
        for diagnostic in &found {
            let drift = diagnostic.drift.as_deref().expect("a drift");
            let text = drift.patch.json_text().expect("kept as text");
            assert_eq!(
                serde_json::from_slice::<Value>(text).unwrap(),
                *drift.patch.value()
            );
            assert_eq!(serde_json::to_vec(drift.patch.value()).unwrap(), text);
            ops.extend(drift.patch.value().as_array().unwrap().iter().cloned());
        }
        // Both kinds together hold the whole patch's operations.
        let whole = serde_json::to_value(json_patch::diff(&held, &snapshot)).unwrap();
        let sorted = |mut v: Vec<Value>| {
            v.sort_by_key(|op| op.to_string());
            v
        };
        assert_eq!(sorted(ops), sorted(whole.as_array().unwrap().clone()));
    }

    #[test]
    fn a_drifts_patch_too_deep_for_its_text_to_be_read_back_is_kept_as_the_value() {
        let mut deep = serde_json::json!(1);
        for _ in 0..super::super::codec::MAX_DEPTH + 5 {
            deep = serde_json::json!([deep]);
        }
        let held = serde_json::json!({"a": 1});
        let snapshot = serde_json::json!({"a": deep});
        let found = check(&["/a"]).diagnose(&held, &snapshot);
        let drift = found[0].drift.as_deref().expect("a drift");
        assert!(drift.patch.json_text().is_none());
        assert_eq!(drift.patch.value()[0]["value"], deep);
    }

    #[test]
    fn touched_paths_hold_what_is_under_them_and_overlap_both_ways() {
        // Issue 39: a drift at a path under one set, or holding one, is at
        // paths the deltas set; a sibling is not.
        let t = touched(&["/a/b", "/a/b/c", "/x"]);
        assert_eq!(held(&t), ["/a/b", "/x"]);
        assert!(t.overlaps("/a/b/c/d"));
        assert!(t.overlaps("/a"));
        assert!(t.overlaps(""));
        assert!(!t.overlaps("/a/bc"));
        assert!(!t.overlaps("/a/c"));
        assert!(!t.overlaps("/y"));
        // A parent set later replaces its children.
        let t = touched(&["/a/b", "/a/c", "/a"]);
        assert_eq!(held(&t), ["/a"]);
        // The root holds everything.
        let t = touched(&["/a", ""]);
        assert_eq!(held(&t), [""]);
        assert!(t.overlaps("/anything/at/all"));
    }

    #[test]
    fn a_pointer_holds_a_joined_one_as_it_holds_the_join() {
        for (outer, prefix, path) in [
            ("/content", "/content", "/a"),
            ("/content/a", "/content", "/a/b"),
            ("/content/a", "/content", "/ab"),
            ("/contents", "/content", ""),
            ("/content", "/content", ""),
            ("", "/content", "/a"),
            ("/con", "/content", "/a"),
            ("/content/a/b", "/content", "/a"),
            ("/x", "", "/x/y"),
        ] {
            assert_eq!(
                holds_joined(outer, prefix, path),
                contains(outer, &format!("{prefix}{path}")),
                "{outer} {prefix} {path}"
            );
        }
    }

    #[test]
    fn an_insertion_or_removal_in_an_array_sets_the_array() {
        // Issue 39: `add /items/-` or `remove /items/0` moves the elements
        // after it; a `replace` of an element sets that element only.
        let patch: Patch = Patch::from_ops(
            serde_json::from_value(serde_json::json!([
                {"op": "add", "path": "/items/-", "value": 1},
                {"op": "remove", "path": "/list/0"},
                {"op": "replace", "path": "/rows/3", "value": 1},
                {"op": "add", "path": "/obj/key", "value": 1},
                {"op": "move", "from": "/m/2", "path": "/n"},
                {"op": "test", "path": "/tested", "value": 1}
            ]))
            .expect("ops"),
        );
        let mut t = Touched::default();
        t.touch_patch("/content", &patch);
        assert_eq!(
            held(&t),
            [
                "/content/items",
                "/content/list",
                "/content/rows/3",
                "/content/obj/key",
                "/content/m",
                "/content/n"
            ]
        );
        assert!(!t.overlaps("/content/tested"));
    }

    #[test]
    fn too_many_touched_paths_merge_the_deepest_into_their_parents() {
        // What a drift could be taken for only grows: a path once set
        // stays held after merging.
        let paths: Vec<String> = (0..=MAX_TOUCHED).map(|i| format!("/a/{i}/x")).collect();
        let mut t = Touched::default();
        for path in &paths {
            t.touch(path);
        }
        assert!(t.0.len() <= MAX_TOUCHED);
        for path in &paths {
            assert!(t.overlaps(path), "{path}");
        }
        assert!(!t.overlaps("/b"));
    }

    #[test]
    fn metadata_members_are_escaped_pointers() {
        let mut t = Touched::default();
        let metadata: Map<String, Value> =
            serde_json::from_str(r#"{"a/b": 1, "t~": 2}"#).expect("object");
        t.touch_metadata("/toolCalls/0", Some(&metadata));
        assert_eq!(
            held(&t),
            ["/toolCalls/0/metadata/a~1b", "/toolCalls/0/metadata/t~0"]
        );
    }
}
