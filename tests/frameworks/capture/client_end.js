#!/usr/bin/env node
// What the real @ag-ui/client 1.0.0 ends with after one captured session
// (issue 39): the run input's messages and state are the agent's starting
// point (as a UI that sent them holds them), the captured SSE body is served
// to an `HttpAgent` through `fetch`, one event per chunk, and `runAgent()`
// consumes it with the client's own parser, verifier and reducer.
//
// Usage: node client_end.js INPUT.json BODY.sse   (prints one JSON object:
//   {"outcome", "error", "messages", "state"})
// The client comes from tests/peer/node (`npm ci --prefix tests/peer/node`).

"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { createRequire } = require("node:module");

const peer = createRequire(path.join(__dirname, "../../peer/node/package.json"));
const { HttpAgent } = peer("@ag-ui/client");

const [inputPath, bodyPath] = process.argv.slice(2);
const input = JSON.parse(fs.readFileSync(inputPath, "utf8"));
const body = fs.readFileSync(bodyPath, "utf8");

// The body's events, each the text of its `data:` lines (SSE framing).
const events = body
  .split(/\r?\n\r?\n/)
  .map((frame) =>
    frame
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n"),
  )
  .filter((data) => data.length > 0);

for (const name of ["warn", "error", "debug", "log"]) console[name] = () => {};

function sseBody() {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream({
    async pull(controller) {
      await new Promise((resolve) => setImmediate(resolve));
      if (next < events.length) {
        controller.enqueue(encoder.encode(`data: ${events[next]}\n\n`));
        next += 1;
      } else {
        controller.close();
      }
    },
  });
}

async function main() {
  const agent = new HttpAgent({
    url: "http://framework.invalid/agent",
    threadId: input.threadId,
    initialMessages: input.messages ?? [],
    initialState: input.state ?? {},
    fetch: async () =>
      new Response(sseBody(), {
        status: 200,
        headers: { "content-type": "text/event-stream" },
      }),
  });
  let outcome = "completed";
  let error = null;
  try {
    await agent.runAgent({
      runId: input.runId,
      tools: input.tools ?? [],
      context: input.context ?? [],
      forwardedProps: input.forwardedProps ?? {},
    });
  } catch (e) {
    outcome = "error";
    error = e instanceof Error ? e.message : String(e);
  }
  const result = { outcome, error, messages: agent.messages, state: agent.state };
  process.stdout.write(JSON.stringify(result, null, 2) + "\n");
}

main().catch((e) => {
  process.stderr.write(`client_end: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
