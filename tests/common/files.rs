//! The fixtures of the repository: the demo, the samples, the vectors.

use std::path::{Path, PathBuf};

/// `relative` under the crate's folder.
pub fn manifest_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// The bundled demo recording (45 events, JSON lines).
pub fn demo() -> PathBuf {
    manifest_path("recordings/demo.jsonl")
}

/// The SSE sample of the README (13 events).
pub fn sample() -> PathBuf {
    manifest_path("tests/samples/search-agent.sse")
}

/// A HAR file with two event streams (7 and 9 events).
pub fn har() -> PathBuf {
    manifest_path("tests/samples/two-streams.har")
}

/// The vector `name` (without `.json`) of `tests/vectors/`.
pub fn vector(name: &str) -> PathBuf {
    manifest_path(&format!("tests/vectors/{name}.json"))
}

/// Every vector of `tests/vectors/`, sorted by name.
pub fn vector_paths() -> Vec<PathBuf> {
    let dir = manifest_path("tests/vectors");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/vectors exists")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 35, "the shared vectors are there");
    paths
}

/// A path as the `&str` the binary's arguments take.
pub fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// The file name of `path`.
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .expect("a name")
        .to_string_lossy()
        .into_owned()
}

/// The bundled demo as a recording (`recordings/demo.rec`).
pub fn demo_rec() -> PathBuf {
    manifest_path("recordings/demo.rec")
}

/// A JSON file, parsed.
pub fn load(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("json")
}
