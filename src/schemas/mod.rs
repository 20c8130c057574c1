//! Activity content schemas (issue 42, rule S1): a folder of JSON Schemas,
//! one per activity type (`DIR/<activityType>.schema.json`) and one for the
//! shared state (`DIR/_state.schema.json`), checked against each content
//! after every snapshot or delta ([`watch`]), or inferred from recordings
//! ([`infer`]).
//!
//! No egui here: `check --schemas`, `schemas infer` and the app read it.
//! The replay engine is not changed for it: the contents are observed
//! between steps ([`observe`]), as a consumer's widget would read them.

pub mod infer;
pub mod observe;
pub mod watch;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use infer::{Inference, Inferred};
pub use observe::{Target, observe_replay};
pub use watch::{SchemaWatch, StreamCheck, check_stream};

/// The name of the shared state's schema file.
pub const STATE_FILE: &str = "_state.schema.json";

/// What every schema file's name ends with.
pub const SUFFIX: &str = ".schema.json";

/// Why a schema folder cannot be used. Each names the file (or folder).
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The folder cannot be listed.
    #[error("cannot read the schema folder {}: {}", path.display(), crate::error::io_cause(source))]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A schema file cannot be read.
    #[error("cannot read the schema {}: {}", path.display(), crate::error::io_cause(source))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A schema file is not JSON.
    #[error("the schema {} is not JSON: {source}", path.display())]
    NotJson {
        /// The file.
        path: PathBuf,
        /// Where and why.
        source: serde_json::Error,
    },
    /// A schema file is JSON but not a schema the validator accepts.
    #[error("the schema {} is not a valid JSON Schema: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What the validator said.
        reason: String,
    },
    /// A file name whose percent escapes do not decode.
    #[error("the schema file name {} does not decode ({reason}): write `/`, a leading `.` and `%` as %2F, %2E and %25", path.display())]
    BadName {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// One loaded schema: its file name and its compiled validator.
pub struct Schema {
    /// The file name (`search.schema.json`), as diagnostics name it.
    pub file_name: String,
    /// The schema as written.
    pub document: Value,
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schema")
            .field("file_name", &self.file_name)
            .finish_non_exhaustive()
    }
}

impl Schema {
    /// Compiles `document` (JSON Schema 2020-12 unless its `$schema` names
    /// another draft, draft 7 among them) read from `path`.
    pub fn compile(path: &Path, document: Value) -> Result<Self, SchemaError> {
        let validator =
            jsonschema::validator_for(&document).map_err(|error| SchemaError::Invalid {
                path: path.to_owned(),
                reason: error.to_string(),
            })?;
        let file_name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            file_name,
            document,
            validator,
        })
    }

    /// The compiled validator.
    pub fn validator(&self) -> &jsonschema::Validator {
        &self.validator
    }
}

/// The schemas of a folder: one per activity type, and the state's.
#[derive(Debug, Default)]
pub struct SchemaSet {
    /// Where they were read from.
    pub folder: PathBuf,
    /// Per activity type.
    pub activities: BTreeMap<String, Schema>,
    /// The shared state's (`_state.schema.json`), if the folder has one.
    pub state: Option<Schema>,
}

impl SchemaSet {
    /// Reads every `*.schema.json` of `folder` (other files are left
    /// alone). An unreadable, non-JSON or invalid schema is an error naming
    /// its file.
    pub fn load(folder: &Path) -> Result<Self, SchemaError> {
        let entries = std::fs::read_dir(folder).map_err(|source| SchemaError::Folder {
            path: folder.to_owned(),
            source,
        })?;
        let mut files = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| SchemaError::Folder {
                path: folder.to_owned(),
                source,
            })?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.ends_with(SUFFIX) {
                files.push((name, entry.path()));
            }
        }
        // Read in name order: the first error is the same on every run.
        files.sort();
        let mut set = Self {
            folder: folder.to_owned(),
            ..Self::default()
        };
        for (name, path) in files {
            let target = target_of_file_name(&name).map_err(|reason| SchemaError::BadName {
                path: path.clone(),
                reason,
            })?;
            let text = std::fs::read(&path).map_err(|source| SchemaError::Read {
                path: path.clone(),
                source,
            })?;
            let document: Value =
                serde_json::from_slice(&text).map_err(|source| SchemaError::NotJson {
                    path: path.clone(),
                    source,
                })?;
            let schema = Schema::compile(&path, document)?;
            match target {
                FileTarget::State => set.state = Some(schema),
                FileTarget::Activity(activity_type) => {
                    set.activities.insert(activity_type, schema);
                }
            }
        }
        Ok(set)
    }

    /// The schema of an activity type, if the folder has one.
    pub fn activity(&self, activity_type: &str) -> Option<&Schema> {
        self.activities.get(activity_type)
    }

    /// Whether the folder holds no schema at all.
    pub fn is_empty(&self) -> bool {
        self.activities.is_empty() && self.state.is_none()
    }
}

/// What a schema file is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileTarget {
    /// The shared state (`_state.schema.json`).
    State,
    /// An activity type.
    Activity(String),
}

/// The file name of an activity type's schema: the type with `/`, a
/// leading `.` and `%` percent-encoded, then `.schema.json`. The type
/// `_state` alone is written `%5Fstate`, so that it is never taken for the
/// state's schema.
pub fn file_name_of_type(activity_type: &str) -> String {
    let mut name = String::with_capacity(activity_type.len() + SUFFIX.len());
    if activity_type == "_state" {
        name.push_str("%5Fstate");
    } else {
        for (i, c) in activity_type.char_indices() {
            match c {
                '/' => name.push_str("%2F"),
                '%' => name.push_str("%25"),
                '.' if i == 0 => name.push_str("%2E"),
                _ => name.push(c),
            }
        }
    }
    name.push_str(SUFFIX);
    name
}

/// What a file name ending in `.schema.json` is the schema of; an error
/// says why its percent escapes do not decode.
pub fn target_of_file_name(name: &str) -> Result<FileTarget, String> {
    if name == STATE_FILE {
        return Ok(FileTarget::State);
    }
    let stem = name
        .strip_suffix(SUFFIX)
        .ok_or_else(|| format!("the name does not end with {SUFFIX}"))?;
    let bytes = stem.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = stem
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("`%` at byte {i} is not followed by two hex digits"))?;
            decoded.push(hex);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(decoded)
        .map(FileTarget::Activity)
        .map_err(|_| "the decoded name is not UTF-8".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 42: a type is written into the file name with `/`, a leading
    // `.` and `%` percent-encoded, and read back as it was.
    #[test]
    fn type_names_round_trip_through_file_names() {
        for (activity_type, file) in [
            ("search", "search.schema.json"),
            ("a2ui/surface", "a2ui%2Fsurface.schema.json"),
            (".hidden", "%2Ehidden.schema.json"),
            ("v1.2", "v1.2.schema.json"),
            ("100%", "100%25.schema.json"),
            ("_state", "%5Fstate.schema.json"),
            ("_other", "_other.schema.json"),
        ] {
            assert_eq!(file_name_of_type(activity_type), file);
            assert_eq!(
                target_of_file_name(file),
                Ok(FileTarget::Activity(activity_type.to_owned()))
            );
        }
        // The state's file is never an activity type's.
        assert_eq!(target_of_file_name(STATE_FILE), Ok(FileTarget::State));
        assert!(target_of_file_name("bad%zz.schema.json").is_err());
        assert!(target_of_file_name("cut%2.schema.json").is_err());
    }
}
