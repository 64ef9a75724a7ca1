"""Plans that do not depend on first-seen statistics (issue 25, item 5).

A session keeps the plans it made: the generic plans of the functions with plan_cache_mode =
force_generic_plan from their first call, most others' after five. A pool's connections that
planned while the tables were empty or small kept reading as they did then once the log had grown
(sql/080, "Plans that do not depend on the statistics they were first made with"): the sum of the
unfolded tokens and the head row guard read the whole conversation through the event-key index,
and after autovacuum's first ANALYZE of a small log, seq scans read the whole log on every turn.

Here a real psycopg_pool pool plans every per-turn statement on empty
tables (and, in one case, again after an ANALYZE of the small tables, as autovacuum makes one);
then a long conversation grows in folds, to N and then 2N events, with autovacuum off for pgctx's
tables so nothing re-plans behind the test's back (or, in the third case, ANALYZE after each
growth, which re-plans with true statistics: generic plans must hold on a skewed log too). At
each size the same pooled sessions run a turn's statements on the long conversation under EXPLAIN
(ANALYZE, BUFFERS): the buffers each reads, which do not depend on timing, must not grow with the
history: a turn reads the unfolded range, the pinned evidence, the committed summary and the
folded events asked for, which stay the same size while the history doubles.
"""

from __future__ import annotations

import contextlib
import json
import random

import psycopg
import pytest
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

import pgctx
from pgctx import db
from pgctx.eventlog import event_tokens
from pgctx.summary import SCHEMA_VERSION

BUDGET = pgctx.Budget()  # what fold() and build_context() use by default: nothing is due here
LOOP = pgctx.Budget(window=16_384, fixed_input=1_024, output=2_048, margin=1_024)  # README's loop: folds
N = 1_500  # events of the long conversation at the first measure; 2N at the second
FILL = 4_000  # tokens of folded events the measured context asks for
TABLES = ("events", "conversations", "checkpoints", "fold_heads")
WORDS = ("parcel order refund courier depot address warehouse tracking express delivery window label "
         "weekend invoice customer status scan hub route driver").split()


def text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def turn_events(cid: str, turn: int) -> list[dict]:
    """A chat turn (user, assistant); every fourth turn also a read tool call and its result, so
    tool events are a fifth of the log (a generic plan weighs that share)."""
    rng = random.Random(f"{cid}-{turn}")
    events = [{"kind": "user", "payload": {"text": text(rng, 60)}}]
    if turn % 4 == 0:
        call = f"call-{turn}"
        events += [
            {"kind": "tool_call", "payload": {"tool": "lookup_order", "effect": "read", "call_id": call,
                                              "arguments": {"order_id": f"A-{turn}"}}},
            {"kind": "tool_result", "payload": {"call_id": call, "outcome": "succeeded", "request_id": f"r-{call}",
                                                "result": {"status": rng.choice(["in_transit", "at_depot"]),
                                                           "notes": text(rng, 40)}}},
        ]
    events.append({"kind": "assistant", "payload": {"text": text(rng, 60)}})
    return [{**e, "tokens": event_tokens(e["kind"], e["payload"])} for e in events]


class Conversation:
    def __init__(self, cid: str):
        self.cid, self.turn = cid, 0

    def next_events(self) -> list[dict]:
        self.turn += 1
        return turn_events(self.cid, self.turn)

    def grow(self, conn: psycopg.Connection, size: int) -> None:
        """Append turns 40 at a time, each batch followed by a fold with README's loop budget, until
        the conversation holds size events."""
        head = conn.execute("SELECT coalesce(max(head_seq), 0) FROM pgctx.conversations WHERE conversation_id = %s",
                            (self.cid,)).fetchone()[0]
        while head < size:
            batch = [e for _ in range(40) for e in self.next_events()]
            pgctx.append_many(conn, self.cid, batch)
            head += len(batch)
            pgctx.fold(conn, self.cid, budget=LOOP)


def agent_turn(conn: psycopg.Connection, conv: Conversation, batch: bool) -> None:
    """What an agent's turn runs: its events appended (one by one, or in one append_many), fold()
    with nothing due, the working context, and the fold check over the floor (the triggers and the
    boundary computed, as for a conversation near its budget)."""
    events = conv.next_events()
    if batch:
        pgctx.append_many(conn, conv.cid, events)
    else:
        for e in events:
            pgctx.append(conn, conv.cid, e["kind"], e["payload"])
    pgctx.fold(conn, conv.cid, budget=BUDGET)
    pgctx.build_context(conn, conv.cid, budget=BUDGET, fill=FILL)
    conn.execute("SELECT * FROM pgctx.fold_status(%s, %s, 0, %s)", (conv.cid, BUDGET.threshold, BUDGET.tail))


def buffers(conn: psycopg.Connection, sql: str, params) -> int:
    """Shared buffers (hit + read) the statement's execution touched, its functions' statements
    included: they run under its plan's function scan."""
    plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, FORMAT JSON) " + sql, params).fetchone()[0]
    top = plan[0]["Plan"]
    return top["Shared Hit Blocks"] + top["Shared Read Blocks"]


def measured_turn(conn: psycopg.Connection, conv: Conversation, batch: bool) -> dict[str, int]:
    """The buffers of each of a turn's statements, as pgctx runs them (db's named queries with the
    arguments pgctx.append, append_many, fold and build_context pass)."""
    events = conv.next_events()
    out = {}
    if batch:
        items = json.dumps([{"kind": e["kind"], "payload": e["payload"], "tokens": e["tokens"]} for e in events])
        out["append_events"] = buffers(conn, db.APPEND_EVENTS, (conv.cid, items, None))
    else:
        out["append_event"] = sum(buffers(conn, db.APPEND_EVENT, (conv.cid, e["kind"], Jsonb(e["payload"]), None, None,
                                                                  e["tokens"])) for e in events)
    out["fold_status"] = buffers(conn, db.FOLD_STATUS, dict(
        c=conv.cid, capacity=BUDGET.threshold, floor=BUDGET.floor, tail=BUDGET.tail, force=False, sv=SCHEMA_VERSION,
        hz=BUDGET.horizon))
    out["fold_status over the floor"] = buffers(conn, "SELECT * FROM pgctx.fold_status(%s, %s, 0, %s)",
                                                (conv.cid, BUDGET.threshold, BUDGET.tail))
    out["context_events"] = buffers(conn, db.CONTEXT_EVENTS, (conv.cid, FILL))
    return out


@pytest.mark.parametrize("stats", ["planned on empty tables", "re-planned after an ANALYZE of small tables",
                                   "analyzed as the log grows"])
def test_a_pool_that_planned_on_empty_tables_reads_what_a_turn_needs_not_the_history(dsn, stats):
    with psycopg.connect(dsn, autocommit=True) as owner:
        for table in TABLES:  # (before anything plans: changing a table's options re-plans)
            owner.execute(f"ALTER TABLE pgctx.{table} SET (autovacuum_enabled = false)")
        # (as the superuser, as the benches run: under the row-level security that binds every other
        # role, a lookup by call id cannot use the call id as an index condition, payload->>'call_id'
        # not being leakproof, and reads every tool event of the conversation whatever the plan: a
        # cost of its own, not of stale statistics, that this test would otherwise report)
        with ConnectionPool(dsn, min_size=2, max_size=2, kwargs={"autocommit": True}, open=True) as pool, \
                contextlib.ExitStack() as held:
            # 1. every pooled session plans the turn's statements on empty tables (and, in the second
            #    case, again after the small tables' first ANALYZE, as autovacuum makes one)
            sessions = [held.enter_context(pool.connection()) for _ in range(2)]
            pids = [s.info.backend_pid for s in sessions]
            for i, session in enumerate(sessions):
                warm = Conversation(f"warm-{i}")
                for t in range(12):
                    if t == 6 and stats == "re-planned after an ANALYZE of small tables":
                        owner.execute("ANALYZE")
                    agent_turn(session, warm, batch=(i == 1))
            held.close()  # back to the pool, which keeps them

            # 2. the log grows: other conversations, and a long one folded as an agent loop folds it
            others = [Conversation(f"other-{k}") for k in range(60)]
            long = Conversation("long")
            figures = {}
            for size in (N, 2 * N):
                for other in others:
                    other.grow(owner, size // 20)
                long.grow(owner, size)
                if stats == "analyzed as the log grows":
                    owner.execute("ANALYZE")
                # 3. the same pooled sessions run a turn on the long conversation
                with pool.connection() as a, pool.connection() as b:
                    assert sorted([a.info.backend_pid, b.info.backend_pid]) == sorted(pids), "the pool replaced a session"
                    by_pid = {a.info.backend_pid: a, b.info.backend_pid: b}
                    figures[size] = {}
                    for i, pid in enumerate(pids):
                        figures[size].update({f"{name} ({'batch' if i else 'one by one'})": n
                                              for name, n in measured_turn(by_pid[pid], long, batch=(i == 1)).items()})

    # 4. what each statement read did not grow with the history
    report = "\n".join(f"  {name}: {figures[N][name]} buffers at {N} events, {figures[2 * N][name]} at {2 * N}"
                       for name in figures[N])
    print(f"{stats}:\n{report}")  # (pytest -rP shows it: docs/benchmarks.md quotes it)
    grew = [name for name in figures[N] if figures[2 * N][name] > 1.25 * figures[N][name] + 30]
    assert not grew, f"reads grew with the history ({stats}): {grew}\n{report}"
