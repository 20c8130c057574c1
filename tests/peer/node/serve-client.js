#!/usr/bin/env node
// The real @ag-ui/client 1.0.0 HttpAgent pointed at `agui-replay serve`
// (issue 15.5), as a front end uses it: over the network, through Node's
// own fetch.
//
// usage: node serve-client.js URL < RUN_INPUT.json
// The run input gives the agent its threadId, initial messages and state,
// and runAgent() its runId, tools, context and forwardedProps (each
// optional). stdout: one JSON object,
//   {"wire": [each event's JSON as the body carried it],
//    "events": [each event the agent processed (onEvent)],
//    "outcome": "completed" | "error", "error": string | null,
//    "messages": agent.messages once the response ended,
//    "state": agent.state}
// `runAgent()` rejecting (a stream ended early) is outcome "error"; the
// messages are read after it either way.

"use strict";

const { HttpAgent } = require("@ag-ui/client");

console.warn = () => {};
console.error = () => {};
console.debug = () => {};
console.log = () => {};

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  return text === "" ? {} : JSON.parse(text);
}

// The data of each SSE frame of a body, as the bytes went by (the wire
// check is independent of the client's own parser).
function sseData(text) {
  const events = [];
  for (const frame of text.split(/\r\n\r\n|\n\n|\r\r/)) {
    const data = frame
      .split(/\r\n|\n|\r/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""));
    if (data.length > 0) events.push(data.join("\n"));
  }
  return events;
}

async function main() {
  const url = process.argv[2];
  if (!url) throw new Error("usage: node serve-client.js URL < RUN_INPUT.json");
  const input = await readStdin();
  let wireText = "";
  const decoder = new TextDecoder();
  const tee = async (target, init) => {
    const response = await fetch(target, init);
    if (!response.body) return response;
    const [mine, theirs] = response.body.tee();
    (async () => {
      const reader = mine.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        wireText += decoder.decode(value, { stream: true });
      }
    })().catch(() => {});
    return new Response(theirs, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  const agent = new HttpAgent({
    url,
    threadId: input.threadId,
    initialMessages: input.messages ?? [],
    initialState: input.state ?? {},
    fetch: tee,
  });
  const events = [];
  let outcome = "completed";
  let error = null;
  try {
    await agent.runAgent(
      {
        runId: input.runId,
        tools: input.tools,
        context: input.context,
        forwardedProps: input.forwardedProps,
      },
      { onEvent: ({ event }) => { events.push(event); } },
    );
  } catch (e) {
    outcome = "error";
    error = e instanceof Error ? e.message : String(e);
  }
  // Let the tee read what is left of the body.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const wire = sseData(wireText).map((data) => {
    try {
      return JSON.parse(data);
    } catch {
      return data;
    }
  });
  process.stdout.write(
    JSON.stringify({ wire, events, outcome, error, messages: agent.messages, state: agent.state }) + "\n",
  );
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ outcome: "peer-failure", error: String(e && e.stack ? e.stack : e) }) + "\n");
  process.exit(1);
});
