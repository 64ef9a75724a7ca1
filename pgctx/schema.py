"""Installing the pgctx schema: the sql/ files, and alembic migrations that apply them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import psycopg
from psycopg_pool import ConnectionPool

from pgctx.errors import translated

# pg_advisory_xact_lock key every migration takes first ("pgctx" as an integer).
MIGRATION_LOCK_KEY = int.from_bytes(b"pgctx", "big")

_HERE = Path(__file__).resolve().parent


def _resource(name: str) -> Path:
    """A file shipped beside the package: inside it in a wheel, at the repository root otherwise."""
    for candidate in (_HERE / name, _HERE.parent / name):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"pgctx cannot find its {name!r} (looked in {_HERE} and {_HERE.parent})")


def sql_dir() -> Path:
    return _resource("sql")


def sql_files() -> list[Path]:
    """Every schema file, in load order."""
    return sorted(sql_dir().glob("[0-9][0-9][0-9]_*.sql"))


def apply_sql_files(conn: psycopg.Connection, names: Sequence[str]) -> None:
    """Run the named sql/ files, in the given order, on a psycopg connection."""
    folder = sql_dir()
    for name in names:
        with translated():
            conn.execute((folder / name).read_text(encoding="utf-8"))


def alembic_config(**attributes):
    from alembic.config import Config

    config = Config(str(_resource("alembic.ini")))
    config.set_main_option("script_location", str(_resource("migrations")))
    config.attributes.update(attributes)
    return config


def migrate(target: str | psycopg.Connection | ConnectionPool, revision: str = "head") -> None:
    """Bring a database's pgctx schema to ``revision`` (default: the newest).

    ``target`` is a connection string, a psycopg connection (committed afterwards) or a pool.
    Safe to run twice, and from several processes at once: runs serialize on an advisory lock.
    """
    from alembic import command

    if isinstance(target, ConnectionPool):
        with target.connection() as conn:
            migrate(conn, revision)
        return
    if isinstance(target, str):
        with translated():
            command.upgrade(alembic_config(dsn=target), revision)
        return

    from sqlalchemy import create_engine, pool

    # Wrap the caller's connection without ever closing it: StaticPool hands out this one
    # connection, and the engine is not disposed.
    engine = create_engine("postgresql+psycopg://", creator=lambda: target, poolclass=pool.StaticPool)
    with translated(), engine.connect() as connection:
        command.upgrade(alembic_config(connection=connection), revision)
        connection.commit()
