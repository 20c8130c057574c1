#!/usr/bin/env node
// Writes the protobuf fixtures (issue 15, point 8) with the official
// encoder: `@ag-ui/encoder` 1.0.0's EventEncoder (which frames each event as
// a 4-byte big-endian length, then `@ag-ui/proto` 1.0.0's `encode`).
//
//   node proto-fixtures.js            (from tests/peer/node, after `npm ci`)
//
// Writes into tests/fixtures/proto/:
//   events.pb / events.json    one event of each of the 31 types
//   vectors/NAME.pb / NAME.json  every vector of tests/vectors/ whose events
//                                the schema accepts
// Each .json holds `events` (the JSON given to the encoder) and `decoded`
// (what the official `decode` gives back for each frame). A vector is
// taken only when every event encodes without the schema refusing it and
// decodes back to itself: the encoder drops nulls and cannot carry a
// malformed event, so such a vector has no protobuf twin. The skipped ones
// are listed in SKIPPED.txt with why.

"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { EventEncoder } = require("@ag-ui/encoder");
const { decode, AGUI_MEDIA_TYPE } = require("@ag-ui/proto");

const root = path.resolve(__dirname, "../../..");
const out = path.join(root, "tests/fixtures/proto");
const encoder = new EventEncoder({ accept: AGUI_MEDIA_TYPE });

let warnings = [];
console.warn = (...args) => warnings.push(args.join(" "));

// JSON with sorted keys, for comparing values whatever their key order.
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    const sorted = {};
    for (const key of Object.keys(value).sort()) sorted[key] = canonical(value[key]);
    return sorted;
  }
  return value;
}
const same = (a, b) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

// The frames of `events`, or why they have no protobuf twin.
function encodeAll(events) {
  const frames = [];
  const decoded = [];
  for (const [i, event] of events.entries()) {
    warnings = [];
    let frame;
    try {
      frame = encoder.encodeBinary(event);
    } catch (e) {
      return { why: `event ${i + 1}: the encoder throws: ${e.message}` };
    }
    if (warnings.length > 0) {
      return { why: `event ${i + 1}: ${warnings[0]}` };
    }
    const length = new DataView(frame.buffer, frame.byteOffset).getUint32(0, false);
    let back;
    try {
      back = decode(frame.subarray(4, 4 + length));
    } catch (e) {
      return { why: `event ${i + 1}: its encoding does not decode: ${e.message}` };
    }
    if (!same(back, event)) {
      return { why: `event ${i + 1}: decodes to ${JSON.stringify(back)}` };
    }
    frames.push(Buffer.from(frame));
    decoded.push(back);
  }
  return { frames, decoded };
}

function write(base, source, events) {
  const result = encodeAll(events);
  if (result.why) return result.why;
  fs.writeFileSync(`${base}.pb`, Buffer.concat(result.frames));
  fs.writeFileSync(
    `${base}.json`,
    JSON.stringify({ source, events, decoded: result.decoded }, null, 1) + "\n",
  );
  return null;
}

// One event of every type AG-UI 1.0 has, with its optional members set.
const EVERY_TYPE = [
  { type: "RUN_STARTED", threadId: "t1", runId: "r1", timestamp: 1764600000000, parentRunId: "r0",
    input: { threadId: "t1", runId: "r1", state: { n: 1 }, tools: [], context: [], forwardedProps: {}, resume: [],
             messages: [{ id: "u0", role: "user", content: "hello" }] } },
  { type: "STEP_STARTED", stepName: "plan" },
  { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant", name: "bot" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "Hé, \"quoted\"\n" },
  { type: "TEXT_MESSAGE_END", messageId: "m1" },
  { type: "TEXT_MESSAGE_CHUNK", messageId: "m2", role: "assistant", delta: "chunk" },
  { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "search", parentMessageId: "m1" },
  { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: "{\"q\":" },
  { type: "TOOL_CALL_END", toolCallId: "c1" },
  { type: "TOOL_CALL_CHUNK", toolCallId: "c2", toolCallName: "fetch", parentMessageId: "m1", delta: "{}" },
  { type: "TOOL_CALL_RESULT", messageId: "tr1", toolCallId: "c1", content: "found 3", role: "tool" },
  { type: "STATE_SNAPSHOT", snapshot: { a: 1, b: [true, null, "x", 2.5, -3], c: { d: {} } } },
  { type: "STATE_DELTA", delta: [
      { op: "add", path: "/e", value: { f: [1] } },
      { op: "replace", path: "/a", value: 2 },
      { op: "remove", path: "/c" },
      { op: "move", from: "/e", path: "/g" },
      { op: "copy", from: "/a", path: "/h" },
      { op: "test", path: "/a", value: 2 },
      { op: "add", path: "/n", value: null }] },
  { type: "MESSAGES_SNAPSHOT", messages: [
      { id: "u1", role: "user", content: "hi" },
      { id: "u2", role: "user", content: [{ type: "text", text: "look" },
                                          { type: "image", source: { type: "url", value: "https://example.com/a.png", mimeType: "image/png" } }] },
      { id: "a1", role: "assistant", content: "calling",
        toolCalls: [{ id: "c1", type: "function", function: { name: "search", arguments: "{\"q\":1}" } }] },
      { id: "t1m", role: "tool", content: "result", toolCallId: "c1" },
      { id: "s1", role: "system", content: "be brief" },
      { id: "d1", role: "developer", content: "dev" },
      { id: "act1", role: "activity", activityType: "plan", content: { steps: ["a", "b"] } },
      { id: "rs1", role: "reasoning", content: "thinking" }] },
  { type: "ACTIVITY_SNAPSHOT", messageId: "act2", activityType: "search", content: { found: 0 }, replace: true },
  { type: "ACTIVITY_DELTA", messageId: "act2", activityType: "search", patch: [{ op: "replace", path: "/found", value: 3 }] },
  { type: "RAW", event: { upstream: "x", n: [1, 2] }, source: "openai" },
  { type: "CUSTOM", name: "ping", value: { at: 3 } },
  { type: "REASONING_START", messageId: "rm1" },
  { type: "REASONING_MESSAGE_START", messageId: "rm1", role: "reasoning" },
  { type: "REASONING_MESSAGE_CONTENT", messageId: "rm1", delta: "hmm" },
  { type: "REASONING_MESSAGE_END", messageId: "rm1" },
  { type: "REASONING_MESSAGE_CHUNK", messageId: "rm2", delta: "more" },
  { type: "REASONING_END", messageId: "rm1" },
  { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "rm1", encryptedValue: "b64==" },
  { type: "SUBAGENT_STARTED", subagentRunId: "sa1", name: "helper", description: "helps", parentToolCallId: "c1" },
  { type: "SUBAGENT_FINISHED", subagentRunId: "sa1", result: { ok: true }, outcome: { type: "success" } },
  { type: "SUBAGENT_ERROR", subagentRunId: "sa2", message: "lost", code: "E1" },
  { type: "STEP_FINISHED", stepName: "plan" },
  { type: "RUN_ERROR", message: "upstream failed", code: "UPSTREAM" },
  { type: "RUN_FINISHED", threadId: "t1", runId: "r1", result: { answer: 42 } },
];

fs.mkdirSync(path.join(out, "vectors"), { recursive: true });
const types = new Set(EVERY_TYPE.map((e) => e.type));
if (types.size !== 31) throw new Error(`EVERY_TYPE has ${types.size} types, not 31`);
// Each event alone (so one the schema refuses is named), then all together.
for (const event of EVERY_TYPE) {
  const why = encodeAll([event]).why;
  if (why) throw new Error(`${event.type}: ${why}`);
}
const whyAll = write(path.join(out, "events"), "proto-fixtures.js EVERY_TYPE", EVERY_TYPE);
if (whyAll) throw new Error(whyAll);

const skipped = [];
const vectorsDir = path.join(root, "tests/vectors");
let written = 0;
for (const file of fs.readdirSync(vectorsDir).filter((f) => f.endsWith(".json")).sort()) {
  const vector = JSON.parse(fs.readFileSync(path.join(vectorsDir, file), "utf8"));
  const name = file.replace(/\.json$/, "");
  const why = write(path.join(out, "vectors", name), `tests/vectors/${file}`, vector.events);
  if (why) skipped.push(`${name}: ${why}`);
  else written += 1;
}
fs.writeFileSync(
  path.join(out, "SKIPPED.txt"),
  "Vectors with no protobuf twin (written by tests/peer/node/proto-fixtures.js):\n" +
    skipped.map((s) => `- ${s}\n`).join(""),
);
process.stdout.write(`events.pb: ${EVERY_TYPE.length} events; vectors: ${written} written, ${skipped.length} skipped\n`);
