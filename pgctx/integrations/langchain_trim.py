"""The trimming baseline of ``pgctx eval`` through LangChain's own ``trim_messages`` (needs
langchain-core: ``pip install 'pgctx[eval]'``): the history as LangChain messages, trimmed by
LangChain, mapped back to pgctx's events."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages import trim_messages

from pgctx.baselines import HistoryEvent
from pgctx.canonical import canonical_json
from pgctx.messages import ANSWERS, event_message


def trim_last(history: Sequence[HistoryEvent], tokens: int) -> list[HistoryEvent]:
    """What LangChain's trim_messages(strategy="last", start_on="human", whole messages) keeps of
    the history, each message counted with its stored token count."""
    by_id = {str(e[0]): e for e in history}
    messages = []
    for seq, kind, payload, _ in history:
        rendered = event_message(kind, payload)
        if kind == "tool_call":
            messages.append(AIMessage(content="", id=str(seq), tool_calls=[{
                "name": str(payload.get("tool", "")), "args": dict(payload.get("arguments") or {}),
                "id": str(payload.get("call_id", "")), "type": "tool_call"}]))
        elif kind in ANSWERS:
            messages.append(ToolMessage(content=rendered["content"], tool_call_id=str(payload.get("call_id", "")),
                                        id=str(seq)))
        else:
            cls = {"user": HumanMessage, "assistant": AIMessage}.get(rendered["role"], SystemMessage)
            messages.append(cls(content=rendered["content"] or canonical_json(payload), id=str(seq)))
    kept = trim_messages(messages, max_tokens=tokens, token_counter=lambda ms: sum(by_id[m.id][3] for m in ms),
                         strategy="last", start_on="human", allow_partial=False, include_system=False)
    return [by_id[m.id] for m in kept]
