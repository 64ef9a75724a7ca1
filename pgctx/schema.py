"""Installing the pgctx schema: the sql/ files, and alembic migrations that apply them."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg.rows import tuple_row
from psycopg_pool import ConnectionPool

from pgctx.errors import PgctxError, translated

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


# One token of SQL text, as PostgreSQL's lexer reads it as far as statement boundaries go. A whole
# identifier is one token (an identifier may contain "$", so "a$b$" is no dollar quote), "$1" is a
# parameter, and a dollar-quote tag is $$ or $ tag $ with a tag that does not start with a digit.
_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<line>--[^\n]*)
      | (?P<block>/\*)
      | (?P<word>[A-Za-z_\x80-\U0010ffff][A-Za-z0-9_$\x80-\U0010ffff]*)
      | (?P<param>\$[0-9]+)
      | (?P<dollar>\$(?:[A-Za-z_\x80-\U0010ffff][A-Za-z0-9_\x80-\U0010ffff]*)?\$)
      | (?P<quote>['"])
      | (?P<semicolon>;)
      | (?P<other>[0-9]+|.)""",
    re.VERBOSE | re.DOTALL,
)
_STRING = re.compile(r"'[^']*(?:''[^']*)*'")  # standard_conforming_strings: a quote doubles, \ is plain
_ESCAPE_STRING = re.compile(r"'[^'\\]*(?:(?:\\.|'')[^'\\]*)*'", re.DOTALL)  # E'...': \ escapes too
_IDENTIFIER = re.compile(r'"[^"]*(?:""[^"]*)*"')
_COMMENT_MARK = re.compile(r"/\*|\*/")


def _statement_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each statement: from its first token to its semicolon (or its last token)."""
    spans: list[tuple[int, int]] = []
    start = last = None  # the current statement's first token, and the end of its last one
    word = ""  # the previous token, when it was a word (to refuse BEGIN ATOMIC)
    i, n = 0, len(text)
    while i < n:
        m = _TOKEN.match(text, i)
        kind, end = m.lastgroup, m.end()
        if kind == "space" or kind == "line":
            i = end
            continue
        if kind == "block":  # block comments nest
            depth = 0
            for mark in _COMMENT_MARK.finditer(text, i):
                depth += 1 if mark.group() == "/*" else -1
                if depth == 0:
                    break
            if depth:
                raise ValueError(f"unterminated /* comment at line {text.count(chr(10), 0, i) + 1}")
            i = mark.end()
            continue
        if kind == "quote":
            if m.group() == '"':
                pattern = _IDENTIFIER
            else:  # E'...' when the quote follows the word E directly
                pattern = _ESCAPE_STRING if word.lower() == "e" and last == i else _STRING
            quoted = pattern.match(text, i)
            if quoted is None:
                raise ValueError(f"unterminated {m.group()} quote at line {text.count(chr(10), 0, i) + 1}")
            end = quoted.end()
        elif kind == "dollar":
            close = text.find(m.group(), end)
            if close < 0:
                raise ValueError(f"unterminated {m.group()} quote at line {text.count(chr(10), 0, i) + 1}")
            end = close + len(m.group())
        elif kind == "word" and word.lower() == "begin" and m.group().lower() == "atomic":
            raise ValueError(f"BEGIN ATOMIC at line {text.count(chr(10), 0, i) + 1}: pgctx's statement splitter "
                             "needs function bodies in dollar quotes")
        word = m.group() if kind == "word" else ""
        if kind == "semicolon":
            if start is not None:
                spans.append((start, end))
            start = last = None
        else:
            if start is None:
                start = i
            last = end
        i = end
    if start is not None:
        spans.append((start, last))
    return spans


def sql_statements(text: str) -> list[str]:
    """Split SQL text into its statements, in order, at the semicolons outside quotes and comments.

    A statement's text runs from its first token to its semicolon (kept), or to its last token for
    a final statement without one; the comments and whitespace before it are not part of it, the
    ones inside it are. Empty statements (only comments, or a lone semicolon) are dropped. Skipped
    over: '...' strings ('' doubles a quote; standard_conforming_strings, as on every supported
    PostgreSQL), E'...' strings (backslash escapes too), "..." identifiers, dollar-quoted bodies
    ($$ or $tag$; $1 is a parameter), -- comments and /* */ comments, which nest. SQL-standard
    function bodies (BEGIN ATOMIC ... END) are refused with ValueError, as is an unterminated quote
    or comment: their semicolons cannot be told apart without parsing.
    """
    return [text[start:end] for start, end in _statement_spans(text)]


def apply_sql_files(conn: psycopg.Connection, names: Sequence[str]) -> None:
    """Run the named sql/ files, in the given order, on a psycopg connection.

    Statement by statement (sql_statements), in the caller's transaction: a server that refuses
    several commands in one query string (Citus: "cannot insert multiple commands into a prepared
    statement") runs them too. A failing statement's error carries a note naming its file and line.
    """
    folder = sql_dir()
    if _has_citus(conn):
        # On Citus, CREATE OR REPLACE TRIGGER on a distributed table needs this (pgctx's triggers
        # touch only the same conversation's colocated rows); for this migration's transaction only.
        conn.execute("SET LOCAL citus.enable_unsafe_triggers = on")
        # and DDL on the distributed tables over one connection per node: after a parallel one,
        # Citus cannot create or replace a function in the same transaction ("there was a
        # parallel operation on a distributed table in the transaction")
        conn.execute("SET LOCAL citus.multi_shard_modify_mode = 'sequential'")
    if _stores_role_oids(conn):
        # A database of a release before 0010 keeps tenants as regrole, and every current file
        # takes them by name: whichever migration comes first applies every file (015 converts the
        # columns, the others create what it dropped), as 0010 does; the rest then find names.
        names = [path.name for path in sql_files()] + list(names)
    for name in names:
        text = (folder / name).read_text(encoding="utf-8")
        for start, end in _statement_spans(text):
            try:
                with translated():
                    conn.execute(text[start:end])
            except (psycopg.Error, PgctxError) as exc:
                exc.add_note(f"in sql/{name}, the statement at line {text.count(chr(10), 0, start) + 1}")
                raise


def _has_citus(conn: psycopg.Connection) -> bool:
    return conn.execute("SELECT EXISTS (SELECT FROM pg_catalog.pg_extension WHERE extname = 'citus')").fetchone()[0]


def _stores_role_oids(conn: psycopg.Connection) -> bool:
    return conn.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid"
        " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'pgctx' AND a.atttypid = 'pg_catalog.regrole'::pg_catalog.regtype AND NOT a.attisdropped)"
    ).fetchone()[0]


def alembic_config(**attributes):
    from alembic.config import Config

    config = Config(str(_resource("alembic.ini")))
    config.set_main_option("script_location", str(_resource("migrations")))
    config.attributes.update(attributes)
    return config


@dataclass(frozen=True)
class Migrated:
    """What :func:`migrate` did: the revision it found (None: no pgctx schema) and the one it left,
    both read under the migration lock, so a run that waited for another one says it found the
    other's result."""

    found: str | None
    now: str | None

    @property
    def changed(self) -> bool:
        return self.found != self.now

    def __str__(self) -> str:
        if not self.changed:
            return f"pgctx schema is up to date (revision {self.now})"
        return f"pgctx schema migrated from {self.found or 'nothing'} to revision {self.now}"


# alembic runs a migration through a process-wide proxy (alembic.context): two threads migrating
# at once overwrite each other's (KeyError 'script'). The advisory lock serializes processes only
# after that point, so runs of this process take this lock first.
_MIGRATING = threading.Lock()


def migrate(target: str | psycopg.Connection | ConnectionPool, revision: str = "head") -> Migrated:
    """Bring a database's pgctx schema to ``revision`` (default: the newest); returns what it did.

    ``target`` is a connection string, a psycopg connection (committed afterwards) or a pool.
    Safe to run twice, and from several threads or processes at once: runs serialize on a lock in
    this process and on an advisory lock in the database, and a run that finds the schema at
    ``revision`` changes nothing. On a database pgctx.distribute placed on Citus, it then runs
    distribute again, which gives the functions the migration (re)created to every node and takes
    their plan_cache_mode off.
    """
    from alembic import command

    if isinstance(target, ConnectionPool):
        with target.connection() as conn:
            return migrate(conn, revision)
    with _MIGRATING, translated(), _unwrapped():
        if isinstance(target, str):
            config = alembic_config(dsn=target)
            command.upgrade(config, revision)
            with psycopg.connect(target, autocommit=True) as conn:
                _redistribute(conn)
        else:
            from sqlalchemy import create_engine, pool

            # Wrap the caller's connection without ever closing it: StaticPool hands out this one
            # connection, and the engine is not disposed. SQLAlchemy reads rows as tuples (with a
            # dict_row factory its version check read the column name: "Could not determine version
            # from string 'version'"), so the caller's row factory is set aside and given back.
            engine = create_engine("postgresql+psycopg://", creator=lambda: target, poolclass=pool.StaticPool)
            row_factory, target.row_factory = target.row_factory, tuple_row
            try:
                with engine.connect() as connection:
                    config = alembic_config(connection=connection)
                    command.upgrade(config, revision)
                    connection.commit()
                _redistribute(target)
            finally:
                target.row_factory = row_factory
    return Migrated(config.attributes["found"], config.attributes["now"])


@contextlib.contextmanager
def _unwrapped() -> Iterator[None]:
    """psycopg's own error where SQLAlchemy (under alembic) wrapped it: pgctx.migrate raises what
    every other call raises (a psycopg.OperationalError for a server it cannot reach, a pgctx
    exception for one of pgctx's SQLSTATEs), not sqlalchemy.exc.*."""
    from sqlalchemy.exc import DBAPIError

    try:
        yield
    except DBAPIError as exc:
        if isinstance(exc.orig, psycopg.Error):
            raise exc.orig from None
        raise


def _redistribute(conn: psycopg.Connection) -> None:
    """pgctx.distribute again where pgctx is distributed already (never the first time by itself)."""
    from pgctx.distribute import distribute, read_state

    state = read_state(conn)
    if not conn.autocommit:
        conn.rollback()  # the read's transaction: distribute commits statement by statement
    if state.distributed:
        distribute(conn)
