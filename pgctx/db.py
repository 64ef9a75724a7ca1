"""How pgctx talks to PostgreSQL: one helper for connections and pools, and the named queries.

Every query is a one-line call of a stored function or a read of a view: the rules live in SQL
(see sql/), and Python only passes values in and results out, through the single error
translation boundary in :mod:`pgctx.errors`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Union

import psycopg
from psycopg_pool import ConnectionPool

from pgctx.errors import translated

Connectable = Union[psycopg.Connection, ConnectionPool]

APPEND_EVENT = "SELECT pgctx.append_event(%s, %s, %s, %s, %s::regrole)"
APPEND_EVENTS = "SELECT ordinality, seq FROM pgctx.append_events(%s, %s, %s::regrole)"
VERIFY_CHAIN = (
    "SELECT ok, checked, first_bad_seq, reason, head_seq, head_hash, anchored"
    " FROM pgctx.verify_chain(%s, from_seq => %s, from_hash => %s, anchor_seq => %s, anchor_hash => %s)"
)
CHAIN_HEADS = "SELECT conversation_id, head_seq, head_hash FROM pgctx.chain_heads ORDER BY conversation_id"
PREPARE_FOLD = (
    "SELECT pgctx.prepare_fold(%s, expected_version => %s, expected_cursor => %s, new_cursor => %s,"
    " summary => %s, schema_version => %s, summarizer => %s)"
)
COMMIT_FOLD = "SELECT pgctx.commit_fold(%s, %s)"
DISCARD_FOLD = "SELECT pgctx.discard_fold(%s, %s, %s)"
RECOVER = "SELECT pgctx.recover(%s, full_check => %s)"
MUST_KEEP = "SELECT pgctx.must_keep(%s, %s, %s, %s)"
FOLD_VIOLATIONS = "SELECT sqlstate, message FROM pgctx.fold_violations(%s, %s, %s, %s, %s, %s)"
COMMITTED_FOLD = "SELECT version, cursor, summary FROM pgctx.committed_fold(%s)"
FORK = "SELECT pgctx.fork_conversation(%s, %s, %s)"
CONFIRM_MAINLINE = "SELECT pgctx.confirm_mainline(%s)"
EVENTS_RANGE = (
    "SELECT seq, kind, payload FROM pgctx.events WHERE conversation_id = %s AND seq > %s AND seq <= %s ORDER BY seq"
)
HEAD_SEQ = "SELECT head_seq FROM pgctx.conversations WHERE conversation_id = %s"
SUMMARY_SCHEMA = "SELECT schema FROM pgctx.summary_schemas WHERE schema_version = %s"

# One statement, so the header (conversation row) and the events come from one snapshot: a head
# row out of step with the log is then visible in the bundle, not an artefact of two reads.
EXPORT = (
    "SELECT c.tenant::text, encode(c.genesis_hash, 'hex'), c.head_seq, encode(c.head_hash, 'hex'), c.base_seq, c.forked_from,"
    " e.seq, e.kind, e.event_key, encode(e.prev_hash, 'hex'), encode(e.hash, 'hex'), e.created_at, e.payload::text"
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
    if isinstance(target, ConnectionPool):
        with target.connection() as conn, transaction(conn) as inner:
            yield inner
        return
    with translated(), target.transaction():
        yield target
