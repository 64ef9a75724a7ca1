"""Folds: validated summary checkpoints whose every rule is enforced in SQL (sql/070-150).

Every refusal is checked twice — through plain SQL (the psycopg error's SQLSTATE) and through
the Python API (the pgctx.errors class mapped to that SQLSTATE) — and after each attempt the
fold state, the verified points and the event log must be exactly as before.

The scripted conversation (``Story``): 1 user goal, 2 a tool call (idempotency key, order_id
10086), 3 its result (succeeded with a request id, failed with an error, cancelled, timeout, or
none yet), 4 an assistant reply, then an optional tail. ``Story.summary`` writes the summary
that passes every rule for it, so each refusal below changes exactly one thing, and checks
that the unchanged summary is accepted and that only the expected rule is reported.

Every test runs once per registered summary schema_version (the ``version`` fixture): every rule
holds for each, and ``Story.summary`` writes each version's shape. What only version 2 has
(bounded tool state, subjects, the user's words) is tested in tests/test_summary_v2.py.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import operator
from collections.abc import Callable
from dataclasses import dataclass

import psycopg
import pydantic
import pytest
from psycopg.types.json import Jsonb

import pgctx
from pgctx import errors
from pgctx.canonical import canonical_json
from pgctx.fold_procedures import CommittedFold
from pgctx.summary import MODELS, json_schema

CID = "order-10086"
VERSION = 1  # the schema_version under test, set by the ``version`` fixture
INSUFFICIENT_PRIVILEGE = "42501"
EVENT_TRIGGERS = ("events_chain", "events_refuse_change", "events_refuse_truncate")

# --------------------------------------------------------------------------------------------
# the scripted conversation and the summaries that pass every rule

GOAL = {"text": "please move the delivery of order 10086 to 2026-09-02"}
CALL = {
    "tool": "update_delivery_date",
    "call_id": "call-1",
    "idempotency_key": "k1",
    "arguments": {"order_id": "10086", "date": "2026-09-02"},
}
RESULTS = {
    "succeeded": {"call_id": "call-1", "outcome": "succeeded", "request_id": "req-abc", "slot": "morning"},
    "failed": {"call_id": "call-1", "outcome": "failed", "error": "carrier rejected the date"},
    "cancelled": {"call_id": "call-1", "outcome": "cancelled"},
    "timeout": {"call_id": "call-1", "outcome": "timeout"},
}
DERIVED = {"succeeded": "succeeded", "failed": "failed", "cancelled": "cancelled", "timeout": "unknown",
           None: "running"}

# appended after the first fold is committed (events 5..8 after BASE)
SECOND = (
    ("assistant", {"text": "maybe 2026-09-03 suits you better?"}),  # +1: the model only
    ("user", {"text": "no, make it 2026-09-05, in the afternoon"}),  # +2
    ("correction", {"delivery_date": "2026-09-05", "slot": "afternoon"}),  # +3
    ("assistant", {"text": "noted: 2026-09-05"}),  # +4
)
MODEL_AT, USER_AT, CORRECTION_AT = 1, 2, 3
MODEL_EVENT, USER_EVENT, CORRECTION_EVENT = 4 + MODEL_AT, 4 + USER_AT, 4 + CORRECTION_AT  # after BASE


def approval(approval_id: str, status: str, scopes_event: int | None = None) -> tuple[str, dict]:
    payload = {"approval_id": approval_id, "status": status}
    if scopes_event is not None:
        payload["scopes_event"] = scopes_event
    return ("approval", payload)


def fact(key: str, value, sources: list[int], authority: str = "user", **extra) -> dict:
    return {"key": key, "value": value, "confidence": "confirmed", "authority": authority,
            "source_event_ids": sources, "status": "active", **extra}


@dataclass(frozen=True)
class Story:
    """The scripted conversation with one outcome of the call (None: no result yet) and a tail."""

    outcome: str | None = "succeeded"
    tail: tuple[tuple[str, dict], ...] = ()

    def script(self) -> list[tuple[str, dict]]:
        events = [("user", GOAL), ("tool_call", CALL)]
        if self.outcome is not None:
            events.append(("tool_result", RESULTS[self.outcome]))
        events.append(("assistant", {"text": "I am on it"}))
        return events

    def events(self) -> list[tuple[str, dict]]:
        return [*self.script(), *self.tail]

    def summary(self, last: int | None = None) -> dict:
        """The summary of events 1..last (default: all) that passes every fold rule."""
        last = len(self.events()) if last is None else last
        status = DERIVED[self.outcome]
        sources = [2] if self.outcome is None else [2, 3]
        state = {"tool": CALL["tool"], "effect": "write", "status": status, "idempotency_key": "k1",
                 "source_event_ids": sources}
        for key in ("request_id", "error"):
            if key in RESULTS.get(self.outcome, {}):
                state[key] = RESULTS[self.outcome][key]
        facts = [fact("order_id", "10086", [1]), fact("delivery_date", "2026-09-02", [1])]
        if self.outcome == "succeeded":
            facts.append(fact("delivery_slot", "morning", [3], authority=CALL["tool"]))
        pending = []
        if status in ("running", "unknown"):
            pending.append({"action": "ask the carrier (key k1) whether the date changed", "blocking": True,
                            "source_event_ids": [2]})
        decisions = [{"decision": "use the carrier's API", "status": "active", "source_event_ids": [2]}]
        for seq, (kind, payload) in enumerate(self.events(), start=1):  # (no tail here answers one)
            if kind == "approval" and payload["status"] == "requested" and seq <= last:
                pending.append({"action": f"wait for approval {payload['approval_id']}", "blocking": True,
                                "source_event_ids": [seq]})
            if kind == "user" and seq > 1 and seq <= last:  # the user's requests are cited (PC120)
                decisions.append({"decision": f"the user said: {payload['text']}", "status": "active",
                                  "source_event_ids": [seq]})
        done = status not in ("running", "unknown")
        if VERSION >= 2:
            state["subject"] = "order_id=10086"
        summary = {
            "schema_version": VERSION,
            "task": {"goal": "move the delivery date", "status": status},
            "facts": facts,
            "decisions": decisions,
            "tool_state": {"call-1": state},
            "completed_actions": [{"action": "update the delivery date", "status": status,
                                   "source_event_ids": sources}] if done else [],
            "pending": pending,
            "constraints": ["never repeat call-1 without idempotency key k1"],
            "open_questions": [],
            "omitted_event_range": {"from": 1, "to": last},
            "last_event_id": last,
        }
        if VERSION >= 2:  # the goal cites its event; constraints and the user's words cite theirs
            summary["task"]["source_event_ids"] = [1]
            summary["constraints"] = [{"text": c, "source_event_ids": [2]} for c in summary["constraints"]]
            summary["user_requests"] = [{"text": GOAL["text"], "source_event_ids": [1]}]
        return summary


BASE = Story()


@pytest.fixture(autouse=True, params=sorted(MODELS), ids=lambda v: f"v{v}")
def version(request) -> int:
    global VERSION
    VERSION = request.param
    return VERSION


# The summaries below are weighed as 0 tokens (prepare_fold's client count): the scripted story is a
# few dozen tokens, which no summary can be smaller than, and the rule that a fold makes the
# context smaller (PC121) has its own tests (tests/test_fold_fidelity.py). Each rule here is
# tested apart from it.
TOKENS = 0


def prepare_fold(conn, cid, **fold) -> int:
    """pgctx.prepare_fold of the schema_version under test (unless the test names one)."""
    return pgctx.prepare_fold(conn, cid, **{"schema_version": VERSION, "tokens": TOKENS, **fold})


def fold_violations(conn, cid, **fold) -> list[tuple[str, str]]:
    return pgctx.fold_violations(conn, cid, **{"schema_version": VERSION, "tokens": TOKENS, **fold})


def valid_summary(outcome: str | None = "succeeded", tail: tuple = (), last: int | None = None) -> dict:
    """The correct summary of the scripted conversation (see Story)."""
    return Story(outcome, tail).summary(last)


def second_summary(story: Story = BASE) -> dict:
    """The correct summary after SECOND is appended to ``story``, on top of its committed fold."""
    n = len(story.events())
    summary = story.summary(last=n + len(SECOND))
    facts = {f["key"]: f for f in summary["facts"]}
    facts["delivery_date"].update(value="2026-09-05", previous_value="2026-09-02",
                                  source_event_ids=[n + USER_AT, n + CORRECTION_AT])
    # the user's request of the range is cited apart from the fact it set (PC120), so a test may
    # change the fact's sources alone
    summary["decisions"].append({"decision": "the user asked for 2026-09-05, in the afternoon", "status": "active",
                                 "source_event_ids": [n + USER_AT]})
    return summary


DROP = object()


def edit(*path, value=DROP) -> Callable[[dict], dict]:
    """A mutation: a copy of the summary with the item at ``path`` replaced (or dropped)."""

    def apply(summary: dict) -> dict:
        changed = copy.deepcopy(summary)
        *parents, last = path
        target = functools.reduce(operator.getitem, parents, changed)
        if value is DROP:
            del target[last]
        else:
            target[last] = value
        return changed

    return apply


def fact_edit(key: str, **changes) -> Callable[[dict], dict]:
    def apply(summary: dict) -> dict:
        changed = copy.deepcopy(summary)
        next(f for f in changed["facts"] if f["key"] == key).update(changes)
        return changed

    return apply


# --------------------------------------------------------------------------------------------
# database helpers


def append(conn, events) -> list[int]:
    return pgctx.append_many(conn, CID, [{"kind": k, "payload": p} for k, p in events])


@pytest.fixture
def tell(conn):
    """tell(story) appends the story's events to CID and returns the story."""

    def _tell(story: Story) -> Story:
        assert append(conn, story.events()) == list(range(1, len(story.events()) + 1))
        return story

    return _tell


@pytest.fixture
def convo(tell) -> Story:
    return tell(BASE)


def fold_first(conn, story: Story, then: tuple = SECOND) -> None:
    """Commit version 1 = story.summary() over the story's events, then append ``then``."""
    n = len(story.events())
    version = prepare_fold(conn, CID, expected_version=0, expected_cursor=0, new_cursor=n,
                                 summary=story.summary())
    assert pgctx.commit_fold(conn, CID, version) == n
    if then:
        assert append(conn, then) == list(range(n + 1, n + 1 + len(then)))


@pytest.fixture
def folded(conn, convo) -> psycopg.Connection:
    """Version 1 (events 1..4, BASE.summary()) committed; then events 5..8 (SECOND) appended."""
    fold_first(conn, convo)
    return conn


SNAPSHOT = {
    "checkpoints": "SELECT to_jsonb(k) FROM pgctx.checkpoints k ORDER BY conversation_id, version",
    "fold_heads": "SELECT to_jsonb(h) FROM pgctx.fold_heads h ORDER BY conversation_id",
    "verified_points": "SELECT to_jsonb(v) FROM pgctx.verified_points v ORDER BY conversation_id",
    "events": "SELECT conversation_id, seq, kind, payload, prev_hash, hash FROM pgctx.events"
              " ORDER BY conversation_id, seq",
    "conversations": "SELECT conversation_id, head_seq, head_hash FROM pgctx.conversations ORDER BY 1",
}


def snapshot(conn) -> dict[str, list]:
    """Everything a refused fold operation might have changed (read as the superuser)."""
    return {name: conn.execute(query).fetchall() for name, query in SNAPSHOT.items()}


def assert_refused(conn, code: str, *attempts: Callable[[], object]) -> list[Exception]:
    """Each attempt fails with SQLSTATE ``code`` and leaves ``snapshot(conn)`` unchanged.

    A psycopg error must carry the code; a pgctx error must be exactly the class mapped to it,
    raised from the psycopg error.
    """
    before = snapshot(conn)
    raised = []
    for attempt in attempts:
        with pytest.raises((psycopg.Error, errors.PgctxError)) as info:
            attempt()
        exc = info.value
        if isinstance(exc, errors.PgctxError):
            assert type(exc) is errors.BY_SQLSTATE[code], f"{type(exc).__name__}: {exc}"
            assert exc.__cause__ is not None and exc.__cause__.sqlstate == code
        assert exc.sqlstate == code, f"{exc.sqlstate}: {exc}"
        assert snapshot(conn) == before, "a refused operation changed the state"
        raised.append(exc)
    return raised


def prepare_sql(conn, *, expected_version, expected_cursor, new_cursor, summary, schema_version=None) -> int:
    return conn.execute(
        "SELECT pgctx.prepare_fold(%s, %s, %s, %s, %s, %s, tokens => %s)",
        (CID, expected_version, expected_cursor, new_cursor, Jsonb(summary), schema_version or VERSION, TOKENS),
    ).fetchone()[0]


def head(conn) -> tuple[int, int]:
    """The committed (version, cursor) of CID; (0, 0) before the first fold."""
    row = conn.execute("SELECT version, cursor FROM pgctx.fold_heads WHERE conversation_id = %s", (CID,)).fetchone()
    return tuple(row) if row else (0, 0)


def violations_sql(conn, *, new_cursor, summary, schema_version=None) -> list[tuple[str, str]]:
    version, cursor = head(conn)
    return conn.execute(
        "SELECT sqlstate, message FROM pgctx.fold_violations(%s, %s, %s, %s, %s, %s, %s)",
        (CID, version, cursor, new_cursor, Jsonb(summary), schema_version or VERSION, TOKENS),
    ).fetchall()


def violations(conn, *, new_cursor, summary) -> list[tuple[str, str]]:
    """fold_violations against the committed fold, through SQL and Python (which must agree)."""
    version, cursor = head(conn)
    through_sql = [tuple(v) for v in violations_sql(conn, new_cursor=new_cursor, summary=summary)]
    through_python = fold_violations(conn, CID, base_version=version, base_cursor=cursor,
                                           new_cursor=new_cursor, summary=summary)
    assert through_python == through_sql
    return through_sql


def assert_prepare_refused(conn, code: str, *, only: bool = True, **fold) -> list[Exception]:
    """prepare_fold(**fold) is refused with ``code`` through SQL and Python, changing nothing.

    ``only``: fold_violations names this rule and no other (the candidate breaks one rule).
    """
    raised = assert_refused(conn, code, lambda: prepare_sql(conn, **fold),
                            lambda: prepare_fold(conn, CID, **fold))
    if only:
        codes = {c for c, _ in violations(conn, new_cursor=fold["new_cursor"], summary=fold["summary"])}
        assert codes == {code}
    return raised


def assert_mutation_refused(conn, code: str, good: dict, mutate: Callable[[dict], dict]) -> list[Exception]:
    """The good summary (up to its last_event_id) is acceptable; the mutated one is refused with
    ``code`` (only)."""
    version, cursor = head(conn)
    new_cursor = good["last_event_id"]
    assert violations(conn, new_cursor=new_cursor, summary=good) == []
    bad = mutate(good)
    assert bad != good
    return assert_prepare_refused(conn, code, expected_version=version, expected_cursor=cursor,
                                  new_cursor=new_cursor, summary=bad)


def python_checksum(cursor: int, chain_hash: bytes, summary: dict) -> bytes:
    document = {"schema_version": VERSION, "cursor": cursor, "chain_hash": chain_hash.hex(), "summary": summary}
    return hashlib.sha256(b"pgctx:checkpoint:v1" + canonical_json(document).encode()).digest()


def assert_committed(conn, version: int, cursor: int, summary: dict) -> None:
    """Checkpoint ``version`` is COMMITTED with a correct checksum and is the conversation's fold."""
    phase, stored_cursor, chain_hash, checksum, recomputed, stored = conn.execute(
        "SELECT phase, cursor, chain_hash, checksum,"
        " pgctx.checkpoint_checksum(schema_version, cursor, chain_hash, summary), summary"
        " FROM pgctx.checkpoints WHERE conversation_id = %s AND version = %s", (CID, version)).fetchone()
    event_hash = conn.execute("SELECT hash FROM pgctx.events WHERE conversation_id = %s AND seq = %s",
                              (CID, cursor)).fetchone()[0]
    assert (phase, stored_cursor, stored) == ("COMMITTED", cursor, summary)
    assert chain_hash == event_hash
    assert checksum == recomputed == python_checksum(cursor, chain_hash, summary)
    assert conn.execute("SELECT version, cursor, checksum FROM pgctx.fold_heads WHERE conversation_id = %s",
                        (CID,)).fetchone() == (version, cursor, checksum)
    assert committed_fold(conn) == CommittedFold(version, cursor, summary)


def committed_fold(conn) -> CommittedFold:
    """The committed fold through SQL (pgctx.committed_fold) and Python, which must agree."""
    through_sql = conn.execute("SELECT version, cursor, summary FROM pgctx.committed_fold(%s)", (CID,)).fetchone()
    through_python = pgctx.committed_fold(conn, CID)
    assert through_python == CommittedFold(*through_sql)
    return through_python


def phase_of(conn, version: int) -> tuple[str, str | None]:
    return conn.execute("SELECT phase, discard_reason FROM pgctx.checkpoints WHERE conversation_id = %s"
                        " AND version = %s", (CID, version)).fetchone()


def tamper(conn, seq: int, change: str = "payload = payload || '{\"tampered\": true}'") -> None:
    """As a superuser past the guards: rewrite one event (its payload), then restore the guards."""
    conn.execute("ALTER TABLE pgctx.events DISABLE TRIGGER USER")
    try:
        conn.execute(f"UPDATE pgctx.events SET {change} WHERE conversation_id = %s AND seq = %s", (CID, seq))
    finally:
        for trigger in EVENT_TRIGGERS:
            conn.execute(f"ALTER TABLE pgctx.events ENABLE ALWAYS TRIGGER {trigger}")
    states = conn.execute("SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'pgctx.events'::regclass"
                          " AND NOT tgisinternal").fetchall()
    assert dict(states) == dict.fromkeys(EVENT_TRIGGERS, "A")
    assert not pgctx.verify(conn, CID).ok


# --------------------------------------------------------------------------------------------
# 1. the registered schema is the model's


def test_registered_schema_is_the_model_schema(conn):
    registered = conn.execute("SELECT schema FROM pgctx.summary_schemas WHERE schema_version = %s",
                              (VERSION,)).fetchone()[0]
    assert registered == json.loads(json.dumps(json_schema(VERSION)))


def test_the_test_summaries_are_valid_for_the_model():
    for summary in (BASE.summary(), second_summary(), valid_summary("failed"), valid_summary(None)):
        MODELS[VERSION].model_validate_json(json.dumps(summary), strict=True)


# --------------------------------------------------------------------------------------------
# 2. a valid fold, and a second one on top


def test_prepare_commit_and_fold_again(conn, convo):
    first = BASE.summary()
    assert violations(conn, new_cursor=4, summary=first) == []
    assert prepare_sql(conn, expected_version=0, expected_cursor=0, new_cursor=4, summary=first) == 1
    assert phase_of(conn, 1) == ("PREPARED", None)
    assert head(conn) == (0, 0), "preparing does not move the committed fold"
    assert committed_fold(conn) == CommittedFold(0, 0, None)

    assert conn.execute("SELECT pgctx.commit_fold(%s, 1)", (CID,)).fetchone()[0] == 4
    assert_committed(conn, 1, 4, first)

    append(conn, SECOND)
    second = second_summary()
    assert violations(conn, new_cursor=8, summary=second) == []
    version = prepare_fold(conn, CID, expected_version=1, expected_cursor=4, new_cursor=8, summary=second,
                                 summarizer="test-model")
    assert version == 2
    assert pgctx.commit_fold(conn, CID, version) == 8
    assert_committed(conn, 2, 8, second)
    assert phase_of(conn, 1) == ("COMMITTED", None), "an older commit stays COMMITTED"
    history = conn.execute("SELECT version, phase, is_committed_fold, base_version, range_from, range_to, summarizer"
                           " FROM pgctx.fold_history WHERE conversation_id = %s ORDER BY version", (CID,)).fetchall()
    assert history == [(1, "COMMITTED", False, 0, 1, 4, None), (2, "COMMITTED", True, 1, 5, 8, "test-model")]
    status = conn.execute("SELECT committed_version, committed_cursor, unfolded_events, prepared_folds"
                          " FROM pgctx.conversation_status WHERE conversation_id = %s", (CID,)).fetchone()
    assert status == (2, 8, 0, 0)


@pytest.mark.parametrize("change", [{}, {"value": None}], ids=["model", "model with a null fact value"])
def test_python_api_accepts_the_pydantic_model(conn, convo, change):
    # Fact.value may be null (Scalar includes None) but is required by the schema
    summary = fact_edit("delivery_slot", **change)(BASE.summary())
    model = MODELS[VERSION].model_validate(summary)
    version = prepare_fold(conn, CID, expected_version=0, expected_cursor=0, new_cursor=4, summary=model)
    assert pgctx.commit_fold(conn, CID, version) == 4
    stored = committed_fold(conn).summary
    assert MODELS[VERSION].model_validate(stored) == model
    assert_committed(conn, version, 4, stored)


# --------------------------------------------------------------------------------------------
# 3. each refusal of prepare_fold


@pytest.mark.parametrize("expected_version", [1, 2, -1])
def test_pc100_expected_version_is_not_the_committed_one(conn, convo, expected_version):
    exc, _ = assert_prepare_refused(conn, "PC100", only=False, expected_version=expected_version,
                                    expected_cursor=0, new_cursor=4, summary=BASE.summary())
    assert "version 0" in str(exc)


def test_pc100_after_someone_else_committed(conn, dsn, convo):
    with psycopg.connect(dsn, autocommit=True) as other:
        version = prepare_fold(other, CID, expected_version=0, expected_cursor=0, new_cursor=4,
                                     summary=BASE.summary())
        pgctx.commit_fold(other, CID, version)
    assert_prepare_refused(conn, "PC100", only=False, expected_version=0, expected_cursor=0, new_cursor=4,
                           summary=BASE.summary())
    assert_committed(conn, 1, 4, BASE.summary())


@pytest.mark.parametrize("committed, expected_cursor", [(False, 1), (False, 4), (True, 0), (True, 3), (True, 5)],
                         ids=["1 on nothing", "4 on nothing", "0 on 4", "3 on 4", "5 on 4"])
def test_pc101_expected_cursor_is_not_the_committed_cursor(request, conn, convo, committed, expected_cursor):
    if committed:
        request.getfixturevalue("folded")
    summary = second_summary() if committed else BASE.summary()
    assert_prepare_refused(conn, "PC101", only=False, expected_version=head(conn)[0],
                           expected_cursor=expected_cursor, new_cursor=summary["last_event_id"], summary=summary)


@pytest.mark.parametrize("committed", [False, True], ids=["nothing folded", "version 1 committed"])
@pytest.mark.parametrize("behind", [0, 1])
def test_pc101_empty_range(request, conn, convo, committed, behind):
    if committed:
        request.getfixturevalue("folded")
    version, cursor = head(conn)
    new_cursor = cursor - behind
    summary = BASE.summary(last=max(new_cursor, 1))
    assert_prepare_refused(conn, "PC101", expected_version=version, expected_cursor=cursor,
                           new_cursor=new_cursor, summary=summary)


def test_pc102_new_cursor_beyond_head(conn, convo):
    assert_prepare_refused(conn, "PC102", expected_version=0, expected_cursor=0, new_cursor=5,
                           summary=BASE.summary(last=5))


def test_pc103_boundary_splits_a_tool_call_from_its_result(conn, convo):
    # events 1..2 summarized correctly as of seq 2 (the call running), but its result exists at seq 3
    as_of_2 = valid_summary(None, last=2)
    assert_prepare_refused(conn, "PC103", expected_version=0, expected_cursor=0, new_cursor=2, summary=as_of_2)
    assert prepare_fold(conn, CID, expected_version=0, expected_cursor=0, new_cursor=3,
                              summary=BASE.summary(last=3)) == 1


@pytest.mark.parametrize(
    "tail, boundary",
    [
        ((approval("ap-1", "granted", scopes_event=1),), 4),  # approval (5) after the boundary, goal (1) before
        ((approval("ap-1", "granted", scopes_event=6), ("user", {"text": "also refund the fee"})), 5),  # reversed
    ],
    ids=["approval after the boundary", "goal after the boundary"],
)
def test_pc103_boundary_splits_an_approval_from_its_goal(conn, tell, tail, boundary):
    story = tell(Story(tail=tail))
    assert_prepare_refused(conn, "PC103", expected_version=0, expected_cursor=0, new_cursor=boundary,
                           summary=story.summary(last=boundary))
    whole = story.summary()
    assert violations(conn, new_cursor=whole["last_event_id"], summary=whole) == []


def test_fold_violations_reports_a_split_approval_once(conn, tell):
    story = tell(Story(tail=(approval("ap-1", "granted", scopes_event=1),)))
    found = violations(conn, new_cursor=4, summary=story.summary(last=4))
    assert len(found) == 1, found


PC104_MUTATIONS = {
    "missing required field": edit("constraints"),
    "missing nested required field": edit("task", "goal"),
    "wrong type": edit("last_event_id", value="4"),
    "wrong type in a list": edit("facts", 0, "source_event_ids", value=["1"]),
    "task.status not in enum": edit("task", "status", value="done"),
    "extra property": edit("notes", value="remember the dog"),
    "extra property in a fact": edit("facts", 0, "note", value="x"),
    "tool_state status not in enum": edit("tool_state", "call-1", "status", value="maybe"),
    "schema_version const": lambda s: edit("schema_version", value=VERSION + 1)(s),
    "fact value not a scalar": edit("facts", 0, "value", value={"id": "10086"}),
}


@pytest.mark.parametrize("mutate", PC104_MUTATIONS.values(), ids=PC104_MUTATIONS.keys())
def test_pc104_schema_violation(conn, convo, mutate):
    (exc, _) = assert_mutation_refused(conn, "PC104", BASE.summary(), mutate)
    assert f"schema_version {VERSION}" in str(exc)
    with pytest.raises(pydantic.ValidationError):  # the model agrees
        MODELS[VERSION].model_validate_json(json.dumps(mutate(BASE.summary())), strict=True)


def test_pc105_unknown_schema_version(conn, convo):
    exc, _ = assert_prepare_refused(conn, "PC105", only=False, expected_version=0, expected_cursor=0,
                                    new_cursor=4, summary=BASE.summary(), schema_version=99)
    assert "99" in str(exc)
    with pytest.raises(psycopg.Error) as info:
        violations_sql(conn, new_cursor=4, summary=BASE.summary(), schema_version=99)
    assert info.value.sqlstate == "PC105"


PC106_MUTATIONS = {
    "fact without sources": edit("facts", 0, "source_event_ids", value=[]),
    "completed action without sources": edit("completed_actions", 0, "source_event_ids", value=[]),
    "fact citing an event beyond the new cursor": edit("facts", 0, "source_event_ids", value=[1, 5]),
    "fact citing event 0": edit("facts", 0, "source_event_ids", value=[0]),
    "decision citing an event beyond the new cursor": edit("decisions", 0, "source_event_ids", value=[6]),
    "tool state citing a negative event": edit("tool_state", "call-1", "source_event_ids", value=[-2, 3]),
}


@pytest.mark.parametrize("mutate", PC106_MUTATIONS.values(), ids=PC106_MUTATIONS.keys())
def test_pc106_source_coverage(conn, tell, mutate):
    # events 5 and 6 exist, but the fold stops at 4
    tell(Story(tail=(("assistant", {"text": "anything else?"}), ("user", {"text": "no"}))))
    assert_mutation_refused(conn, "PC106", BASE.summary(last=4), mutate)


PC107_CASES = {
    "timeout summarized as succeeded": ("timeout", edit("tool_state", "call-1", "status", value="succeeded")),
    "timeout summarized as failed": ("timeout", edit("tool_state", "call-1", "status", value="failed")),
    **{f"failure summarized as {s}": ("failed", edit("tool_state", "call-1", "status", value=s))
       for s in ("succeeded", "unknown", "cancelled", "running", "planned")},
    "success summarized as failed": ("succeeded", edit("tool_state", "call-1", "status", value="failed")),
    "running call summarized as succeeded": (None, edit("tool_state", "call-1", "status", value="succeeded")),
    "succeeded call that does not exist": ("succeeded", edit("tool_state", "call-9", value={
        "tool": "refund", "effect": "write", "status": "succeeded", "request_id": "req-zzz",
        "source_event_ids": [2]})),
    "write summarized as a read": ("succeeded", edit("tool_state", "call-1", "effect", value="read")),
    "completed action succeeded citing a failed call": (
        "failed", edit("completed_actions", 0, "status", value="succeeded")),
}


@pytest.mark.parametrize("outcome, mutate", PC107_CASES.values(), ids=PC107_CASES.keys())
def test_pc107_tool_state_contradicts_the_events(conn, tell, outcome, mutate):
    story = tell(Story(outcome))
    assert_mutation_refused(conn, "PC107", story.summary(), mutate)


def drop_identifier(summary: dict) -> dict:
    """The summary without order 10086 anywhere (a fact; for version 2 also the call's subject and
    the user's words)."""
    changed = edit("facts", 0)(summary)
    changed["tool_state"]["call-1"].pop("subject", None)
    if "user_requests" in changed:
        changed["user_requests"] = []
    return changed


PC108_CASES = {
    "call missing from tool_state": ("succeeded", (), edit("tool_state", "call-1")),
    "request_id of the successful write missing": ("succeeded", (), edit("tool_state", "call-1", "request_id")),
    "request_id of the successful write changed": (
        "succeeded", (), edit("tool_state", "call-1", "request_id", value="req-abd")),
    "failure reason dropped": ("failed", (), edit("tool_state", "call-1", "error")),
    "failure reason changed": ("failed", (), edit("tool_state", "call-1", "error", value="it failed")),
    "identifier 10086 appears nowhere": ("succeeded", (), lambda s: drop_identifier(s)),
    "unanswered approval not pending": ("succeeded", (approval("ap-1", "requested"),), edit("pending", value=[])),
    "running call not pending": (None, (), edit("pending", value=[])),
    "unknown (timed out) call not pending": ("timeout", (), edit("pending", value=[])),
    "pending cites the wrong event": (None, (), edit("pending", 0, "source_event_ids", value=[3])),
    "omitted range not from 1": ("succeeded", (), edit("omitted_event_range", value={"from": 2, "to": 4})),
    "omitted range short": ("succeeded", (), edit("omitted_event_range", value={"from": 1, "to": 3})),
    "wrong last_event_id": ("succeeded", (), edit("last_event_id", value=3)),
}


@pytest.mark.parametrize("outcome, tail, mutate", PC108_CASES.values(), ids=PC108_CASES.keys())
def test_pc108_must_keep_missing(conn, tell, outcome, tail, mutate):
    story = tell(Story(outcome, tail))
    assert_mutation_refused(conn, "PC108", story.summary(), mutate)


SECOND_FOLD_CASES = {
    "drops a call the previous summary tracked": ("PC108", edit("tool_state", "call-1")),
    "changes a tracked call without an answer": ("PC107", edit("tool_state", "call-1", "status", value="unknown")),
    # carried calls are re-derived from the events: the request id is a must-keep item
    "changes a tracked request id without an answer": (
        "PC108", edit("tool_state", "call-1", "request_id", value="req-new")),
    "wrong omitted range": ("PC108", edit("omitted_event_range", value={"from": 5, "to": 8})),
}


@pytest.mark.parametrize("code, mutate", SECOND_FOLD_CASES.values(), ids=SECOND_FOLD_CASES.keys())
def test_second_fold_keeps_what_the_first_tracked(folded, code, mutate):
    assert_mutation_refused(folded, code, second_summary(), mutate)


UNRESOLVED = {
    "unanswered approval": Story(tail=(approval("ap-1", "requested"),)),
    "call of unknown outcome": Story("timeout"),
    "running call": Story(None),
}


@pytest.mark.parametrize("story", UNRESOLVED.values(), ids=UNRESOLVED.keys())
def test_second_fold_keeps_what_is_still_unresolved_pending(conn, tell, story):
    # still unanswered at the second fold's cursor: the cumulative summary must keep it pending
    fold_first(conn, tell(story))
    assert_mutation_refused(conn, "PC108", second_summary(story), edit("pending", value=[]))


def test_recovery_turns_a_tracked_running_call_unknown(conn, tell):
    # version 1 tracks call-1 as running; recovery then appends a `recovery` event, after which
    # the derived status is unknown: the next fold must say unknown, and may not keep "running"
    story = tell(Story(None))
    fold_first(conn, story, then=())
    assert pgctx.recover(conn, CID)["recovery_event_seq"] == 4
    assert derived_calls(conn)["call-1"][0] == "unknown"
    # the agent's next words, so the fold has something to fold (a lone recovery event is no
    # smaller folded: PC121)
    append(conn, [("assistant", {"text": "the restart interrupted the carrier call: asking the carrier by key k1"})])
    unknown = edit("tool_state", "call-1", "status", value="unknown")(story.summary(last=5))
    unknown["decisions"].append({"decision": "ask the carrier by key k1", "status": "active", "source_event_ids": [5]})
    assert_mutation_refused(conn, "PC107", unknown, edit("tool_state", "call-1", "status", value="running"))


@pytest.mark.parametrize("key, value", [("delivery_date", "2026-09-07"), ("delivery_slot", "afternoon")],
                         ids=["fact confirmed by the user", "fact confirmed by a tool"])
@pytest.mark.parametrize("cited, accepted", [
    ("old", False), (MODEL_EVENT, False), (USER_EVENT, True), (CORRECTION_EVENT, True),
], ids=["citing its old event", "citing a model event", "citing a new user event", "citing a new correction"])
def test_pc109_confirmed_fact_overridden(folded, key, value, cited, accepted):
    old = next(f for f in BASE.summary()["facts"] if f["key"] == key)
    assert old["confidence"] == "confirmed" and old["authority"] != "model"
    sources = old["source_event_ids"] if cited == "old" else [cited]
    summary = fact_edit(key, value=value, source_event_ids=sources)(second_summary())
    fold = {"expected_version": 1, "expected_cursor": 4, "new_cursor": 8, "summary": summary}
    if accepted:
        version = prepare_fold(folded, CID, **fold)
        assert pgctx.commit_fold(folded, CID, version) == 8
        assert_committed(folded, version, 8, summary)
    else:
        assert_prepare_refused(folded, "PC109", **fold)


def test_pc109_does_not_bind_what_the_model_inferred(conn, convo):
    inferred = fact_edit("delivery_slot", authority="model", confidence="inferred")
    version = prepare_fold(conn, CID, expected_version=0, expected_cursor=0, new_cursor=4,
                                 summary=inferred(BASE.summary()))
    pgctx.commit_fold(conn, CID, version)
    append(conn, SECOND)
    changed = fact_edit("delivery_slot", value="evening", source_event_ids=[MODEL_EVENT])(inferred(second_summary()))
    assert violations(conn, new_cursor=8, summary=changed) == []


@pytest.mark.parametrize("committed", [False, True], ids=["first fold", "second fold"])
def test_pc110_chain_broken_inside_the_range(request, conn, convo, committed):
    if committed:
        request.getfixturevalue("folded")
        tamper(conn, 6)
        fold = {"expected_version": 1, "expected_cursor": 4, "new_cursor": 8, "summary": second_summary()}
    else:
        tamper(conn, 2)
        fold = {"expected_version": 0, "expected_cursor": 0, "new_cursor": 4, "summary": BASE.summary()}
    exc, _ = assert_prepare_refused(conn, "PC110", only=False, **fold)
    assert f"seq {6 if committed else 2}" in str(exc)


def test_pc110_tamper_after_recovery_verified_the_range(folded):
    # recovery verifies 1..8 and remembers seq 8; an event of 5..8 rewritten afterwards (stored
    # hashes untouched) is inside the next fold's range, so that fold must still refuse
    pgctx.recover(folded, CID)
    assert folded.execute("SELECT seq FROM pgctx.verified_points").fetchone() == (8,)
    tamper(folded, 6)
    assert_prepare_refused(folded, "PC110", only=False, expected_version=1, expected_cursor=4, new_cursor=8,
                           summary=second_summary())


def test_commit_refuses_when_the_chain_hash_at_the_cursor_changed(phases):
    tamper(phases, 8, change="hash = sha256(hash)")
    exc, _ = assert_refused(phases, "PC110", lambda: phases.execute("SELECT pgctx.commit_fold(%s, 2)", (CID,)),
                            lambda: pgctx.commit_fold(phases, CID, 2))
    assert "seq 8" in str(exc)


def test_a_break_after_the_range_does_not_block_a_fold(conn, tell):
    tell(Story(tail=SECOND))
    tamper(conn, 7)
    version = prepare_fold(conn, CID, expected_version=0, expected_cursor=0, new_cursor=4,
                                 summary=BASE.summary(last=4))
    assert pgctx.commit_fold(conn, CID, version) == 4
    assert_committed(conn, version, 4, BASE.summary(last=4))


# --------------------------------------------------------------------------------------------
# 4. fold_violations lists every problem


def test_fold_violations_lists_every_problem(conn, tell):
    story = tell(Story(tail=(approval("ap-1", "granted", scopes_event=1),)))
    good = story.summary(last=4)
    assert violations(conn, new_cursor=5, summary=story.summary()) == []
    bad = edit("facts", 1, "source_event_ids", value=[])(good)  # PC106
    bad = edit("tool_state", "call-1", "status", value="failed")(bad)  # PC107
    bad = edit("last_event_id", value=3)(bad)  # PC108
    found = violations(conn, new_cursor=4, summary=bad)
    assert {c for c, _ in found} == {"PC103", "PC106", "PC107", "PC108"}
    messages = "\n".join(m for _, m in found)
    for needle in ("splits approval (seq 5)", "facts[1] (delivery_date) has no source_event_ids",
                   "tool_state[call-1] says failed but the events say succeeded", "last_event_id must be 4"):
        assert needle in messages
    exc, python_exc = assert_prepare_refused(conn, found[0][0], only=False, expected_version=0,
                                             expected_cursor=0, new_cursor=4, summary=bad)
    expected_detail = "\n".join(f"{c}: {m}" for c, m in found)
    assert exc.diag.message_detail == expected_detail
    assert python_exc.detail == expected_detail


def test_fold_violations_is_empty_for_a_valid_candidate(folded):
    assert violations(folded, new_cursor=8, summary=second_summary()) == []
    up_to_6 = fact_edit("delivery_date", source_event_ids=[USER_EVENT])(second_summary())
    up_to_6.update(omitted_event_range={"from": 1, "to": 6}, last_event_id=6)
    assert violations(folded, new_cursor=6, summary=up_to_6) == []


# --------------------------------------------------------------------------------------------
# 5. phases


@pytest.fixture
def phases(folded) -> psycopg.Connection:
    """Version 1 COMMITTED (1..4), version 2 PREPARED (5..8), version 3 DISCARDED (5..8)."""
    for expected in (2, 3):
        assert prepare_fold(folded, CID, expected_version=1, expected_cursor=4, new_cursor=8,
                                  summary=second_summary()) == expected
    pgctx.discard_fold(folded, CID, 3, "a human preferred version 2")
    assert [phase_of(folded, v)[0] for v in (1, 2, 3)] == ["COMMITTED", "PREPARED", "DISCARDED"]
    return folded


COPY_COLUMNS = "base_version, base_cursor, cursor, chain_hash, schema_version, summary, checksum"
PHASE_REFUSALS = {
    "insert COMMITTED": ("PC112", f"INSERT INTO pgctx.checkpoints (conversation_id, version, phase, decided_at,"
                                  f" {COPY_COLUMNS}) SELECT conversation_id, 9, 'COMMITTED', now(), {COPY_COLUMNS}"
                                  " FROM pgctx.checkpoints WHERE version = 2"),
    "insert DISCARDED": ("PC112", f"INSERT INTO pgctx.checkpoints (conversation_id, version, phase, decided_at,"
                                  f" discard_reason, {COPY_COLUMNS}) SELECT conversation_id, 9, 'DISCARDED', now(),"
                                  f" 'x', {COPY_COLUMNS} FROM pgctx.checkpoints WHERE version = 2"),
    "insert PREPARED with a wrong checksum": (
        "PC112", "INSERT INTO pgctx.checkpoints (conversation_id, version, phase, base_version, base_cursor, cursor,"
                 " chain_hash, schema_version, summary, checksum) SELECT conversation_id, 9, 'PREPARED',"
                 " base_version, base_cursor, cursor, chain_hash, schema_version,"
                 " summary || '{\"constraints\": []}', checksum FROM pgctx.checkpoints WHERE version = 2"),
    "COMMITTED -> PREPARED": ("PC112", "UPDATE pgctx.checkpoints SET phase = 'PREPARED', decided_at = NULL"
                                       " WHERE version = 1"),
    "COMMITTED -> DISCARDED": ("PC112", "UPDATE pgctx.checkpoints SET phase = 'DISCARDED', discard_reason = 'x'"
                                        " WHERE version = 1"),
    "DISCARDED -> COMMITTED": ("PC112", "UPDATE pgctx.checkpoints SET phase = 'COMMITTED', discard_reason = NULL"
                                        " WHERE version = 3"),
    "DISCARDED -> PREPARED": ("PC112", "UPDATE pgctx.checkpoints SET phase = 'PREPARED', decided_at = NULL,"
                                       " discard_reason = NULL WHERE version = 3"),
    "PREPARED -> PREPARED": ("PC112", "UPDATE pgctx.checkpoints SET summarizer = 'me' WHERE version = 2"),
    "summary of a COMMITTED checkpoint changed": (
        "PC112", "UPDATE pgctx.checkpoints SET summary = jsonb_set(summary, '{task,status}', '\"failed\"')"
                 " WHERE version = 1"),
    "discard reason of a DISCARDED checkpoint changed": (
        "PC112", "UPDATE pgctx.checkpoints SET discard_reason = 'rewritten' WHERE version = 3"),
    "summary changed while committing": (
        "PC112", "UPDATE pgctx.checkpoints SET phase = 'COMMITTED',"
                 " summary = jsonb_set(summary, '{task,status}', '\"failed\"') WHERE version = 2"),
    "cursor changed while committing": (
        "PC112", "UPDATE pgctx.checkpoints SET phase = 'COMMITTED', cursor = 7 WHERE version = 2"),
    "delete the committed checkpoint": ("PC113", "DELETE FROM pgctx.checkpoints WHERE version = 1"),
    "delete a PREPARED checkpoint": ("PC113", "DELETE FROM pgctx.checkpoints WHERE version = 2"),
    "truncate checkpoints": ("PC113", "TRUNCATE pgctx.checkpoints"),
    "fold head to a PREPARED version": (
        "PC112", "UPDATE pgctx.fold_heads h SET version = k.version, cursor = k.cursor, checksum = k.checksum"
                 " FROM pgctx.checkpoints k WHERE k.conversation_id = h.conversation_id AND k.version = 2"),
    "fold head to a DISCARDED version": (
        "PC112", "UPDATE pgctx.fold_heads h SET version = k.version, cursor = k.cursor, checksum = k.checksum"
                 " FROM pgctx.checkpoints k WHERE k.conversation_id = h.conversation_id AND k.version = 3"),
    "fold head with a wrong checksum": ("PC112", "UPDATE pgctx.fold_heads SET checksum = sha256('x')"),
    "fold head back to nothing without a reason": (
        "PC112", "UPDATE pgctx.fold_heads SET version = 0, cursor = 0, checksum = NULL"),
    "delete the fold head": ("PC113", "DELETE FROM pgctx.fold_heads"),
    "truncate fold heads": ("PC113", "TRUNCATE pgctx.fold_heads"),
}


@pytest.mark.parametrize("code, statement", PHASE_REFUSALS.values(), ids=PHASE_REFUSALS.keys())
def test_illegal_phase_changes_by_plain_sql(phases, code, statement):
    assert_refused(phases, code, lambda: phases.execute(statement))


def test_a_discarded_checkpoint_can_be_pruned_by_hand(phases):
    phases.execute("DELETE FROM pgctx.checkpoints WHERE version = 3")
    assert phase_of(phases, 3) is None


def test_direct_commit_of_a_stale_candidate_is_a_conflict(phases):
    # a PREPARED candidate based on version 0, slipped in by a superuser after version 1 was committed
    phases.execute(f"INSERT INTO pgctx.checkpoints (conversation_id, version, phase, {COPY_COLUMNS})"
                   f" SELECT conversation_id, 9, 'PREPARED', {COPY_COLUMNS} FROM pgctx.checkpoints WHERE version = 1")
    assert phase_of(phases, 9) == ("PREPARED", None)
    exc, = assert_refused(phases, "PC100",
                          lambda: phases.execute("UPDATE pgctx.checkpoints SET phase = 'COMMITTED' WHERE version = 9"))
    assert "prepared on version 0" in str(exc)
    python_exc, = assert_refused(phases, "PC100", lambda: pgctx.commit_fold(phases, CID, 9))
    assert "version 1" in str(python_exc)


def test_a_plain_sql_commit_runs_the_compare_and_swap(phases):
    phases.execute("UPDATE pgctx.checkpoints SET phase = 'COMMITTED' WHERE version = 2")
    assert_committed(phases, 2, 8, second_summary())


def test_committing_one_candidate_supersedes_the_others(folded):
    fold = {"expected_version": 1, "expected_cursor": 4, "new_cursor": 8, "summary": second_summary()}
    a = prepare_fold(folded, CID, **fold)
    b = prepare_fold(folded, CID, **fold)
    assert pgctx.commit_fold(folded, CID, a) == 8
    phase, reason = phase_of(folded, b)
    assert phase == "DISCARDED" and "superseded" in reason and f"version {a}" in reason
    exc, python_exc = assert_refused(folded, "PC100",
                                     lambda: folded.execute("SELECT pgctx.commit_fold(%s, %s)", (CID, b)),
                                     lambda: pgctx.commit_fold(folded, CID, b))
    assert reason in str(exc) and reason in str(python_exc)
    assert_refused(folded, "PC112",
                   lambda: folded.execute("UPDATE pgctx.checkpoints SET phase = 'COMMITTED', discard_reason = NULL"
                                          " WHERE version = %s", (b,)))
    assert_committed(folded, a, 8, second_summary())


def test_discard_records_the_reason_and_cannot_be_committed(phases):
    pgctx.discard_fold(phases, CID, 2, "the summarizer hallucinated")
    phase, reason = phase_of(phases, 2)
    assert (phase, reason) == ("DISCARDED", "the summarizer hallucinated")
    exc, python_exc = assert_refused(phases, "PC100",
                                     lambda: phases.execute("SELECT pgctx.commit_fold(%s, 2)", (CID,)),
                                     lambda: pgctx.commit_fold(phases, CID, 2))
    assert "the summarizer hallucinated" in str(exc) and "the summarizer hallucinated" in str(python_exc)
    assert head(phases) == (1, 4)


def test_discard_without_a_reason_says_discarded(phases):
    phases.execute("SELECT pgctx.discard_fold(%s, 2, '')", (CID,))
    assert phase_of(phases, 2) == ("DISCARDED", "discarded")


def test_commit_twice(phases):
    assert_refused(phases, "PC112",
                   lambda: phases.execute("SELECT pgctx.commit_fold(%s, 1)", (CID,)),
                   lambda: pgctx.commit_fold(phases, CID, 1))


@pytest.mark.parametrize("version", [1, 3], ids=["COMMITTED", "DISCARDED"])
def test_discard_of_a_decided_checkpoint(phases, version):
    assert_refused(phases, "PC112",
                   lambda: phases.execute("SELECT pgctx.discard_fold(%s, %s, 'again')", (CID, version)),
                   lambda: pgctx.discard_fold(phases, CID, version, "again"))


@pytest.mark.parametrize("version", [0, 4, 99])
def test_unknown_version(phases, version):
    assert_refused(phases, "PC111",
                   lambda: phases.execute("SELECT pgctx.commit_fold(%s, %s)", (CID, version)),
                   lambda: pgctx.commit_fold(phases, CID, version),
                   lambda: phases.execute("SELECT pgctx.discard_fold(%s, %s, 'x')", (CID, version)),
                   lambda: pgctx.discard_fold(phases, CID, version, "x"))


# --------------------------------------------------------------------------------------------
# 6. tool status derivation

TOOL_EVENTS = [
    ("tool_call", {"tool": "lookup", "call_id": "c-ok", "effect": "read",
                   "arguments": {"order_id": "10086", "id": "X1", "paid": "yes", "note": "n"}}),  # 1
    ("tool_result", {"call_id": "c-ok", "outcome": "succeeded", "request_id": "r-ok"}),  # 2
    ("tool_call", {"tool": "update_delivery_date", "call_id": "c-fail", "idempotency_key": "k-fail",
                   "arguments": {"order_id": 10086, "customer_id": 42, "date": "2026-09-02"}}),  # 3
    ("tool_result", {"call_id": "c-fail", "outcome": "failed", "error": "boom"}),  # 4
    ("tool_call", {"tool": "refund", "call_id": "c-cancel", "arguments": {"order_id": "10086", "customer_id": "c7"}}),
    ("tool_result", {"call_id": "c-cancel", "outcome": "cancelled"}),  # 6
    ("tool_call", {"tool": "refund", "call_id": "c-timeout", "effect": "write", "arguments": {"order_id": "10087"}}),
    ("tool_result", {"call_id": "c-timeout", "outcome": "timeout"}),  # 8
    ("tool_call", {"tool": "charge", "call_id": "c-np", "arguments": {"amount": 5}}),  # 9
    ("tool_result", {"call_id": "c-np", "outcome": "timeout"}),  # 10
    ("status_query", {"call_id": "c-np", "outcome": "not_performed"}),  # 11
    ("tool_call", {"tool": "charge", "call_id": "c-sq", "arguments": {}}),  # 12
    ("tool_result", {"call_id": "c-sq", "outcome": "timeout"}),  # 13
    ("status_query", {"call_id": "c-sq", "outcome": "succeeded", "request_id": "r-sq"}),  # 14
    ("tool_call", {"tool": "charge", "call_id": "c-lost"}),  # 15
    ("recovery", {}),  # 16
    ("tool_call", {"tool": "charge", "call_id": "c-run"}),  # 17
    ("tool_call", {"tool": "charge", "call_id": "c-sq-unknown"}),  # 18
    ("status_query", {"call_id": "c-sq-unknown", "outcome": "unknown"}),  # 19
]
# call_id: (status, effect, identifiers, call_seq, result_seq, answer_seq, request_id, error)
DERIVED_CALLS = {
    "c-ok": ("succeeded", "read", ["X1", "10086"], 1, 2, 2, "r-ok", None),
    "c-fail": ("failed", "write", ["42", "10086"], 3, 4, 4, None, "boom"),
    "c-cancel": ("cancelled", "irreversible", ["10086"], 5, 6, 6, None, None),
    "c-timeout": ("unknown", "write", ["10087"], 7, 8, 8, None, None),
    "c-np": ("failed", "write", [], 9, 10, 11, None, None),
    "c-sq": ("succeeded", "write", [], 12, 13, 14, "r-sq", None),
    "c-lost": ("unknown", "write", [], 15, None, None, None, None),
    "c-run": ("running", "write", [], 17, None, None, None, None),
    "c-sq-unknown": ("unknown", "write", [], 18, None, 19, None, None),
}


@pytest.fixture
def tools(conn) -> psycopg.Connection:
    conn.execute("SELECT pgctx.declare_tool('refund', 'irreversible', ARRAY['order_id'])")
    append(conn, TOOL_EVENTS)
    return conn


def derived_calls(conn, from_seq=0, upto=None) -> dict[str, tuple]:
    rows = conn.execute("SELECT call_id, status, effect, identifiers, call_seq, result_seq, answer_seq, request_id,"
                        " error FROM pgctx.tool_calls(%s, %s, %s)", (CID, from_seq, upto)).fetchall()
    return {row[0]: tuple(row[1:]) for row in rows}


def test_tool_status_derivation(tools):
    assert derived_calls(tools) == DERIVED_CALLS
    assert "failed" not in {derived_calls(tools)[c][0] for c in ("c-timeout", "c-lost", "c-sq-unknown")}


def test_tool_status_as_of_a_seq(tools):
    as_of_1 = derived_calls(tools, 0, 1)
    assert as_of_1 == {"c-ok": ("running", "read", ["X1", "10086"], 1, 2, None, None, None)}
    # a call made before from_seq but answered after it is touched by the range
    assert set(derived_calls(tools, 1, 4)) == {"c-ok", "c-fail"}
    assert derived_calls(tools, 14, 16)["c-lost"][0] == "unknown"
    assert derived_calls(tools, 14, 15)["c-lost"][0] == "running"


def test_tool_registry_and_default_identifiers(conn, tools):
    # declared without identifier_args, refund's *_id arguments all count again
    conn.execute("SELECT pgctx.declare_tool('refund', 'read')")
    calls = derived_calls(conn)
    assert calls["c-cancel"][1:3] == ("read", ["c7", "10086"])
    assert calls["c-timeout"][1:3] == ("write", ["10087"]), "the payload's effect wins over the registry"


# --------------------------------------------------------------------------------------------
# 7. must_keep


def test_must_keep(conn, tell):
    tell(Story(tail=(approval("ap-1", "requested"), approval("ap-2", "requested"), approval("ap-2", "granted"))))
    call = {"tool": "update_delivery_date", "status": "succeeded", "effect": "write", "idempotency_key": "k1",
            "request_id": "req-abc", "call_seq": 2, "answer_seq": 3, "result_seq": 3}
    v2 = {"collapsed": {}} if VERSION >= 2 else {}  # version 2 also lists the calls beyond its horizon
    expected = {
        "omitted_event_range": {"from": 1, "to": 7},
        "last_event_id": 7,
        "tool_calls": {"call-1": {**call, **({"subject": "order_id=10086"} if VERSION >= 2 else {})}},
        "identifiers": ["10086"],
        "open_approvals": [{"approval_id": "ap-1", "seq": 5}],
        "requests": [1], "acknowledgements": [], "facts": [],
        **v2,
    }
    assert conn.execute("SELECT pgctx.must_keep(%s, 0, 7, NULL, %s)", (CID, VERSION)).fetchone()[0] == expected
    assert pgctx.must_keep(conn, CID, 0, 7, schema_version=VERSION) == expected
    # up to 5, ap-2 is not requested yet; from 4 on, call-1 is outside the range
    assert pgctx.must_keep(conn, CID, 4, 6, schema_version=VERSION) == {
        "omitted_event_range": {"from": 1, "to": 6}, "last_event_id": 6, "tool_calls": {}, "identifiers": [],
        "open_approvals": [{"approval_id": "ap-1", "seq": 5}, {"approval_id": "ap-2", "seq": 6}],
        "requests": [], "acknowledgements": [], "facts": [], **v2}
    # identifiers come only from calls made in the range
    assert pgctx.must_keep(conn, CID, 2, 3, schema_version=VERSION)["identifiers"] == []
    assert set(pgctx.must_keep(conn, CID, 2, 3, schema_version=VERSION)["tool_calls"]) == {"call-1"}
    # without a version, the newest
    assert pgctx.must_keep(conn, CID, 0, 7) == conn.execute("SELECT pgctx.must_keep(%s, 0, 7)", (CID,)).fetchone()[0]


# --------------------------------------------------------------------------------------------
# 8. privileges


def test_app_folds_through_functions_only(conn, connect_as, roles):
    app = connect_as(roles.app)
    append(app, BASE.events())
    version = prepare_fold(app, CID, expected_version=0, expected_cursor=0, new_cursor=4,
                                 summary=BASE.summary())
    assert pgctx.commit_fold(app, CID, version) == 4
    append(app, SECOND)
    draft = prepare_fold(app, CID, expected_version=1, expected_cursor=4, new_cursor=8,
                               summary=second_summary())
    pgctx.discard_fold(app, CID, draft, "not needed")
    report = pgctx.recover(app, CID)
    assert report["committed"]["version"] == 1 and report["chain"]["ok"]
    assert_committed(conn, 1, 4, BASE.summary())
    assert app.execute("SELECT prepared_by::text FROM pgctx.fold_history WHERE version = 1").fetchone() == (roles.app,)

    pending = prepare_fold(app, CID, expected_version=1, expected_cursor=4, new_cursor=8,
                                 summary=second_summary())
    statements = [
        f"INSERT INTO pgctx.checkpoints (conversation_id, version, phase, {COPY_COLUMNS})"
        f" SELECT conversation_id, 9, 'PREPARED', {COPY_COLUMNS} FROM pgctx.checkpoints WHERE version = {pending}",
        f"UPDATE pgctx.checkpoints SET phase = 'COMMITTED' WHERE version = {pending}",
        f"UPDATE pgctx.checkpoints SET phase = 'DISCARDED', discard_reason = 'x' WHERE version = {pending}",
        "DELETE FROM pgctx.checkpoints WHERE version = 2",
        "TRUNCATE pgctx.checkpoints",
        "INSERT INTO pgctx.fold_heads (conversation_id) VALUES ('other')",
        "UPDATE pgctx.fold_heads SET version = 0, cursor = 0, checksum = NULL",
        "DELETE FROM pgctx.fold_heads",
        "TRUNCATE pgctx.fold_heads",
        "UPDATE pgctx.verified_points SET seq = 1",
        f"SELECT pgctx.prune_checkpoints('{CID}', 1)",
    ]
    for statement in statements:
        assert_refused(conn, INSUFFICIENT_PRIVILEGE, lambda s=statement: app.execute(s))
    assert phase_of(conn, pending) == ("PREPARED", None)


def test_auditor_reads_but_cannot_fold(folded, connect_as, roles):
    pgctx.recover(folded, CID)
    auditor = connect_as(roles.auditor)
    assert auditor.execute("SELECT version, phase, is_committed_fold FROM pgctx.fold_history"
                           " WHERE conversation_id = %s", (CID,)).fetchall() == [(1, "COMMITTED", True)]
    assert auditor.execute("SELECT committed_version, committed_cursor, unfolded_events FROM pgctx.conversation_status"
                           " WHERE conversation_id = %s", (CID,)).fetchone() == (1, 4, 4)
    assert auditor.execute("SELECT call_id, status, request_id FROM pgctx.side_effects WHERE conversation_id = %s",
                           (CID,)).fetchall() == [("call-1", "succeeded", "req-abc")]
    assert auditor.execute("SELECT verified_seq, fell_back FROM pgctx.chain_health WHERE conversation_id = %s",
                           (CID,)).fetchone() == (8, False)
    fold = {"expected_version": 1, "expected_cursor": 4, "new_cursor": 8, "summary": second_summary()}
    assert_refused(folded, INSUFFICIENT_PRIVILEGE,
                   lambda: prepare_sql(auditor, **fold),
                   lambda: prepare_fold(auditor, CID, **fold),
                   lambda: pgctx.commit_fold(auditor, CID, 1),
                   lambda: pgctx.discard_fold(auditor, CID, 1, "x"),
                   lambda: pgctx.recover(auditor, CID),
                   lambda: auditor.execute("UPDATE pgctx.fold_heads SET cursor = 0"))


# --------------------------------------------------------------------------------------------
# 9. retention


def prune(conn, keep) -> int:
    return conn.execute("SELECT pgctx.prune_checkpoints(%s, %s)", (CID, keep)).fetchone()[0]


def versions(conn) -> dict[int, str]:
    return dict(conn.execute("SELECT version, phase FROM pgctx.checkpoints WHERE conversation_id = %s",
                             (CID,)).fetchall())


def test_prune_checkpoints(folded):
    fold = {"expected_version": 1, "expected_cursor": 4, "new_cursor": 8, "summary": second_summary()}
    for _ in range(3):
        prepare_fold(folded, CID, **fold)
    pgctx.discard_fold(folded, CID, 2, "draft")
    pgctx.discard_fold(folded, CID, 3, "draft")
    events = snapshot(folded)["events"]
    assert versions(folded) == {1: "COMMITTED", 2: "DISCARDED", 3: "DISCARDED", 4: "PREPARED"}

    # keeps the newest non-PREPARED (3), the committed fold (1) though older, and the PREPARED one (4)
    assert prune(folded, 1) == 1
    assert versions(folded) == {1: "COMMITTED", 3: "DISCARDED", 4: "PREPARED"}
    assert prune(folded, 1) == 0

    assert pgctx.commit_fold(folded, CID, 4) == 8
    assert prune(folded, 5) == 0
    assert prune(folded, 1) == 2, "an older COMMITTED checkpoint that is no longer the fold can go"
    assert versions(folded) == {4: "COMMITTED"}
    assert_committed(folded, 4, 8, second_summary())
    assert snapshot(folded)["events"] == events, "events are never pruned"


@pytest.mark.parametrize("keep", [0, -1, None])
def test_prune_needs_keep_of_at_least_one(phases, keep):
    def through_python():
        with errors.translated():
            prune(phases, keep)

    exc, python_exc = assert_refused(phases, "PC115", lambda: prune(phases, keep), through_python)
    assert isinstance(python_exc, errors.InvalidRetention)
