#!/usr/bin/env node
// The member list of the installed @ag-ui/core (issue 39): every member its
// zod schemas define, optional ones included, nested objects included, as
// reached from the schema of each event type. The engine's schema test
// (tests/engine/schema_members.rs) compares it with what the engine knows.
//
// stdout: one JSON object:
//   {"core": the installed @ag-ui/core version,
//    "members": [path, ...]}  (sorted, distinct)
//
// A path names one member where it may stand:
//   EVENT_TYPE/member            a member of the event
//   .../member/*                 the elements of an array member
//   ...{type=image}              the option of a union told apart by `type`
//                                 (any discriminator: {role=user}, {op=add})
//   .../member/**                an object open to any member, whose members
//                                 are therefore never unknown (RFC 6902's
//                                 operations, `specOpen` in the schemas)
// so `TOOL_CALL_RESULT/content/*{type=image}/source{type=url}/mimeType` is
// the `mimeType` of a URL source of an image part in a tool result. A union
// of a string and an array of parts walks the array; a value the schemas
// leave unshaped (metadata, state, activity content, `result`, `rawEvent`)
// has no members.
//
// The walk reads zod 4's own definitions (`_zod.def`), which is what
// @ag-ui/core 1.0.0 builds with (`zod/v4`).

"use strict";

const path = require("node:path");

// @ag-ui/core as @ag-ui/client (the peer) resolves it.
const clientMain = require.resolve("@ag-ui/client");
const schemasPath = require.resolve("@ag-ui/core/schemas", { paths: [path.dirname(clientMain)] });
const corePackage = require(
  require.resolve("@ag-ui/core/package.json", { paths: [path.dirname(clientMain)] }),
);
const schemas = require(schemasPath);

const def = (schema) => schema._zod.def;

// Through the wrappers that do not change a value's shape.
function unwrap(schema) {
  for (;;) {
    const d = def(schema);
    switch (d.type) {
      case "optional":
      case "nullable":
      case "default":
      case "prefault":
      case "readonly":
      case "catch":
      case "nonoptional":
        schema = d.innerType;
        continue;
      case "pipe":
        schema = d.in;
        continue;
      case "lazy":
        schema = d.getter();
        continue;
      default:
        return schema;
    }
  }
}

// The one value of a literal, or undefined.
function literal(schema) {
  const d = def(unwrap(schema));
  if (d.type === "literal" && d.values.length === 1) return String(d.values[0]);
  return undefined;
}

function isOpen(schema) {
  const meta = typeof schema.meta === "function" ? schema.meta() : undefined;
  return meta !== undefined && meta.specOpen === true;
}

const members = new Set();

function walk(schema, at, depth) {
  if (depth > 40) throw new Error(`the schemas nest deeper than expected at ${at}`);
  schema = unwrap(schema);
  const d = def(schema);
  switch (d.type) {
    case "object": {
      if (isOpen(schema)) {
        members.add(`${at}/**`);
        return;
      }
      for (const [name, member] of Object.entries(d.shape)) {
        members.add(`${at}/${name}`);
        walk(member, `${at}/${name}`, depth + 1);
      }
      return;
    }
    case "array":
      walk(d.element, `${at}/*`, depth + 1);
      return;
    case "record":
      walk(d.valueType, `${at}/*`, depth + 1);
      return;
    case "union": {
      if (typeof d.discriminator === "string") {
        for (const option of d.options) {
          const object = unwrap(option);
          const tag = literal(def(object).shape[d.discriminator]);
          if (tag === undefined) throw new Error(`an option of ${at} has no literal ${d.discriminator}`);
          walk(object, `${at}{${d.discriminator}=${tag}}`, depth + 1);
        }
        return;
      }
      // A plain union: the shapes it may take, without a tag (a string or an
      // array of parts). Two object shapes would need a tag to tell apart.
      const objects = d.options.filter((o) => def(unwrap(o)).type === "object");
      if (objects.length > 1) throw new Error(`${at} is a union of objects without a discriminator`);
      for (const option of d.options) walk(option, at, depth + 1);
      return;
    }
    default:
      return;
  }
}

for (const option of def(schemas.EventSchema).options) {
  const type = literal(def(unwrap(option)).shape.type);
  walk(option, type, 0);
}

process.stdout.write(
  JSON.stringify({ core: corePackage.version, members: [...members].sort() }) + "\n",
);
