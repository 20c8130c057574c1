//! The rules reference: `docs/RULES.md`, built into the binary, parsed into
//! rules (`R14` → its title and text) and the table mapping each diagnostic
//! [`Code`] to its severity and rule.
//!
//! The code, the diagnostics and the app cite rule ids; this is where a user
//! (`agui-replay rules R14`) or a hover in the app reads what they mean.
//! Start at [`reference`]; [`Reference::lookup`] answers a rule id, a
//! diagnostic code or a section number.

use std::sync::LazyLock;

use crate::diagnostic::{Code, Severity};

/// The text of `docs/RULES.md`, as built into the binary.
pub const REFERENCE_TEXT: &str = include_str!("../docs/RULES.md");

/// The title of the section holding the code table.
const CODES_SECTION: &str = "Diagnostic codes";

/// One rule: its id, title, section and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The stable id (`R14`, `D3`, `P2`, `C4`, `E1`).
    pub id: &'static str,
    /// One line: what the rule says.
    pub title: &'static str,
    /// The section it belongs to (`4. Activity deltas`).
    pub section: &'static str,
    /// Its text, as written in the reference (Markdown, wrapped lines).
    pub text: &'static str,
}

impl Rule {
    /// The text with its wrapped lines joined: one line per paragraph or
    /// list item, for a label that wraps by itself.
    pub fn plain_text(&self) -> String {
        unwrap_lines(self.text)
    }

    /// `R14: A patch that does not apply skips the event`.
    pub fn heading(&self) -> String {
        format!("{}: {}", self.id, self.title)
    }
}

/// One row of the code table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeEntry {
    /// The dotted code (`activity.patch.failed`).
    pub name: &'static str,
    /// Its severity under the `spec` profile.
    pub severity: Severity,
    /// The id of the rule it reports.
    pub rule: &'static str,
    /// When it is reported, in a few words.
    pub what: &'static str,
}

/// The parsed reference.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reference {
    /// Every rule, in the order of the file.
    pub rules: Vec<Rule>,
    /// Every row of the code table, in the order of the file.
    pub codes: Vec<CodeEntry>,
}

/// What a query names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// A rule, by its id.
    Rule(&'a Rule),
    /// A diagnostic code, and its rule when the table names one that exists.
    Code(&'a CodeEntry, Option<&'a Rule>),
    /// The rules of a section, by its number (`§11` or `11`).
    Section(&'static str, Vec<&'a Rule>),
}

/// Why the reference text does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("docs/RULES.md line {line}: {reason}")]
pub struct ReferenceError {
    /// The line (from 1).
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// The built-in reference. Its text is checked by the tests; should it not
/// parse, this is empty rather than a panic.
pub fn reference() -> &'static Reference {
    static REFERENCE: LazyLock<Reference> =
        LazyLock::new(|| Reference::parse(REFERENCE_TEXT).unwrap_or_default());
    &REFERENCE
}

impl Reference {
    /// Parses a reference: `## ` opens a section, `### ID: title` a rule
    /// (its text runs to the next heading), and in the section
    /// "Diagnostic codes" each `` | `code` | severity | rule | what | `` row
    /// is a code.
    pub fn parse(text: &'static str) -> Result<Self, ReferenceError> {
        let mut reference = Self::default();
        let mut section: &'static str = "";
        // The rule being read: its id, title, section and where its text starts.
        let mut open: Option<(&'static str, &'static str, &'static str, usize)> = None;
        let mut offset = 0;
        for (index, line) in text.split_inclusive('\n').enumerate() {
            let start = offset;
            offset += line.len();
            let line_number = index + 1;
            let trimmed = line.trim_end();
            if trimmed.starts_with('#') {
                if let Some((id, title, section, from)) = open.take() {
                    reference.rules.push(Rule {
                        id,
                        title,
                        section,
                        text: text[from..start].trim(),
                    });
                }
                if let Some(title) = trimmed.strip_prefix("### ") {
                    let (id, title) = parse_rule_heading(title).ok_or_else(|| ReferenceError {
                        line: line_number,
                        reason: format!(
                            "a rule heading is `### ID: title` with an id like R14, not {trimmed:?}"
                        ),
                    })?;
                    if reference.rules.iter().any(|r| r.id == id) {
                        return Err(ReferenceError {
                            line: line_number,
                            reason: format!("rule {id} is defined twice"),
                        });
                    }
                    open = Some((id, title, section, offset));
                } else if let Some(title) = trimmed.strip_prefix("## ") {
                    section = title.trim();
                }
                continue;
            }
            if section == CODES_SECTION && trimmed.starts_with("| `") {
                let entry = parse_code_row(trimmed).map_err(|reason| ReferenceError {
                    line: line_number,
                    reason,
                })?;
                if reference.codes.iter().any(|c| c.name == entry.name) {
                    return Err(ReferenceError {
                        line: line_number,
                        reason: format!("code {} is listed twice", entry.name),
                    });
                }
                reference.codes.push(entry);
            }
        }
        if let Some((id, title, section, from)) = open {
            reference.rules.push(Rule {
                id,
                title,
                section,
                text: text[from..].trim(),
            });
        }
        Ok(reference)
    }

    /// The rule with this id (ignoring ASCII case: `r14` is `R14`).
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id.eq_ignore_ascii_case(id))
    }

    /// The table's row for a code name.
    pub fn code(&self, name: &str) -> Option<&CodeEntry> {
        self.codes.iter().find(|c| c.name == name)
    }

    /// The rule a diagnostic code reports, if the table lists the code.
    pub fn rule_of(&self, code: Code) -> Option<&Rule> {
        self.code(code.as_str()).and_then(|c| self.rule(c.rule))
    }

    /// The codes that report a rule.
    pub fn codes_of<'a>(&'a self, rule_id: &'a str) -> impl Iterator<Item = &'a CodeEntry> + 'a {
        self.codes
            .iter()
            .filter(move |c| c.rule.eq_ignore_ascii_case(rule_id))
    }

    /// What a query names: a rule id (`R14`), a diagnostic code
    /// (`activity.patch.failed`) or a section number (`§11`, `11`).
    pub fn lookup(&self, query: &str) -> Option<Lookup<'_>> {
        let query = query.trim();
        if let Some(rule) = self.rule(query) {
            return Some(Lookup::Rule(rule));
        }
        if let Some(entry) = self.code(query) {
            return Some(Lookup::Code(entry, self.rule(entry.rule)));
        }
        let number = query.strip_prefix('§').unwrap_or(query).trim();
        if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) {
            let prefix = format!("{number}.");
            let section = self
                .rules
                .iter()
                .map(|r| r.section)
                .find(|s| s.starts_with(&prefix))?;
            let rules = self.rules.iter().filter(|r| r.section == section).collect();
            return Some(Lookup::Section(section, rules));
        }
        None
    }

    /// The rule ids of the reference a text cites (`"delta skipped (R12,
    /// R13)"` → R12, R13), in order, each once.
    pub fn rules_cited_in<'a>(&'a self, text: &str) -> Vec<&'a Rule> {
        let mut cited: Vec<&Rule> = Vec::new();
        for token in rule_id_tokens(text) {
            if let Some(rule) = self.rule(token)
                && !cited.iter().any(|r| r.id == rule.id)
            {
                cited.push(rule);
            }
        }
        cited
    }
}

/// The tokens of `text` shaped like a rule id: a capital letter and one to
/// three digits, standing alone (not inside a word or a longer number).
pub fn rule_id_tokens(text: &str) -> impl Iterator<Item = &str> + '_ {
    let bytes = text.as_bytes();
    (0..bytes.len()).filter_map(move |start| {
        let first = bytes[start];
        if !first.is_ascii_uppercase() {
            return None;
        }
        if start > 0 && is_word_byte(bytes[start - 1]) {
            return None;
        }
        let digits = bytes[start + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = start + 1 + digits;
        if !(1..=3).contains(&digits) || bytes.get(end).is_some_and(|&b| is_word_byte(b)) {
            return None;
        }
        Some(&text[start..end])
    })
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `R14: A patch that does not apply` → (`R14`, `A patch that does not apply`).
fn parse_rule_heading(heading: &'static str) -> Option<(&'static str, &'static str)> {
    let (id, title) = heading.split_once(':')?;
    let id = id.trim();
    let mut chars = id.chars();
    let well_formed = chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.as_str().len() <= 3
        && !chars.as_str().is_empty()
        && chars.all(|c| c.is_ascii_digit());
    let title = title.trim();
    (well_formed && !title.is_empty()).then_some((id, title))
}

/// `` | `code` | severity | rule | what | `` → its entry.
fn parse_code_row(row: &'static str) -> Result<CodeEntry, String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = inner.splitn(4, '|').map(str::trim);
    let (Some(code), Some(severity), Some(rule), Some(what)) =
        (cells.next(), cells.next(), cells.next(), cells.next())
    else {
        return Err(format!(
            "a code row has four cells (code, severity, rule, what): {row:?}"
        ));
    };
    let name = code
        .strip_prefix('`')
        .and_then(|c| c.strip_suffix('`'))
        .filter(|c| !c.is_empty())
        .ok_or_else(|| format!("the code cell is a code in backquotes, not {code:?}"))?;
    let severity = Severity::ALL
        .into_iter()
        .find(|s| s.as_str() == severity)
        .ok_or_else(|| {
            format!("the severity of {name} is error, warning, note or info, not {severity:?}")
        })?;
    Ok(CodeEntry {
        name,
        severity,
        rule,
        what,
    })
}

/// Joins wrapped lines: a blank line ends a paragraph, and a list item
/// (`- `) or table row (`|`) starts a new line.
fn unwrap_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = false;
    for line in text.lines().map(str::trim) {
        if line.is_empty() {
            blank = true;
            continue;
        }
        if !out.is_empty() {
            if blank {
                out.push_str("\n\n");
            } else if line.starts_with("- ") || line.starts_with('|') {
                out.push('\n');
            } else {
                out.push(' ');
            }
        }
        blank = false;
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_reference_parses() {
        // Issue 11: the rules travel with the project.
        let parsed = Reference::parse(REFERENCE_TEXT);
        assert!(parsed.is_ok(), "{}", parsed.unwrap_err());
        let parsed = parsed.unwrap_or_default();
        assert_eq!(&parsed, reference());
        for id in ["R1", "R17", "R20", "R30", "R44", "R51", "R64", "D2", "D4"] {
            assert!(parsed.rule(id).is_some(), "{id} is in the reference");
        }
        assert!(
            parsed.rules.iter().all(|r| !r.text.is_empty()),
            "no empty rule"
        );
    }

    /// The test that keeps the reference complete: a code added to
    /// `Code::ALL` without its row (or with another severity, or a rule that
    /// does not exist) fails here, naming it.
    #[test]
    fn every_diagnostic_code_is_in_the_reference_with_its_severity_and_rule() {
        let reference = reference();
        let mut problems = Vec::new();
        for code in Code::ALL {
            let Some(entry) = reference.code(code.as_str()) else {
                problems.push(format!(
                    "code {} ({}) is missing from docs/RULES.md: add a row \
                     `| `{}` | {} | RULE | what |` to its \"Diagnostic codes\" table",
                    code.as_str(),
                    code.severity(),
                    code.as_str(),
                    code.severity()
                ));
                continue;
            };
            if entry.severity != code.severity() {
                problems.push(format!(
                    "code {} is listed in docs/RULES.md as {} but Code::severity() says {}",
                    code.as_str(),
                    entry.severity,
                    code.severity()
                ));
            }
            if reference.rule(entry.rule).is_none() {
                problems.push(format!(
                    "code {} cites rule {:?}, which docs/RULES.md does not define \
                     (a `### {}: title` heading)",
                    code.as_str(),
                    entry.rule,
                    entry.rule
                ));
            }
        }
        for entry in &reference.codes {
            if Code::from_name(entry.name).is_none() {
                problems.push(format!(
                    "docs/RULES.md lists code {}, which src/diagnostic.rs does not have",
                    entry.name
                ));
            }
        }
        assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    }

    /// Every rule id the source and the tests cite (`R14`, `D3`) is one the
    /// reference defines.
    #[test]
    fn every_rule_id_cited_in_the_code_exists() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in ["src", "tests"] {
            collect_rust_files(&root.join(dir), &mut files);
        }
        assert!(files.len() > 20, "the scan found the sources");
        let reference = reference();
        let mut unknown = Vec::new();
        for file in &files {
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            for (number, line) in text.lines().enumerate() {
                for token in rule_id_tokens(line) {
                    let cites_a_rule =
                        (token.starts_with('R') || token.starts_with('D')) && token.len() <= 3;
                    if cites_a_rule && reference.rule(token).is_none() {
                        unknown.push(format!(
                            "{}:{}: {token}",
                            file.strip_prefix(root).unwrap_or(file).display(),
                            number + 1
                        ));
                    }
                }
            }
        }
        assert!(
            unknown.is_empty(),
            "rule ids cited but not defined in docs/RULES.md:\n{}",
            unknown.join("\n")
        );
    }

    fn collect_rust_files(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                collect_rust_files(&path, files);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }

    #[test]
    fn lookup_finds_a_rule_a_code_or_a_section() {
        let reference = reference();
        let Some(Lookup::Rule(rule)) = reference.lookup("r14") else {
            panic!("R14 by id");
        };
        assert_eq!(rule.id, "R14");
        assert!(rule.section.starts_with("4."), "{}", rule.section);
        assert!(rule.text.contains("index"), "{}", rule.text);
        let Some(Lookup::Code(entry, Some(rule))) = reference.lookup("activity.patch.failed")
        else {
            panic!("a code");
        };
        assert_eq!((entry.severity, rule.id), (Severity::Warning, "R14"));
        let Some(Lookup::Section(title, rules)) = reference.lookup("§11") else {
            panic!("a section");
        };
        assert!(title.starts_with("11."), "{title}");
        assert!(rules.iter().any(|r| r.id == "C4"));
        // An id shaped like a rule that the reference does not define.
        assert!(reference.lookup(&format!("R{}", 99)).is_none());
        assert!(reference.lookup("no.such.code").is_none());
        assert!(reference.lookup("").is_none());
    }

    #[test]
    fn cited_rules_are_found_in_labels() {
        let reference = reference();
        let ids: Vec<&str> = reference
            .rules_cited_in("delta skipped (R12, R13), then R12 again; not R999 or XR1 or R1x")
            .iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(ids, ["R12", "R13"]);
    }

    #[test]
    fn malformed_references_are_reported_with_their_line() {
        let error = Reference::parse("# t\n\n### R1 no colon\n").unwrap_err();
        assert_eq!(error.line, 3);
        let error = Reference::parse("### R1: a\nx\n### R1: b\ny\n").unwrap_err();
        assert!(error.reason.contains("twice"), "{error}");
        let error =
            Reference::parse("## Diagnostic codes\n| `a.b` | severe | R1 | x |\n").unwrap_err();
        assert!(error.reason.contains("severe"), "{error}");
        let parsed = Reference::parse("## 1. S\n### R1: Title\nline one\nline two\n\n- item\n")
            .unwrap_or_default();
        assert_eq!(parsed.rules[0].plain_text(), "line one line two\n\n- item");
        assert_eq!(parsed.rules[0].section, "1. S");
    }
}
