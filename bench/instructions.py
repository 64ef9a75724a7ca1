"""Instructions per single-event statement, counted by valgrind's callgrind: repeatable to the
instruction, so it settles what wall-clock runs on this noisy machine cannot.

    .venv/bin/python bench/instructions.py [--patch FILE ...]

Builds a throwaway cluster (pgctx.embedded), installs the schema, applies each --patch FILE (a
variant to measure, as bench/experiments/), creates the baseline table of bench_eventlog.py, stops
the server and runs `postgres --single` under callgrind on a script of single-event statements,
each its own transaction: plain INSERT into the baseline, INSERT INTO pgctx.events, SELECT
pgctx.append_event(), and 100-event batches (INSERT ... SELECT into the baseline,
pgctx.append_events()). Each path runs twice, the second time with 200 more events (400 on the
batch paths); the difference per extra event is the figure, so start-up and first-use costs
cancel out. Statements are parsed and planned each time (single-user mode has no prepared
statements), which the baseline pays too. Needs valgrind (Debian package valgrind).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import psycopg  # noqa: E402

import pgctx  # noqa: E402
from bench_eventlog import BASELINE_DDL, make_payloads  # noqa: E402
from pgctx.embedded import EmbeddedPostgres  # noqa: E402

COUNTS = (100, 300)   # statements per run; the figure is the difference over the extra ones
BATCH = 100           # events per statement on the batch paths


def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def batch_json(items) -> str:
    return quote("[" + ", ".join(f'{{"kind": "{kind}", "payload": {payload}}}' for kind, payload in items) + "]")


# name -> (events per statement, statement(first seq, [(kind, payload JSON)]))
PATHS = {
    "1 event: plain INSERT (baseline)": (1, lambda seq, items: (
        "INSERT INTO bench_plain (conversation_id, seq, kind, payload, prev_hash, hash)"
        f" VALUES ('c', {seq}, {quote(items[0][0])}, {quote(items[0][1])}::jsonb, '\\x00', '\\x00')")),
    "1 event: INSERT INTO pgctx.events": (1, lambda seq, items: (
        "INSERT INTO pgctx.events (conversation_id, kind, payload)"
        f" VALUES ('c', {quote(items[0][0])}, {quote(items[0][1])}::jsonb)")),
    "1 event: SELECT pgctx.append_event()": (1, lambda seq, items: (
        f"SELECT pgctx.append_event('c', {quote(items[0][0])}, {quote(items[0][1])}::jsonb)")),
    f"{BATCH} events: plain INSERT ... SELECT (baseline)": (BATCH, lambda seq, items: (
        "INSERT INTO bench_plain (conversation_id, seq, kind, payload, prev_hash, hash)"
        f" SELECT 'b', {seq - 1} + t.i, t.e->>'kind', t.e->'payload', '\\x00', '\\x00'"
        f"   FROM jsonb_array_elements({batch_json(items)}::jsonb) WITH ORDINALITY AS t(e, i)")),
    f"{BATCH} events: pgctx.append_events()": (BATCH, lambda seq, items: (
        f"SELECT count(*) FROM pgctx.append_events('b', {batch_json(items)}::jsonb)")),
}


def instructions(server: EmbeddedPostgres, work: Path, script: str, out_file: Path) -> int:
    """Instructions callgrind counts for one `postgres --single` run of ``script``."""
    script_file = work / "script.sql"
    script_file.write_text(script, encoding="utf-8")
    command = server._as_server_user([
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
        str(server.bindir / "postgres"), "--single", "-D", os.path.join(server.base_dir, "data"),
        "-c", "synchronous_commit=off", "postgres"])
    with script_file.open() as stdin:
        done = subprocess.run(command, stdin=stdin, capture_output=True, text=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or not found or "ERROR" in done.stdout:
        sys.exit(f"postgres --single under callgrind failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--patch", action="append", default=[], metavar="SQL_FILE", help="SQL applied after the migration")
    ap.add_argument("--keep", metavar="DIR", help="keep callgrind's profiles there (callgrind_annotate reads them)")
    args = ap.parse_args()
    payloads = make_payloads(sum(COUNTS))
    server = EmbeddedPostgres()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.chmod(work, 0o777)  # the server's OS user writes callgrind's output here
        try:
            if args.keep:
                Path(args.keep).mkdir(parents=True, exist_ok=True)
                os.chmod(args.keep, 0o777)
            dsn = server.superuser_dsn("postgres")
            pgctx.migrate(dsn)
            with psycopg.connect(dsn, autocommit=True) as conn:
                for patch in args.patch:
                    conn.execute(Path(patch).read_text(encoding="utf-8"))
                conn.execute(BASELINE_DDL)
                conn.execute("INSERT INTO pgctx.events (conversation_id, kind, payload) VALUES ('c', 'user', '{}')")
            os.kill(server.child_process.pid, signal.SIGINT)  # a clean shutdown; the data stays
            server.child_process.wait()
            per_event = {}
            for name, (size, statement) in PATHS.items():
                seq, totals = 1, []
                for n in COUNTS:
                    count = n if size == 1 else n // 50  # 2 and 6 batches: 400 events apart
                    lines = []
                    for _ in range(count):
                        lines.append(statement(seq, [payloads[(seq + j) % len(payloads)] for j in range(size)]))
                        seq += size
                    profile = Path(args.keep or work) / f"{re.sub(r'[^a-z0-9]+', '_', name.lower()).strip('_')}.{n}.out"
                    totals.append((instructions(server, work, "\n".join(lines) + "\n", profile), count * size))
                per_event[name] = (totals[1][0] - totals[0][0]) / (totals[1][1] - totals[0][1])
                print(f"{name:45s} {per_event[name] / 1000:8.1f}k instructions per event", flush=True)
        finally:
            server.stop()
    print("\n| path | k instructions per event | vs its baseline |\n|---|---:|---:|")
    for name, count in per_event.items():
        base = next(v for k, v in per_event.items() if k.split(":")[0] == name.split(":")[0] and "baseline" in k)
        print(f"| {name} | {count / 1000:.1f} | {count / base:.2f}x |")


if __name__ == "__main__":
    main()
