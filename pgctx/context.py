"""pgctx.build_context: the model's working context (article 一.2), inside a token budget.

    system rules + task state + committed summary + pinned evidence + unfolded events
    + retrieved long-term memories + the current message

The committed fold and its events come from pgctx.context_events (sql/170_context.sql), in
one statement: every event after the committed cursor, and the evidence kept raw beside the
summary. Rules this module keeps:

- A tool call and its output are adjacent, in that order, and every call has an output: a
  result is placed right after its call (later answers to the same call become notes); a call
  still waiting gets an output saying no result is recorded; a result whose call was folded
  brings its call along. No request can then fail with the API's "tool output without call"
  (or "call without output") 400.
- Nothing mandatory is dropped: system, task, summary, evidence, unfolded events and the
  current message fit in ``budget.input_limit`` or :class:`~pgctx.errors.ContextOverBudget`
  says by how much (the remedy is a fold, not a silent trim). Memories are optional and are
  added in the given order while they fit.

Event tokens are the counts stored at append; only text built here is counted here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pgctx import db
from pgctx.errors import ContextOverBudget, ConversationNotFound
from pgctx.messages import (
    ANSWERS, call_message, erasure_of, event_message, note, output_message, summary_message, task_message, to_input_items,
)
from pgctx.tokens import Budget, TokenCounter

SECTIONS = ("system", "task", "summary", "evidence", "events", "memories", "current")
NO_RESULT = {"outcome": "none recorded", "note": "no result is recorded for this call; its outcome is not known"}


@dataclass(frozen=True)
class WorkingContext:
    messages: list[dict[str, Any]]  # Chat Completions messages
    input_items: list[dict[str, Any]]  # the same as Responses API input items
    sections: dict[str, int]  # tokens per section
    total_tokens: int
    limit: int
    version: int  # the committed fold it is built on
    cursor: int
    evidence: list[tuple[int, str]] = field(default_factory=list)  # (seq, why it is pinned)
    dropped_memories: int = 0
    summary: dict[str, Any] | None = None  # the committed summary it shows (None before the first fold)
    events: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)  # the raw events it holds, in order


def build_context(conn: db.Connectable, conversation_id: str, *, budget: Budget | None = None,
                  system: str | None = None, current_message: str | None = None,
                  memories: Sequence[str] | None = None) -> WorkingContext:
    """The working context of a conversation; an awaitable on an AsyncConnection or async pool."""
    return db.run(conn, _build(conversation_id, budget or Budget(), system, current_message, list(memories or ())))


def _build(conversation_id: str, budget: Budget, system: str | None, current: str | None,
           memories: list[str]) -> db.Op[WorkingContext]:
    # one statement: the committed fold and its events from one snapshot, in one round trip
    rows = yield db.Query(db.CONTEXT_EVENTS, (conversation_id,))
    fold = [r for r in rows if r[0] == "summary"]
    if not fold or fold[0][3]["version"] is None:
        raise ConversationNotFound.of(conversation_id)
    cursor, version, summary = fold[0][1], fold[0][3]["version"], fold[0][3]["summary"]
    counter = budget.counter()
    out = _Assembler(counter)
    if system:
        out.add("system", {"role": "system", "content": system})
    if summary:
        out.add("task", task_message(summary))
        out.add("summary", summary_message(summary, version, cursor))
    events = [r for r in rows if r[0] == "events"]
    pinned = {r[1]: r for r in rows if r[0] == "evidence"}
    pinned_calls = {r[3].get("call_id"): r for r in pinned.values() if r[2] == "tool_call"}
    brought = _render_events(out, events, pinned_calls)
    evidence = []
    for seq, (_, _, kind, payload, _, reason) in sorted(pinned.items()):
        evidence.append((seq, reason))
        if seq not in brought:
            out.add("evidence", event_message(kind, payload, seq) if erasure_of(payload) is not None
                    else note(kind, payload, f" #{seq}, kept raw: {reason}"))
    if current:
        out.add("current", {"role": "user", "content": current})
    if out.total > budget.input_limit:
        raise ContextOverBudget(
            f"the mandatory context is {out.total} tokens, {out.total - budget.input_limit} over the limit "
            f"{budget.input_limit}", over_by=out.total - budget.input_limit,
            detail=", ".join(f"{k}={v}" for k, v in out.sections.items() if v),
            hint="fold the conversation (pgctx.fold) or shorten the system rules or current message")
    dropped = 0
    for memory in memories:
        message = {"role": "system", "content": f"[memory] {memory}"}
        tokens = counter.message_tokens(message)
        if out.total + tokens > budget.input_limit:
            dropped += 1
            continue
        out.add("memories", message, tokens=tokens)
    messages = out.messages()
    raw = [(r[1], r[2], r[3]) for r in sorted((r for r in rows if r[0] != "summary"), key=lambda r: r[1])]
    return WorkingContext(messages, to_input_items(messages), dict(out.sections), out.total, budget.input_limit,
                          version, cursor, evidence, dropped, summary, raw)


def _render_events(out: _Assembler, events: list[tuple[Any, ...]],
                   pinned_calls: dict[str, tuple[Any, ...]]) -> set[int]:
    """Add the unfolded events in order, pairing every call with one output; returns the seqs
    of pinned calls brought in beside their results."""
    first_answer: dict[str, int] = {}
    for _, seq, kind, payload, _, _ in events:
        if kind in ANSWERS:
            first_answer.setdefault(payload.get("call_id"), seq)
    by_seq = {r[1]: r for r in events}
    called = {r[3].get("call_id") for r in events if r[2] == "tool_call"}
    brought: set[int] = set()
    for _, seq, kind, payload, tokens, _ in events:
        call_id = payload.get("call_id")
        if erasure_of(payload) is not None:
            out.add("events", event_message(kind, payload, seq))
        elif kind == "tool_call":
            out.add("events", call_message(payload), tokens=tokens)
            answer = first_answer.get(call_id)
            if answer is not None and answer > seq:
                out.add("events", output_message(by_seq[answer][3]), tokens=by_seq[answer][4])
            else:
                out.add("events", output_message({"call_id": call_id, **NO_RESULT}))
        elif kind in ANSWERS and first_answer.get(call_id) == seq and call_id in called:
            continue  # already placed right after its call
        elif kind in ANSWERS and first_answer.get(call_id) == seq and call_id in pinned_calls:
            call = pinned_calls[call_id]
            brought.add(call[1])
            out.add("events", call_message(call[3]), tokens=call[4])
            out.add("events", output_message(payload), tokens=tokens)
        elif kind in ANSWERS:
            out.add("events", note(kind, payload, f" #{seq}"))  # a later answer, or one without a call
        else:
            out.add("events", event_message(kind, payload), tokens=tokens)
    return brought


class _Assembler:
    """Messages by section, in SECTIONS order, with their token counts."""

    def __init__(self, counter: TokenCounter):
        self.counter = counter
        self.parts: dict[str, list[dict[str, Any]]] = {name: [] for name in SECTIONS}
        self.sections: dict[str, int] = dict.fromkeys(SECTIONS, 0)
        self.total = 0

    def add(self, section: str, message: dict[str, Any], tokens: int | None = None) -> None:
        n = tokens if tokens is not None else self.counter.message_tokens(message)
        self.parts[section].append(message)
        self.sections[section] += n
        self.total += n

    def messages(self) -> list[dict[str, Any]]:
        return [m for name in SECTIONS for m in self.parts[name]]
