//! Activities: snapshots (R1–R9), deltas (R10–R17), ownership (R20–R23),
//! metadata (R30), and `MESSAGES_SNAPSHOT` reconciliation (R51).

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use serde_json::{Map, Value};

use super::Profile;
use super::conversation::{ActivityMessage, Message, Role};
use super::drift::{DriftCheck, activity_part};
use super::engine::{ActivityChange, Effect, EventEffect, Replayer};
use super::limits::document_bytes;
use super::patch::{apply_patch_client, apply_patch_taking};
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::protocol::{Envelope, Patch};

impl Replayer {
    pub(super) fn activity_snapshot(
        &mut self,
        envelope: &Envelope,
        message_id: &str,
        activity_type: &str,
        content: Value,
        replace: bool,
    ) -> EventEffect {
        let owner = envelope.subagent_run_id.as_deref();
        let client = self.profile() == Profile::AgUiClient10;
        // P12: the reference's verifier, which runs before its reducer, owns
        // the owner map under `ag-ui-client-1.0`: an id it has no owner for,
        // or a replacing snapshot, records the snapshot's tag, whatever the
        // reducer then does with the message.
        let established = self.owners.get(message_id).cloned();
        if client && (established.is_none() || replace) {
            Arc::make_mut(&mut self.owners).insert(message_id.to_owned(), owner.map(str::to_owned));
        }
        // E20: a replacing snapshot after deltas may show drift (what is
        // equal is not built into parts to compare).
        let since = self.drift.message(message_id).filter(|_| replace);
        let drift = match (since, self.conversation.get(message_id)) {
            (Some(since), Some(Message::Activity(held)))
                if held.activity_type != activity_type || *held.content != content =>
            {
                DriftCheck {
                    seq: self.seq,
                    code: Code::ActivityDrift,
                    unstreamed: Code::ActivityDriftUnstreamed,
                    message_id: Some(message_id),
                    subject: format!("activity {message_id:?}"),
                    event: "ACTIVITY_SNAPSHOT",
                    changes: "ACTIVITY_DELTA",
                    event_prefix: String::new(),
                    since,
                }
                .diagnose(
                    &activity_part(&held.activity_type, &held.content),
                    &activity_part(activity_type, &content),
                )
            }
            _ => Vec::new(),
        };
        let effect = self.activity_snapshot_apply(
            envelope,
            message_id,
            activity_type,
            content,
            replace,
            established,
        );
        // R8: a snapshot, applied or declined, is the new baseline.
        if effect.effect == Effect::Applied {
            self.drift.message_baseline(message_id);
        }
        if effect.activity == Some(ActivityChange::Replaced) {
            for diagnostic in drift {
                self.report(diagnostic);
            }
        }
        effect
    }

    fn activity_snapshot_apply(
        &mut self,
        envelope: &Envelope,
        message_id: &str,
        activity_type: &str,
        content: Value,
        replace: bool,
        established: Option<Option<String>>,
    ) -> EventEffect {
        let profile = self.profile();
        let owner = envelope.subagent_run_id.as_deref();
        let metadata = envelope.metadata.as_ref();
        let client = profile == Profile::AgUiClient10;
        match self.conversation.get_mut(message_id) {
            // R2: create at the position of arrival, whatever `replace` says.
            None => {
                self.conversation.push(Message::Activity(ActivityMessage {
                    id: message_id.into(),
                    activity_type: activity_type.to_owned(),
                    content_bytes: document_bytes(&content),
                    content: Arc::new(content),
                    subagent_run_id: owner.map(str::to_owned),
                    metadata: metadata.cloned(),
                }));
                if !client {
                    Arc::make_mut(&mut self.owners)
                        .insert(message_id.to_owned(), owner.map(str::to_owned));
                }
                EventEffect::activity(Effect::Applied, ActivityChange::Created)
            }
            Some(Message::Other(other)) => {
                let role = other.role.as_str();
                match profile {
                    // R9 / D2: never overwrite a non-activity message.
                    Profile::Spec => {
                        self.diagnose(
                            Code::SnapshotIdCollision,
                            Some(message_id),
                            format!(
                                "ACTIVITY_SNAPSHOT names the existing {role} message {message_id:?}; skipped"
                            ),
                        );
                        EventEffect::activity(Effect::Skipped, ActivityChange::SnapshotSkipped)
                    }
                    // The reference client overwrites it unless replace is false.
                    Profile::AgUiClient10 if replace => {
                        self.conversation
                            .replace(Message::Activity(ActivityMessage {
                                id: message_id.into(),
                                activity_type: activity_type.to_owned(),
                                content_bytes: document_bytes(&content),
                                content: Arc::new(content),
                                subagent_run_id: owner.map(str::to_owned),
                                metadata: metadata.cloned(),
                            }));
                        self.diagnose_as(
                            Code::SnapshotIdCollision,
                            Severity::Note,
                            Some(message_id),
                            format!(
                                "ACTIVITY_SNAPSHOT overwrote the {role} message {message_id:?} (ag-ui-client-1.0 does; spec skips it)"
                            ),
                        );
                        EventEffect::activity(Effect::Applied, ActivityChange::Replaced)
                    }
                    Profile::AgUiClient10 => {
                        self.diagnose_as(
                            Code::SnapshotIdCollision,
                            Severity::Note,
                            Some(message_id),
                            format!(
                                "ACTIVITY_SNAPSHOT with replace: false names the {role} message {message_id:?}; nothing happens"
                            ),
                        );
                        EventEffect::activity(Effect::Skipped, ActivityChange::SnapshotSkipped)
                    }
                }
            }
            Some(Message::Activity(activity)) if replace => {
                // R3, R5, R6: replace content and type, merge metadata, re-mint.
                activity.content_bytes = document_bytes(&content);
                activity.content = Arc::new(content);
                activity.activity_type = activity_type.to_owned();
                activity.subagent_run_id = owner.map(str::to_owned);
                activity.merge_metadata(metadata);
                if !client {
                    Arc::make_mut(&mut self.owners)
                        .insert(message_id.to_owned(), owner.map(str::to_owned));
                }
                EventEffect::activity(Effect::Applied, ActivityChange::Replaced)
            }
            Some(Message::Activity(activity)) => {
                // R4, D4: content and type stay; metadata merges.
                activity.merge_metadata(metadata);
                self.diagnose(
                    Code::SnapshotDeclined,
                    Some(message_id),
                    format!(
                        "replace: false on existing activity {message_id:?}: content and type kept"
                    ),
                );
                // R7: the established owner stays.
                if let (Some(established), Some(owner)) = (established, owner)
                    && established.as_deref() != Some(owner)
                {
                    self.diagnose(
                            Code::SnapshotOwnerMismatch,
                            Some(message_id),
                            format!(
                                "replace: false snapshot from subagent {owner:?} for an activity owned by {}; owner kept",
                                owner_name(established.as_deref())
                            ),
                        );
                }
                EventEffect::activity(Effect::Applied, ActivityChange::Declined)
            }
        }
    }

    pub(super) fn activity_delta(
        &mut self,
        envelope: &Envelope,
        message_id: &str,
        activity_type: &str,
        patch: &mut Patch,
    ) -> EventEffect {
        let profile = self.profile();
        // P12: under `ag-ui-client-1.0` the verifier checks the tag against
        // its owner map before the reducer looks for the message, so a
        // mismatch is fatal even where the reducer would have skipped the
        // delta (an id a snapshot dropped, or that stopped being an activity).
        if profile == Profile::AgUiClient10 && self.owner_mismatch(envelope, message_id) {
            return EventEffect::activity(Effect::Fatal, ActivityChange::Fatal);
        }
        // One lookup of the id (issue 14: on the applying thread).
        let position = self.conversation.position(message_id);
        match position.and_then(|i| self.conversation.at(i)) {
            None => {
                // R12; the reference client skips silently, the debugger notes it.
                let severity = match profile {
                    Profile::Spec => Severity::Warning,
                    Profile::AgUiClient10 => Severity::Note,
                };
                self.diagnose_as(
                    Code::DeltaUnknownTarget,
                    severity,
                    Some(message_id),
                    format!(
                        "ACTIVITY_DELTA for {message_id:?}, which no snapshot created; skipped"
                    ),
                );
                return EventEffect::activity(Effect::Skipped, ActivityChange::DeltaSkipped);
            }
            Some(Message::Other(other)) => {
                // R13.
                let role = other.role.as_str();
                self.diagnose(
                    Code::DeltaNotActivity,
                    Some(message_id),
                    format!("ACTIVITY_DELTA for the {role} message {message_id:?}; skipped"),
                );
                return EventEffect::activity(Effect::Skipped, ActivityChange::DeltaSkipped);
            }
            Some(Message::Activity(_)) => {}
        }
        // R22: a tagged delta must come from the owner known in this run.
        if profile == Profile::Spec && self.owner_mismatch(envelope, message_id) {
            return EventEffect::activity(Effect::Fatal, ActivityChange::Fatal);
        }
        let Some(Message::Activity(activity)) =
            position.and_then(|i| self.conversation.get_mut_at(i))
        else {
            return EventEffect::activity(Effect::Skipped, ActivityChange::DeltaSkipped);
        };
        // R11, R14: atomic; a failure skips the whole event (D3).
        let applied = match profile {
            // The patch is dropped once applied: its values move in.
            Profile::Spec => apply_patch_taking(
                Arc::make_mut(&mut activity.content),
                &mut activity.content_bytes,
                patch,
            ),
            // P8 (issue 18): the client patches `content ?? {}`, with its
            // own library (P7).
            Profile::AgUiClient10 if activity.content.is_null() => {
                let mut content = Value::Object(Map::new());
                let mut bytes = document_bytes(&content);
                apply_patch_client(&mut content, &mut bytes, patch)
                    .map(|applied| {
                        if !applied.undefined {
                            activity.content = Arc::new(content);
                            activity.content_bytes = bytes;
                        }
                    })
                    .map_err(|failed| failed.failure)
            }
            // P7: the client's patch library.
            Profile::AgUiClient10 => apply_patch_client(
                Arc::make_mut(&mut activity.content),
                &mut activity.content_bytes,
                patch,
            )
            .map(|applied| {
                if applied.undefined {
                    // The client's content is `undefined`: shown as `null`,
                    // which its next delta patches as `{}` alike (P7, P8).
                    activity.content = Arc::new(Value::Null);
                    activity.content_bytes = document_bytes(&activity.content);
                }
            })
            .map_err(|failed| failed.failure),
        };
        match applied {
            Ok(()) => {
                let retyped = activity.activity_type != activity_type;
                let old_type = if retyped {
                    std::mem::replace(&mut activity.activity_type, activity_type.into())
                } else {
                    String::new()
                };
                activity.merge_metadata(envelope.metadata.as_ref());
                let not_object = !activity.content.is_object();
                if retyped {
                    self.diagnose(
                        Code::DeltaRetyped,
                        Some(message_id),
                        format!(
                            "ACTIVITY_DELTA changes the type of {message_id:?} from {old_type:?} to {activity_type:?}"
                        ),
                    );
                }
                if not_object {
                    self.diagnose(
                        Code::ContentNotObject,
                        Some(message_id),
                        format!(
                            "the patch leaves the content of {message_id:?} something other than an object; kept as sent"
                        ),
                    );
                }
                let change = if retyped {
                    ActivityChange::Retyped
                } else {
                    ActivityChange::DeltaApplied
                };
                EventEffect::activity(Effect::Applied, change)
            }
            Err(failure) => {
                let merged = if profile == Profile::AgUiClient10 {
                    activity.merge_metadata(envelope.metadata.as_ref());
                    " (ag-ui-client-1.0 merges its metadata)"
                } else {
                    ""
                };
                // A patch that would pass a limit is skipped the same way,
                // with the limit's own code.
                let code = failure
                    .limit
                    .map_or(Code::PatchFailed, |limit| limit.code());
                let diagnostic =
                    Diagnostic::new(self.seq, code, format!("{failure}; delta skipped{merged}"))
                        .with_message_id(message_id)
                        .with_path(format!("/patch/{}", failure.index));
                self.report(diagnostic);
                EventEffect::activity(Effect::Skipped, ActivityChange::PatchFailed)
            }
        }
    }

    /// R51: reconcile with a `MESSAGES_SNAPSHOT`.
    ///
    /// Under `ag-ui-client-1.0` (issue 18, P11) the reconciliation is the
    /// reference client's: every held message whose id the snapshot names
    /// is replaced (by the last copy of that id), every snapshot message
    /// whose id is not held afterwards is appended, duplicates included,
    /// and a snapshot that carries a reasoning message drops the absent
    /// reasoning messages as one carrying an activity drops activities.
    pub(super) fn messages_snapshot(
        &mut self,
        snapshot: &[Map<String, Value>],
        metadata: Option<&Map<String, Value>>,
    ) -> EventEffect {
        let client = self.profile() == Profile::AgUiClient10;
        let incoming: Vec<Arc<Message>> = snapshot
            .iter()
            .filter_map(Message::from_json)
            .map(Arc::new)
            .collect();
        // With duplicate ids in the snapshot, the last one wins.
        let by_id: FxHashMap<&str, &Arc<Message>> = incoming.iter().map(|m| (m.id(), m)).collect();
        let declares_activities = incoming.iter().any(|m| matches!(**m, Message::Activity(_)));
        // P11: the reference treats reasoning like activities; R51 keeps them.
        let declares_reasoning = client
            && incoming
                .iter()
                .any(|m| matches!(&**m, Message::Other(o) if o.role == Role::Reasoning));
        let droppable = self.droppable_activity_types(declares_activities, metadata);

        let mut result: Vec<Arc<Message>> = Vec::with_capacity(incoming.len());
        let mut placed: FxHashSet<&str> = FxHashSet::default();
        for message in self.conversation.shared() {
            let id = message.id();
            if let Some(replacement) = by_id.get(id) {
                // Replaced in place: the position is kept. The reference
                // replaces every held copy of a duplicated id.
                if placed.insert(id) || client {
                    result.push(Arc::clone(replacement));
                }
                continue;
            }
            let survives = match &**message {
                Message::Activity(a) => !droppable.drops(&a.activity_type),
                Message::Other(m) => m.role == Role::Reasoning && !declares_reasoning,
            };
            if survives && (placed.insert(id) || client) {
                result.push(Arc::clone(message));
            }
        }
        if client {
            // P11: whatever is not held after the filter is appended, each
            // copy of a duplicated id included, in snapshot order.
            let held = placed.clone();
            for message in &incoming {
                if !held.contains(message.id()) {
                    result.push(Arc::clone(message));
                }
            }
        } else {
            for message in &incoming {
                if placed.insert(message.id()) {
                    result.push(Arc::clone(by_id.get(message.id()).unwrap_or(&message)));
                }
            }
        }
        // A snapshot re-mints the owners of the activities it carries (the
        // reference's verifier seeds them the same way, and never forgets
        // the owners of the activities the snapshot drops: P12).
        for message in &incoming {
            if let Message::Activity(a) = &**message {
                Arc::make_mut(&mut self.owners).insert(a.id.to_string(), a.subagent_run_id.clone());
            }
            if client {
                self.verifier_record(message, true);
            }
        }
        self.check_messages_drift(&incoming);
        self.conversation.set_messages(result);
        // Tool calls follow their messages: forget those that left.
        let conversation = &self.conversation;
        Arc::make_mut(&mut self.tool_call_messages)
            .retain(|_, holder| conversation.contains(holder));
        for message in &incoming {
            self.register_tool_calls(message);
        }
        EventEffect::APPLIED
    }

    /// E20: every held message the snapshot replaces that streamed events
    /// or deltas changed since its last baseline, and that the snapshot
    /// says otherwise, is a drift; every message the snapshot carries gets
    /// a new baseline.
    fn check_messages_drift(&mut self, incoming: &[Arc<Message>]) {
        let mut found = Vec::new();
        for (index, message) in incoming.iter().enumerate() {
            let id = message.id();
            let Some(since) = self.drift.message(id) else {
                continue;
            };
            let Some(held) = self.conversation.get(id) else {
                continue;
            };
            let check = DriftCheck {
                seq: self.seq,
                code: Code::MessagesDrift,
                unstreamed: Code::MessagesDriftUnstreamed,
                message_id: Some(id),
                subject: format!("message {id:?}"),
                event: "MESSAGES_SNAPSHOT",
                changes: "streamed event",
                event_prefix: format!("/messages/{index}"),
                since,
            };
            found.extend(check.diagnose(&held.to_json(), &message.to_json()));
        }
        for message in incoming {
            self.drift.message_baseline(message.id());
        }
        for diagnostic in found {
            self.report(diagnostic);
        }
    }

    /// Which absent activity messages a snapshot drops: R51, or under
    /// `ag-ui-client-1.0` the `authoritativeActivityTypes` the snapshot
    /// names (P5). A declaration the reference cannot read (the
    /// `@ag-ui/client` member not an object, the list neither `null` nor an
    /// array of strings) owns no type: nothing is dropped (P5, issue 18).
    fn droppable_activity_types(
        &self,
        declares_activities: bool,
        metadata: Option<&Map<String, Value>>,
    ) -> Droppable {
        let spec = if declares_activities {
            Droppable::All
        } else {
            Droppable::None
        };
        if self.profile() != Profile::AgUiClient10 {
            return spec;
        }
        let Some(declaration) = metadata.and_then(|m| m.get("@ag-ui/client")) else {
            return spec;
        };
        let Some(declaration) = declaration.as_object() else {
            return Droppable::None;
        };
        match declaration.get("authoritativeActivityTypes") {
            None => spec,
            Some(Value::Null) => Droppable::All,
            Some(Value::Array(types)) if types.iter().all(Value::is_string) => Droppable::Types(
                types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            ),
            Some(_) => Droppable::None,
        }
    }
}

impl Replayer {
    /// R22: whether a tagged delta names another owner than the one known
    /// in this run (reported, fatal).
    fn owner_mismatch(&mut self, envelope: &Envelope, message_id: &str) -> bool {
        let (Some(tag), Some(owner)) = (
            envelope.subagent_run_id.as_deref(),
            self.owners.get(message_id),
        ) else {
            return false;
        };
        if owner.as_deref() == Some(tag) {
            return false;
        }
        let message = format!(
            "ACTIVITY_DELTA from subagent {tag:?} for activity {message_id:?} owned by {}; rejected",
            owner_name(owner.as_deref())
        );
        self.diagnose(Code::SubagentOwnerMismatch, Some(message_id), message);
        true
    }
}

fn owner_name(owner: Option<&str>) -> String {
    match owner {
        Some(owner) => format!("subagent {owner:?}"),
        None => "the parent agent".to_owned(),
    }
}

enum Droppable {
    None,
    All,
    Types(FxHashSet<String>),
}

impl Droppable {
    fn drops(&self, activity_type: &str) -> bool {
        match self {
            Self::None => false,
            Self::All => true,
            Self::Types(types) => types.contains(activity_type),
        }
    }
}
