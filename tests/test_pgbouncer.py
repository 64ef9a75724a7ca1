"""The fold API behind pgbouncer in transaction pooling mode.

In transaction mode a client's consecutive transactions may run on different server
connections, so anything kept in the session (SET, temp tables, session advisory locks,
prepared statements) would be lost or leak to another client. pgctx keeps none: each statement
is its own transaction and the fold lock is transaction-scoped. These tests run the whole agent
loop through a real pgbouncer with fewer server connections than clients, so server
connections are shared between clients from one transaction to the next.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg_pool import ConnectionPool

import pgctx
from tests.events import pasted

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def bouncer_dsn(dsn):
    """A DSN that reaches this test's database through pgbouncer (pool_mode = transaction)."""
    if not os.path.exists(PGBOUNCER):
        pytest.fail("pgbouncer is not installed (scripts/setup.sh installs the Debian package)")
    target = conninfo_to_dict(dsn)
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="pgctx-bouncer-")
    server = " ".join(f"{k}={target[k]}" for k in ("host", "port", "dbname", "user", "password") if target.get(k))
    with open(os.path.join(workdir, "pgbouncer.ini"), "w") as ini:
        ini.write(f"""[databases]
app = {server}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = 2
max_client_conn = 50
server_reset_query =
ignore_startup_parameters = extra_float_digits,options
logfile = {workdir}/pgbouncer.log
pidfile = {workdir}/pgbouncer.pid
""")
    command = [PGBOUNCER, os.path.join(workdir, "pgbouncer.ini")]
    if os.geteuid() == 0:  # pgbouncer refuses to run as root
        user = pwd.getpwnam("postgres")
        for name in (workdir, *(os.path.join(workdir, f) for f in os.listdir(workdir))):
            os.chown(name, user.pw_uid, user.pw_gid)
        command = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups", *command]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    bouncer = make_conninfo(host="127.0.0.1", port=port, dbname="app", user=target.get("user", "postgres"),
                            connect_timeout=5)
    deadline = time.monotonic() + 10
    while True:
        try:
            psycopg.connect(bouncer).close()
            break
        except psycopg.OperationalError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"pgbouncer did not start: {proc.stdout.read().decode(errors='replace')}")
            time.sleep(0.05)
    yield bouncer
    proc.terminate()
    proc.wait(timeout=10)
    shutil.rmtree(workdir, ignore_errors=True)


def _connect(dsn: str) -> psycopg.Connection:
    # pgbouncer 1.18 in transaction mode cannot keep server-side prepared statements
    return psycopg.connect(dsn, autocommit=True, prepare_threshold=None)


def test_the_agent_loop_runs_through_pgbouncer_with_shared_server_connections(bouncer_dsn, conn):
    # eight clients, two server connections: every client's transactions hop between them
    pool = ConnectionPool(bouncer_dsn, min_size=8, max_size=8, open=True,
                          kwargs={"autocommit": True, "prepare_threshold": None})
    errors: list[BaseException] = []

    def agent(n: int) -> None:
        cid = f"conv-{n}"
        try:
            for turn in range(3):
                pgctx.append(pool, cid, "user", pasted(f"turn {turn}: move order 1008{n}"))
                pgctx.append(pool, cid, "tool_call", {"tool": "update_order", "call_id": f"c{turn}", "effect": "write",
                                                      "idempotency_key": f"k-{n}-{turn}",
                                                      "arguments": {"order_id": f"1008{n}"}})
                outcome = "timeout" if turn == 2 else "succeeded"
                pgctx.append(pool, cid, "tool_result", {"call_id": f"c{turn}", "outcome": outcome, "request_id": f"r{turn}"})
                assert pgctx.fold(pool, cid, force=True).committed  # every turn: the loop, not the policy
                ctx = pgctx.build_context(pool, cid, current_message="status?")
                assert ctx.version == turn + 1
            answered = pgctx.reconcile(pool, cid, lambda call: {"outcome": "succeeded", "request_id": "svc"})
            assert [r.call_id for r in answered] == ["c2"]
            assert pgctx.verify(pool, cid).ok
            assert pgctx.recover(pool, cid)["needs_human"] == []
        except BaseException as exc:  # reported below: an assertion in a thread would be lost
            errors.append(exc)

    threads = [threading.Thread(target=agent, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pool.close()
    assert not errors, errors
    # checked directly on the server: every conversation folded three times, nothing left PREPARED
    rows = conn.execute("SELECT conversation_id, committed_version, prepared_folds, unknown_side_effects"
                        " FROM pgctx.conversation_status ORDER BY 1").fetchall()
    assert rows == [(f"conv-{n}", 3, 0, 0) for n in range(8)]


def test_concurrent_folds_of_one_conversation_through_pgbouncer_commit_each_range_once(bouncer_dsn, conn):
    pgctx.append_many(conn, "shared", [{"kind": "user", "payload": pasted(f"message {i}")} for i in range(20)])
    barrier = threading.Barrier(4)
    results: list[pgctx.FoldResult] = []

    def folder() -> None:
        with _connect(bouncer_dsn) as c:
            barrier.wait()
            results.append(pgctx.fold(c, "shared", force=True, attempts=3))

    threads = [threading.Thread(target=folder) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4
    committed = [r for r in results if r.committed]
    assert len(committed) >= 1
    # the ranges the committed folds cover tile 1..20 without overlap
    ranges = conn.execute("SELECT base_cursor, cursor FROM pgctx.checkpoints WHERE conversation_id = 'shared'"
                          " AND phase = 'COMMITTED' ORDER BY version").fetchall()
    assert ranges[0][0] == 0 and ranges[-1][1] == 20
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    assert conn.execute("SELECT count(*) FROM pgctx.checkpoints WHERE phase = 'PREPARED'").fetchone()[0] == 0
