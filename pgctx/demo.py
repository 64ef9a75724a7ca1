"""`pgctx demo`: the article's order 10086 story on a real PostgreSQL.

Starts a throwaway local server unless a DSN is given, installs the schema with the alembic
migrations, appends a scripted conversation (a user asks to move order 10086's delivery, the
agent calls the delivery service, the service answers), verifies the chain in the database and
offline from an exported bundle, and prints the chain heads.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Callable

import psycopg

import pgctx
from pgctx.embedded import EmbeddedPostgres

STORY = [
    ("system", {"text": "You are the order assistant. Never modify an order the user did not authorize."}),
    ("user", {"text": "把订单 10086 改成明天送达", "translation": "Change order 10086 to deliver tomorrow"}),
    ("approval", {"scope": {"order_id": "10086", "fields": ["delivery_date"]}, "granted_by": "user",
                  "text": "The user may modify order 10086 only"}),
    ("tool_call", {"tool": "update_delivery_date", "call_id": "call-1", "effect": "write",
                   "idempotency_key": "k-10086-0902",
                   "arguments": {"order_id": "10086", "date": "2026-09-02"}}),
    ("tool_result", {"call_id": "call-1", "outcome": "succeeded", "request_id": "req-abc",
                     "result": {"order_id": "10086", "delivery_date": "2026-09-02"}}),
    ("assistant", {"text": "Order 10086 will now arrive on 2026-09-02."}),
]


def run(dsn: str | None = None, out: Callable[[str], None] = print) -> bool:
    """Tell the story; returns True when every check passed."""
    if dsn:
        return _tell(dsn, out)
    out("starting a throwaway PostgreSQL (use --dsn or PGCTX_DSN for your own server) ...")
    server = EmbeddedPostgres()
    try:
        out(f"  PostgreSQL binaries: {server.bindir}")
        return _tell(server.superuser_dsn("test"), out)
    finally:
        server.stop()


def _tell(dsn: str, out: Callable[[str], None]) -> bool:
    out("installing the pgctx schema (alembic migrations) ...")
    pgctx.migrate(dsn)
    conversation = f"order-10086-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        out(f"\nappending conversation {conversation}:")
        for number, (kind, payload) in enumerate(STORY, start=1):
            seq = pgctx.append(conn, conversation, kind, payload, event_key=f"turn-{number}")
            out(f"  seq {seq:>2}  {kind:<12} {pgctx.canonical_json(payload)[:88]}")

        # The agent lost the acknowledgement of the tool result and appends it again: the client
        # event key makes that a no-op that returns the original seq.
        kind, payload = STORY[4]
        again = pgctx.append(conn, conversation, kind, payload, event_key="turn-5")
        out(f"  (tool_result re-sent with event key 'turn-5' after a lost acknowledgement: "
            f"seq {again} returned, nothing written)")

        report = pgctx.verify(conn, conversation)
        out(f"\nverify_chain in the database: ok={report.ok} checked={report.checked} -> {report.reason}")

        bundle = io.StringIO()
        pgctx.export_bundle(conn, conversation, bundle)
        offline = pgctx.verify_bundle(bundle.getvalue().encode("utf-8").split(b"\n"))
        out(f"offline verification of the exported bundle (no database): ok={offline.ok} -> {offline.reason}")

        digest = pgctx.take_digest(conn)
        anchored = pgctx.verify_against_digest(conn, digest, conversation_ids=[conversation])[0]
        out(f"against a digest kept outside the database: ok={anchored.ok} -> {anchored.reason}")

        out("\nchain heads (keep these outside the database with `pgctx digest`):")
        for row in conn.execute(
            "SELECT conversation_id, head_seq, head_hash FROM pgctx.chain_heads WHERE conversation_id = %s",
            (conversation,),
        ):
            out(f"  {row[0]}  seq {row[1]}  {row[2]}")
    return report.ok and offline.ok and anchored.ok and again == 5
