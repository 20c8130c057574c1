//! The HAR reader: every event-stream exchange of the archive, its SSE body
//! read as a stream and its request body taken as the run input.
#![no_main]

use std::path::Path;

use agui_replay::input::{is_har, read_har};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let _ = is_har(data);
    let Ok(exchanges) = read_har(data) else {
        return;
    };
    for exchange in &exchanges {
        let _ = format!("{} {}", exchange.request.method, exchange.request.url);
        if let Ok(stream) = agui_replay::read_bytes(&exchange.body, Path::new("response.sse")) {
            common::parse_all(&stream.events);
        }
        if let Some(body) = &exchange.request.body {
            let _ = serde_json::from_slice::<serde_json::Value>(body);
        }
    }
});
