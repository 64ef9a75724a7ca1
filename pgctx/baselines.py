"""The baselines pgctx's working context is compared with, at the same number of tokens.

- :func:`last_messages`: the newest whole messages that fit (``history[-N:]`` with N as large as
  fits), less any tool output whose call did not fit (an output is never shown without its call);
- :func:`trim_messages`: LangChain's ``trim_messages(strategy="last")`` with ``start_on="human"``
  and whole messages, as LangChain's documentation recommends for chat models; it needs
  ``langchain-core`` (``pip install 'pgctx[eval]'``; :mod:`pgctx.integrations.langchain_trim`) and
  returns None without it.

Both take the history as (seq, kind, payload, tokens) and count each message with the token
count stored at append (the counts pgctx's own context uses), so "the same number of tokens"
means the same counts.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

from pgctx.messages import ANSWERS

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
    from pgctx.integrations.langchain_trim import trim_last

    return trim_last(history, tokens)
