"""Alembic environment for pgctx.

Runs every pending revision in one transaction that first takes a transaction-scoped advisory
lock: two processes migrating the same database at once serialize, and the second one then
finds the version table already at head and does nothing. The version table lives in the pgctx
schema so it cannot collide with an application's own alembic_version.
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine, pool

import psycopg

from pgctx.schema import MIGRATION_LOCK_KEY

config = context.config


def _connectable():
    connection = config.attributes.get("connection")
    if connection is not None:
        return connection
    dsn = config.attributes.get("dsn") or os.environ.get("PGCTX_DSN")
    if not dsn:
        raise SystemExit("pgctx migrations need a database: set PGCTX_DSN or pass --dsn")
    # A creator accepts both libpq keyword strings and URIs, exactly as psycopg does. The client
    # encoding is pinned so that a non-UTF8 database reaches 000_schema.sql's typed refusal
    # instead of breaking SQLAlchemy's connection set-up with undecoded bytes.
    return create_engine(
        "postgresql+psycopg://",
        creator=lambda: psycopg.connect(dsn, client_encoding="UTF8"),
        poolclass=pool.NullPool,
    )


def run_migrations_online() -> None:
    connectable = _connectable()
    if hasattr(connectable, "connect"):
        with connectable.connect() as connection:
            _run(connection)
    else:
        _run(connectable)


def _run(connection) -> None:
    context.configure(
        connection=connection,
        version_table="alembic_version",
        version_table_schema="pgctx",
        transaction_per_migration=False,
    )
    with context.begin_transaction():
        connection.exec_driver_sql("SELECT pg_advisory_xact_lock(%s)" % MIGRATION_LOCK_KEY)
        # read under the lock: what this run found and left, for pgctx.migrate's answer
        config.attributes["found"] = context.get_context().get_current_revision()
        connection.exec_driver_sql("CREATE SCHEMA IF NOT EXISTS pgctx")
        context.run_migrations()
        config.attributes["now"] = context.get_context().get_current_revision()


if context.is_offline_mode():
    raise SystemExit("pgctx migrations run online only (they check the database they run on)")
run_migrations_online()
