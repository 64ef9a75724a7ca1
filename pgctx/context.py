"""pgctx.build_context: the model's working context (article 一.2, 五), inside a token budget.

    system rules + task state + committed summary + pinned evidence + recalled readings and the
    newest folded events + unfolded events + retrieved long-term memories + the current message

The committed fold and its events come from pgctx.context_events (sql/170_context.sql), in
one statement: every event after the committed cursor, the evidence kept raw beside the summary,
and the recalled readings and newest folded events that may fill the rest of the budget. Rules this module keeps:

- Nothing mandatory is dropped: system, task, summary, evidence, unfolded events and the current
  message fit in ``budget.input_limit`` or :class:`~pgctx.errors.ContextOverBudget` says by how
  much (the remedy is a fold, not a silent trim).
- Evidence has a share of B (``budget.evidence_limit``): beyond it, the oldest pieces are shown
  as pinned notes (:func:`pgctx.messages.pinned_note`: seq, reason, chain hash and the start of
  the content) instead of raw, newest kept raw; they are still cited and verifiable. Where the
  mandatory parts would not fit otherwise, more of it is shortened (the notes as one, then every
  piece as one note of their seqs), before ContextOverBudget.
- Memories are optional and are added in the given order while they fit.
- The context uses its budget (``fill``, default B): what the summary, the evidence and the
  unfolded events leave of it is filled, first, with the folded readings the agent turns back to
  (pgctx.context_events' section recalled: the tool result a summary fact about a subject rests
  on, with its call, when the unfolded events name that subject again; at most 1/RECALL_SHARE of
  the room, whole units, the subject named last first), then with the newest folded events, as
  trimming to the rest would take them, in whole units (an answer whose call did not fit is left out, and an
  approval whose goal did not), while the whole context stays within ``budget.input_limit``.
  The summary still covers them; their raw text is kept while there is room (section
  ``folded``; :attr:`WorkingContext.folded`). Evidence the run reaches is shown there, in place.
- A tool call and its output are adjacent, in that order, and every call has an output: a
  result is placed right after its call (later answers to the same call become notes); a call
  still waiting gets an output saying no result is recorded; a result whose call was folded
  brings its call along. No request can then fail with the API's "tool output without call"
  (or "call without output") 400.

Event tokens are the counts stored at append; only text built here is counted here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pgctx import arguments, db
from pgctx.baselines import last_messages
from pgctx.errors import ContextOverBudget, ConversationNotFound
from pgctx.messages import (
    NOTE_CHARS, ANSWERS, call_message, erasure_of, event_message, evidence_note, kept_for, note, output_message,
    pinned_note, summary_message, task_message, to_input_items,
)
from pgctx.tokens import Budget, TokenCounter

SECTIONS = ("system", "task", "summary", "evidence", "folded", "events", "memories", "current")
HISTORY = ("task", "summary", "evidence", "folded", "events")  # what fills B
TERSE = "what the summary's open calls and risks rest on"  # a grouped note's reasons, in the smallest windows
RECALL_SHARE = 4  # recalled readings take at most 1/RECALL_SHARE of the room left to fill
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
    folded: list[int] = field(default_factory=list)  # seqs of those that the summary covers (section folded)
    noted: list[int] = field(default_factory=list)  # evidence shown as pinned notes, not raw (over its share)


def build_context(conn: db.Connectable, conversation_id: str, *, budget: Budget | None = None,
                  system: str | None = None, current_message: str | None = None,
                  memories: Sequence[str] | None = None, fill: int | None = None) -> WorkingContext:
    """The working context of a conversation; an awaitable on an AsyncConnection or async pool.

    ``fill`` is the tokens the summary, the evidence and the raw events may fill (default: B, the
    budget's history budget); the newest folded events are added while they fit. 0 adds none:
    the smallest context, the summary and what it does not cover.
    """
    arguments.text("conversation_id", conversation_id)
    arguments.text("system", system, optional=True)
    arguments.text("current_message", current_message, optional=True)
    budget = arguments.budget(budget)
    if fill is None:
        fill = budget.history_budget
    elif isinstance(fill, bool) or not isinstance(fill, int) or fill < 0:
        raise TypeError(f"fill must be a number of tokens >= 0 (or None for the budget's B), got {fill!r}")
    return db.run(conn, _build(conversation_id, budget, system, current_message, list(memories or ()), fill))


def _build(conversation_id: str, budget: Budget, system: str | None, current: str | None,
           memories: list[str], fill: int) -> db.Op[WorkingContext]:
    # one statement: the committed fold and its events from one snapshot, in one round trip
    rows = yield db.Query(db.CONTEXT_EVENTS, (conversation_id, fill))
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
    brought = _render_events(out, "events", events, pinned_calls)
    shown_pinned = [pinned[seq] for seq in sorted(pinned) if seq not in brought]
    if current:
        out.add("current", {"role": "user", "content": current})
    # evidence within its share of B; where the rest would not fit either, shortened further,
    # until it fits or shortening gains nothing more
    # (the notes keep less of each event's content at each step: the seq, reason and chain hash stay)
    share = budget.evidence_limit
    evidence = _evidence(counter, share, shown_pinned, NOTE_CHARS)
    kept_raw = sum(n for _, _, n, _ in evidence)
    for chars in (NOTE_CHARS, NOTE_CHARS // 4, 0):
        while out.total + kept_raw > budget.input_limit:
            raw_left = sum(row[4] or n for row, _, n, shortened in evidence if not shortened)
            share = min(share, raw_left) - (out.total + kept_raw - budget.input_limit)
            shorter = _evidence(counter, share, shown_pinned, chars)
            if sum(n for _, _, n, _ in shorter) >= kept_raw:
                break
            evidence, kept_raw = shorter, sum(n for _, _, n, _ in shorter)
    grouped: set[int] = set()  # the seqs of the pinned notes shown as one (a run of folded events skips them)
    for every, terse in ((False, False), (True, False), (True, True)):
        if out.total + kept_raw > budget.input_limit:
            # many pieces (a session of irreversible deletes): the notes as one, by seq and reason;
            # in a window too small even for that, the raw pieces join them, and then the note
            # keeps only their seqs (the summary's tool state and pending still say what is open)
            evidence, more = _grouped(counter, evidence, every, terse)
            grouped |= more
            kept_raw = sum(n for _, _, n, _ in evidence)
    if out.total + kept_raw > budget.input_limit:
        over = out.total + kept_raw - budget.input_limit
        raise ContextOverBudget(
            f"the mandatory context is {out.total + kept_raw} tokens, {over} over the limit {budget.input_limit}",
            over_by=over, detail=", ".join(f"{k}={v}" for k, v in {**out.sections, "evidence": kept_raw}.items() if v),
            hint="fold the conversation (pgctx.fold) or shorten the system rules or current message")
    dropped = 0
    for memory in memories:
        message = {"role": "system", "content": f"[memory] {memory}"}
        tokens = counter.message_tokens(message)
        if out.total + kept_raw + tokens > budget.input_limit:
            dropped += 1
            continue
        out.add("memories", message, tokens=tokens)
    # first the folded readings about what the unfolded events name again, while they fit; then the
    # newest folded events; evidence the run reaches is shown there, in place, which frees its
    # room for more (so the run only grows)
    history = sum(out.sections[s] for s in HISTORY)
    shown_seqs = {r[1] for r in events} | set(pinned) | brought | grouped
    outside = sum(n for _, _, n, _ in evidence)
    recalled = _recalled(counter, [r for r in rows if r[0] == "recalled" and r[1] not in shown_seqs],
                         min(fill - history - outside, budget.input_limit - out.total - outside) // RECALL_SHARE)
    recalled_tokens, recalled_seqs = sum(_tokens(counter, r) for r in recalled), {r[1] for r in recalled}
    placed = brought | grouped | recalled_seqs
    candidates = sorted((r for r in rows if r[0] == "folded" and r[1] not in placed), key=lambda r: r[1])
    run: list[tuple[Any, ...]] = []
    while True:
        inside = {r[1] for r in run}
        outside = sum(n for row, _, n, _ in evidence if row[1] not in inside)
        longer = _fill(counter, candidates, min(fill - history - outside, budget.input_limit - out.total - outside)
                       - recalled_tokens)
        if len(longer) <= len(run):
            break
        run = longer
    inside = {r[1] for r in run}
    for row, message, n, _ in evidence:
        if row[1] not in inside and message is not None:
            out.add("evidence", message, tokens=n)
    noted = {row[1] for row, _, _, shortened in evidence if shortened and row[1] not in inside}
    run = sorted(run + recalled, key=lambda r: r[1])
    _render_events(out, "folded", run, {})
    messages = out.messages()
    shown = events + run + [pinned[seq] for seq in brought] + [
        row for row, _, _, shortened in evidence if row[1] not in inside and not shortened]
    raw = [(r[1], r[2], r[3]) for r in sorted(shown, key=lambda r: r[1])]
    return WorkingContext(messages, to_input_items(messages), dict(out.sections), out.total, budget.input_limit,
                          version, cursor, [(seq, pinned[seq][5]) for seq in sorted(pinned)], dropped, summary, raw,
                          [r[1] for r in run], sorted(noted))


def _evidence(counter: TokenCounter, share: int, rows: list[tuple[Any, ...]],
              chars: int) -> list[tuple[tuple[Any, ...], dict[str, Any], int, bool]]:
    """The evidence kept beside the summary, as (row, message, tokens, shortened): raw, newest
    first, while it fits in ``share`` tokens; the older as pinned notes keeping ``chars`` of their
    content, where a note is shorter (a short event stays raw)."""
    raw = [(row, _evidence_message(row)) for row in rows]
    # the share holds the events' own tokens (as stored); each is sent with its label, counted too
    content = [row[4] if row[4] is not None else counter.message_tokens(m) for row, m in raw]
    total = sum(content)
    shown = []
    for (row, message), n in zip(raw, content):  # oldest first
        tokens = counter.message_tokens(message)
        if total > share:
            total -= n
            pinned = pinned_note(row[2], row[3], row[1], row[5], row[6], chars)
            shorter = counter.message_tokens(pinned)
            if shorter < tokens:
                shown.append((row, pinned, shorter, True))
                continue
        shown.append((row, message, tokens, False))
    return shown


def _grouped(counter: TokenCounter, evidence: list[tuple[tuple[Any, ...], dict[str, Any], int, bool]],
             every: bool = False, terse: bool = False
             ) -> tuple[list[tuple[tuple[Any, ...], dict[str, Any] | None, int, bool]], set[int]]:
    """The pinned notes of ``evidence`` (``every``: all of it, raw pieces too) as one note, on the
    oldest's entry (the others keep their entry, with no message): each event's seq, and each
    reason once with how many events it pins (``terse``: no reasons, pgctx.context_events has
    them). The events stay in pgctx.events, verifiable by seq; nothing changes when the note
    would not be shorter."""
    notes = [row for row, _, _, shortened in evidence if shortened or every]
    if len(notes) < 2 and not (terse and notes):
        return evidence, set()
    reasons: dict[str, int] = {}
    for row in notes:
        why = kept_for(row[3], row[5])
        reasons[why] = reasons.get(why, 0) + 1
    said = TERSE if terse else "; ".join(f"{why} (x{n})" if n > 1 else why for why, n in reasons.items())
    message = {"role": "system", "content": f"[pinned evidence shortened to its seqs, "
                                            f"#{_spans([row[1] for row in notes])}: {said}]"}
    tokens, members = counter.message_tokens(message), {row[1] for row in notes}
    if tokens >= sum(n for row, _, n, _ in evidence if row[1] in members):
        return evidence, set()
    return [(row, message, tokens, True) if row[1] == notes[0][1]
            else (row, None, 0, True) if row[1] in members else (row, m, n, False)
            for row, m, n, _ in evidence], members


def _spans(seqs: list[int]) -> str:
    """Ascending seqs as runs: "59-76, 78, 80-102"."""
    runs: list[list[int]] = []
    for seq in seqs:
        if runs and seq == runs[-1][1] + 1:
            runs[-1][1] = seq
        else:
            runs.append([seq, seq])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _evidence_message(row: tuple[Any, ...]) -> dict[str, Any]:
    _, seq, kind, payload, _, reason, _ = row
    return event_message(kind, payload, seq) if erasure_of(payload) is not None \
        else evidence_note(kind, payload, seq, reason)


def _tokens(counter: TokenCounter, row: tuple[Any, ...]) -> int:
    """An event's tokens as stored at append, or counted here (an erased event has no count)."""
    return row[4] if row[4] is not None else counter.message_tokens(event_message(row[2], row[3], row[1]))


def _recalled(counter: TokenCounter, rows: list[tuple[Any, ...]], room: int) -> list[tuple[Any, ...]]:
    """The recalled readings (pgctx.context_events, section recalled: results in the order the
    subjects were named again, newest first, then their calls) that fit in ``room`` tokens, each
    with its call, whole: a reading whose call or itself does not fit is left out."""
    calls = {r[3].get("call_id"): r for r in rows if r[2] == "tool_call"}
    kept: list[tuple[Any, ...]] = []
    for result in (r for r in rows if r[2] != "tool_call"):
        unit = [result] + ([calls[result[3].get("call_id")]] if result[3].get("call_id") in calls else [])
        tokens = sum(_tokens(counter, r) for r in unit)
        if tokens <= room and len(unit) == 2:
            kept += unit
            room -= tokens
    return kept


def _fill(counter: TokenCounter, rows: list[tuple[Any, ...]], room: int) -> list[tuple[Any, ...]]:
    """The newest folded events (``rows``, in seq order, ending at the cursor) within ``room``
    tokens as trimming takes them (:func:`pgctx.baselines.last_messages`: the newest whole events,
    less an answer whose call did not fit), less an approval whose goal did not (the summary
    covers them)."""
    by_seq = {r[1]: r for r in rows}
    history = [(r[1], r[2], r[3], _tokens(counter, r)) for r in rows]
    kept = last_messages(history, room)
    seqs = {e[0] for e in kept}
    return [by_seq[seq] for seq, kind, payload, _ in kept
            if not (kind == "approval" and isinstance(payload.get("scopes_event"), int)
                    and payload["scopes_event"] < seq and payload["scopes_event"] not in seqs)]


def _render_events(out: _Assembler, section: str, events: list[tuple[Any, ...]],
                   pinned_calls: dict[str, tuple[Any, ...]]) -> set[int]:
    """Add events in order, pairing every call with one output; returns the seqs of pinned calls
    brought in beside their results."""
    first_answer: dict[str, int] = {}
    for _, seq, kind, payload, *_ in events:
        if kind in ANSWERS:
            first_answer.setdefault(payload.get("call_id"), seq)
    by_seq = {r[1]: r for r in events}
    called = {r[3].get("call_id") for r in events if r[2] == "tool_call"}
    brought: set[int] = set()
    for _, seq, kind, payload, tokens, *_ in events:
        call_id = payload.get("call_id")
        if erasure_of(payload) is not None:
            out.add(section, event_message(kind, payload, seq))
        elif kind == "tool_call":
            out.add(section, call_message(payload), tokens=tokens)
            answer = first_answer.get(call_id)
            if answer is not None and answer > seq:
                out.add(section, output_message(by_seq[answer][3]), tokens=by_seq[answer][4])
            else:
                out.add(section, output_message({"call_id": call_id, **NO_RESULT}))
        elif kind in ANSWERS and first_answer.get(call_id) == seq and call_id in called:
            continue  # already placed right after its call
        elif kind in ANSWERS and first_answer.get(call_id) == seq and call_id in pinned_calls:
            call = pinned_calls[call_id]
            brought.add(call[1])
            out.add(section, call_message(call[3]), tokens=call[4])
            out.add(section, output_message(payload), tokens=tokens)
        elif kind in ANSWERS:
            out.add(section, note(kind, payload, f" #{seq}"))  # a later answer, or one without a call
        else:
            out.add(section, event_message(kind, payload), tokens=tokens)
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
