#!/usr/bin/env python3
"""Captures the AG-UI fixtures of tests/frameworks/ (issue 39).

For one framework: starts its agent (agent_<framework>.py, run by the
Python of that framework's venv) on loopback, puts `agui-replay record` in
front of it, POSTs each session's RunAgentInput through the proxy, stops the
proxy, exports each recorded session's body as SSE, and asks the real
@ag-ui/client 1.0.0 (client_end.js) what it ends with.

Usage (from the repository root, after `cargo build` and
`npm ci --prefix tests/peer/node`):

    python3 tests/frameworks/capture/capture.py FRAMEWORK VENV_PYTHON

writes tests/frameworks/FRAMEWORK/<session>.input.json, .sse and
.client.json. Standard library only; nothing here leaves the machine.
Not run in CI: CI replays the committed files.
"""

import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
BIN = ROOT / "target" / "debug" / "agui-replay"

CONFIRM_TOOL = {
    "name": "confirm",
    "description": "Ask the user to confirm something.",
    "parameters": {
        "type": "object",
        "properties": {"question": {"type": "string"}},
        "required": ["question"],
    },
}


def run_input(framework, name, messages, state=None, tools=None):
    return {
        "threadId": f"thread-{framework}-{name}",
        "runId": f"run-{framework}-{name}",
        "state": state if state is not None else {},
        "messages": messages,
        "tools": tools or [],
        "context": [],
        "forwardedProps": {},
    }


def sessions(framework):
    """The sessions every framework is asked for, in order."""
    user = lambda i, text: {"id": f"user-{i}", "role": "user", "content": text}
    return [
        ("text", run_input(framework, "text", [user(1, "Hello there")])),
        ("tool", run_input(framework, "tool", [user(1, "weather in Paris?")], state={"lastCity": None})),
        (
            "frontend-tool",
            run_input(framework, "frontend-tool", [user(1, "confirm the booking")], tools=[CONFIRM_TOOL]),
        ),
        (
            "history",
            run_input(
                framework,
                "history",
                [
                    user(1, "Hello there"),
                    {"id": "assistant-1", "role": "assistant", "content": "Hi! What can I do?"},
                    user(2, "Tell me something"),
                ],
            ),
        ),
    ]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"nothing listens on 127.0.0.1:{port} after {seconds} s")


# The path of each framework's AG-UI endpoint (its package's default).
PATHS = {"llama-index": "/run"}


def post(port, body, path="/"):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "accept": "text/event-stream"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.read()


def stop(process):
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main():
    framework, venv_python = sys.argv[1], sys.argv[2]
    out = ROOT / "tests" / "frameworks" / framework
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"capture-{framework}-"))
    rec = work / f"{framework}.rec"
    agent_port, proxy_port = free_port(), free_port()
    agent = subprocess.Popen([venv_python, str(HERE / f"agent_{framework.replace('-', '_')}.py"), str(agent_port)])
    proxy = None
    try:
        wait_for(agent_port)
        proxy = subprocess.Popen(
            [
                str(BIN),
                "record",
                "--upstream",
                f"http://127.0.0.1:{agent_port}",
                "--listen",
                f"127.0.0.1:{proxy_port}",
                "--out",
                str(rec),
            ]
        )
        wait_for(proxy_port)
        chosen = sessions(framework)
        for name, body in chosen:
            post(proxy_port, body, PATHS.get(framework, "/"))
            (out / f"{name}.input.json").write_text(json.dumps(body, indent=2) + "\n")
        stop(proxy)
        proxy = None
        for n, (name, _) in enumerate(chosen, start=1):
            sse = out / f"{name}.sse"
            subprocess.run(
                [str(BIN), "export", str(rec), "--session", str(n), "--format", "sse", "--out", str(sse), "--force"],
                check=True,
            )
            client = subprocess.run(
                ["node", str(HERE / "client_end.js"), str(out / f"{name}.input.json"), str(sse)],
                check=True,
                capture_output=True,
                text=True,
            )
            (out / f"{name}.client.json").write_text(client.stdout)
            print(f"{framework}/{name}: {sse.stat().st_size} bytes, client {json.loads(client.stdout)['outcome']}")
    finally:
        if proxy is not None:
            stop(proxy)
        stop(agent)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
