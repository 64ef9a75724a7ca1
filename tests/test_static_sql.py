"""Static checks of the SQL, held over the catalog of a migrated database (what PostgreSQL compiled,
not a grep of the sql/ files, so functions and triggers created at run time are included):

* plpgsql_check, with every warning class on, over every PL/pgSQL function of schema pgctx, each
  trigger function with every relation it fires on: no error, and no warning but those listed
  below with their reason (exactly those: a listed warning that no longer occurs fails too);
* every LANGUAGE sql function of pgctx still compiles against the current catalog (PostgreSQL
  checks a SQL function's body only when it is created);
* every function of pgctx has a comment;
* every SECURITY DEFINER function pins a search path of schemas nobody but its owner can create
  objects in.

plpgsql_check is a Debian package (postgresql-15-plpgsql-check, which scripts/setup.sh installs
for the test suite). Where the server is not PostgreSQL 15 and lacks it, the plpgsql_check tests
skip; on PostgreSQL 15 a missing extension fails them.
"""

from __future__ import annotations

from collections import Counter

import psycopg
import pytest

INSTALL_HINT = ("install it: apt-get install -y postgresql-15-plpgsql-check (scripts/test does, through "
                "scripts/setup.sh with PGCTX_SETUP_PLPGSQL_CHECK=1)")

# plpgsql_check warnings that stay, each as ((function, level, message, detail), why it stays).
# Empty: every warning found so far was fixed in the SQL. Keyed without line numbers, so that
# editing a function elsewhere keeps its entry; a repeated warning is listed once per occurrence.
ACCEPTED_WARNINGS: list[tuple[tuple[str, str, str, str | None], str]] = []

# Every warning class (extra, performance, security, compatibility, other), all errors of a
# function rather than its first, and no in-comment options: this list is the one place a warning
# may be accepted.
CHECK = """
    SELECT c.level, c.message, c.detail, c.lineno, c.statement, c.query
      FROM plpgsql_check_function_tb(%s::oid::regprocedure, %s::oid::regclass, fatal_errors => false,
                                     all_warnings => true, use_incomment_options => false) c"""

# Each PL/pgSQL function of pgctx once; a trigger function once per relation a trigger of it fires
# on (relid 0 when it has none, which plpgsql_check refuses to check).
TARGETS = """
    SELECT DISTINCT p.oid, p.oid::regprocedure::text, p.prorettype = 'trigger'::regtype, coalesce(t.tgrelid, 0),
           coalesce(t.tgrelid::regclass::text, '')
      FROM pg_proc p
      JOIN pg_language l ON l.oid = p.prolang AND l.lanname = 'plpgsql'
      LEFT JOIN pg_trigger t ON t.tgfoid = p.oid AND p.prorettype = 'trigger'::regtype
     WHERE p.pronamespace = 'pgctx'::regnamespace
     ORDER BY 2, 5"""


@pytest.fixture
def plpgsql_check(conn):
    """The extension in this test's database."""
    if not conn.execute("SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'plpgsql_check')").fetchone()[0]:
        major = conn.info.server_version // 10000
        if major != 15:
            pytest.skip(f"the plpgsql_check extension is not available on this PostgreSQL {major} server "
                        "(the suite runs it on PostgreSQL 15, where its absence fails)")
        pytest.fail(f"the plpgsql_check extension is not available on this PostgreSQL 15 server: {INSTALL_HINT}")
    conn.execute("CREATE EXTENSION plpgsql_check")


def plpgsql_check_findings(conn: psycopg.Connection) -> tuple[list[tuple[str, str]], list[tuple]]:
    """(the (function, relation) pairs checked, every finding as (function, relation, level,
    message, detail, line, statement, query)); fails on a trigger function with no trigger, which
    could not be checked."""
    targets = conn.execute(TARGETS).fetchall()
    unattached = [name for _oid, name, is_trigger, relid, _rel in targets if is_trigger and relid == 0]
    assert unattached == [], "trigger functions without a trigger cannot be checked (nor are they used)"
    findings = [(name, rel, *row) for oid, name, _t, relid, rel in targets for row in conn.execute(CHECK, (oid, relid))]
    return [(name, rel) for _oid, name, _t, _relid, rel in targets], findings


def test_plpgsql_check_finds_no_error_and_only_the_listed_warnings(conn, plpgsql_check):
    checked, findings = plpgsql_check_findings(conn)
    # the triggers created at run time are among those checked: events_chain's trigger is created
    # by EXECUTE (030: its WHEN clause names the owner), and compile_event_kinds generates
    # pgctx.is_event_kind (LANGUAGE sql: test_sql_functions_compile_against_the_catalog)
    assert {("pgctx.events_chain()", "pgctx.events"), ("pgctx.compile_event_kinds()", "pgctx.event_kinds")} <= set(checked)
    errors = [f for f in findings if f[2] == "error"]
    assert errors == []
    found = Counter((name, level, message, detail) for name, _rel, level, message, detail, *_ in findings)
    accepted = Counter(key for key, _reason in ACCEPTED_WARNINGS)
    # (a warning that occurs more often than listed shows every occurrence)
    unlisted = [f for f in findings if (f[0], *f[2:5]) in found - accepted]
    assert unlisted == [], "fix these in the SQL, or list them in ACCEPTED_WARNINGS with the reason"
    assert accepted - found == Counter(), "listed warnings that no longer occur: remove them"


def test_plpgsql_check_reports_a_planted_fault_in_a_trigger_created_at_run_time(conn, plpgsql_check):
    """The check sees what it is meant to: a trigger function is checked against the relation of
    its trigger (a trigger created by EXECUTE, as events_chain's is), and a warning in a plain
    function is reported as unlisted."""
    conn.execute("CREATE FUNCTION pgctx.probe_trigger() RETURNS trigger LANGUAGE plpgsql AS $$"
                 " BEGIN RETURN NEW.no_such_column; END $$")
    conn.execute("DO $$ BEGIN EXECUTE format('CREATE TRIGGER probe BEFORE INSERT ON %s FOR EACH ROW"
                 " EXECUTE FUNCTION pgctx.probe_trigger()', 'pgctx.tools'::regclass); END $$")
    conn.execute("CREATE FUNCTION pgctx.probe_unused() RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$"
                 " DECLARE unused int; BEGIN RETURN 1; END $$")
    _checked, findings = plpgsql_check_findings(conn)
    planted = {(name, rel, level, message) for name, rel, level, message, *_ in findings if "probe" in name}
    assert planted == {
        ("pgctx.probe_trigger()", "pgctx.tools", "error", 'record "new" has no field "no_such_column"'),
        ("pgctx.probe_unused()", "", "warning", 'unused variable "unused"'),
    }


def test_sql_functions_compile_against_the_catalog(conn):
    """A LANGUAGE sql function's body is checked when it is created, and not again when a column
    or function it names changes; its language's validator checks it now (pgctx.is_event_kind,
    which compile_event_kinds generates at run time, included)."""
    functions = conn.execute(
        "SELECT p.oid, p.oid::regprocedure::text FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang"
        " WHERE p.pronamespace = 'pgctx'::regnamespace AND l.lanname = 'sql' ORDER BY 2").fetchall()
    assert "pgctx.is_event_kind(text)" in [name for _oid, name in functions]
    failing = []
    for oid, name in functions:
        try:
            with conn.transaction():
                conn.execute("SELECT pg_catalog.fmgr_sql_validator(%s)", (oid,))
        except psycopg.Error as exc:
            failing.append((name, str(exc)))
    assert failing == []


def test_every_function_has_a_comment(conn):
    """A DBA reading \\df+ in psql learns what each function does and why it exists."""
    comments = conn.execute(
        "SELECT p.oid::regprocedure::text, coalesce(btrim(obj_description(p.oid, 'pg_proc')), '')"
        " FROM pg_proc p WHERE p.pronamespace = 'pgctx'::regnamespace ORDER BY 1").fetchall()
    assert comments
    assert [name for name, comment in comments if comment == ""] == []


# The rule for a SECURITY DEFINER function (it runs as its owner, with the caller's arguments): its
# search_path is pinned in proconfig (else the caller's path applies), and each schema it names is
# pg_temp (which test_privileges.py holds last), or an existing schema owned by the function's owner
# or a superuser on which CREATE is granted to no other role, PUBLIC included. Otherwise someone
# else could plant a table, function or operator there that the owner's code would pick up: with
# CREATE on the schema, by creating it (a named schema that does not exist), or as $user.
SEARCH_PATH_PROBLEMS = """
    WITH definers AS (
        SELECT p.oid::regprocedure::text AS fn, p.proowner AS owner,
               (SELECT substr(c, length('search_path=') + 1) FROM unnest(p.proconfig) c
                 WHERE c LIKE 'search_path=%') AS path
          FROM pg_proc p
         WHERE p.pronamespace = 'pgctx'::regnamespace AND p.prosecdef
    ), entries AS (
        SELECT d.fn, d.owner, btrim(e, ' "') AS schema FROM definers d, unnest(string_to_array(d.path, ',')) e
    )
    SELECT fn, 'search_path is not pinned' FROM definers WHERE path IS NULL
    UNION ALL
    SELECT e.fn, e.schema || ': ' || CASE WHEN n.oid IS NULL THEN 'no such schema'
                                          WHEN w.grantees IS NOT NULL THEN 'CREATE granted to ' || w.grantees
                                          ELSE 'owned by ' || o.rolname END
      FROM entries e
      LEFT JOIN pg_namespace n ON n.nspname = e.schema
      LEFT JOIN pg_roles o ON o.oid = n.nspowner
      LEFT JOIN LATERAL (SELECT string_agg(CASE a.grantee WHEN 0 THEN 'PUBLIC' ELSE pg_get_userbyid(a.grantee) END,
                                           ', ' ORDER BY a.grantee) AS grantees
                           FROM aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) a
                          WHERE a.privilege_type = 'CREATE' AND a.grantee <> n.nspowner) w ON true
     WHERE e.schema <> 'pg_temp'
       AND (n.oid IS NULL OR w.grantees IS NOT NULL OR (n.nspowner <> e.owner AND NOT o.rolsuper))
     ORDER BY 1, 2"""


def test_security_definer_functions_pin_a_search_path_only_their_owner_can_create_in(conn):
    assert conn.execute("SELECT count(*) FROM pg_proc WHERE pronamespace = 'pgctx'::regnamespace AND prosecdef").fetchone()[0] > 0
    assert conn.execute(SEARCH_PATH_PROBLEMS).fetchall() == []


def test_the_search_path_rule_reports_schemas_others_can_create_in(conn):
    """The rule above finds each way a definer's path can be unsafe."""
    conn.execute("CREATE SCHEMA probe_writable")
    conn.execute("GRANT CREATE ON SCHEMA probe_writable TO pgctx_app")
    conn.execute("CREATE SCHEMA probe_foreign AUTHORIZATION pgctx_auditor")
    for statement in [
        "CREATE FUNCTION pgctx.probe_unpinned() RETURNS int LANGUAGE sql SECURITY DEFINER AS 'SELECT 1'",
        "CREATE FUNCTION pgctx.probe_writable() RETURNS int LANGUAGE sql SECURITY DEFINER"
        " SET search_path = probe_writable, pg_temp AS 'SELECT 1'",
        "CREATE FUNCTION pgctx.probe_foreign() RETURNS int LANGUAGE sql SECURITY DEFINER"
        " SET search_path = pg_catalog, probe_foreign, pg_temp AS 'SELECT 1'",
        "CREATE FUNCTION pgctx.probe_missing() RETURNS int LANGUAGE sql SECURITY DEFINER"
        " SET search_path = pg_catalog, probe_missing, pg_temp AS 'SELECT 1'",
        "CREATE FUNCTION pgctx.probe_user() RETURNS int LANGUAGE sql SECURITY DEFINER"
        " SET search_path = \"$user\", pg_catalog, pg_temp AS 'SELECT 1'",
    ]:
        conn.execute(statement)
    assert conn.execute(SEARCH_PATH_PROBLEMS).fetchall() == [
        ("pgctx.probe_foreign()", "probe_foreign: owned by pgctx_auditor"),
        ("pgctx.probe_missing()", "probe_missing: no such schema"),
        ("pgctx.probe_unpinned()", "search_path is not pinned"),
        ("pgctx.probe_user()", "$user: no such schema"),
        ("pgctx.probe_writable()", "probe_writable: CREATE granted to pgctx_app"),
    ]
