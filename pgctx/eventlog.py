"""Appending to and verifying the hash-chained event log (sql/030-050)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from psycopg.types.json import Jsonb

from pgctx import arguments, db
from pgctx.canonical import canonical_json
from pgctx.errors import PayloadTooLarge
from pgctx.messages import event_message
from pgctx.tokens import TokenCounter, default_counter


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
    erased: int = 0  # events the conversation's erasure records list (the reason names them)


def _json(value: Any) -> Jsonb:
    # canonical_json refuses what PostgreSQL cannot store (UnrepresentableJSON) before sending.
    return Jsonb(value, dumps=canonical_json)


def event_tokens(kind: str, payload: Any, counter: TokenCounter | None = None) -> int | None:
    """The tokens an event takes in a working context (stored with it at append).

    None for a payload that is not an object: the database refuses it (PC003).
    """
    if not isinstance(payload, Mapping):
        return None
    return (counter or default_counter()).message_tokens(event_message(kind, dict(payload)))


def append(
    conn: db.Connectable,
    conversation_id: str,
    kind: str,
    payload: Mapping[str, Any],
    *,
    event_key: str | None = None,
    tenant: str | None = None,
    counter: TokenCounter | None = None,
) -> int:
    """Append one event and return its seq (the original seq for a repeated ``event_key``).

    Its token count (``counter``, default :func:`pgctx.tokens.default_counter`) is stored with
    it. On an AsyncConnection or async pool this returns an awaitable.
    """
    arguments.text("conversation_id", conversation_id)
    arguments.text("kind", kind)
    arguments.text("event_key", event_key, optional=True)
    arguments.text("tenant", tenant, optional=True)
    return db.run(conn, append_op(conversation_id, kind, payload, event_key=event_key, tenant=tenant,
                                  counter=counter))


# The server refuses a payload over pgctx.max_payload_bytes() (PC004), but only once it has it:
# sent, parsed and canonicalized, 200 MiB took a minute, and counting its tokens first 0.2 s per
# MiB more. So one that large is refused here, before either, as the server would refuse it. The
# limit (IMMUTABLE) is read from the server once per process, when a payload first passes _LARGE.
_LARGE = 64 * 1024
_limit: list[int] = []


def max_payload_op() -> db.Op[int]:
    """pgctx.max_payload_bytes(), read from the server once per process (it is IMMUTABLE)."""
    if not _limit:
        _limit.append((yield from db.first(db.Query(db.MAX_PAYLOAD_BYTES))))
    return _limit[0]


def append_op(conversation_id: str, kind: str, payload: Mapping[str, Any], *, event_key: str | None = None,
              tenant: str | None = None, counter: TokenCounter | None = None) -> db.Op[int]:
    """append() as a step of a longer operation (see pgctx.db.run)."""
    text = canonical_json(payload)  # what is sent: serialized once, and measured before counting
    size = len(text.encode())
    if size > _LARGE and size > (limit := (yield from max_payload_op())):
        raise PayloadTooLarge(f"payload is {size} bytes in canonical form; the limit is {limit}")
    params = (conversation_id, kind, Jsonb(payload, dumps=lambda _: text), event_key, tenant,
              event_tokens(kind, payload, counter))
    return (yield from db.first(db.Query(db.APPEND_EVENT, params)))


def append_many(
    conn: db.Connectable,
    conversation_id: str,
    events: Iterable[Mapping[str, Any]],
    *,
    tenant: str | None = None,
    counter: TokenCounter | None = None,
) -> list[int]:
    """Append ``{"kind", "payload"[, "event_key"]}`` items in one statement; their seqs in order."""
    arguments.text("conversation_id", conversation_id)
    arguments.text("tenant", tenant, optional=True)
    counter = counter or default_counter()
    items = [{**e, "tokens": event_tokens(e.get("kind"), e.get("payload"), counter)}
             if isinstance(e, Mapping) and "tokens" not in e else e for e in events]
    return db.run(conn, _seqs(db.Query(db.APPEND_EVENTS, (conversation_id, _json(items), tenant))))


def _seqs(query: db.Query) -> db.Op[list[int]]:
    return [seq for _, seq in (yield query)]


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
    arguments.text("conversation_id", conversation_id)
    params = (
        conversation_id,
        from_seq,
        bytes.fromhex(from_hash) if from_hash else None,
        anchor_seq,
        bytes.fromhex(anchor_hash) if anchor_hash else None,
    )
    return db.run(conn, _report(conversation_id, db.Query(db.VERIFY_CHAIN, params)))


def _report(conversation_id: str, query: db.Query) -> db.Op[ChainReport]:
    ok, checked, first_bad_seq, reason, head_seq, head_hash, anchored, erased = db.one((yield query))
    return ChainReport(conversation_id, ok, checked, first_bad_seq, reason, head_seq, head_hash.hex(), anchored,
                       erased or 0)
