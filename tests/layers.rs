//! The layers of `src/` run one way (issue 44): the top-level modules of the
//! library import one another without a cycle.
//!
//! The test reads the library's source as text. It walks the module tree from
//! `src/lib.rs` through every `mod name;` that is not `#[cfg(test)]`, and in
//! each file it reads every `crate::…` path, in `use`, in code and in doc
//! comments (intra-doc links), leaving out `#[cfg(test)]` items, string
//! literals and plain comments. Each path is an edge from the file's top-level
//! module (`src/foo.rs` or `src/foo/…` is `foo`) to the module it names; a
//! name the crate root re-exports (`crate::Diagnostic`) is an edge to the
//! module it comes from. The graph must have no cycle, and no `super::super…`
//! may climb out of its own top-level module into another.
//!
//! A hand-written scanner rather than `syn`: it needs only tokens (identifiers,
//! punctuation, doc text), and it has to keep doc comments, which a parser
//! would fold into attributes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// One token of Rust source: what the scanner needs of it.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// An identifier, keyword or number (`r#type` is `type`).
    Ident(String),
    /// One punctuation character.
    Punct(char),
    /// The text of a doc comment (`///`, `//!`, `/** */`, `/*! */`).
    Doc(String),
}

/// A token and the line it starts on (1-based).
#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: usize,
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Splits Rust source into tokens, dropping plain comments, whitespace and
/// the contents of string and character literals.
fn lex(src: &str) -> Vec<Token> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    while i < s.len() {
        let c = s[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            let start = i;
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
            let text: String = s[start..i].iter().collect();
            let doc =
                (text.starts_with("///") && !text.starts_with("////")) || text.starts_with("//!");
            if doc {
                out.push(Token {
                    tok: Tok::Doc(text[3..].to_string()),
                    line,
                });
            }
        } else if c == '/' && at(i + 1) == '*' {
            let start = i;
            let start_line = line;
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if s[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
            let text: String = s[start..i].iter().collect();
            let doc = (text.starts_with("/**") && !text.starts_with("/***") && text != "/**/")
                || text.starts_with("/*!");
            if doc {
                out.push(Token {
                    tok: Tok::Doc(text[3..].to_string()),
                    line: start_line,
                });
            }
        } else if c == '"' {
            i = skip_string(&s, i + 1, &mut line);
        } else if c == '\'' {
            // A character literal, or a lifetime / label.
            if at(i + 1) == '\\' {
                i += 2;
                while i < s.len() && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                out.push(Token {
                    tok: Tok::Punct('\''),
                    line,
                });
                i += 1;
            }
        } else if is_ident_start(c) {
            let start = i;
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            let raw_prefix = matches!(word.as_str(), "r" | "br" | "cr");
            let str_prefix = matches!(word.as_str(), "b" | "c");
            if raw_prefix && (at(i) == '"' || (at(i) == '#' && matches!(at(i + 1), '"' | '#'))) {
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                i += 1; // the opening quote
                loop {
                    if i >= s.len() {
                        break;
                    }
                    if s[i] == '\n' {
                        line += 1;
                    }
                    if s[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                        i += 1 + hashes;
                        break;
                    }
                    i += 1;
                }
            } else if word == "r" && at(i) == '#' && is_ident_start(at(i + 1)) {
                let start = i + 1;
                i += 1;
                while i < s.len() && is_ident_char(s[i]) {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(s[start..i].iter().collect()),
                    line,
                });
            } else if str_prefix && at(i) == '"' {
                i = skip_string(&s, i + 1, &mut line);
            } else if word == "b" && at(i) == '\'' {
                i += 1;
                if at(i) == '\\' {
                    i += 1;
                }
                i += 1;
                while i < s.len() && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else {
                out.push(Token {
                    tok: Tok::Ident(word),
                    line,
                });
            }
        } else {
            out.push(Token {
                tok: Tok::Punct(c),
                line,
            });
            i += 1;
        }
    }
    out
}

/// Skips a string literal's body from just after its opening quote; returns
/// the index after its closing quote.
fn skip_string(s: &[char], mut i: usize, line: &mut usize) -> usize {
    while i < s.len() {
        match s[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            '\n' => {
                *line += 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    i
}

fn is_punct(t: Option<&Token>, c: char) -> bool {
    matches!(t, Some(Token { tok: Tok::Punct(p), .. }) if *p == c)
}

fn ident(t: Option<&Token>) -> Option<&str> {
    match t {
        Some(Token {
            tok: Tok::Ident(w), ..
        }) => Some(w),
        _ => None,
    }
}

/// If an attribute `#[...]` starts at `i`, the index after it and whether it
/// is `#[cfg(test)]` (or a `cfg` that needs `test` to hold, like
/// `cfg(all(test, unix))`).
fn attribute(toks: &[Token], i: usize) -> Option<(usize, bool)> {
    if !is_punct(toks.get(i), '#') {
        return None;
    }
    let mut j = i + 1;
    if is_punct(toks.get(j), '!') {
        j += 1;
    }
    if !is_punct(toks.get(j), '[') {
        return None;
    }
    let open = j;
    let mut depth = 0;
    while j < toks.len() {
        match &toks[j].tok {
            Tok::Punct('[') | Tok::Punct('(') => depth += 1,
            Tok::Punct(']') | Tok::Punct(')') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    let inner: Vec<&Tok> = toks[open + 1..j].iter().map(|t| &t.tok).collect();
    let words: Vec<&str> = inner
        .iter()
        .filter_map(|t| match t {
            Tok::Ident(w) => Some(w.as_str()),
            _ => None,
        })
        .collect();
    let test_only = words.first() == Some(&"cfg")
        && words.contains(&"test")
        && !words.contains(&"not")
        && !words.contains(&"any");
    Some((j + 1, test_only))
}

/// Removes every `#[cfg(test)]` item (with its other attributes) from the
/// token stream: up to its `;` or its braced body at depth 0, or up to a `,`
/// or a closing bracket at depth 0 for a field or a match arm.
fn strip_test_items(toks: &[Token]) -> Vec<Token> {
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if let Some((after, test_only)) = attribute(toks, i) {
            if !test_only {
                out.extend_from_slice(&toks[i..after]);
                i = after;
                continue;
            }
            let mut j = after;
            while let Some((next, _)) = attribute(toks, j) {
                j = next;
            }
            let mut depth = 0i32;
            while j < toks.len() {
                match &toks[j].tok {
                    Tok::Punct('(') | Tok::Punct('[') => depth += 1,
                    Tok::Punct(')') | Tok::Punct(']') => {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    }
                    Tok::Punct('{') => {
                        if depth == 0 {
                            j = matching_brace(toks, j) + 1;
                            break;
                        }
                        depth += 1;
                    }
                    Tok::Punct('}') => {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    }
                    Tok::Punct(';') if depth == 0 => {
                        j += 1;
                        break;
                    }
                    Tok::Punct(',') if depth == 0 => {
                        j += 1;
                        break;
                    }
                    _ => {}
                }
                j += 1;
            }
            i = j;
        } else {
            out.push(toks[i].clone());
            i += 1;
        }
    }
    out
}

/// The index of the `}` that closes the `{` at `open`.
fn matching_brace(toks: &[Token], open: usize) -> usize {
    let mut depth = 0;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t.tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

/// A library source file: its path and its module path (`["replay", "patch"]`).
struct SourceFile {
    path: PathBuf,
    module: Vec<String>,
    tokens: Vec<Token>,
}

/// Walks the module tree from `src/lib.rs`, following every `mod name;` left
/// after the `#[cfg(test)]` items are removed.
fn library_files(src: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut todo = vec![(src.join("lib.rs"), Vec::<String>::new(), src.to_path_buf())];
    while let Some((path, module, dir)) = todo.pop() {
        let text =
            fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let tokens = strip_test_items(&lex(&text));
        let mut k = 0;
        while k + 2 < tokens.len() {
            let decl = ident(tokens.get(k)) == Some("mod")
                && is_punct(tokens.get(k + 2), ';')
                && (k == 0 || !is_punct(tokens.get(k - 1), ':'));
            if let (true, Some(name)) = (decl, ident(tokens.get(k + 1))) {
                let mut child = module.clone();
                child.push(name.to_string());
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(name).join("mod.rs");
                let (file, child_dir) = if flat.is_file() {
                    (flat, dir.join(name))
                } else if nested.is_file() {
                    (nested, dir.join(name))
                } else {
                    panic!("{}: no file for `mod {name};`", path.display());
                };
                todo.push((file, child, child_dir));
            }
            k += 1;
        }
        files.push(SourceFile {
            path,
            module,
            tokens,
        });
    }
    for file in &mut files {
        if let Ok(relative) = file.path.strip_prefix(src.parent().unwrap_or(src)) {
            file.path = relative.to_path_buf();
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// The names the crate root re-exports (`pub use diagnostic::{Code, …}`),
/// each with the top-level module it comes from.
fn root_reexports(lib: &SourceFile) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    let t = &lib.tokens;
    let mut k = 0;
    while k < t.len() {
        if ident(t.get(k)) == Some("use") && ident(t.get(k.wrapping_sub(1))) == Some("pub") {
            let Some(module) = ident(t.get(k + 1)) else {
                k += 1;
                continue;
            };
            let module = module.to_string();
            let mut j = k + 2;
            while j < t.len() && !is_punct(t.get(j), ';') {
                let last_segment = ident(t.get(j)).is_some()
                    && !is_punct(t.get(j + 1), ':')
                    && ident(t.get(j - 1)) != Some("as");
                if last_segment && let Some(name) = ident(t.get(j)) {
                    names.insert(name.to_string(), module.clone());
                }
                j += 1;
            }
            k = j;
        }
        k += 1;
    }
    names
}

/// One `crate::…` (or climbing `super::…`) path found in a file.
#[derive(Debug, Clone)]
struct Reference {
    file: PathBuf,
    line: usize,
    /// The first segment after `crate::` (a top-level module or a re-export).
    first: String,
}

/// The `crate::x` paths of a file's tokens: in code (`crate::x::Y`,
/// `crate::{x::Y, z}`) and in doc comments.
fn crate_paths(file: &SourceFile) -> Vec<Reference> {
    let mut refs = Vec::new();
    let t = &file.tokens;
    let push = |refs: &mut Vec<Reference>, line, first: &str| {
        refs.push(Reference {
            file: file.path.clone(),
            line,
            first: first.to_string(),
        });
    };
    for (k, tok) in t.iter().enumerate() {
        match &tok.tok {
            Tok::Ident(w) if w == "crate" => {
                if !(is_punct(t.get(k + 1), ':') && is_punct(t.get(k + 2), ':')) {
                    continue;
                }
                if let Some(first) = ident(t.get(k + 3)) {
                    push(&mut refs, tok.line, first);
                } else if is_punct(t.get(k + 3), '{') {
                    // `crate::{a::X, b}`: the first segment of each member.
                    let mut depth = 0;
                    let mut expect_first = true;
                    for m in t.iter().skip(k + 3) {
                        match &m.tok {
                            Tok::Punct('{') => {
                                depth += 1;
                                expect_first = depth == 1;
                            }
                            Tok::Punct('}') => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            Tok::Punct(',') if depth == 1 => expect_first = true,
                            Tok::Ident(w) if expect_first => {
                                push(&mut refs, m.line, w);
                                expect_first = false;
                            }
                            _ => {}
                        }
                    }
                }
            }
            Tok::Doc(text) => {
                let mut rest = text.as_str();
                while let Some(pos) = rest.find("crate::") {
                    let before = rest[..pos].chars().next_back();
                    rest = &rest[pos + "crate::".len()..];
                    if before.is_some_and(|c| is_ident_char(c) || c == '$') {
                        continue;
                    }
                    let name: String = rest.chars().take_while(|c| is_ident_char(*c)).collect();
                    if !name.is_empty() {
                        push(&mut refs, tok.line, &name);
                    }
                }
            }
            _ => {}
        }
    }
    refs
}

/// `super::super::…` chains that climb to the crate root from a file and go
/// on into another top-level module: `(line, the module reached)`.
fn climbs_out(file: &SourceFile) -> Vec<(usize, String)> {
    let t = &file.tokens;
    let depth = file.module.len();
    let mut found = Vec::new();
    let mut k = 0;
    while k < t.len() {
        let starts =
            ident(t.get(k)) == Some("super") && !(is_punct(t.get(k.wrapping_sub(1)), ':') && k > 0);
        if !starts {
            k += 1;
            continue;
        }
        let mut supers = 0;
        let mut j = k;
        while ident(t.get(j)) == Some("super")
            && is_punct(t.get(j + 1), ':')
            && is_punct(t.get(j + 2), ':')
        {
            supers += 1;
            j += 3;
        }
        if supers >= depth
            && depth > 0
            && let Some(next) = ident(t.get(j))
            && next != file.module[0]
        {
            found.push((t[k].line, next.to_string()));
        }
        k = j.max(k + 1);
    }
    found
}

/// An edge of the module graph with the first place that makes it.
type Graph = BTreeMap<String, BTreeMap<String, Reference>>;

fn module_graph(src: &Path) -> (Graph, Vec<String>) {
    let files = library_files(src);
    let lib = files
        .iter()
        .find(|f| f.module.is_empty())
        .expect("src/lib.rs is read");
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| f.module.first().cloned())
        .collect();
    let reexports = root_reexports(lib);
    let mut graph: Graph = modules
        .iter()
        .map(|m| (m.clone(), BTreeMap::new()))
        .collect();
    let mut problems = Vec::new();
    for file in files.iter().filter(|f| !f.module.is_empty()) {
        let from = &file.module[0];
        for (line, to) in climbs_out(file) {
            problems.push(format!(
                "{}:{line}: `super::` climbs out of `{from}` into `{to}`; name it `crate::{to}`",
                file.path.display()
            ));
        }
        for r in crate_paths(file) {
            let to = if modules.contains(&r.first) {
                r.first.clone()
            } else if let Some(m) = reexports.get(&r.first) {
                m.clone()
            } else {
                problems.push(format!(
                    "{}:{}: `crate::{}` is neither a top-level module nor a name the root re-exports",
                    r.file.display(),
                    r.line,
                    r.first
                ));
                continue;
            };
            if &to != from {
                graph
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_insert(r);
            }
        }
    }
    (graph, problems)
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph[v].keys() {
            let w = w.as_str();
            if !s.graph.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found.sort();
    s.found
}

/// The shortest cycle through `start` inside `component` (breadth first).
fn shortest_cycle(graph: &Graph, component: &[String], start: &str) -> Vec<String> {
    let inside: BTreeSet<&str> = component.iter().map(String::as_str).collect();
    let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph[v].keys().map(String::as_str) {
            if w == start {
                let mut path = vec![v.to_string()];
                let mut at = v;
                while at != start {
                    at = parent[at];
                    path.push(at.to_string());
                }
                path.reverse();
                path.push(start.to_string());
                return path;
            }
            if inside.contains(w) && !parent.contains_key(w) {
                parent.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start.to_string()]
}

fn describe(graph: &Graph, components: &[Vec<String>]) -> String {
    let mut out = String::new();
    for component in components {
        let cycle = shortest_cycle(graph, component, &component[0]);
        let _ = writeln!(
            out,
            "cycle among {{{}}}: {}",
            component.join(", "),
            cycle.join(" -> ")
        );
        for pair in cycle.windows(2) {
            let r = &graph[&pair[0]][&pair[1]];
            let _ = writeln!(
                out,
                "    {} -> {}: {}:{} (crate::{})",
                pair[0],
                pair[1],
                r.file.display(),
                r.line,
                r.first
            );
        }
        for from in component {
            for (to, r) in &graph[from] {
                if component.contains(to) {
                    let _ = writeln!(
                        out,
                        "      edge {from} -> {to} first at {}:{}",
                        r.file.display(),
                        r.line
                    );
                }
            }
        }
    }
    out
}

#[test]
fn top_level_modules_import_one_another_without_a_cycle() {
    // Issue 44: the layers of src/ run one way.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (graph, problems) = module_graph(&src);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let components = cycles(&graph);
    assert!(
        components.is_empty(),
        "the top-level modules of src/ import one another in a cycle:\n{}",
        describe(&graph, &components)
    );
    // The layers, for docs/architecture.md (`cargo test --test layers --
    // --nocapture`): a module's layer is one above the highest it imports.
    for (layer, modules) in layers(&graph).iter().enumerate() {
        eprintln!("layer {layer}: {}", modules.join(", "));
    }
}

/// The modules of an acyclic graph by layer: a leaf is in layer 0, any
/// other module one above the highest module it imports.
fn layers(graph: &Graph) -> Vec<Vec<String>> {
    fn layer_of(graph: &Graph, module: &str, known: &mut BTreeMap<String, usize>) -> usize {
        if let Some(&layer) = known.get(module) {
            return layer;
        }
        let layer = graph.get(module).map_or(0, |imports| {
            imports
                .keys()
                .map(|m| layer_of(graph, m, known) + 1)
                .max()
                .unwrap_or(0)
        });
        known.insert(module.to_owned(), layer);
        layer
    }
    let mut known = BTreeMap::new();
    let mut out: Vec<Vec<String>> = Vec::new();
    for module in graph.keys() {
        let layer = layer_of(graph, module, &mut known);
        if out.len() <= layer {
            out.resize(layer + 1, Vec::new());
        }
        out[layer].push(module.clone());
    }
    out
}

#[test]
fn layers_put_each_module_above_what_it_imports() {
    let mut graph = Graph::new();
    let edge = |graph: &mut Graph, from: &str, to: &str| {
        let reference = Reference {
            file: PathBuf::from(format!("src/{from}.rs")),
            line: 1,
            first: to.to_owned(),
        };
        graph
            .entry(from.to_owned())
            .or_default()
            .insert(to.to_owned(), reference);
        graph.entry(to.to_owned()).or_default();
    };
    edge(&mut graph, "cli", "replay");
    edge(&mut graph, "replay", "diagnostic");
    edge(&mut graph, "cli", "diagnostic");
    edge(&mut graph, "pointer", "diagnostic");
    assert_eq!(
        layers(&graph),
        [
            vec!["diagnostic".to_owned()],
            vec!["pointer".to_owned(), "replay".to_owned()],
            vec!["cli".to_owned()],
        ]
    );
}

/// The scanner's own cases: what counts as a path and what does not.
#[test]
fn scanner_reads_paths_in_use_code_and_docs_but_not_tests_strings_or_comments() {
    // Issue 44: the cycle test must see every import, and only imports.
    let src = r####"
//! See [`crate::alpha::A`] and [b](crate::beta).
use crate::{gamma::G, delta};
// crate::plain_comment
fn f() -> crate::epsilon::E { let _ = "crate::in_string"; let _ = r#"crate::raw"#; let _c = '"'; crate::zeta::z() }
#[cfg(test)]
mod tests { use crate::in_tests; }
#[cfg(test)]
fn helper() { crate::test_helper(); }
struct S { #[cfg(test)] f: crate::test_field::F, g: crate::eta::H }
fn life<'a>(x: &'a str) -> &'a str { crate::theta::t(x) }
"####;
    let file = SourceFile {
        path: PathBuf::from("case.rs"),
        module: vec!["case".to_string()],
        tokens: strip_test_items(&lex(src)),
    };
    let found: Vec<String> = crate_paths(&file).into_iter().map(|r| r.first).collect();
    assert_eq!(
        found,
        [
            "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"
        ]
    );
}

#[test]
fn scanner_finds_super_climbing_into_another_module() {
    // Issue 44: `super::super::other` is an import of `other` in disguise.
    let src =
        "use super::super::other::X; use super::sibling::Y; fn f() { super::super::own::g() }";
    let file = SourceFile {
        path: PathBuf::from("src/own/inner.rs"),
        module: vec!["own".to_string(), "inner".to_string()],
        tokens: lex(src),
    };
    assert_eq!(climbs_out(&file), [(1, "other".to_string())]);
}

#[test]
fn a_cycle_is_named_with_its_edges() {
    // Issue 44: the failure names the cycle and where each edge comes from.
    let mut graph = Graph::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        graph.entry(to.to_string()).or_default();
        graph.entry(from.to_string()).or_default().insert(
            to.to_string(),
            Reference {
                file: PathBuf::from(format!("src/{from}.rs")),
                line: 1,
                first: to.to_string(),
            },
        );
    }
    let components = cycles(&graph);
    assert_eq!(components, [vec!["a", "b", "c"]]);
    let text = describe(&graph, &components);
    assert!(text.contains("a -> b -> c -> a"), "{text}");
    assert!(text.contains("src/b.rs:1"), "{text}");
}
