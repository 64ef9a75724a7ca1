"""pgctx.distribute: spread an installed pgctx schema over a Citus cluster, by conversation.

Run on the coordinator, after ``pgctx migrate`` (and again after every later migration), in a
database where ``CREATE EXTENSION citus`` has been run and the workers added. pgctx distributes
by ``conversation_id``: everything one conversation reads and writes lives on one worker.

- Reference tables (:data:`REFERENCE_TABLES`, a copy on every node): the small tables every
  conversation reads — error codes, tenants, event kinds, summary schemas, the tool registry,
  retention policies.
- Distributed tables (:data:`DISTRIBUTED_TABLES`): hash-distributed by ``conversation_id`` and
  colocated with ``pgctx.events`` (the colocation anchor, distributed first), so one
  conversation's events, head row, checkpoints, fold head and verified point share a worker, and
  pgctx's triggers, which touch only the same conversation's rows, run there on local shards.
- Functions: every function of schema pgctx becomes a distributed object, created on every node
  (the trigger functions the shards call, and what they call). The per-conversation API
  (:data:`DELEGATED`) is delegated by its ``conversation_id`` argument: a call is sent whole to
  the worker holding that conversation, one round trip, its statements local there.

The statements, in this order (:func:`plan`; each is planned only while still needed):

1. ``SET citus.enable_unsafe_triggers = on``, while a table is still to distribute: Citus
   refuses to distribute a table with triggers otherwise. pgctx's triggers read and write only the
   rows of the same conversation, colocated with the row they fire on, or a reference table.
2. Drop each foreign key between pgctx tables with an end not yet in place (the tenant keys, to
   ``pgctx.tenants``). Left in place, ``create_reference_table`` would first turn the local table
   holding the key into a "Citus local table", and distributing that later drops and recreates
   it, with the functions depending on its row type (cascade).
3. ``create_reference_table`` for each reference table.
4. ``create_distributed_table``: ``pgctx.events`` first, then the others with
   ``colocate_with => 'pgctx.events'``.
5. Add the dropped foreign keys back, as they were (``pg_get_constraintdef``); then
   ``RESET citus.enable_unsafe_triggers`` (step 1's, so the session does not keep it).
6. ``ALTER FUNCTION ... RESET plan_cache_mode`` where a function sets it: under
   force_generic_plan Citus refuses to plan SQL functions' parameterized queries ("could not
   create distributed plan"). On plain PostgreSQL the setting stays (it saves replanning).
7. ``create_distributed_function`` for each function not yet distributed: with
   ``'conversation_id', colocate_with => 'pgctx.events'`` for :data:`DELEGATED` names (also when
   Citus already propagated the function without delegating it), plain for the rest.

Safe to re-run: the plan is made from what the catalog says (:func:`read_state`), and every
statement is committed on its own, so a run after a complete one plans nothing and a run after
an interrupted one continues where it stopped. A foreign key an interrupted run dropped is no
longer in the catalog; :data:`FOREIGN_KEYS` (held to the schema by a test) is how the next run
still adds it back. Do not run it concurrently with ``pgctx migrate``.

Without the citus extension, :func:`distribute` raises :class:`CitusNotInstalled` (a
:class:`~pgctx.errors.PgctxError` without SQLSTATE: no statement was sent) and changes nothing.
What this module cannot check without a cluster: that Citus accepts each statement (the plan's
text is tested, and the catalog properties Citus requires: every table placed, the distribution
column in every unique index, a ``conversation_id`` argument of the column's type for every
delegated function).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import psycopg
from psycopg import sql
from psycopg.rows import tuple_row

from pgctx.errors import PgctxError, translated

REFERENCE_TABLES = (
    "pgctx.error_codes",
    "pgctx.tenants",
    "pgctx.event_kinds",
    "pgctx.summary_schemas",
    "pgctx.retention_policy",
    "pgctx.tools",  # the tool registry: keyed by tool name (no conversation_id), read by every conversation
)

# Every table of schema pgctx is in exactly one of the two (tests/test_distribute.py), except
# alembic_version, which stays a local table on the coordinator, where migrations run.
DISTRIBUTED_TABLES = (
    "pgctx.events",  # first: the colocation anchor
    "pgctx.conversations",
    "pgctx.checkpoints",
    "pgctx.fold_heads",
    "pgctx.verified_points",
    "pgctx.chain_breaks",
)
DISTRIBUTION_COLUMN = "conversation_id"
ANCHOR = DISTRIBUTED_TABLES[0]

# Functions that read and write one conversation's rows (and reference tables) and no other
# conversation's: sent whole to the worker holding the conversation named by their
# conversation_id argument. The fold, recover and context functions stay on the coordinator
# (propagated, not delegated): a branch's fold and context read its source conversation's events,
# which hash to another worker.
DELEGATED = (
    "append_event",
    "append_events",
    "verify_chain",
    "retract_last",
    "clear_view",
    "erase_events",
    "erase_conversation",
)


@dataclass(frozen=True)
class ForeignKey:
    """A foreign key between two pgctx tables. Names are SQL text, quoted by the server."""

    table: str  # the referencing table, schema-qualified
    name: str
    references: str  # the referenced table, schema-qualified
    definition: str  # pg_get_constraintdef: what ADD CONSTRAINT needs


# The schema's foreign keys between pgctx tables, as the catalog shows them after `pgctx migrate`
# (a test holds this to the catalog). The catalog is what the plan drops and re-adds; this is for
# a key an interrupted run dropped, which the catalog no longer shows.
FOREIGN_KEYS = (
    ForeignKey("pgctx.conversations", "conversations_tenant_fkey", "pgctx.tenants",
               "FOREIGN KEY (tenant) REFERENCES pgctx.tenants(tenant)"),
    ForeignKey("pgctx.retention_policy", "retention_policy_tenant_fkey", "pgctx.tenants",
               "FOREIGN KEY (tenant) REFERENCES pgctx.tenants(tenant)"),
)


@dataclass(frozen=True)
class Function:
    """A function of schema pgctx, as the catalog (and Citus's pg_dist_object) describes it."""

    signature: str  # regprocedure text: pgctx.append_events(text,jsonb,text)
    name: str
    distributed: bool = False  # a distributed object: created on every node
    delegated: bool = False  # distributed with a distribution argument
    sets_plan_cache_mode: bool = False  # its proconfig has plan_cache_mode=...


@dataclass(frozen=True)
class ClusterState:
    """What the catalog said, all :func:`plan` needs. Table names are schema-qualified SQL text."""

    citus: bool
    reference: frozenset[str] = frozenset()  # pg_dist_partition: partmethod 'n', repmodel 't'
    distributed: frozenset[str] = frozenset()  # pg_dist_partition: partmethod 'h'
    foreign_keys: tuple[ForeignKey, ...] = ()  # present now
    functions: tuple[Function, ...] = ()


class CitusNotInstalled(PgctxError):
    """The database has no citus extension: there is nothing to distribute over (no SQLSTATE)."""


_CITUS = "SELECT EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname = 'citus')"

_TABLES = """
    SELECT format('%I.%I', n.nspname, c.relname), p.partmethod, p.repmodel
      FROM pg_catalog.pg_dist_partition p
      JOIN pg_catalog.pg_class c ON c.oid = p.logicalrelid
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'pgctx'"""

_FOREIGN_KEYS = """
    SELECT format('%I.%I', n.nspname, c.relname), quote_ident(k.conname),
           format('%I.%I', fn.nspname, f.relname), pg_catalog.pg_get_constraintdef(k.oid)
      FROM pg_catalog.pg_constraint k
      JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_catalog.pg_class f ON f.oid = k.confrelid
      JOIN pg_catalog.pg_namespace fn ON fn.oid = f.relnamespace
     WHERE k.contype = 'f' AND n.nspname = 'pgctx' AND fn.nspname = 'pgctx'
     ORDER BY 1, 2"""

_FUNCTIONS = """
    SELECT p.oid::pg_catalog.regprocedure::text, p.proname::text, false, false,
           EXISTS (SELECT FROM unnest(p.proconfig) AS s WHERE split_part(s, '=', 1) = 'plan_cache_mode')
      FROM pg_catalog.pg_proc p
     WHERE p.pronamespace = 'pgctx'::pg_catalog.regnamespace
     ORDER BY 1"""
# The same, with Citus's record of distributed objects (in pg_catalog since Citus 11).
_CITUS_FUNCTIONS = """
    SELECT p.oid::pg_catalog.regprocedure::text, p.proname::text, d.objid IS NOT NULL,
           d.distribution_argument_index IS NOT NULL,
           EXISTS (SELECT FROM unnest(p.proconfig) AS s WHERE split_part(s, '=', 1) = 'plan_cache_mode')
      FROM pg_catalog.pg_proc p
      LEFT JOIN pg_catalog.pg_dist_object d
             ON d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.objid = p.oid AND d.objsubid = 0
     WHERE p.pronamespace = 'pgctx'::pg_catalog.regnamespace
     ORDER BY 1"""


def read_state(conn: psycopg.Connection) -> ClusterState:
    """Read what :func:`plan` needs from the catalog (Citus's tables only when citus is installed)."""
    with translated(), conn.cursor(row_factory=tuple_row) as cur:
        citus = cur.execute(_CITUS).fetchone()[0]
        placed = cur.execute(_TABLES).fetchall() if citus else []
        keys = tuple(ForeignKey(*row) for row in cur.execute(_FOREIGN_KEYS).fetchall())
        functions = tuple(Function(*row) for row in cur.execute(_CITUS_FUNCTIONS if citus else _FUNCTIONS).fetchall())
    return ClusterState(
        citus=citus,
        reference=frozenset(t for t, method, model in placed if method == "n" and model == "t"),
        distributed=frozenset(t for t, method, _ in placed if method == "h"),
        foreign_keys=keys,
        functions=functions,
    )


def _sql(template: str, *parts: sql.Composable) -> str:
    return sql.SQL(template).format(*parts).as_string(None)


def plan(state: ClusterState) -> list[str]:
    """The statements still needed to distribute pgctx, in order (the module docstring's steps)."""
    if not state.citus:
        return []

    def placed(table: str) -> bool:
        if table in REFERENCE_TABLES:
            return table in state.reference
        if table in DISTRIBUTED_TABLES:
            return table in state.distributed
        return True  # not pgctx's to place (alembic_version)

    tables_left = [t for t in (*REFERENCE_TABLES, *DISTRIBUTED_TABLES) if not placed(t)]
    present = {(k.table, k.name) for k in state.foreign_keys}
    dropping = [k for k in state.foreign_keys if not (placed(k.table) and placed(k.references))]
    missing = [k for k in FOREIGN_KEYS if (k.table, k.name) not in present]  # an interrupted run's

    name, literal = sql.SQL, sql.Literal  # name: SQL text the server quoted (read_state); literal: a value
    statements = []
    if tables_left:
        statements.append("SET citus.enable_unsafe_triggers = on")
    statements += [_sql("ALTER TABLE {} DROP CONSTRAINT {}", name(k.table), name(k.name)) for k in dropping]
    statements += [_sql("SELECT create_reference_table({})", literal(t)) for t in REFERENCE_TABLES if t in tables_left]
    for t in DISTRIBUTED_TABLES:
        if t in tables_left:
            statements.append(
                _sql("SELECT create_distributed_table({}, {})", literal(t), literal(DISTRIBUTION_COLUMN))
                if t == ANCHOR else
                _sql("SELECT create_distributed_table({}, {}, colocate_with => {})",
                     literal(t), literal(DISTRIBUTION_COLUMN), literal(ANCHOR))
            )
    statements += [_sql("ALTER TABLE {} ADD CONSTRAINT {} {}", name(k.table), name(k.name), name(k.definition))
                   for k in (*dropping, *missing)]
    if tables_left:
        statements.append("RESET citus.enable_unsafe_triggers")
    statements += [_sql("ALTER FUNCTION {} RESET plan_cache_mode", name(f.signature))
                   for f in state.functions if f.sets_plan_cache_mode]
    for f in state.functions:
        if f.name in DELEGATED and not f.delegated:
            statements.append(_sql("SELECT create_distributed_function({}, {}, colocate_with => {})",
                                   literal(f.signature), literal(DISTRIBUTION_COLUMN), literal(ANCHOR)))
        elif f.name not in DELEGATED and not f.distributed:
            statements.append(_sql("SELECT create_distributed_function({})", literal(f.signature)))
    return statements


def distribute(conn: psycopg.Connection, *, dry_run: bool = False,
               progress: Callable[[str], None] | None = None) -> list[str]:
    """Distribute pgctx over the Citus cluster ``conn`` is the coordinator of; return the statements.

    Each statement is committed on its own (the connection is switched to autocommit meanwhile, so
    it must not be inside a transaction); ``progress`` gets each one before it runs. With
    ``dry_run``, nothing runs and the statements that would are returned (and given to
    ``progress``). An empty list: already distributed. Raises :class:`CitusNotInstalled`, having
    changed nothing, when the database has no citus extension; a statement's error carries a note
    naming it (run again: the next run continues from there; this session keeps
    citus.enable_unsafe_triggers on if step 1 ran).
    """
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        raise ValueError("pgctx.distribute commits each statement: call it outside a transaction")
    autocommit = conn.autocommit
    conn.autocommit = True
    try:
        state = read_state(conn)
        if not state.citus:
            raise CitusNotInstalled("the citus extension is not installed in this database",
                                    hint="CREATE EXTENSION citus, add the worker nodes, then distribute")
        statements = plan(state)
        for statement in statements:
            if progress:
                progress(statement)
            if dry_run:
                continue
            try:
                with translated():
                    conn.execute(statement)
            except (psycopg.Error, PgctxError) as exc:
                exc.add_note(f"pgctx distribute stopped at: {statement} (what ran before it is committed; "
                             "run it again to continue)")
                raise
        return statements
    finally:
        conn.autocommit = autocommit
