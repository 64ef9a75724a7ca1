"""A stateful fuzz of the SQL API: random programs, checked against a model after every step.

A hypothesis ``RuleBasedStateMachine`` drives one real database through random programs of the
calls an application and a DBA make: appends (``pgctx.append_event``, ``pgctx.append_events``,
plain INSERT, the Python wrappers), refused appends, ``pgctx.fold`` with the built-in summarizer,
``prepare_fold`` with valid candidates and with mutations of them (a wrong expected version or
cursor, an empty range, a cursor beyond the head, a split unit, a summary that breaks the schema,
cites outside its range, drops a must-keep item or contradicts the tool state, an unregistered
schema version), ``commit_fold``, ``discard_fold``, ``fork_conversation``, ``confirm_mainline``,
``prune_checkpoints``, ``recover`` (twice: the second run must change nothing), ``verify_chain``
(resumed, and anchored at digests taken earlier), superuser tampering (an event's payload edited
with the guard triggers disabled and restored, as tests/test_tamper.py does) and the restore of
a tampered payload, and erasures of tool calls and results (``pgctx.erase``, after every
checkpoint and fork point, so that the model need not follow the checkpoints an erasure removes),
after which the side-effect ledger must list every call as before, with its status, ids and
request id, marked ``content_erased``. The application's calls run as the application login
(``pgctx_app``), retention, erasure, tampering and restores as the superuser.

The model (``Conv``, ``Checkpoint``) predicts every outcome, refusals included, and after every
step the invariant checks the database against it: every acknowledged event is there, unchanged
unless tampered or erased (then holding what the erasure keeps of it); the chain verifies unless tampered, and then its first bad seq is the lowest
tampered one; checkpoint versions run 1..n (pruned ones aside), phases only move PREPARED ->
COMMITTED | DISCARDED and decided rows never change; the committed folds are continuous (each
starts at the cursor of the one it continues, the chain hash at its cursor is the event's,
its summary is schema-valid with a matching checksum); every PREPARED candidate is based on the
committed fold; the committed summary a conversation continues from is the model's (a branch's,
before its first fold, its source's at the fork; retention keeps that checkpoint); branch state,
recovery's verified point and a standing chain break are the model's. A refused call must raise
its typed exception and leave every row of the program's conversations (and no stray row
anywhere) as it was.

Cost: every program runs in this test's database (one per test, from the ``dsn`` fixture) on
conversations of its own ("e<n>-..."): cloning the template per program measured 0.28 s, which
at 100 programs is a quarter of the budget and makes shrinking a failure slow.

Steps: the invariant counts the steps it checked, and the test asserts at least MIN_STEPS (the
default "ci" profile, tests/conftest.py, runs 100 programs of up to 50 steps: about 3,500 steps,
under a minute here). ``pytest --hypothesis-profile=nightly tests/test_stateful_fuzz.py`` runs
1,000 programs of up to 100.

Replaying: a run's programs come from one seed, printed at the start of the test (pytest shows
it with a failure's output); ``PGCTX_FUZZ_SEED=<seed>`` runs the same programs again, and
hypothesis prints the shrunk failing program step by step. A printed seed rather than
``derandomize``, so that every CI run explores programs of its own.
"""

from __future__ import annotations

import copy
import itertools
import os
import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule, \
    run_state_machine_as_test
from psycopg.types.json import Jsonb

import pgctx
from pgctx import errors
from pgctx.canonical import erased_payload
from pgctx.errors import translated
from pgctx.fold_procedures import fold_request
from pgctx.summarizers import BuiltinSummarizer
from pgctx.summary import SCHEMA_VERSION, dump
from tests.events import EAGER, call, result
from tests.test_tamper import TRIGGERS, set_payload, trigger_states

SEED = int(os.environ.get("PGCTX_FUZZ_SEED") or secrets.randbelow(2**32))
MIN_STEPS = 2000
# no deadline (a step is a few database round trips on a shared machine); no example database:
# the seed is what replays a run
FUZZ = settings(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

APPEND_EVENT = "SELECT pgctx.append_event(%s, %s, %s, %s)"
INSERT = "INSERT INTO pgctx.events (conversation_id, kind, payload, event_key) VALUES (%s, %s, %s, %s) RETURNING seq"
PRUNE = "SELECT pgctx.prune_checkpoints(%s, %s)"
CHAIN_HEAD = "SELECT head_seq, head_hash FROM pgctx.chain_heads WHERE conversation_id = %s"  # (hex)
# Every row a program's calls may write: its own conversations' rows, and any row of a
# conversation no program owns (there must be none: a refused append with a bad id writes nothing).
SNAPSHOT = """
SELECT jsonb_build_object(""" + ", ".join(
    f"'{table}', (SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY {order}), '[]') FROM pgctx.{table} t"
    " WHERE starts_with(t.conversation_id, %(prefix)s) OR t.conversation_id !~ '^e[0-9]+-')"
    for table, order in (("events", "t.conversation_id, t.seq"), ("conversations", "t.conversation_id"),
                         ("checkpoints", "t.conversation_id, t.version"), ("fold_heads", "t.conversation_id"),
                         ("verified_points", "t.conversation_id"), ("chain_breaks", "t.conversation_id"))) + ")"
# what the application sees of each conversation: its chain, verified from genesis, and its committed fold
OBSERVED = """
SELECT c.conversation_id, v.ok, v.first_bad_seq, v.head_seq, f.version, f.cursor, f.summary
  FROM pgctx.conversations c
 CROSS JOIN LATERAL pgctx.verify_chain(c.conversation_id) v
 CROSS JOIN LATERAL pgctx.committed_fold(c.conversation_id) f
 WHERE starts_with(c.conversation_id, %s)
"""
# the side-effect ledger of one conversation, and what an erasure leaves of each call unchanged
LEDGER_COLUMNS = ("call_id", "tool", "effect", "status", "idempotency_key", "request_id", "error", "subject",
                  "call_seq", "answer_seq", "content_erased", "erased_seqs")
LEDGER = f"SELECT {', '.join(LEDGER_COLUMNS)} FROM pgctx.side_effects WHERE conversation_id = %s ORDER BY call_seq"
LEDGER_KEPT = ("call_id", "tool", "effect", "status", "idempotency_key", "request_id", "call_seq", "answer_seq")
# a committed checkpoint's summary is valid and its checksum is the one its content gives
COMMITTED_VALID = """
SELECT pgctx.summary_schema_error(schema_version, summary), checksum = pgctx.checkpoint_checksum(schema_version,
       cursor, chain_hash, summary), (summary->>'last_event_id')::bigint
  FROM pgctx.checkpoints WHERE conversation_id = %s AND version = %s
"""
DECIDED = ("phase", "decided_at", "discard_reason")  # the only columns of a checkpoint that ever change

TEXTS = ("move order 10086 to tomorrow", "only deliver on weekdays", "ok", "把订单改到明天送达",
         "call me at 555-0100", "I'll check with the carrier", "what is the status of my refund?", "naïve café ☕")
TEXT = st.sampled_from(TEXTS) | st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=8)
OUTCOMES = ("succeeded", "failed", "cancelled", "timeout")
STATUSES = ("planned", "running", "succeeded", "failed", "cancelled", "unknown")
BAD_IDS = ("", " padded", "tab\there", "x" * 257)
RESERVED = ("erasure", "retraction", "clear")


# --- the model ----------------------------------------------------------------------------------


@dataclass
class Call:
    seq: int
    results: list[tuple[int, str]] = field(default_factory=list)  # (seq, outcome)


@dataclass
class Conv:
    """What must be true of one conversation."""

    cid: str
    base_seq: int = 0  # a branch's fork point
    inherited: list[tuple[str, dict]] = field(default_factory=list)  # the source's events 1..base_seq
    own: list[tuple[str, dict]] = field(default_factory=list)  # (kind, payload) of seqs base_seq+1..
    tampered: dict[int, dict] = field(default_factory=dict)  # seq -> the payload the attacker stored
    erased: dict[int, dict] = field(default_factory=dict)  # seq -> what an erasure left of its payload
    keys: dict[str, int] = field(default_factory=dict)  # event key -> seq
    digests: list[tuple[int, str]] = field(default_factory=list)  # (head seq, hex hash) taken earlier
    forked_from: str | None = None
    fork_version: int | None = None
    fork_summary: dict | None = None  # what a branch continues from before its first fold
    family: str | None = None
    status: str | None = None  # branch status: open, mainline, abandoned
    version: int = 0  # the committed fold
    cursor: int = 0
    fallback: bool = False  # the committed fold is a recovery's fallback
    verified: int | None = None  # recovery's last verified point
    standing: int | None = None  # the first bad seq of a chain break recovery found, until it verifies whole

    @property
    def head(self) -> int:
        return self.base_seq + len(self.own)

    def history(self) -> list[tuple[str, dict]]:
        return self.inherited + self.own

    def stored(self, seq: int) -> dict:
        return self.tampered.get(seq, self.untampered(seq))

    def untampered(self, seq: int) -> dict:
        """What the log holds of an event: its payload, or what an erasure left of it."""
        return self.erased.get(seq, self.event(seq)[1])

    def event(self, seq: int) -> tuple[str, dict]:
        return self.own[seq - self.base_seq - 1]

    def calls(self) -> tuple[dict[str, Call], list[int]]:
        """Every call of the lineage with its results, and the seqs of recovery events."""
        calls: dict[str, Call] = {}
        recoveries = []
        for seq, (kind, payload) in enumerate(self.history(), start=1):
            if kind == "tool_call":
                calls[payload["call_id"]] = Call(seq)
            elif kind == "tool_result":
                calls[payload["call_id"]].results.append((seq, payload["outcome"]))
            elif kind == "recovery":
                recoveries.append(seq)
        return calls, recoveries

    def status_of(self, c: Call, recoveries: list[int], upto: int | None = None) -> str:
        """A call's derived status as of upto: its latest result decides; else a recovery after it
        makes it unknown; else it is running."""
        upto = self.head if upto is None else upto
        answers = [outcome for seq, outcome in c.results if seq <= upto]
        if answers:
            return answers[-1] if answers[-1] != "timeout" else "unknown"
        return "unknown" if any(c.seq < r <= upto for r in recoveries) else "running"

    def open_approvals(self) -> list[str]:
        requested, answered = [], []
        for kind, payload in self.own:
            if kind == "approval":
                (requested if payload["status"] == "requested" else answered).append(payload["approval_id"])
        return [a for a in requested if a not in answered]

    def splits(self, s: int) -> bool:
        """Whether a fold from the committed cursor to s splits an atomic unit (PC103): a call in the
        range from its result beyond, or an approval from the goal it scopes."""
        calls, _ = self.calls()
        scoped = [(seq, p["scopes_event"]) for seq, (k, p) in enumerate(self.history(), start=1)
                  if k == "approval" and "scopes_event" in p]
        return (any(self.cursor < c.seq <= s and c.results and c.results[0][0] > s for c in calls.values())
                or any(self.cursor < goal <= s < seq for seq, goal in scoped))

    def full_boundary(self) -> int:
        """Where a forced fold ends: the newest cursor that splits nothing (a call still waiting may
        be folded: the summary tracks it)."""
        return max((s for s in range(self.cursor + 1, self.head + 1) if not self.splits(s)), default=self.cursor)

    def broken(self, upto: int) -> bool:
        """Whether prepare_fold's check of the chain (committed cursor to upto) finds a tampered event."""
        return any(self.cursor < t <= upto for t in self.tampered)


@dataclass
class Checkpoint:
    phase: str
    cursor: int
    base_version: int
    base_cursor: int
    summary: dict
    row: dict  # its columns as stored, but for the decision
    pruned: bool = False


@dataclass
class Run:
    examples: int = 0
    steps: int = 0
    seen: Counter = field(default_factory=Counter)  # what the programs reached, printed at the end


# --- the machine --------------------------------------------------------------------------------


class Fuzz(RuleBasedStateMachine):
    def __init__(self, su: psycopg.Connection, app: psycopg.Connection, run: Run):
        super().__init__()
        self.su, self.app, self.run = su, app, run
        run.examples += 1
        self.prefix = f"e{run.examples}-"
        self.numbers = itertools.count(1)  # call, approval, key, branch and tamper numbers
        self.convs: dict[str, Conv] = {}
        self.cps: dict[str, dict[int, Checkpoint]] = {}
        self.snap = self.snapshot()

    # --- helpers ---------------------------------------------------------------------------------

    def snapshot(self) -> dict:
        return self.su.execute(SNAPSHOT, {"prefix": self.prefix}).fetchone()[0]

    def refused(self, expected: type[BaseException] | tuple[type[BaseException], ...], attempt) -> None:
        """attempt() raises expected (one of them) and changes nothing."""
        with pytest.raises(expected) as caught:
            attempt()
        assert self.snapshot() == self.snap, f"a refused call ({caught.type.__name__}) changed the database"
        self.run.seen[f"refused: {caught.type.__name__}"] += 1

    def pick(self, data, where=lambda c: True) -> str:
        ids = sorted(cid for cid, c in self.convs.items() if where(c))
        return data.draw(st.sampled_from(ids), label="conversation")

    def any(self, where) -> bool:
        return any(where(c) for c in self.convs.values())

    def draw_event(self, data, view: Conv) -> tuple[str, dict]:
        calls, recoveries = view.calls()
        unanswered = sorted(cid for cid, c in calls.items() if not c.results)
        approvals = view.open_approvals()
        kinds = ["user", "assistant", "tool_call", "tool_call", "approval", "fact", "topic_switch", "subtask_end"]
        kinds += ["tool_result", "tool_result"] * bool(unanswered) + ["approval_answer"] * bool(approvals)
        kind = data.draw(st.sampled_from(kinds), label="kind")
        if kind == "tool_call":
            return kind, call(next(self.numbers), tool=data.draw(st.sampled_from(("update_order", "lookup_order"))),
                              effect=data.draw(st.sampled_from((None, "read", "write", "irreversible"))),
                              key=data.draw(st.booleans()))
        if kind == "tool_result":
            call_id = data.draw(st.sampled_from(unanswered))
            return kind, result(int(call_id.removeprefix("call-")), data.draw(st.sampled_from(OUTCOMES)))
        if kind == "approval":
            payload = {"approval_id": f"ap-{next(self.numbers)}", "status": "requested"}
            goals = [seq for seq, (k, _) in enumerate(view.own, start=view.base_seq + 1) if k == "user"]
            if goals and data.draw(st.booleans()):
                payload["scopes_event"] = data.draw(st.sampled_from(goals))
            return kind, payload
        if kind == "approval_answer":
            return "approval", {"approval_id": data.draw(st.sampled_from(approvals)),
                                "status": data.draw(st.sampled_from(("granted", "denied")))}
        if kind == "fact":
            return kind, {"key": data.draw(st.sampled_from(("delivery_date", "address"))),
                          "value": data.draw(st.sampled_from(("2026-09-02", "2026-09-05", "Main St 1"))),
                          "authority": "user", "confidence": "confirmed"}
        return kind, {"text": data.draw(TEXT)}

    def draw_events(self, data, conv: Conv, n: int) -> list[tuple[str, dict, str | None]]:
        """n events that may follow conv (each may answer a call made before it), with an event key or none."""
        view = copy.deepcopy(conv)
        drawn = []
        for _ in range(n):
            kind, payload = self.draw_event(data, view)
            view.own.append((kind, payload))
            key = f"key-{next(self.numbers)}" if data.draw(st.booleans(), label="keyed") else None
            drawn.append((kind, payload, key))
        return drawn

    def append(self, path: str, cid: str, events: list[tuple[str, Any, str | None]]) -> list[int | None]:
        """Append as the application by one path; the seqs it returned (None: an INSERT that wrote nothing)."""
        if path == "append_events":
            items = [{"kind": k, "payload": p, **({} if key is None else {"event_key": key})} for k, p, key in events]
            return pgctx.append_many(self.app, cid, items)
        seqs = []
        for kind, payload, key in events:
            if path == "append":
                seqs.append(pgctx.append(self.app, cid, kind, payload, event_key=key))
                continue
            with translated():
                row = self.app.execute(APPEND_EVENT if path == "append_event" else INSERT,
                                       (cid, kind, Jsonb(payload), key)).fetchone()
            seqs.append(row[0] if row else None)
        return seqs

    def added(self, conv: Conv, events: list[tuple[str, dict, str | None]]) -> None:
        for kind, payload, key in events:
            conv.own.append((kind, payload))
            if key:
                conv.keys[key] = conv.head

    def expected_summary(self, conv: Conv) -> dict | None:
        """The committed summary a fold of conv continues from."""
        return self.cps[conv.cid][conv.version].summary if conv.version else conv.fork_summary

    def candidate(self, cid: str, cursor: int) -> tuple[dict, dict]:
        """The built-in summarizer's candidate for a fold to cursor, and the request's must-keep items."""
        request = fold_request(self.app, cid, cursor)
        return dump(BuiltinSummarizer().summarize(request)), request.must_keep

    def stored_checkpoint(self, cid: str, version: int) -> dict:
        (row,) = [r for r in self.snapshot()["checkpoints"] if (r["conversation_id"], r["version"]) == (cid, version)]
        return row

    def record(self, cid: str, version: int) -> None:
        """Record a checkpoint the database just stored (PREPARED, until the model decides it)."""
        row = self.stored_checkpoint(cid, version)
        self.cps[cid][version] = Checkpoint("PREPARED", row["cursor"], row["base_version"], row["base_cursor"],
                                            row["summary"], {k: v for k, v in row.items() if k not in DECIDED})

    def committed(self, cid: str, version: int) -> None:
        """A commit: the fold head moves, every other candidate is superseded, the summary is valid."""
        conv, cp = self.convs[cid], self.cps[cid][version]
        for other in self.cps[cid].values():
            if other.phase == "PREPARED":
                other.phase = "DISCARDED"
        cp.phase = "COMMITTED"
        conv.version, conv.cursor, conv.fallback = version, cp.cursor, False
        schema_error, checksum_ok, last = self.su.execute(COMMITTED_VALID, (cid, version)).fetchone()
        assert (schema_error, checksum_ok, last) == (None, True, cp.cursor)

    def next_version(self, cid: str) -> int:
        return max(self.cps[cid], default=0) + 1

    def new_conv(self, conv: Conv) -> None:
        self.convs[conv.cid] = conv
        self.cps[conv.cid] = {}

    # --- appends ---------------------------------------------------------------------------------

    @initialize(data=st.data())
    def start(self, data):
        conv = Conv(self.prefix + "main")
        events = self.draw_events(data, conv, data.draw(st.integers(1, 5), label="events"))
        assert self.append("append_events", conv.cid, events) == list(range(1, len(events) + 1))
        self.new_conv(conv)
        self.added(conv, events)

    @precondition(lambda self: self.any(lambda c: c.status != "abandoned"))
    @rule(data=st.data())
    def append_events(self, data):
        conv = self.convs[self.pick(data, lambda c: c.status != "abandoned")]
        path = data.draw(st.sampled_from(("append_event", "insert", "append", "append_events")), label="path")
        events = self.draw_events(data, conv, data.draw(st.integers(1, 4)) if path == "append_events" else 1)
        assert self.append(path, conv.cid, events) == list(range(conv.head + 1, conv.head + len(events) + 1))
        self.added(conv, events)

    @precondition(lambda self: self.any(lambda c: c.keys and c.status != "abandoned"))
    @rule(data=st.data())
    def append_again(self, data):
        """A retried append with a used event key: the same event writes nothing, another is PC005."""
        conv = self.convs[self.pick(data, lambda c: c.keys and c.status != "abandoned")]
        key = data.draw(st.sampled_from(sorted(conv.keys)), label="key")
        seq = conv.keys[key]
        kind, payload = conv.event(seq)
        path = data.draw(st.sampled_from(("append_event", "insert", "append", "append_events")), label="path")
        if data.draw(st.booleans(), label="same content") and seq not in conv.tampered:
            assert self.append(path, conv.cid, [(kind, payload, key)]) == [None if path == "insert" else seq]
            assert self.snapshot() == self.snap
        else:  # other content, or the event's stored content was tampered with: not the same event
            self.refused(errors.EventKeyConflict,
                         lambda: self.append(path, conv.cid, [(kind, {**payload, "again": True}, key)]))

    @rule(data=st.data())
    def refused_call(self, data):
        """One call that must be refused (a rule of its own, so that refusals do not crowd out the
        calls that move a program on)."""
        which = data.draw(st.sampled_from((self.append_refused, self.decide_again, self.unknown_conversation)))
        which(data)

    def append_refused(self, data):
        """An append with one defect is refused with its SQLSTATE, and so is the whole batch it is in
        (to a conversation, or to a new one, which is not created)."""
        cid = data.draw(st.sampled_from([*sorted(self.convs), self.prefix + "new"]), label="conversation")
        conv = self.convs.get(cid, Conv(cid))
        defects = ["kind", "reserved", "payload", "id", "key", "too_large", "column"]
        defects += ["abandoned"] * (conv.status == "abandoned")
        defect = data.draw(st.sampled_from(defects), label="defect")
        paths = ("insert",) if defect == "column" else ("append_event", "insert", "append", "append_events")
        path = data.draw(st.sampled_from(paths), label="path")
        kind, payload, key = "user", {"text": "hello"}, None
        expected: type[BaseException]
        if defect == "kind":
            kind, expected = "no_such_kind", errors.UnknownEventKind
        elif defect == "reserved":
            kind, expected = data.draw(st.sampled_from(RESERVED)), errors.ReservedEventKind
        elif defect == "payload":
            payload, expected = data.draw(st.sampled_from(([1, 2], "text", 3, None))), errors.InvalidPayload
        elif defect == "id":
            cid, expected = data.draw(st.sampled_from(BAD_IDS)), errors.InvalidConversationId
        elif defect == "key":
            key, expected = data.draw(st.sampled_from(("", "k" * 201))), errors.InvalidEventKey
        elif defect == "too_large":
            payload, expected = {"text": "x" * (1 << 20)}, errors.PayloadTooLarge
        elif defect == "abandoned":
            expected = errors.BranchAbandoned
        else:  # a column pgctx assigns
            column = data.draw(st.sampled_from(("seq", "created_at", "hash")))
            value = {"seq": 99, "created_at": "2020-01-01T00:00:00Z", "hash": b"\x00" * 32}[column]

            def insert():
                with translated():
                    self.app.execute(f"INSERT INTO pgctx.events (conversation_id, kind, payload, {column})"
                                     " VALUES (%s, 'user', '{}', %s)", (cid, value))

            self.refused(psycopg.errors.InsufficientPrivilege, insert)
            return
        # in a batch, after events that are fine: the batch is refused whole
        good = self.draw_events(data, conv, data.draw(st.integers(0, 2))) if path == "append_events" else []
        # on an abandoned branch, that refusal may come first
        either = (expected, errors.BranchAbandoned) if conv.status == "abandoned" else expected
        self.refused(either, lambda: self.append(path, cid, [*good, (kind, payload, key)]))

    # --- folds -----------------------------------------------------------------------------------

    @rule(data=st.data())
    def fold(self, data):
        """pgctx.fold with the built-in summarizer: forced, to the full boundary; else when the policy
        (EAGER: any trigger) says a fold is due, to its boundary."""
        conv = self.convs[self.pick(data)]
        force = data.draw(st.booleans(), label="force")
        boundary = conv.full_boundary()
        try:
            done = pgctx.fold(self.app, conv.cid, budget=EAGER, force=force)
        except errors.ChainBroken:
            assert conv.broken(boundary), "ChainBroken, but no tampered event in the range a fold may cover"
            assert self.snapshot() == self.snap
            return
        if not done.committed:
            # a fold that would not make the context smaller is not made (PC121): the model does
            # not weigh tokens, so it accepts that outcome, and checks that it changed nothing
            if done.reason.startswith("not committed: "):
                self.run.seen["fold not smaller"] += 1
            else:
                assert not force or boundary == conv.cursor, done.reason
            assert (done.version, done.cursor) == (conv.version, conv.cursor)
            assert self.snapshot() == self.snap
            return
        assert done.version == self.next_version(conv.cid)
        assert done.cursor == boundary if force else conv.cursor < done.cursor <= boundary
        assert not (conv.splits(done.cursor) or conv.broken(done.cursor))
        self.run.seen["fold committed"] += 1
        self.record(conv.cid, done.version)
        self.committed(conv.cid, done.version)

    @rule(data=st.data())
    def prepare(self, data):
        """prepare_fold with the built-in summarizer's candidate for a unit-safe cursor, as it is or
        with one thing wrong; each wrong thing has its SQLSTATE."""
        cid = self.pick(data)
        conv = self.convs[cid]
        safe = [s for s in range(conv.cursor + 1, conv.head + 1) if not conv.splits(s)]
        split = [s for s in range(conv.cursor + 1, conv.head + 1) if conv.splits(s)]
        cursor = data.draw(st.sampled_from(safe), label="new cursor") if safe else conv.cursor
        summary, keep = self.candidate(cid, cursor) if safe else ({}, {})
        tracked = sorted(set(summary.get("tool_state", {})) & set(keep.get("tool_calls", {})))
        # (an unresolved call whose call event was erased is kept by tool_state alone: pending
        # cannot cite it, PC119)
        needs_pending = bool(keep.get("open_approvals")) or any(
            c["status"] in ("running", "unknown") and c["call_seq"] not in c.get("erased", ())
            for c in keep.get("tool_calls", {}).values())
        mutations = ["version", "cursor", "empty", "beyond"] + ["split"] * bool(split)
        if safe:
            mutations += ["schema", "schema_version", "source", "last_event_id", "omitted", "grows"]
            mutations += ["tool_state", "status"] * bool(tracked) + ["pending"] * needs_pending
        valid = bool(safe) and data.draw(st.booleans(), label="valid")
        mutation = None if valid else data.draw(st.sampled_from(mutations), label="mutation")
        # weighed as 0 tokens (the model does not weigh tokens): a candidate is refused as not making
        # the context smaller (PC121) only when all it folds stays raw as evidence
        args = dict(expected_version=conv.version, expected_cursor=conv.cursor, new_cursor=cursor,
                    summary=summary, schema_version=SCHEMA_VERSION, tokens=0)
        expected: type[errors.PgctxError] | None = None
        if mutation == "version":
            args["expected_version"] += data.draw(st.sampled_from((-1, 1)))
            expected = errors.FoldConflict
        elif mutation == "cursor":
            args["expected_cursor"] += data.draw(st.sampled_from((-1, 1)))
            expected = errors.FoldNotContinuous
        elif mutation == "empty":
            args["new_cursor"] = conv.cursor - data.draw(st.integers(0, 1))
            expected = errors.FoldNotContinuous
        elif mutation == "beyond":
            args["new_cursor"] = conv.head + data.draw(st.integers(1, 3))
            expected = errors.FoldBeyondHead
        elif mutation == "split":
            args["new_cursor"] = data.draw(st.sampled_from(split))
            expected = errors.FoldSplitsUnit
        elif mutation == "schema":
            broken = data.draw(st.sampled_from(("extra key", "bad status", "no facts", "text cursor")))
            if broken == "extra key":
                summary["bogus"] = 1
            elif broken == "bad status":
                summary["task"]["status"] = "finished"
            elif broken == "no facts":
                del summary["facts"]
            else:
                summary["last_event_id"] = str(cursor)
            expected = errors.SummarySchemaViolation
        elif mutation == "schema_version":
            args["schema_version"] = data.draw(st.sampled_from((3, 99)))
            expected = errors.UnknownSchemaVersion
        elif mutation == "source":
            summary["facts"].append({"key": "fuzz", "value": "x", "confidence": "inferred", "authority": "model",
                                     "status": "active",
                                     "source_event_ids": [data.draw(st.sampled_from((0, cursor + 1)))]})
            expected = errors.SourceCoverage
        elif mutation == "last_event_id":
            summary["last_event_id"] = cursor - 1
            expected = errors.MustKeepMissing
        elif mutation == "omitted":
            summary["omitted_event_range"]["to"] += 1
            expected = errors.MustKeepMissing
        elif mutation == "tool_state":
            del summary["tool_state"][data.draw(st.sampled_from(tracked))]
            expected = errors.MustKeepMissing
        elif mutation == "status":
            state = summary["tool_state"][data.draw(st.sampled_from(tracked))]
            state["status"] = data.draw(st.sampled_from([s for s in STATUSES if s != state["status"]]))
            expected = errors.ToolStateContradiction
        elif mutation == "pending":
            summary["pending"] = []
            expected = errors.MustKeepMissing
        elif mutation == "grows":
            args["tokens"] = 10 ** 9  # a summary larger than any context
            expected = errors.FoldGrowsContext
        # the chain is verified from the committed cursor to the new one before the candidate is read
        if mutation not in ("version", "cursor") and conv.broken(args["new_cursor"]):
            expected = errors.ChainBroken
        if expected is not None:
            self.refused(expected, lambda: pgctx.prepare_fold(self.app, cid, **args))
            return
        try:
            version = pgctx.prepare_fold(self.app, cid, **args)
        except errors.FoldGrowsContext:
            assert self.snapshot() == self.snap  # what it would fold stays raw as evidence: refused, nothing changed
            self.run.seen["prepare not smaller"] += 1
            return
        assert version == self.next_version(cid)
        self.run.seen["prepared"] += 1
        self.record(cid, version)

    def pick_prepared(self, data) -> tuple[str, int]:
        cid = self.pick(data, lambda c: "PREPARED" in self.phases(c))
        return cid, data.draw(st.sampled_from(sorted(v for v, cp in self.cps[cid].items() if cp.phase == "PREPARED")))

    def phases(self, conv: Conv) -> set[str]:
        return {cp.phase for cp in self.cps[conv.cid].values()}

    @precondition(lambda self: self.any(lambda c: "PREPARED" in self.phases(c)))
    @rule(data=st.data())
    def commit(self, data):
        cid, version = self.pick_prepared(data)
        assert pgctx.commit_fold(self.app, cid, version) == self.cps[cid][version].cursor
        self.committed(cid, version)

    @precondition(lambda self: self.any(lambda c: "PREPARED" in self.phases(c)))
    @rule(data=st.data())
    def discard(self, data):
        cid, version = self.pick_prepared(data)
        reason = data.draw(st.sampled_from(("", "rejected by a reviewer")), label="reason")
        pgctx.discard_fold(self.app, cid, version, reason)
        self.cps[cid][version].phase = "DISCARDED"
        assert self.stored_checkpoint(cid, version)["discard_reason"] == (reason or "discarded")

    def decide_again(self, data):
        """A commit or discard of a checkpoint that was decided, pruned or never prepared is refused."""
        cid = self.pick(data)
        decided = sorted(v for v, cp in self.cps[cid].items() if cp.phase != "PREPARED")
        version = data.draw(st.sampled_from([*decided, self.next_version(cid)]), label="version")
        cp = self.cps[cid].get(version)
        if data.draw(st.booleans(), label="commit"):
            expected = (errors.FoldNotFound if cp is None or cp.pruned
                        else errors.FoldConflict if cp.phase == "DISCARDED" else errors.IllegalPhaseTransition)
            self.refused(expected, lambda: pgctx.commit_fold(self.app, cid, version))
        else:
            expected = errors.FoldNotFound if cp is None or cp.pruned else errors.IllegalPhaseTransition
            self.refused(expected, lambda: pgctx.discard_fold(self.app, cid, version, "again"))

    # --- branches --------------------------------------------------------------------------------

    @precondition(lambda self: self.any(lambda c: c.cursor >= 1))
    @rule(data=st.data())
    def fork(self, data):
        """A branch at the committed fold boundary (of a conversation that has one)."""
        source = self.pick(data, lambda c: c.cursor >= 1)
        conv = self.convs[source]
        new_id = self.prefix + f"b{next(self.numbers)}"
        at = conv.cursor
        wrong = data.draw(st.sampled_from((None, "at", "exists", "id")), label="wrong")
        if wrong == "at":
            at += data.draw(st.sampled_from((-1, 1)))
        elif wrong == "exists":
            new_id = self.pick(data)
        elif wrong == "id":
            new_id = data.draw(st.sampled_from(BAD_IDS))
        expected = (errors.InvalidConversationId if wrong == "id"
                    else errors.BranchAbandoned if conv.status == "abandoned"
                    else errors.ForkNotAtFold if at < 1 or at != conv.cursor
                    else errors.ConversationExists if wrong == "exists" else None)
        if expected is not None:
            self.refused(expected, lambda: pgctx.fork_conversation(self.app, source, at, new_id))
            return
        assert pgctx.fork_conversation(self.app, source, at, new_id) == new_id
        self.run.seen["forked a branch" + " of a branch" * bool(conv.forked_from)] += 1
        conv.family = conv.family or conv.cid
        conv.status = conv.status or "open"
        # a branch before its first fold, forked at its own fork point: a fork of its source there
        forked_from, fork_version = (conv.forked_from, conv.fork_version) if at == conv.base_seq else (source, conv.version)
        self.new_conv(Conv(new_id, base_seq=at, inherited=conv.history()[:at], forked_from=forked_from,
                           fork_version=fork_version, fork_summary=self.expected_summary(conv),
                           family=conv.family, status="open", cursor=at))

    @precondition(lambda self: self.any(lambda c: c.family))
    @rule(data=st.data())
    def confirm_mainline(self, data):
        cid = self.pick(data, lambda c: c.family)
        conv = self.convs[cid]
        if conv.status == "abandoned":
            self.refused(errors.BranchAbandoned, lambda: pgctx.confirm_mainline(self.app, cid))
            return
        abandoned = sorted(c.cid for c in self.convs.values()
                           if c.family == conv.family and c.cid != cid and c.status == "open")
        changed = not (conv.status == "mainline" and not abandoned)
        assert pgctx.confirm_mainline(self.app, cid) == {"mainline": cid, "abandoned": abandoned, "changed": changed}
        if not changed:
            assert self.snapshot() == self.snap
            return
        for other in abandoned:
            self.convs[other].status = "abandoned"
        conv.status = "mainline"
        conv.own.append(("branch_merge", {"mainline": cid, "abandoned": abandoned, "family": conv.family}))

    # --- retention, recovery, verification (the DBA's and the auditor's side) ----------------------

    def prunable(self, conv: Conv) -> bool:
        """Whether a conversation has a decided checkpoint besides the newest and the committed one."""
        return len({v for v, cp in self.cps[conv.cid].items() if cp.phase != "PREPARED" and not cp.pruned}
                   - {conv.version}) >= 2

    @precondition(lambda self: self.any(self.prunable))
    @rule(data=st.data())
    def prune(self, data):
        """prune_checkpoints, as the owner: never the committed fold, never a PREPARED one, never one
        a branch continues from (its summary is the branch's until the branch folds, and again after a
        fallback of the branch to its fork point)."""
        cid = self.pick(data, self.prunable)
        keep = data.draw(st.integers(0, 2), label="keep")
        if keep < 1:
            self.refused(errors.InvalidRetention, lambda: self.su_call(PRUNE, (cid, keep)))
            return
        conv = self.convs[cid]
        decided = sorted((v for v, cp in self.cps[cid].items() if not cp.pruned and cp.phase != "PREPARED"),
                         reverse=True)
        forked = {c.fork_version for c in self.convs.values() if c.forked_from == cid}
        removed = [v for v in decided[keep:] if v != conv.version and v not in forked]
        assert self.su_call(PRUNE, (cid, keep)) == len(removed), \
            f"expected to remove versions {removed} (branches continue from {sorted(forked)})"
        for v in removed:
            self.cps[cid][v].pruned = True
        self.run.seen[f"pruned {bool(removed)}"] += 1

    def su_call(self, query: str, params: tuple) -> Any:
        with translated():
            return self.su.execute(query, params).fetchone()[0]

    @rule(data=st.data())
    def recover(self, data):
        """recover: the chain from its last verified point (from genesis the first time, with
        full_check, or while a break it found stands), the oldest PREPARED candidate that still
        passes every rule committed and the others discarded, a fallback past a break in the
        committed range, interrupted calls marked unknown (with the chain whole: it verifies what
        decides them, and the candidates' ranges, below the verified point too); a second run
        changes nothing."""
        cid = self.pick(data)
        full = data.draw(st.booleans(), label="full_check")
        conv = self.convs[cid]
        # what the run may act on is verified by it, below the verified point too: from just
        # before the first running call, and every PREPARED candidate's range
        calls, recoveries = conv.calls()
        acts_from = min([c.seq - 1 for c in calls.values() if conv.status_of(c, recoveries) == "running"]
                        + [cp.base_cursor for cp in self.cps[cid].values() if cp.phase == "PREPARED"], default=None)
        resume = not full and conv.standing is None and conv.verified is not None
        verify_from = conv.verified if acts_from is None or conv.verified is None else min(conv.verified, acts_from)
        if resume and verify_from < conv.verified and verify_from <= conv.base_seq:
            resume = False  # below the verified point, with no stored hash to start from: from genesis
        if resume and any(t > verify_from for t in conv.tampered):
            resume = False  # a break found: the one that stands is the first from genesis, or the next run moves it
        first_bad = min((t for t in conv.tampered if not resume or t > verify_from), default=None)
        # which candidate passes is what fold_violations says of it now (later events can make a
        # candidate that was valid when prepared split a unit or miss an approval)
        outcome = []
        for version in sorted(v for v, cp in self.cps[cid].items() if cp.phase == "PREPARED"):
            cp = self.cps[cid][version]
            (tokens,) = self.app.execute("SELECT tokens FROM pgctx.checkpoints WHERE conversation_id = %s"
                                         " AND version = %s", (cid, version)).fetchone()  # as recover weighs it
            passes = (first_bad is None or first_bad > cp.cursor) and not pgctx.fold_violations(
                self.app, cid, base_version=cp.base_version, base_cursor=cp.base_cursor, new_cursor=cp.cursor,
                summary=cp.summary, tokens=tokens)
            outcome.append((version, "committed" if passes else "discarded"))
            if passes:
                break
        report = pgctx.recover(self.app, cid, full_check=full)

        assert (report["chain"]["ok"], report["chain"]["first_bad_seq"], report["chain"]["from_genesis"]) == \
            (first_bad is None, first_bad, not resume)
        actions = bool(outcome)
        if first_bad is None:
            actions |= conv.verified != conv.head or conv.standing is not None
            conv.verified, conv.standing = conv.head, None
        elif conv.standing != first_bad:
            conv.standing, actions = first_bad, True
        assert [(p["version"], p["action"]) for p in report["prepared"]] == outcome
        for version, action in outcome:
            if action == "committed":
                self.committed(cid, version)
            else:
                self.cps[cid][version].phase = "DISCARDED"
        fell_back = first_bad is not None and conv.version > 0 and first_bad <= conv.cursor
        if fell_back:
            older = [v for v, cp in self.cps[cid].items()
                     if cp.phase == "COMMITTED" and not cp.pruned and cp.cursor < first_bad]
            conv.version = max(older, default=0)
            conv.cursor = self.cps[cid][conv.version].cursor if conv.version else conv.base_seq
            conv.fallback = actions = True
        calls, recoveries = conv.calls()
        interrupted = [{"call_id": c_id, "seq": c.seq} for c_id, c in sorted(calls.items(), key=lambda i: i[1].seq)
                       if conv.status_of(c, recoveries) == "running"]
        # with the chain broken, what says a call is running is not verified: none is marked
        interrupted = interrupted if first_bad is None else []
        assert report["recovery_event_seq"] == (conv.head + 1 if interrupted else None)
        if interrupted:
            conv.own.append(("recovery", {"interrupted_calls": interrupted}))
            if first_bad is None:
                conv.verified = conv.head
            actions = True
        calls, recoveries = conv.calls()
        assert [u["call_id"] for u in report["unknown_side_effects"]] == [
            c_id for c_id, c in sorted(calls.items(), key=lambda i: i[1].seq)
            if conv.status_of(c, recoveries) == "unknown"]
        assert (report["committed"]["version"], report["committed"]["cursor"]) == (conv.version, conv.cursor)
        assert bool(report["needs_human"]) == (first_bad is not None)
        assert report["changed"] == actions
        for what in [a for _, a in outcome] + ["fell back"] * fell_back + ["interrupted"] * bool(interrupted):
            self.run.seen[f"recover: {what}"] += 1

        after = self.snapshot()
        again = pgctx.recover(self.app, cid, full_check=full)
        assert again["changed"] is False and self.snapshot() == after, "a second recover changed something"

    @rule(data=st.data())
    def verify(self, data):
        """verify_chain, from genesis or resumed at a seq, unanchored or anchored at a digest taken
        earlier (the head pgctx.take_digest exports)."""
        cid = self.pick(data)
        conv = self.convs[cid]
        conv.digests.append(self.app.execute(CHAIN_HEAD, (cid,)).fetchone())  # a digest taken now
        from_seq = data.draw(st.sampled_from([0, -1, conv.head + 1, *range(conv.base_seq + 1, conv.head + 1)]),
                             label="from_seq")
        anchor_seq, anchor_hash = data.draw(st.sampled_from([(None, None), *conv.digests]), label="anchor")
        if from_seq < 0 or (from_seq > conv.base_seq and from_seq > conv.head):
            self.refused(errors.InvalidVerifyRange, lambda: pgctx.verify(self.app, cid, from_seq=from_seq))
            return
        report = pgctx.verify(self.app, cid, from_seq=from_seq, anchor_seq=anchor_seq, anchor_hash=anchor_hash)
        start = max(from_seq, conv.base_seq)
        bad = min((t for t in conv.tampered if t > start), default=None)
        assert (report.ok, report.first_bad_seq, report.checked) == \
            (bad is None, bad, (bad if bad is not None else conv.head) - start), report.reason
        assert report.anchored == (bad is None and anchor_seq is not None), report.reason
        self.run.seen[f"verified: {'tampered' if bad else 'anchored' if report.anchored else 'ok'}"] += 1

    def unknown_conversation(self, data):
        """Every call on a conversation that does not exist is PC014 (and confirming one that has no
        branches PC118), and writes nothing: no fold head, no verified point."""
        cid = self.prefix + "missing"
        calls = {
            "prepare_fold": lambda: pgctx.prepare_fold(self.app, cid, expected_version=0, expected_cursor=0,
                                                       new_cursor=1, summary={}),
            "commit_fold": lambda: pgctx.commit_fold(self.app, cid, 1),
            "discard_fold": lambda: pgctx.discard_fold(self.app, cid, 1, "no such fold"),
            "fork_conversation": lambda: pgctx.fork_conversation(self.app, cid, 1, self.prefix + "never"),
            "confirm_mainline": lambda: pgctx.confirm_mainline(self.app, cid),
            "prune_checkpoints": lambda: self.su_call(PRUNE, (cid, 1)),
            "recover": lambda: pgctx.recover(self.app, cid),
            "verify_chain": lambda: pgctx.verify(self.app, cid),
        }
        name = data.draw(st.sampled_from(sorted(calls)), label="call")
        alone = [c for c, conv in sorted(self.convs.items()) if conv.family is None]
        if name == "confirm_mainline" and alone and data.draw(st.booleans(), label="an existing one"):
            cid = data.draw(st.sampled_from(alone))
            self.refused(errors.NotABranch, lambda: pgctx.confirm_mainline(self.app, cid))
        else:
            self.refused(errors.ConversationNotFound, calls[name])

    def edit(self, conv: Conv, seq: int, payload: dict) -> None:
        """As a superuser: the guard triggers disabled, the payload replaced, the triggers restored."""
        with self.su.transaction():
            for table in TRIGGERS:
                self.su.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
            set_payload(self.su, conv.cid, seq, payload)
            for table, names in TRIGGERS.items():
                for name in names:
                    self.su.execute(f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {name}")
        assert set(trigger_states(self.su).values()) == {"A"}

    @precondition(lambda self: self.any(lambda c: c.own))
    @rule(data=st.data())
    def tamper(self, data):
        """A superuser edits a stored payload (its hash left as it was)."""
        conv = self.convs[self.pick(data, lambda c: c.own)]
        seq = data.draw(st.integers(conv.base_seq + 1, conv.head), label="seq")
        payload = {**conv.stored(seq), "tampered": next(self.numbers)}
        self.edit(conv, seq, payload)
        conv.tampered[seq] = payload

    @precondition(lambda self: self.any(lambda c: c.tampered))
    @rule(data=st.data())
    def restore(self, data):
        """The DBA restores a tampered payload from a backup: the chain is whole again."""
        conv = self.convs[self.pick(data, lambda c: c.tampered)]
        seq = data.draw(st.sampled_from(sorted(conv.tampered)), label="seq")
        self.edit(conv, seq, conv.untampered(seq))
        del conv.tampered[seq]

    # --- erasure -----------------------------------------------------------------------------------

    def erasable(self, conv: Conv) -> list[int]:
        """The tool events the erase rule may erase: after every stored checkpoint of conv and every
        fork point of its branches (so that the erasure removes no checkpoint and reaches no branch,
        which the model does not follow), neither tampered with, keyed (a retried append of an
        erased event is another question) nor erased already."""
        floor = max([conv.base_seq, conv.cursor] + [cp.cursor for cp in self.cps[conv.cid].values() if not cp.pruned]
                    + [c.base_seq for c in self.convs.values() if c.forked_from == conv.cid])
        keyed = set(conv.keys.values())
        return [seq for seq in range(floor + 1, conv.head + 1)
                if conv.event(seq)[0] in ("tool_call", "tool_result")
                and seq not in conv.tampered and seq not in keyed and seq not in conv.erased]

    def ledger(self, cid: str) -> list[dict]:
        return [dict(zip(LEDGER_COLUMNS, row)) for row in self.app.execute(LEDGER, (cid,))]

    @precondition(lambda self: self.any(lambda c: c.status != "abandoned" and self.erasable(c)))
    @rule(data=st.data())
    def erase(self, data):
        """A DBA erases some tool calls and results (sql/190): the side-effect ledger keeps every call
        with its status (the model's), id, tool, effect, idempotency key and request id, marked
        content_erased where its call or answer was erased; the events keep those ids and nothing else."""
        cid = self.pick(data, lambda c: c.status != "abandoned" and self.erasable(c))
        conv = self.convs[cid]
        seqs = sorted(data.draw(st.sets(st.sampled_from(self.erasable(conv)), min_size=1), label="seqs"))
        before = self.ledger(cid)
        report = pgctx.erase(self.su, cid, seqs=seqs, reason="fuzz")
        at = conv.head + 1
        assert (report["erasure_seq"], report["erased"], report["checkpoints_removed"], report["fold_fallback"]) == \
            (at, len(seqs), {}, None)
        for seq in seqs:
            conv.erased[seq] = erased_payload(at, *conv.event(seq))
        for cp in self.cps[cid].values():  # an erasure discards the conversation's candidates (sql/190)
            if cp.phase == "PREPARED":
                cp.phase = "DISCARDED"
        conv.own.append(("erasure", self.su.execute("SELECT payload FROM pgctx.events WHERE conversation_id = %s"
                                                    " AND seq = %s", (cid, at)).fetchone()[0]))
        self.run.seen["erased " + "+".join(sorted({conv.event(q)[0] for q in seqs}))] += 1
        calls, recoveries = conv.calls()
        after = self.ledger(cid)
        assert [r["call_id"] for r in after] == [r["call_id"] for r in before], "an erased call left the ledger"
        for old, new in zip(before, after):
            erased = sorted(set(old["erased_seqs"]) | {q for q in (new["call_seq"], new["answer_seq"]) if q in seqs})
            assert new["erased_seqs"] == erased and new["content_erased"] == bool(erased)
            assert {k: new[k] for k in LEDGER_KEPT} == {k: old[k] for k in LEDGER_KEPT}
            assert new["status"] == conv.status_of(calls[new["call_id"]], recoveries)
            assert new["subject"] is None if new["call_seq"] in seqs else new["subject"] == old["subject"]
            assert new["error"] is None if new["answer_seq"] in seqs else new["error"] == old["error"]

    # --- what must be true after every step ---------------------------------------------------------

    @invariant()
    def consistent(self):
        self.run.steps += 1  # hypothesis runs the invariant after every step
        assert self.app.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        snap = self.snapshot()
        by_conv: dict[str, dict[str, list]] = {}
        for table, rows in snap.items():
            for row in rows:
                assert row["conversation_id"] in self.convs, f"a stray row in pgctx.{table}: {row}"
                by_conv.setdefault(row["conversation_id"], {}).setdefault(table, []).append(row)
        observed = {row[0]: row[1:] for row in self.app.execute(OBSERVED, (self.prefix,))}
        assert set(observed) == set(self.convs)
        for cid, conv in self.convs.items():
            self.check_conversation(conv, by_conv[cid], observed[cid])
        self.snap = snap

    def check_conversation(self, conv: Conv, rows: dict[str, list], observed: tuple) -> None:
        # every acknowledged event, as appended unless tampered with, and the head row after them
        events = rows.get("events", [])
        assert [(e["seq"], e["kind"], e["payload"]) for e in events] == [
            (seq, kind, conv.stored(seq)) for seq, (kind, _) in enumerate(conv.own, start=conv.base_seq + 1)]
        assert {e["event_key"]: e["seq"] for e in events if e["event_key"]} == conv.keys
        (row,) = rows["conversations"]
        assert (row["head_seq"], row["base_seq"], row["forked_from"], row["fork_version"], row["family"],
                row["branch_status"]) == (conv.head, conv.base_seq, conv.forked_from, conv.fork_version,
                                          conv.family, conv.status)
        # the chain verifies unless tampered with; the first bad seq is the lowest tampered one
        ok, first_bad, head_seq, version, cursor, summary = observed
        assert (ok, first_bad, head_seq) == (not conv.tampered, min(conv.tampered, default=None), conv.head)
        # the committed fold, and the summary a fold continues from
        assert (version, cursor) == (conv.version, conv.cursor)
        assert summary == self.expected_summary(conv), "the committed summary is not the one the model holds"
        for head in rows.get("fold_heads", []):
            assert (head["version"], head["cursor"], head["fallback_reason"] is not None) == \
                (conv.version, conv.cursor, conv.fallback)
        for table, seq in (("verified_points", conv.verified), ("chain_breaks", conv.standing)):
            assert [r["seq"] for r in rows.get(table, [])] == ([] if seq is None else [seq]), table
        # checkpoints: versions 1..n, legal phases, decided rows unchanged, committed folds continuous
        cps = self.cps[conv.cid]
        stored = {r["version"]: r for r in rows.get("checkpoints", [])}
        assert sorted(stored) == sorted(v for v, cp in cps.items() if not cp.pruned)
        assert sorted(cps) == list(range(1, len(cps) + 1))
        hashes = {e["seq"]: e["hash"] for e in events}
        for v, cp in cps.items():
            if not cp.pruned:
                assert stored[v]["phase"] == cp.phase
                assert {k: x for k, x in stored[v].items() if k not in DECIDED} == cp.row
            if cp.phase == "PREPARED":
                assert (cp.base_version, cp.base_cursor) == (conv.version, conv.cursor)
            if cp.phase == "COMMITTED":
                assert cp.cursor > cp.base_cursor
                assert cp.row["chain_hash"] == hashes[cp.cursor]
                if cp.base_version == 0:
                    assert cp.base_cursor == conv.base_seq
                else:
                    assert (cps[cp.base_version].phase, cps[cp.base_version].cursor) == ("COMMITTED", cp.base_cursor)


def test_random_programs_keep_every_invariant(conn, connect_as, roles):
    print(f"hypothesis seed {SEED}: replay with PGCTX_FUZZ_SEED={SEED} pytest tests/test_stateful_fuzz.py")
    run = Run()
    app = connect_as(roles.app)
    run_state_machine_as_test(seed(SEED)(lambda: Fuzz(conn, app, run)), settings=FUZZ)
    print(f"{run.steps} steps in {run.examples} programs; reached: {dict(sorted(run.seen.items()))}")
    assert run.steps >= MIN_STEPS
