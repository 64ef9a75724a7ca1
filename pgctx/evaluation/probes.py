"""Judging probes against what the model sees (article 十八; the rules: docs/eval.md).

A :class:`View` is what a model would see at a decision point: the summary (None for the
baselines, or before the first fold), the raw events the context holds, in order, and the
context's text. :func:`judge` decides one probe against one view, exactly as documented, and says
why: lookups are structural (facts by key, subject and status, tool state, pending actions,
event seqs); plain text search is used only for the argument values of ``next_call``
(case-insensitive).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pgctx.facts import field_matches, result_fields, subject_pairs
from pgctx.messages import ANSWERS
from pgctx.evaluation.trajectory import (
    ConstraintProbe, EvidenceProbe, FactProbe, NextCallProbe, PendingProbe, ToolStateProbe,
)

RawEvent = tuple[int, str, dict[str, Any]]  # (seq, kind, payload)
DEFINITE = ("succeeded", "failed", "cancelled")


@dataclass(frozen=True)
class View:
    summary: dict[str, Any] | None
    events: list[RawEvent]
    text: str


@dataclass(frozen=True)
class Verdict:
    passed: bool
    why: str


def text_of(messages: Iterable[dict[str, Any]]) -> str:
    """A context's text: every message's content and every tool call's name and arguments."""
    parts: list[str] = []
    for m in messages:
        if isinstance(m.get("content"), str):
            parts.append(m["content"])
        for call in m.get("tool_calls") or ():
            parts += [call["function"]["name"], call["function"]["arguments"]]
    return "\n".join(parts)


def answer_status(kind: str, outcome: Any) -> str:
    """A call's status from one answer, as pgctx.tool_calls derives it (sql/080_tool_state.sql)."""
    if kind == "status_query" and outcome == "not_performed":
        return "failed"
    return outcome if outcome in (DEFINITE if kind == "tool_result" else ("succeeded", "failed")) else "unknown"


def judge(probe: Any, view: View) -> Verdict:
    return _JUDGES[type(probe)](probe, view)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        return float(a) == float(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _about(pairs: dict[str, str], subject: dict[str, str]) -> bool:
    return all(subject.get(name) == value for name, value in pairs.items())


def _fact(probe: FactProbe, view: View) -> Verdict:
    want = subject_pairs(probe.subject)
    arguments = {p.get("call_id"): p.get("arguments") for _, kind, p in view.events if kind == "tool_call"}
    stated: list[tuple[int, Any, str]] = []  # (seq, value, where)
    for seq, kind, p in view.events:
        if kind in ("fact", "correction") and p.get("key") == probe.key and "value" in p:
            if p.get("authority") != "model" and p.get("confidence") not in ("inferred", "unknown") \
                    and _about(want, subject_pairs(p.get("subject"))):
                stated.append((seq, p["value"], f"raw {kind} #{seq}"))
        elif kind in ANSWERS and p.get("outcome") == "succeeded":
            args = arguments.get(p.get("call_id"))
            if want and not (isinstance(args, dict) and _about(want, {k: str(v) for k, v in args.items()})):
                continue
            stated += [(seq, value, f"raw {kind} #{seq}") for name, value in result_fields(p)
                       if field_matches(name, probe.key)]
    active = [f for f in (view.summary or {}).get("facts", [])
              if f.get("status") == "active" and field_matches(str(f.get("key", "")), probe.key)
              and f.get("authority") != "model" and f.get("confidence") == "confirmed"
              and _about(want, subject_pairs(f.get("subject")))]
    raw = list(stated)

    def seq_of(f: dict[str, Any]) -> int:
        return max(f.get("source_event_ids") or [0])

    stated += [(seq_of(f), f.get("value"), "summary fact") for f in active]
    if not stated:
        return Verdict(False, f"nothing states {probe.key}")
    newest = max(seq for seq, _, _ in stated)
    shown = [(value, where) for seq, value, where in stated if seq == newest]

    def superseded(value: Any) -> bool:
        return any(_same(value, old) for old in probe.superseded)

    # a stale summary fact is history when a newer raw event (the tail after the cursor) states the value
    stale = [f.get("value") for f in active if superseded(f.get("value"))
             and not any(seq > seq_of(f) and _same(value, probe.value) for seq, value, _ in raw)]
    stale += [value for value, _ in shown if superseded(value)]
    if stale:
        return Verdict(False, f"superseded {stale[0]!r} presented as active")
    if not any(_same(value, probe.value) for value, _ in shown):
        return Verdict(False, f"presented as {shown[0][0]!r} ({shown[0][1]})")
    return Verdict(True, shown[0][1])


def _call_id(view: View, call_id: str | None, key: str | None) -> str | None:
    if call_id is not None:
        return call_id
    for _, kind, p in view.events:
        if kind == "tool_call" and p.get("idempotency_key") == key:
            return p.get("call_id")
    for found, state in (view.summary or {}).get("tool_state", {}).items():
        if state.get("idempotency_key") == key:
            return found
    return None


def _statuses(view: View, call_id: str) -> Iterator[tuple[int, str, Any, str]]:
    """Every statement of a call's status: (seq, status, request id, where)."""
    call_seq = next((seq for seq, kind, p in view.events if kind == "tool_call" and p.get("call_id") == call_id), None)
    answers = [(seq, kind, p) for seq, kind, p in view.events if kind in ANSWERS and p.get("call_id") == call_id]
    for seq, kind, p in answers:
        yield seq, answer_status(kind, p.get("outcome")), p.get("request_id"), f"raw {kind} #{seq}"
    if call_seq is not None and not any(seq > call_seq for seq, _, _ in answers):
        recovered = any(kind == "recovery" and seq > call_seq for seq, kind, _ in view.events)
        yield call_seq, "unknown" if recovered else "running", None, f"raw call #{call_seq} without an answer"
    state = (view.summary or {}).get("tool_state", {}).get(call_id)
    if state is not None:
        yield max(state.get("source_event_ids") or [0]), state.get("status"), state.get("request_id"), "summary"


def _tool_state(probe: ToolStateProbe, view: View) -> Verdict:
    call_id = _call_id(view, probe.call_id, probe.idempotency_key)
    statements = list(_statuses(view, call_id)) if call_id is not None else []
    if not statements:
        return Verdict(False, f"nothing states call {probe.call_id or probe.idempotency_key}")
    seq, status, request_id, where = max(statements, key=lambda s: s[0])
    if status != probe.status:
        return Verdict(False, f"reads as {status} ({where})")
    if probe.request_id is not None and request_id != probe.request_id:
        return Verdict(False, f"request id reads as {request_id!r} ({where})")
    return Verdict(True, where)


def _next_call(probe: NextCallProbe, view: View) -> Verdict:
    text = view.text.casefold()
    missing = [f"{name}={value}" for name, value in probe.arguments.items() if str(value).casefold() not in text]
    return Verdict(not missing, "missing " + ", ".join(missing) if missing else "every value is there")


def _pending(probe: PendingProbe, view: View) -> Verdict:
    name = probe.approval_id or probe.call_id
    if probe.approval_id is not None:
        approvals = [p.get("status") for _, kind, p in view.events
                     if kind == "approval" and p.get("approval_id") == probe.approval_id]
        opened, closed = "requested" in approvals, any(s in ("granted", "denied") for s in approvals)
    else:
        calls = [seq for seq, kind, p in view.events if kind == "tool_call" and p.get("call_id") == name]
        answers = [answer_status(kind, p.get("outcome")) for _, kind, p in view.events
                   if kind in ANSWERS and p.get("call_id") == name]
        closed = any(s in DEFINITE for s in answers)
        opened = bool(calls) and not closed
    in_summary = any(name in str(item.get("action", "")) for item in (view.summary or {}).get("pending", []))
    if closed:
        return Verdict(False, f"{name} shown answered")
    if not (opened or in_summary):
        return Verdict(False, f"{name} not shown open")
    return Verdict(True, "raw" if opened else "summary pending")


def _cited(value: Any, seq: int, text: str) -> bool:
    """Whether some object in value cites seq and has a string field containing text."""
    if isinstance(value, dict):
        if seq in (value.get("source_event_ids") or ()) and any(
                isinstance(v, str) and text in v.casefold() for v in value.values()):
            return True
        return any(_cited(v, seq, text) for v in value.values())
    if isinstance(value, list):
        return any(_cited(v, seq, text) for v in value)
    return False


def _constraint(probe: ConstraintProbe, view: View) -> Verdict:
    if any(seq == probe.seq for seq, _, _ in view.events):
        return Verdict(True, f"event #{probe.seq} raw")
    if _cited(view.summary, probe.seq, probe.text.casefold()):
        return Verdict(True, f"summary cites #{probe.seq}")
    return Verdict(False, f"event #{probe.seq} neither raw nor cited with {probe.text!r}")


def _evidence(probe: EvidenceProbe, view: View) -> Verdict:
    raw = {seq for seq, _, _ in view.events}
    missing = [seq for seq in probe.seqs if seq not in raw]
    return Verdict(not missing, f"not raw: {missing}" if missing else "all raw")


_JUDGES = {FactProbe: _fact, ToolStateProbe: _tool_state, NextCallProbe: _next_call, PendingProbe: _pending,
           ConstraintProbe: _constraint, EvidenceProbe: _evidence}
