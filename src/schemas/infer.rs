//! Schemas inferred from recordings (issue 42): every content an activity
//! type had at every step (and every state), merged into one shape per
//! type, written as JSON Schema 2020-12 meant to be committed and edited by
//! hand. Deterministic: members and types sorted, no counts or times.
//!
//! - a member's types are those it had (`integer` while every number was
//!   whole, `number` once one was not);
//! - a member is `required` when every object at its place had it;
//! - the items of every array at one place are merged into one shape;
//! - nested objects alike. Nothing else is constrained (no
//!   `additionalProperties`, no enums): a new member or value does not
//!   break a widget that ignores it.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::observe::{Target, input_has_state, observe_replay};
use super::{STATE_FILE, file_name_of_type};
use crate::input::RawEvents;
use crate::replay::Replayer;

/// The JSON Schema dialect written.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The shape of every value seen at one place.
#[derive(Clone, Debug, Default)]
struct Shape {
    null: bool,
    boolean: bool,
    /// A number with no fraction.
    integer: bool,
    /// A number with a fraction.
    fraction: bool,
    string: bool,
    /// The objects seen here, if any.
    object: Option<ObjectShape>,
    /// The arrays seen here: the shape of all their items (`None` while
    /// every array was empty), if any array was seen.
    array: Option<Option<Box<Shape>>>,
}

#[derive(Clone, Debug, Default)]
struct ObjectShape {
    /// How many objects were seen here.
    count: u64,
    /// Per member: in how many of them, and the shape of its values.
    members: BTreeMap<String, (u64, Shape)>,
}

impl Shape {
    fn add(&mut self, value: &Value) {
        match value {
            Value::Null => self.null = true,
            Value::Bool(_) => self.boolean = true,
            Value::Number(n) => {
                let whole = n.is_i64()
                    || n.is_u64()
                    || n.as_f64()
                        .is_some_and(|f| f.is_finite() && f.fract() == 0.0);
                if whole {
                    self.integer = true;
                } else {
                    self.fraction = true;
                }
            }
            Value::String(_) => self.string = true,
            Value::Array(items) => {
                let merged = self.array.get_or_insert(None);
                for item in items {
                    merged.get_or_insert_with(Box::default).add(item);
                }
            }
            Value::Object(members) => {
                let object = self.object.get_or_insert_with(ObjectShape::default);
                object.count += 1;
                for (name, member) in members {
                    let (present, shape) = object.members.entry(name.clone()).or_default();
                    *present += 1;
                    shape.add(member);
                }
            }
        }
    }

    /// The schema of this shape (members sorted).
    fn to_schema(&self) -> Map<String, Value> {
        let mut types: Vec<&str> = Vec::new();
        if self.array.is_some() {
            types.push("array");
        }
        if self.boolean {
            types.push("boolean");
        }
        if self.integer && !self.fraction {
            types.push("integer");
        }
        if self.null {
            types.push("null");
        }
        if self.fraction {
            types.push("number");
        }
        if self.object.is_some() {
            types.push("object");
        }
        if self.string {
            types.push("string");
        }
        let mut schema = Map::new();
        match types.as_slice() {
            [] => {}
            [one] => {
                schema.insert("type".into(), Value::from(*one));
            }
            many => {
                schema.insert("type".into(), Value::from(many.to_vec()));
            }
        }
        if let Some(Some(items)) = &self.array {
            schema.insert("items".into(), Value::Object(items.to_schema()));
        }
        if let Some(object) = &self.object {
            let mut properties = Map::new();
            let mut required = Vec::new();
            for (name, (present, shape)) in &object.members {
                properties.insert(name.clone(), Value::Object(shape.to_schema()));
                if *present == object.count {
                    required.push(Value::String(name.clone()));
                }
            }
            schema.insert("properties".into(), Value::Object(properties));
            if !required.is_empty() {
                schema.insert("required".into(), Value::Array(required));
            }
        }
        schema
    }
}

/// The shapes gathered so far: per activity type, and the state's.
#[derive(Clone, Debug, Default)]
pub struct Inference {
    activities: BTreeMap<String, Shape>,
    state: Option<Shape>,
}

/// One schema file to write.
#[derive(Clone, Debug, PartialEq)]
pub struct Inferred {
    /// Its file name (`search.schema.json`, `_state.schema.json`).
    pub file_name: String,
    /// What it is the schema of (an activity type, or `the state`).
    pub title: String,
    /// The schema.
    pub schema: Value,
}

impl Inferred {
    /// The file's text: pretty JSON, members sorted, ending with a newline.
    pub fn text(&self) -> String {
        let text = serde_json::to_string_pretty(&self.schema).unwrap_or_default();
        let mut text = crate::surrogate::escape_json(text);
        text.push('\n');
        text
    }
}

impl Inference {
    /// Nothing seen yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one content a widget read.
    pub fn see(&mut self, target: Target<'_>, value: &Value) {
        let shape = match target {
            Target::Activity { activity_type, .. } => {
                // `entry` would clone the type on every content.
                if !self.activities.contains_key(activity_type) {
                    self.activities
                        .insert(activity_type.to_owned(), Shape::default());
                }
                self.activities.get_mut(activity_type)
            }
            Target::State => Some(self.state.get_or_insert_with(Shape::default)),
        };
        if let Some(shape) = shape {
            shape.add(value);
        }
    }

    /// Replays `log` from `start` and adds every content a widget reads
    /// (the same contents `check --schemas` validates). Returns the replay.
    pub fn see_stream<E: RawEvents + ?Sized>(
        &mut self,
        start: Replayer,
        run_input: Option<&Value>,
        log: &E,
    ) -> Replayer {
        observe_replay(
            start,
            input_has_state(run_input),
            log,
            |_, target, value| {
                self.see(target, value);
            },
        )
    }

    /// The schemas, activity types in name order, the state's last.
    pub fn schemas(&self) -> Vec<Inferred> {
        let document = |title: String, shape: &Shape| {
            let mut schema = Map::new();
            schema.insert("$schema".into(), Value::from(DIALECT));
            schema.insert("title".into(), Value::String(title.clone()));
            schema.insert(
                "description".into(),
                Value::from(
                    "Inferred by `agui-replay schemas infer` from recorded contents; edit by hand.",
                ),
            );
            schema.extend(shape.to_schema());
            Value::Object(schema)
        };
        let mut out: Vec<Inferred> = self
            .activities
            .iter()
            .map(|(activity_type, shape)| Inferred {
                file_name: file_name_of_type(activity_type),
                title: activity_type.clone(),
                schema: document(activity_type.clone(), shape),
            })
            .collect();
        if let Some(shape) = &self.state {
            out.push(Inferred {
                file_name: STATE_FILE.to_owned(),
                title: "the state".to_owned(),
                schema: document("the shared state".to_owned(), shape),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn infer(values: &[Value]) -> Value {
        let mut shape = Shape::default();
        for value in values {
            shape.add(value);
        }
        Value::Object(shape.to_schema())
    }

    // Issue 42: integer vs number, required = present in every content,
    // array items merged, nested objects alike.
    #[test]
    fn inference_merges_types_members_and_items() {
        let schema = infer(&[
            json!({"found": 3, "query": "a", "items": [{"id": "x", "done": false}], "score": 1}),
            json!({"found": 4, "query": "b", "items": [{"id": "y"}, {"id": "z", "done": true}], "score": 0.5, "extra": null}),
        ]);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "extra": {"type": "null"},
                    "found": {"type": "integer"},
                    "items": {"type": "array", "items": {
                        "type": "object",
                        "properties": {"done": {"type": "boolean"}, "id": {"type": "string"}},
                        "required": ["id"]
                    }},
                    "query": {"type": "string"},
                    "score": {"type": "number"}
                },
                "required": ["found", "items", "query", "score"]
            })
        );
        // Mixed types are listed, sorted; an array only ever empty has no items.
        assert_eq!(
            infer(&[json!({"a": 1, "e": []}), json!({"a": "x", "e": []})]),
            json!({"type": "object", "properties": {
                "a": {"type": ["integer", "string"]},
                "e": {"type": "array"}
            }, "required": ["a", "e"]})
        );
    }

    // Issue 42: the output is deterministic and readable (sorted, pretty).
    #[test]
    fn inferred_text_is_sorted_pretty_and_ends_with_a_newline() {
        let mut inference = Inference::new();
        let target = Target::Activity {
            id: "a",
            activity_type: "b/c",
        };
        inference.see(target, &json!({"z": 1, "a": true}));
        let schemas = inference.schemas();
        assert_eq!(schemas.len(), 1);
        assert_eq!(schemas[0].file_name, "b%2Fc.schema.json");
        let text = schemas[0].text();
        assert!(text.ends_with("}\n"));
        assert!(text.contains("\n  \"$schema\""), "{text}");
        let a = text.find("\"a\"").expect("a");
        let z = text.find("\"z\"").expect("z");
        assert!(a < z, "members sorted: {text}");
    }
}
