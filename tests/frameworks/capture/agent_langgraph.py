"""ag-ui-langgraph's own endpoint (`add_langgraph_fastapi_endpoint`) over a
LangGraph graph whose chat node runs langchain-core's `GenericFakeChatModel`
with a scripted reply: no network, the same events on every run.

Usage: python agent_langgraph.py PORT   (serves POST / on 127.0.0.1:PORT)

The scripted model looks at the last message:
- after a tool result, it answers in text;
- "weather ..." calls the backend tool `get_weather` (run by a ToolNode; the
  graph's `lastCity` state is set);
- "confirm ..." calls the frontend tool `confirm` the run input declares;
- anything else is answered in text.
"""

import sys
from typing import Annotated, Optional

import uvicorn
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from typing_extensions import TypedDict


class State(TypedDict):
    messages: Annotated[list, add_messages]
    lastCity: Optional[str]


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny and 21 C in {city}"


def scripted_reply(state: State) -> AIMessage:
    last = state["messages"][-1]
    if isinstance(last, ToolMessage):
        return AIMessage(content="It is sunny and 21 C in Paris.")
    text = str(getattr(last, "content", "")).lower()
    if text.startswith("weather"):
        return AIMessage(
            content="",
            tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_weather_1"}],
        )
    if text.startswith("confirm"):
        return AIMessage(
            content="",
            tool_calls=[{"name": "confirm", "args": {"question": "Book the table?"}, "id": "call_confirm_1"}],
        )
    return AIMessage(content="Hello! I am a scripted LangGraph agent.")


async def chat(state: State, config):
    reply = scripted_reply(state)
    if not reply.tool_calls:
        # Text streams token by token, as a chat model's does (the fake
        # model cannot stream a reply that is only tool calls).
        model = GenericFakeChatModel(messages=iter([reply]))
        reply = await model.ainvoke(state["messages"], config)
    update = {"messages": [reply]}
    if any(call["name"] == "get_weather" for call in reply.tool_calls):
        update["lastCity"] = "Paris"
    return update


def route(state: State):
    calls = state["messages"][-1].tool_calls if hasattr(state["messages"][-1], "tool_calls") else []
    if any(call["name"] == "get_weather" for call in calls):
        return "tools"
    return END


graph = StateGraph(State)
graph.add_node("chat", chat)
graph.add_node("tools", ToolNode([get_weather]))
graph.add_edge(START, "chat")
graph.add_conditional_edges("chat", route, ["tools", END])
graph.add_edge("tools", "chat")

app = FastAPI()
add_langgraph_fastapi_endpoint(
    app,
    LangGraphAgent(name="scripted", graph=graph.compile(checkpointer=MemorySaver()), emit_raw_events=False),
    "/",
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
