"""A client process for tests/test_fault_injection.py to SIGKILL at a chosen point.

    python tests/fold_worker.py SCENARIO DSN CONVERSATION_ID

Scenarios (where the process stops, announces itself and blocks until it is killed):

  model_call      pgctx.fold() with a summarizer that blocks inside summarize(): the model call
                  is in flight.
  after_prepare   pgctx.fold()'s own operation (pgctx.fold_loop._fold, driven by pgctx.db.run on
                  this connection), paused right after the db.PREPARE_FOLD step returned.
  after_commit    the same, paused right after the db.COMMIT_FOLD step returned (fold() has not
                  returned yet).
  tool_call       an agent records a tool call (with its idempotency key) and is about to call
                  the tool: the result is never recorded.

At the stopping point the worker prints one JSON line on stdout, the signal the parent waits for:
{"scenario", "backend_pid", "tx" (this connection's transaction status), ...details}. It then
sleeps; if it is ever woken instead of killed it prints a second line and exits 3, so a test
that forgot to kill it cannot pass by accident.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

import psycopg

import pgctx
from pgctx import db
from pgctx.fold_loop import _fold

BLOCK_SECONDS = 120  # far longer than any test waits: the parent kills the process first

# the tool call scenario tool_call records (the parent checks for exactly this call)
TOOL_CALL = {"tool": "refund", "call_id": "call-refund", "idempotency_key": "idem-refund-10086",
             "arguments": {"order_id": "10086", "amount": "25.00"}, "effect": "irreversible"}


def signal_and_block(conn: psycopg.Connection, scenario: str, **details: Any) -> None:
    line = {"scenario": scenario, "backend_pid": conn.info.backend_pid,
            "tx": conn.info.transaction_status.name, **details}
    print(json.dumps(line), flush=True)
    time.sleep(BLOCK_SECONDS)
    print(json.dumps({"scenario": scenario, "error": "woke up: nobody killed this worker"}), flush=True)
    sys.exit(3)


def pause_after(op: db.Op[Any], sql: str, on_pause: Callable[[Any], None]) -> db.Op[Any]:
    """Forward every step of ``op`` (and every exception the driver throws back); once the step
    whose SQL is ``sql`` has returned, call ``on_pause(rows)`` before handing the rows on."""
    value: Any = None
    error: BaseException | None = None
    while True:
        try:
            step = op.throw(error) if error is not None else op.send(value)
        except StopIteration as stop:
            return stop.value
        value, error = None, None
        try:
            value = yield step
        except Exception as exc:  # the driver hands the step's failure back: so does this wrapper
            error = exc
            continue
        if isinstance(step, db.Query) and step.sql == sql:
            on_pause(value)


class BlockingSummarizer:
    """A model call that never comes back: it announces it is in flight, then blocks."""

    id = "fault-injection/blocking"

    def __init__(self, conn: psycopg.Connection):
        self.conn = conn

    def summarize(self, request: pgctx.FoldRequest) -> Any:
        signal_and_block(self.conn, "model_call", from_seq=request.from_seq, to_seq=request.to_seq,
                         base_version=request.base_version)


def main(scenario: str, dsn: str, conversation_id: str) -> None:
    conn = psycopg.connect(dsn, autocommit=True)
    if scenario == "model_call":
        pgctx.fold(conn, conversation_id, summarizer=BlockingSummarizer(conn), force=True)
    elif scenario in ("after_prepare", "after_commit"):
        sql, name = (db.PREPARE_FOLD, "version") if scenario == "after_prepare" else (db.COMMIT_FOLD, "cursor")
        op = _fold(conversation_id, pgctx.BuiltinSummarizer(), pgctx.Budget(), True, None, 3)
        db.run(conn, pause_after(op, sql, lambda rows: signal_and_block(conn, scenario, **{name: db.one(rows)[0]})))
    elif scenario == "tool_call":
        seq = pgctx.append(conn, conversation_id, "tool_call", TOOL_CALL, event_key=TOOL_CALL["call_id"])
        signal_and_block(conn, scenario, seq=seq)  # ... and here the agent would call the refund service
    else:
        raise SystemExit(f"unknown scenario {scenario!r}")
    print(json.dumps({"scenario": scenario, "error": "reached the end without stopping"}), flush=True)
    sys.exit(4)


if __name__ == "__main__":
    main(*sys.argv[1:])
