"""The `pgctx` command line, run as a real process."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

import pgctx
from tests.conftest import drop_database, new_database
from tests.events import LOG


def pgctx_cli(*args: str, input_: str | None = None, env_dsn: str | None = None,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", **(env or {})}
    if env_dsn:
        env["PGCTX_DSN"] = env_dsn
    return subprocess.run(
        [sys.executable, "-m", "pgctx.cli", *args], capture_output=True, text=True, input=input_, env=env, timeout=120
    )


@pytest.fixture
def story(conn):
    pgctx.append_many(conn, "order-10086", [{"kind": "user", "payload": {"text": "把订单 10086 改成明天送达", "i": i}} for i in range(5)])
    pgctx.append(conn, "other", "user", {"text": "hello"})
    return conn


def test_demo_tells_the_story_on_a_throwaway_server():
    done = pgctx_cli("demo")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "seq 5 returned, nothing written" in out
    assert "call-2 refund_fee             irreversible unknown" in out  # the timeout
    assert "retry allowed: False" in out  # reconciled by asking, not retried
    assert "trigger [risk] irreversible side effect: refund_fee" in out
    assert "the address fact: [('9 New Road', '12 Old Street')]" in out  # the correction replaced it
    shrink = int(out.split(" tokens (")[1].split("x smaller")[0])
    assert shrink >= 20, out  # the long stretch folds into a much smaller working context...
    for kept in ("the date the write confirmed", "the user's request to call first", "the authorization scope",
                 "the refund's unknown outcome", "the refund's call and timeout, raw"):
        assert f"kept: {kept}" in out  # ...that still holds what the next decision needs
    assert "recover again: changed=False" in out
    assert "first bad seq 4" in out  # the edit is caught
    assert out.rstrip().endswith("every check passed")


def test_demo_on_an_existing_database(dsn):
    done = pgctx_cli("demo", "--dsn", dsn)
    assert done.returncode == 0, done.stderr
    with psycopg.connect(dsn) as conn:
        # 13 scripted events, 80 tracking turns of 4, the service's answer, two more events
        # (recovery appends none: no call was left running)
        assert conn.execute("SELECT count(*) FROM pgctx.events").fetchone()[0] == 13 + 320 + 1 + 2
        assert conn.execute("SELECT count(*) FROM pgctx.checkpoints WHERE phase = 'COMMITTED'").fetchone()[0] == 2


def test_the_demo_on_a_shared_server_changes_nothing_but_its_conversation_and_waits_on_no_one(dsn):
    """The demo on a server other services use: its tamper evidence edits an exported copy, so every
    chain still verifies afterwards; and it takes no lock another writer holds against it. A
    service's append to its own conversation stays uncommitted for the whole run, and the demo runs
    with lock_timeout = 5 s, so any table lock (ALTER TABLE of the events table) fails it."""
    with psycopg.connect(dsn, autocommit=True) as setup:
        pgctx.migrate(setup)
    with psycopg.connect(dsn) as service:
        service.execute("INSERT INTO pgctx.events (conversation_id, kind, payload)"  # not committed
                        " VALUES ('service-conversation', 'user', '{\"text\": \"mid-transaction\"}')")
        done = pgctx_cli("demo", "--dsn", dsn, env={"PGOPTIONS": "-c lock_timeout=5000"})
        service.commit()
    assert done.returncode == 0, done.stderr
    assert "the exported copy edited at seq 4 (order 10086 -> 10087): ok=False first bad seq 4" in done.stdout
    verified = pgctx_cli("verify", "--dsn", dsn)
    assert verified.returncode == 0 and "2 consistent, 0 failed" in verified.stdout, verified.stdout


def test_recover_on_an_edited_database_says_what_it_checked_and_keeps_a_found_break(dsn):
    """The DBA's walk through the issue: a superuser edits seq 4 of the demo's conversation after
    recovery last verified it."""
    assert pgctx_cli("demo", "--dsn", dsn).returncode == 0
    with psycopg.connect(dsn) as conn:
        conn.execute("ALTER TABLE pgctx.events DISABLE TRIGGER USER")
        conn.execute("UPDATE pgctx.events SET payload = jsonb_set(payload, '{arguments,order_id}', '\"10087\"')"
                     " WHERE seq = 4")
        conn.execute("ALTER TABLE pgctx.events ENABLE TRIGGER USER")
    assert pgctx_cli("verify", "--dsn", dsn).returncode == 1

    resumed = pgctx_cli("recover", "--dsn", dsn)  # sees only what is new, and says so
    assert resumed.returncode == 0, resumed.stderr
    assert "0 verified from genesis" in resumed.stderr and "pgctx recover --full" in resumed.stderr
    assert all(json.loads(line)["chain"]["from_genesis"] is False for line in resumed.stdout.splitlines())

    full = pgctx_cli("recover", "--dsn", dsn, "--full")
    assert full.returncode == 1 and "1 need a human" in full.stderr
    status = pgctx_cli("status", "--dsn", dsn)  # the chain's health beside each conversation
    assert status.returncode == 0 and "BROKEN at seq 4: see pgctx recover" in status.stdout, status.stdout
    for again in (pgctx_cli("recover", "--dsn", dsn), pgctx_cli("recover", "--dsn", dsn, "--full")):
        assert again.returncode == 1 and "1 need a human" in again.stderr, again.stderr
        (broken,) = [r for r in map(json.loads, again.stdout.splitlines()) if r["needs_human"]]
        assert broken["chain"]["first_bad_seq"] == 4 and "restore the original rows" in broken["needs_human"][0]


def test_verify_status_digest_export_round_trip(story, dsn, tmp_path):
    assert pgctx_cli("migrate", env_dsn=dsn).returncode == 0
    status = pgctx_cli("status", "--dsn", dsn)
    assert "order-10086" in status.stdout and "2 conversation(s)" in status.stdout
    recovered = pgctx_cli("recover", "--dsn", dsn, "--conversation", "order-10086")
    assert recovered.returncode == 0 and json.loads(recovered.stdout)["chain"]["ok"] is True
    assert "0 need a human" in recovered.stderr

    verified = pgctx_cli("verify", env_dsn=dsn)
    assert verified.returncode == 0 and "2 consistent, 0 failed" in verified.stdout

    digest = pgctx_cli("digest", "--dsn", dsn)
    (tmp_path / "digest.json").write_text(digest.stdout)
    heads = {c["conversation_id"]: c["head_seq"] for c in json.loads(digest.stdout)["conversations"]}
    assert heads == {"order-10086": 5, "other": 1}

    bundle = pgctx_cli("export", "--dsn", dsn, "--conversation", "order-10086")
    (tmp_path / "bundle.jsonl").write_text(bundle.stdout, encoding="utf-8")
    offline = pgctx_cli("verify-bundle", str(tmp_path / "bundle.jsonl"), "--against", str(tmp_path / "digest.json"))
    assert offline.returncode == 0 and "consistent, anchored at seq 5" in offline.stdout

    anchored = pgctx_cli("verify", "--dsn", dsn, "--against", str(tmp_path / "digest.json"))
    assert anchored.returncode == 0 and "anchored at seq 5" in anchored.stdout

    # a superuser rewrites a payload and recomputes every hash: only the digest notices
    story.execute("ALTER TABLE pgctx.events DISABLE TRIGGER USER")
    story.execute("ALTER TABLE pgctx.conversations DISABLE TRIGGER USER")
    story.execute(
        "UPDATE pgctx.events SET payload = '{\"text\": \"rewritten\"}' WHERE conversation_id = 'order-10086' AND seq = 5"
    )
    story.execute(
        "UPDATE pgctx.events SET payload_digest = pgctx.payload_digest(salt, payload::text),"
        " hash = pgctx.event_hash_v2(conversation_id, seq, kind, prev_hash, pgctx.payload_digest(salt, payload::text))"
        " WHERE conversation_id = 'order-10086' AND seq = 5"
    )
    story.execute(
        "UPDATE pgctx.conversations c SET head_hash = e.hash FROM pgctx.events e"
        " WHERE e.conversation_id = c.conversation_id AND e.seq = c.head_seq AND c.conversation_id = 'order-10086'"
    )
    assert pgctx_cli("verify", "--dsn", dsn).returncode == 0  # consistent, unanchored
    rewritten = pgctx_cli("verify", "--dsn", dsn, "--against", str(tmp_path / "digest.json"))
    assert rewritten.returncode == 1
    assert "history rewritten" in rewritten.stdout and "1 failed" in rewritten.stdout

    # an edit that left the stored hashes alone: recovery from genesis finds it and asks for a human
    story.execute("UPDATE pgctx.events SET payload = '{\"text\": \"edited\"}' WHERE conversation_id = 'other'")
    broken = pgctx_cli("recover", "--dsn", dsn, "--full")
    assert broken.returncode == 1 and "1 need a human" in broken.stderr


def test_verify_bundle_reports_a_tampered_file(story, dsn, tmp_path):
    bundle = pgctx_cli("export", "--dsn", dsn, "--conversation", "order-10086").stdout
    lines = bundle.splitlines(keepends=True)
    lines[3] = lines[3].replace('"i": 2', '"i": 7')
    (tmp_path / "b.jsonl").write_text("".join(lines), encoding="utf-8")
    done = pgctx_cli("verify-bundle", str(tmp_path / "b.jsonl"))
    assert done.returncode == 1 and "first bad seq 3" in done.stdout


def test_errors_exit_2_with_the_code(dsn):
    done = pgctx_cli("export", "--dsn", dsn, "--conversation", "missing")
    assert done.returncode == 2 and "PC014" in done.stderr
    unreachable = pgctx_cli("status", "--dsn", "host=127.0.0.1 port=1 connect_timeout=2")
    assert unreachable.returncode == 2 and "cannot reach the database" in unreachable.stderr
    assert pgctx_cli("status").returncode != 0  # no DSN anywhere


def test_fold_and_context_commands(dsn):
    with psycopg.connect(dsn, autocommit=True) as conn:
        pgctx.append(conn, "c", "user", {"text": "把订单 10086 改成明天送达"})
        pgctx.append(conn, "c", "tool_call", {"tool": "update_delivery_date", "call_id": "call-1", "effect": "write",
                                              "idempotency_key": "k-1", "arguments": {"order_id": "10086"}})
        pgctx.append(conn, "c", "tool_result", {"call_id": "call-1", "outcome": "succeeded", "request_id": "req-1",
                                                "log": LOG})
        pgctx.append(conn, "c", "tool_call", {"tool": "lookup", "call_id": "call-2", "effect": "read",
                                              "arguments": {"order_id": "10086"}})
    waiting = pgctx_cli("fold", "--dsn", dsn, "--conversation", "c", "--summarizer", "builtin")
    assert waiting.returncode == 0, waiting.stderr
    assert waiting.stdout.startswith("not folded: not due")  # a call is in flight: no chain completed
    folded = pgctx_cli("fold", "--dsn", dsn, "--conversation", "c", "--summarizer", "builtin", "--force")
    assert folded.returncode == 0, folded.stderr
    # the waiting call (seq 4) is folded too: the summary tracks it, the context keeps it raw
    assert folded.stdout.startswith("committed: committed; version 0 -> 1, cursor 0 -> 4")

    shown = pgctx_cli("context", "--dsn", dsn, "--conversation", "c", "--message", "hi", "--format", "responses")
    assert shown.returncode == 0, shown.stderr
    items = json.loads(shown.stdout)
    assert items[0]["content"].startswith("Task: ")  # no --system: the task state comes first
    assert [i.get("type") for i in items[-3:]] == ["function_call", "function_call_output", None]
    assert items[-1] == {"role": "user", "content": "hi"}
    assert "fold v1 at cursor 4" in shown.stderr

    tight = pgctx_cli("context", "--dsn", dsn, "--conversation", "c", "--window", "6100", "--output", "6000",
                      "--margin", "0", "--fixed-input", "0")
    assert tight.returncode == 2
    assert "over the limit 100" in tight.stderr and "[ContextOverBudget]" in tight.stderr

    no_room = pgctx_cli("fold", "--dsn", dsn, "--conversation", "c", "--window", "100", "--output", "100")
    assert no_room.returncode == 2 and "no room for history" in no_room.stderr
    assert "the smallest window is 113" in no_room.stderr  # output 100 + fixed input 6 + margin 6, scaled


@pytest.fixture
def unmigrated_dsn(server_dsn):
    name = new_database(server_dsn)
    yield make_conninfo(server_dsn, dbname=name)
    drop_database(server_dsn, name)


def _one_line_and_exit_2(done: subprocess.CompletedProcess, says: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and done.stderr.startswith(f"pgctx: {says}"), done.stderr


@pytest.mark.parametrize("command", [["status"], ["verify"], ["recover"], ["digest"], ["fold", "--conversation", "x"],
                                     ["context", "--conversation", "x"], ["export", "--conversation", "x"]])
def test_a_database_never_migrated_says_to_migrate(unmigrated_dsn, command):
    done = pgctx_cli(*command, "--dsn", unmigrated_dsn)
    _one_line_and_exit_2(done, "this database has no pgctx schema")
    assert "run `pgctx migrate`" in done.stderr


def test_expected_failures_print_one_line_and_exit_2(dsn, tmp_path):
    _one_line_and_exit_2(pgctx_cli("status", "--dsn", "not a dsn"), "the connection string does not parse")
    _one_line_and_exit_2(pgctx_cli("status", "--dsn", dsn + " nosuchoption=1"), "the connection string does not parse")
    _one_line_and_exit_2(pgctx_cli("migrate", "--dsn", "host=127.0.0.1 port=1 user=nobody connect_timeout=3"),
                         "cannot reach the database")
    _one_line_and_exit_2(pgctx_cli("verify-bundle", str(tmp_path / "missing.jsonl")),
                         f"cannot read {tmp_path / 'missing.jsonl'}")
    _one_line_and_exit_2(pgctx_cli("verify", "--dsn", dsn, "--against", str(tmp_path / "missing.json")),
                         f"cannot read {tmp_path / 'missing.json'}")


def test_with_no_dsn_the_cli_uses_libpqs_environment(story, dsn):
    params = conninfo_to_dict(dsn)
    env = {"PGHOST": params["host"], "PGPORT": str(params["port"]), "PGUSER": params["user"],
           "PGDATABASE": params["dbname"]}
    done = pgctx_cli("status", env=env)
    assert done.returncode == 0 and "2 conversation(s)" in done.stdout, done.stderr


def test_a_reader_that_closes_the_pipe_early_ends_the_command_quietly(story, dsn):
    # more than a pipe holds (64 KiB), so the command is still writing when the reader leaves
    pgctx.append_many(story, "order-10086", [{"kind": "user", "payload": {"text": f"line {i} " + "x" * 2_000}}
                                             for i in range(60)])
    cli = subprocess.Popen([sys.executable, "-m", "pgctx.cli", "context", "--dsn", dsn, "--conversation", "order-10086"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={"PATH": "/usr/bin:/bin"})
    cli.stdout.read(1)
    cli.stdout.close()  # as `| head -c 1` does
    assert cli.wait(timeout=60) == 0
    assert "Traceback" not in cli.stderr.read().decode()


def test_every_option_says_what_it_is():
    from pgctx.cli import parser

    def actions(p):
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from ((f"{name} {a}", h) for a, h in actions(sub))
            elif not isinstance(action, argparse._HelpAction):
                yield "/".join(action.option_strings) or action.dest, action.help

    assert [name for name, help_ in actions(parser()) if not help_] == []
