"""Appending to and verifying the hash-chained event log (sql/030-050)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb

from pgctx import db
from pgctx.canonical import canonical_json


@dataclass(frozen=True)
class ChainReport:
    """What pgctx.verify_chain (or the offline bundle verifier) found."""

    conversation_id: str
    ok: bool
    checked: int
    first_bad_seq: int | None
    reason: str
    head_seq: int | None
    head_hash: str | None
    anchored: bool


def _json(value: Any) -> Jsonb:
    # canonical_json refuses what PostgreSQL cannot store (UnrepresentableJSON) before sending.
    return Jsonb(value, dumps=canonical_json)


def append(
    conn: db.Connectable,
    conversation_id: str,
    kind: str,
    payload: Mapping[str, Any],
    *,
    event_key: str | None = None,
    tenant: str | None = None,
) -> int:
    """Append one event and return its seq (the original seq for a repeated ``event_key``)."""
    body = _json(payload)
    with db.transaction(conn) as c:
        row = c.execute(db.APPEND_EVENT, (conversation_id, kind, body, event_key, tenant)).fetchone()
    assert row is not None
    return row[0]


def append_many(
    conn: db.Connectable,
    conversation_id: str,
    events: Iterable[Mapping[str, Any]],
    *,
    tenant: str | None = None,
) -> list[int]:
    """Append ``{"kind", "payload"[, "event_key"]}`` items in one statement; their seqs in order."""
    body = _json(list(events))
    with db.transaction(conn) as c:
        rows = c.execute(db.APPEND_EVENTS, (conversation_id, body, tenant)).fetchall()
    return [seq for _, seq in rows]


def verify(
    conn: db.Connectable,
    conversation_id: str,
    *,
    from_seq: int = 0,
    from_hash: str | None = None,
    anchor_seq: int | None = None,
    anchor_hash: str | None = None,
) -> ChainReport:
    """Recompute a conversation's chain in the database (pgctx.verify_chain).

    ``from_seq``/``from_hash`` resume from a point verified before (``head_seq``/``head_hash``
    of an earlier report); ``anchor_seq``/``anchor_hash`` check the chain against a digest kept
    outside the database. Hashes are hex strings.
    """
    params = (
        conversation_id,
        from_seq,
        bytes.fromhex(from_hash) if from_hash else None,
        anchor_seq,
        bytes.fromhex(anchor_hash) if anchor_hash else None,
    )
    with db.transaction(conn) as c:
        row = c.execute(db.VERIFY_CHAIN, params).fetchone()
    assert row is not None
    ok, checked, first_bad_seq, reason, head_seq, head_hash, anchored = row
    return ChainReport(conversation_id, ok, checked, first_bad_seq, reason, head_seq, head_hash.hex(), anchored)
