//! What a recording never stores: secret headers, secret query parameters
//! and the password of a URL, and tokens in the run input. A live capture
//! (`record`, `run`) and an import store their requests through
//! [`StoreRedaction`], whose defaults a user extends on the command line
//! (`--redact-param NAME`, `--redact-field POINTER`); the recording says, per
//! session, what was hidden ([`crate::store::SessionInfo::redacted`]). The
//! client and the agent still exchange the exact bytes: only what is stored
//! changes (issue 12).

use super::raw_json;
use super::{REDACTED, is_secret_header};
use crate::input::HttpRequest;

/// Query parameters whose values are never stored, by default. Names are
/// compared without case, `-` and `_` (`apiKey`, `api_key` and `API-KEY`
/// are one name).
pub const SECRET_QUERY_PARAMS: &[&str] = &[
    "api_key",
    "apikey",
    "key",
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "auth",
    "auth_token",
    "authorization",
    "bearer",
    "password",
    "passwd",
    "pwd",
    "secret",
    "client_secret",
    "signature",
    "sig",
    "session",
    "session_id",
    "x-api-key",
    "x-amz-signature",
    "x-amz-security-token",
    "x-goog-signature",
];

/// Members of the run input's `forwardedProps` (at any depth) whose values
/// are never stored, by default; compared as [`SECRET_QUERY_PARAMS`] are.
pub const SECRET_FIELD_NAMES: &[&str] = &[
    "api_key",
    "apikey",
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "auth_token",
    "authorization",
    "bearer",
    "password",
    "passwd",
    "secret",
    "client_secret",
    "private_key",
    "credentials",
    "cookie",
];

/// How deep the search for secret members goes (JSON itself is read at
/// most 128 levels deep).
const MAX_FIELD_DEPTH: usize = 128;

/// What a recording hides of the requests it stores, beyond the secret
/// headers (always hidden): the default lists, and what the user adds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreRedaction {
    /// More query parameter names to hide (`--redact-param NAME`).
    pub params: Vec<String>,
    /// JSON pointers into the run input to hide (`--redact-field POINTER`),
    /// wherever they resolve (every duplicate member included).
    pub fields: Vec<String>,
}

/// A name compared without case, `-` and `_`.
fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

fn listed(list: &[&str], extra: &[String], name: &str) -> bool {
    let name = normalized(name);
    list.iter().any(|n| normalized(n) == name) || extra.iter().any(|n| normalized(n) == name)
}

/// Percent-decoding of a query component (`+` is a space), for comparing
/// names; undecodable bytes stay as they are.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match bytes[i] {
            b'%' => match (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            ) {
                (Some(high), Some(low)) => {
                    // Two hex digits: at most 255.
                    out.push(u8::try_from(high * 16 + low).unwrap_or(b'%'));
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl StoreRedaction {
    /// Whether a query parameter's value is hidden.
    pub fn is_secret_param(&self, name: &str) -> bool {
        listed(SECRET_QUERY_PARAMS, &self.params, &percent_decoded(name))
    }

    /// A URL with its userinfo password and secret query values replaced by
    /// [`REDACTED`], every other byte kept; and what was hidden
    /// (`url password`, `query api_key`…).
    pub fn url(&self, url: &str) -> (String, Vec<String>) {
        let mut hidden = Vec::new();
        let (before_fragment, fragment) = match url.find('#') {
            Some(at) => url.split_at(at),
            None => (url, ""),
        };
        let (base, query) = match before_fragment.find('?') {
            Some(at) => (&before_fragment[..at], Some(&before_fragment[at + 1..])),
            None => (before_fragment, None),
        };
        let mut out = String::with_capacity(url.len());
        // The authority: after `scheme://`, up to the path.
        match base.find("://") {
            Some(at) => {
                let authority_start = at + 3;
                let rest = &base[authority_start..];
                let authority_end = rest.find('/').map_or(base.len(), |i| authority_start + i);
                let authority = &base[authority_start..authority_end];
                out.push_str(&base[..authority_start]);
                match authority.rfind('@') {
                    Some(at_sign) => {
                        let userinfo = &authority[..at_sign];
                        match userinfo.find(':') {
                            Some(colon) if colon + 1 < userinfo.len() => {
                                out.push_str(&userinfo[..=colon]);
                                out.push_str(REDACTED);
                                hidden.push("url password".to_owned());
                            }
                            Some(_) => out.push_str(userinfo),
                            // A user name alone is how tokens ride in URLs
                            // (`https://TOKEN@host/`): hidden whole.
                            None if !userinfo.is_empty() => {
                                out.push_str(REDACTED);
                                hidden.push("url user".to_owned());
                            }
                            None => {}
                        }
                        out.push_str(&authority[at_sign..]);
                    }
                    None => out.push_str(authority),
                }
                out.push_str(&base[authority_end..]);
            }
            None => out.push_str(base),
        }
        if let Some(query) = query {
            out.push('?');
            let parts: Vec<String> = query
                .split('&')
                .map(|part| match part.split_once('=') {
                    Some((name, value)) if !value.is_empty() && self.is_secret_param(name) => {
                        let label = format!("query {}", percent_decoded(name));
                        if !hidden.contains(&label) {
                            hidden.push(label);
                        }
                        format!("{name}={REDACTED}")
                    }
                    _ => part.to_owned(),
                })
                .collect();
            out.push_str(&parts.join("&"));
        }
        out.push_str(fragment);
        (out, hidden)
    }

    /// A run input (a JSON request body) with its secrets replaced by
    /// `"[redacted]"`, every other byte kept: the members of
    /// `forwardedProps`, at any depth, named in [`SECRET_FIELD_NAMES`], and
    /// the values at the user's pointers. `None` when nothing is hidden (or
    /// the body is not JSON); with it, the pointers of what was hidden.
    pub fn body(&self, body: &[u8]) -> Option<(Vec<u8>, Vec<String>)> {
        self.hidden_at(body, &[])
    }

    /// An event with the run input it echoes hidden as [`Self::body`] hides
    /// the request body's (issue 38): an agent may send the run input back
    /// in `RUN_STARTED.input`, and the secrets the stored request hides
    /// must not be stored there either. Every top-level member named
    /// `input` is searched, whatever the event's `type` (a `type` named
    /// twice cannot slip one past). `None` when nothing is hidden (or the
    /// event is not JSON); with it, the pointers of what was hidden, under
    /// `/input`.
    pub fn event(&self, raw: &[u8]) -> Option<(Vec<u8>, Vec<String>)> {
        // Most events carry no input: only those that name one, or that
        // escape characters of member names, are parsed.
        if memchr::memmem::find(raw, b"input").is_none()
            && memchr::memmem::find(raw, b"\\u").is_none()
        {
            return None;
        }
        self.hidden_at(raw, &["input".to_owned()])
    }

    /// The values [`Self::body`] hides in a request body, as written there
    /// (JSON texts): what an agent may echo anywhere in its stream
    /// ([`hide_values`]).
    pub fn hidden_values(&self, body: &[u8]) -> Vec<Vec<u8>> {
        let Some(text) = std::str::from_utf8(body).ok() else {
            return Vec::new();
        };
        let mut values: Vec<Vec<u8>> = self
            .ranges_at(text, &[])
            .map(|(ranges, _)| {
                ranges
                    .into_iter()
                    .map(|range| text.as_bytes()[range].to_vec())
                    .collect()
            })
            .unwrap_or_default();
        // A value already hidden (a request stored by `record`, imported
        // again) is no secret to look for.
        let placeholder = serde_json::to_string(REDACTED).unwrap_or_default();
        values.retain(|value| value.as_slice() != placeholder.as_bytes());
        values.sort();
        values.dedup();
        values
    }

    /// The run input at `at` (tokens from the root of `json`) with its
    /// secrets hidden, and their pointers from the root.
    fn hidden_at(&self, json: &[u8], at: &[String]) -> Option<(Vec<u8>, Vec<String>)> {
        let text = std::str::from_utf8(json).ok()?;
        let (ranges, hidden) = self.ranges_at(text, at)?;
        let placeholder = serde_json::to_string(REDACTED).unwrap_or_default();
        let redacted = raw_json::splice(text, ranges, &placeholder);
        Some((redacted.into_bytes(), hidden))
    }

    /// Where in `text` the run input at `at` holds secrets, and their
    /// pointers from the root; `None` when nowhere (or not JSON).
    fn ranges_at(
        &self,
        text: &str,
        at: &[String],
    ) -> Option<(Vec<std::ops::Range<usize>>, Vec<String>)> {
        let root = raw_json::parse(text)?;
        let prefix: String = at
            .iter()
            .map(|token| format!("/{}", escape(token)))
            .collect();
        let mut ranges = Vec::new();
        let mut hidden = Vec::new();
        let note = |hidden: &mut Vec<String>, pointer: String| {
            if !hidden.contains(&pointer) {
                hidden.push(pointer);
            }
        };
        let mut props_at = at.to_vec();
        props_at.push("forwardedProps".to_owned());
        for props in raw_json::values_at(root, &props_at) {
            let mut found = Vec::new();
            secret_members(props, &format!("{prefix}/forwardedProps"), 0, &mut found);
            for (pointer, value) in found {
                ranges.extend(raw_json::range_in(text, value));
                note(&mut hidden, pointer);
            }
        }
        for pointer in &self.fields {
            // The empty pointer (the whole event) is refused, as the
            // export's redaction refuses it.
            let Some(tokens) = crate::pointer::tokens(pointer)
                .ok()
                .filter(|_| !pointer.is_empty())
            else {
                continue;
            };
            let tokens: Vec<String> = at.iter().cloned().chain(tokens).collect();
            let found: Vec<_> = raw_json::values_at(root, &tokens)
                .into_iter()
                .filter_map(|value| raw_json::range_in(text, value))
                .collect();
            if !found.is_empty() {
                ranges.extend(found);
                note(&mut hidden, format!("{prefix}{pointer}"));
            }
        }
        if ranges.is_empty() {
            return None;
        }
        Some((ranges, hidden))
    }

    /// A request as it is stored: secret headers, URL parts and run input
    /// members hidden; and what was hidden, in words (`header
    /// authorization`, `query key`, `body /forwardedProps/apiKey`).
    pub fn request(&self, request: &HttpRequest) -> (HttpRequest, Vec<String>) {
        let mut hidden: Vec<String> = request
            .headers
            .iter()
            .filter(|(name, _)| is_secret_header(name))
            .map(|(name, _)| format!("header {}", name.to_ascii_lowercase()))
            .collect();
        hidden.dedup();
        let (url, url_hidden) = self.url(&request.url);
        hidden.extend(url_hidden);
        let body = match request.body.as_deref() {
            None => None,
            Some(raw) if raw.iter().all(u8::is_ascii_whitespace) => Some(raw.to_vec()),
            // A body that does not read as JSON cannot be searched for
            // secrets: it is withheld rather than stored unchecked.
            Some(raw)
                if std::str::from_utf8(raw)
                    .ok()
                    .and_then(raw_json::parse)
                    .is_none() =>
            {
                hidden.push("body (not JSON: withheld, not checked for secrets)".to_owned());
                Some(NOT_JSON_BODY.to_vec())
            }
            Some(raw) => match self.body(raw) {
                Some((body, pointers)) => {
                    hidden.extend(pointers.into_iter().map(|p| format!("body {p}")));
                    Some(body)
                }
                None => Some(raw.to_vec()),
            },
        };
        let stored = HttpRequest {
            method: request.method.clone(),
            url,
            headers: super::redact_headers(&request.headers),
            body,
        };
        (stored, hidden)
    }
}

/// The shortest value text [`hide_values`] looks for: a string of six
/// characters and its quotes. Shorter ones would be found where they are
/// no secret (a delta `"1234"`).
pub const MIN_HIDDEN_VALUE_BYTES: usize = 8;

/// `raw` with every copy of one of `values` (JSON texts the request body
/// hid, [`StoreRedaction::hidden_values`]) replaced by `"[redacted]"`,
/// wherever the agent echoes it in its stream (a `CUSTOM` event, a state,
/// an event that is not JSON), beyond the run input [`StoreRedaction::event`]
/// searches (issue 38). Values shorter than [`MIN_HIDDEN_VALUE_BYTES`] are
/// not looked for. `None` when there is none.
pub fn hide_values(raw: &[u8], values: &[Vec<u8>]) -> Option<Vec<u8>> {
    let placeholder = serde_json::to_string(REDACTED).unwrap_or_default();
    let mut out: Option<Vec<u8>> = None;
    for value in values.iter().filter(|v| v.len() >= MIN_HIDDEN_VALUE_BYTES) {
        let current = out.as_deref().unwrap_or(raw);
        if memchr::memmem::find(current, value).is_none() {
            continue;
        }
        let mut replaced = Vec::with_capacity(current.len());
        let mut at = 0;
        for found in memchr::memmem::find_iter(current, value) {
            if found < at {
                continue;
            }
            replaced.extend_from_slice(&current[at..found]);
            replaced.extend_from_slice(placeholder.as_bytes());
            at = found + value.len();
        }
        replaced.extend_from_slice(&current[at..]);
        out = Some(replaced);
    }
    out
}

/// What is stored for a request body that is not JSON (it cannot be
/// searched for secrets, so it is not stored).
pub const NOT_JSON_BODY: &[u8] = b"[REDACTED: the request body is not JSON, so it was not stored]";

/// A pointer's reference token escaped (RFC 6901).
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The members under `value` (at `pointer`) whose names are secret, each
/// with its pointer; a secret member's value is hidden whole, so the search
/// does not go inside it.
fn secret_members<'a>(
    value: &'a serde_json::value::RawValue,
    pointer: &str,
    depth: usize,
    found: &mut Vec<(String, &'a serde_json::value::RawValue)>,
) {
    if depth >= MAX_FIELD_DEPTH {
        // Too deep to search: hidden whole rather than stored unchecked.
        found.push((pointer.to_owned(), value));
        return;
    }
    if let Some(members) = raw_json::members(value) {
        for (name, member) in members {
            let at = format!("{pointer}/{}", escape(&name));
            if listed(SECRET_FIELD_NAMES, &[], &name) {
                found.push((at, member));
            } else {
                secret_members(member, &at, depth + 1, found);
            }
        }
    } else if let Some(items) = raw_json::items(value) {
        for (i, item) in items.into_iter().enumerate() {
            secret_members(item, &format!("{pointer}/{i}"), depth + 1, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_their_password_and_secret_parameters_only() {
        let redaction = StoreRedaction {
            params: vec!["tenant".into()],
            fields: Vec::new(),
        };
        let (url, hidden) = redaction
            .url("https://bob:hunter2@agent.example/run?api_key=K1&page=2&Access-Token=T&tenant=x&key=#frag");
        assert_eq!(
            url,
            "https://bob:[redacted]@agent.example/run?api_key=[redacted]&page=2&Access-Token=[redacted]&tenant=[redacted]&key=#frag"
        );
        assert_eq!(
            hidden,
            [
                "url password",
                "query api_key",
                "query Access-Token",
                "query tenant"
            ]
        );
        let (url, hidden) = redaction.url("http://127.0.0.1:8000/agent?q=a%3Db");
        assert_eq!(url, "http://127.0.0.1:8000/agent?q=a%3Db");
        assert!(hidden.is_empty());
        // A user without a password (as a token rides: hidden whole), and
        // `%`-escaped names.
        let (url, hidden) = redaction.url("http://bob@h/p?api%5Fkey=s");
        assert_eq!(url, "http://[redacted]@h/p?api%5Fkey=[redacted]");
        assert_eq!(hidden, ["url user", "query api_key"]);
    }

    #[test]
    fn a_token_as_url_user_is_hidden_whole() {
        // Review of issue 12, item 9: `https://TOKEN@host/` carries a secret
        // without a colon.
        let (url, hidden) = StoreRedaction::default().url("https://ghp_abc123@agent.example/run");
        assert_eq!(url, "https://[redacted]@agent.example/run");
        assert_eq!(hidden, ["url user"]);
    }

    #[test]
    fn a_request_body_that_is_not_json_is_withheld() {
        // Review of issue 12, item 9: what cannot be searched for secrets is
        // not stored unchecked.
        let request = HttpRequest {
            method: "POST".into(),
            url: "http://agent.example/run".into(),
            headers: Vec::new(),
            body: Some(b"api_key=K1&prompt=hi".to_vec()),
        };
        let (stored, hidden) = StoreRedaction::default().request(&request);
        assert_eq!(stored.body.as_deref(), Some(NOT_JSON_BODY));
        assert!(
            hidden.iter().any(|h| h.starts_with("body (not JSON")),
            "{hidden:?}"
        );
        let empty = HttpRequest {
            body: Some(Vec::new()),
            ..request
        };
        assert_eq!(
            StoreRedaction::default().request(&empty).0.body,
            Some(Vec::new())
        );
    }

    #[test]
    fn forwarded_props_too_deep_to_search_are_hidden_whole() {
        let mut body = String::from(r#"{"forwardedProps":"#);
        for _ in 0..200 {
            body.push_str(r#"{"a":"#);
        }
        body.push_str(r#""apiKey-deep""#);
        for _ in 0..200 {
            body.push('}');
        }
        body.push('}');
        let (stored, hidden) = StoreRedaction::default()
            .body(body.as_bytes())
            .expect("something hidden");
        let stored = String::from_utf8(stored).expect("UTF-8");
        assert!(!stored.contains("apiKey-deep"), "{stored}");
        assert_eq!(hidden.len(), 1, "{hidden:?}");
    }

    // Issue 38: an agent echoes the run input in `RUN_STARTED.input`; its
    // secrets are hidden there as in the request body, every `input`
    // member (duplicates included), and events without one are untouched.
    #[test]
    fn the_run_input_echoed_in_an_event_is_hidden_as_the_body_is() {
        let redaction = StoreRedaction {
            params: Vec::new(),
            fields: vec!["/state/session".into()],
        };
        let event = br#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"state":{"session":"S"},"forwardedProps":{"apiKey":"K","model":"m"}},"input":{"forwardedProps":{"x":{"token":"T"}}}}"#;
        let (stored, hidden) = redaction.event(event).expect("something hidden");
        assert_eq!(
            String::from_utf8(stored).expect("UTF-8"),
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","input":{"state":{"session":"[redacted]"},"forwardedProps":{"apiKey":"[redacted]","model":"m"}},"input":{"forwardedProps":{"x":{"token":"[redacted]"}}}}"#
        );
        assert_eq!(
            hidden,
            [
                "/input/forwardedProps/apiKey",
                "/input/forwardedProps/x/token",
                "/input/state/session"
            ]
        );
        // A key escaped in the member name is found too.
        let escaped = br#"{"type":"RUN_STARTED","\u0069nput":{"forwardedProps":{"apiKey":"K"}}}"#;
        let (stored, _) = redaction.event(escaped).expect("hidden");
        assert!(!String::from_utf8(stored).expect("UTF-8").contains("\"K\""));
        // Nothing to hide: no input, or no secret in it, or not JSON.
        assert_eq!(
            redaction.event(br#"{"type":"TEXT_MESSAGE_CONTENT","delta":"input"}"#),
            None
        );
        assert_eq!(
            redaction.event(br#"{"type":"RUN_STARTED","input":{"forwardedProps":{}}}"#),
            None
        );
        assert_eq!(redaction.event(b"input, not JSON"), None);
        // The top level's `forwardedProps` is the body's, not an event's.
        assert_eq!(
            redaction.event(br#"{"input":1,"forwardedProps":{"apiKey":"K"}}"#),
            None
        );
    }

    // Issue 38: a value the request body hid is hidden wherever the stream
    // echoes it whole (here a `CUSTOM` event, and an event that is not
    // JSON); a value too short to be told from others is not looked for.
    #[test]
    fn values_the_body_hid_are_hidden_wherever_they_are_echoed() {
        let body =
            br#"{"forwardedProps":{"apiKey":"sk-123456","password":"abc","token":"sk-123456"}}"#;
        let values = StoreRedaction::default().hidden_values(body);
        assert_eq!(values, [br#""abc""#.to_vec(), br#""sk-123456""#.to_vec()]);
        let custom =
            br#"{"type":"CUSTOM","value":{"k":"sk-123456","p":"abc"},"again":"sk-123456"}"#;
        assert_eq!(
            hide_values(custom, &values).as_deref(),
            Some(
                &br#"{"type":"CUSTOM","value":{"k":"[redacted]","p":"abc"},"again":"[redacted]"}"#
                    [..]
            )
        );
        assert_eq!(
            hide_values(br#"{"type":"CUSTOM","value":"sk-123456","cut"#, &values).as_deref(),
            Some(&br#"{"type":"CUSTOM","value":"[redacted]","cut"#[..])
        );
        assert_eq!(hide_values(br#"{"delta":"sk-12345"}"#, &values), None);
    }

    #[test]
    fn run_input_tokens_are_hidden_in_place() {
        let redaction = StoreRedaction {
            params: Vec::new(),
            fields: vec!["/state/session".into()],
        };
        let body = br#"{"threadId":"t","state":{"session":"S","n":1},"forwardedProps":{"apiKey":"K","nested":[{"access_token":"A"}],"model":"m","apiKey":"K2"}}"#;
        let (stored, hidden) = redaction.body(body).expect("something hidden");
        assert_eq!(
            String::from_utf8(stored).expect("UTF-8"),
            r#"{"threadId":"t","state":{"session":"[redacted]","n":1},"forwardedProps":{"apiKey":"[redacted]","nested":[{"access_token":"[redacted]"}],"model":"m","apiKey":"[redacted]"}}"#
        );
        assert_eq!(
            hidden,
            [
                "/forwardedProps/apiKey",
                "/forwardedProps/nested/0/access_token",
                "/state/session"
            ]
        );
        assert_eq!(redaction.body(br#"{"forwardedProps":{}}"#), None);
        assert_eq!(redaction.body(b"not json"), None);
    }
}
