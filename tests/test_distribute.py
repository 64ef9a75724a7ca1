"""pgctx distribute: the Citus statement plan, from the real catalog of a migrated database.

On every PostgreSQL the suite runs on, without Citus in the database: the plan's order and text
are checked against a migrated database's catalog (with the citus flag forced on), and so are the
catalog properties Citus requires of the schema. On plain PostgreSQL, distribute changes nothing.
tests/test_citus.py distributes for real, on a Citus cluster (PostgreSQL 15).
"""

from __future__ import annotations

import importlib
from dataclasses import replace

import psycopg
import pytest

import pgctx
from pgctx.distribute import (
    DELEGATED,
    DISTRIBUTED_TABLES,
    FOREIGN_KEYS,
    REFERENCE_TABLES,
    CitusNotInstalled,
    plan,
    read_state,
)
from tests.test_cli import pgctx_cli

SET = "SET citus.enable_unsafe_triggers = on"
RESET = "RESET citus.enable_unsafe_triggers"
DROP_CONVERSATIONS_FK = "ALTER TABLE pgctx.conversations DROP CONSTRAINT conversations_tenant_fkey"
ADD_CONVERSATIONS_FK = ("ALTER TABLE pgctx.conversations ADD CONSTRAINT conversations_tenant_fkey"
                        " FOREIGN KEY (tenant) REFERENCES pgctx.tenants(tenant)")
EVENTS = "SELECT create_distributed_table('pgctx.events', 'conversation_id')"


def colocated(table: str) -> str:
    return f"SELECT create_distributed_table('{table}', 'conversation_id', colocate_with => 'pgctx.events')"


def signature(conn, name: str) -> str:
    return conn.execute("SELECT oid::regprocedure::text FROM pg_proc WHERE pronamespace = 'pgctx'::regnamespace"
                        " AND proname = %s", (name,)).fetchone()[0]


def positions(statements: list[str], prefix: str) -> list[int]:
    return [i for i, s in enumerate(statements) if s.startswith(prefix)]


@pytest.fixture
def fresh(conn):
    """The catalog of a migrated database, as a cluster with citus installed and nothing distributed."""
    state = read_state(conn)
    assert not state.citus and not state.reference and not state.distributed
    return replace(state, citus=True)


def done(state):
    """``state`` with everything distribute does already done."""
    return replace(state, reference=frozenset(REFERENCE_TABLES), distributed=frozenset(DISTRIBUTED_TABLES),
                   functions=tuple(replace(f, distributed=True, delegated=f.name in DELEGATED,
                                           sets_plan_cache_mode=False) for f in state.functions))


def test_the_plan_for_a_fresh_cluster_in_order(conn, fresh):
    statements = plan(fresh)
    functions = conn.execute("SELECT proname FROM pg_proc WHERE pronamespace = 'pgctx'::regnamespace").fetchall()
    resetting = conn.execute("SELECT count(*) FROM pg_proc WHERE pronamespace = 'pgctx'::regnamespace"
                             " AND proconfig::text LIKE '%plan_cache_mode=%'").fetchone()[0]
    keys = conn.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f'"
                        " AND connamespace = 'pgctx'::regnamespace").fetchone()[0]

    drops = [i for i in positions(statements, "ALTER TABLE") if " DROP CONSTRAINT " in statements[i]]
    adds = [i for i in positions(statements, "ALTER TABLE") if " ADD CONSTRAINT " in statements[i]]
    references = positions(statements, "SELECT create_reference_table(")
    tables = positions(statements, "SELECT create_distributed_table(")
    resets = positions(statements, "ALTER FUNCTION ")
    distributing = positions(statements, "SELECT create_distributed_function(")
    delegated = [i for i in distributing if "'conversation_id'" in statements[i]]
    propagated = [i for i in distributing if i not in delegated]

    assert statements[0] == SET
    assert len(drops) == len(adds) == keys == 2 and resetting >= 1
    assert len(references) == len(REFERENCE_TABLES) and len(tables) == len(DISTRIBUTED_TABLES)
    assert len(resets) == resetting
    assert len(delegated) + len(propagated) == len(functions)  # one per function of schema pgctx
    assert len(statements) == 2 + len(drops) + len(references) + len(tables) + len(adds) + len(resets) \
        + len(delegated) + len(propagated)
    # the order: keys dropped, reference tables, distributed tables (events first), keys back, the
    # session setting off, the RESETs, then the functions
    assert max(drops) < min(references) and max(references) < min(tables) and max(tables) < min(adds)
    assert statements.index(RESET) == max(adds) + 1 and max(adds) + 1 < min(resets)
    assert max(resets) < min(delegated + propagated)
    assert statements[min(tables)] == EVENTS
    assert [statements[i] for i in tables[1:]] == [colocated(t) for t in DISTRIBUTED_TABLES[1:]]
    assert [statements[i] for i in references] == [f"SELECT create_reference_table('{t}')" for t in REFERENCE_TABLES]
    assert DROP_CONVERSATIONS_FK in statements and ADD_CONVERSATIONS_FK in statements
    assert statements.index(ADD_CONVERSATIONS_FK) > statements.index(colocated("pgctx.conversations"))
    assert f"ALTER FUNCTION {signature(conn, 'append_events')} RESET plan_cache_mode" in statements
    # delegated exactly for DELEGATED's names, by their conversation_id, colocated with the events
    assert sorted(statements[i].split("'")[1].split("(")[0] for i in delegated) == sorted(f"pgctx.{n}" for n in DELEGATED)
    assert (f"SELECT create_distributed_function('{signature(conn, 'append_events')}', 'conversation_id',"
            " colocate_with => 'pgctx.events')") in statements
    assert "SELECT create_distributed_function('pgctx.events_chain()')" in statements
    assert f"SELECT create_distributed_function('{signature(conn, 'fold_status')}')" in statements


def test_a_second_run_after_a_complete_one_plans_nothing(fresh):
    assert plan(done(fresh)) == []
    assert plan(replace(fresh, citus=False)) == []  # nothing to distribute over


def test_a_run_after_an_interrupted_one_continues_and_adds_the_dropped_key_back(conn, fresh):
    # stopped after distributing events, having dropped the conversations key (so the catalog no
    # longer shows it) and created every reference table; retention_policy's key is back in place
    # already (both its ends are reference tables)
    interrupted = replace(
        done(fresh),
        distributed=frozenset({"pgctx.events"}),
        foreign_keys=tuple(k for k in fresh.foreign_keys if k.name != "conversations_tenant_fkey"),
    )
    assert plan(interrupted) == [SET, *(colocated(t) for t in DISTRIBUTED_TABLES[1:]), ADD_CONVERSATIONS_FK, RESET]

    # every table placed, only the key missing: only the key
    assert plan(replace(interrupted, distributed=frozenset(DISTRIBUTED_TABLES))) == [ADD_CONVERSATIONS_FK]

    # a delegated function Citus propagated by itself (no distribution argument) is delegated still
    append_events = signature(conn, "append_events")
    propagated = replace(done(fresh), functions=tuple(
        replace(f, delegated=False) if f.signature == append_events else f for f in done(fresh).functions))
    assert plan(propagated) == [f"SELECT create_distributed_function('{append_events}', 'conversation_id',"
                                " colocate_with => 'pgctx.events')"]


SNAPSHOT = """
    SELECT (SELECT array_agg(conname || ' ' || pg_get_constraintdef(oid) ORDER BY conname) FROM pg_constraint
             WHERE connamespace = 'pgctx'::regnamespace),
           (SELECT array_agg(oid::regprocedure::text || ' ' || coalesce(proconfig::text, '') ORDER BY oid)
              FROM pg_proc WHERE pronamespace = 'pgctx'::regnamespace)"""


def test_without_citus_distribute_refuses_and_changes_nothing(conn, dsn):
    before = conn.execute(SNAPSHOT).fetchone()
    for dry_run in (False, True):
        with pytest.raises(CitusNotInstalled):
            pgctx.distribute(conn, dry_run=dry_run)
    assert conn.execute(SNAPSHOT).fetchone() == before
    assert conn.autocommit  # as it was

    with psycopg.connect(dsn) as tx:  # inside a transaction it cannot commit statement by statement
        tx.execute("SELECT 1")
        with pytest.raises(ValueError):
            pgctx.distribute(tx)

    done = pgctx_cli("distribute", "--dsn", dsn)
    assert done.returncode == 2
    assert done.stderr == "pgctx distribute: the citus extension is not installed in this database; nothing changed\n"
    assert done.stdout == ""
    assert conn.execute(SNAPSHOT).fetchone() == before


def test_the_schema_is_what_citus_can_distribute(conn):
    tables = {t for (t,) in conn.execute(
        "SELECT format('%I.%I', 'pgctx', relname) FROM pg_class WHERE relnamespace = 'pgctx'::regnamespace"
        " AND relkind IN ('r', 'p') AND relname <> 'alembic_version'")}
    placed = [*REFERENCE_TABLES, *DISTRIBUTED_TABLES]
    assert len(placed) == len(set(placed)) and set(placed) == tables  # every table in exactly one
    column_type = conn.execute("SELECT atttypid FROM pg_attribute WHERE attrelid = 'pgctx.events'::regclass"
                               " AND attname = 'conversation_id'").fetchone()[0]

    for table in DISTRIBUTED_TABLES:
        # the distribution column, of one type (colocation), in every unique index (Citus requires it)
        assert conn.execute("SELECT atttypid FROM pg_attribute WHERE attrelid = %s::regclass"
                            " AND attname = 'conversation_id' AND NOT attisdropped", (table,)).fetchone() == (column_type,)
        unique = conn.execute(
            "SELECT indexrelid::regclass::text, (SELECT attnum FROM pg_attribute WHERE attrelid = indrelid"
            " AND attname = 'conversation_id') = ANY (indkey::int2[]) FROM pg_index"
            " WHERE indrelid = %s::regclass AND indisunique", (table,)).fetchall()
        assert unique and all(has for _, has in unique), (table, unique)

    for name in DELEGATED:
        found = conn.execute(
            "SELECT proargnames, proargmodes::text[], coalesce(proallargtypes, proargtypes::oid[]) FROM pg_proc"
            " WHERE pronamespace = 'pgctx'::regnamespace AND proname = %s", (name,)).fetchall()
        assert found, name
        for names, modes, types in found:
            inputs = {n: t for n, m, t in zip(names, modes or ["i"] * len(names), types) if m in ("i", "b", "v")}
            assert inputs.get("conversation_id") == column_type, (name, inputs)

    # the foreign keys between pgctx tables are the ones an interrupted run re-adds, and each points
    # at a reference table (a key between distributed tables would need conversation_id in it)
    assert sorted(read_state(conn).foreign_keys, key=lambda k: (k.table, k.name)) == sorted(
        FOREIGN_KEYS, key=lambda k: (k.table, k.name))
    assert all(k.references in REFERENCE_TABLES and k.table in tables for k in FOREIGN_KEYS)


@pytest.mark.parametrize("distributed", [False, True])
def test_migrate_distributes_again_only_where_pgctx_is_distributed(dsn, monkeypatch, distributed):
    """pgctx.migrate ends with pgctx.distribute on a distributed installation (the functions it
    re-created need propagating again and their plan_cache_mode reset), never on one that is not.
    Citus is not here: the catalog's answer is replaced, and distribute records its calls."""
    placement = importlib.import_module("pgctx.distribute")  # the module (pgctx.distribute is the function)
    real = placement.read_state
    calls = []
    monkeypatch.setattr(placement, "read_state", lambda conn: replace(
        real(conn), citus=True, distributed=frozenset(DISTRIBUTED_TABLES) if distributed else frozenset()))
    monkeypatch.setattr(placement, "distribute", lambda conn, **kw: calls.append(conn.info.transaction_status))
    pgctx.migrate(dsn)
    with psycopg.connect(dsn) as conn:
        pgctx.migrate(conn)
    assert calls == ([psycopg.pq.TransactionStatus.IDLE] * 2 if distributed else [])
