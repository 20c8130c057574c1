//! The schema of the protobuf encoding, read from `proto/agui.proto` (built
//! into the binary) the first time it is needed: the codec walks it, so it
//! cannot drift from the `.proto` file, and no `protoc` is needed.
//!
//! The parser knows the part of proto3 that file uses: `syntax`, `package`,
//! `import`, `option`, enums, messages (nested too), `oneof`, and fields
//! that are singular, `optional` or `repeated`.

use std::sync::OnceLock;

/// The `.proto` file the codec follows.
pub const AGUI_PROTO: &str = include_str!("../../../proto/agui.proto");

/// A field's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FieldType {
    String,
    Int64,
    Int32,
    Bool,
    Double,
    /// An enum (its index in [`Schema::enums`]).
    Enum(usize),
    /// A message (its index in [`Schema::messages`]).
    Message(usize),
    /// `google.protobuf.Value`: any JSON value.
    Value,
    /// `google.protobuf.Struct`: a JSON object.
    Struct,
}

/// Whether a field is singular, `optional` or `repeated`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Label {
    /// proto3's implicit presence: a scalar at its default is not sent, and
    /// reads back as its default.
    Singular,
    /// Explicit presence (`optional`, or a member of a `oneof`).
    Optional,
    Repeated,
}

/// One field of a message.
#[derive(Clone, Debug)]
pub(crate) struct Field {
    /// Its name in the `.proto` (`message_id`).
    pub name: String,
    /// Its name in JSON (`messageId`).
    pub json: String,
    pub number: u32,
    pub ty: FieldType,
    pub label: Label,
}

/// One message.
#[derive(Clone, Debug)]
pub(crate) struct MessageDef {
    /// Its full name inside the package (`ToolCall.Function`).
    pub name: String,
    pub fields: Vec<Field>,
}

impl MessageDef {
    /// The field numbered `number`.
    #[cfg(test)]
    pub fn field(&self, number: u32) -> Option<&Field> {
        self.fields.iter().find(|f| f.number == number)
    }
}

/// One enum.
#[derive(Clone, Debug)]
pub(crate) struct EnumDef {
    pub name: String,
    pub values: Vec<(String, i32)>,
}

impl EnumDef {
    /// The name of a number.
    pub fn name_of(&self, number: i32) -> Option<&str> {
        self.values
            .iter()
            .find(|(_, n)| *n == number)
            .map(|(name, _)| name.as_str())
    }

    /// The number of a name.
    pub fn number_of(&self, name: &str) -> Option<i32> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, n)| *n)
    }
}

/// Every message and enum of the `.proto`.
#[derive(Clone, Debug)]
pub(crate) struct Schema {
    pub messages: Vec<MessageDef>,
    pub enums: Vec<EnumDef>,
}

impl Schema {
    /// The message named `name`.
    pub fn message(&self, name: &str) -> Option<usize> {
        self.messages.iter().position(|m| m.name == name)
    }

    /// The enum named `name`.
    pub fn enumeration(&self, name: &str) -> Option<usize> {
        self.enums.iter().position(|e| e.name == name)
    }
}

/// The schema of [`AGUI_PROTO`], parsed once.
pub(crate) fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        // The file is built in and tested: it parses (a failure here is a
        // bug in the build, never in the input).
        #[allow(clippy::expect_used)]
        parse(AGUI_PROTO).expect("proto/agui.proto parses (a unit test checks it)")
    })
}

/// `message_id` as JSON spells it: `messageId`.
pub(crate) fn lower_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut chars = line.char_indices().peekable();
        while let Some((start, c)) = chars.next() {
            if c.is_whitespace() {
                continue;
            }
            if c == '"' {
                let mut end = line.len();
                for (i, d) in chars.by_ref() {
                    if d == '"' {
                        end = i + 1;
                        break;
                    }
                }
                out.push(line[start..end].to_owned());
            } else if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' {
                let mut end = start + c.len_utf8();
                while let Some(&(i, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' || d == '.' {
                        end = i + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(line[start..end].to_owned());
            } else {
                out.push(c.to_string());
            }
        }
    }
    out
}

/// A field before its type is resolved.
struct RawField {
    scope: String,
    type_name: String,
    field: Field,
}

struct Parser {
    tokens: Vec<String>,
    at: usize,
    messages: Vec<(MessageDef, Vec<RawField>)>,
    enums: Vec<EnumDef>,
}

impl Parser {
    fn next(&mut self) -> Result<String, String> {
        let token = self
            .tokens
            .get(self.at)
            .cloned()
            .ok_or("unexpected end of the file")?;
        self.at += 1;
        Ok(token)
    }

    fn expect(&mut self, wanted: &str) -> Result<(), String> {
        let token = self.next()?;
        if token == wanted {
            Ok(())
        } else {
            Err(format!("expected `{wanted}`, found `{token}`"))
        }
    }

    fn skip_statement(&mut self) -> Result<(), String> {
        while self.next()? != ";" {}
        Ok(())
    }

    fn number(&mut self) -> Result<i64, String> {
        let token = self.next()?;
        token
            .parse()
            .map_err(|_| format!("expected a number, found `{token}`"))
    }

    fn enumeration(&mut self, scope: &str) -> Result<(), String> {
        let name = qualified(scope, &self.next()?);
        self.expect("{")?;
        let mut values = Vec::new();
        loop {
            let token = self.next()?;
            if token == "}" {
                break;
            }
            if token == "option" {
                self.skip_statement()?;
                continue;
            }
            self.expect("=")?;
            let number = i32::try_from(self.number()?).map_err(|e| e.to_string())?;
            self.expect(";")?;
            values.push((token, number));
        }
        self.enums.push(EnumDef { name, values });
        Ok(())
    }

    fn message(&mut self, scope: &str) -> Result<(), String> {
        let name = qualified(scope, &self.next()?);
        self.expect("{")?;
        let index = self.messages.len();
        self.messages.push((
            MessageDef {
                name: name.clone(),
                fields: Vec::new(),
            },
            Vec::new(),
        ));
        self.body(&name, index, false)
    }

    /// A message's body (or a `oneof`'s) up to its closing brace.
    fn body(&mut self, scope: &str, index: usize, in_oneof: bool) -> Result<(), String> {
        loop {
            let token = self.next()?;
            match token.as_str() {
                "}" => return Ok(()),
                "message" => self.message(scope)?,
                "enum" => self.enumeration(scope)?,
                "option" | "reserved" => self.skip_statement()?,
                "oneof" => {
                    self.next()?;
                    self.expect("{")?;
                    self.body(scope, index, true)?;
                }
                _ => {
                    let (label, type_name) = match token.as_str() {
                        "optional" => (Label::Optional, self.next()?),
                        "repeated" => (Label::Repeated, self.next()?),
                        _ if in_oneof => (Label::Optional, token),
                        _ => (Label::Singular, token),
                    };
                    let name = self.next()?;
                    self.expect("=")?;
                    let number = u32::try_from(self.number()?).map_err(|e| e.to_string())?;
                    self.expect(";")?;
                    self.messages[index].1.push(RawField {
                        scope: scope.to_owned(),
                        type_name,
                        field: Field {
                            json: lower_camel(&name),
                            name,
                            number,
                            ty: FieldType::Bool,
                            label,
                        },
                    });
                }
            }
        }
    }

    fn resolve(&self, scope: &str, name: &str) -> Result<FieldType, String> {
        Ok(match name {
            "string" => FieldType::String,
            "int64" => FieldType::Int64,
            "int32" => FieldType::Int32,
            "bool" => FieldType::Bool,
            "double" => FieldType::Double,
            "google.protobuf.Value" => FieldType::Value,
            "google.protobuf.Struct" => FieldType::Struct,
            _ => {
                // The innermost scope first, as protoc resolves names.
                let mut scope = scope.to_owned();
                loop {
                    let candidate = qualified(&scope, name);
                    if let Some(i) = self.messages.iter().position(|(m, _)| m.name == candidate) {
                        return Ok(FieldType::Message(i));
                    }
                    if let Some(i) = self.enums.iter().position(|e| e.name == candidate) {
                        return Ok(FieldType::Enum(i));
                    }
                    if scope.is_empty() {
                        return Err(format!("unknown type `{name}`"));
                    }
                    scope = scope.rsplit_once('.').map_or("", |(s, _)| s).to_owned();
                }
            }
        })
    }
}

fn qualified(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_owned()
    } else {
        format!("{scope}.{name}")
    }
}

/// Parses a `.proto` file (the subset described above).
pub(crate) fn parse(text: &str) -> Result<Schema, String> {
    let mut parser = Parser {
        tokens: tokens(text),
        at: 0,
        messages: Vec::new(),
        enums: Vec::new(),
    };
    while parser.at < parser.tokens.len() {
        let token = parser.next()?;
        match token.as_str() {
            "syntax" | "package" | "import" | "option" => parser.skip_statement()?,
            "message" => parser.message("")?,
            "enum" => parser.enumeration("")?,
            _ => return Err(format!("unexpected `{token}`")),
        }
    }
    let mut messages = Vec::with_capacity(parser.messages.len());
    for (def, raw) in &parser.messages {
        let mut def = def.clone();
        for raw in raw {
            let mut field = raw.field.clone();
            field.ty = parser.resolve(&raw.scope, &raw.type_name)?;
            if def.fields.iter().any(|f| f.number == field.number) {
                return Err(format!("{}: field number {} twice", def.name, field.number));
            }
            def.fields.push(field);
        }
        messages.push(def);
    }
    Ok(Schema {
        messages,
        enums: parser.enums,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_proto_parses_with_every_event_type() {
        let schema = parse(AGUI_PROTO).expect("parses");
        let event = &schema.messages[schema.message("Event").expect("Event")];
        let types = &schema.enums[schema.enumeration("EventType").expect("EventType")];
        // One arm per event type, each carrying a BaseEvent as field 1.
        assert_eq!(event.fields.len(), types.values.len());
        assert_eq!(event.fields.len(), 31);
        let base = schema.message("BaseEvent").expect("BaseEvent");
        for arm in &event.fields {
            let FieldType::Message(m) = arm.ty else {
                panic!("{} is not a message", arm.name)
            };
            assert_eq!(schema.messages[m].fields[0].ty, FieldType::Message(base));
            assert_eq!(arm.label, Label::Optional, "{} is a oneof arm", arm.name);
            // The arm's name is its type's, camel-cased (TOOL_CALL_START is
            // toolCallStart), which is how an event finds its arm.
            let upper = arm.name.to_ascii_uppercase();
            assert!(types.number_of(&upper).is_some(), "{upper}");
        }
        let function = schema.message("ToolCall.Function").expect("nested");
        let tool_call = &schema.messages[schema.message("ToolCall").expect("ToolCall")];
        assert_eq!(
            tool_call.field(3).expect("function").ty,
            FieldType::Message(function)
        );
        assert_eq!(
            lower_camel("cache_write_input_tokens"),
            "cacheWriteInputTokens"
        );
    }

    #[test]
    fn bad_proto_text_is_an_error() {
        assert!(parse("message A { Unknown x = 1; }").is_err());
        assert!(parse("message A { string x = 1; string y = 1; }").is_err());
        assert!(parse("message A { string x = ").is_err());
        assert!(parse("garbage").is_err());
    }
}
