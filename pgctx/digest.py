"""Digests: each conversation's chain head, kept outside the database.

In-database verification catches edits by anyone below the table owner, but a superuser can
rewrite events and recompute every hash. A digest taken earlier and stored elsewhere (object
storage with retention, a ticket, a signed mail) proves history against that: the hash at the
digest's seq must still be there, unchanged. Format::

    {"format": "pgctx-digest", "version": 1, "taken_at": ISO-8601, "database": name,
     "conversations": [{"conversation_id", "head_seq", "head_hash"}, ...]}
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import Any

from pgctx import db
from pgctx.errors import BundleError, ConversationNotFound
from pgctx.eventlog import ChainReport, verify

FORMAT = "pgctx-digest"
VERSION = 1


def take_digest(conn: db.Connectable) -> dict[str, Any]:
    """Every visible conversation's (head seq, head hash), with the time it was taken."""
    with db.transaction(conn) as c:
        database = c.execute("SELECT current_database()").fetchone()[0]
        heads = c.execute(db.CHAIN_HEADS).fetchall()
    return {
        "format": FORMAT,
        "version": VERSION,
        "taken_at": datetime.now(timezone.utc).isoformat(),
        "database": database,
        "conversations": [
            {"conversation_id": cid, "head_seq": seq, "head_hash": hash_} for cid, seq, hash_ in heads
        ],
    }


def anchors(digest: dict[str, Any]) -> dict[str, tuple[int, str]]:
    """conversation id -> (seq, hex hash) from a digest, after checking its format."""
    if digest.get("format") != FORMAT or digest.get("version") != VERSION:
        raise BundleError(f"not a {FORMAT} v{VERSION} document")
    return {c["conversation_id"]: (c["head_seq"], c["head_hash"]) for c in digest["conversations"]}


def verify_against_digest(
    conn: db.Connectable,
    digest: dict[str, Any],
    *,
    conversation_ids: Iterable[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[ChainReport]:
    """Verify conversations in the database, anchoring each one the digest knows.

    By default checks every conversation of the digest plus every one now in the database (those
    created after the digest are reported "consistent, unanchored"). A conversation the digest
    records that is gone is a failure: deleted history.
    """
    known = anchors(digest)
    if conversation_ids is None:
        with db.transaction(conn) as c:
            present = [row[0] for row in c.execute(db.CHAIN_HEADS)]
        conversation_ids = sorted(set(present) | set(known))
    ids = list(conversation_ids)
    reports = []
    for done, cid in enumerate(ids, start=1):
        seq, hash_ = known.get(cid, (None, None))
        try:
            reports.append(verify(conn, cid, anchor_seq=seq, anchor_hash=hash_))
        except ConversationNotFound:
            reports.append(ChainReport(cid, False, 0, 1, f"conversation missing: the digest records it at seq {seq}",
                                       None, None, False))
        if progress:
            progress(done, len(ids))
    return reports
