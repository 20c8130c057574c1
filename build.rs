//! Compiles `proto/agui.proto` (AG-UI's protobuf encoding, issue 15.6) into
//! typed prost messages in `OUT_DIR`, with protox (a protobuf compiler in
//! Rust, so no `protoc` is needed) and prost-build.
//!
//! The descriptors are adjusted, without changing a byte of the wire format,
//! so that the typed messages read what `@ag-ui/proto` 1.0.0 (ts-proto)
//! reads:
//! - `string` fields are generated as bytes: a bad UTF-8 byte reads as
//!   U+FFFD (as JavaScript's `TextDecoder` reads it) instead of failing the
//!   whole message;
//! - `oneof` members are plain fields, so every arm sent is seen (an `Event`
//!   with two events is refused, not silently cut to the last one); in
//!   `google.protobuf.Value` they are repeated and unpacked, so the reader
//!   keeps each kind's last value as ts-proto does and picks by its order;
//! - `google.protobuf.Struct`'s map is its entries in wire order.
//!
//! It also writes `json_impls.rs`: one `json_messages!` list naming every
//! message's fields and their JSON names, so the JSON mapping
//! (src/protocol/proto/typed.rs) follows the `.proto` and cannot drift.
//!
//! And it sets `AGUI_REPLAY_COMMIT`, which `--version` prints (issue 45):
//! `commit` and the checkout's commit, or `unknown commit` outside a git
//! checkout of this crate (a crates.io package, an unpacked source
//! archive); the build runs again when the checkout's HEAD moves.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FileDescriptorSet};

fn main() {
    println!("cargo:rerun-if-changed=proto/agui.proto");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest_dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR is set"));
    let commit = match git_commit(&manifest_dir) {
        Some(hash) => format!("commit {hash}"),
        None => "unknown commit".to_owned(),
    };
    println!("cargo:rustc-env=AGUI_REPLAY_COMMIT={commit}");
    let mut fds = match protox::compile(["agui.proto"], ["proto"]) {
        Ok(fds) => fds,
        Err(e) => panic!("proto/agui.proto does not compile: {e:?}"),
    };
    adjust(&mut fds);
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo"));
    std::fs::write(out.join("json_impls.rs"), json_impls(&fds)).expect("writes json_impls.rs");
    let mut config = prost_build::Config::new();
    config.compile_well_known_types().bytes(["."]).out_dir(&out);
    if let Err(e) = config.compile_fds(fds) {
        panic!("prost-build: {e}");
    }
}

/// `git` run in `dir` with `args`: its output's first line, if it ran and
/// succeeded.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8(output.stdout).ok()?;
    let line = text.lines().next()?.trim();
    (!line.is_empty()).then(|| line.to_owned())
}

/// The short hash of HEAD when `manifest_dir` is the top of a git checkout
/// (not a crate unpacked somewhere inside another repository), after asking
/// cargo to run this script again when HEAD, or the branch it names, moves.
fn git_commit(manifest_dir: &Path) -> Option<String> {
    let top = git(manifest_dir, &["rev-parse", "--show-toplevel"])?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same(Path::new(&top), manifest_dir) {
        return None;
    }
    // A worktree has its own HEAD; the branches are in the common folder.
    let git_dir = git(manifest_dir, &["rev-parse", "--absolute-git-dir"])?;
    let common = git(
        manifest_dir,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    )
    .unwrap_or_else(|| git_dir.clone());
    let mut watched = vec![Path::new(&git_dir).join("HEAD")];
    if let Some(branch) = git(manifest_dir, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(Path::new(&common).join(branch));
    }
    watched.push(Path::new(&common).join("packed-refs"));
    // Only files that exist: cargo runs the script again every build for
    // a watched path that is missing.
    for path in watched.iter().filter(|path| path.is_file()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    git(manifest_dir, &["rev-parse", "--short=12", "HEAD"])
}

/// The wire-neutral adjustments the module docs list.
fn adjust(fds: &mut FileDescriptorSet) {
    for file in &mut fds.file {
        let package = file.package().to_owned();
        for message in &mut file.message_type {
            adjust_message(&package, message);
        }
    }
}

fn adjust_message(scope: &str, message: &mut DescriptorProto) {
    let full = format!("{scope}.{}", message.name());
    let is_value = full == "google.protobuf.Value";
    for field in &mut message.field {
        if field.r#type() == Type::String {
            field.set_type(Type::Bytes);
        }
        if field.oneof_index.is_some() && !field.proto3_optional() {
            field.oneof_index = None;
            if is_value {
                field.set_label(Label::Repeated);
                field.options.get_or_insert_default().packed = Some(false);
            }
        }
    }
    for nested in &mut message.nested_type {
        if full == "google.protobuf.Struct"
            && let Some(options) = nested.options.as_mut()
        {
            options.map_entry = None;
        }
        adjust_message(&full, nested);
    }
}

/// `json_messages! { Path { field: "jsonName", ... } ... }` for every
/// message of the `ag_ui` package, and `event_arms! { arm: Type, ... }`
/// for the `Event` envelope.
fn json_impls(fds: &FileDescriptorSet) -> String {
    let mut out = String::from("json_messages! {\n");
    let mut arms = String::new();
    for file in fds.file.iter().filter(|f| f.package() == "ag_ui") {
        for message in &file.message_type {
            list_message("", message, &mut out, &mut arms);
        }
    }
    out.push_str("}\n\nevent_arms! {\n");
    out.push_str(&arms);
    out.push_str("}\n");
    out
}

fn list_message(module: &str, message: &DescriptorProto, out: &mut String, arms: &mut String) {
    let path = format!("{module}{}", message.name());
    let _ = writeln!(out, "    {path} {{");
    for field in &message.field {
        let json = match field.json_name() {
            "" => field.name().to_owned(),
            name => name.to_owned(),
        };
        let _ = writeln!(out, "        {}: {json:?},", ident(field.name()));
        if path == "Event" {
            let type_name = field.type_name().rsplit('.').next().unwrap_or_default();
            let _ = writeln!(arms, "    {}: {type_name},", ident(field.name()));
        }
    }
    out.push_str("    }\n");
    let inner = format!("{module}{}::", snake(message.name()));
    for nested in &message.nested_type {
        list_message(&inner, nested, out, arms);
    }
}

/// A field name as prost-build spells its Rust identifier.
fn ident(name: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "box", "break", "const", "continue", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe",
        "use", "where", "while",
    ];
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}

/// A message name as prost-build spells its nested module (`ToolCall` is
/// `tool_call`).
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}
