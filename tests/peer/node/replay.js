#!/usr/bin/env node
// The differential test's peer (issue 18): replays streams through the real
// @ag-ui/client 1.0.0 the way a deployed UI does, and prints what it showed.
//
// stdin: one stream per line, a JSON array of strings, each string the raw
// text of one event exactly as it goes on the wire (so `1.0` and `1` reach
// the client's own JSON.parse as written).
// stdout: one JSON object per input line, in order:
//   {"outcome": "completed" | "error", "error": string | null,
//    "failedAt": the 1-based number of the event refused, or null,
//    "messages": [...agent.messages], "state": agent.state}
//
// Each stream is served as an SSE body (`data: <event>\n\n` per event,
// `content-type: text/event-stream`) through a `fetch` given to an
// `HttpAgent`, and consumed by `runAgent()`: the transport, the SSE parser,
// the schema enforcement, chunk expansion, the verifier and the default
// reducer all run as in a browser. `runAgent()` rejecting is the outcome
// `error` (the client refused the stream); a producer's RUN_ERROR is
// delivered and is not one.

"use strict";

const readline = require("node:readline");
const { HttpAgent } = require("@ag-ui/client");

// The client warns on stderr for every tolerated oddity; the harness compares
// what it showed, not what it logged.
console.warn = () => {};
console.error = () => {};
console.debug = () => {};
console.log = () => {};

const out = (line) => process.stdout.write(line + "\n");

// The SSE body, one event per chunk with a turn of the event loop before
// each, as events reach a deployed UI over the network: the client's reducer
// is asynchronous, so a body read in one chunk would let the verifier reject
// a later event before the earlier ones were applied, which no UI sees.
function sseBody(rawEvents, sent) {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream({
    async pull(controller) {
      await new Promise((resolve) => setImmediate(resolve));
      if (next < rawEvents.length) {
        controller.enqueue(encoder.encode(`data: ${rawEvents[next]}\n\n`));
        next += 1;
        sent.count = next;
      } else {
        controller.close();
      }
    },
  });
}

async function replay(rawEvents) {
  const sent = { count: 0 };
  const agent = new HttpAgent({
    url: "http://peer.invalid/agent",
    threadId: "thread-diff",
    fetch: async () =>
      new Response(sseBody(rawEvents, sent), {
        status: 200,
        headers: { "content-type": "text/event-stream" },
      }),
  });
  let outcome = "completed";
  let error = null;
  try {
    await agent.runAgent({ runId: "run-diff" });
  } catch (e) {
    outcome = "error";
    error = e instanceof Error ? e.message : String(e);
  }
  // The event the client refused: the last one sent when runAgent() rejected
  // (the next is only sent a turn of the event loop later).
  const failedAt = outcome === "error" ? sent.count : null;
  return { outcome, error, failedAt, messages: agent.messages, state: agent.state };
}

// JSON.stringify, except that a value holding itself (the client's patch
// library can make one: `copy` from `/toString` on an object resolves the
// prototype's key) is written as the string "#cycle" where it recurs, so the
// harness can still see and name what the client holds.
function plain(value, ancestors) {
  if (value === null || typeof value !== "object") return value;
  if (typeof value.toJSON === "function") return value.toJSON();
  if (ancestors.has(value)) return "#cycle";
  ancestors.add(value);
  let copy;
  if (Array.isArray(value)) {
    copy = value.map((v) => {
      const p = plain(v, ancestors);
      return p === undefined || typeof p === "function" ? null : p;
    });
  } else {
    copy = {};
    for (const key of Object.keys(value)) {
      const p = plain(value[key], ancestors);
      if (p !== undefined && typeof p !== "function") copy[key] = p;
    }
  }
  ancestors.delete(value);
  return copy;
}

function resultLine(result) {
  try {
    return JSON.stringify(result);
  } catch {
    return JSON.stringify(plain(result, new Set()));
  }
}

async function replayLine(line) {
  try {
    const rawEvents = JSON.parse(line);
    if (!Array.isArray(rawEvents) || !rawEvents.every((e) => typeof e === "string")) {
      throw new Error("a stream line must be a JSON array of event texts");
    }
    return resultLine(await replay(rawEvents));
  } catch (e) {
    return resultLine({ outcome: "peer-failure", error: String(e), messages: [], state: null });
  }
}

// Streams are independent (one agent each), so several are in flight at once;
// each result is written as soon as it and every earlier one are done, in
// input order (so a caller may send a batch and wait for its answers).
const IN_FLIGHT = 32;

async function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  const inFlight = [];
  let written = Promise.resolve();
  for await (const line of lines) {
    if (line.trim() === "") continue;
    const result = replayLine(line);
    written = written.then(() => result).then(out);
    inFlight.push(written);
    if (inFlight.length >= IN_FLIGHT) await inFlight.shift();
  }
  await written;
}

main().catch((e) => {
  process.stderr.write(`peer: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
