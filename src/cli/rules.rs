//! `agui-replay rules [ID]`: the rules reference built into the binary, one
//! rule (by id or by diagnostic code), one section, or all of it.

use std::io::Write;

use clap::Args;

use super::EXIT_OK;
use crate::rules::{Lookup, Reference, Rule, reference};

/// `rules` options.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// A rule id (`R14`, `D3`, `P2`, `C4`, `E1`), a diagnostic code
    /// (`activity.patch.failed`) or a section (`§11`, `11`); without one,
    /// every rule and then every code.
    pub id: Option<String>,
}

pub(super) fn run(args: &RulesArgs, out: &mut dyn Write) -> anyhow::Result<u8> {
    let reference = reference();
    let Some(query) = &args.id else {
        write_all(reference, out)?;
        return Ok(EXIT_OK);
    };
    match reference.lookup(query) {
        Some(Lookup::Rule(rule)) => write_rule(reference, rule, out)?,
        Some(Lookup::Code(entry, rule)) => {
            writeln!(out, "{} ({}): {}", entry.name, entry.severity, entry.what)?;
            match rule {
                Some(rule) => {
                    writeln!(out)?;
                    write_rule(reference, rule, out)?;
                }
                None => writeln!(out, "rule {} (not in the reference)", entry.rule)?,
            }
        }
        Some(Lookup::Section(title, rules)) => {
            writeln!(out, "§{title}")?;
            for rule in rules {
                writeln!(out)?;
                write_rule(reference, rule, out)?;
            }
        }
        None => anyhow::bail!(
            "no rule or diagnostic code named {query:?}: `agui-replay rules` prints them \
             all (ids like R14, D3, P2, C4, E1; codes like activity.patch.failed; \
             sections like §11)"
        ),
    }
    Ok(EXIT_OK)
}

/// Every rule, section by section, then the code table.
fn write_all(reference: &Reference, out: &mut dyn Write) -> std::io::Result<()> {
    let mut section = "";
    for rule in &reference.rules {
        if rule.section != section {
            section = rule.section;
            writeln!(out, "== §{section}")?;
            writeln!(out)?;
        }
        write_rule(reference, rule, out)?;
        writeln!(out)?;
    }
    writeln!(out, "== Diagnostic codes")?;
    writeln!(out)?;
    let width = reference
        .codes
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(0);
    for entry in &reference.codes {
        writeln!(
            out,
            "{:width$}  {:7}  {:3}  {}",
            entry.name,
            entry.severity.as_str(),
            entry.rule,
            entry.what
        )?;
    }
    Ok(())
}

/// `R14: title (§4. Activity deltas)`, the text indented, then the codes
/// that report it.
fn write_rule(reference: &Reference, rule: &Rule, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "{} (§{})", rule.heading(), rule.section)?;
    for line in rule.text.lines() {
        if line.trim().is_empty() {
            writeln!(out)?;
        } else {
            writeln!(out, "    {}", line.trim_end())?;
        }
    }
    let codes: Vec<String> = reference
        .codes_of(rule.id)
        .map(|c| format!("{} ({})", c.name, c.severity))
        .collect();
    if !codes.is_empty() {
        writeln!(out, "    codes: {}", codes.join(", "))?;
    }
    Ok(())
}
