"""Test harness: real PostgreSQL only.

One server per test session — a throwaway cluster (pgctx.embedded, which runs it as an
unprivileged OS user when the tests run as root), or the existing server named by
PGCTX_TEST_DSN (a superuser, or a role with CREATEDB and CREATEROLE). The pgctx schema is
migrated once into a template database with alembic; every test gets a fresh database cloned
from it. Login roles for the privilege and tenancy tests are created once per session with a
per-run suffix, so runs sharing a server do not collide.
"""

from __future__ import annotations

import itertools
import os
import subprocess
from dataclasses import dataclass

import psycopg
import pytest
from hypothesis import settings
from psycopg import sql
from psycopg.conninfo import make_conninfo

import pgctx
from pgctx.embedded import EmbeddedPostgres, find_bindir

RUN = f"{os.getpid()}"
_counter = itertools.count()

# Hypothesis profiles. "ci" (loaded unless --hypothesis-profile names another) is hypothesis's
# defaults with state machine programs of up to 50 steps: tests/test_stateful_fuzz.py runs 100 of
# them. "nightly" (pytest --hypothesis-profile=nightly tests/test_stateful_fuzz.py) runs 1,000 of 100.
settings.register_profile("ci", stateful_step_count=50)
settings.register_profile("nightly", max_examples=1000, stateful_step_count=100)
settings.load_profile("ci")


def pytest_report_header(config):
    """Which server the run is on: scripts/test runs the suite once per supported major version."""
    if os.environ.get("PGCTX_TEST_DSN"):
        return "PostgreSQL: the server named by PGCTX_TEST_DSN"
    bindir = find_bindir()
    done = subprocess.run([str(bindir / "postgres"), "--version"], capture_output=True, text=True)
    return f"PostgreSQL: {done.stdout.strip()} ({bindir})"


@pytest.fixture(scope="session")
def server_dsn():
    """A superuser connection string to the session's server (database 'postgres')."""
    external = os.environ.get("PGCTX_TEST_DSN")
    if external:
        yield external
        return
    server = EmbeddedPostgres()
    try:
        yield server.superuser_dsn("postgres")
    finally:
        server.stop()


def admin(server_dsn: str) -> psycopg.Connection:
    return psycopg.connect(server_dsn, autocommit=True)


@dataclass(frozen=True)
class Roles:
    """Login roles of this run: password-protected so they work on any server's pg_hba."""

    app: str
    auditor: str
    tenant_a: str
    tenant_b: str
    app_a: str
    app_b: str
    app_ab: str
    eraser: str
    password: str = "pgctx-test"


@pytest.fixture(scope="session")
def roles(server_dsn, template_db):
    r = Roles(*(f"pgctx_t{RUN}_{n}" for n in ("app", "auditor", "tenant_a", "tenant_b", "app_a", "app_b", "app_ab", "eraser")))
    with admin(server_dsn) as conn:
        for tenant in (r.tenant_a, r.tenant_b):
            conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(tenant)))
        logins = {
            r.app: ["pgctx_app"],
            r.auditor: ["pgctx_auditor"],
            r.app_a: ["pgctx_app", r.tenant_a],
            r.app_b: ["pgctx_app", r.tenant_b],
            r.app_ab: ["pgctx_app", r.tenant_a, r.tenant_b],
            r.eraser: ["pgctx_eraser"],
        }
        for login, groups in logins.items():
            conn.execute(
                sql.SQL("CREATE ROLE {} LOGIN INHERIT PASSWORD {} IN ROLE {}").format(
                    sql.Identifier(login), sql.Literal(r.password), sql.SQL(", ").join(map(sql.Identifier, groups))
                )
            )
    yield r
    with admin(server_dsn) as conn:
        for role in [*logins, r.tenant_a, r.tenant_b]:
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def new_database(server_dsn: str, template: str = "template0", encoding: str = "UTF8") -> str:
    name = f"pgctx_t{RUN}_{next(_counter)}"
    with admin(server_dsn) as conn:
        conn.execute(
            sql.SQL("CREATE DATABASE {} ENCODING {} LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE {}").format(
                sql.Identifier(name), sql.Literal(encoding), sql.Identifier(template)
            )
        )
    return name


def drop_database(server_dsn: str, name: str) -> None:
    with admin(server_dsn) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="session")
def template_db(server_dsn):
    """A database with the schema installed by the alembic migrations."""
    name = new_database(server_dsn)
    pgctx.migrate(make_conninfo(server_dsn, dbname=name))
    yield name
    drop_database(server_dsn, name)


@pytest.fixture
def dsn(server_dsn, template_db):
    """Superuser DSN of a fresh database cloned from the migrated template."""
    name = new_database(server_dsn, template_db)
    yield make_conninfo(server_dsn, dbname=name)
    drop_database(server_dsn, name)


@pytest.fixture
def conn(dsn):
    with psycopg.connect(dsn, autocommit=True) as c:
        yield c


@pytest.fixture
def connect_as(dsn, roles):
    """connect_as(role) -> an autocommit connection to this test's database as that login role."""
    opened: list[psycopg.Connection] = []

    def _connect(role: str) -> psycopg.Connection:
        c = psycopg.connect(make_conninfo(dsn, user=role, password=roles.password), autocommit=True)
        opened.append(c)
        return c

    yield _connect
    for c in opened:
        c.close()


@pytest.fixture(scope="session")
def citus():
    """A Citus cluster (tests/cluster.py) started once per run, with pgctx migrated into its
    database 'pgctx' and distributed there. Skipped, with the reason, where Citus cannot run: it is
    built for PostgreSQL 15 only (scripts/test's run on 15 has it), and installed by scripts/setup.sh."""
    from tests.cluster import DATABASE, Cluster, unavailable

    reason = unavailable()
    if reason:
        pytest.skip(reason)
    cluster = Cluster.start()
    try:
        cluster.create_database(DATABASE)
        pgctx.migrate(cluster.dsn(cluster.coordinator, DATABASE))
        with psycopg.connect(cluster.dsn(cluster.coordinator, DATABASE), autocommit=True) as conn:
            pgctx.distribute(conn)
        yield cluster
    finally:
        cluster.stop()
