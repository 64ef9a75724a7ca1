"""Rules the schema keeps so that it can be distributed on Citus (docs/scaling.md), held over the
catalog of a migrated database on every PostgreSQL the suite runs on (Citus itself runs only in
the PostgreSQL 15 run, tests/test_citus.py): checked on what PostgreSQL says about pgctx's own
objects, not on a grep of the sql/ files."""

from __future__ import annotations

import re

import psycopg
import pytest

import pgctx
from pgctx.distribute import DISTRIBUTED_TABLES

# Views that read a function's rows per conversation (pgctx.tool_calls(c.conversation_id)), which a
# multi-shard query cannot push down: each reads the conversations in a CTE, which Citus then
# plans apart, calling the function on the node asked (tests/test_citus.py reads both across the
# shards). Each with the reason the function is not taken apart.
FUNCTION_IN_FROM_VIEWS = {
    "pgctx.conversation_status": "unknown_side_effects is derived by pgctx.tool_calls (a branch's calls come from its source)",
    "pgctx.side_effects": "every call's status is derived by pgctx.tool_calls (a branch's calls come from its source)",
}


# Statements that read a distributed table and call, inside them, a pgctx function that reads one
# too: on Citus the inner reads are nested distributed execution (refused unless
# citus.allow_nested_distributed_execution, which Citus warns may be incorrect). The fold, context,
# verification and LangGraph queries pass the rows instead (the inner function read in a statement
# of its own, tests/test_citus.py runs them on a cluster). The set stays empty.
NESTED_READS: set[tuple[str, str]] = set()


def _functions(conn: psycopg.Connection) -> list[tuple]:
    return conn.execute(
        "SELECT p.oid::regprocedure::text, p.proname, l.lanname, p.provolatile, p.prosrc, p.proconfig, p.prosecdef,"
        " p.pronargs, p.proretset, p.proisstrict FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang"
        " WHERE p.pronamespace = 'pgctx'::regnamespace ORDER BY 1"
    ).fetchall()


def _distributed_table(names: tuple[str, ...] = DISTRIBUTED_TABLES) -> re.Pattern:
    # pgctx.<table>, not pgctx.<table>%ROWTYPE (a declaration reads nothing)
    return re.compile(r"\b(%s)\b(?!%%)" % "|".join(re.escape(t) for t in names))


def _statements(body: str):
    """A function body's statements, roughly: split at semicolons and block keywords, and an
    IF / ELSIF / WHILE condition apart from what it guards."""
    body = re.sub(r"--[^\n]*", "", body)
    for piece in re.split(r";|\b(?:LOOP|BEGIN|DECLARE|ELSE)\b", body):
        condition = re.match(r"\s*(?:IF|ELSIF|WHEN|WHILE)\b(.*?)\bTHEN\b(.*)", piece, re.S)
        yield from (condition.groups() if condition else (piece,))


def test_no_column_stores_a_node_local_oid(conn):
    """Tenants are role names (015): an OID differs between the nodes of a cluster, and between
    clusters after a restore. No column, argument or result of pgctx has a reg* type."""
    columns = conn.execute(
        "SELECT a.attrelid::regclass::text, a.attname, a.atttypid::regtype::text FROM pg_attribute a"
        " JOIN pg_class c ON c.oid = a.attrelid JOIN pg_type t ON t.oid = a.atttypid"
        " WHERE c.relnamespace = 'pgctx'::regnamespace AND c.relkind IN ('r', 'v', 'c') AND a.attnum > 0"
        " AND NOT a.attisdropped AND t.typname ~ '^reg'"
    ).fetchall()
    assert columns == []
    signatures = conn.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = 'pgctx'::regnamespace"
        " AND EXISTS (SELECT 1 FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]) || p.prorettype) t(oid)"
        "             JOIN pg_type ty ON ty.oid = t.oid WHERE ty.typname ~ '^reg')"
    ).fetchall()
    assert signatures == []


def test_updates_of_distributed_tables_call_only_immutable_functions_of_their_columns(conn):
    """Citus refuses 'STABLE functions used in UPDATE queries cannot be called with column
    references'. Every UPDATE of a distributed table in a pgctx function calls pgctx functions of
    that table's columns (alias.column arguments) only if they are IMMUTABLE."""
    volatility = {name: v for _sig, name, _lang, v, *_ in _functions(conn)}
    tables = "|".join(re.escape(t.split(".")[1]) for t in DISTRIBUTED_TABLES)
    update = re.compile(rf"\bUPDATE\s+pgctx\.({tables})\b(.*?);", re.S)
    call = re.compile(r"pgctx\.(\w+)\(([^;]*?)\)")
    seen, bad = 0, []
    for sig, _name, _lang, _v, src, *_ in _functions(conn):
        for table, statement in update.findall(src):
            statement = statement.split("RETURNING")[0]
            for fn, args in call.findall(statement):
                seen += 1
                if re.search(r"\b[a-z]\.[a-z_]+", args) and volatility.get(fn) != "i":
                    bad.append((sig, table, fn, volatility.get(fn)))
    assert seen, "the rule found no UPDATE calling a pgctx function: the pattern no longer matches the schema"
    assert bad == []


def test_the_head_rows_hash_is_immutable_and_inlined(conn):
    """event_hash_v2 and genesis_hash are IMMUTABLE (the UPDATE above) and their bodies only call
    immutable functions, so PostgreSQL still inlines them (a function declared IMMUTABLE over a
    STABLE body is not inlined: ~3x slower verification)."""
    rows = conn.execute(
        "SELECT p.proname, p.provolatile FROM pg_proc p WHERE p.pronamespace = 'pgctx'::regnamespace"
        " AND p.proname IN ('event_hash_v2', 'genesis_hash', 'utf8_bytes') ORDER BY 1"
    ).fetchall()
    assert rows == [("event_hash_v2", "i"), ("genesis_hash", "i"), ("utf8_bytes", "i")]
    plan = conn.execute(
        "EXPLAIN (VERBOSE, COSTS OFF) SELECT pgctx.event_hash_v2(c.conversation_id, c.head_seq, 'user', c.head_hash,"
        " c.head_hash), pgctx.genesis_hash(c.conversation_id) FROM pgctx.conversations c"
    ).fetchall()
    text = "\n".join(r[0] for r in plan)
    assert "sha256" in text and "event_hash_v2" not in text and "genesis_hash" not in text, text


@pytest.mark.parametrize("value", ["plain", "a\\b", "\\\\x00", "é", "\u2028", "😀", "tab\there", "\\", "中文 id"])
def test_utf8_bytes_is_convert_to_utf8(conn, value):
    assert conn.execute("SELECT pgctx.utf8_bytes(%s) = convert_to(%s, 'UTF8')", (value, value)).fetchone() == (True,)


def test_sql_functions_that_read_distributed_tables_are_inlined(conn):
    """A LANGUAGE sql function with parameters that reads a distributed table must be one the
    planner inlines into its caller's query, so Citus never plans it as a function ('could not
    create distributed plan ... parameters in SQL functions'): a set-returning function, STABLE,
    not STRICT, no SET clause, not SECURITY DEFINER. A scalar one with a FROM is never inlined:
    those are PL/pgSQL (must_keep, last_clear, erasure_lists, expired_conversations, ...)."""
    table = _distributed_table()
    found = [row for row in _functions(conn) if row[2] == "sql" and row[7] > 0 and table.search(row[4])]
    assert found, "no SQL function reads a distributed table: the rule tests nothing"
    bad = [sig for sig, _n, _l, volatility, _src, config, secdef, _nargs, retset, strict in found
           if not retset or strict or config is not None or secdef or volatility == "v"]
    assert bad == []


def test_no_new_nested_reads_of_distributed_tables(conn):
    """Which statements read a distributed table and call a pgctx function that reads one too
    (directly or through others): exactly the listed ones (NESTED_READS)."""
    functions = _functions(conn)
    table, call = _distributed_table(), re.compile(r"\bpgctx\.(\w+)\s*\(")
    bodies: dict[str, list[str]] = {}
    for _sig, name, lang, _v, src, *_ in functions:
        if lang in ("sql", "plpgsql"):
            bodies.setdefault(name, []).append(src)
    reads = {name for name, srcs in bodies.items() if any(table.search(s) for s in srcs)}
    while more := {name for name, srcs in bodies.items() if name not in reads
                   and any(callee in reads for s in srcs for callee in call.findall(s))}:
        reads |= more
    nested = {(name, callee) for name, srcs in bodies.items() for s in srcs for statement in _statements(s)
              if table.search(statement) for callee in call.findall(statement) if callee in reads}
    assert nested == NESTED_READS


def test_truncate_triggers_stand_alone(conn):
    """Citus does not carry ENABLE ALWAYS over for a trigger that includes TRUNCATE: every
    TRUNCATE trigger of pgctx fires on TRUNCATE only, and every pgctx trigger is ENABLE ALWAYS."""
    triggers = conn.execute(
        "SELECT t.tgrelid::regclass::text, t.tgname, (t.tgtype & 32) <> 0, (t.tgtype & 28) <> 0, t.tgenabled"
        " FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
        " WHERE c.relnamespace = 'pgctx'::regnamespace AND NOT t.tgisinternal ORDER BY 1, 2"
    ).fetchall()
    assert any(truncate for _t, _n, truncate, _o, _e in triggers)
    assert [(t, n) for t, n, truncate, other, _e in triggers if truncate and other] == []
    assert [(t, n) for t, n, *_, enabled in triggers if enabled != "A"] == []


def test_a_truncate_of_event_kinds_compiles_the_kind_test(conn):
    """The TRUNCATE trigger of event_kinds is its own and recompiles is_event_kind: after a
    TRUNCATE (rolled back here) no kind is accepted."""
    with pytest.raises(pgctx.errors.UnknownEventKind):
        with conn.transaction():
            conn.execute("TRUNCATE pgctx.event_kinds")
            pgctx.append(conn, "k", "user", {})
    pgctx.append(conn, "k", "user", {})  # the rollback restored the kinds and their compiled test


def test_the_kind_compile_leaves_citus_settings_alone_without_citus(conn):
    """compile_event_kinds turns Citus' DDL propagation off only where Citus defines the setting;
    on plain PostgreSQL it sets nothing (no placeholder setting appears)."""
    conn.execute("INSERT INTO pgctx.event_kinds (kind, description) VALUES ('rule_probe', 'x')")
    assert conn.execute("SELECT current_setting('citus.enable_ddl_propagation', true)").fetchone() == (None,)
    assert conn.execute("SELECT pgctx.is_event_kind('rule_probe')").fetchone() == (True,)


def test_dba_views_read_no_function_rows_but_the_listed_ones(conn):
    """Views for DBAs run across shards: a function in FROM in a multi-shard query is refused. The
    views that still do it are exactly the listed ones, each with its reason."""
    views = conn.execute(
        "SELECT c.oid::regclass::text, pg_get_viewdef(c.oid) FROM pg_class c"
        " WHERE c.relnamespace = 'pgctx'::regnamespace AND c.relkind = 'v' ORDER BY 1"
    ).fetchall()
    assert len(views) >= 8
    in_from = re.compile(r"\b(FROM|JOIN|LATERAL|,)\s+pgctx\.\w+\(", re.I)
    assert {name for name, definition in views if in_from.search(definition)} == set(FUNCTION_IN_FROM_VIEWS)
