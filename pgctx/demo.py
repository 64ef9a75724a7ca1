"""`pgctx demo`: the article's order 10086 story, end to end, on a real PostgreSQL.

Starts a throwaway local server unless a DSN is given, installs the schema with the alembic
migrations, and tells the story: a user asks to move order 10086's delivery, allows changes to
that order only, asks for a call before the courier arrives and corrects the address; the agent
changes the order (a write with an idempotency key) and refunds the fee (an irreversible call
that times out, so its outcome is `unknown`); then, for a long stretch, the user keeps asking
where the parcel is and the agent tracks it (80 look-ups with long scan logs). A fold turns that
history into a summary, and the working context shrinks more than twentyfold while the
confirmed date, the preference, the authorization scope and the unknown call are all still in it
(checked by the same probes as ``pgctx eval``). Reconciliation then asks the payment service by
idempotency key instead of retrying; a folder dies between prepare and commit and recovery
finishes its work; an edited event is caught by verification, in the database and offline. The
built-in deterministic summarizer is used unless OPENAI_API_KEY or OPENAI_BASE_URL is set (then
the OpenAI one, with $PGCTX_MODEL, default gpt-4o-mini).
"""

from __future__ import annotations

import io
import os
import uuid
from collections.abc import Callable
from typing import Any

import psycopg

import pgctx
from pgctx.embedded import EmbeddedPostgres
from pgctx.evaluation.probes import View, judge, text_of
from pgctx.reconcile import UnknownCall
from pgctx.evaluation.trajectory import ConstraintProbe, EvidenceProbe, FactProbe, ToolStateProbe

SYSTEM = "You are the order assistant. Never modify an order the user did not authorize."
STORY = [
    ("system", {"text": SYSTEM}),
    ("user", {"text": "把订单 10086 改成明天送达", "translation": "Change order 10086 to deliver tomorrow"}),
    ("approval", {"approval_id": "ap-1", "status": "granted", "scopes_event": 2, "granted_by": "user",
                  "scope": {"order_id": "10086", "fields": ["delivery_date"]},
                  "text": "The user may modify order 10086 only"}),
    ("tool_call", {"tool": "update_delivery_date", "call_id": "call-1", "effect": "write",
                   "idempotency_key": "k-10086-0902",
                   "arguments": {"order_id": "10086", "date": "2026-09-02"}}),
    ("tool_result", {"call_id": "call-1", "outcome": "succeeded", "request_id": "req-abc",
                     "result": {"order_id": "10086", "delivery_date": "2026-09-02"}}),
    ("assistant", {"text": "Order 10086 will now arrive on 2026-09-02."}),
    ("user", {"text": "Great. Can the courier call me before arriving? I am usually in meetings until noon, "
                      "so a morning call would be better than a message, and please ask them not to leave the "
                      "parcel with the neighbours because last time it got lost for two days."}),
    ("assistant", {"text": "I have noted your preferences: the courier should call before arriving, preferably in "
                           "the morning, and must not leave the parcel with neighbours. I cannot guarantee the "
                           "courier's schedule, but the note will be attached to the delivery so the driver sees "
                           "it on the handheld when the route is assigned tomorrow morning."}),
]
MORE = [
    ("fact", {"key": "delivery_address", "value": "12 Old Street", "authority": "user"}),
    ("user", {"text": "Sorry, the address is wrong — deliver to 9 New Road. And refund the express fee."}),
    ("correction", {"key": "delivery_address", "value": "9 New Road", "authority": "user"}),
    ("tool_call", {"tool": "refund_fee", "call_id": "call-2", "effect": "irreversible",
                   "idempotency_key": "k-10086-refund", "arguments": {"order_id": "10086", "amount": 12}}),
    ("tool_result", {"call_id": "call-2", "outcome": "timeout", "error": "payment service did not answer in 30 s"}),
]
# The model the story's agent runs on: a 16k window (B = 12,288 tokens of summary and history).
BUDGET = pgctx.Budget(window=16_384, fixed_input=1_024, output=2_048, margin=1_024)
TRACKING_TURNS = 80
# What the context must still hold after the fold, judged as pgctx eval judges (docs/eval.md).
KEPT = {
    "the date the write confirmed": FactProbe(probe="fact", key="delivery_date", subject="order_id=10086",
                                              value="2026-09-02"),
    "the user's request to call first": ConstraintProbe(probe="constraint", seq=7, text="call me before arriving"),
    "the authorization scope": ConstraintProbe(probe="constraint", seq=3, text="order 10086 only"),
    "the refund's unknown outcome": ToolStateProbe(probe="tool_state", call_id="call-2", status="unknown"),
    "the refund's call and timeout, raw": EvidenceProbe(probe="evidence", seqs=[12, 13]),
}


def tracking_turn(n: int) -> list[tuple[str, dict[str, Any]]]:
    """One turn of the long stretch: the user asks, the agent tracks the parcel, a long scan log."""
    hub = ("Shenzhen Bao'an hub", "Guangzhou sorting centre", "Changsha transfer", "Wuhan gateway")[n % 4]
    log = "\n".join(f"2026-09-01 {8 + (n * 7 + i) % 12:02d}:{(n * 13 + i * 7) % 60:02d} scan #{n * 40 + i}: parcel "
                    f"SF{1402758832 + n} seen at {hub} dock {i % 9}, conveyor {i % 5}, weight 18.{i % 10} kg, "
                    f"handler {1000 + (n * i) % 997}, temperature {18 + i % 7} C" for i in range(24))
    call_id = f"track-{n}"
    return [
        ("user", {"text": ("Any news on my parcel?", "Where is it now?", "Has it moved?", "Still on time?")[n % 4]}),
        ("tool_call", {"tool": "track_parcel", "call_id": call_id, "effect": "read",
                       "arguments": {"order_id": "10086"}}),
        ("tool_result", {"call_id": call_id, "outcome": "succeeded",
                         "result": {"order_id": "10086", "last_hub": hub, "eta": f"2026-09-02 {9 + n % 8}:00"},
                         "log": log}),
        ("assistant", {"text": f"It was last scanned at {hub}; the courier still expects 2026-09-02."}),
    ]


def run(dsn: str | None = None, out: Callable[[str], None] = print) -> bool:
    """Tell the story; returns True when every check passed."""
    if dsn:
        return _tell(dsn, out, own_server=False)
    out("starting a throwaway PostgreSQL (use --dsn or PGCTX_DSN for your own server) ...")
    server = EmbeddedPostgres()
    try:
        out(f"  PostgreSQL binaries: {server.bindir}")
        return _tell(server.superuser_dsn("test"), out, own_server=True)
    finally:
        server.stop()


def summarizer_from_env() -> Any:
    """The OpenAI summarizer when OPENAI_API_KEY or OPENAI_BASE_URL is set, else the built-in one."""
    if os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL"):
        return pgctx.OpenAISummarizer(os.environ.get("PGCTX_MODEL", "gpt-4o-mini"),
                                      base_url=os.environ.get("OPENAI_BASE_URL"))
    return pgctx.BuiltinSummarizer()


def _sections(ctx: pgctx.WorkingContext) -> str:
    return ", ".join(f"{k} {v}" for k, v in ctx.sections.items() if v) + f"  = {ctx.total_tokens} tokens"


def _tell(dsn: str, out: Callable[[str], None], own_server: bool) -> bool:
    """The story on ``dsn``. Only on its own throwaway server (``own_server``) does it edit the
    database to show tamper evidence; on a server it was given, it adds one conversation (named in
    its output) and changes nothing else: the edit is made to an exported copy."""
    out("installing the pgctx schema (alembic migrations) ...")
    pgctx.migrate(dsn)
    conversation = f"order-10086-{uuid.uuid4().hex[:8]}"
    summarizer = summarizer_from_env()
    checks: dict[str, bool] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        out(f"\n1. the conversation {conversation} (each event's tokens counted once, at append):")
        for number, (kind, payload) in enumerate(STORY + MORE, start=1):
            seq = pgctx.append(conn, conversation, kind, payload, event_key=f"turn-{number}")
            out(f"  seq {seq:>2}  {kind:<12} {pgctx.canonical_json(payload)[:84]}")
        # A lost acknowledgement: the same event key returns the original seq and writes nothing.
        again = pgctx.append(conn, conversation, *STORY[4], event_key="turn-5")
        out(f"  (tool_result re-sent with event key 'turn-5' after a lost acknowledgement: "
            f"seq {again} returned, nothing written)")
        checks["idempotent append"] = again == 5

        out("\n2. side effects, derived in SQL (a timeout is unknown, never failed):")
        unknown = _side_effects(conn, conversation, out)
        checks["timeout is unknown"] = unknown == ["call-2"]

        out(f"\n3. a long stretch: the user keeps asking where the parcel is ({TRACKING_TURNS} look-ups, long scan logs)")
        for n in range(TRACKING_TURNS):
            pgctx.append_many(conn, conversation, [{"kind": k, "payload": p} for k, p in tracking_turn(n)])
        history = conn.execute("SELECT sum(tokens), count(*) FROM pgctx.events WHERE conversation_id = %s",
                               (conversation,)).fetchone()
        out(f"  {history[1]} events, {history[0]:,} tokens: without folding, that is the context a model would need "
            f"(this story's model has a {BUDGET.window:,}-token window)")

        out(f"\n4. fold with {summarizer.id}:")
        result = pgctx.fold(conn, conversation, summarizer=summarizer, budget=BUDGET)
        out(f"  committed={result.committed} version {result.version} covers events 1..{result.cursor} "
            f"({result.policy}); the newest events stay raw")
        for t in result.triggers:
            out(f"  trigger [{t.cls}] {t.reason[:110]}  (evidence seqs {list(t.evidence)[:4]})")
        shrink = result.tokens_before / max(result.tokens_after, 1)
        out(f"  summary + unfolded events: {result.tokens_before:,} -> {result.tokens_after:,} tokens ({shrink:.0f}x smaller)")
        checks["fold committed"] = result.committed
        checks["context 20x smaller"] = shrink >= 20

        after = pgctx.build_context(conn, conversation, budget=BUDGET, system=SYSTEM,
                                    current_message="When will it arrive?")
        out(f"\n5. the working context after folding: {_sections(after)}")
        summary = after.summary or {}
        out(f"  the address fact: {[(f['value'], f.get('previous_value')) for f in summary.get('facts', []) if f['key'] == 'delivery_address']}"
            "  (the correction replaced 12 Old Street)")
        checks["correction supersedes"] = any(f["key"] == "delivery_address" and f["value"] == "9 New Road"
                                              and f.get("previous_value") == "12 Old Street"
                                              for f in summary.get("facts", []))
        view = View(after.summary, after.events, text_of(after.messages))
        for what, probe in KEPT.items():
            verdict = judge(probe, view)
            out(f"  {'kept' if verdict.passed else 'LOST'}: {what} ({verdict.why})")
            checks[f"kept: {what}"] = verdict.passed
        for seq, why in after.evidence:
            out(f"  evidence kept raw beside the summary: seq {seq} ({why[:90]})")

        out("\n6. reconcile: ask the payment service by idempotency key (pgctx never re-runs a tool):")

        def payment_service(call: UnknownCall) -> dict[str, Any]:
            out(f"  resolver asked about {call.call_id} ({call.tool}) with key {call.idempotency_key}")
            return {"outcome": "succeeded", "request_id": "rf-7731", "authority": "payment-service"}

        for r in pgctx.reconcile(conn, conversation, payment_service):
            out(f"  {r.call_id}: the service says {r.outcome} (recorded at seq {r.seq}); retry allowed: {r.retry_allowed}")
            checks["no retry after success"] = not r.retry_allowed
        _side_effects(conn, conversation, out)

        out("\n7. a folder dies between prepare and commit; recovery finishes its work:")
        checks["recovered"] = _crash_and_recover(dsn, conn, conversation, summarizer, out)

        out("\n8. tamper evidence:")
        checks["verification"] = _verify_and_tamper(conn, conversation, out, own_server)

    failed = [name for name, ok in checks.items() if not ok]
    out("\n" + ("every check passed" if not failed else f"FAILED: {', '.join(failed)}"))
    return not failed


def _side_effects(conn: psycopg.Connection, conversation: str, out: Callable[[str], None]) -> list[str]:
    # pgctx.tool_calls, what pgctx.side_effects lists per conversation: on Citus the view filtered to
    # one conversation is routed to its shard with the function inside, which Citus refuses there
    rows = conn.execute("SELECT call_id, tool, effect, status, idempotency_key, request_id FROM pgctx.tool_calls(%s)"
                        " WHERE effect <> 'read' ORDER BY call_seq", (conversation,)).fetchall()
    for call_id, tool, effect, status, key, request_id in rows:
        out(f"  {call_id} {tool:<22} {effect:<12} {status:<9} key {key}  request {request_id}")
    return [r[0] for r in rows if r[3] == "unknown"]


def _crash_and_recover(dsn: str, conn: psycopg.Connection, conversation: str, summarizer: Any,
                       out: Callable[[str], None]) -> bool:
    pgctx.append(conn, conversation, "assistant", {"text": "It arrives on 2026-09-02 at 9 New Road."})
    pgctx.append(conn, conversation, "subtask_end", {"text": "delivery changed, fee refunded", "task_done": True})
    request = pgctx.fold_procedures.fold_request(conn, conversation)
    with psycopg.connect(dsn, autocommit=True) as doomed:
        version = pgctx.prepare_fold(doomed, conversation, expected_version=request.base_version,
                                     expected_cursor=request.from_seq, new_cursor=request.to_seq,
                                     summary=summarizer.summarize(request), summarizer=summarizer.id)
        out(f"  fold v{version} PREPARED, then the folder's connection is gone before commit")
    report = pgctx.recover(conn, conversation)
    out(f"  recover: {report['prepared']}  chain: {report['chain']['reason']}")
    again = pgctx.recover(conn, conversation)
    out(f"  recover again: changed={again['changed']} (idempotent)")
    head = pgctx.committed_fold(conn, conversation)
    return head.version == version and not again["changed"]


def _verify_and_tamper(conn: psycopg.Connection, conversation: str, out: Callable[[str], None],
                       own_server: bool) -> bool:
    report = pgctx.verify(conn, conversation)
    out(f"  verify_chain: ok={report.ok} checked={report.checked} -> {report.reason}")
    bundle = io.StringIO()
    pgctx.export_bundle(conn, conversation, bundle)
    lines = bundle.getvalue().encode("utf-8").split(b"\n")
    offline = pgctx.verify_bundle(lines)
    out(f"  offline bundle (no database): ok={offline.ok} -> {offline.reason}")
    digest = pgctx.take_digest(conn)
    anchored = pgctx.verify_against_digest(conn, digest, conversation_ids=[conversation])[0]
    out(f"  against a digest kept outside the database: ok={anchored.ok} -> {anchored.reason}")
    honest = report.ok and offline.ok and anchored.ok
    if not own_server:
        # Not our database: the edit is made to the exported copy, the order id the user authorized.
        edited = [line.replace(b'"order_id": "10086"', b'"order_id": "10087"', 1)
                  if line.startswith(b'{"seq": 4,') else line for line in lines]
        caught = pgctx.verify_bundle(edited)
        out(f"  the exported copy edited at seq 4 (order 10086 -> 10087): ok={caught.ok} first bad seq "
            f"{caught.first_bad_seq} -> {caught.reason}")
        out(f"  (your database is unchanged but for the conversation {conversation}; on its own throwaway "
            "server the demo edits the database itself)")
        return honest and not caught.ok and caught.first_bad_seq == 4
    superuser = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0]
    if not superuser:
        out("  (skipping the edit: it needs a superuser who bypasses the append-only triggers)")
        return honest
    # A superuser disables the append-only triggers and edits the order id the user authorized.
    with conn.transaction():
        conn.execute("ALTER TABLE pgctx.events DISABLE TRIGGER USER")
        conn.execute("UPDATE pgctx.events SET payload = jsonb_set(payload, '{arguments,order_id}', '\"10087\"')"
                     " WHERE conversation_id = %s AND seq = 4", (conversation,))
        conn.execute("ALTER TABLE pgctx.events ENABLE TRIGGER USER")
    caught = pgctx.verify(conn, conversation)
    out(f"  a superuser edited seq 4 (order 10086 -> 10087): ok={caught.ok} first bad seq "
        f"{caught.first_bad_seq} -> {caught.reason}")
    return honest and not caught.ok and caught.first_bad_seq == 4
