#!/usr/bin/env node
// Decodes protobuf event streams with the official decoder (issue 15.8):
// `@ag-ui/proto` 1.0.0's `decode`, each frame a 4-byte big-endian length
// then an `Event`, as @ag-ui/client reads an
// `application/vnd.ag-ui.event+proto` body.
//
// stdin: one stream per line, its bytes in base64.
// stdout: one line per stream, in order: {"events": [...]} or
// {"error": "...", "events": [...what decoded before it]}.

"use strict";

const readline = require("node:readline");
const { decode } = require("@ag-ui/proto");

console.warn = () => {};

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const bytes = Buffer.from(line.trim(), "base64");
  const events = [];
  let at = 0;
  try {
    while (at < bytes.length) {
      if (at + 4 > bytes.length) throw new Error(`a length prefix cut short at byte ${at}`);
      const length = bytes.readUInt32BE(at);
      if (at + 4 + length > bytes.length) throw new Error(`a frame cut short at byte ${at}`);
      events.push(decode(new Uint8Array(bytes.subarray(at + 4, at + 4 + length))));
      at += 4 + length;
    }
    process.stdout.write(JSON.stringify({ events }) + "\n");
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e && e.message), events }) + "\n");
  }
});
