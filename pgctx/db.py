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
CONVERSATION = (
    "SELECT conversation_id, tenant::text, encode(genesis_hash, 'hex'), head_seq, encode(head_hash, 'hex')"
    " FROM pgctx.conversations WHERE conversation_id = %s"
)
EVENTS_FOR_EXPORT = (
    "SELECT seq, kind, event_key, encode(prev_hash, 'hex'), encode(hash, 'hex'), created_at, payload::text"
    " FROM pgctx.events WHERE conversation_id = %s ORDER BY seq"
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
