"""llama-index-protocols-ag-ui's own router (`get_ag_ui_workflow_router`,
POST /run) with llama-index-core's `MockFunctionCallingLLM` on a scripted
response generator: no network, the same events on every run.

Usage: python agent_llama_index.py PORT   (serves POST /run on 127.0.0.1:PORT)

The scripted model looks at the last message:
- after a tool result, it answers in text;
- a message with "weather" calls the backend tool `get_weather`;
- one with "confirm the" calls the frontend tool `confirm` the run input declares;
- anything else is answered in text.
"""

import sys

import uvicorn
from fastapi import FastAPI
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.protocols.ag_ui.router import get_ag_ui_workflow_router


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny and 21 C in {city}"


def scripted(messages, **kwargs) -> ChatMessage:
    last = messages[-1]
    if last.role == MessageRole.TOOL:
        return ChatMessage(role="assistant", content="It is sunny and 21 C in Paris.")
    text = (last.content or "").lower()
    if "weather" in text:
        call = ToolCallBlock(tool_call_id="call_weather_1", tool_name="get_weather", tool_kwargs={"city": "Paris"})
        return ChatMessage(role="assistant", blocks=[call])
    if "confirm the" in text:
        call = ToolCallBlock(
            tool_call_id="call_confirm_1", tool_name="confirm", tool_kwargs={"question": "Book the table?"}
        )
        return ChatMessage(role="assistant", blocks=[call])
    return ChatMessage(role="assistant", blocks=[TextBlock(text="Hello! I am a scripted LlamaIndex agent.")])


app = FastAPI()
app.include_router(
    get_ag_ui_workflow_router(
        llm=MockFunctionCallingLLM(response_generator=scripted),
        backend_tools=[get_weather],
        initial_state={"lastCity": None},
    )
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
