"""The baselines pgctx's working context is compared with, at the same number of tokens.

- :func:`last_messages`: the newest whole messages that fit (``history[-N:]`` with N as large as
  fits), less any tool output whose call did not fit (an output is never shown without its call);
- :func:`trim_messages`: LangChain's ``trim_messages(strategy="last")`` with ``start_on="human"``
  and whole messages, as LangChain's documentation recommends for chat models; it needs
  ``langchain-core`` (``pip install 'pgctx[eval]'``) and returns None without it.

Both take the history as (seq, kind, payload, tokens) and count each message with the token
count stored at append (the counts pgctx's own context uses), so "the same number of tokens"
means the same counts.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

from pgctx.canonical import canonical_json
from pgctx.messages import ANSWERS, event_message

HistoryEvent = tuple[int, str, dict[str, Any], int]  # (seq, kind, payload, tokens)


def last_messages(history: Sequence[HistoryEvent], tokens: int) -> list[HistoryEvent]:
    """The longest suffix of the history within ``tokens``, without the outputs whose call is not in it."""
    kept: list[HistoryEvent] = []
    total = 0
    for event in reversed(history):
        if total + event[3] > tokens:
            break
        kept.append(event)
        total += event[3]
    kept.reverse()
    called = {e[2].get("call_id") for e in kept if e[1] == "tool_call"}
    return [e for e in kept if e[1] not in ANSWERS or e[2].get("call_id") in called]


def trim_available() -> bool:
    return importlib.util.find_spec("langchain_core") is not None


def trim_messages(history: Sequence[HistoryEvent], tokens: int) -> list[HistoryEvent] | None:
    """What LangChain's trim_messages(strategy="last") keeps of the history; None without langchain-core."""
    if not trim_available():
        return None
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
    from langchain_core.messages import trim_messages as lc_trim

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
    kept = lc_trim(messages, max_tokens=tokens, token_counter=lambda ms: sum(by_id[m.id][3] for m in ms),
                   strategy="last", start_on="human", allow_partial=False, include_system=False)
    return [by_id[m.id] for m in kept]
