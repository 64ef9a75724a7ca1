"""Tampering by a superuser is detected, at the right seq, in the database and offline.

The attacker here is a superuser who gets past the guard triggers in one of two ways:

* ``disable_all``: ``ALTER TABLE ... DISABLE TRIGGER USER`` on both tables, edit, re-enable;
* ``replica``: ``SET session_replication_role = replica`` first, which must NOT be enough (the
  guards are ENABLE ALWAYS: UPDATE/DELETE/TRUNCATE are still refused with PC006), then the
  specific guard triggers are disabled, the edit made, and the triggers re-enabled.

Either way the triggers are restored to ENABLE ALWAYS afterwards (checked), so every verification
below runs against a database whose guards are back in place. Each case is checked through
``pgctx.verify`` (SQL pgctx.verify_chain) and through an exported bundle (``pgctx.verify_bundle``).
"""

from __future__ import annotations

import contextlib
import io
import json

import psycopg
import pytest

import pgctx
from pgctx.canonical import canonical_json
from pgctx.errors import BundleError

A, B, C = "conv-a", "conv-b", "conv-c"
KINDS = ("user", "assistant", "tool_call", "tool_result", "fact", "correction")
TRIGGERS = {
    "pgctx.events": ("events_chain", "events_refuse_change", "events_refuse_truncate"),
    "pgctx.conversations": ("conversations_guard_row", "conversations_guard_delete", "conversations_guard_insert",
                            "conversations_guard_truncate"),
}
# what the replica-mode attacker disables one by one (the row-level guards and the chain trigger)
SPECIFIC = {
    "pgctx.events": ("events_chain", "events_refuse_change"),
    "pgctx.conversations": ("conversations_guard_row", "conversations_guard_delete", "conversations_guard_insert"),
}
GUARDED_STATEMENTS = (
    "UPDATE pgctx.events SET payload = '{}'::jsonb",
    "DELETE FROM pgctx.events",
    "TRUNCATE pgctx.events",
    "DELETE FROM pgctx.conversations",
    "TRUNCATE pgctx.conversations",
)


# --- building and inspecting chains ------------------------------------------------------------


def grow(conn, cid: str, n: int) -> list[int]:
    """Append n events to cid (payloads differ per seq; one number with a trailing zero)."""
    start = conn.execute(
        "SELECT coalesce(max(seq), 0) FROM pgctx.events WHERE conversation_id = %s", (cid,)
    ).fetchone()[0]
    return pgctx.append_many(
        conn,
        cid,
        [
            {"kind": KINDS[(start + i) % len(KINDS)], "payload": {"text": f"event {start + i + 1}", "score": 1.50}}
            for i in range(n)
        ],
    )


@pytest.fixture
def six(conn) -> str:
    """Conversation A with six events, verified clean."""
    assert grow(conn, A, 6) == [1, 2, 3, 4, 5, 6]
    assert pgctx.verify(conn, A).ok
    return A


def event_hash_hex(conn, cid: str, seq: int) -> str:
    return conn.execute(
        "SELECT encode(hash, 'hex') FROM pgctx.events WHERE conversation_id = %s AND seq = %s", (cid, seq)
    ).fetchone()[0]


def export(conn, cid: str) -> list[bytes]:
    """The conversation's bundle, as the list of its lines in bytes."""
    buf = io.StringIO()
    pgctx.export_bundle(conn, cid, buf)
    return [line.encode("utf-8") for line in buf.getvalue().split("\n") if line]


def trigger_states(conn) -> dict[str, str]:
    rows = conn.execute(
        "SELECT tgname, tgenabled FROM pg_trigger"
        " WHERE tgrelid IN ('pgctx.events'::regclass, 'pgctx.conversations'::regclass) AND NOT tgisinternal"
    ).fetchall()
    return dict(rows)


def assert_refused(conn, statement: str, sqlstate: str = "PC006") -> None:
    with pytest.raises(psycopg.Error) as caught:
        with conn.transaction():
            conn.execute(statement)
    assert caught.value.sqlstate == sqlstate, (statement, caught.value)


# --- the attacker's tools ----------------------------------------------------------------------


@pytest.fixture(params=["disable_all", "replica"])
def tamper(request, conn):
    """tamper() -> a context in which conn edits the log with the guards out of the way."""
    mode = request.param

    @contextlib.contextmanager
    def _tamper():
        with conn.transaction():
            if mode == "replica":
                conn.execute("SET LOCAL session_replication_role = replica")
                for statement in GUARDED_STATEMENTS:  # replica mode alone gets nowhere
                    assert_refused(conn, statement)
                for table, names in SPECIFIC.items():
                    for name in names:
                        conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER {name}")
            else:
                for table in TRIGGERS:
                    conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
            yield conn
            for table, names in TRIGGERS.items():
                for name in names:
                    conn.execute(f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {name}")
        assert set(trigger_states(conn).values()) == {"A"}

    return _tamper


def set_payload(conn, cid: str, seq: int, payload: dict) -> None:
    conn.execute(
        "UPDATE pgctx.events SET payload = %s::jsonb WHERE conversation_id = %s AND seq = %s",
        (canonical_json(payload), cid, seq),
    )


def delete_events(conn, cid: str, seqs: list[int]) -> None:
    conn.execute("DELETE FROM pgctx.events WHERE conversation_id = %s AND seq = ANY(%s)", (cid, seqs))


def fix_head(conn, cid: str, seq: int | None = None) -> None:
    """Point the head row at event seq (default: the last one), as an attacker covering tracks would."""
    conn.execute(
        "UPDATE pgctx.conversations c SET head_seq = e.seq, head_hash = e.hash"
        "  FROM (SELECT seq, hash FROM pgctx.events WHERE conversation_id = %(cid)s"
        "           AND (%(seq)s::bigint IS NULL OR seq = %(seq)s)"
        "         ORDER BY seq DESC LIMIT 1) e"
        " WHERE c.conversation_id = %(cid)s",
        {"cid": cid, "seq": seq},
    )


def rechain(conn, cid: str, start: int) -> None:
    """Recompute prev_hash and hash of every event from seq start on, then the head."""
    last = conn.execute("SELECT max(seq) FROM pgctx.events WHERE conversation_id = %s", (cid,)).fetchone()[0]
    for seq in range(start, last + 1):
        conn.execute(
            "UPDATE pgctx.events e"
            "   SET prev_hash = p.h, payload_digest = pgctx.payload_digest(e.salt, e.payload::text),"
            "       hash = pgctx.event_hash_v2(e.conversation_id, e.seq, e.kind, p.h, pgctx.payload_digest(e.salt, e.payload::text))"
            "  FROM (SELECT coalesce((SELECT hash FROM pgctx.events"
            "                          WHERE conversation_id = %(cid)s AND seq = %(seq)s - 1),"
            "                        pgctx.genesis_hash(%(cid)s)) AS h) p"
            " WHERE e.conversation_id = %(cid)s AND e.seq = %(seq)s",
            {"cid": cid, "seq": seq},
        )
    fix_head(conn, cid)


# --- assertions ---------------------------------------------------------------------------------


def assert_bad(report: pgctx.ChainReport, seq: int, *words: str) -> None:
    assert (report.ok, report.first_bad_seq, report.anchored) == (False, seq, False), report
    for word in words:
        assert word in report.reason, (word, report)


def assert_clean(report: pgctx.ChainReport, reason: str = "consistent, unanchored") -> None:
    assert (report.ok, report.first_bad_seq, report.reason) == (True, None, reason), report
    assert report.anchored == reason.startswith("consistent, anchored")


def assert_detected(conn, cid: str, seq: int, *words: str, offline_words: tuple[str, ...] | None = None) -> None:
    """In the database and in a bundle exported now: first bad seq and key words of the reason;
    in SQL, a broken chain's report says 0 erased, not NULL."""
    assert_bad(pgctx.verify(conn, cid), seq, *words)
    assert conn.execute("SELECT erased FROM pgctx.verify_chain(%s)", (cid,)).fetchone()[0] == 0
    assert_bad(pgctx.verify_bundle(export(conn, cid)), seq, *(words if offline_words is None else offline_words))


def digest_head(digest: dict, cid: str) -> tuple[int, str]:
    (entry,) = [c for c in digest["conversations"] if c["conversation_id"] == cid]
    return entry["head_seq"], entry["head_hash"]


def digest_report(conn, digest: dict, cid: str) -> pgctx.ChainReport:
    (report,) = [r for r in pgctx.verify_against_digest(conn, digest) if r.conversation_id == cid]
    return report


# --- the guards themselves ----------------------------------------------------------------------


def test_replica_mode_alone_cannot_edit(conn, six):
    with conn.transaction():
        conn.execute("SET LOCAL session_replication_role = replica")
        for statement in GUARDED_STATEMENTS:
            assert_refused(conn, statement)
    assert set(trigger_states(conn).values()) == {"A"}, "guards must be ENABLE ALWAYS"
    assert_clean(pgctx.verify(conn, six))
    assert pgctx.verify(conn, six).checked == 6


def test_clean_chain_reports(conn, six):
    assert_clean(pgctx.verify(conn, six))
    assert_clean(pgctx.verify_bundle(export(conn, six)))
    digest = pgctx.take_digest(conn)
    seq, hash_ = digest_head(digest, six)
    assert seq == 6
    grow(conn, six, 1)  # the anchor is the digest's seq, not the current head
    grow(conn, B, 2)  # a conversation the digest does not know
    for report in (
        pgctx.verify(conn, six, anchor_seq=seq, anchor_hash=hash_),
        digest_report(conn, digest, six),
        pgctx.verify_bundle(export(conn, six), anchor_seq=seq, anchor_hash=hash_),
    ):
        assert_clean(report, "consistent, anchored at seq 6")
        assert report.head_seq == 7
    assert_clean(digest_report(conn, digest, B))


# --- (a)-(d): edits that break the chain ---------------------------------------------------------


def test_payload_edited_in_the_middle(conn, six, tamper):
    with tamper():
        set_payload(conn, six, 3, {"text": "forged", "score": 1.5})
    assert_detected(conn, six, 3, "hash of seq 3", "content")


def test_event_deleted_from_the_middle(conn, six, tamper):
    with tamper():
        delete_events(conn, six, [3])
    assert_detected(conn, six, 3, "seq 3 is missing")


def test_two_seqs_swapped(conn, six, tamper):
    with tamper():
        for old, new in ((3, 1000), (4, 3), (1000, 4)):  # the primary key is checked row by row
            conn.execute("UPDATE pgctx.events SET seq = %s WHERE conversation_id = %s AND seq = %s", (new, six, old))
    assert_detected(conn, six, 3, "prev_hash of seq 3")


@pytest.mark.parametrize("head_fixed", [True, False], ids=["b-head-fixed", "b-head-left"])
def test_event_moved_to_another_conversation(conn, six, tamper, head_fixed):
    grow(conn, B, 3)
    with tamper():
        # A's seq 3 becomes B's seq 4, even linked to B's last hash: only the id inside the hash tells
        conn.execute(
            "UPDATE pgctx.events SET conversation_id = %(b)s, seq = 4,"
            "       prev_hash = (SELECT hash FROM pgctx.events WHERE conversation_id = %(b)s AND seq = 3)"
            " WHERE conversation_id = %(a)s AND seq = 3",
            {"a": A, "b": B},
        )
        if head_fixed:
            fix_head(conn, B)
    assert_detected(conn, A, 3, "seq 3 is missing")
    assert_detected(conn, B, 4, "hash of seq 4", "conversation")


# --- (e): a prefix replayed into another conversation --------------------------------------------


@pytest.mark.parametrize("genesis", ["copied", "own"])
def test_prefix_replayed_into_another_conversation(conn, six, tamper, genesis):
    with tamper():
        conn.execute(
            "INSERT INTO pgctx.events (conversation_id, seq, kind, payload, event_key, tenant, prev_hash, hash, created_at)"
            " SELECT %(c)s, seq, kind, payload, event_key, tenant, prev_hash, hash, created_at"
            "   FROM pgctx.events WHERE conversation_id = %(a)s AND seq <= 3",
            {"a": A, "c": C},
        )
        conn.execute(
            "INSERT INTO pgctx.conversations (conversation_id, tenant, genesis_hash, head_seq, head_hash)"
            " SELECT %(c)s, tenant, CASE WHEN %(copied)s THEN genesis_hash ELSE pgctx.genesis_hash(%(c)s) END,"
            "        3, (SELECT hash FROM pgctx.events WHERE conversation_id = %(a)s AND seq = 3)"
            "   FROM pgctx.conversations WHERE conversation_id = %(a)s",
            {"a": A, "c": C, "copied": genesis == "copied"},
        )
    assert conn.execute("SELECT count(*) FROM pgctx.events WHERE conversation_id = %s", (C,)).fetchone()[0] == 3
    # with A's genesis copied into C's row the links hold, but the row's genesis is not the one of
    # C's id; the offline verifier recomputes the genesis from the id, so it sees a broken first link
    in_db = ("genesis",) if genesis == "copied" else ("prev_hash of seq 1",)
    assert_detected(conn, C, 1, *in_db, offline_words=("seq 1",))
    assert_clean(pgctx.verify(conn, A))


# --- (f)-(h): truncation and full rewrites -------------------------------------------------------


def test_tail_truncated_head_left(conn, six, tamper):
    with tamper():
        delete_events(conn, six, [5, 6])
    assert_detected(conn, six, 5, "head", "seq 6", "seq 4")


def test_head_rolled_back_events_left(conn, six, tamper):
    # the events stay, the head row is moved back to seq 4: the log no longer ends at the head
    with tamper():
        fix_head(conn, six, 4)
    assert conn.execute("SELECT head_seq FROM pgctx.conversations WHERE conversation_id = %s", (six,)).fetchone() == (4,)
    assert_detected(conn, six, 5, "head", "seq 4", "seq 6")


def assert_only_the_digest_notices(conn, cid: str, digest: dict, bad_seq: int, *words: str) -> None:
    """Clean in the database and in a bundle, but bad against the digest, in all three ways."""
    seq, hash_ = digest_head(digest, cid)
    assert_clean(pgctx.verify(conn, cid))
    lines = export(conn, cid)
    assert_clean(pgctx.verify_bundle(lines))
    for report in (
        digest_report(conn, digest, cid),
        pgctx.verify(conn, cid, anchor_seq=seq, anchor_hash=hash_),
        pgctx.verify_bundle(lines, anchor_seq=seq, anchor_hash=hash_),
    ):
        assert_bad(report, bad_seq, *words)


def test_tail_truncated_head_fixed_needs_digest(conn, six, tamper):
    digest = pgctx.take_digest(conn)
    with tamper():
        delete_events(conn, six, [5, 6])
        fix_head(conn, six)
    # stated limit: without an anchor, a consistently shortened chain looks fine
    assert_only_the_digest_notices(conn, six, digest, 5, "truncated", "seq 6", "seq 4")


def test_full_rewrite_needs_digest(conn, six, tamper):
    digest = pgctx.take_digest(conn)
    before = [event_hash_hex(conn, six, s) for s in range(1, 7)]
    with tamper():
        set_payload(conn, six, 2, {"text": "forged", "score": 1.5})
        rechain(conn, six, 2)
    after = [event_hash_hex(conn, six, s) for s in range(1, 7)]
    assert [b == a for b, a in zip(before, after)] == [True] + [False] * 5  # seq 2 on all rehashed
    # stated limit: consistent, but unanchored
    assert_only_the_digest_notices(conn, six, digest, 6, "rewritten", "seq 6")


# --- (i): resuming from a verified point ----------------------------------------------------------


@pytest.fixture
def resumable(conn, six) -> tuple[int, str]:
    """A verified up to its head (seq 6), then three more events: the resume point (6, hash)."""
    done = pgctx.verify(conn, six)
    assert_clean(done)
    grow(conn, six, 3)
    resumed = pgctx.verify(conn, six, from_seq=done.head_seq, from_hash=done.head_hash)
    assert_clean(resumed)
    assert resumed.checked == 3
    return done.head_seq, done.head_hash


def test_resume_catches_rewrite_before_resume_point(conn, resumable, tamper):
    k, h = resumable
    with tamper():
        set_payload(conn, A, 2, {"text": "forged", "score": 1.5})
        rechain(conn, A, 2)
    assert_clean(pgctx.verify(conn, A))  # the rewrite is consistent in itself
    report = pgctx.verify(conn, A, from_seq=k, from_hash=h)
    assert_bad(report, k, "resume point", f"seq {k}", "differs")
    assert report.checked == 0


def test_resume_skips_unchained_edit_before_resume_point(conn, resumable, tamper):
    # stated behaviour: resuming trusts what was verified before k; only a full pass sees seq 2
    k, h = resumable
    with tamper():
        set_payload(conn, A, 2, {"text": "forged", "score": 1.5})
    assert_clean(pgctx.verify(conn, A, from_seq=k, from_hash=h))
    assert_bad(pgctx.verify(conn, A), 2, "hash of seq 2")


def test_resume_catches_edit_after_resume_point(conn, resumable, tamper):
    k, h = resumable
    with tamper():
        set_payload(conn, A, 8, {"text": "forged", "score": 1.5})
    report = pgctx.verify(conn, A, from_seq=k, from_hash=h)
    assert_bad(report, 8, "hash of seq 8", "content")
    assert report.checked == 2  # seqs 7 and 8: verification starts after k and stops at the first bad event
    assert_bad(pgctx.verify(conn, A, from_seq=k), 8, "hash of seq 8")
    assert_bad(pgctx.verify(conn, A), 8, "hash of seq 8")


# --- (j): bundles edited offline, malformed bundles ----------------------------------------------


def _edit_event(lines: list[bytes], index: int, **changes) -> list[bytes]:
    """Lines with line index's fields replaced (line 0 is the header, line n the event of seq n)."""
    out = list(lines)
    event = json.loads(out[index])
    event.update(changes)
    out[index] = json.dumps(event, ensure_ascii=False).encode("utf-8")
    return out


def _flip(hex_hash: str) -> str:
    return ("0" if hex_hash[0] != "0" else "1") + hex_hash[1:]


def _edit_header(lines: list[bytes], **changes) -> list[bytes]:
    return _edit_event(lines, 0, **changes)


OFFLINE_EDITS = {
    "payload": (lambda ls: [l.replace(b'"event 3"', b'"event X"') for l in ls], 3, "hash of seq 3"),
    "hash": (lambda ls: _edit_event(ls, 3, hash=_flip(json.loads(ls[3])["hash"])), 3, "hash of seq 3"),
    "prev_hash": (lambda ls: _edit_event(ls, 3, prev_hash=_flip(json.loads(ls[3])["prev_hash"])), 3, "prev_hash of seq 3"),
    "kind": (lambda ls: _edit_event(ls, 3, kind="system"), 3, "hash of seq 3"),
    "dropped": (lambda ls: ls[:3] + ls[4:], 3, "seq 3 is missing"),
    "swapped": (lambda ls: ls[:3] + [ls[4], ls[3]] + ls[5:], 3, "seq 3 is missing"),
    "conversation_id": (lambda ls: _edit_header(ls, conversation_id=B), 1, "prev_hash of seq 1"),
    "head_hash": (lambda ls: _edit_header(ls, head_hash=_flip(json.loads(ls[0])["head_hash"])), 7, "head"),
}


@pytest.mark.parametrize("edit", OFFLINE_EDITS)
def test_bundle_edited_offline(conn, six, edit):
    change, seq, words = OFFLINE_EDITS[edit]
    lines = export(conn, six)
    assert_clean(pgctx.verify_bundle(lines))
    edited = change(lines)
    assert edited != lines
    assert_bad(pgctx.verify_bundle(edited), seq, words)


def test_bundle_reformatted_payload_still_verifies(conn, six):
    # canonical form: key order, spacing and trailing zeros are not content
    lines = export(conn, six)
    assert b'"score": 1.5' in lines[3]
    lines[3] = lines[3].replace(b'"payload": {"text": "event 3", "score": 1.5}',
                                b'"payload": {"score":1.500,   "text":"event 3"}')
    assert b'"score":1.500' in lines[3]
    assert_clean(pgctx.verify_bundle(lines))


def _without(lines: list[bytes], index: int, key: str) -> list[bytes]:
    out = list(lines)
    value = json.loads(out[index])
    del value[key]
    out[index] = json.dumps(value).encode("utf-8")
    return out


MALFORMED = {
    "empty": lambda ls: [],
    "not_json": lambda ls: ls[:2] + [b"{not json"] + ls[3:],
    "not_utf8": lambda ls: ls[:2] + [b'{"seq": "\xff"}'] + ls[3:],
    "not_object": lambda ls: ls[:2] + [b"[1, 2]"] + ls[3:],
    "wrong_format": lambda ls: _edit_header(ls, format="something-else"),
    "wrong_version": lambda ls: _edit_header(ls, version=3),
    "bad_hash_hex": lambda ls: _edit_event(ls, 2, hash="zz"),
    "missing_hash": lambda ls: _without(ls, 2, "hash"),
    "missing_seq": lambda ls: _without(ls, 2, "seq"),
    "missing_kind": lambda ls: _without(ls, 2, "kind"),
    "missing_payload": lambda ls: _without(ls, 2, "payload"),
    "seq_not_integer": lambda ls: _edit_event(ls, 2, seq="2"),
    "header_missing_conversation_id": lambda ls: _without(ls, 0, "conversation_id"),
    "header_head_seq_not_integer": lambda ls: _edit_header(ls, head_seq="6"),
    "header_missing_head_seq": lambda ls: _without(ls, 0, "head_seq"),
}


@pytest.mark.parametrize("damage", MALFORMED)
def test_malformed_bundle_raises_bundle_error(conn, six, damage):
    with pytest.raises(BundleError):
        pgctx.verify_bundle(MALFORMED[damage](export(conn, six)))
