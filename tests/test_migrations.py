"""Migrations: alembic builds exactly the schema in sql/, safely twice and concurrently."""

from __future__ import annotations

import io
import re
import subprocess
import threading
import sys
from pathlib import Path

import psycopg
import pytest
from alembic.script import ScriptDirectory
from psycopg.conninfo import make_conninfo
from psycopg.types.json import Jsonb

import pgctx
from pgctx import errors
from pgctx.schema import alembic_config, apply_sql_files, sql_files
from tests.conftest import drop_database, new_database
from tests.events import pasted

ROOT = Path(__file__).resolve().parent.parent

# Everything a database's pgctx schema consists of, as comparable rows.
CATALOG = {
    "columns": """
        SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
               pg_get_expr(d.adbin, d.adrelid)
          FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
          LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE c.relnamespace = 'pgctx'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
           AND c.relname NOT LIKE 'alembic_version%' ORDER BY 1, 2""",
    "relations": """
        SELECT relname, relkind, relrowsecurity, relforcerowsecurity, relacl::text[], pg_get_userbyid(relowner)
          FROM pg_class WHERE relnamespace = 'pgctx'::regnamespace AND relname NOT LIKE 'alembic_version%'
         ORDER BY 1""",
    "views": "SELECT viewname, definition FROM pg_views WHERE schemaname = 'pgctx' ORDER BY 1",
    "constraints": """
        SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint
         WHERE connamespace = 'pgctx'::regnamespace AND conrelid::regclass::text NOT LIKE '%alembic_version%'
         ORDER BY 1, 2""",
    "indexes": "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'pgctx' AND tablename <> 'alembic_version' ORDER BY 1",
    "triggers": """
        SELECT tgrelid::regclass::text, tgname, tgenabled, pg_get_triggerdef(oid) FROM pg_trigger
         WHERE NOT tgisinternal AND tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'pgctx'::regnamespace)
         ORDER BY 1, 2""",
    "functions": """
        SELECT oid::regprocedure::text, pg_get_functiondef(oid), proacl::text[], prosecdef, proconfig,
               pg_get_userbyid(proowner)
          FROM pg_proc WHERE pronamespace = 'pgctx'::regnamespace ORDER BY 1""",
    "policies": "SELECT tablename, policyname, cmd, roles, qual, with_check FROM pg_policies WHERE schemaname = 'pgctx' ORDER BY 1, 2",
    "schema": "SELECT nspacl::text[], pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'pgctx'",
    "default privileges": "SELECT defaclobjtype, defaclacl::text[] FROM pg_default_acl WHERE defaclnamespace = 'pgctx'::regnamespace",
    "comments": """
        SELECT classoid::regclass::text, obj_description(objoid, classoid::regclass::name) FROM pg_description
         WHERE objoid IN (SELECT oid FROM pg_proc WHERE pronamespace = 'pgctx'::regnamespace
                          UNION SELECT oid FROM pg_class WHERE relnamespace = 'pgctx'::regnamespace)
         ORDER BY 1, 2""",
    "event kinds": "SELECT * FROM pgctx.event_kinds ORDER BY 1",
    "error codes": "SELECT * FROM pgctx.error_codes ORDER BY 1",
}


def catalog(dsn: str) -> dict[str, list]:
    with psycopg.connect(dsn) as conn:
        return {name: conn.execute(query).fetchall() for name, query in CATALOG.items()}


@pytest.fixture
def empty_dsn(server_dsn):
    name = new_database(server_dsn)
    yield make_conninfo(server_dsn, dbname=name)
    drop_database(server_dsn, name)


def test_alembic_builds_exactly_the_schema_of_the_sql_files(dsn, empty_dsn):
    with psycopg.connect(empty_dsn) as conn:
        apply_sql_files(conn, [f.name for f in sql_files()])
    from_files, from_alembic = catalog(empty_dsn), catalog(dsn)
    for name in CATALOG:
        assert from_alembic[name] == from_files[name], name
    assert len(from_alembic["functions"]) > 10 and len(from_alembic["triggers"]) >= 6


def test_every_sql_file_belongs_to_a_migration():
    applied = set()
    for revision in (ROOT / "migrations" / "versions").glob("*.py"):
        applied |= set(re.findall(r'"(\d{3}_[a-z0-9_]+\.sql)"', revision.read_text()))
    assert applied == {f.name for f in sql_files()}


# Earlier releases: (commit at which the revision was the newest, that revision, SQL that holds
# only in that release's schema).
RELEASES = [
    pytest.param("91d6c38", "0003", "SELECT NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid ="
                 " 'pgctx.summary_schemas'::regclass AND attname = 'fast_check')", id="0003"),
    pytest.param("24b8919", "0004", "SELECT NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid ="
                 " 'pgctx.conversations'::regclass AND attname = 'head_prev_hash')", id="0004"),
    pytest.param("c40e7ab", "0005", "SELECT NOT EXISTS (SELECT 1 FROM pgctx.summary_schemas WHERE schema_version = 2)",
                 id="0005"),
    pytest.param("d8eedba", "0006", "SELECT NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid ="
                 " 'pgctx.events'::regclass AND attname = 'payload_digest')", id="0006"),
    pytest.param("657d3a6", "0007", "SELECT NOT EXISTS (SELECT 1 FROM pgctx.event_kinds WHERE kind = 'lg_checkpoint')",
                 id="0007"),
    pytest.param("0b24360", "0009", "SELECT atttypid = 'regrole'::regtype FROM pg_attribute WHERE attrelid ="
                 " 'pgctx.events'::regclass AND attname = 'tenant'", id="0009"),
    pytest.param("ee126cd", "0010", "SELECT to_regclass('pgctx.chain_breaks') IS NULL", id="0010"),
    pytest.param("5292534", "0011", "SELECT to_regprocedure('pgctx.branch_continuing_from(text, integer)') IS NULL",
                 id="0011"),
    pytest.param("941d47e", "0013", "SELECT to_regprocedure('pgctx.result_record(jsonb)') IS NULL", id="0013"),
    pytest.param("0289912", "0014", "SELECT to_regprocedure('pgctx.lineage_parts(text[], bigint[], bigint[])') IS NOT NULL",
                 id="0014"),
]

# A fold every release could commit: a version 1 summary of the three events below, prepared and
# committed through SQL with the arguments every release's prepare_fold takes.
RELEASE_EVENTS = [
    {"kind": "user", "payload": {"text": "where is order 10086?"}},
    {"kind": "tool_call", "payload": {"tool": "lookup_order", "call_id": "c1", "effect": "read",
                                      "arguments": {"order_id": "10086"}, "idempotency_key": "k1"}},
    {"kind": "tool_result", "payload": {"call_id": "c1", "outcome": "succeeded", "request_id": "r1"}},
]
RELEASE_SUMMARY = {
    "schema_version": 1, "task": {"goal": "where is order 10086?", "status": "running"},
    "facts": [{"key": "order_id", "value": "10086", "confidence": "confirmed", "authority": "user",
               "source_event_ids": [1], "status": "active"}],
    "decisions": [], "completed_actions": [], "pending": [], "constraints": ["answer about 10086 only"],
    "open_questions": [], "omitted_event_range": {"from": 1, "to": 3}, "last_event_id": 3,
    "tool_state": {"c1": {"tool": "lookup_order", "effect": "read", "status": "succeeded", "request_id": "r1",
                          "idempotency_key": "k1", "source_event_ids": [2, 3]}},
}


def released_sql_files(rev: str) -> list[str]:
    """The sql/ files as they were at ``rev``, in load order (the repository's git history)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout
    names = sorted(n for n in git("ls-tree", "--name-only", rev, "sql/").split() if re.match(r"sql/\d{3}_", n))
    return [git("show", f"{rev}:{n}") for n in names]


def install_release(dsn: str, release: str, revision: str) -> None:
    """The schema as release ``release`` installed it (its sql/ files from git), at alembic ``revision``."""
    if subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{release}^{{commit}}"]).returncode:
        pytest.skip(f"needs the repository's history: this checkout lacks release {release} (shallow clone?)")
    with psycopg.connect(dsn, autocommit=True) as conn:
        for text in released_sql_files(release):
            conn.execute(text)
        conn.execute("CREATE TABLE pgctx.alembic_version (version_num varchar(32) NOT NULL,"
                     " CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))")
        conn.execute("INSERT INTO pgctx.alembic_version VALUES (%s)", (revision,))


@pytest.mark.parametrize("release, revision, only_in_release", RELEASES)
def test_upgrading_a_database_of_an_earlier_release_keeps_its_data_and_gives_the_fresh_schema(
        empty_dsn, dsn, release, revision, only_in_release):
    # a database as that release installed it, with a conversation folded once
    install_release(empty_dsn, release, revision)
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        assert conn.execute(only_in_release).fetchone()[0]  # really the old schema
        pgctx.append_many(conn, "upgraded", RELEASE_EVENTS)
        # (from 0013 a fold must make the context smaller, PC121: this one is weighed as 0 tokens)
        weighed = ", tokens => 0" if revision >= "0013" else ""
        conn.execute(f"SELECT pgctx.commit_fold('upgraded', pgctx.prepare_fold('upgraded', 0, 0, 3, %s, 1, 'release'"
                     f"{weighed}))", (Jsonb(RELEASE_SUMMARY),))
        before = conn.execute("SELECT version, cursor, checksum, summary FROM pgctx.checkpoints").fetchall()
        assert [v for v, *_ in before] == [1]

    pgctx.migrate(empty_dsn)
    assert catalog(empty_dsn) == catalog(dsn)  # the upgrade reaches exactly a fresh install's schema
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT version, cursor, checksum, summary FROM pgctx.checkpoints").fetchall() == before
        assert conn.execute("SELECT bool_and(checksum = pgctx.checkpoint_checksum(schema_version, cursor, chain_hash,"
                            " summary)) FROM pgctx.checkpoints").fetchone()[0]
        # the release's version 1 summary stays valid, and a version 2 fold continues it
        assert conn.execute("SELECT pgctx.summary_schema_error(1, summary) FROM pgctx.checkpoints").fetchone() == (None,)
        pgctx.append(conn, "upgraded", "user", pasted("thanks, and the invoice? the carrier sent this"))
        folded = pgctx.fold(conn, "upgraded", force=True)
        assert (folded.committed, folded.version) == (True, 2)
        latest = pgctx.committed_fold(conn, "upgraded").summary
        assert latest["schema_version"] == 2 and latest["tool_state"]["c1"]["request_id"] == "r1"
        assert {"text": "answer about 10086 only", "source_event_ids": []} in latest["constraints"]
        assert pgctx.verify(conn, "upgraded").ok
        assert pgctx.recover(conn, "upgraded")["chain"]["ok"]
        # a release before 0007 wrote chain format v1: its events keep it, the new ones are v2, and
        # the mixed chain verifies; erasing a v1 event keeps it verifying and says what can no
        # longer be proven
        v1 = 3 if revision < "0007" else 0
        assert conn.execute("SELECT array_agg(salt IS NULL AND payload_digest IS NULL ORDER BY seq)"
                            " FROM pgctx.events WHERE conversation_id = 'upgraded'").fetchone()[0] == [True] * v1 + [False] * (4 - v1)
        erased = pgctx.erase(conn, "upgraded", seqs=[1], reason="upgrade test")
        report = pgctx.verify(conn, "upgraded")
        assert report.ok and report.erased == 1, report
        day = conn.execute("SELECT left(payload->>'erased_at', 10) FROM pgctx.events WHERE conversation_id = 'upgraded'"
                           " AND seq = %s", (erased["erasure_seq"],)).fetchone()[0]  # not today's: midnight may pass
        assert report.reason.endswith(f"1 event erased on {day} by postgres (erasure at seq "
                                      f"{erased['erasure_seq']})" + ("; 1 of them in chain format v1: their place in the chain"
                                                                      " is proven, their kind and content no longer are" if v1 else ""))
        exported = io.StringIO()
        pgctx.export_bundle(conn, "upgraded", exported)
        offline = pgctx.verify_bundle([line.encode() for line in exported.getvalue().splitlines()])
        assert (offline.ok, offline.reason, offline.erased) == (True, report.reason, 1)
        # and it stores LangGraph threads (0008)
        from langgraph.checkpoint.conformance.test_utils import generate_checkpoint, generate_config, generate_metadata
        from pgctx.integrations.langgraph import PgctxSaver

        saver = PgctxSaver(conn)
        stored = saver.put(generate_config("graph"), generate_checkpoint(channel_values={"k": "v"}, channel_versions={"k": 1}),
                           generate_metadata(), {"k": 1})
        assert saver.get_tuple(stored).checkpoint["channel_values"] == {"k": "v"}
        assert pgctx.verify(conn, "graph").ok


def test_migrating_twice_changes_nothing(dsn):
    before = catalog(dsn)
    pgctx.migrate(dsn)
    assert catalog(dsn) == before


def test_concurrent_migrations_serialize(empty_dsn, dsn):
    script = "import sys, pgctx; print(pgctx.migrate(sys.argv[1]))"
    procs = [subprocess.Popen([sys.executable, "-c", script, empty_dsn], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(3)]
    results = [(p.wait(timeout=120), p.stdout.read().decode().strip(), p.stderr.read().decode()) for p in procs]
    assert [code for code, _, _ in results] == [0, 0, 0], results
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    # one installed the schema, and says so; the others waited for it and found it done
    assert sorted(said for _, said, _ in results) == [
        f"pgctx schema is up to date (revision {head})"] * 2 + [f"pgctx schema migrated from nothing to revision {head}"]
    assert catalog(empty_dsn) == catalog(dsn)
    with psycopg.connect(empty_dsn) as conn:
        assert conn.execute("SELECT version_num FROM pgctx.alembic_version").fetchall() == [(head,)]


def test_concurrent_migrations_in_threads_of_one_process_serialize(empty_dsn, dsn):
    # alembic's context is process-wide: four threads at once broke one another's runs (KeyError
    # 'script') and left a schema half installed
    done: list = []

    def run(target):
        try:
            done.append(pgctx.migrate(target))
        except Exception as exc:  # reported below, with the others
            done.append(exc)

    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        threads = [threading.Thread(target=run, args=(empty_dsn if i % 2 else conn,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    assert sorted(r.changed for r in done if isinstance(r, pgctx.Migrated)) == [False, False, False, True], done
    assert catalog(empty_dsn) == catalog(dsn)


def test_alembic_command_line_with_pgctx_dsn(empty_dsn, dsn):
    done = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=ROOT, env={"PGCTX_DSN": empty_dsn, "PATH": "/usr/bin:/bin"}, capture_output=True,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert catalog(empty_dsn) == catalog(dsn)


def test_migrate_on_a_callers_connection_leaves_it_usable(empty_dsn, dsn):
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        pgctx.migrate(conn)
        assert conn.autocommit is True and not conn.closed
        assert pgctx.append(conn, "after-migrate", "user", {}) == 1
    assert catalog(empty_dsn)["functions"] == catalog(dsn)["functions"]


def test_a_non_utf8_database_is_refused(server_dsn):
    name = new_database(server_dsn, encoding="SQL_ASCII")
    try:
        with pytest.raises(errors.UnsupportedEncoding):
            pgctx.migrate(make_conninfo(server_dsn, dbname=name))
        with psycopg.connect(make_conninfo(server_dsn, dbname=name)) as conn:
            assert conn.execute("SELECT to_regnamespace('pgctx')").fetchone()[0] is None
    finally:
        drop_database(server_dsn, name)


def test_error_codes_are_one_table_one_mapping(conn):
    table = dict(conn.execute("SELECT sqlstate, name FROM pgctx.error_codes").fetchall())
    assert {code: cls.__name__ for code, cls in errors.BY_SQLSTATE.items()} == table
    raised = set()
    for path in sql_files():
        if path.name != "001_errors.sql":  # codes are raised directly or returned by fold_violations
            raised |= set(re.findall(r"(?:ERRCODE = |SELECT )'(PC\w+)'", path.read_text()))
    assert raised == set(table), "every listed code is raised somewhere and every raised code is listed"


def test_upgrading_converts_tenant_oids_to_names_and_tenancy_holds(empty_dsn, roles):
    """A release before 0010 stored tenants as regrole (an OID); the upgrade converts every tenant
    column to the role's name, in place: the tenant still sees its conversation, the other tenant
    does not, the chain verifies, the retention policy and the unique scope of policies hold."""
    install_release(empty_dsn, "0b24360", "0009")
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        for tenant in (roles.tenant_a, roles.tenant_b):
            conn.execute("SELECT pgctx.register_tenant(%s::regrole)", (tenant,))
        conn.execute("SELECT pgctx.set_retention_policy(%s::regrole, 30)", (roles.tenant_a,))
    as_a = make_conninfo(empty_dsn, user=roles.app_a, password=roles.password)
    with psycopg.connect(as_a, autocommit=True) as a:
        pgctx.append_many(a, "a-1", RELEASE_EVENTS)

    pgctx.migrate(empty_dsn)
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT DISTINCT tenant FROM pgctx.events").fetchall() == [(roles.tenant_a,)]
        assert conn.execute("SELECT tenant FROM pgctx.conversations").fetchall() == [(roles.tenant_a,)]
        assert conn.execute("SELECT tenant FROM pgctx.retention_policy").fetchall() == [(roles.tenant_a,)]
        assert sorted(conn.execute("SELECT tenant FROM pgctx.tenants").fetchall()) == sorted(
            [(roles.tenant_a,), (roles.tenant_b,)])
        assert pgctx.verify(conn, "a-1").ok
        with pytest.raises(psycopg.errors.UniqueViolation):  # one policy per tenant, still
            conn.execute("INSERT INTO pgctx.retention_policy (tenant, idle_days) VALUES (%s, 7)", (roles.tenant_a,))
    with psycopg.connect(as_a, autocommit=True) as a:
        assert pgctx.append(a, "a-1", "user", {"text": "after the upgrade"}) == 4
        assert a.execute("SELECT count(*) FROM pgctx.events WHERE conversation_id = 'a-1'").fetchone() == (4,)
    with psycopg.connect(make_conninfo(empty_dsn, user=roles.app_b, password=roles.password), autocommit=True) as b:
        assert b.execute("SELECT count(*) FROM pgctx.events").fetchone() == (0,)
        with pytest.raises(errors.TenantDenied):
            pgctx.append(b, "a-1", "user", {"text": "not mine"})


def test_the_api_on_a_database_never_migrated_says_to_migrate(empty_dsn):
    with psycopg.connect(empty_dsn, autocommit=True) as conn:
        for call in (lambda: pgctx.append(conn, "c", "user", {"text": "hi"}), lambda: pgctx.verify(conn, "c"),
                     lambda: pgctx.fold(conn, "c"), lambda: pgctx.build_context(conn, "c"),
                     lambda: pgctx.take_digest(conn)):
            with pytest.raises(errors.SchemaNotInstalled, match="run `pgctx migrate`"):
                call()


def test_migrate_with_no_server_raises_psycopgs_error_not_sqlalchemys():
    with pytest.raises(psycopg.OperationalError):
        pgctx.migrate("postgresql://nobody@127.0.0.1:1/app?connect_timeout=3")


def test_migrate_works_whatever_the_row_factory_and_gives_it_back(empty_dsn, dsn):
    # how PostgresSaver's docs build a pool: dict_row connections (SQLAlchemy's version check read
    # the column name off them: "Could not determine version from string 'version'")
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    from pgctx.integrations.langgraph import PgctxSaver

    with ConnectionPool(empty_dsn, kwargs={"autocommit": True, "row_factory": dict_row}, open=True) as pool:
        PgctxSaver(pool).setup()
        with pool.connection() as conn:
            assert conn.row_factory is dict_row
            assert conn.execute("SELECT 1 AS one").fetchone() == {"one": 1}
    with psycopg.connect(empty_dsn, row_factory=dict_row) as conn:
        assert pgctx.migrate(conn).changed is False and conn.row_factory is dict_row
    assert catalog(empty_dsn) == catalog(dsn)
