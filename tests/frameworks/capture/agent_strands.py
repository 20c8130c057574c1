"""ag-ui-strands' own endpoint (`add_strands_fastapi_endpoint`) over a
Strands `Agent` whose model is a scripted stub (a `strands.models.Model`
that streams Bedrock-style events): no network, the same events on every run.

Usage: python agent_strands.py PORT   (serves POST / on 127.0.0.1:PORT)

The stub looks at the last message:
- after a tool result, it answers in text;
- "weather" calls the backend tool `get_weather`;
- "confirm the" calls the frontend tool `confirm` the run input declares;
- anything else is answered in text.
"""

import json
import sys

import uvicorn
from ag_ui_strands import StrandsAgent
from ag_ui_strands.endpoint import add_strands_fastapi_endpoint
from fastapi import FastAPI
from strands import Agent, tool
from strands.models.model import Model


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny and 21 C in {city}"


def text_events(text):
    yield {"messageStart": {"role": "assistant"}}
    yield {"contentBlockStart": {"start": {}}}
    for word in text.split(" "):
        yield {"contentBlockDelta": {"delta": {"text": word + " "}}}
    yield {"contentBlockStop": {}}
    yield {"messageStop": {"stopReason": "end_turn"}}
    yield {"metadata": {"usage": {"inputTokens": 10, "outputTokens": 8, "totalTokens": 18}, "metrics": {"latencyMs": 1}}}


def tool_events(call_id, name, args):
    yield {"messageStart": {"role": "assistant"}}
    yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": call_id, "name": name}}}}
    yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(args)}}}}
    yield {"contentBlockStop": {}}
    yield {"messageStop": {"stopReason": "tool_use"}}
    yield {"metadata": {"usage": {"inputTokens": 10, "outputTokens": 8, "totalTokens": 18}, "metrics": {"latencyMs": 1}}}


class ScriptedModel(Model):
    """A model that answers from a script, never over the network."""

    def __init__(self):
        self.config = {"model_id": "scripted"}

    def update_config(self, **model_config):
        self.config.update(model_config)

    def get_config(self):
        return self.config

    async def structured_output(self, output_model, prompt, system_prompt=None, **kwargs):
        raise NotImplementedError("not scripted")
        yield  # pragma: no cover

    async def stream(self, messages, tool_specs=None, system_prompt=None, **kwargs):
        last = messages[-1]
        blocks = last.get("content", [])
        if any("toolResult" in block for block in blocks):
            events = text_events("It is sunny and 21 C in Paris.")
        else:
            text = " ".join(block.get("text", "") for block in blocks).lower()
            if "weather" in text:
                events = tool_events("call_weather_1", "get_weather", {"city": "Paris"})
            elif "confirm the" in text:
                events = tool_events("call_confirm_1", "confirm", {"question": "Book the table?"})
            else:
                events = text_events("Hello! I am a scripted Strands agent.")
        for event in events:
            yield event


app = FastAPI()
add_strands_fastapi_endpoint(
    app,
    StrandsAgent(agent=Agent(model=ScriptedModel(), tools=[get_weather], callback_handler=None), name="scripted"),
    "/",
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
