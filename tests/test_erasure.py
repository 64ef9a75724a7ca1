"""Erasure (sql/190_erasure.sql): content goes everywhere it lives, the chain keeps verifying and
says what was erased, tampering with what an erasure leaves is still caught, and only the eraser
role (or the owner) can erase."""

from __future__ import annotations

import asyncio
import io
import re
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone

import psycopg
import pytest

import pgctx
from pgctx import erasure
from pgctx.canonical import canonical_json, erasure_kept_digest, event_hash, genesis_hash
from pgctx.errors import CheckpointRetention, CitesErasedEvent, InvalidErasure, InvalidRetentionPolicy, \
    ReservedEventKind, translated
from tests.events import LOG, pasted

SECRET = "Zq7-4111111111111111"


def story(conn, cid: str = "gdpr") -> None:
    """A conversation whose secret is in a message, a call's arguments and a result, and folded, so
    the committed summary carries it too."""
    pgctx.append_many(conn, cid, [
        {"kind": "user", "payload": {"text": f"charge my card {SECRET} for order 77331"}},
        {"kind": "tool_call", "payload": {"tool": "charge_card", "call_id": "c1", "effect": "write",
                                          "arguments": {"card": SECRET, "order_id": "77331"}, "idempotency_key": "k1"}},
        {"kind": "tool_result", "payload": {"call_id": "c1", "outcome": "succeeded", "request_id": "r1",
                                            "card": SECRET, "log": LOG}},
        {"kind": "assistant", "payload": {"text": "Done: order 77331 is paid."}},
    ])
    assert pgctx.fold(conn, cid, force=True).committed
    assert SECRET in str(pgctx.committed_fold(conn, cid).summary)  # the summary holds it too


def holders(conn, text: str) -> list[str]:
    """Every table and view of the schema with a row whose text holds ``text`` (as the owner)."""
    relations = [r for (r,) in conn.execute(
        "SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'pgctx' AND c.relkind IN ('r', 'v', 'm', 'p') ORDER BY 1")]
    assert "pgctx.events" in relations and "pgctx.side_effects" in relations
    return [r for r in relations
            if conn.execute(f"SELECT count(*) FROM {r} t WHERE t::text LIKE %s", (f"%{text}%",)).fetchone()[0]]


def erasure_day(conn, cid: str, seq: int) -> str:
    """The UTC day an erasure event records (verification reports that day, not today's)."""
    return conn.execute("SELECT left(payload->>'erased_at', 10) FROM pgctx.events WHERE conversation_id = %s"
                        " AND seq = %s AND kind = 'erasure'", (cid, seq)).fetchone()[0]


def snapshot(conn) -> list[tuple]:
    return conn.execute("SELECT e::text FROM pgctx.events e ORDER BY conversation_id, seq").fetchall() + \
        conn.execute("SELECT k::text FROM pgctx.checkpoints k ORDER BY conversation_id, version").fetchall() + \
        conn.execute("SELECT h::text FROM pgctx.fold_heads h ORDER BY conversation_id").fetchall()


def bundle(conn, cid: str) -> list[bytes]:
    out = io.StringIO()
    pgctx.export_bundle(conn, cid, out)
    return [line.encode() for line in out.getvalue().splitlines()]


def test_erased_content_is_gone_from_every_table_and_view(conn, connect_as, roles):
    story(conn)
    assert "pgctx.events" in holders(conn, SECRET) and "pgctx.checkpoints" in holders(conn, SECRET)
    report = pgctx.erase(connect_as(roles.eraser), "gdpr", reason="right to erasure, ticket 77")
    assert (report["erasure_seq"], report["erased"], report["seqs"]) == (5, 4, [[1, 4]])
    assert report["checkpoints_removed"] == {"gdpr": [1]}
    assert report["fold_fallback"] == {"version": 0, "cursor": 0}

    assert holders(conn, SECRET) == []
    assert holders(conn, "77331") == []  # every word of it, not only the secret
    # the erasure event records who, when, why and which seqs, and nothing erased
    kind, payload = conn.execute("SELECT kind, payload FROM pgctx.events WHERE conversation_id = 'gdpr'"
                                 " AND seq = 5").fetchone()
    assert kind == "erasure"
    assert {k: payload[k] for k in ("seqs", "count", "reason", "erased_by")} == {
        "seqs": [[1, 4]], "count": 4, "reason": "right to erasure, ticket 77", "erased_by": roles.eraser}
    # when the erasure ran (a date compared with today's failed a run that crossed midnight UTC)
    assert abs(datetime.fromisoformat(payload["erased_at"]) - datetime.now(timezone.utc)) < timedelta(minutes=5)
    day = erasure_day(conn, "gdpr", 5)
    # what is left of each event: its kind and place, a marker, no salt, no token count, and of a
    # call and its result the ledger's ids (call id, tool, effect, idempotency key; outcome,
    # request id), never the arguments or the result
    assert conn.execute("SELECT array_agg(jsonb_build_array(seq, kind, payload, salt IS NULL, tokens) ORDER BY seq)"
                        " FROM pgctx.events WHERE conversation_id = 'gdpr' AND seq < 5").fetchone()[0] == [
        [1, "user", {"pgctx_erased": 5}, True, None],
        [2, "tool_call", {"pgctx_erased": 5, "call_id": "c1", "tool": "charge_card", "effect": "write",
                          "idempotency_key": "k1"}, True, None],
        [3, "tool_result", {"pgctx_erased": 5, "call_id": "c1", "outcome": "succeeded", "request_id": "r1"}, True, None],
        [4, "assistant", {"pgctx_erased": 5}, True, None]]
    assert payload["kept_digest"] == erasure_kept_digest({
        "2": {"call_id": "c1", "tool": "charge_card", "effect": "write", "idempotency_key": "k1"},
        "3": {"call_id": "c1", "outcome": "succeeded", "request_id": "r1"}})

    # the chain verifies, in the database and offline, and says what was erased
    said = f"consistent, unanchored; 4 events erased on {day} by {roles.eraser} (erasure at seq 5)"
    db_report = pgctx.verify(conn, "gdpr")
    assert (db_report.ok, db_report.reason, db_report.erased) == (True, said, 4)
    offline = pgctx.verify_bundle(bundle(conn, "gdpr"))
    assert (offline.ok, offline.reason, offline.erased) == (True, said, 4)
    assert pgctx.recover(conn, "gdpr")["chain"]["ok"]

    # the working context shows short markers, never the old content
    ctx = pgctx.build_context(conn, "gdpr")
    text = str(ctx.messages)
    assert SECRET not in text and "77331" not in text
    assert "[tool_call #2 erased: its content was removed (erasure at seq 5)]" in text
    # and a new fold over the erased events commits, citing none of them
    pgctx.append(conn, "gdpr", "user", pasted("hello again"))
    assert pgctx.fold(conn, "gdpr", force=True).committed
    assert SECRET not in str(pgctx.committed_fold(conn, "gdpr").summary)


def test_erasing_chosen_events_keeps_the_others_and_the_folds_before_them(conn, connect_as, roles):
    pgctx.append_many(conn, "pick", [{"kind": "user", "payload": pasted(f"early {i}")} for i in range(1, 4)])
    assert pgctx.fold(conn, "pick", force=True).cursor == 3
    pgctx.append(conn, "pick", "user", {"text": f"oops, my password is {SECRET}"})
    pgctx.append(conn, "pick", "assistant", {"text": f"please never paste passwords; here is the log instead:\n{LOG}"})
    assert pgctx.fold(conn, "pick", force=True).version == 2
    assert SECRET in str(pgctx.committed_fold(conn, "pick").summary)

    report = pgctx.erase(connect_as(roles.eraser), "pick", seqs=[4], reason="secret pasted")
    assert (report["erased"], report["seqs"], report["checkpoints_removed"]) == (1, [[4, 4]], {"pick": [2]})
    assert report["fold_fallback"] == {"version": 1, "cursor": 3}  # the fold before the erased event stays
    assert holders(conn, SECRET) == []
    assert [t and t.split("\n")[0] for (t,) in conn.execute(
        "SELECT payload->>'text' FROM pgctx.events WHERE conversation_id = 'pick' AND kind <> 'erasure' ORDER BY seq")] \
        == ["early 1", "early 2", "early 3", None, "please never paste passwords; here is the log instead:"]
    head = conn.execute("SELECT version, cursor, fallback_reason FROM pgctx.fold_heads"
                        " WHERE conversation_id = 'pick'").fetchone()
    assert head == (1, 3, "erasure at seq 6 of pick")
    # erasing it again, or with the rest, erases only what is left
    again = pgctx.erase(connect_as(roles.eraser), "pick", seqs=[4], reason="again")
    assert (again["erased"], again["erasure_seq"]) == (0, None)
    assert conn.execute("SELECT max(seq) FROM pgctx.events WHERE conversation_id = 'pick'").fetchone()[0] == 6
    assert pgctx.verify(conn, "pick").ok


@pytest.mark.parametrize("seqs, reason, words", [
    ([9], "x", "seq 9 is not one of its events"),
    ([0, 2], "x", "seq 0 is not one of its events"),
    ([3], "x", "seq 3 is not one of its events"),  # the erasure event itself
    ([], "x", "at least one seq"),
    ([1], "  ", "needs a reason"),
])
def test_a_bad_erasure_is_refused_and_changes_nothing(conn, connect_as, roles, seqs, reason, words):
    pgctx.append_many(conn, "bad", [{"kind": "user", "payload": {"text": "a"}}, {"kind": "user", "payload": {}}])
    pgctx.erase(conn, "bad", seqs=[2], reason="first")  # the owner may erase too: seq 3 is its record
    before = snapshot(conn)
    with pytest.raises(InvalidErasure, match=words):
        pgctx.erase(connect_as(roles.eraser), "bad", seqs=seqs, reason=reason)
    assert snapshot(conn) == before


def test_erasing_as_the_application_or_an_auditor_is_refused(conn, connect_as, roles):
    story(conn)
    before = snapshot(conn)
    for role in (roles.app, roles.auditor):
        c = connect_as(role)
        for call in (lambda: pgctx.erase(c, "gdpr", reason="x"),
                     lambda: pgctx.erase(c, "gdpr", seqs=[1], reason="x"),
                     lambda: erasure.erase_expired(c),
                     lambda: erasure.set_retention_policy(c, 1)):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                call()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            c.execute("UPDATE pgctx.events SET payload = '{}' WHERE conversation_id = 'gdpr'")
    # appending an erasure record of one's own is refused on every append path
    app = connect_as(roles.app)
    with pytest.raises(ReservedEventKind):
        pgctx.append(app, "gdpr", "erasure", {"seqs": [[1, 1]]})
    with pytest.raises(ReservedEventKind):
        pgctx.append_many(app, "gdpr", [{"kind": "erasure", "payload": {"seqs": [[1, 1]]}}])
    assert snapshot(conn) == before


@pytest.mark.parametrize("statement", [
    "UPDATE pgctx.events SET payload = '{\"text\": \"edited\"}' WHERE seq = 1",
    "UPDATE pgctx.events SET payload = '{\"pgctx_erased\": 5}', salt = NULL, tokens = NULL, erased_in = 5 WHERE seq = 1",
    "UPDATE pgctx.events SET payload = '{\"pgctx_erased\": 3}', salt = NULL, tokens = NULL, erased_in = 3 WHERE seq = 1",
])
def test_the_owner_can_update_an_event_only_as_a_recorded_erasure(conn, statement):
    # no erasure event at seq 5, and seq 3 is an event but not an erasure listing seq 1
    pgctx.append_many(conn, "own", [{"kind": "user", "payload": {"text": f"m{i}"}} for i in range(4)])
    before = snapshot(conn)
    with pytest.raises(psycopg.Error) as refused:
        conn.execute(statement.replace("WHERE", "WHERE conversation_id = 'own' AND"))
    assert refused.value.sqlstate == "PC006"
    assert snapshot(conn) == before
    pgctx.erase(conn, "own", seqs=[1], reason="x")
    with pytest.raises(psycopg.Error, match="append-only"):  # and an erased event stays erased
        conn.execute("UPDATE pgctx.events SET erased_in = 5, payload = '{\"pgctx_erased\": 5}'"
                     " WHERE conversation_id = 'own' AND seq = 1")


# Tampering with what an erasure leaves, as a superuser with the triggers off.
TAMPERING = {
    "digest": ("UPDATE pgctx.events SET payload_digest = sha256('guess') WHERE seq = 2", 2, "hash of seq 2"),
    "salt": ("UPDATE pgctx.events SET salt = '\\x00' WHERE seq = 2", 2, "marked erased"),
    "marker": ("UPDATE pgctx.events SET payload = '{\"pgctx_erased\": 4, \"x\": 1}' WHERE seq = 2", 2, "marked erased"),
    "content back": ("UPDATE pgctx.events SET payload = '{\"text\": \"x\"}', erased_in = NULL WHERE seq = 2", 2,
                     "hash of seq 2"),
    "unrecorded erasure": ("UPDATE pgctx.events SET payload = '{\"pgctx_erased\": 4}', salt = NULL, erased_in = 4"
                           " WHERE seq = 1", 1, "marked erased"),
    "wider record": ("UPDATE pgctx.events SET payload = jsonb_set(payload, '{seqs}', '[[1, 2]]') WHERE seq = 4", 4,
                     "hash of seq 4"),
    "record removed": ("DELETE FROM pgctx.events WHERE seq = 4", 2, "marked erased"),
}


@pytest.mark.parametrize("name", TAMPERING)
def test_tampering_with_an_erased_event_is_still_caught(conn, name):
    statement, seq, words = TAMPERING[name]
    pgctx.append_many(conn, "t", [{"kind": "user", "payload": {"text": f"m{i}"}} for i in range(1, 4)])
    pgctx.erase(conn, "t", seqs=[2], reason="x")  # the erasure event is seq 4
    assert pgctx.verify(conn, "t").ok
    conn.execute("ALTER TABLE pgctx.events DISABLE TRIGGER USER")
    try:
        conn.execute(statement.replace("WHERE", "WHERE conversation_id = 't' AND"))
    finally:
        conn.execute("ALTER TABLE pgctx.events ENABLE TRIGGER USER")
    for report in (pgctx.verify(conn, "t"), pgctx.verify_bundle(bundle(conn, "t"))):
        assert (report.ok, report.first_bad_seq) == (False, seq), report
        assert words in report.reason


def test_a_digest_taken_before_the_erasure_still_verifies_the_chain(conn, connect_as, roles):
    story(conn)
    digest = pgctx.take_digest(conn)
    pgctx.erase(connect_as(roles.eraser), "gdpr", seqs=[1, 3], reason="x")
    day = erasure_day(conn, "gdpr", 5)
    pgctx.append(conn, "gdpr", "user", {"text": "later"})
    [report] = pgctx.verify_against_digest(conn, digest)
    assert report.ok and report.anchored and report.erased == 2, report
    assert report.reason == (f"consistent, anchored at seq 4; 2 events erased on {day} by {roles.eraser}"
                             " (erasure at seq 5)")


def test_a_fold_citing_an_erased_event_is_refused(conn):
    pgctx.append_many(conn, "cite", [{"kind": "user", "payload": {"text": "ship order 77331 to Berlin"}},
                                     {"kind": "assistant", "payload": {"text": f"Noted. The carrier's log:\n{LOG}"}}])
    assert pgctx.fold(conn, "cite", force=True).committed
    candidate = pgctx.committed_fold(conn, "cite").summary  # valid, and citing event 1
    assert 1 in candidate["task"]["source_event_ids"]
    pgctx.erase(conn, "cite", seqs=[1], reason="x")  # its fold is removed: nothing folded
    problems = pgctx.fold_violations(conn, "cite", base_version=0, base_cursor=0, new_cursor=2, summary=candidate)
    assert ("PC119", "the summary cites event 1, whose content was erased (erasure at seq 3 of cite)") in problems
    with pytest.raises(CitesErasedEvent):
        pgctx.prepare_fold(conn, "cite", expected_version=0, expected_cursor=0, new_cursor=2, summary=candidate)
    assert conn.execute("SELECT count(*) FROM pgctx.checkpoints").fetchone()[0] == 0
    # the built-in summarizer leaves erased events out, so its fold commits
    folded = pgctx.fold(conn, "cite", force=True)
    assert folded.committed and "77331" not in str(pgctx.committed_fold(conn, "cite").summary)


def test_erasing_before_a_fork_point_reaches_the_branch(conn, connect_as, roles):
    story(conn, "src")
    pgctx.fork_conversation(conn, "src", 4, "br")
    pgctx.append(conn, "br", "user", pasted("and on the branch?"))
    assert pgctx.fold(conn, "br", force=True).committed
    assert SECRET in str(pgctx.committed_fold(conn, "br").summary)  # inherited from the source's fold

    report = pgctx.erase(connect_as(roles.eraser), "src", seqs=[1, 2, 3], reason="x")
    assert report["checkpoints_removed"] == {"src": [1], "br": [1]}
    assert holders(conn, SECRET) == []
    assert conn.execute("SELECT version, cursor, fallback_reason FROM pgctx.fold_heads WHERE conversation_id = 'br'"
                        ).fetchone() == (0, 4, "erasure at seq 5 of src")
    ctx = pgctx.build_context(conn, "br")
    assert "and on the branch?" in str(ctx.messages)
    assert pgctx.verify(conn, "br").ok and pgctx.verify(conn, "src").ok


def test_erasing_before_a_fork_point_removes_what_branches_of_branches_continue_from(conn, connect_as, roles):
    # retention keeps a checkpoint a branch continues from; erasure removes it all the same when
    # what the branch inherited holds an erased event, however many forks up it is
    story(conn, "src")
    pgctx.fork_conversation(conn, "src", 4, "br")
    pgctx.append(conn, "br", "user", pasted("and on the branch?"))
    assert pgctx.fold(conn, "br", force=True).committed
    pgctx.fork_conversation(conn, "br", 5, "br2")  # continues from version 1 of br
    pgctx.append(conn, "br", "user", pasted("and later on the branch"))
    assert pgctx.fold(conn, "br", force=True).version == 2
    with pytest.raises(CheckpointRetention, match="branch br2 continues from it"), translated():
        conn.execute("DELETE FROM pgctx.checkpoints WHERE conversation_id = 'br' AND version = 1")

    report = pgctx.erase(connect_as(roles.eraser), "src", seqs=[1, 2, 3], reason="x")
    assert report["checkpoints_removed"] == {"src": [1], "br": [1, 2]}
    assert holders(conn, SECRET) == []
    assert conn.execute("SELECT count(*) FROM pgctx.checkpoints").fetchone()[0] == 0
    assert pgctx.committed_fold(conn, "br2").summary is None
    assert pgctx.verify(conn, "br2").ok


def test_concurrent_appends_during_erasures_keep_the_chain_gap_free(dsn, conn, connect_as, roles):
    pgctx.append_many(conn, "busy", [{"kind": "user", "payload": {"text": f"m{i}"}} for i in range(50)])
    stop = threading.Event()
    errors: list[BaseException] = []

    def appender() -> None:
        with psycopg.connect(dsn, autocommit=True) as c:
            while not stop.is_set():
                try:
                    pgctx.append(c, "busy", "user", {"text": "more"})
                except BaseException as exc:  # noqa: BLE001 - reported below
                    errors.append(exc)
                    return

    threads = [threading.Thread(target=appender) for _ in range(3)]
    for t in threads:
        t.start()
    eraser = connect_as(roles.eraser)
    for seq in range(1, 50, 5):
        assert pgctx.erase(eraser, "busy", seqs=[seq, seq + 1], reason="x")["erased"] == 2
    stop.set()
    for t in threads:
        t.join()
    assert errors == []
    seqs = [s for (s,) in conn.execute("SELECT seq FROM pgctx.events WHERE conversation_id = 'busy' ORDER BY seq")]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > 60
    report = pgctx.verify(conn, "busy")
    assert report.ok and report.erased == 20 and report.reason.count("2 events erased") == 10


def test_retention_erases_idle_conversations_after_a_dry_run(conn, connect_as, roles):
    conn.execute("SELECT pgctx.register_tenant(%s)", (roles.tenant_a,))
    pgctx.append(connect_as(roles.app_a), "tenant-a", "user", {"text": SECRET})
    pgctx.append(connect_as(roles.app), "shared", "user", {"text": "shared"})  # no tenant
    eraser = connect_as(roles.eraser)
    erasure.set_retention_policy(eraser, 30)
    erasure.set_retention_policy(eraser, 2, tenant=roles.tenant_a)
    in_3_days = datetime.now(timezone.utc) + timedelta(days=3)
    assert erasure.expired(eraser) == []
    before = snapshot(conn)
    [found] = erasure.expired(eraser, as_of=in_3_days)  # the tenant's 2 days, not the global 30
    assert (found.conversation_id, found.tenant, found.idle_days) == ("tenant-a", roles.tenant_a, 2)
    assert snapshot(conn) == before  # a dry run erases nothing
    [report] = erasure.erase_expired(eraser, as_of=in_3_days)
    assert (report["conversation_id"], report["erased"]) == ("tenant-a", 1)
    assert erasure.expired(eraser, as_of=in_3_days) == []  # nothing left to erase there
    assert [r["conversation_id"] for r in erasure.erase_expired(eraser, as_of=in_3_days + timedelta(days=30))] == [
        "shared"]
    assert holders(conn, SECRET) == []
    erasure.set_retention_policy(eraser, None)  # removed
    assert conn.execute("SELECT tenant::text, idle_days FROM pgctx.retention_policy").fetchall() == [
        (roles.tenant_a, 2)]
    with pytest.raises(InvalidRetentionPolicy):
        erasure.set_retention_policy(eraser, 0)
    with pytest.raises(InvalidRetentionPolicy):
        erasure.set_retention_policy(eraser, 5, tenant=roles.app)


def test_erasing_a_tenant(conn, connect_as, roles):
    conn.execute("SELECT pgctx.register_tenant(%s)", (roles.tenant_b,))
    app_b = connect_as(roles.app_b)
    for cid in ("b1", "b2"):
        pgctx.append(app_b, cid, "user", {"text": SECRET})
    pgctx.append(connect_as(roles.app), "other", "user", {"text": SECRET})  # shared, no tenant
    reports = erasure.erase_tenant(connect_as(roles.eraser), roles.tenant_b, reason="tenant closed")
    assert [(r["conversation_id"], r["erased"]) for r in reports] == [("b1", 1), ("b2", 1)]
    assert holders(conn, SECRET) == ["pgctx.events"]  # the shared conversation only
    assert all(pgctx.verify(conn, cid).ok for cid in ("b1", "b2", "other"))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pgctx.cli", *args], capture_output=True, text=True, timeout=120)


def test_cli_erase(dsn, conn, roles):
    from psycopg.conninfo import make_conninfo

    story(conn)
    app = make_conninfo(dsn, user=roles.app, password=roles.password)
    eraser = make_conninfo(dsn, user=roles.eraser, password=roles.password)
    denied = run_cli("erase", "--dsn", app, "--conversation", "gdpr", "--reason", "x")
    assert denied.returncode == 2 and "pgctx_eraser" in denied.stderr
    assert SECRET in str(conn.execute("SELECT array_agg(payload) FROM pgctx.events").fetchone()[0])
    done = run_cli("erase", "--dsn", eraser, "--conversation", "gdpr", "--seq", "1", "--seq", "3", "--reason", "x",
                   "--vacuum")
    assert done.returncode == 0, done.stderr
    assert "gdpr: erased 2 events [[1, 1], [3, 3]], recorded at seq 5; 1 checkpoint(s) removed" in done.stdout
    assert "vacuumed pgctx.events" in done.stdout and "base backups" in done.stdout
    verified = run_cli("verify", "--dsn", dsn, "--conversation", "gdpr")
    assert verified.returncode == 0 and "2 events erased" in verified.stdout
    dry = run_cli("erase", "--dsn", eraser, "--expired", "--dry-run")
    assert dry.returncode == 0 and "0 conversation(s) past their retention policy" in dry.stdout
    assert run_cli("erase", "--dsn", eraser, "--seq", "1", "--reason", "x").returncode == 2
    assert run_cli("retention", "--dsn", eraser, "--idle-days", "90").returncode == 0
    assert conn.execute("SELECT idle_days FROM pgctx.retention_policy").fetchall() == [(90,)]


def test_erasure_in_a_callers_transaction_rolls_back_with_it(conn):
    story(conn)
    before = snapshot(conn)
    with pytest.raises(RuntimeError), conn.transaction():
        pgctx.erase(conn, "gdpr", reason="x")
        raise RuntimeError("the caller changes its mind")
    assert snapshot(conn) == before


def test_erasure_on_an_async_connection(dsn, conn):
    story(conn)

    async def main():
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as aconn:
            report = await pgctx.erase(aconn, "gdpr", seqs=[3], reason="x")
            await erasure.set_retention_policy(aconn, 7)
            return report, await erasure.expired(aconn)

    report, expired = asyncio.run(main())
    assert (report["erased"], expired) == (1, [])
    assert pgctx.verify(conn, "gdpr").ok
    assert conn.execute("SELECT idle_days FROM pgctx.retention_policy").fetchall() == [(7,)]


def v1_conversation(conn, cid: str, texts: list[str]) -> None:
    """Events as a release before 0007 chained them (format v1: the hash over the payload, no salt),
    inserted by the owner with their hashes, as append_events inserts rows it chained itself."""
    prev = genesis_hash(cid)
    for seq, text in enumerate(texts, start=1):
        payload = canonical_json({"text": text})
        h = event_hash(cid, seq, "user", prev, payload)
        conn.execute("INSERT INTO pgctx.events (conversation_id, seq, kind, payload, prev_hash, hash)"
                     " VALUES (%s, %s, 'user', %s, %s, %s)", (cid, seq, payload, prev, h))
        prev = h
    conn.execute("INSERT INTO pgctx.conversations (conversation_id, genesis_hash, head_hash)"
                 " VALUES (%s, pgctx.genesis_hash(%s), pgctx.genesis_hash(%s))", (cid, cid, cid))
    conn.execute("UPDATE pgctx.conversations c SET head_seq = e.seq, head_hash = e.hash, head_prev_hash = e.prev_hash"
                 " FROM pgctx.events e WHERE c.conversation_id = %s AND e.conversation_id = c.conversation_id"
                 " AND e.seq = %s", (cid, len(texts)))


def test_an_erased_v1_event_keeps_its_place_in_the_chain_and_nothing_more(conn):
    v1_conversation(conn, "old", ["a", SECRET, "c"])
    assert pgctx.verify(conn, "old").ok
    pgctx.erase(conn, "old", seqs=[2], reason="x")
    report = pgctx.verify(conn, "old")
    assert report.ok and report.reason.endswith(
        "; 1 of them in chain format v1: their place in the chain is proven, their kind and content no longer are")
    assert pgctx.verify_bundle(bundle(conn, "old")).reason == report.reason
    conn.execute("ALTER TABLE pgctx.events DISABLE TRIGGER USER")
    try:
        # the stated limit: its kind is no longer bound by anything ...
        conn.execute("UPDATE pgctx.events SET kind = 'assistant' WHERE conversation_id = 'old' AND seq = 2")
        assert pgctx.verify(conn, "old").ok
        # ... but its place is: its stored hash is bound by the next event's
        conn.execute("UPDATE pgctx.events SET hash = sha256('x') WHERE conversation_id = 'old' AND seq = 2")
    finally:
        conn.execute("ALTER TABLE pgctx.events ENABLE TRIGGER USER")
    for bad in (pgctx.verify(conn, "old"), pgctx.verify_bundle(bundle(conn, "old"))):
        assert (bad.ok, bad.first_bad_seq) == (False, 3) and "prev_hash of seq 3" in bad.reason


def test_an_erasure_killed_before_commit_changes_nothing(dsn, conn):
    story(conn)
    before = snapshot(conn)
    script = ("import sys, psycopg\n"
              "with psycopg.connect(sys.argv[1]) as c:\n"
              "    c.execute(\"SET client_connection_check_interval = '100ms'\")\n"  # notice a dead client
              "    c.execute(\"SELECT pgctx.erase_conversation('gdpr', 'x')\")\n"
              "    print('erased', flush=True)\n"
              "    c.execute('SELECT pg_sleep(60)')\n")
    proc = subprocess.Popen([sys.executable, "-c", script, dsn], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "erased"  # done, not committed
        proc.kill()
        proc.wait(timeout=30)
    finally:
        proc.kill()
    deadline = datetime.now() + timedelta(seconds=20)
    while conn.execute("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%'"
                       " AND pid <> pg_backend_pid()").fetchone()[0]:
        assert datetime.now() < deadline, "the server did not notice the killed client"
        threading.Event().wait(0.1)  # the server notices the dead client and rolls back
    assert snapshot(conn) == before
    assert pgctx.append(conn, "gdpr", "user", {"text": "the head lock is free"}) == 5
    assert pgctx.verify(conn, "gdpr").ok and SECRET in str(pgctx.committed_fold(conn, "gdpr").summary)


def test_an_application_login_granted_the_eraser_role_still_sees_only_its_tenants(conn, dsn, connect_as, roles):
    conn.execute("SELECT pgctx.register_tenant(%s)", (roles.tenant_a,))
    conn.execute("SELECT pgctx.register_tenant(%s)", (roles.tenant_b,))
    pgctx.append(connect_as(roles.app_b), "b-only", "user", {"text": SECRET})
    conn.execute(f'GRANT pgctx_eraser TO "{roles.app_a}"')
    try:
        app_a = connect_as(roles.app_a)
        assert app_a.execute("SELECT count(*) FROM pgctx.events WHERE conversation_id = 'b-only'").fetchone()[0] == 0
        with pytest.raises(pgctx.errors.ConversationNotFound):
            pgctx.erase(app_a, "b-only", reason="x")
    finally:
        conn.execute(f'REVOKE pgctx_eraser FROM "{roles.app_a}"')
    assert holders(conn, SECRET) == ["pgctx.events"]


# The side-effect ledger after an erasure (issue 27, item 6): an erased tool_call, tool_result or
# status_query keeps the ids a call and its status are derived from (sql/030), so a DBA still
# sees every call, its status and that its content was erased; nothing else of it stays.

def calls_story(conn, cid: str = "ledger") -> None:
    """A succeeded write (c1, seqs 2-3), a failed one (c2, 4-5) and a timed-out refund (c3, 6-7:
    unknown), each carrying the secret in its arguments, result or error."""
    pgctx.append_many(conn, cid, [
        {"kind": "user", "payload": {"text": "charge my card and refund order 77331"}},
        {"kind": "tool_call", "payload": {"tool": "charge_card", "call_id": "c1", "effect": "write",
                                          "arguments": {"card": SECRET, "order_id": "77331"}, "idempotency_key": "k1"}},
        {"kind": "tool_result", "payload": {"call_id": "c1", "outcome": "succeeded", "request_id": "r1", "card": SECRET,
                                            "log": LOG}},
        {"kind": "tool_call", "payload": {"tool": "charge_card", "call_id": "c2", "effect": "write",
                                          "arguments": {"card": SECRET, "order_id": "77332"}, "idempotency_key": "k2"}},
        {"kind": "tool_result", "payload": {"call_id": "c2", "outcome": "failed", "error": f"card {SECRET} declined"}},
        {"kind": "tool_call", "payload": {"tool": "refund", "call_id": "c3", "effect": "irreversible",
                                          "arguments": {"card": SECRET, "order_id": "77331"}, "idempotency_key": "k3"}},
        {"kind": "tool_result", "payload": {"call_id": "c3", "outcome": "timeout", "error": f"no answer for {SECRET}"}},
    ])


LEDGER = ("SELECT call_id, tool, effect, status, idempotency_key, request_id, error, subject, call_seq, answer_seq,"
          " retry_safe, content_erased, erased_seqs FROM pgctx.side_effects WHERE conversation_id = %s ORDER BY call_seq")


def test_an_erased_call_stays_in_the_ledger_with_its_status(conn, connect_as, roles):
    calls_story(conn)
    before = conn.execute(LEDGER, ("ledger",)).fetchall()
    assert [r[3] for r in before] == ["succeeded", "failed", "unknown"] and not any(r[11] for r in before)
    report = pgctx.erase(connect_as(roles.eraser), "ledger", seqs=[2, 3, 4, 5, 6, 7], reason="ticket 78")
    assert report["erasure_seq"] == 8
    # SQL, as the auditor sees it: every call, its status, ids and request id; no arguments
    # (subject) or error text; and the marker saying its content was erased
    assert connect_as(roles.auditor).execute(LEDGER, ("ledger",)).fetchall() == [
        ("c1", "charge_card", "write", "succeeded", "k1", "r1", None, None, 2, 3, False, True, [2, 3]),
        ("c2", "charge_card", "write", "failed", "k2", None, None, None, 4, 5, False, True, [4, 5]),
        ("c3", "refund", "irreversible", "unknown", "k3", None, None, None, 6, 7, False, True, [6, 7])]
    assert holders(conn, SECRET) == [] and holders(conn, "77332") == []  # (77331: also in seq 1, kept)
    # the status view still counts the unknown refund
    assert conn.execute("SELECT unknown_side_effects FROM pgctx.conversation_status"
                        " WHERE conversation_id = 'ledger'").fetchone()[0] == 1
    # an erasure of the call alone: its (unerased) answer still decides, and only the call is marked
    calls_story(conn, "half")
    pgctx.erase(conn, "half", seqs=[2], reason="x")
    assert conn.execute(LEDGER, ("half",)).fetchall()[0] == (
        "c1", "charge_card", "write", "succeeded", "k1", "r1", None, None, 2, 3, False, True, [2])
    # an erased answer keeps its outcome: the call does not fall back to running
    pgctx.erase(conn, "half", seqs=[5], reason="x")
    assert conn.execute(LEDGER, ("half",)).fetchall()[1][3:7] == ("failed", "k2", None, None)
    # and the chain, the digests and the bundle still verify
    for cid in ("ledger", "half"):
        assert pgctx.verify(conn, cid).ok and pgctx.verify_bundle(bundle(conn, cid)).ok


def test_the_ledger_after_an_erasure_from_python(conn):
    calls_story(conn)
    pgctx.erase(conn, "ledger", seqs=[6], reason="x")  # the refund's call
    recovered = pgctx.recover(conn, "ledger")
    assert [(u["call_id"], u["idempotency_key"]) for u in recovered["unknown_side_effects"]] == [("c3", "k3")]
    # the working context marks the erased call and shows nothing of it
    text = str(pgctx.build_context(conn, "ledger").messages)
    assert "[tool_call #6 erased: its content was removed (erasure at seq 8)]" in text
    assert "77331\"" not in text.split("#6 erased")[1]


def erasure_record(conn, cid: str, seqs: list[list[int]]) -> int:
    """An erasure event listing seqs, chained as pgctx.erase chains it, its events not yet erased:
    what the events trigger checks an erasure UPDATE against (as the owner)."""
    return conn.execute(
        "SELECT pgctx.append_chained(c, 'erasure', jsonb_build_object('seqs', %s::jsonb, 'count', 1,"
        " 'reason', 'x', 'erased_by', 'x', 'erased_at', 'x', 'checkpoints_removed', '{}'::jsonb))"
        " FROM pgctx.conversations c WHERE c.conversation_id = %s",
        (canonical_json(seqs), cid)).fetchone()[0]


@pytest.mark.parametrize("payload", [
    '{"pgctx_erased": 8, "call_id": "c9", "tool": "refund", "effect": "irreversible", "idempotency_key": "k3"}',
    '{"pgctx_erased": 8, "call_id": "c3", "tool": "refund", "effect": "read", "idempotency_key": "k3"}',
    '{"pgctx_erased": 8, "call_id": "c3", "tool": "refund", "effect": "irreversible", "idempotency_key": "k3",'
    ' "arguments": {"order_id": "77331"}}',
    '{"pgctx_erased": 8, "call_id": "c3", "tool": "refund", "effect": "irreversible"}',
    '{"pgctx_erased": 8}',
])
def test_an_erasure_keeping_other_fields_than_the_calls_is_refused(conn, connect_as, roles, payload):
    calls_story(conn)
    assert erasure_record(conn, "ledger", [[6, 6]]) == 8
    before = snapshot(conn)
    update = ("UPDATE pgctx.events SET payload = %s::jsonb, salt = NULL, tokens = NULL, erased_in = 8"
              " WHERE conversation_id = 'ledger' AND seq = 6")
    with pytest.raises(psycopg.Error) as refused:
        conn.execute(update, (payload,))
    assert refused.value.sqlstate == "PC006"
    assert snapshot(conn) == before
    # the exact erasure: refused to the application role, allowed to the owner
    exact = ('{"pgctx_erased": 8, "call_id": "c3", "tool": "refund", "effect": "irreversible",'
             ' "idempotency_key": "k3"}')
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        connect_as(roles.app).execute(update, (exact,))
    assert snapshot(conn) == before
    conn.execute(update, (exact,))
    assert conn.execute(LEDGER, ("ledger",)).fetchall()[2][3:] == (
        "unknown", "k3", None, f"no answer for {SECRET}", None, 6, 7, False, True, [6])  # (its answer is not erased)


# Tampering with what an erased call keeps, as a superuser with the triggers off (seq 2 the call,
# seq 3 its result, seq 8 the erasure).
KEPT_TAMPERING = {
    "call id": ("UPDATE pgctx.events SET payload = jsonb_set(payload, '{call_id}', '\"c9\"') WHERE seq = 2", 8,
                "are not the ones it recorded"),
    "outcome": ("UPDATE pgctx.events SET payload = jsonb_set(payload, '{outcome}', '\"failed\"') WHERE seq = 3", 8,
                "are not the ones it recorded"),
    "kept field dropped": ("UPDATE pgctx.events SET payload = payload - 'request_id' WHERE seq = 3", 8,
                           "are not the ones it recorded"),
    "arguments back": ("UPDATE pgctx.events SET payload = payload || '{\"arguments\": {\"card\": 1}}' WHERE seq = 2", 2,
                       "marked erased"),
    "kept_digest removed": ("UPDATE pgctx.events SET payload = payload - 'kept_digest' WHERE seq = 8", 8, "hash of seq 8"),
}


@pytest.mark.parametrize("name", KEPT_TAMPERING)
def test_tampering_with_what_an_erased_call_keeps_is_caught(conn, name):
    statement, seq, words = KEPT_TAMPERING[name]
    calls_story(conn)
    pgctx.erase(conn, "ledger", seqs=[2, 3], reason="x")
    assert pgctx.verify(conn, "ledger").ok and pgctx.verify_bundle(bundle(conn, "ledger")).ok
    conn.execute("ALTER TABLE pgctx.events DISABLE TRIGGER USER")
    try:
        conn.execute(statement.replace("WHERE", "WHERE conversation_id = 'ledger' AND"))
    finally:
        conn.execute("ALTER TABLE pgctx.events ENABLE TRIGGER USER")
    for report in (pgctx.verify(conn, "ledger"), pgctx.verify_bundle(bundle(conn, "ledger"))):
        assert (report.ok, report.first_bad_seq) == (False, seq), report
        assert words in report.reason


def test_a_fold_after_erasing_calls_keeps_them_and_cites_no_erased_event(conn):
    calls_story(conn)
    assert pgctx.fold(conn, "ledger", force=True).committed
    pgctx.erase(conn, "ledger", seqs=[2, 3, 6], reason="x")  # c1 whole, the refund's call
    pgctx.append_many(conn, "ledger", [{"kind": "user", "payload": pasted(f"and then {i}")} for i in range(3)])
    folded = pgctx.fold(conn, "ledger", force=True)
    assert folded.committed
    summary = pgctx.committed_fold(conn, "ledger").summary
    erased = {r[0] for r in conn.execute("SELECT seq FROM pgctx.events WHERE conversation_id = 'ledger'"
                                         " AND erased_in IS NOT NULL")}
    assert erased == {2, 3, 6}
    cited = {i for ids in re.findall(r'"source_event_ids": \[([\d, ]*)\]', canonical_json(summary).replace(",", ", "))
             for i in map(int, filter(None, ids.replace(" ", "").split(",")))}
    assert cited and not cited & erased
    # the erased calls are still tracked, with their status, and the unknown refund is pending
    state = summary["tool_state"]
    assert (state["c1"]["status"], state["c1"]["request_id"], state["c3"]["status"]) == ("succeeded", "r1", "unknown")
    assert state["c1"]["source_event_ids"] == [] and state["c3"]["source_event_ids"] == [7]
    assert any("c3" in p["action"] for p in summary["pending"])
    # nothing of the erased calls' arguments (their subject, order_id=77331) is carried
    assert "subject" not in state["c1"] and "subject" not in state["c3"] and "subject" in state["c2"]


def test_an_erased_unknown_call_is_reconciled_by_its_idempotency_key(conn, connect_as, roles):
    calls_story(conn)
    pgctx.erase(connect_as(roles.eraser), "ledger", seqs=[6, 7], reason="x")  # the refund and its timeout
    asked = []

    def resolver(call):
        asked.append(call)
        return {"outcome": "succeeded", "request_id": "refund-9"}

    [resolution] = pgctx.reconcile(conn, "ledger", resolver)
    assert [(c.call_id, c.tool, c.effect, c.idempotency_key, c.call_seq) for c in asked] == [
        ("c3", "refund", "irreversible", "k3", 6)]
    assert (resolution.call_id, resolution.outcome, resolution.seq) == ("c3", "succeeded", 9)
    assert conn.execute(LEDGER, ("ledger",)).fetchall()[2] == (
        "c3", "refund", "irreversible", "succeeded", "k3", "refund-9", None, None, 6, 9, False, True, [6])
    assert pgctx.verify(conn, "ledger").ok and pgctx.verify_bundle(bundle(conn, "ledger")).ok


def test_calls_erased_before_calls_kept_their_ids_stay_valid_and_readable(conn):
    """An erasure made before erased events kept a call's ids: bare markers, no kept_digest."""
    calls_story(conn)
    s = erasure_record(conn, "ledger", [[2, 3]])
    conn.execute("ALTER TABLE pgctx.events DISABLE TRIGGER USER")
    try:
        conn.execute("UPDATE pgctx.events SET payload = jsonb_build_object('pgctx_erased', %s::bigint), salt = NULL,"
                     " tokens = NULL, erased_in = %s WHERE conversation_id = 'ledger' AND seq IN (2, 3)", (s, s))
    finally:
        conn.execute("ALTER TABLE pgctx.events ENABLE TRIGGER USER")
    assert pgctx.verify(conn, "ledger").ok and pgctx.verify_bundle(bundle(conn, "ledger")).ok
    # the call is gone from the ledger, as it was then; the others are as they were
    assert [r[0] for r in conn.execute(LEDGER, ("ledger",))] == ["c2", "c3"]
    assert "[tool_call #2 erased" in str(pgctx.build_context(conn, "ledger").messages)
    # a later erasure of the same conversation keeps the new ids
    pgctx.erase(conn, "ledger", seqs=[6], reason="x")
    assert conn.execute(LEDGER, ("ledger",)).fetchall()[1][-1] == [6]
    assert pgctx.verify(conn, "ledger").ok and pgctx.verify_bundle(bundle(conn, "ledger")).ok
    assert pgctx.fold(conn, "ledger", force=True).committed


def test_a_tampered_erased_call_is_reported_at_itself_not_at_its_erasure(conn):
    """What else an erased event holds is reported at that event; its erasure's kept_digest reads
    only what the event keeps, so a range verified after the event (a resumed verify, a fold's
    range) does not fail at the erasure for it (found by the stateful fuzz)."""
    calls_story(conn)
    pgctx.erase(conn, "ledger", seqs=[2], reason="x")  # the erasure event is seq 8
    conn.execute("ALTER TABLE pgctx.events DISABLE TRIGGER USER")
    try:
        conn.execute("UPDATE pgctx.events SET payload = payload || '{\"tampered\": 1}'"
                     " WHERE conversation_id = 'ledger' AND seq = 2")
    finally:
        conn.execute("ALTER TABLE pgctx.events ENABLE TRIGGER USER")
    whole = pgctx.verify(conn, "ledger")
    assert (whole.ok, whole.first_bad_seq) == (False, 2) and "marked erased" in whole.reason
    assert pgctx.verify(conn, "ledger", from_seq=2).ok
