"""The shipped trajectory suite (pgctx/evaluation/suite, written by scripts/generate_suite.py; docs/eval.md).

No database: these tests read the files. They check that the suite loads and is what the generator
writes, that it is large enough to need folding under the evaluation budget (a 4,096-token window,
512 reserved) yet never holds an event or a turn that cannot fit, and that its probes are fair: a
decision point comes right after a user message, a ``next_call`` value comes from earlier in the
conversation and never from the turn's own request, and a seq a probe cites was appended before the
decision. Seqs are replayed as the harness assigns them: per conversation, a branch continuing from
its fork point, a ``recover`` step appending one recovery event iff a call has no answer yet (since
the last recovery), and ``confirm_mainline`` appending one branch_merge event to the branch.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pgctx.messages import event_message
from pgctx.evaluation.probes import text_of
from pgctx.tokens import TokenCounter
from pgctx.evaluation.trajectory import (
    PROBE_CLASSES,
    ConfirmStep,
    DecisionStep,
    EventStep,
    ForkStep,
    RecoverStep,
    SwitchStep,
    Trajectory,
    load_all,
)

ROOT = Path(__file__).resolve().parent.parent
COUNTER = TokenCounter("o200k_base")
SUITE = load_all()
MAX_EVENT_TOKENS, MAX_TURN_TOKENS = 1000, 1600

by_id = pytest.mark.parametrize("trajectory", SUITE, ids=[t.id for t in SUITE])

History = list[tuple[int, str, dict[str, Any]]]  # (seq, kind, payload) as the conversation holds them


def tokens(kind: str, payload: dict[str, Any]) -> int:
    return COUNTER.message_tokens(event_message(kind, payload))


def model_text(kind: str, payload: dict[str, Any]) -> str:
    """What the model reads of an event, as the judge reads it (pgctx.evaluation.probes.text_of), lower-cased."""
    return text_of([event_message(kind, payload)]).lower()


@dataclass
class Line:
    """One conversation (main or a branch): its history and the calls still without an answer."""

    history: History = field(default_factory=list)
    unanswered: set[str] = field(default_factory=set)  # since the last recovery

    @property
    def next_seq(self) -> int:
        return self.history[-1][0] + 1 if self.history else 1


def replay(trajectory: Trajectory) -> tuple[dict[str, Line], list[tuple[DecisionStep, History]]]:
    """The steps replayed as the harness numbers them: every conversation's history, and each decision
    with the history of its conversation at that point. Fails on an event whose seq is missing or is
    not the one the harness would give it."""
    lines, current, decided = {"main": Line()}, "main", []
    for number, step in trajectory.steps:
        line = lines[current]
        if isinstance(step, EventStep):
            assert step.seq == line.next_seq, (
                f"{trajectory.path}, line {number}: seq {step.seq}, expected {line.next_seq}")
            line.history.append((step.seq, step.kind, step.payload))
            call_id = step.payload.get("call_id")
            if step.kind == "tool_call":
                line.unanswered.add(call_id)
            elif step.kind in ("tool_result", "status_query"):
                line.unanswered.discard(call_id)
        elif isinstance(step, RecoverStep):
            if line.unanswered:
                line.history.append((line.next_seq, "recovery", {}))
                line.unanswered.clear()
        elif isinstance(step, ForkStep):
            assert not line.unanswered, f"{trajectory.path}, line {number}: fork with a call still waiting"
            lines[step.branch] = Line(list(line.history), set())
        elif isinstance(step, SwitchStep):
            current = step.branch
        elif isinstance(step, ConfirmStep):
            confirmed = lines[step.branch]
            confirmed.history.append((confirmed.next_seq, "branch_merge", {}))
        elif isinstance(step, DecisionStep):
            decided.append((step, list(line.history)))
    return lines, decided


def decisions(trajectory: Trajectory) -> list[tuple[DecisionStep, History]]:
    return replay(trajectory)[1]


def test_suite_size_and_coverage():
    assert len(SUITE) >= 14
    classes = Counter(p.probe for t in SUITE for d in t.decisions for p in d.probes)
    assert sum(classes.values()) >= 300, classes
    assert set(classes) == set(PROBE_CLASSES), classes
    assert min(classes.values()) >= 20, f"every probe class well represented: {classes}"
    assert sum(len(t.events) for t in SUITE) <= 6000


def test_the_files_are_what_the_generator_writes():
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_suite.py"), "--check"],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr


@by_id
def test_sizes_need_folding_but_always_fit(trajectory: Trajectory):
    counts = [tokens(e.kind, e.payload) for e in trajectory.events]
    assert len(counts) >= 100
    assert sum(counts) >= 20_000
    assert max(counts) <= MAX_EVENT_TOKENS
    for name, line in replay(trajectory)[0].items():
        turn = 0  # the events from one user message up to the next, on this conversation
        for _, kind, payload in line.history:
            if kind == "user":
                turn = 0
            if kind not in ("recovery", "branch_merge"):  # the harness's own, a few tokens
                turn += tokens(kind, payload)
                assert turn <= MAX_TURN_TOKENS, f"{name}: a turn of over {MAX_TURN_TOKENS} tokens"


@by_id
def test_decision_points(trajectory: Trajectory):
    replayed = list(decisions(trajectory))  # also checks every seq
    assert 3 <= len(replayed) <= 8
    for decision, history in replayed:
        assert history[-1][1] == "user", f"{decision.id}: the agent acts on a user message"
        assert 2 <= len(decision.probes) <= 8, decision.id


@by_id
def test_next_call_values_come_from_earlier_in_the_conversation(trajectory: Trajectory):
    for decision, history in decisions(trajectory):
        request = history[-1][2]["text"].lower()
        earlier = "\n".join(model_text(kind, payload) for _, kind, payload in history[:-1])
        for probe in decision.probes:
            if probe.probe != "next_call":
                continue
            for name, value in probe.arguments.items():
                text = str(value).lower()
                assert text not in request, f"{decision.id}: {name}={value!r} is in the turn's own request"
                assert text in earlier, f"{decision.id}: {name}={value!r} appears nowhere before the request"


@by_id
def test_next_call_probes_name_a_call_the_agent_then_makes(trajectory: Trajectory):
    """The probe is the call the trajectory goes on to make (before the next user message): its
    arguments hold the probed values."""
    steps = [step for _, step in trajectory.steps]
    for i, decision in enumerate(steps):
        if not isinstance(decision, DecisionStep):
            continue
        made = []
        for step in steps[i + 1:]:
            if isinstance(step, SwitchStep) or (isinstance(step, EventStep) and step.kind == "user"):
                break
            if isinstance(step, EventStep) and step.kind == "tool_call":
                made.append((step.payload["tool"], {k: str(v) for k, v in step.payload["arguments"].items()}))
        for probe in decision.probes:
            if probe.probe == "next_call":
                wanted = {k: str(v) for k, v in probe.arguments.items()}
                assert any(tool == probe.tool and wanted.items() <= args.items() for tool, args in made), (
                    f"{decision.id}: no {probe.tool} call with {wanted} follows")


ANSWER_FIELDS_SKIPPED = {"call_id", "outcome", "request_id", "error", "idempotency_key", "authority"}


def flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted name, value) of every non-object value of a JSON object."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from flatten(v, f"{prefix}{k}.")
    else:
        yield prefix[:-1], value


def stated(history: History, key: str, subject: str | None) -> Any:
    """The newest value stated for ``key`` by the raw events (docs/eval.md, the fact probe)."""
    calls = {p["call_id"]: p for _, kind, p in history if kind == "tool_call"}
    pairs = [pair.strip().split("=", 1) for pair in subject.split(",")] if subject else []
    value = None
    for _, kind, payload in history:
        if kind in ("fact", "correction") and payload["key"] == key:
            trusted = payload.get("authority") != "model" and payload.get("confidence", "confirmed") == "confirmed"
            if trusted and (not subject or subject in payload.get("subject", "")):
                value = payload["value"]
        elif kind in ("tool_result", "status_query"):
            arguments = calls[payload["call_id"]]["arguments"]
            if not all(str(arguments.get(name)) == wanted for name, wanted in pairs):
                continue
            fields = {k: v for k, v in payload.items() if k not in ANSWER_FIELDS_SKIPPED}
            for name, v in flatten(fields):
                if name == key or name.rsplit(".", 1)[-1] == key:
                    value = v
    return value


def call_state(history: History, call_id: str) -> tuple[str, str | None]:
    """The newest status of a call (and its request id) by the raw events (docs/eval.md, tool_state)."""
    status, request_id = None, None
    for _, kind, payload in history:
        if kind == "tool_call" and payload["call_id"] == call_id:
            status = "running"
        elif kind == "recovery" and status == "running":
            status = "unknown"
        elif kind in ("tool_result", "status_query") and payload["call_id"] == call_id:
            outcome = payload["outcome"]
            definite = ("succeeded", "failed", "cancelled") if kind == "tool_result" else ("succeeded", "failed")
            status = "failed" if outcome == "not_performed" else outcome if outcome in definite else "unknown"
            request_id = payload.get("request_id")
    return status, request_id


@by_id
def test_the_full_history_passes_every_probe(trajectory: Trajectory):
    """An agent that kept everything has what every probe asks: values, statuses and open items are the
    ones the events state, not guesses."""
    for decision, history in decisions(trajectory):
        calls = {p["call_id"]: p for _, kind, p in history if kind == "tool_call"}
        for probe in decision.probes:
            where = f"{decision.id}: {probe.probe}"
            if probe.probe == "fact":
                assert stated(history, probe.key, probe.subject) == probe.value, f"{where} {probe.key}"
            elif probe.probe == "tool_state":
                call_id = probe.call_id or next(c for c, p in calls.items()
                                                if p.get("idempotency_key") == probe.idempotency_key)
                status, request_id = call_state(history, call_id)
                assert status == probe.status, f"{where} {call_id}: {status}"
                assert probe.request_id in (None, request_id), f"{where} {call_id}: request id {request_id}"
            elif probe.probe == "pending" and probe.call_id:
                assert call_state(history, probe.call_id)[0] in ("running", "unknown"), f"{where} {probe.call_id}"
            elif probe.probe == "pending":
                answers = [p["status"] for _, kind, p in history
                           if kind == "approval" and p["approval_id"] == probe.approval_id]
                assert answers[0] == "requested" and "granted" not in answers and "denied" not in answers, where


@by_id
def test_cited_seqs_were_appended_before_the_decision(trajectory: Trajectory):
    for decision, history in decisions(trajectory):
        events = {seq: (kind, payload) for seq, kind, payload in history}
        for probe in decision.probes:
            if probe.probe == "constraint":
                assert probe.seq in events, f"{decision.id}: constraint cites seq {probe.seq}"
                kind, payload = events[probe.seq]
                assert kind in ("user", "approval"), f"{decision.id}: seq {probe.seq} is a {kind}"
                assert probe.text.lower() in payload["text"].lower(), f"{decision.id}: {probe.text!r} at {probe.seq}"
            elif probe.probe == "evidence":
                missing = [s for s in probe.seqs if s not in events]
                assert not missing, f"{decision.id}: evidence seqs {missing} not on this conversation yet"


@by_id
def test_probed_calls_and_approvals_exist(trajectory: Trajectory):
    for decision, history in decisions(trajectory):
        calls = {p["call_id"]: p for _, kind, p in history if kind == "tool_call"}
        keys = {p.get("idempotency_key") for p in calls.values()}
        approvals = {p["approval_id"] for _, kind, p in history if kind == "approval"}
        for probe in decision.probes:
            if probe.probe in ("tool_state", "pending") and probe.call_id:
                assert probe.call_id in calls, f"{decision.id}: no call {probe.call_id}"
            if probe.probe == "tool_state" and probe.idempotency_key:
                assert probe.idempotency_key in keys, f"{decision.id}: no call with key {probe.idempotency_key}"
            if probe.probe == "pending" and probe.approval_id:
                assert probe.approval_id in approvals, f"{decision.id}: no approval {probe.approval_id}"


AUTHORED_KINDS = {"user", "assistant", "system", "tool_call", "tool_result", "approval", "correction", "fact",
                  "subtask_end", "topic_switch", "phase_change", "memory", "status_query", "permission",
                  "verification"}  # recovery and branch_merge events are the harness's


@by_id
def test_payload_conventions(trajectory: Trajectory):
    """Writes carry an idempotency key and, once succeeded, a request id; a status query asks by the call's
    key and names its authority; an approval scopes an earlier user message; call ids are unique."""
    effects = {t.tool: t.effect for t in trajectory.header.tools}
    calls: dict[str, dict[str, Any]] = {}
    for event in trajectory.events:
        p = event.payload
        assert event.kind in AUTHORED_KINDS, event.kind
        if event.kind == "tool_call":
            assert p["call_id"] not in calls, f"call id {p['call_id']} used twice"
            calls[p["call_id"]] = p
            if p.get("effect", effects[p["tool"]]) != "read":
                assert p.get("idempotency_key"), f"write call {p['call_id']} without an idempotency key"
        elif event.kind == "tool_result" and p["outcome"] == "succeeded":
            call = calls[p["call_id"]]
            if call.get("effect", effects[call["tool"]]) != "read":
                assert p.get("request_id"), f"succeeded write {p['call_id']} without a request id"
        elif event.kind == "status_query":
            assert p["idempotency_key"] == calls[p["call_id"]]["idempotency_key"] and p["authority"], p
    for line in replay(trajectory)[0].values():
        kinds = {seq: kind for seq, kind, _ in line.history}
        for seq, kind, p in line.history:
            if kind == "approval":
                assert kinds.get(p["scopes_event"]) == "user" and p["scopes_event"] < seq, p
