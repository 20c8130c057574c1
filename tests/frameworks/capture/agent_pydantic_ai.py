"""pydantic-ai's own AG-UI endpoint (`AGUIAdapter.dispatch_request`) with a
scripted `FunctionModel`: no network, the same events on every run.

Usage: python agent_pydantic_ai.py PORT   (serves POST / on 127.0.0.1:PORT)

The model looks at the last user message:
- "weather ..." calls the backend tool `get_weather`, whose return carries a
  STATE_SNAPSHOT (tool-return metadata), then answers in text;
- "confirm ..." calls the frontend tool `confirm` the run input declares, so
  the run ends with the call pending for the UI;
- anything else is answered in streamed text.
"""

import sys
from collections.abc import AsyncIterator

import uvicorn
from ag_ui.core import StateSnapshotEvent
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturn, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic import BaseModel
from pydantic_ai.ui import StateDeps
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


def last_user_text(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content.lower()
    return ""


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    last = messages[-1]
    if isinstance(last, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in last.parts):
        for chunk in ["It is ", "sunny and 21 °C ", "in Paris."]:
            yield chunk
        return
    text = last_user_text(messages)
    if text.startswith("weather"):
        yield {0: DeltaToolCall(name="get_weather", json_args='{"city": ', tool_call_id="call_weather_1")}
        yield {0: DeltaToolCall(json_args='"Paris"}')}
        return
    if text.startswith("confirm"):
        yield {0: DeltaToolCall(name="confirm", json_args='{"question": "Book the table?"}', tool_call_id="call_confirm_1")}
        return
    for chunk in ["Hello! ", "I am a scripted ", "pydantic-ai agent."]:
        yield chunk


class Weather(BaseModel):
    """The shared state: the UI's run input sets it (StateDeps)."""

    lastCity: str | None = None
    forecasts: list[dict] = []


agent = Agent(FunctionModel(stream_function=scripted), deps_type=StateDeps[Weather], instructions="Be brief.")


@agent.tool_plain
def get_weather(city: str) -> ToolReturn:
    """The weather in a city."""
    return ToolReturn(
        return_value={"city": city, "sky": "sunny", "celsius": 21},
        metadata=[StateSnapshotEvent(snapshot={"lastCity": city, "forecasts": [{"city": city, "celsius": 21}]})],
    )


async def run(request: Request) -> Response:
    return await AGUIAdapter.dispatch_request(request, agent=agent, deps=StateDeps(Weather()))


app = Starlette(routes=[Route("/", run, methods=["POST"])])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
