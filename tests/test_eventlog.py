"""The append-only log: every insert path, every refusal with its SQLSTATE, nothing lost."""

from __future__ import annotations

import json

import psycopg
import pytest
from psycopg.types.json import Jsonb

import pgctx
from pgctx import errors
from pgctx.canonical import event_hash_v2, genesis_hash, payload_digest


def counts(conn) -> tuple[int, int]:
    return conn.execute(
        "SELECT (SELECT count(*) FROM pgctx.events), (SELECT count(*) FROM pgctx.conversations)"
    ).fetchone()


def log(conn, cid: str) -> list[tuple]:
    return conn.execute(
        "SELECT seq, kind, payload::text, prev_hash, hash, salt, payload_digest FROM pgctx.events"
        " WHERE conversation_id = %s ORDER BY seq",
        (cid,),
    ).fetchall()


def assert_chain(conn, cid: str, length: int) -> None:
    """seq 1..length, each linked and hashed as the Python twin computes, head at the end."""
    rows = log(conn, cid)
    assert [r[0] for r in rows] == list(range(1, length + 1))
    prior = genesis_hash(cid)
    for seq, kind, text, prev_hash, hash_, salt, digest in rows:
        assert prev_hash == prior
        assert digest == payload_digest(salt, text)
        assert hash_ == event_hash_v2(cid, seq, kind, prev_hash, digest)
        prior = hash_
    head = conn.execute(
        "SELECT head_seq, head_hash FROM pgctx.conversations WHERE conversation_id = %s", (cid,)
    ).fetchone()
    assert head == (length, prior)
    assert pgctx.verify(conn, cid).ok


def test_every_insert_path_chains_the_same_way(conn):
    pgctx.append(conn, "c", "user", {"via": "python"})
    conn.execute("SELECT pgctx.append_event('c', 'assistant', '{\"via\": \"function\"}')")
    conn.execute("INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES ('c', 'user', '{\"via\": \"insert\"}')")
    conn.execute(
        "INSERT INTO pgctx.events (conversation_id, kind, payload)"
        " SELECT 'c', 'tool_call', jsonb_build_object('i', i) FROM generate_series(1, 5) i"
    )
    with conn.cursor().copy("COPY pgctx.events (conversation_id, kind, payload) FROM STDIN") as copy:
        copy.write_row(("c", "tool_result", '{"via": "copy"}'))
        copy.write_row(("c", "tool_result", '{"via": "copy", "n": 2}'))
    pgctx.append_many(conn, "c", [{"kind": "user", "payload": {"batch": i}} for i in range(3)])
    assert_chain(conn, "c", 13)
    assert [r[2] for r in log(conn, "c")][3:8] == [f'{{"i": {i}}}' for i in range(1, 6)]


def test_batch_moves_the_head_once_and_rows_move_it_one_by_one(conn):
    """append_events updates the head row once per batch; the row trigger once per row (so each
    row of a multi-row INSERT chains from the row before it)."""

    def head_updates() -> tuple[int, int]:
        return conn.execute(
            "SELECT n_tup_ins, n_tup_upd FROM pg_stat_xact_user_tables"
            " WHERE relid = 'pgctx.conversations'::regclass"
        ).fetchone()

    batch = [{"kind": "user", "payload": {"i": i}} for i in range(100)]
    with conn.transaction():
        for _ in range(2):
            conn.execute("SELECT count(*) FROM pgctx.append_events('h', %s::jsonb)", (json.dumps(batch),))
        assert head_updates() == (1, 2)  # the row created, then one head update per call
        conn.execute(
            "INSERT INTO pgctx.events (conversation_id, kind, payload)"
            " SELECT 'h', 'user', jsonb_build_object('i', i) FROM generate_series(1, 50) i"
        )
        assert head_updates() == (1, 2 + 50)
    assert_chain(conn, "h", 250)
    head = conn.execute("SELECT head_seq, head_hash, head_prev_hash FROM pgctx.conversations"
                        " WHERE conversation_id = 'h'").fetchone()
    last = conn.execute("SELECT seq, hash, prev_hash FROM pgctx.events WHERE conversation_id = 'h'"
                        " ORDER BY seq DESC LIMIT 1").fetchone()
    assert head == last


def test_callers_cannot_choose_seq_hashes_tenant_or_time(conn, roles, connect_as):
    """pgctx_app may not even name those columns; a row without a hash (every row but
    append_events' own) gets them from the trigger, whatever it says."""
    app = connect_as(roles.app)
    for column, value in (("seq", "99"), ("prev_hash", "'\\x00'"), ("hash", "'\\x00'"), ("created_at", "now()")):
        with pytest.raises(psycopg.Error) as info:
            app.execute(f"INSERT INTO pgctx.events (conversation_id, kind, payload, {column}) VALUES ('x', 'user', '{{}}', {value})")
        assert info.value.sqlstate == "42501", column
    conn.execute(
        "INSERT INTO pgctx.events (conversation_id, seq, kind, payload, prev_hash, created_at)"
        " VALUES ('x', 99, 'user', '{}', '\\x00', '2000-01-01')"
    )
    seq, created = conn.execute("SELECT seq, created_at > now() - interval '1 hour' FROM pgctx.events").fetchone()
    assert (seq, created) == (1, True)
    assert_chain(conn, "x", 1)


@pytest.mark.parametrize(
    "conversation_id", ["", " padded", "padded ", "tab\there", "new\nline", "x" * 257, "é" * 129]
)
def test_invalid_conversation_ids_are_refused(conn, conversation_id):
    with pytest.raises(errors.InvalidConversationId) as info:
        pgctx.append(conn, conversation_id, "user", {})
    assert info.value.sqlstate == "PC001"
    assert counts(conn) == (0, 0)


def test_a_256_byte_id_is_accepted(conn):
    assert pgctx.append(conn, "é" * 128, "user", {}) == 1


@pytest.mark.parametrize(
    "kind, payload, exc",
    [
        ("nonsense", '{}', errors.UnknownEventKind),
        ("USER", '{}', errors.UnknownEventKind),
        ("user", '[1, 2]', errors.InvalidPayload),
        ("user", '"text"', errors.InvalidPayload),
        ("user", 'null', errors.InvalidPayload),
    ],
)
def test_bad_kinds_and_payloads_are_refused_through_sql(conn, kind, payload, exc):
    pgctx.append(conn, "c", "user", {"first": True})
    before = log(conn, "c")
    for statement in (
        "SELECT pgctx.append_event('c', %s, %s::jsonb)",
        "INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES ('c', %s, %s::jsonb)",
    ):
        with pytest.raises(psycopg.Error) as info:
            conn.execute(statement, (kind, payload))
        assert info.value.sqlstate == exc.sqlstate
    with pytest.raises(exc):
        with errors.translated():
            conn.execute("SELECT pgctx.append_event('c', %s, %s::jsonb)", (kind, payload))
    assert log(conn, "c") == before


def test_null_payload_is_refused(conn):
    with pytest.raises(psycopg.Error) as info:
        conn.execute("INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES ('c', 'user', NULL)")
    assert info.value.sqlstate == "PC003"


def test_payload_size_limit(conn):
    limit = conn.execute("SELECT pgctx.max_payload_bytes()").fetchone()[0]
    overhead = len('{"t": ""}')
    assert pgctx.append(conn, "big", "user", {"t": "x" * (limit - overhead)}) == 1
    with pytest.raises(errors.PayloadTooLarge):
        pgctx.append(conn, "big", "user", {"t": "x" * (limit - overhead + 1)})
    assert counts(conn) == (1, 1)


def test_a_kind_added_or_removed_takes_effect_at_once(conn, dsn):
    """pgctx.is_event_kind is compiled from pgctx.event_kinds by a trigger: a kind the owner adds
    is accepted at once on every path, also by sessions that cached their plans before, and a
    kind removed is refused again."""
    with psycopg.connect(dsn, autocommit=True) as other:
        for c in (conn, other):
            pgctx.append(c, "k", "user", {"warm": True})  # plans cached in both sessions
            with pytest.raises(errors.UnknownEventKind):
                pgctx.append(c, "k", "audit_note", {})
        conn.execute("INSERT INTO pgctx.event_kinds (kind, description) VALUES ('audit_note', 'a note')")
        for c in (conn, other):
            pgctx.append(c, "k", "audit_note", {"via": "append_event"})
            pgctx.append_many(c, "k", [{"kind": "audit_note", "payload": {"via": "append_events"}}])
            c.execute("INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES ('k', 'audit_note', '{}')")
        conn.execute("DELETE FROM pgctx.event_kinds WHERE kind = 'audit_note'")
        for c in (conn, other):
            with pytest.raises(errors.UnknownEventKind):
                pgctx.append(c, "k", "audit_note", {})
            with pytest.raises(errors.UnknownEventKind):
                pgctx.append_many(c, "k", [{"kind": "audit_note", "payload": {}}])
    assert_chain(conn, "k", 8)


@pytest.mark.parametrize("key", ["", "k" * 201])
def test_invalid_event_keys_are_refused(conn, key):
    with pytest.raises(errors.InvalidEventKey):
        pgctx.append(conn, "c", "user", {}, event_key=key)
    assert counts(conn) == (0, 0)


def test_event_key_makes_append_idempotent(conn):
    first = pgctx.append(conn, "c", "tool_call", {"tool": "refund", "amount": 10.5}, event_key="k1")
    pgctx.append(conn, "c", "user", {"other": 1})
    # same key, same content (10.50 is the same number) -> the original seq, nothing written
    assert pgctx.append(conn, "c", "tool_call", {"tool": "refund", "amount": 10.50}, event_key="k1") == first
    conn.execute(
        "INSERT INTO pgctx.events (conversation_id, kind, payload, event_key)"
        " VALUES ('c', 'tool_call', '{\"tool\": \"refund\", \"amount\": 10.5}', 'k1')"
    )
    assert len(log(conn, "c")) == 2
    # same key, other content or kind -> typed conflict, nothing written
    with pytest.raises(errors.EventKeyConflict):
        pgctx.append(conn, "c", "tool_call", {"tool": "refund", "amount": 11}, event_key="k1")
    with pytest.raises(errors.EventKeyConflict):
        pgctx.append(conn, "c", "tool_result", {"tool": "refund", "amount": 10.5}, event_key="k1")
    # keys are per conversation
    assert pgctx.append(conn, "d", "tool_call", {"tool": "refund", "amount": 10.5}, event_key="k1") == 1
    assert_chain(conn, "c", 2)


def test_a_key_repeated_within_one_batch_is_the_same_event_or_a_conflict(conn):
    batch = [{"kind": "user", "payload": {"n": i}, "event_key": f"k{i}"} for i in range(300)]
    repeat = {"kind": "user", "payload": {"n": 150.0}, "event_key": "k150"}  # 150.0 is the number 150
    assert pgctx.append_many(conn, "c", [*batch, repeat]) == [*range(1, 301), 151]
    assert len(log(conn, "c")) == 300
    fresh = {"kind": "user", "payload": {"n": "new"}, "event_key": "fresh"}
    with pytest.raises(errors.EventKeyConflict):  # the key names another event earlier in the batch
        pgctx.append_many(conn, "c", [fresh, {**fresh, "payload": {"n": -1}}])
    assert len(log(conn, "c")) == 300  # the batch's first event went with it
    assert_chain(conn, "c", 300)


def test_append_many_maps_every_item_to_its_seq(conn):
    pgctx.append(conn, "b", "user", {"n": 0}, event_key="old")
    seqs = pgctx.append_many(
        conn,
        "b",
        [
            {"kind": "user", "payload": {"n": 1}},
            {"kind": "user", "payload": {"n": 0}, "event_key": "old"},  # existed before
            {"kind": "user", "payload": {"n": 2}, "event_key": "new"},
            {"kind": "user", "payload": {"n": 3}},
            {"kind": "user", "payload": {"n": 2}, "event_key": "new"},  # repeated in the batch
        ],
    )
    assert seqs == [2, 1, 3, 4, 3]
    assert_chain(conn, "b", 4)


@pytest.mark.parametrize(
    "events",
    ['{"kind": "user"}', '[1]', '[{"kind": "user", "payload": {}}, "x"]',
     '[{"kind": "user", "payload": {}}, {"kind": "user", "payload": []}]'],
)
def test_a_bad_batch_writes_nothing(conn, events):
    pgctx.append(conn, "b", "user", {})
    with pytest.raises(psycopg.Error) as info:
        conn.execute("SELECT * FROM pgctx.append_events('b', %s::jsonb)", (events,))
    assert info.value.sqlstate == "PC003"
    assert counts(conn) == (1, 1)


BAD_EVENTS = {
    "unknown kind": ({"kind": "nonsense", "payload": {}}, "PC002"),
    "kind missing": ({"payload": {}}, "PC002"),
    "payload not an object": ({"kind": "user", "payload": [1]}, "PC003"),
    "payload missing": ({"kind": "user"}, "PC003"),
    "empty event key": ({"kind": "user", "payload": {}, "event_key": ""}, "PC013"),
    "event key too long": ({"kind": "user", "payload": {}, "event_key": "k" * 201}, "PC013"),
    "key of another event": ({"kind": "user", "payload": {"n": 99}, "event_key": "k0"}, "PC005"),
    "payload too large": ({"kind": "user", "payload": {"t": "x" * (1 << 20)}}, "PC004"),
}


@pytest.mark.parametrize("bad, sqlstate", BAD_EVENTS.values(), ids=BAD_EVENTS.keys())
def test_append_events_refuses_what_the_trigger_refuses_with_its_sqlstate_and_writes_nothing(conn, bad, sqlstate):
    # append_events chains a batch itself (not through the row trigger): same rules, same codes
    pgctx.append(conn, "b", "user", {"n": 0}, event_key="k0")
    before = log(conn, "b")
    batch = [{"kind": "user", "payload": {"n": 1}}, bad, {"kind": "user", "payload": {"n": 2}}]
    with pytest.raises(psycopg.Error) as info:
        conn.execute("SELECT * FROM pgctx.append_events('b', %s::jsonb)", (Jsonb(batch),))
    assert info.value.sqlstate == sqlstate
    with pytest.raises(psycopg.Error) as trigger:
        conn.execute("INSERT INTO pgctx.events (conversation_id, kind, payload, event_key) VALUES ('b', %s, %s, %s)",
                     (bad.get("kind"), Jsonb(bad["payload"]) if "payload" in bad else None, bad.get("event_key")))
    assert trigger.value.sqlstate == sqlstate
    assert log(conn, "b") == before and counts(conn) == (1, 1)
    with pytest.raises(psycopg.Error) as info:
        conn.execute("SELECT * FROM pgctx.append_events(' b', '[]')")
    assert info.value.sqlstate == "PC001"


def test_only_the_owner_can_send_a_hash_and_verify_catches_what_it_claims(conn, roles, connect_as):
    """Rows that arrive with a hash skip the row trigger (append_events' rows). pgctx_app cannot
    send one (column privileges); the owner, outside what in-database checks can hold, can, and
    verify_chain reports the row whatever it claims."""
    pgctx.append_many(conn, "b", [{"kind": "user", "payload": {"i": i}} for i in range(3)])
    forged = ("INSERT INTO pgctx.events (conversation_id, kind, payload, seq, prev_hash, hash)"
              " VALUES ('b', 'user', '{}', 4, (SELECT hash FROM pgctx.events WHERE conversation_id = 'b' AND seq = 3),"
              " '\\x00')")
    app = connect_as(roles.app)
    with pytest.raises(psycopg.Error) as info:
        app.execute(forged)
    assert info.value.sqlstate == "42501"
    assert_chain(conn, "b", 3)
    conn.execute(forged)
    report = conn.execute("SELECT ok, first_bad_seq, reason FROM pgctx.verify_chain('b')").fetchone()
    assert report[:2] == (False, 4) and "hash of seq 4" in report[2]


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE pgctx.events SET payload = '{\"x\": 1}'",
        "UPDATE pgctx.events SET seq = seq + 10",
        "DELETE FROM pgctx.events WHERE seq = 2",
        "TRUNCATE pgctx.events",
        "TRUNCATE pgctx.events, pgctx.conversations",
        "DELETE FROM pgctx.conversations",
        "TRUNCATE pgctx.conversations CASCADE",
    ],
)
@pytest.mark.parametrize("replica", [False, True])
def test_history_cannot_be_edited_even_by_a_superuser_in_replica_mode(conn, statement, replica):
    pgctx.append_many(conn, "c", [{"kind": "user", "payload": {"i": i}} for i in range(3)])
    before = log(conn, "c")
    if replica:
        conn.execute("SET session_replication_role = replica")
    with pytest.raises(psycopg.Error) as info:
        conn.execute(statement)
    assert info.value.sqlstate == "PC006"
    assert log(conn, "c") == before


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE pgctx.conversations SET tenant = 'pgctx_app'",
        "UPDATE pgctx.conversations SET genesis_hash = '\\x00'",
        "UPDATE pgctx.conversations SET conversation_id = 'other'",
        "UPDATE pgctx.conversations SET head_seq = 1, head_hash = (SELECT hash FROM pgctx.events WHERE seq = 1)",
        "UPDATE pgctx.conversations SET head_seq = 9",
        "UPDATE pgctx.conversations SET head_hash = '\\x00'",
        "UPDATE pgctx.conversations SET head_prev_hash = '\\x00'",
        "UPDATE pgctx.conversations SET branch_status = 'merged'",
    ],
)
def test_conversation_rows_only_move_forward(conn, statement):
    pgctx.append_many(conn, "c", [{"kind": "user", "payload": {"i": i}} for i in range(3)])
    with pytest.raises(psycopg.Error) as info:
        conn.execute(statement)
    assert info.value.sqlstate == "PC011"
    assert_chain(conn, "c", 3)


@pytest.mark.parametrize(
    "override",
    [
        {"head_seq": "5"},
        {"head_hash": "'\\x00'"},
        {"head_prev_hash": "'\\x00'"},
        {"base_seq": "3", "head_seq": "3"},  # a fork point without a source
        {"base_seq": "-1", "head_seq": "-1", "forked_from": "'c'"},
        {"branch_status": "'merged'"},
    ],
    ids=str,
)
def test_conversation_rows_start_at_their_genesis(conn, override):
    """The owner's own INSERT of a head row is held to what an append would create (PC011)."""
    pgctx.append(conn, "c", "user", {})
    row = {"conversation_id": "'forged'", "genesis_hash": "pgctx.genesis_hash('forged')",
           "head_hash": "pgctx.genesis_hash('forged')"}
    with pytest.raises(psycopg.Error) as info:
        conn.execute(f"INSERT INTO pgctx.conversations ({', '.join({**row, **override})})"
                     f" VALUES ({', '.join({**row, **override}.values())})")
    assert info.value.sqlstate == "PC011"
    conn.execute(f"INSERT INTO pgctx.conversations ({', '.join(row)}) VALUES ({', '.join(row.values())})")
    assert pgctx.append(conn, "forged", "user", {}) == 1
    assert_chain(conn, "forged", 1)


@pytest.mark.parametrize("kind, payload, sqlstate", [("nonsense", "{}", "PC002"), ("user", "[1]", "PC003")])
def test_a_refused_first_append_creates_no_conversation(conn, kind, payload, sqlstate):
    """Whether the payload or the kind (checked by the head row's UPDATE, after the row is
    created) refuses it, the first append to a conversation leaves no head row behind (tenancy
    refusals: test_privileges)."""
    with pytest.raises(psycopg.Error) as info:
        conn.execute("INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES ('new', %s, %s)", (kind, payload))
    assert info.value.sqlstate == sqlstate
    assert conn.execute("SELECT count(*) FROM pgctx.conversations WHERE conversation_id = 'new'").fetchone() == (0,)


def test_python_calls_join_the_callers_transaction(dsn):
    with psycopg.connect(dsn) as conn:  # not autocommit: the caller owns the transaction
        with conn.transaction():
            pgctx.append(conn, "t", "user", {"n": 1})
            with pytest.raises(errors.UnknownEventKind):
                pgctx.append(conn, "t", "bogus", {})
            pgctx.append(conn, "t", "user", {"n": 2})  # the failed call rolled back only its savepoint
        with pytest.raises(RuntimeError):
            with conn.transaction():
                pgctx.append(conn, "t", "user", {"n": 3})
                raise RuntimeError("the caller aborts its transaction")
        assert_chain(conn, "t", 2)  # the caller's rollback took pgctx's append with it


def test_pool_is_accepted(dsn):
    from psycopg_pool import ConnectionPool

    with ConnectionPool(dsn, min_size=1, max_size=2, open=True) as pool:
        assert pgctx.append(pool, "p", "user", {}) == 1
        assert pgctx.append_many(pool, "p", [{"kind": "user", "payload": {}}]) == [2]
        assert pgctx.verify(pool, "p").ok


def test_verify_unknown_conversation(conn):
    with pytest.raises(errors.ConversationNotFound):
        pgctx.verify(conn, "nope")


@pytest.mark.parametrize("kwargs", [{"from_seq": -1}, {"from_seq": 5}, {"anchor_seq": 0, "anchor_hash": "00"}])
def test_verify_rejects_bad_ranges(conn, kwargs):
    pgctx.append(conn, "r", "user", {})
    with pytest.raises(errors.InvalidVerifyRange):
        pgctx.verify(conn, "r", **kwargs)


def test_hashes_do_not_depend_on_the_client_encoding(dsn, conn):
    """A LATIN1 session appends and verifies non-ASCII content with the same bytes as everyone."""
    with psycopg.connect(dsn, autocommit=True, client_encoding="LATIN1") as latin1:
        pgctx.append(latin1, "café", "user", {"text": "déjà vu"})
        assert latin1.execute("SELECT pgctx.genesis_hash('café')").fetchone()[0] == genesis_hash("café")
        assert pgctx.verify(latin1, "café").ok
    pgctx.append(conn, "café", "assistant", {"text": "encore"})
    assert_chain(conn, "café", 2)
