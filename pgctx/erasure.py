"""Erasing conversation content and retention: thin calls of sql/190_erasure.sql.

Erasure removes an event's content (payload and salt) and every summary built on it, and records
an erasure event in the conversation's chain, so the chain, digests and bundles still verify and
say what was erased. Only members of ``pgctx_eraser`` (and the schema owner) may call these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from pgctx import arguments, db
from pgctx.errors import translated

# The tables an erasure rewrites: their old row versions hold the erased content until VACUUM.
TOUCHED_TABLES = ("pgctx.events", "pgctx.checkpoints", "pgctx.fold_heads", "pgctx.conversations")

# What VACUUM cannot reach, said by `pgctx erase --vacuum` (docs/guarantees.md, "Erasure").
OPERATOR_REMAINS = (
    "WAL segments and archived WAL still hold the erased content until they are recycled or expire",
    "base backups and snapshots taken before the erasure still hold it until they expire",
    "physical replicas run their own VACUUM as they replay this one; logical subscribers and exports are separate copies",
)


@dataclass(frozen=True)
class Expired:
    """A conversation idle past its retention policy (pgctx.expired_conversations)."""

    conversation_id: str
    tenant: str | None
    last_event_at: datetime
    idle_days: int


def erase(
    conn: db.Connectable, conversation_id: str, *, seqs: Sequence[int] | None = None, reason: str
) -> dict[str, Any]:
    """Erase the content of ``seqs`` of a conversation (all of its events when None).

    Returns the SQL report: ``{conversation_id, erasure_seq, erased, seqs, checkpoints_removed,
    fold_fallback}`` (``erased`` 0 and no erasure event when everything named was erased before).
    Every function here returns an awaitable on an AsyncConnection or async pool.
    """
    arguments.text("conversation_id", conversation_id)
    arguments.text("reason", reason)
    if seqs is None:
        query = db.Query("SELECT pgctx.erase_conversation(%s, %s)", (conversation_id, reason))
    else:
        query = db.Query("SELECT pgctx.erase_events(%s, %s::bigint[], %s)", (conversation_id, list(seqs), reason))
    return db.run(conn, db.first(query))


def _reports(query: db.Query) -> db.Op[list[dict[str, Any]]]:
    return [r[0] for r in (yield query)]


def erase_tenant(conn: db.Connectable, tenant: str, *, reason: str) -> list[dict[str, Any]]:
    """Erase every conversation of a tenant in one transaction; one report per conversation."""
    return db.run(conn, _reports(db.Query("SELECT pgctx.erase_tenant(%s, %s)", (tenant, reason))))


def set_retention_policy(conn: db.Connectable, idle_days: int | None, *, tenant: str | None = None) -> None:
    """Erase conversations idle for more than ``idle_days`` (None removes the policy).

    ``tenant`` None is the global policy; a tenant's own policy overrides it.
    """
    return db.run(conn, _done(db.Query("SELECT pgctx.set_retention_policy(%s, %s)", (tenant, idle_days))))


def _done(query: db.Query) -> db.Op[None]:
    yield query


def _expired(query: db.Query) -> db.Op[list[Expired]]:
    return [Expired(*row) for row in (yield query)]


def expired(conn: db.Connectable, *, as_of: datetime | None = None) -> list[Expired]:
    """What :func:`erase_expired` would erase (a dry run)."""
    return db.run(conn, _expired(db.Query("SELECT conversation_id, tenant::text, last_event_at, idle_days"
                                          " FROM pgctx.expired_conversations(coalesce(%s, now()))", (as_of,))))


def erase_expired(
    conn: db.Connectable, *, reason: str = "retention policy", as_of: datetime | None = None
) -> list[dict[str, Any]]:
    """Erase every conversation idle past its retention policy; one report per conversation."""
    return db.run(conn, _reports(db.Query("SELECT pgctx.erase_expired(%s, coalesce(%s, now()))", (reason, as_of))))


def vacuum(conn: psycopg.Connection) -> list[str]:
    """VACUUM the tables an erasure rewrites (``conn`` in autocommit: VACUUM runs outside a
    transaction); returns the tables vacuumed. What VACUUM cannot reach is OPERATOR_REMAINS."""
    if not conn.autocommit:
        raise ValueError("vacuum needs an autocommit connection (VACUUM cannot run inside a transaction)")
    with translated(api=True):
        for table in TOUCHED_TABLES:
            conn.execute(f"VACUUM (ANALYZE) {table}")
    return list(TOUCHED_TABLES)
