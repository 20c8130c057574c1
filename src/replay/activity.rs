//! Activities: snapshots (R1–R9), deltas (R10–R17), ownership (R20–R23),
//! metadata (R30), and `MESSAGES_SNAPSHOT` reconciliation (R51).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Map, Value};

use super::Profile;
use super::conversation::{ActivityMessage, Message};
use super::engine::{ActivityChange, Effect, EventEffect, Replayer};
use super::patch::apply_patch;
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::protocol::{Envelope, Patch};

impl Replayer {
    pub(super) fn activity_snapshot(
        &mut self,
        envelope: &Envelope,
        message_id: &str,
        activity_type: &str,
        content: &Value,
        replace: bool,
    ) -> EventEffect {
        let profile = self.profile();
        let owner = envelope.subagent_run_id.as_deref();
        let metadata = envelope.metadata.as_ref();
        match self.conversation.get_mut(message_id) {
            // R2: create at the position of arrival, whatever `replace` says.
            None => {
                self.conversation.push(Message::Activity(ActivityMessage {
                    id: message_id.to_owned(),
                    activity_type: activity_type.to_owned(),
                    content: Arc::new(content.clone()),
                    subagent_run_id: owner.map(str::to_owned),
                    metadata: metadata.cloned(),
                }));
                self.owners
                    .insert(message_id.to_owned(), owner.map(str::to_owned));
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
                                id: message_id.to_owned(),
                                activity_type: activity_type.to_owned(),
                                content: Arc::new(content.clone()),
                                subagent_run_id: owner.map(str::to_owned),
                                metadata: metadata.cloned(),
                            }));
                        self.owners
                            .insert(message_id.to_owned(), owner.map(str::to_owned));
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
                activity.content = Arc::new(content.clone());
                activity.activity_type = activity_type.to_owned();
                activity.subagent_run_id = owner.map(str::to_owned);
                activity.merge_metadata(metadata);
                self.owners
                    .insert(message_id.to_owned(), owner.map(str::to_owned));
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
                let established = self.owners.get(message_id).cloned();
                if let (Some(established), Some(owner)) = (established, owner) {
                    if established.as_deref() != Some(owner) {
                        self.diagnose(
                            Code::SnapshotOwnerMismatch,
                            Some(message_id),
                            format!(
                                "replace: false snapshot from subagent {owner:?} for an activity owned by {}; owner kept",
                                owner_name(established.as_deref())
                            ),
                        );
                    }
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
        patch: &Patch,
    ) -> EventEffect {
        let profile = self.profile();
        let activity = match self.conversation.get_mut(message_id) {
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
            Some(Message::Activity(activity)) => activity,
        };
        // R22: a tagged delta must come from the owner known in this run.
        if let (Some(tag), Some(owner)) = (
            envelope.subagent_run_id.as_deref(),
            self.owners.get(message_id),
        ) {
            if owner.as_deref() != Some(tag) {
                let message = format!(
                    "ACTIVITY_DELTA from subagent {tag:?} for activity {message_id:?} owned by {}; rejected",
                    owner_name(owner.as_deref())
                );
                self.diagnose(Code::SubagentOwnerMismatch, Some(message_id), message);
                return EventEffect::activity(Effect::Fatal, ActivityChange::Fatal);
            }
        }
        // R11, R14: atomic; a failure skips the whole event (D3).
        match apply_patch(Arc::make_mut(&mut activity.content), patch) {
            Ok(()) => {
                let retyped = activity.activity_type != activity_type;
                let old_type = std::mem::replace(&mut activity.activity_type, activity_type.into());
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
                let diagnostic = Diagnostic::new(
                    self.seq,
                    Code::PatchFailed,
                    format!("{failure}; delta skipped{merged}"),
                )
                .with_message_id(message_id)
                .with_path(format!("/patch/{}", failure.index));
                self.report(diagnostic);
                EventEffect::activity(Effect::Skipped, ActivityChange::PatchFailed)
            }
        }
    }

    /// R51: reconcile with a `MESSAGES_SNAPSHOT`.
    pub(super) fn messages_snapshot(
        &mut self,
        snapshot: &[Map<String, Value>],
        metadata: Option<&Map<String, Value>>,
    ) -> EventEffect {
        let incoming: Vec<Message> = snapshot.iter().filter_map(Message::from_json).collect();
        let mut by_id: HashMap<&str, &Message> = HashMap::new();
        for message in &incoming {
            by_id.insert(message.id(), message);
        }
        let declares_activities = incoming.iter().any(|m| matches!(m, Message::Activity(_)));
        let droppable = self.droppable_activity_types(declares_activities, metadata);

        let mut result: Vec<Message> = Vec::with_capacity(incoming.len());
        let mut placed: HashSet<String> = HashSet::new();
        for message in self.conversation.messages() {
            let id = message.id();
            if let Some(replacement) = by_id.get(id) {
                if placed.insert(id.to_owned()) {
                    result.push((*replacement).clone());
                }
                continue;
            }
            let survives = match message {
                Message::Activity(a) => !droppable.drops(&a.activity_type),
                Message::Other(m) => m.role == super::conversation::Role::Reasoning,
            };
            if survives && placed.insert(id.to_owned()) {
                result.push(message.clone());
            }
        }
        for message in incoming {
            if placed.insert(message.id().to_owned()) {
                result.push(message);
            }
        }
        for message in &result {
            if let Message::Activity(a) = message {
                if snapshot_has(snapshot, &a.id) {
                    self.owners.insert(a.id.clone(), a.subagent_run_id.clone());
                }
            }
            self.register_tool_calls(message);
        }
        self.conversation.set_messages(result);
        EventEffect::APPLIED
    }

    /// Which absent activity messages a snapshot drops: R51, or under
    /// `ag-ui-client-1.0` the `authoritativeActivityTypes` the snapshot names.
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
        let authoritative = metadata
            .and_then(|m| m.get("@ag-ui/client"))
            .and_then(Value::as_object)
            .and_then(|client| client.get("authoritativeActivityTypes"));
        match authoritative {
            None => spec,
            Some(Value::Null) => Droppable::All,
            Some(Value::Array(types)) => Droppable::Types(
                types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            ),
            Some(_) => spec,
        }
    }
}

fn snapshot_has(snapshot: &[Map<String, Value>], id: &str) -> bool {
    snapshot
        .iter()
        .any(|m| m.get("id").and_then(Value::as_str) == Some(id))
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
    Types(HashSet<String>),
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
