//! The JSON a decoded event is written as: members in the order they were
//! decoded (the wire's order, `type` first), numbers as JavaScript prints
//! them where that matters (a whole `double` is written without `.0`).

use std::fmt::Write as _;

/// A JSON value whose objects keep their members' order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum J {
    Null,
    Bool(bool),
    Int(i64),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// The largest integer a JavaScript number holds exactly.
pub(crate) const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

impl J {
    /// A `double` as JavaScript would print it: whole numbers without a
    /// fraction, non-finite ones (which JSON cannot hold) as `null`.
    pub fn number(x: f64) -> J {
        if !x.is_finite() {
            J::Null
        } else if x.fract() == 0.0 && x.abs() <= MAX_SAFE_INTEGER as f64 {
            J::Int(x as i64)
        } else {
            J::Num(x)
        }
    }

    /// A member of an object.
    pub fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Takes a member out of an object.
    pub fn take(&mut self, key: &str) -> Option<J> {
        match self {
            J::Obj(members) => {
                let i = members.iter().position(|(k, _)| k == key)?;
                Some(members.remove(i).1)
            }
            _ => None,
        }
    }

    /// Sets a member of an object (in place if it exists, last otherwise).
    pub fn set(&mut self, key: &str, value: J) {
        if let J::Obj(members) = self {
            match members.iter_mut().find(|(k, _)| k == key) {
                Some((_, slot)) => *slot = value,
                None => members.push((key.to_owned(), value)),
            }
        }
    }

    /// Puts a member first.
    pub fn set_first(&mut self, key: &str, value: J) {
        if let J::Obj(members) = self {
            members.retain(|(k, _)| k != key);
            members.insert(0, (key.to_owned(), value));
        }
    }

    /// The string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The elements of an array (none for anything else).
    pub fn elements(&self) -> &[J] {
        match self {
            J::Arr(items) => items,
            _ => &[],
        }
    }

    /// Compact JSON text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Int(n) => {
                let _ = write!(out, "{n}");
            }
            J::Num(x) => match serde_json::Number::from_f64(*x) {
                Some(n) => {
                    let _ = write!(out, "{n}");
                }
                None => out.push_str("null"),
            },
            J::Str(s) => write_string(out, s),
            J::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            J::Obj(members) => {
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, key);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

fn write_string(out: &mut String, s: &str) {
    match serde_json::to_string(s) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        assert_eq!(J::number(1.0).to_text(), "1");
        assert_eq!(J::number(-0.0).to_text(), "0");
        assert_eq!(J::number(1.5).to_text(), "1.5");
        assert_eq!(J::number(f64::NAN).to_text(), "null");
        let obj = J::Obj(vec![
            ("b".into(), J::Str("\"q\"\n".into())),
            ("a".into(), J::Arr(vec![J::Null, J::Bool(true)])),
        ]);
        assert_eq!(obj.to_text(), r#"{"b":"\"q\"\n","a":[null,true]}"#);
    }
}
