"""How pgctx talks to PostgreSQL: one helper for connections and pools, and the named queries.

Every query is a one-line call of a stored function or a read of a view: the rules live in SQL
(see sql/), and Python only passes values in and results out, through the single error
translation boundary in :mod:`pgctx.errors`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, Union

import psycopg
from psycopg.rows import tuple_row
from psycopg.types.json import set_json_loads
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from pgctx import canonical
from pgctx.errors import translated

Connectable = Union[psycopg.Connection, ConnectionPool, psycopg.AsyncConnection, AsyncConnectionPool]


def _connectable(target: Any) -> None:
    """A TypeError at once for what is not a Connectable (a DSN string, most often)."""
    if isinstance(target, (psycopg.Connection, ConnectionPool, psycopg.AsyncConnection, AsyncConnectionPool)):
        return
    hint = (": connect first (psycopg.connect(dsn), or a psycopg_pool pool); only pgctx.migrate takes a DSN"
            if isinstance(target, str) else "")
    raise TypeError(f"conn must be a psycopg connection or pool, got {type(target).__name__}{hint}")

APPEND_EVENT = "SELECT pgctx.append_event(%s, %s, %s, %s, %s, %s)"
APPEND_EVENTS = "SELECT ordinality, seq FROM pgctx.append_events(%s, %s, %s)"
VERIFY_CHAIN = (
    "SELECT ok, checked, first_bad_seq, reason, head_seq, head_hash, anchored, erased"
    " FROM pgctx.verify_chain(%s, from_seq => %s, from_hash => %s, anchor_seq => %s, anchor_hash => %s)"
)
CHAIN_HEADS = "SELECT conversation_id, head_seq, head_hash FROM pgctx.chain_heads ORDER BY conversation_id"
PREPARE_FOLD = (
    "SELECT pgctx.prepare_fold(%s, expected_version => %s, expected_cursor => %s, new_cursor => %s,"
    " summary => %s, schema_version => %s, summarizer => %s, tokens => %s, horizon => %s)"
)
COMMIT_FOLD = "SELECT pgctx.commit_fold(%s, %s)"
DISCARD_FOLD = "SELECT pgctx.discard_fold(%s, %s, %s)"
RECOVER = "SELECT pgctx.recover(%s, full_check => %s)"
MUST_KEEP = "SELECT pgctx.must_keep(%s, %s, %s, %s, %s, %s)"
FOLD_VIOLATIONS = "SELECT sqlstate, message FROM pgctx.fold_violations(%s, %s, %s, %s, %s, %s, %s, %s)"
COMMITTED_FOLD = "SELECT version, cursor, summary FROM pgctx.committed_fold(%s)"
FORK = "SELECT pgctx.fork_conversation(%s, %s, %s)"
CONFIRM_MAINLINE = "SELECT pgctx.confirm_mainline(%s)"
# after COMMITTED_FOLD, in its transaction: the head only grows, so it is never before that fold's
# cursor. Two statements, not a join of the table and the function: on Citus that join is sent to
# the conversation's shard, committed_fold with it, whose reads there are refused (nested).
HEAD_SEQ = "SELECT head_seq FROM pgctx.conversations WHERE conversation_id = %s"
# the must-keep items (of schema_version sv, horizon hz) and the events of a fold of lo+1..hi onto
# committed version v: function calls only, no table, so on Citus the statement is not sent to a
# shard with them
_FOLD_INPUT = (
    "pgctx.must_keep({c}, {lo}, {hi}, pgctx.base_summary({c}, {v}), {sv}, {hz}) AS must_keep,"
    " pgctx.fold_events({c}, {lo}, {hi}) AS events"
)
FOLD_INPUT = "SELECT " + _FOLD_INPUT.format(c="%(c)s", lo="%(lo)s", hi="%(hi)s", v="%(v)s", sv="%(sv)s",
                                            hz="%(hz)s")
SUMMARY_SCHEMA = "SELECT schema FROM pgctx.summary_schemas WHERE schema_version = %s"
# fold_status (the policy: whether a fold is due, and where it ends, and the stored token count of
# the committed summary) and, when a fold is due or forced, the summary it continues from and its
# input (a forced fold goes to the full boundary, leaving no tail), in one snapshot: one round trip
# for fold()'s reads. With nothing due no summary crosses the wire (a large one is 100s of kB). OFFSET 0 keeps the lateral
# subquery whole: pulled up into the join, its WHERE became a join filter applied after must_keep
# and the events were computed, so a call with no fold due did the work and threw it away.
FOLD_STATUS = (
    "SELECT s.version, s.cursor, s.head_seq, s.unfolded_tokens, s.evidence_tokens, s.triggers, s.due, s.reason,"
    " s.summary_tokens, i.summary, i.hi, i.must_keep, i.events"
    " FROM pgctx.fold_status(%(c)s, %(capacity)s, %(floor)s, %(tail)s) s"
    " LEFT JOIN LATERAL (SELECT x.hi, pgctx.base_summary(%(c)s, s.version) AS summary, "
    + _FOLD_INPUT.format(c="%(c)s", lo="s.cursor", hi="x.hi", v="s.version", sv="%(sv)s", hz="%(hz)s")
    + " FROM (SELECT CASE WHEN %(force)s THEN s.full_boundary ELSE s.boundary END AS hi) x"
    " WHERE x.hi > s.cursor AND (%(force)s OR s.due) OFFSET 0) i ON true"
)
SERIALIZE_FOLDS = "SELECT pgctx.serialize_folds(%s)"
CONTEXT_EVENTS = "SELECT section, seq, kind, payload, tokens, reason, hash FROM pgctx.context_events(%s, fill => %s)"
RETRACT_LAST = "SELECT seq, kind, payload FROM pgctx.retract_last(%s)"
CLEAR_VIEW = "SELECT pgctx.clear_view(%s)"
MAX_PAYLOAD_BYTES = "SELECT pgctx.max_payload_bytes()"
EVIDENCE_TOKENS = "SELECT coalesce(sum(tokens), 0) FROM pgctx.context_events(%s) WHERE section = 'evidence'"
# pgctx.tool_calls itself, not pgctx.side_effects filtered to one conversation (the same rows): a
# statement naming no table, so on Citus it is not sent to a shard with tool_calls' own reads
UNKNOWN_CALLS = (
    "SELECT call_id, tool, effect, idempotency_key, call_seq FROM pgctx.tool_calls(%s)"
    " WHERE status = 'unknown' ORDER BY call_seq"
)

# One statement, so the header (conversation row) and the events come from one snapshot: a head
# row out of step with the log is then visible in the bundle, not an artefact of two reads.
EXPORT = (
    "SELECT c.tenant::text, encode(c.genesis_hash, 'hex'), c.head_seq, encode(c.head_hash, 'hex'), c.base_seq, c.forked_from,"
    " e.seq, e.kind, e.event_key, encode(e.prev_hash, 'hex'), encode(e.hash, 'hex'), e.created_at,"
    " encode(e.salt, 'hex'), encode(e.payload_digest, 'hex'), e.erased_in, e.payload::text"
    " FROM pgctx.conversations c LEFT JOIN pgctx.events e ON e.conversation_id = c.conversation_id"
    " WHERE c.conversation_id = %s ORDER BY e.seq"
)


@contextlib.contextmanager
def transaction(target: Connectable) -> Iterator[psycopg.Connection]:
    """A transaction on ``target`` with pgctx errors translated.

    On a connection that is idle this is a transaction committed at the end of the block; inside
    the caller's own transaction it is a savepoint, so pgctx calls compose with the caller's
    work. A pool lends a connection for the block.
    """
    _connectable(target)
    if isinstance(target, ConnectionPool):
        with _lent(target) as conn, transaction(conn) as inner:
            yield inner
        return
    with translated(api=True), target.transaction():
        yield target


# --- pools after a lost connection ---------------------------------------------------------
#
# When a call's connection breaks (the server crashed or restarted, the network dropped it), the
# connections idle in its pool died with it, but a pool finds that out only by using them: each
# would fail the next call it is lent to, or, with the pool's check= callback, be tested, thrown
# away and followed by psycopg_pool's backoff before the next test (1 s, 2 s, 4 s...: a pool of 6
# dead idle connections outwaits the default 30 s timeout). pool.check() tests them all at once,
# without backoff, and replaces the dead ones in the background (once the server is back); when
# only this session died (pg_terminate_backend, idle_session_timeout) it costs a round trip per
# idle connection. The broken call still raises; nothing is retried (a write in flight may have
# committed). docs/guarantees.md#server-crashes says which calls fail.


@contextlib.contextmanager
def _lent(pool: ConnectionPool) -> Iterator[psycopg.Connection]:
    """A connection of ``pool`` for one call; the pool is checked when the call broke it."""
    conn = None
    try:
        with pool.connection() as conn:
            yield conn
    except Exception:
        if conn is not None and conn.broken:
            pool.check()
        raise


@contextlib.asynccontextmanager
async def _alent(pool: AsyncConnectionPool) -> AsyncIterator[psycopg.AsyncConnection]:
    """:func:`_lent` for an async pool."""
    conn = None
    try:
        async with pool.connection() as conn:
            yield conn
    except Exception:
        if conn is not None and conn.broken:
            await pool.check()
        raise


# --- one implementation for sync and async connections -------------------------------------
#
# An operation that needs several round trips (fold, build_context, reconcile) is written once
# as a generator that yields steps and receives their results; run() drives it on a psycopg
# Connection or pool and returns the result, or, on an AsyncConnection or async pool, returns a
# coroutine for the caller to await. Each Query is its own transaction (or a savepoint inside
# the caller's), so no session state is kept between statements (pgbouncer in transaction mode);
# Begin/End bracket the few steps that must share one transaction.

T = TypeVar("T")


@dataclass(frozen=True)
class Query:
    sql: str
    params: tuple[Any, ...] | dict[str, Any] = ()


@dataclass(frozen=True)
class Call:
    """Call application code (a summarizer, a resolver); async callables are awaited."""

    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()


class Begin:
    """Open a transaction that the following steps share, until End."""


class End:
    """Commit the transaction opened by the last Begin."""


Op = Generator[Any, Any, T]


def run(target: Connectable, op: Op[T]) -> T:
    """Drive ``op`` on ``target``: its result, or an awaitable of it for async connections."""
    _connectable(target)
    if isinstance(target, (psycopg.AsyncConnection, AsyncConnectionPool)):
        return _arun(target, op)  # type: ignore[return-value]
    if isinstance(target, ConnectionPool):
        with _lent(target) as conn:
            return run(conn, op)
    conn = target
    open_tx: list[psycopg.Transaction] = []
    value: Any = None
    error: BaseException | None = None
    try:
        while True:
            try:
                step = op.throw(error) if error is not None else op.send(value)
            except StopIteration as stop:
                return stop.value
            value, error = None, None
            try:
                if isinstance(step, Query):
                    with translated(api=True), _statement_transaction(conn), conn.cursor(row_factory=tuple_row) as cur:
                        if step.sql in PAYLOAD_READS:
                            set_json_loads(_json_loads, cur)
                        value = cur.execute(step.sql, step.params).fetchall()
                elif isinstance(step, Call):
                    value = step.fn(*step.args)
                elif step is Begin:
                    tx = conn.transaction()
                    tx.__enter__()
                    open_tx.append(tx)
                elif step is End:
                    open_tx.pop().__exit__(None, None, None)
                else:
                    raise TypeError(f"unknown step {step!r}")
            except Exception as exc:  # handed to the operation, which may recover or re-raise
                error = exc
    finally:
        while open_tx:  # the operation ended inside Begin: roll back what it left open
            open_tx.pop().__exit__(RuntimeError, RuntimeError("operation aborted"), None)


async def _arun(target: psycopg.AsyncConnection | AsyncConnectionPool, op: Op[T]) -> T:
    if isinstance(target, AsyncConnectionPool):
        async with _alent(target) as conn:
            return await _arun(conn, op)
    conn = target
    open_tx: list[psycopg.AsyncTransaction] = []
    value: Any = None
    error: BaseException | None = None
    try:
        while True:
            try:
                step = op.throw(error) if error is not None else op.send(value)
            except StopIteration as stop:
                return stop.value
            value, error = None, None
            try:
                if isinstance(step, Query):
                    with translated(api=True):
                        async with _statement_transaction(conn), conn.cursor(row_factory=tuple_row) as cur:
                            if step.sql in PAYLOAD_READS:
                                set_json_loads(_json_loads, cur)
                            value = await (await cur.execute(step.sql, step.params)).fetchall()
                elif isinstance(step, Call):
                    if inspect.iscoroutinefunction(step.fn) or inspect.iscoroutinefunction(
                            getattr(step.fn, "__call__", None)):
                        value = await step.fn(*step.args)
                    else:
                        # a blocking model call must not stall the event loop
                        value = await asyncio.to_thread(step.fn, *step.args)
                        if inspect.isawaitable(value):
                            value = await value
                elif step is Begin:
                    tx = conn.transaction()
                    await tx.__aenter__()
                    open_tx.append(tx)
                elif step is End:
                    await open_tx.pop().__aexit__(None, None, None)
                else:
                    raise TypeError(f"unknown step {step!r}")
            except Exception as exc:
                error = exc
    finally:
        while open_tx:
            await open_tx.pop().__aexit__(RuntimeError, RuntimeError("operation aborted"), None)


# The reads that return stored payloads (or summaries made of them) as jsonb: their cursors parse
# with _json_loads. Only these: setting a loader on a cursor costs ~10% of a Python append.
PAYLOAD_READS = frozenset({CONTEXT_EVENTS, FOLD_STATUS, FOLD_INPUT, COMMITTED_FOLD,
                           RETRACT_LAST, MUST_KEEP})


def _json_loads(data: bytes | str) -> Any:
    """json.loads, as psycopg loads json by default; what it cannot parse and PostgreSQL stores (a
    payload nested deeper than Python's recursion limit, an integer of more than 4,300 digits) is
    parsed by pgctx.canonical.loads, which keeps its own stack and reads such integers exactly.
    Set on pgctx's own cursors of PAYLOAD_READS only: the caller's connection keeps its loaders."""
    try:
        return json.loads(data)
    except (RecursionError, ValueError):
        return canonical.loads(data)


def _statement_transaction(conn: psycopg.Connection | psycopg.AsyncConnection) -> Any:
    """The transaction one statement runs in: none of its own when it already is one (an idle
    autocommit connection: no BEGIN/COMMIT round trips), else a transaction or a savepoint."""
    if conn.autocommit and conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
        return contextlib.nullcontext()
    return conn.transaction()


def one(rows: list[tuple[Any, ...]]) -> tuple[Any, ...]:
    """The single row a stored-function call returns."""
    assert len(rows) == 1, rows
    return rows[0]


def first(query: Query) -> Op[Any]:
    """The single value a stored-function call returns."""
    return one((yield query))[0]


def rows(query: Query) -> Op[list[tuple[Any, ...]]]:
    return (yield query)
