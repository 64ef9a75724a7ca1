"""Branches (article 十三): thin calls of sql/120_branches.sql."""

from __future__ import annotations

from typing import Any

from pgctx import db


def fork_conversation(conn: db.Connectable, source: str, at_seq: int, new_id: str) -> str:
    """Start branch ``new_id`` of ``source`` at its committed fold boundary ``at_seq``."""
    with db.transaction(conn) as c:
        return c.execute(db.FORK, (source, at_seq, new_id)).fetchone()[0]


def confirm_mainline(conn: db.Connectable, conversation_id: str) -> dict[str, Any]:
    """Make a branch the mainline; the family's other open branches are abandoned, never merged."""
    with db.transaction(conn) as c:
        return c.execute(db.CONFIRM_MAINLINE, (conversation_id,)).fetchone()[0]
