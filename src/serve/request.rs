//! What a served client sent: its run input, kept, and compared with the
//! run input recorded with the session it receives (R50, E13).

use std::net::SocketAddr;

use serde_json::Value;

use crate::diagnostic::{Code, Diagnostic, Seq};

/// One request a served client made.
#[derive(Clone, Debug)]
pub struct ReceivedRequest {
    /// The client's address.
    pub client: SocketAddr,
    /// `POST`.
    pub method: String,
    /// The path and query asked for, the values of secret query
    /// parameters hidden as `record` hides them in what it prints and
    /// stores ([`StoreRedaction::url`](crate::store::StoreRedaction::url);
    /// issue 38): it is shown (printed by `serve`, listed in the app).
    pub path: String,
    /// The headers, as sent.
    pub headers: Vec<(String, String)>,
    /// The body, as sent.
    pub body: Vec<u8>,
    /// The body as JSON, if it is JSON.
    pub run_input: Option<Value>,
    /// The session served in answer (its number in the file).
    pub session: i64,
    /// What is wrong with the run input, compared with the recorded one.
    pub diagnostics: Vec<Diagnostic>,
}

/// The messages of a run input, if it has a message list.
fn messages(input: &Value) -> Option<&Vec<Value>> {
    input.get("messages").and_then(Value::as_array)
}

fn is_activity(message: &Value) -> bool {
    message.get("role").and_then(Value::as_str) == Some("activity")
}

/// A JSON value cut to a readable length.
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 120 {
        text
    } else {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}…")
    }
}

/// Compares the run input a client sent with the one recorded: each
/// activity message it sends back is `input.activity-message` (R50: a
/// consumer strips them); other messages that are not those of the
/// recorded run input (activity messages aside on both sides) are one
/// `serve.input.differs` (E13), at the first difference. A request body
/// that is not a JSON object is `serve.input.differs` too; without a
/// recorded run input only R50 is checked.
pub fn check_run_input(received: Option<&Value>, recorded: Option<&Value>) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let Some(received) = received.filter(|v| v.is_object()) else {
        diagnostics.push(Diagnostic::new(
            Seq::START,
            Code::ServeInputDiffers,
            "the request body is not a JSON run input (an object with threadId, runId, messages…)",
        ));
        return diagnostics;
    };
    let sent = messages(received).map(Vec::as_slice).unwrap_or_default();
    for (i, message) in sent.iter().enumerate() {
        if is_activity(message) {
            let id = message.get("id").and_then(Value::as_str).unwrap_or("");
            diagnostics.push(
                Diagnostic::new(
                    Seq::START,
                    Code::InputActivityMessage,
                    format!(
                        "the front end sent activity message {id:?} back in its run input; a consumer must strip activity messages from the messages it sends (R50)"
                    ),
                )
                .with_message_id(id)
                .with_path(format!("/messages/{i}")),
            );
        }
    }
    let Some(recorded) = recorded else {
        return diagnostics;
    };
    let recorded_messages = messages(recorded).map(Vec::as_slice).unwrap_or_default();
    let ours: Vec<(usize, &Value)> = sent
        .iter()
        .enumerate()
        .filter(|(_, m)| !is_activity(m))
        .collect();
    let theirs: Vec<&Value> = recorded_messages
        .iter()
        .filter(|m| !is_activity(m))
        .collect();
    let first_difference = ours
        .iter()
        .zip(&theirs)
        .position(|((_, sent), recorded)| *sent != *recorded);
    let difference = match first_difference {
        Some(k) => {
            let (index, sent) = ours[k];
            let mut diagnostic = Diagnostic::new(
                Seq::START,
                Code::ServeInputDiffers,
                format!(
                    "the front end's message {index} is not the recorded run input's: it sent {} where the recording has {}",
                    short(sent),
                    short(theirs[k])
                ),
            )
            .with_path(format!("/messages/{index}"));
            if let Some(id) = sent.get("id").and_then(Value::as_str) {
                diagnostic = diagnostic.with_message_id(id);
            }
            Some(diagnostic)
        }
        None if ours.len() != theirs.len() => Some(Diagnostic::new(
            Seq::START,
            Code::ServeInputDiffers,
            format!(
                "the front end sent {} messages (activity aside) where the recorded run input has {}; the first {} are the same",
                ours.len(),
                theirs.len(),
                ours.len().min(theirs.len())
            ),
        ).with_path("/messages")),
        None => None,
    };
    diagnostics.extend(difference);
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(diagnostics: &[Diagnostic]) -> Vec<(&'static str, Option<&str>)> {
        diagnostics
            .iter()
            .map(|d| (d.code.as_str(), d.path.as_deref()))
            .collect()
    }

    #[test]
    fn the_recorded_messages_sent_back_give_nothing() {
        let input = json!({"threadId": "t", "runId": "r", "messages": [
            {"id": "u1", "role": "user", "content": "hi"}
        ]});
        assert!(check_run_input(Some(&input), Some(&input)).is_empty());
    }

    /// R50: an activity message sent back is reported where it is, and
    /// does not also count as a different message.
    #[test]
    fn an_activity_message_sent_back_is_r50() {
        let recorded = json!({"messages": [{"id": "u1", "role": "user", "content": "hi"}]});
        let sent = json!({"messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {"id": "plan", "role": "activity", "activityType": "PLAN", "content": {}}
        ]});
        let diagnostics = check_run_input(Some(&sent), Some(&recorded));
        assert_eq!(
            codes(&diagnostics),
            [("input.activity-message", Some("/messages/1"))]
        );
        assert_eq!(diagnostics[0].message_id.as_deref(), Some("plan"));
    }

    /// E13: other messages than the recorded run's are one diagnostic at
    /// the first difference, or at the list when one is longer.
    #[test]
    fn different_messages_are_e13_at_the_first_difference() {
        let recorded = json!({"messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {"id": "a1", "role": "assistant", "content": "hello"}
        ]});
        let changed = json!({"messages": [
            {"id": "u1", "role": "user", "content": "hi"},
            {"id": "a1", "role": "assistant", "content": "bye"}
        ]});
        assert_eq!(
            codes(&check_run_input(Some(&changed), Some(&recorded))),
            [("serve.input.differs", Some("/messages/1"))]
        );
        let shorter = json!({"messages": [{"id": "u1", "role": "user", "content": "hi"}]});
        assert_eq!(
            codes(&check_run_input(Some(&shorter), Some(&recorded))),
            [("serve.input.differs", Some("/messages"))]
        );
        // Without a recorded run input only R50 is checked.
        assert!(check_run_input(Some(&changed), None).is_empty());
        assert_eq!(
            codes(&check_run_input(None, Some(&recorded))),
            [("serve.input.differs", None)]
        );
    }
}
