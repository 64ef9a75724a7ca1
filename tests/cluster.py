"""A throwaway Citus cluster for the cluster tests: a coordinator and two workers on loopback.

Each node is an ordinary throwaway PostgreSQL (pgctx.embedded, run as an unprivileged OS user
when the tests run as root) started with ``shared_preload_libraries = 'citus'``. Citus keeps its
node list per database, so :meth:`Cluster.create_database` makes a database on every node, runs
``CREATE EXTENSION citus`` in each, and registers the nodes from the coordinator
(``citus_set_coordinator_host``, so reference tables get a copy there too, and ``citus_add_node``
per worker). Citus is built for PostgreSQL 15 only (``../shared/citus/``): :func:`unavailable`
says why a cluster cannot be started here, or None.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

from pgctx.embedded import EmbeddedPostgres, find_bindir

CITUS_MAJOR = 15  # the PostgreSQL major version the Citus build in ../shared/citus/ is for
# Fewer shards than Citus's default of 32: a cluster's multi-shard reads and distribute's DDL go
# to every shard, and these tests run on 2 cores; 8 still puts several shards on each worker.
SHARD_COUNT = 8
DATABASE = "pgctx"  # the database the session's cluster (tests/conftest.py's citus) installs pgctx in


def unavailable() -> str | None:
    """Why a Citus cluster cannot be started with this run's PostgreSQL binaries, or None."""
    bindir = find_bindir()
    version = subprocess.run([str(bindir / "postgres"), "--version"], capture_output=True, text=True).stdout
    major = version.split()[-1].split(".")[0] if version else "?"
    if major != str(CITUS_MAJOR):
        return f"Citus is built for PostgreSQL {CITUS_MAJOR} only; this run's server is PostgreSQL {major} ({bindir})"
    library = bindir.parent / "lib" / "citus.so"
    if not library.is_file():
        return f"Citus is not installed ({library} is missing: run ../shared/citus/install.sh as root)"
    return None


@dataclass
class Cluster:
    coordinator: EmbeddedPostgres
    workers: list[EmbeddedPostgres] = field(default_factory=list)

    @classmethod
    def start(cls, workers: int = 2) -> Cluster:
        nodes: list[EmbeddedPostgres] = []
        try:
            for _ in range(1 + workers):
                nodes.append(EmbeddedPostgres(postgres_args=(
                    "-h 127.0.0.1 -F -c logging_collector=off -c max_connections=200"
                    f" -c shared_preload_libraries=citus -c citus.shard_count={SHARD_COUNT}"
                    # node to node over loopback without TLS: Citus defaults to sslmode=require, and
                    # libpq would then read the client certificate of $HOME, root's, as the server user
                    " -c citus.node_conninfo=sslmode=disable")))
        except BaseException:
            for node in nodes:
                node.stop()
            raise
        return cls(nodes[0], nodes[1:])

    @property
    def nodes(self) -> list[EmbeddedPostgres]:
        return [self.coordinator, *self.workers]

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    @staticmethod
    def dsn(node: EmbeddedPostgres, dbname: str, **params) -> str:
        return make_conninfo(node.superuser_dsn(dbname), **params)

    def create_database(self, name: str) -> None:
        """``name`` on every node with the citus extension, the workers registered from the coordinator."""
        for node in self.nodes:
            with psycopg.connect(node.superuser_dsn("postgres"), autocommit=True) as conn:
                conn.execute(sql.SQL("CREATE DATABASE {} ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
                             .format(sql.Identifier(name)))
            with psycopg.connect(node.superuser_dsn(name), autocommit=True) as conn:
                conn.execute("CREATE EXTENSION citus")
        with psycopg.connect(self.coordinator.superuser_dsn(name), autocommit=True) as conn:
            conn.execute("SELECT citus_set_coordinator_host('127.0.0.1', %s)", (self.coordinator.settings["port"],))
            for worker in self.workers:
                conn.execute("SELECT citus_add_node('127.0.0.1', %s)", (worker.settings["port"],))


def shard_node(conn: psycopg.Connection, conversation_id: str) -> int:
    """The port of the worker holding ``conversation_id``'s shard of pgctx.events."""
    return conn.execute(
        "SELECT nodeport FROM pg_dist_shard_placement p JOIN pg_dist_shard s USING (shardid)"
        " WHERE s.shardid = get_shard_id_for_distribution_column('pgctx.events', %s::text)", (conversation_id,)).fetchone()[0]
