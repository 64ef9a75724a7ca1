"""Least privilege and tenancy: attempts to break them, each refused with an exact SQLSTATE.

Every refusal is followed by a superuser snapshot of the log, the tenancy tables and the pgctx
catalog (objects, owners, ACLs, triggers, policies, RLS flags, role memberships), which must be
unchanged. Refusals and catalog facts are checked against sql/060_security.sql and the headers
of sql/020-050.
"""

from __future__ import annotations

from collections.abc import Callable

import psycopg
import pytest
from psycopg import sql

import pgctx
from pgctx import errors
from tests.conftest import RUN, admin

INSUFFICIENT_PRIVILEGE = "42501"


# --------------------------------------------------------------------------------------------
# helpers


def snapshot(conn: psycopg.Connection) -> dict[str, list[tuple]]:
    """Everything a refused statement might have changed, read as the superuser (no RLS)."""
    queries = {
        "events": "SELECT conversation_id, seq, kind, payload::text, event_key, tenant::text,"
        " prev_hash, hash, created_at FROM pgctx.events ORDER BY conversation_id, seq",
        "conversations": "SELECT conversation_id, tenant::text, genesis_hash, head_seq, head_hash,"
        " created_at, created_by FROM pgctx.conversations ORDER BY conversation_id",
        "tenants": "SELECT tenant::text, created_at FROM pgctx.tenants ORDER BY 1",
        "event_kinds": "SELECT kind, description FROM pgctx.event_kinds ORDER BY kind",
        "error_codes": "SELECT sqlstate, name, meaning FROM pgctx.error_codes ORDER BY sqlstate",
        "relations": "SELECT relname, relkind, relowner::regrole::text, relacl::text, relrowsecurity,"
        " relforcerowsecurity FROM pg_class WHERE relnamespace = 'pgctx'::regnamespace ORDER BY relname",
        "columns": "SELECT attrelid::regclass::text, attname, attacl::text FROM pg_attribute"
        " WHERE attrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'pgctx'::regnamespace)"
        " AND attnum > 0 ORDER BY 1, 2",
        "functions": "SELECT oid::regprocedure::text, proowner::regrole::text, proacl::text,"
        " proconfig::text, prosecdef, md5(prosrc) FROM pg_proc"
        " WHERE pronamespace = 'pgctx'::regnamespace ORDER BY 1",
        "types": "SELECT typname, typowner::regrole::text FROM pg_type"
        " WHERE typnamespace = 'pgctx'::regnamespace ORDER BY 1",
        "schema": "SELECT nspowner::regrole::text, nspacl::text FROM pg_namespace WHERE nspname = 'pgctx'",
        "triggers": "SELECT tgrelid::regclass::text, tgname, tgenabled, tgfoid::regprocedure::text"
        " FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1, 2",
        "policies": "SELECT polrelid::regclass::text, polname, polcmd, pg_get_expr(polqual, polrelid),"
        " pg_get_expr(polwithcheck, polrelid) FROM pg_policy ORDER BY 1, 2",
        "roles": "SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin,"
        " rolbypassrls FROM pg_roles WHERE rolname LIKE 'pgctx%' ORDER BY 1",
        "memberships": "SELECT roleid::regrole::text, member::regrole::text, admin_option FROM pg_auth_members"
        " WHERE roleid::regrole::text LIKE 'pgctx%' OR member::regrole::text LIKE 'pgctx%' ORDER BY 1, 2",
    }
    return {name: conn.execute(query).fetchall() for name, query in queries.items()}


def sqlstate_of(action: Callable[[], object]) -> str:
    """Run ``action``, which must fail, and return the SQLSTATE of its error."""
    with pytest.raises((psycopg.Error, errors.PgctxError)) as info:
        action()
    assert info.value.sqlstate, info.value
    return info.value.sqlstate


def refuse(c: psycopg.Connection, statement: sql.Composable | str) -> str:
    """Run ``statement`` in a transaction of its own on ``c``; it must fail. Its SQLSTATE."""

    def run() -> None:
        with c.transaction():
            text = statement.as_string(c) if isinstance(statement, sql.Composable) else statement
            if text.lstrip().upper().startswith("COPY"):
                with c.cursor().copy(text) as copy:
                    copy.write_row(("c1", "user", '{"n": 1}', "99"))
            else:
                c.execute(text)

    return sqlstate_of(run)


def assert_session_intact(c: psycopg.Connection, login: str) -> None:
    """The refused statement left the session as it was: same identity, not in replica mode."""
    assert c.execute("SELECT current_user::text, session_user::text").fetchone() == (login, login)
    assert c.execute("SHOW session_replication_role").fetchone() == ("origin",)


def register_tenants(conn: psycopg.Connection, *tenants: str) -> None:
    for tenant in tenants:
        conn.execute("SELECT pgctx.register_tenant(%s)", (tenant,))


def count_visible(c: psycopg.Connection, conversation_id: str) -> tuple[int, int, int]:
    """(events, conversations, chain_heads) rows of ``conversation_id`` that ``c`` can see."""
    return tuple(
        c.execute(f"SELECT count(*) FROM {rel} WHERE conversation_id = %s", (conversation_id,)).fetchone()[0]
        for rel in ("pgctx.events", "pgctx.conversations", "pgctx.chain_heads")
    )


def tenant_of(conn: psycopg.Connection, conversation_id: str) -> tuple[str | None, set[str | None]]:
    """As superuser: the conversation's tenant and the set of tenants on its events."""
    conv = conn.execute(
        "SELECT tenant::text FROM pgctx.conversations WHERE conversation_id = %s", (conversation_id,)
    ).fetchone()
    assert conv is not None, f"no conversation {conversation_id}"
    events = conn.execute(
        "SELECT DISTINCT tenant::text FROM pgctx.events WHERE conversation_id = %s", (conversation_id,)
    ).fetchall()
    return conv[0], {t for (t,) in events}


# The ways a caller appends. Each takes (connection, conversation_id, tenant or None).


def via_api(c, cid, tenant=None):
    return pgctx.append(c, cid, "user", {"n": 1}, tenant=tenant)


def via_append_event(c, cid, tenant=None):
    return c.execute(
        "SELECT pgctx.append_event(%s, 'user', jsonb_build_object('n', 1), NULL, %s)", (cid, tenant)
    ).fetchone()[0]


def via_append_events(c, cid, tenant=None):
    return c.execute(
        "SELECT seq FROM pgctx.append_events(%s,"
        " jsonb_build_array(jsonb_build_object('kind', 'user', 'payload', jsonb_build_object('n', 1))),"
        " %s)",
        (cid, tenant),
    ).fetchone()[0]


def via_insert(c, cid, tenant=None):
    return c.execute(
        "INSERT INTO pgctx.events (conversation_id, kind, payload, tenant)"
        " VALUES (%s, 'user', jsonb_build_object('n', 1), %s) RETURNING seq",
        (cid, tenant),
    ).fetchone()[0]


APPENDERS = [
    pytest.param(via_api, id="pgctx.append"),
    pytest.param(via_append_event, id="append_event"),
    pytest.param(via_append_events, id="append_events"),
    pytest.param(via_insert, id="INSERT"),
]


# --------------------------------------------------------------------------------------------
# 1 and 2: what pgctx_app and pgctx_auditor may and may not do


def test_app_can_append_three_ways_and_read(conn, roles, connect_as):
    pgctx.append(conn, "c1", "system", {"rule": "be brief"})
    app = connect_as(roles.app)

    assert pgctx.append(app, "c1", "user", {"text": "hi"}) == 2
    assert app.execute("SELECT pgctx.append_event('c1', 'assistant', jsonb_build_object('t', 1))").fetchone() == (3,)
    inserted = app.execute(
        "INSERT INTO pgctx.events (conversation_id, kind, payload, event_key)"
        " VALUES ('c1', 'user', jsonb_build_object('n', 1.50), 'k1') RETURNING seq, payload::text"
    ).fetchone()
    assert inserted == (4, '{"n": 1.5}')
    assert pgctx.append_many(app, "c1", [{"kind": "fact", "payload": {"f": 1}}, {"kind": "user", "payload": {}}]) == [5, 6]
    assert pgctx.append(app, "new", "user", {"x": 1}) == 1

    rows = app.execute("SELECT seq, kind FROM pgctx.events WHERE conversation_id = 'c1' ORDER BY seq").fetchall()
    assert rows == [(1, "system"), (2, "user"), (3, "assistant"), (4, "user"), (5, "fact"), (6, "user")]
    assert app.execute("SELECT head_seq, tenant FROM pgctx.conversations WHERE conversation_id = 'c1'").fetchone() == (6, None)
    assert app.execute("SELECT conversation_id, head_seq FROM pgctx.chain_heads ORDER BY 1").fetchall() == [("c1", 6), ("new", 1)]
    report = pgctx.verify(app, "c1")
    assert report.ok and report.checked == 6, report
    assert conn.execute("SELECT created_by::text FROM pgctx.conversations WHERE conversation_id = 'new'").fetchone() == (roles.app,)


# Statements neither pgctx_app nor pgctx_auditor may run. Placeholders are role identifiers.
FORBIDDEN = [
    # the append-only log
    ("update_events", "UPDATE pgctx.events SET payload = jsonb_build_object('forged', true)"),
    ("update_events_seq", "UPDATE pgctx.events SET seq = seq + 1 WHERE conversation_id = 'c1'"),
    ("delete_events", "DELETE FROM pgctx.events"),
    ("truncate_events", "TRUNCATE pgctx.events"),
    ("truncate_conversations", "TRUNCATE pgctx.conversations"),
    ("truncate_both_cascade", "TRUNCATE pgctx.events, pgctx.conversations CASCADE"),
    ("update_conversations", "UPDATE pgctx.conversations SET head_seq = 0"),
    ("insert_conversations", "INSERT INTO pgctx.conversations (conversation_id, genesis_hash, head_hash)"
     " VALUES ('forged', '\\x00', '\\x00')"),
    ("delete_conversations", "DELETE FROM pgctx.conversations"),
    # columns the trigger owns (refused by the events triggers with 42501, as a column grant would)
    ("insert_events_seq", "INSERT INTO pgctx.events (conversation_id, kind, payload, seq)"
     " VALUES ('c1', 'user', jsonb_build_object(), 99)"),
    ("insert_events_hash", "INSERT INTO pgctx.events (conversation_id, kind, payload, hash)"
     " VALUES ('c1', 'user', jsonb_build_object(), '\\x00')"),
    ("insert_events_prev_hash", "INSERT INTO pgctx.events (conversation_id, kind, payload, prev_hash)"
     " VALUES ('c1', 'user', jsonb_build_object(), '\\x00')"),
    ("insert_events_created_at", "INSERT INTO pgctx.events (conversation_id, kind, payload, created_at)"
     " VALUES ('c1', 'user', jsonb_build_object(), '2000-01-01')"),
    ("insert_events_salt", "INSERT INTO pgctx.events (conversation_id, kind, payload, salt)"
     " VALUES ('c1', 'user', jsonb_build_object(), '\\x00')"),
    ("insert_events_payload_digest", "INSERT INTO pgctx.events (conversation_id, kind, payload, payload_digest)"
     " VALUES ('c1', 'user', jsonb_build_object(), '\\x00')"),
    ("insert_events_erased_in", "INSERT INTO pgctx.events (conversation_id, kind, payload, erased_in)"
     " VALUES ('c1', 'user', jsonb_build_object(), 1)"),
    ("insert_events_chained_by_hand", "INSERT INTO pgctx.events (conversation_id, kind, payload, seq, prev_hash, hash,"
     " created_at) SELECT 'c1', 'user', jsonb_build_object(), 3, hash, hash, now() FROM pgctx.events"
     " WHERE conversation_id = 'c1' AND seq = 2"),
    ("copy_events_seq", "COPY pgctx.events (conversation_id, kind, payload, seq) FROM STDIN"),
    ("upsert_events", "INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES ('c1', 'user', jsonb_build_object())"
     " ON CONFLICT (conversation_id, seq) DO UPDATE SET payload = excluded.payload"),
    # locks that would stall every appender
    ("events_for_update", "SELECT * FROM pgctx.events FOR UPDATE"),
    ("conversations_for_share", "SELECT * FROM pgctx.conversations FOR SHARE"),
    ("lock_events", "LOCK TABLE pgctx.events IN ACCESS EXCLUSIVE MODE"),
    ("lock_conversations", "LOCK TABLE pgctx.conversations IN EXCLUSIVE MODE"),
    # switching the guards off
    ("disable_triggers", "ALTER TABLE pgctx.events DISABLE TRIGGER ALL"),
    ("disable_guard", "ALTER TABLE pgctx.events DISABLE TRIGGER events_refuse_change"),
    ("disable_conversation_triggers", "ALTER TABLE pgctx.conversations DISABLE TRIGGER ALL"),
    ("drop_trigger", "DROP TRIGGER events_chain ON pgctx.events"),
    ("replica_mode", "SET session_replication_role = replica"),
    ("replica_mode_local", "SET LOCAL session_replication_role = replica"),
    ("replica_mode_set_config", "SELECT set_config('session_replication_role', 'replica', false)"),
    ("no_force_rls", "ALTER TABLE pgctx.events NO FORCE ROW LEVEL SECURITY"),
    ("disable_rls", "ALTER TABLE pgctx.conversations DISABLE ROW LEVEL SECURITY"),
    ("drop_policy", "DROP POLICY events_read ON pgctx.events"),
    ("create_policy", "CREATE POLICY open ON pgctx.events FOR SELECT USING (true)"),
    ("take_ownership", "ALTER TABLE pgctx.events OWNER TO {login}"),
    # becoming someone else
    ("session_authorization", "SET SESSION AUTHORIZATION {app_b}"),
    ("set_role_tenant", "SET ROLE {tenant_a}"),
    ("grant_self_auditor", "GRANT pgctx_auditor TO {login}"),
    ("grant_self_tenant", "GRANT {tenant_a} TO {login}"),
    # the schema and its functions
    ("create_table", "CREATE TABLE pgctx.shadow (i int)"),
    ("create_view", "CREATE VIEW pgctx.shadow AS SELECT 1 AS i"),
    ("create_function", "CREATE FUNCTION pgctx.shadow() RETURNS int LANGUAGE sql AS 'SELECT 1'"),
    ("replace_policy_function", "CREATE OR REPLACE FUNCTION pgctx.tenant_visible(tenant text) RETURNS boolean"
     " LANGUAGE sql STABLE AS 'SELECT true'"),
    ("alter_function", "ALTER FUNCTION pgctx.tenant_member(text) SECURITY DEFINER"),
    ("register_tenant", "SELECT pgctx.register_tenant('pgctx_app')"),
    ("caller_tenant", "SELECT pgctx.caller_tenant()"),
    ("call_chain_trigger", "SELECT pgctx.events_chain()"),
    ("call_guard_trigger", "SELECT pgctx.conversations_guard()"),
    # reference tables
    ("insert_event_kinds", "INSERT INTO pgctx.event_kinds (kind, description) VALUES ('forged', 'x')"),
    ("update_event_kinds", "UPDATE pgctx.event_kinds SET description = 'forged'"),
    ("delete_event_kinds", "DELETE FROM pgctx.event_kinds WHERE kind = 'user'"),
    ("insert_tenants", "INSERT INTO pgctx.tenants (tenant) VALUES ('pgctx_app')"),
    ("delete_tenants", "DELETE FROM pgctx.tenants"),
    ("update_error_codes", "UPDATE pgctx.error_codes SET name = 'Forged'"),
]

# What only the auditor may not do: append, by any path.
AUDITOR_FORBIDDEN = [
    ("insert_events", "INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES ('c1', 'user', jsonb_build_object())"),
    ("append_event", "SELECT pgctx.append_event('c1', 'user', jsonb_build_object())"),
    ("append_event_new", "SELECT pgctx.append_event('fresh', 'user', jsonb_build_object())"),
    ("append_events", "SELECT * FROM pgctx.append_events('c1', jsonb_build_array(jsonb_build_object("
     "'kind', 'user', 'payload', jsonb_build_object())))"),
    ("payload_from_text", "SELECT pgctx.payload_from_text('{{}}')"),
]


# Refused with another SQLSTATE: the application role may INSERT the log (a whole-table grant since
# 0010), so COPY FROM is refused by row-level security (feature_not_supported) before any column.
OTHER_REFUSALS = {("app", "copy_events_seq"): "0A000"}


def _cases():
    for login in ("app", "auditor"):
        for case_id, statement in FORBIDDEN:
            expected = OTHER_REFUSALS.get((login, case_id), INSUFFICIENT_PRIVILEGE)
            yield pytest.param(login, statement, expected, id=f"{login}-{case_id}")
    for case_id, statement in AUDITOR_FORBIDDEN:
        yield pytest.param("auditor", statement, INSUFFICIENT_PRIVILEGE, id=f"auditor-{case_id}")


@pytest.mark.parametrize(("login", "statement", "expected"), list(_cases()))
def test_forbidden_statements_are_refused(conn, roles, connect_as, login, statement, expected):
    pgctx.append(conn, "c1", "user", {"n": 1})
    pgctx.append(conn, "c1", "assistant", {"n": 2})
    login_role = getattr(roles, login)
    before = snapshot(conn)
    c = connect_as(login_role)

    query = sql.SQL(statement).format(
        login=sql.Identifier(login_role), app_b=sql.Identifier(roles.app_b), tenant_a=sql.Identifier(roles.tenant_a)
    )
    assert refuse(c, query) == expected

    assert snapshot(conn) == before
    assert_session_intact(c, login_role)
    assert pgctx.verify(conn, "c1").ok


def test_auditor_cannot_append_through_the_api(conn, roles, connect_as):
    pgctx.append(conn, "c1", "user", {"n": 1})
    before = snapshot(conn)
    auditor = connect_as(roles.auditor)
    assert sqlstate_of(lambda: pgctx.append(auditor, "c1", "user", {"n": 2})) == INSUFFICIENT_PRIVILEGE
    assert sqlstate_of(lambda: pgctx.append_many(auditor, "c1", [{"kind": "user", "payload": {}}])) == INSUFFICIENT_PRIVILEGE
    assert snapshot(conn) == before


def test_auditor_reads_and_verifies_every_tenant(conn, roles, connect_as):
    register_tenants(conn, roles.tenant_a, roles.tenant_b)
    pgctx.append(connect_as(roles.app_a), "a1", "user", {"n": 1})
    pgctx.append(connect_as(roles.app_b), "b1", "user", {"n": 1})
    pgctx.append(connect_as(roles.app_b), "b1", "assistant", {"n": 2})
    pgctx.append(connect_as(roles.app), "s1", "user", {"n": 1})
    auditor = connect_as(roles.auditor)

    expected = {"a1": roles.tenant_a, "b1": roles.tenant_b, "s1": None}
    assert dict(auditor.execute("SELECT conversation_id, tenant::text FROM pgctx.conversations").fetchall()) == expected
    assert dict(auditor.execute("SELECT conversation_id, tenant::text FROM pgctx.chain_heads").fetchall()) == expected
    assert auditor.execute(
        "SELECT conversation_id, count(*) FROM pgctx.events GROUP BY 1 ORDER BY 1"
    ).fetchall() == [("a1", 1), ("b1", 2), ("s1", 1)]
    for cid in expected:
        report = pgctx.verify(auditor, cid)
        assert report.ok, report
        assert auditor.execute("SELECT ok FROM pgctx.verify_chain(%s)", (cid,)).fetchone() == (True,)


# --------------------------------------------------------------------------------------------
# 3: catalog checks over the migrated schema


def test_no_pgctx_function_is_executable_by_public(conn):
    # a NULL proacl means the default ACL, which grants EXECUTE to PUBLIC (grantee 0)
    assert conn.execute("SELECT bool_or(grantee = 0) FROM aclexplode(acldefault('f', 10))").fetchone() == (True,)
    assert conn.execute("SELECT count(*) FROM pg_proc WHERE pronamespace = 'pgctx'::regnamespace").fetchone()[0] > 10
    public = conn.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc p,"
        " aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a"
        " WHERE p.pronamespace = 'pgctx'::regnamespace AND a.grantee = 0 ORDER BY 1"
    ).fetchall()
    assert public == []


def test_no_pgctx_relation_or_schema_privilege_for_public(conn):
    public = conn.execute(
        "SELECT c.relname, a.privilege_type FROM pg_class c,"
        " aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a"
        " WHERE c.relnamespace = 'pgctx'::regnamespace AND a.grantee = 0"
        " UNION ALL"
        " SELECT n.nspname, a.privilege_type FROM pg_namespace n,"
        " aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) a"
        " WHERE n.nspname = 'pgctx' AND a.grantee = 0"
    ).fetchall()
    assert public == []


def test_security_definer_functions_pin_search_path(conn):
    definers = conn.execute(
        "SELECT oid::regprocedure::text, proconfig FROM pg_proc"
        " WHERE pronamespace = 'pgctx'::regnamespace AND prosecdef ORDER BY 1"
    ).fetchall()
    assert {name for name, _ in definers} >= {"pgctx.events_chain()", "pgctx.append_events(text,jsonb,text)"}
    unpinned = [name for name, config in definers if not any(s.startswith("search_path=") for s in config or [])]
    assert unpinned == []


def test_pinned_search_paths_put_pg_temp_last(conn):
    """A search_path that does not name pg_temp searches it FIRST for tables and types, so a
    caller's temporary domain can shadow `text` inside code that runs as the schema owner (see
    test_temp_schema_types_cannot_hijack_owner_code). Every pinned path must end with pg_temp,
    including SECURITY INVOKER functions that owner code calls (their SET replaces the caller's)."""
    pinned = conn.execute(
        "SELECT p.oid::regprocedure::text, s FROM pg_proc p, unnest(p.proconfig) s"
        " WHERE p.pronamespace = 'pgctx'::regnamespace AND s LIKE 'search_path=%' ORDER BY 1"
    ).fetchall()
    assert pinned
    wrong = [(name, setting) for name, setting in pinned if not setting.replace('"', "").endswith(", pg_temp")]
    assert wrong == []


def test_group_roles_own_nothing_and_hold_no_attributes(conn):
    owned = conn.execute(
        "WITH r AS (SELECT oid FROM pg_roles WHERE rolname IN ('pgctx_app', 'pgctx_auditor'))"
        " SELECT 'class', relname::text FROM pg_class WHERE relowner IN (SELECT oid FROM r)"
        " UNION ALL SELECT 'proc', proname::text FROM pg_proc WHERE proowner IN (SELECT oid FROM r)"
        " UNION ALL SELECT 'namespace', nspname::text FROM pg_namespace WHERE nspowner IN (SELECT oid FROM r)"
        " UNION ALL SELECT 'type', typname::text FROM pg_type WHERE typowner IN (SELECT oid FROM r)"
        " UNION ALL SELECT 'shdepend', classid::regclass::text FROM pg_shdepend"
        "  WHERE deptype = 'o' AND refobjid IN (SELECT oid FROM r)"
        "    AND dbid IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))"
    ).fetchall()
    assert owned == []
    attributes = conn.execute(
        "SELECT rolname, rolsuper, rolcanlogin, rolcreaterole, rolcreatedb, rolbypassrls, rolreplication"
        " FROM pg_roles WHERE rolname IN ('pgctx_app', 'pgctx_auditor') ORDER BY 1"
    ).fetchall()
    assert attributes == [(name, False, False, False, False, False, False) for name in ("pgctx_app", "pgctx_auditor")]


EVENT_LOG_RELATIONS = ["chain_heads", "conversations", "error_codes", "event_kinds", "events", "tenants"]


def test_event_log_grants_are_exactly_the_documented_ones(conn):
    table = conn.execute(
        "SELECT c.relname, a.grantee::regrole::text, a.privilege_type, a.is_grantable FROM pg_class c,"
        " aclexplode(c.relacl) a WHERE c.relnamespace = 'pgctx'::regnamespace AND c.relname = ANY(%s)"
        " AND a.grantee <> c.relowner ORDER BY 1, 2, 3",
        (EVENT_LOG_RELATIONS,),
    ).fetchall()
    assert table == sorted([(rel, role, "SELECT", False) for rel in EVENT_LOG_RELATIONS for role in ("pgctx_app", "pgctx_auditor")]
                           + [("events", "pgctx_app", "INSERT", False)])
    # no column grants anywhere in the schema (Citus does not carry them to its shards); nobody but
    # the owner may UPDATE the log, which is what lets a row arrive with its hash (030)
    columns = conn.execute(
        "SELECT t.attrelid::regclass::text, t.attname, a.grantee::regrole::text, a.privilege_type, a.is_grantable"
        " FROM pg_attribute t, aclexplode(t.attacl) a"
        " WHERE t.attrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'pgctx'::regnamespace)"
        " ORDER BY 1, 2",
    ).fetchall()
    assert columns == []
    updaters = conn.execute("SELECT a.grantee FROM pg_class c, aclexplode(c.relacl) a"
                            " WHERE c.oid = 'pgctx.events'::regclass AND a.privilege_type = 'UPDATE'"
                            " AND a.grantee <> c.relowner").fetchall()
    assert updaters == []


def test_group_roles_never_hold_destructive_or_grantable_privileges(conn):
    """Over every relation in pgctx, now and later: the auditor only reads; neither group role may
    truncate, add triggers or references, or pass a privilege on."""
    grants = conn.execute(
        "SELECT c.relname, a.grantee::regrole::text, a.privilege_type, a.is_grantable FROM pg_class c,"
        " aclexplode(c.relacl) a WHERE c.relnamespace = 'pgctx'::regnamespace"
        " AND a.grantee::regrole::text IN ('pgctx_app', 'pgctx_auditor')"
        " UNION ALL"
        " SELECT t.attrelid::regclass::text || '.' || t.attname, a.grantee::regrole::text, a.privilege_type, a.is_grantable"
        " FROM pg_attribute t, aclexplode(t.attacl) a"
        " WHERE t.attrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'pgctx'::regnamespace)"
        " AND a.grantee::regrole::text IN ('pgctx_app', 'pgctx_auditor')"
    ).fetchall()
    assert grants
    bad = [
        g for g in grants
        if g[3]
        or g[2] in ("TRUNCATE", "TRIGGER", "REFERENCES")
        or (g[1] == "pgctx_auditor" and g[2] != "SELECT")
    ]
    assert bad == []


def test_guard_triggers_fire_always(conn):
    triggers = conn.execute(
        "SELECT tgrelid::regclass::text, tgname, tgenabled FROM pg_trigger"
        " WHERE tgrelid IN ('pgctx.events'::regclass, 'pgctx.conversations'::regclass) AND NOT tgisinternal"
        " ORDER BY 1, 2"
    ).fetchall()
    assert triggers == [
        ("pgctx.conversations", "conversations_guard_delete", "A"),
        ("pgctx.conversations", "conversations_guard_insert", "A"),
        ("pgctx.conversations", "conversations_guard_row", "A"),
        ("pgctx.conversations", "conversations_guard_truncate", "A"),
        ("pgctx.events", "events_chain", "A"),
        ("pgctx.events", "events_refuse_change", "A"),
        ("pgctx.events", "events_refuse_truncate", "A"),
    ]


def test_row_level_security_is_enabled_and_forced(conn):
    flags = conn.execute(
        "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class"
        " WHERE oid IN ('pgctx.events'::regclass, 'pgctx.conversations'::regclass) ORDER BY 1"
    ).fetchall()
    assert flags == [("conversations", True, True), ("events", True, True)]


# --------------------------------------------------------------------------------------------
# 4: tenancy with row-level security


@pytest.fixture
def tenancy(conn, roles, connect_as):
    """tenant_a and tenant_b registered; a1 (tenant_a), b1 (tenant_b) and s1 (shared) exist."""
    register_tenants(conn, roles.tenant_a, roles.tenant_b)
    assert pgctx.append(connect_as(roles.app_a), "a1", "user", {"secret": "a"}) == 1
    assert pgctx.append(connect_as(roles.app_a), "a1", "assistant", {"n": 2}) == 2
    assert pgctx.append(connect_as(roles.app_b), "b1", "user", {"secret": "b"}) == 1
    assert pgctx.append(connect_as(roles.app), "s1", "user", {"shared": True}) == 1
    return conn


def test_new_conversation_takes_the_callers_tenant(tenancy, roles):
    assert tenant_of(tenancy, "a1") == (roles.tenant_a, {roles.tenant_a})
    assert tenant_of(tenancy, "b1") == (roles.tenant_b, {roles.tenant_b})
    assert tenant_of(tenancy, "s1") == (None, {None})
    assert tenancy.execute(
        "SELECT conversation_id, created_by::text FROM pgctx.conversations ORDER BY 1"
    ).fetchall() == [("a1", roles.app_a), ("b1", roles.app_b), ("s1", roles.app)]


def test_other_tenants_conversation_is_invisible(tenancy, roles, connect_as):
    assert count_visible(connect_as(roles.app_a), "a1") == (2, 1, 1)
    assert count_visible(connect_as(roles.app_ab), "a1") == (2, 1, 1)
    for outsider in (roles.app_b, roles.app):
        c = connect_as(outsider)
        assert count_visible(c, "a1") == (0, 0, 0)
        assert c.execute("SELECT count(*) FROM pgctx.events WHERE payload->>'secret' = 'a'").fetchone() == (0,)
        assert sqlstate_of(lambda: c.execute("SELECT * FROM pgctx.verify_chain('a1')")) == "PC014"
        with pytest.raises(errors.ConversationNotFound) as info:
            pgctx.verify(c, "a1")
        assert info.value.sqlstate == "PC014"


@pytest.mark.parametrize("append", APPENDERS)
@pytest.mark.parametrize(
    ("login", "conversation", "tenant", "expected"),
    [
        pytest.param("app_b", "a1", None, "PC010", id="other-tenant"),
        pytest.param("app_b", "a1", "tenant_b", "PC010", id="other-tenant-naming-own"),
        pytest.param("app_b", "a1", "tenant_a", "PC010", id="other-tenant-naming-it"),
        pytest.param("app", "a1", None, "PC010", id="tenantless-into-tenant"),
        pytest.param("app_a", "s1", "tenant_a", "PC010", id="claim-shared-for-tenant"),
        pytest.param("app_ab", "new", None, "PC009", id="ambiguous-new"),
        pytest.param("app_a", "new", "tenant_b", "PC010", id="naming-foreign-tenant"),
        pytest.param("app", "new", "tenant_a", "PC010", id="tenantless-naming-tenant"),
        pytest.param("app_a", "new", "app_a", "PC008", id="naming-unregistered-role"),
        pytest.param("app_a", "new", "pgctx_auditor", "PC008", id="naming-auditor-role"),
    ],
)
def test_append_across_tenants_is_refused(tenancy, roles, connect_as, append, login, conversation, tenant, expected):
    before = snapshot(tenancy)
    c = connect_as(getattr(roles, login))
    tenant_name = getattr(roles, tenant, tenant) if tenant else None

    code = sqlstate_of(lambda: append(c, conversation, tenant_name))

    assert code == expected
    assert snapshot(tenancy) == before
    if append is via_api:
        with pytest.raises(errors.BY_SQLSTATE[expected]):
            append(c, conversation, tenant_name)


def test_member_of_two_tenants_names_one(tenancy, roles, connect_as):
    ab = connect_as(roles.app_ab)
    with pytest.raises(errors.AmbiguousTenant):
        pgctx.append(ab, "ab1", "user", {"n": 1})
    assert pgctx.append(ab, "ab1", "user", {"n": 1}, tenant=roles.tenant_b) == 1
    assert pgctx.append(ab, "ab1", "user", {"n": 2}) == 2  # existing conversation: no tenant needed
    assert pgctx.append(ab, "a1", "user", {"n": 3}) == 3
    assert tenant_of(tenancy, "ab1") == (roles.tenant_b, {roles.tenant_b})
    assert count_visible(connect_as(roles.app_b), "ab1") == (2, 1, 1)
    assert count_visible(connect_as(roles.app_a), "ab1") == (0, 0, 0)
    assert pgctx.verify(tenancy, "ab1").ok and pgctx.verify(tenancy, "a1").ok


def test_shared_conversations_are_open_to_every_app_role(tenancy, roles, connect_as):
    for login in (roles.app, roles.app_a, roles.app_b, roles.app_ab, roles.auditor):
        assert count_visible(connect_as(login), "s1") == (1, 1, 1), login
    assert pgctx.append(connect_as(roles.app_a), "s1", "user", {"from": "a"}) == 2
    assert pgctx.append(connect_as(roles.app_b), "s1", "user", {"from": "b"}) == 3
    assert tenant_of(tenancy, "s1") == (None, {None})
    assert pgctx.verify(connect_as(roles.app), "s1").ok


def test_tenantless_role_sees_only_shared(tenancy, roles, connect_as):
    app = connect_as(roles.app)
    assert app.execute("SELECT conversation_id FROM pgctx.conversations ORDER BY 1").fetchall() == [("s1",)]
    assert app.execute("SELECT DISTINCT conversation_id FROM pgctx.events").fetchall() == [("s1",)]
    a = connect_as(roles.app_a)
    assert a.execute("SELECT conversation_id FROM pgctx.chain_heads ORDER BY 1").fetchall() == [("a1",), ("s1",)]


@pytest.mark.parametrize(
    "widen",
    [
        pytest.param("SET ROLE pgctx_app", id="set-role-group"),
        pytest.param("SET pgctx.tenant = {tenant_b_text}", id="custom-guc"),
        pytest.param("SELECT set_config('pgctx.tenant', {tenant_b_text}, false)", id="custom-guc-set-config"),
        pytest.param("SET application_name = {tenant_b_text}", id="application-name"),
        pytest.param("SET search_path = pg_temp, pgctx, public", id="search-path"),
    ],
)
def test_session_settings_cannot_widen_tenancy(tenancy, roles, connect_as, widen):
    a = connect_as(roles.app_a)
    a.execute(sql.SQL(widen).format(tenant_b_text=sql.Literal(roles.tenant_b)))
    if widen.startswith("SET ROLE"):
        assert a.execute("SELECT current_user::text, session_user::text").fetchone() == ("pgctx_app", roles.app_a)
    before = snapshot(tenancy)

    assert count_visible(a, "b1") == (0, 0, 0)
    assert a.execute("SELECT count(*) FROM pgctx.events WHERE tenant = %s", (roles.tenant_b,)).fetchone() == (0,)
    assert sqlstate_of(lambda: a.execute("SELECT * FROM pgctx.verify_chain('b1')")) == "PC014"
    for append in (via_append_event, via_insert):
        assert sqlstate_of(lambda: append(a, "b1")) == "PC010"
        assert sqlstate_of(lambda: append(a, "b1", roles.tenant_b)) == "PC010"
        assert sqlstate_of(lambda: append(a, "fresh", roles.tenant_b)) == "PC010"
    assert snapshot(tenancy) == before
    assert count_visible(a, "a1") == (2, 1, 1)  # its own tenant is still there


def test_a_callers_own_functions_cannot_widen_tenancy(tenancy, roles, connect_as, conn):
    """The tenancy helpers are SQL functions PostgreSQL inlines into the policies, parsed in the
    caller's session: a caller who may create functions somewhere, and puts that schema before
    pg_catalog, must still not replace pg_has_role or to_regrole in them (they are
    schema-qualified)."""
    conn.execute(sql.SQL("CREATE SCHEMA shadow AUTHORIZATION {}").format(sql.Identifier(roles.app_a)))
    a = connect_as(roles.app_a)
    a.execute("CREATE FUNCTION shadow.pg_has_role(name, oid, text) RETURNS boolean LANGUAGE sql AS 'SELECT true'")
    a.execute("CREATE FUNCTION shadow.pg_has_role(name, text, text) RETURNS boolean LANGUAGE sql AS 'SELECT true'")
    a.execute("CREATE FUNCTION shadow.to_regrole(text) RETURNS regrole LANGUAGE sql AS 'SELECT session_user::regrole'")
    a.execute("SET search_path = shadow, pg_catalog, pgctx")
    assert a.execute("SELECT pg_has_role('x', 'y', 'z')").fetchone() == (True,)  # the shadows are in effect
    assert count_visible(a, "b1") == (0, 0, 0)
    assert sqlstate_of(lambda: pgctx.append(a, "b1", "user", {})) == "PC010"
    assert count_visible(a, "a1") == (2, 1, 1)


# --------------------------------------------------------------------------------------------
# 5: the chain trigger owns seq, prev_hash and created_at of a row sent without its hash, even
# the superuser's (a row sent with one, which only the owner and superusers can: test_eventlog)


@pytest.mark.parametrize("path", ["insert", "copy"])
def test_trigger_overwrites_caller_chosen_fields(conn, path):
    forged = ("c1", "user", '{"n": 1.50}', 99, b"\x00", "2000-01-01 00:00:00+00")
    columns = "conversation_id, kind, payload, seq, prev_hash, created_at"
    for expected_seq in (1, 2):
        with conn.transaction():
            if path == "insert":
                conn.execute(f"INSERT INTO pgctx.events ({columns}) VALUES (%s, %s, %s, %s, %s, %s)", forged)
            else:
                with conn.cursor().copy(f"COPY pgctx.events ({columns}) FROM STDIN") as copy:
                    copy.write_row(forged)
            row = conn.execute(
                "SELECT e.seq, e.payload::text, e.prev_hash, e.hash, e.created_at = now(),"
                " e.hash = pgctx.event_hash_v2(e.conversation_id, e.seq, e.kind, e.prev_hash,"
                "                              pgctx.payload_digest(e.salt, e.payload::text)),"
                " e.prev_hash = coalesce((SELECT p.hash FROM pgctx.events p WHERE p.conversation_id = e.conversation_id"
                "                          AND p.seq = e.seq - 1), pgctx.genesis_hash(e.conversation_id)),"
                " (c.head_seq, c.head_hash) = (e.seq, e.hash)"
                " FROM pgctx.events e JOIN pgctx.conversations c USING (conversation_id)"
                " WHERE e.conversation_id = 'c1' ORDER BY e.seq DESC LIMIT 1"
            ).fetchone()
        seq, payload, prev_hash, hash_, created_now, hash_ok, linked, head_ok = row
        assert seq == expected_seq
        assert payload == '{"n": 1.5}'
        assert prev_hash != b"\x00" and len(hash_) == 32
        assert (created_now, hash_ok, linked, head_ok) == (True, True, True, True)
    report = pgctx.verify(conn, "c1")
    assert report.ok and report.checked == 2 and report.head_seq == 2, report


# --------------------------------------------------------------------------------------------
# Owner code must not run a caller's temporary objects (see test_pinned_search_paths_put_pg_temp_last)


@pytest.mark.parametrize(
    ("login", "type_name"),
    [
        pytest.param("app", "text", id="app-text"),
        pytest.param("app", "bytea", id="app-bytea"),
        pytest.param("app_a", "text", id="tenant-member-text"),
    ],
)
def test_temp_schema_types_cannot_hijack_owner_code(conn, roles, connect_as, login, type_name):
    """A caller shadows a built-in type with a temporary domain whose CHECK runs its own function.
    The events trigger is SECURITY DEFINER (runs as the schema owner); if it resolves the type name
    to the caller's domain, the caller's function runs with the owner's rights. Here it tries to
    add an event kind, which the caller itself may not (42501 above)."""
    register_tenants(conn, roles.tenant_a)
    before_kinds = conn.execute("SELECT kind, description FROM pgctx.event_kinds ORDER BY 1").fetchall()
    c = connect_as(getattr(roles, login))
    try:
        # acts only where it has the rights the caller lacks, so it never fails in the caller's own context
        c.execute(
            f"CREATE FUNCTION pg_temp.probe(pg_catalog.{type_name}) RETURNS boolean LANGUAGE plpgsql AS $$"
            " BEGIN"
            "  IF pg_catalog.has_table_privilege('pgctx.event_kinds', 'INSERT') THEN"
            "   INSERT INTO pgctx.event_kinds (kind, description) VALUES ('hijacked', CURRENT_USER)"
            "   ON CONFLICT DO NOTHING;"
            "  END IF;"
            "  RETURN true;"
            " END $$"
        )
        c.execute(f"CREATE DOMAIN pg_temp.{type_name} AS pg_catalog.{type_name} CHECK (pg_temp.probe(VALUE))")
    except psycopg.errors.InsufficientPrivilege:
        return  # the database refuses temporary objects: nothing to hijack with
    assert sqlstate_of(lambda: c.execute("INSERT INTO pgctx.event_kinds VALUES ('hijacked', 'direct')")) == INSUFFICIENT_PRIVILEGE

    try:
        c.execute("INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES ('victim', 'user', '{\"n\": 1}')")
    except psycopg.Error:
        pass  # refusing the append is fine; running the probe as the owner is not

    hijacked = conn.execute("SELECT description FROM pgctx.event_kinds WHERE kind = 'hijacked'").fetchall()
    assert hijacked == [], f"caller code ran inside pgctx's trigger as role {hijacked[0][0]}"
    assert conn.execute("SELECT kind, description FROM pgctx.event_kinds ORDER BY 1").fetchall() == before_kinds


def test_a_tenant_whose_name_needs_quoting(conn, server_dsn, roles, connect_as):
    """Tenants are stored by name as regrole prints it (015): a role name that needs quoting is
    stored quoted, resolves back to its role on every path, and keeps its tenancy apart."""
    tenant, login = f'Tenant {RUN} "Ü"', f"app {RUN} ü"
    with admin(server_dsn) as a:
        a.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(tenant)))
        a.execute(sql.SQL("CREATE ROLE {} LOGIN INHERIT PASSWORD {} IN ROLE pgctx_app, {}").format(
            sql.Identifier(login), sql.Literal(roles.password), sql.Identifier(tenant)))
    try:
        stored = conn.execute("SELECT pgctx.register_tenant(%s)", (sql.Identifier(tenant).as_string(conn),)).fetchone()[0]
        assert stored == sql.Identifier(tenant).as_string(conn) == conn.execute(
            "SELECT %s::regrole::text", (sql.Identifier(tenant).as_string(conn),)).fetchone()[0]
        with pytest.raises(psycopg.errors.UndefinedObject):
            conn.execute("SELECT pgctx.register_tenant('no_such_role')")
        member = connect_as(login)
        assert pgctx.append(member, "quoted-1", "user", {"n": 1}) == 1  # the caller's one tenant
        assert pgctx.append(member, "quoted-1", "user", {"n": 2}, tenant=stored) == 2
        assert tenant_of(conn, "quoted-1") == (stored, {stored})
        assert count_visible(member, "quoted-1") == (2, 1, 1)
        assert count_visible(connect_as(roles.app_a), "quoted-1") == (0, 0, 0)
        assert sqlstate_of(lambda: pgctx.append(connect_as(roles.app_a), "quoted-1", "user", {})) == "PC010"
        member.close()
    finally:
        with admin(server_dsn) as a:
            a.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(login)))
            a.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(tenant)))
