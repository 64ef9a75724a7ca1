"""pgctx on a real Citus cluster (tests/cluster.py: a coordinator and two workers, PostgreSQL 15),
migrated and distributed once per run by the session fixture ``citus`` (tests/conftest.py), without
``citus.allow_nested_distributed_execution``. Each capability runs through the coordinator and
through a worker (Citus 11+ syncs its metadata to the workers, so they take queries too); every test
uses conversations of its own. Skipped, with the reason, where Citus cannot run (PostgreSQL 18)."""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
import time
from pathlib import Path

import psycopg
import pytest

import pgctx
from pgctx import errors
from pgctx.distribute import DELEGATED, DISTRIBUTED_TABLES, REFERENCE_TABLES
from pgctx.fold_procedures import fold_request
from pgctx.summarizers import BuiltinSummarizer
from tests.cluster import DATABASE, Cluster, shard_node
from tests.events import pasted
from tests.test_cli import pgctx_cli

_ids = itertools.count()


def new_id(prefix: str = "citus") -> str:
    return f"{prefix}-{os.getpid()}-{next(_ids)}"


@pytest.fixture
def coordinator(citus: Cluster):
    with psycopg.connect(Cluster.dsn(citus.coordinator, DATABASE), autocommit=True) as conn:
        yield conn


@pytest.fixture(params=["coordinator", "worker"])
def node(request, citus: Cluster):
    """An autocommit connection to the coordinator, or to the first worker."""
    server = citus.coordinator if request.param == "coordinator" else citus.workers[0]
    with psycopg.connect(Cluster.dsn(server, DATABASE), autocommit=True) as conn:
        yield conn


ORDER_STORY = [
    {"kind": "user", "payload": pasted("where is order 10086? the carrier sent this")},
    {"kind": "tool_call", "payload": {"tool": "lookup_order", "call_id": "c1", "effect": "read",
                                      "arguments": {"order_id": "10086"}, "idempotency_key": "k1"}},
    {"kind": "tool_result", "payload": {"call_id": "c1", "outcome": "succeeded", "request_id": "r1",
                                        "result": {"status": "shipped"}}},
    {"kind": "assistant", "payload": pasted("order 10086 has shipped; here is what the carrier says")},
    {"kind": "user", "payload": {"text": "thanks, and refund the shipping fee"}},
]


def test_distribute_placed_every_table_and_a_second_run_does_nothing(coordinator):
    placed = dict(coordinator.execute(
        "SELECT logicalrelid::text, partmethod FROM pg_dist_partition WHERE logicalrelid::text LIKE 'pgctx.%'").fetchall())
    assert placed == {**{t: "n" for t in REFERENCE_TABLES}, **{t: "h" for t in DISTRIBUTED_TABLES}}
    groups = coordinator.execute("SELECT count(DISTINCT colocationid) FROM pg_dist_partition"
                                 " WHERE logicalrelid::text LIKE 'pgctx.%' AND partmethod = 'h'").fetchone()[0]
    assert groups == 1
    delegated = {name for (name,) in coordinator.execute(
        "SELECT p.proname FROM pg_dist_object d JOIN pg_proc p ON p.oid = d.objid"
        " WHERE p.pronamespace = 'pgctx'::regnamespace AND d.distribution_argument_index IS NOT NULL")}
    assert delegated == set(DELEGATED)
    assert pgctx.distribute(coordinator) == []
    assert coordinator.execute("SELECT current_setting('citus.allow_nested_distributed_execution')").fetchone() == ("off",)


def test_appends_verify_resumed_anchored_and_full(node):
    cid = new_id()
    assert pgctx.append(node, cid, "user", {"text": "hello"}) == 1
    assert pgctx.append_many(node, cid, ORDER_STORY) == [2, 3, 4, 5, 6]
    node.execute("INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES (%s, 'user', '{\"text\": \"plain\"}')",
                 (cid,))
    report = pgctx.verify(node, cid)
    assert (report.ok, report.checked, report.head_seq, report.reason) == (True, 7, 7, "consistent, unanchored")
    resumed = pgctx.verify(node, cid, from_seq=3, from_hash=node.execute(
        "SELECT encode(hash, 'hex') FROM pgctx.events WHERE conversation_id = %s AND seq = 3", (cid,)).fetchone()[0])
    assert (resumed.ok, resumed.checked) == (True, 4)
    digest = pgctx.take_digest(node)
    (anchored,) = pgctx.verify_against_digest(node, digest, conversation_ids=[cid])
    assert anchored.ok and anchored.reason == "consistent, anchored at seq 7"


def test_tampering_on_the_shard_is_found_at_its_seq(citus, node):
    cid = new_id("tamper")
    pgctx.append_many(node, cid, ORDER_STORY)
    port = shard_node(node, cid)
    (worker,) = [w for w in citus.workers if w.settings["port"] == port]
    shard = node.execute("SELECT shard_name('pgctx.events', get_shard_id_for_distribution_column('pgctx.events', %s::text))",
                         (cid,)).fetchone()[0]
    guard = f"events_refuse_change_{shard.rsplit('_', 1)[1]}"  # (a shard's triggers carry its id)
    # a superuser on the worker, past the guard trigger of the shard itself
    with psycopg.connect(Cluster.dsn(worker, DATABASE), autocommit=True) as attacker:
        attacker.execute("SET citus.enable_manual_changes_to_shards = on")
        with attacker.transaction():
            attacker.execute(f"ALTER TABLE {shard} DISABLE TRIGGER {guard}")
            attacker.execute(f"UPDATE {shard} SET payload = jsonb_set(payload, '{{text}}', '\"refund all\"')"
                             " WHERE conversation_id = %s AND seq = 5", (cid,))
            attacker.execute(f"ALTER TABLE {shard} ENABLE ALWAYS TRIGGER {guard}")
    report = pgctx.verify(node, cid)
    assert (report.ok, report.first_bad_seq) == (False, 5)
    assert report.reason == "hash of seq 5 does not match its content, kind, position or conversation"


def test_tool_calls_and_recover_of_one_conversation(node):
    cid = new_id("calls")
    pgctx.append_many(node, cid, ORDER_STORY[:3])
    calls = node.execute("SELECT call_id, status, request_id FROM pgctx.tool_calls(%s)", (cid,)).fetchall()
    assert calls == [("c1", "succeeded", "r1")]
    report = pgctx.recover(node, cid, full_check=True)
    assert report["chain"]["ok"] and report["chain"]["from_genesis"] and report["unknown_side_effects"] == []


def test_build_context_before_a_fold(node):
    cid = new_id("context")
    pgctx.append_many(node, cid, ORDER_STORY)
    context = pgctx.build_context(node, cid)
    assert (context.version, context.cursor) == (0, 0)
    assert [seq for seq, _kind, _payload in context.events] == [1, 2, 3, 4, 5]


def fold_everything(conn, cid: str) -> int:
    """prepare_fold and commit_fold of everything unfolded, the built-in summarizer's summary."""
    request = fold_request(conn, cid)
    head = pgctx.committed_fold(conn, cid)
    version = pgctx.prepare_fold(conn, cid, expected_version=head.version, expected_cursor=head.cursor,
                                 new_cursor=request.to_seq, summary=BuiltinSummarizer().summarize(request), tokens=0)
    return pgctx.commit_fold(conn, cid, version)


def test_fold_context_recover_and_reconcile(node):
    cid = new_id("fold")
    pgctx.append_many(node, cid, ORDER_STORY)
    folded = pgctx.fold(node, cid, force=True)
    assert folded.committed and (folded.version, folded.cursor) == (1, 5), folded
    context = pgctx.build_context(node, cid)
    assert context.version == 1 and context.messages
    pgctx.recover(node, cid)
    again = pgctx.recover(node, cid)  # idempotent: a second run finds nothing to do
    assert again["changed"] is False and again["actions"] == [], again
    # a call interrupted by a restart is unknown, and reconcile asks the service once
    pgctx.append(node, cid, "tool_call", {"tool": "refund", "call_id": "c2", "effect": "irreversible",
                                         "arguments": {"order_id": "10086"}, "idempotency_key": "k2"})
    report = pgctx.recover(node, cid)
    assert [c["call_id"] for c in report["unknown_side_effects"]] == ["c2"], report
    asked = []
    resolutions = pgctx.reconcile(node, cid, lambda call: asked.append(call.call_id) or {"outcome": "succeeded"})
    assert asked == ["c2"] and [r.outcome for r in resolutions] == ["succeeded"]
    assert pgctx.verify(node, cid).ok


def test_prepare_and_commit_fold(node):
    cid = new_id("prepared")
    pgctx.append_many(node, cid, ORDER_STORY[:4])
    assert fold_everything(node, cid) == 4
    assert pgctx.committed_fold(node, cid).version == 1
    history = node.execute("SELECT version, phase, range_from, range_to, is_committed_fold FROM pgctx.fold_history"
                           " WHERE conversation_id = %s", (cid,)).fetchall()
    assert history == [(1, "COMMITTED", 1, 4, True)]


def test_branches_fork_confirm_and_abandon(node):
    source, branch, other = new_id("order"), new_id("order-b"), new_id("order-c")
    pgctx.append_many(node, source, ORDER_STORY[:4])
    assert fold_everything(node, source) == 4
    assert pgctx.fork_conversation(node, source, 4, branch) == branch
    pgctx.fork_conversation(node, source, 4, other)
    assert pgctx.append(node, branch, "user", {"text": "plan b"}) == 5
    assert pgctx.verify(node, branch).ok and pgctx.committed_fold(node, branch).cursor == 4
    family = dict(node.execute("SELECT conversation_id, branch_status FROM pgctx.branches WHERE family = %s",
                               (source,)).fetchall())
    assert set(family) == {source, branch, other}
    decision = pgctx.confirm_mainline(node, branch)
    assert decision == {"mainline": branch, "abandoned": sorted([source, other]), "changed": True}
    with pytest.raises(errors.BranchAbandoned):
        pgctx.append(node, source, "user", {"text": "on the abandoned source"})
    assert pgctx.confirm_mainline(node, branch)["changed"] is False


def test_erase_keeps_the_chain_verifying(node):
    cid = new_id("erase")
    pgctx.append_many(node, cid, ORDER_STORY)
    erased = pgctx.erase(node, cid, seqs=[1, 2], reason="cluster test")
    assert erased["erased"] == 2
    report = pgctx.verify(node, cid)
    assert report.ok and report.erased == 2, report
    assert node.execute("SELECT payload FROM pgctx.events WHERE conversation_id = %s AND seq = 1", (cid,)).fetchone() \
        == ({"pgctx_erased": erased["erasure_seq"]},)
    # the erased call keeps the ledger's ids (bound by the erasure's kept_digest, which verify_chain
    # recomputes on the shard) and stays in side_effects
    assert node.execute("SELECT payload FROM pgctx.events WHERE conversation_id = %s AND seq = 2", (cid,)).fetchone() \
        == ({"pgctx_erased": erased["erasure_seq"], "call_id": "c1", "tool": "lookup_order", "effect": "read",
             "idempotency_key": "k1"},)
    # (over every row: filtered to one conversation by a constant, Citus routes the view to the
    # shard and fails, docs/scaling.md)
    effects = node.execute("SELECT conversation_id, call_id, status, content_erased, erased_seqs"
                           " FROM pgctx.side_effects").fetchall()
    assert [row[1:] for row in effects if row[0] == cid] == [("c1", "succeeded", True, [2])]


def ids_on_two_workers(conn, prefix: str) -> tuple[str, str]:
    """A source id and a branch id whose shards are on different workers."""
    source = new_id(prefix)
    while shard_node(conn, branch := new_id(f"{prefix}-b")) == shard_node(conn, source):
        pass
    return source, branch


def test_a_branch_whose_source_is_on_another_worker(node):
    """The branch's history is stored in two parts on two workers: a call made on the source
    before the fork and answered on the branch is one call of the branch (tool_calls, pinned
    evidence, recover, reconcile, fold, conversation_status)."""
    source, branch = ids_on_two_workers(node, "cross")
    pgctx.append_many(node, source, [*ORDER_STORY[:2], {"kind": "assistant", "payload": {"text": "checking"}}])
    assert fold_everything(node, source) == 3  # lookup_order's call folded while it waits
    pgctx.fork_conversation(node, source, 3, branch)
    pgctx.append_many(node, branch, [ORDER_STORY[2], {"kind": "tool_call", "payload": {
        "tool": "refund", "call_id": "c2", "effect": "irreversible", "arguments": {"order_id": "10086"},
        "idempotency_key": "k2"}}])
    calls = node.execute("SELECT call_id, call_seq, result_seq, status FROM pgctx.tool_calls(%s)", (branch,)).fetchall()
    assert calls == [("c1", 2, 4, "succeeded"), ("c2", 5, None, "running")]
    context = pgctx.build_context(node, branch)  # the call of the result at seq 4, stored on the source
    assert (context.version, context.cursor) == (0, 3)  # (the source's fold: the branch has none yet)
    assert [seq for seq, _why in context.evidence] == [2], context.evidence
    report = pgctx.recover(node, branch)
    assert [c["call_id"] for c in report["unknown_side_effects"]] == ["c2"], report
    status = dict(node.execute("SELECT conversation_id, unknown_side_effects FROM pgctx.conversation_status").fetchall())
    assert (status[source], status[branch]) == (0, 1)
    effects = node.execute("SELECT conversation_id, call_id, status FROM pgctx.side_effects").fetchall()
    assert (branch, "c2", "unknown") in effects
    resolutions = pgctx.reconcile(node, branch, lambda call: {"outcome": "not_performed"})
    assert [(r.call_id, r.outcome) for r in resolutions] == [("c2", "not_performed")]
    pgctx.append(node, branch, "assistant", pasted("the refund was not made; the carrier's statement follows"))
    folded = pgctx.fold(node, branch, force=True)  # its checks read the source's part on the other worker
    assert folded.committed, folded
    assert pgctx.verify(node, branch).ok and pgctx.recover(node, branch)["chain"]["ok"]


def test_prune_and_erase_of_a_folded_source_with_a_branch_on_another_worker(node):
    source, branch = ids_on_two_workers(node, "kept")
    for i in range(3):  # versions 1, 2, 3 of the source, at seqs 2, 4, 6
        pgctx.append_many(node, source, [{"kind": "user", "payload": {"text": f"step {i}"}},
                                         {"kind": "assistant", "payload": {"text": f"done {i}"}}])
        fold_everything(node, source)
        if i == 1:
            pgctx.fork_conversation(node, source, 4, branch)  # continues from version 2
            pgctx.append(node, branch, "user", {"text": "plan b"})
    # version 1 goes; version 2 stays for the branch, version 3 is the committed fold
    assert node.execute("SELECT pgctx.prune_checkpoints(%s, 1)", (source,)).fetchone() == (1,)
    assert node.execute("SELECT version FROM pgctx.checkpoints WHERE conversation_id = %s ORDER BY 1",
                        (source,)).fetchall() == [(2,), (3,)]
    erased = pgctx.erase(node, source, seqs=[1], reason="cluster test")  # every fold of both holds seq 1
    assert erased["checkpoints_removed"] == {source: [2, 3]}
    assert node.execute("SELECT count(*) FROM pgctx.checkpoints WHERE conversation_id = ANY (%s)",
                        ([source, branch],)).fetchone() == (0,)
    assert pgctx.committed_fold(node, branch).version == 0
    assert pgctx.verify(node, source).ok and pgctx.verify(node, branch).ok


def test_the_langgraph_saver_on_the_cluster(node):
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph import START, MessagesState, StateGraph

    from pgctx.integrations.langgraph import PgctxSaver

    def reply(state: MessagesState):
        return {"messages": [AIMessage(f"reply {len(state['messages'])}", id=f"ai-{len(state['messages'])}")]}

    thread = new_id("graph")
    saver = PgctxSaver(node)
    graph = StateGraph(MessagesState).add_node("reply", reply).add_edge(START, "reply").compile(checkpointer=saver)
    config = {"configurable": {"thread_id": thread}}
    graph.invoke({"messages": [HumanMessage("where is order 10086?", id="u1")]}, config)
    graph.invoke({"messages": [HumanMessage("and 10087?", id="u2")]}, config)
    latest = saver.get_tuple(config)
    assert [m.content for m in latest.checkpoint["channel_values"]["messages"]] == \
        ["where is order 10086?", "reply 1", "and 10087?", "reply 3"]
    listed = list(saver.list(config))
    assert listed[0].config == latest.config and len(listed) == 6
    fresh = PgctxSaver(node)  # nothing cached: everything read from the cluster
    assert fresh.get_tuple(config).checkpoint == latest.checkpoint
    assert [t.checkpoint for t in fresh.list(config, limit=2)] == [t.checkpoint for t in listed[:2]]
    assert thread in {t.config["configurable"]["thread_id"] for t in fresh.list(None, filter={"source": "input"})}
    fresh.delete_thread(thread)
    assert fresh.get_tuple(config) is None and PgctxSaver(node).get_tuple(config) is None
    assert pgctx.verify(node, thread).ok


def test_conversation_status_and_side_effects_over_every_conversation(citus):
    """Over every conversation of the database, branches of this file's other tests (sources on
    the other worker) included."""
    for server in (citus.coordinator, citus.workers[0]):
        with psycopg.connect(Cluster.dsn(server, DATABASE), autocommit=True) as conn:
            cid = new_id("status")
            pgctx.append_many(conn, cid, ORDER_STORY[:2])  # lookup_order's call, never answered
            pgctx.recover(conn, cid)  # which makes it unknown
            for i in range(8):
                pgctx.append(conn, new_id("other"), "user", {"text": f"hello {i}"})
            status = {row[0]: row[1:] for row in conn.execute(
                "SELECT conversation_id, head_seq, unknown_side_effects FROM pgctx.conversation_status").fetchall()}
            assert status[cid] == (3, 1) and len(status) >= 9
            effects = conn.execute("SELECT conversation_id, call_id, status FROM pgctx.side_effects").fetchall()
            assert (cid, "c1", "unknown") in effects
            done = pgctx_cli("status", "--dsn", Cluster.dsn(server, DATABASE))
            assert done.returncode == 0 and cid in done.stdout, done.stderr


@pytest.mark.parametrize("view", ["chain_heads", "chain_health"])
def test_dba_views_across_shards(node, view):
    ids = [new_id("view") for _ in range(4)]
    for cid in ids:
        pgctx.append(node, cid, "user", {"text": "hello"})
    seen = {row[0] for row in node.execute(f"SELECT conversation_id FROM pgctx.{view}").fetchall()}
    assert set(ids) <= seen


def test_upgrading_a_distributed_database_of_the_previous_release(citus):
    """0011 installed, distributed and written to; then pgctx migrate to head, in one transaction
    per revision on the coordinator, and pgctx distribute again (migrate does it)."""
    from tests.test_migrations import RELEASE_EVENTS, install_release

    name = f"pgctx_upgrade_{os.getpid()}"
    citus.create_database(name)
    dsn = Cluster.dsn(citus.coordinator, name)
    install_release(dsn, "5292534", "0011")
    with psycopg.connect(dsn, autocommit=True) as conn:
        pgctx.distribute(conn)
        pgctx.append_many(conn, "upgraded", RELEASE_EVENTS)
    pgctx.migrate(dsn)
    with psycopg.connect(dsn, autocommit=True) as conn:
        newest = max(p.name[:4] for p in (Path(__file__).parents[1] / "migrations" / "versions").glob("0*.py"))
        assert conn.execute("SELECT version_num FROM pgctx.alembic_version").fetchone() == (newest,)
        assert pgctx.distribute(conn) == []  # migrate distributed what it created
        pgctx.append_many(conn, "upgraded", ORDER_STORY)
        assert pgctx.fold(conn, "upgraded", force=True).committed
        assert pgctx.verify(conn, "upgraded").ok and pgctx.build_context(conn, "upgraded").version == 1


@pytest.fixture(params=["coordinator", "worker"])
def routed_dsn(request, citus: Cluster):
    """A DSN on which every statement that Citus would run on more than one shard fails: with
    citus.multi_task_query_log_level = error, a multi-task query is an error, also inside a
    function and in a function delegated to a worker (EXPLAIN would show only the top statement,
    and fold() and build_context are function calls whose routed statements are inside)."""
    server = citus.coordinator if request.param == "coordinator" else citus.workers[0]
    return Cluster.dsn(server, DATABASE, options="-c citus.multi_task_query_log_level=error")


def test_every_statement_of_a_turn_is_routed_to_one_shard(routed_dsn):
    with psycopg.connect(routed_dsn, autocommit=True) as conn:
        with pytest.raises(psycopg.Error, match="multi-task query"):  # the setting bites
            conn.execute("SELECT count(*) FROM pgctx.events").fetchone()
        cid = new_id("routed")
        pgctx.append(conn, cid, "user", pasted("where is order 10086?"))
        pgctx.append_many(conn, cid, ORDER_STORY[1:])
        conn.execute("INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES (%s, 'user', '{}')", (cid,))
        assert pgctx.fold(conn, cid).reason  # the policy's verdict, whatever it is
        assert pgctx.fold(conn, cid, force=True).committed
        assert pgctx.build_context(conn, cid).version == 1
        assert pgctx.verify(conn, cid).ok
        assert pgctx.recover(conn, cid)["chain"]["ok"]
        pgctx.append(conn, cid, "tool_call", {"tool": "refund", "call_id": "c9", "effect": "irreversible",
                                             "arguments": {"order_id": "10086"}, "idempotency_key": "k9"})
        pgctx.recover(conn, cid)
        assert [r.outcome for r in pgctx.reconcile(conn, cid, lambda call: {"outcome": "not_performed"})] \
            == ["not_performed"]
        assert fold_everything(conn, cid) > 6


def test_the_sessions_turn_is_routed_to_one_shard(routed_dsn):
    from pgctx.integrations.openai_agents import PgctxSession

    async def turn():
        async with await PgctxSession.from_dsn(new_id("session"), routed_dsn) as session:
            await session.add_items([{"role": "user", "content": "where is order 10086?"},
                                     {"role": "assistant", "content": "It has shipped."}])
            await session.wait_for_folds()
            items = [item["content"] for item in await session.get_items()]
            popped = await session.pop_item()
            return items, popped["content"]

    assert asyncio.run(turn()) == (["where is order 10086?", "It has shipped."], "It has shipped.")


def test_the_demo_on_the_coordinator(citus):
    """pgctx demo --dsn COORDINATOR: appends, folds, the working context, reconcile, a folder dying
    between prepare and commit, recovery, tamper evidence; every check must pass."""
    done = pgctx_cli("demo", "--dsn", Cluster.dsn(citus.coordinator, DATABASE))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.rstrip().endswith("every check passed")


@pytest.mark.parametrize("victim", ["worker", "coordinator"])
def test_a_node_killed_mid_appends_loses_no_acknowledged_event(citus, victim):
    """A worker SIGKILLed (tests' EmbeddedPostgres.crash: the postmaster and every backend) while
    clients append to conversations on both workers through the coordinator: appends to the other
    worker's conversations go on while it is down; after its restart every acknowledged event is
    there at its seq, no seq is missing, every chain verifies. Then the coordinator, with the
    clients on a worker (Citus syncs its metadata there): appends go on without it."""
    entry = citus.coordinator if victim == "worker" else citus.workers[1]
    dead = citus.workers[0] if victim == "worker" else citus.coordinator
    with psycopg.connect(Cluster.dsn(citus.coordinator, DATABASE), autocommit=True) as conn:
        by_port: dict[int, list[str]] = {w.settings["port"]: [] for w in citus.workers}
        while min(len(ids) for ids in by_port.values()) < 2:
            cid = new_id(f"crash-{victim}")
            if len(by_port[port := shard_node(conn, cid)]) < 2:
                by_port[port].append(cid)
    cids = [cid for ids in by_port.values() for cid in ids]
    acked: dict[str, list[tuple[int, str, float]]] = {cid: [] for cid in cids}
    stop = threading.Event()

    def appender(cid: str) -> None:
        n, conn = 0, None
        while not stop.is_set():
            try:
                if conn is None or conn.closed or conn.broken:
                    conn = psycopg.connect(Cluster.dsn(entry, DATABASE, connect_timeout=2), autocommit=True)
                key = f"{cid}:{n}"
                seq = pgctx.append(conn, cid, "user", {"text": f"turn {n}"}, event_key=key)  # a retry returns it
                acked[cid].append((seq, key, time.monotonic()))
                n += 1
            except psycopg.Error:
                time.sleep(0.05)  # refused, reset or unreachable: the same key again
        if conn is not None:
            conn.close()

    threads = [threading.Thread(target=appender, args=(cid,)) for cid in cids]
    for thread in threads:
        thread.start()
    try:
        time.sleep(1.5)
        dead.crash()
        down_at = time.monotonic()
        time.sleep(2.0)
        up_at = time.monotonic()
    finally:
        if dead.child_process is None:
            dead.restart()
    time.sleep(1.5)
    stop.set()
    for thread in threads:
        thread.join(30)

    survivors = by_port[citus.workers[1].settings["port"]] if victim == "worker" else cids
    for cid in cids:  # appends went on while the node was down, but to the dead worker's shards
        went_on = any(down_at + 0.5 < t < up_at for _, _, t in acked[cid])
        assert went_on == (cid in survivors), (cid, victim, went_on)
    with psycopg.connect(Cluster.dsn(citus.coordinator, DATABASE), autocommit=True) as conn:
        for cid in cids:
            stored = conn.execute("SELECT seq, event_key FROM pgctx.events WHERE conversation_id = %s ORDER BY seq",
                                  (cid,)).fetchall()
            assert [seq for seq, _ in stored] == list(range(1, len(stored) + 1)), cid  # no gap
            assert {(seq, key) for seq, key, _ in acked[cid]} <= set(stored), cid  # every ack, as acked
            assert acked[cid] and pgctx.verify(conn, cid).ok, cid
