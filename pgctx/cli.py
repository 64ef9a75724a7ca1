"""The `pgctx` command line.

Exit codes: 0 everything checked out; 1 a verification found a problem (or recovery found something
a human must look at); 2 the command could not run (bad arguments, no database, a pgctx error).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

import psycopg
from psycopg.conninfo import conninfo_to_dict

import pgctx
from pgctx import demo
from pgctx.digest import anchors
from pgctx.eventlog import ChainReport
from pgctx.errors import PgctxError, translated

OK, FAILED, ERROR = 0, 1, 2


class CannotRun(Exception):
    """An expected failure of the command's input (exit 2, one line)."""


def _dsn(args: argparse.Namespace) -> str:
    """--dsn, else $PGCTX_DSN, else "" (libpq's environment: PGHOST, PGPORT, PGDATABASE, PGUSER,
    PGPASSWORD, PGSERVICE, ..., as psql reads it); refused here when it does not parse."""
    dsn = args.dsn or os.environ.get("PGCTX_DSN") or ""
    try:
        conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as exc:
        raise CannotRun(f"the connection string does not parse: {str(exc).strip()}") from None
    return dsn


def _print_report(report: ChainReport) -> None:
    state = "ok  " if report.ok else "FAIL"
    where = "" if report.ok else f" first bad seq {report.first_bad_seq}:"
    print(f"{state} {report.conversation_id}  checked {report.checked}, head seq {report.head_seq}.{where} {report.reason}")


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty() and total >= 20:
        sys.stderr.write(f"\rverified {done}/{total} conversations")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _load_digest(path: str) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def cmd_demo(args: argparse.Namespace) -> int:
    return OK if demo.run(args.dsn or os.environ.get("PGCTX_DSN")) else FAILED


def cmd_migrate(args: argparse.Namespace) -> int:
    print(pgctx.migrate(_dsn(args)))
    return OK


def cmd_status(args: argparse.Namespace) -> int:
    with psycopg.connect(_dsn(args)) as conn:
        rows = conn.execute(
            "SELECT conversation_id, coalesce(tenant::text, '(shared)'), head_seq, committed_version, committed_cursor,"
            " prepared_folds, unknown_side_effects, fallback_reason IS NOT NULL"
            " FROM pgctx.conversation_status ORDER BY conversation_id"
        ).fetchall()
        # the chain's health as recovery last saw it (pgctx.chain_health: a standing break first)
        health = {cid: (state, break_seq, verified_seq) for cid, state, break_seq, verified_seq in conn.execute(
            "SELECT conversation_id, state, break_seq, verified_seq FROM pgctx.chain_health").fetchall()}
    print(f"{'conversation':<32} {'tenant':<12} {'head':>7} {'fold v':>6} {'cursor':>7} {'prepared':>8} {'unknown':>7}"
          "  chain")
    for cid, tenant, head, version, cursor, prepared, unknown, fell_back in rows:
        state, break_seq, verified_seq = health.get(cid, ("never verified", None, None))
        chain = {"broken": f"BROKEN at seq {break_seq}: see pgctx recover",
                 "verified in part": f"verified up to seq {verified_seq}"}.get(state, state)
        flag = "  FELL BACK: see pgctx recover" if fell_back else ""
        print(f"{cid:<32} {tenant:<12} {head:>7} {version:>6} {cursor:>7} {prepared:>8} {unknown:>7}  {chain}{flag}")
    print(f"{len(rows)} conversation(s)")
    return OK


def cmd_recover(args: argparse.Namespace) -> int:
    with psycopg.connect(_dsn(args)) as conn:
        ids = args.conversation or [row[0] for row in conn.execute("SELECT conversation_id FROM pgctx.chain_heads ORDER BY 1")]
        reports = [pgctx.recover(conn, cid, full_check=args.full) for cid in ids]
    for report in reports:
        print(json.dumps(report, ensure_ascii=False, indent=1 if args.conversation else None))
    needs_human = sum(bool(r["needs_human"]) for r in reports)
    unknown = sum(len(r["unknown_side_effects"]) for r in reports)
    print(f"{len(reports)} recovered, {sum(r['changed'] for r in reports)} changed, "
          f"{unknown} unknown side effect(s) to query by idempotency key, {needs_human} need a human", file=sys.stderr)
    print(_what_was_verified([r["chain"] for r in reports]), file=sys.stderr)
    return FAILED if needs_human else OK


def _what_was_verified(chains: list[dict]) -> str:
    """Say what the chain checks covered: a resumed check vouches for the events since the last
    verified point only, so the age of the rest is part of the answer."""
    resumed = [c for c in chains if not c["from_genesis"]]
    said = f"chains: {len(chains) - len(resumed)} verified from genesis, {len(resumed)} from the last verified point"
    if resumed:
        dates = [c["verified_before"]["from_genesis_at"] for c in resumed]
        oldest = "never" if None in dates else f"last at {min(dates)[:19].replace('T', ' ')} UTC at the oldest"
        said += (f" ({sum(c['checked'] for c in resumed)} new event(s) checked); the events before those points"
                 f" were verified by earlier runs, from genesis {oldest}: `pgctx recover --full` verifies them again")
    return said


def cmd_verify(args: argparse.Namespace) -> int:
    with psycopg.connect(_dsn(args)) as conn:
        if args.against:
            reports = pgctx.verify_against_digest(
                conn, _load_digest(args.against), conversation_ids=args.conversation or None, progress=_progress
            )
        else:
            ids = args.conversation or [row[0] for row in conn.execute("SELECT conversation_id FROM pgctx.chain_heads ORDER BY 1")]
            reports = []
            for done, cid in enumerate(ids, start=1):
                reports.append(pgctx.verify(conn, cid, from_seq=args.from_seq, from_hash=args.from_hash))
                _progress(done, len(ids))
    for report in reports:
        _print_report(report)
    bad = sum(not r.ok for r in reports)
    print(f"{len(reports) - bad} consistent, {bad} failed" + ("" if args.against else " (unanchored: pass --against DIGEST to prove history against a superuser rewrite)"))
    return FAILED if bad else OK


def _budget(args: argparse.Namespace, answer_share: bool = False) -> pgctx.Budget:
    """The budget of the options; unset reservations scale with the window (pgctx.Budget), or with
    ``answer_share`` (pgctx eval) an eighth of it is kept for the output and nothing else."""
    kept = {name: getattr(args, name) for name in ("fixed_input", "output", "margin")}
    if answer_share:
        shares = {"fixed_input": 0, "output": args.window // 8, "margin": 0}
        kept = {name: shares[name] if value is None else value for name, value in kept.items()}
    return pgctx.Budget(window=args.window, reasoning=args.reasoning, alpha=args.alpha, model=args.model,
                        structural_floor=args.floor, raw_tail=args.tail, summary_share=args.summary_share,
                        evidence_share=args.evidence_share, **kept)


def cmd_fold(args: argparse.Namespace) -> int:
    summarizer = demo.summarizer_from_env() if args.summarizer == "auto" else (
        pgctx.OpenAISummarizer(args.model, base_url=os.environ.get("OPENAI_BASE_URL"))
        if args.summarizer == "openai" else pgctx.BuiltinSummarizer())
    with psycopg.connect(_dsn(args), autocommit=True) as conn:
        result = pgctx.fold(conn, args.conversation, summarizer=summarizer, budget=_budget(args), force=args.force)
    state = "committed" if result.committed else "not folded"
    print(f"{state}: {result.reason}; version {result.previous_version} -> {result.version}, "
          f"cursor {result.previous_cursor} -> {result.cursor} ({result.summarizer}, {result.attempts} attempt(s))")
    for t in result.triggers:
        print(f"  [{t.cls}] {t.reason}  evidence {list(t.evidence)}")
    print(f"  summary + unfolded events: {result.tokens_before} -> {result.tokens_after} tokens")
    return OK


def cmd_context(args: argparse.Namespace) -> int:
    with psycopg.connect(_dsn(args), autocommit=True) as conn:
        ctx = pgctx.build_context(conn, args.conversation, budget=_budget(args), system=args.system,
                                  current_message=args.message, memories=args.memory)
    body = ctx.input_items if args.format == "responses" else ctx.messages
    json.dump(body, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
    sections = ", ".join(f"{k} {v}" for k, v in ctx.sections.items() if v)
    print(f"fold v{ctx.version} at cursor {ctx.cursor}; {sections}; total {ctx.total_tokens} of {ctx.limit} tokens"
          + (f"; {ctx.dropped_memories} memories did not fit" if ctx.dropped_memories else ""), file=sys.stderr)
    return OK


def cmd_eval(args: argparse.Namespace) -> int:
    from pgctx.evaluation import evaluate, format_report

    summarizer = (pgctx.OpenAISummarizer(args.model, base_url=os.environ.get("OPENAI_BASE_URL"))
                  if args.summarizer == "openai" else pgctx.BuiltinSummarizer())
    ask = None
    if args.ask:
        from pgctx.evaluation.asking import ProbeAsker

        ask = ProbeAsker(args.model, base_url=os.environ.get("OPENAI_BASE_URL"))

    def progress(done: int, total: int, result) -> None:
        rate = result.pass_rate("pgctx")
        state = f"ERROR at line {result.error['line']} ({result.error['sqlstate']})" if result.error else (
            f"pgctx {100 * (rate or 0):.1f}%, {result.compression or 0:.1f}x, fill {100 * (result.fill or 0):.0f}%")
        print(f"[{done}/{total}] {result.id}: {state} ({result.seconds:.1f} s)", file=sys.stderr, flush=True)

    report = evaluate(args.dsn, args.paths or None, summarizer=summarizer, budget=_budget(args, answer_share=True), ask=ask,
                      progress=None if args.replay_only else progress)
    if args.replay_only:  # for authors of blind sets: whether each file replays, and no score
        for r in report.results:
            print(f"{r.id}: " + (f"ERROR at line {r.error['line']} ({r.error['sqlstate']}): {r.error['message']}"
                                 if r.error else f"replays cleanly ({r.events} events, {r.history_tokens} tokens)"))
        return FAILED if any(r.error for r in report.results) else OK
    if args.json:
        json.dump(report.to_json(), sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        print(format_report(report))
    failed = [r.id for r in report.results if r.error]
    if args.min_pass is not None and not report.passed(args.min_pass):
        print(f"pgctx: pass rate {100 * (report.pass_rate('pgctx') or 0):.1f}% is below --min-pass "
              f"{100 * args.min_pass:.1f}%" + (f", or trajectories failed: {', '.join(failed)}" if failed else ""),
              file=sys.stderr)
        return FAILED
    return FAILED if failed else OK


def cmd_export(args: argparse.Namespace) -> int:
    with psycopg.connect(_dsn(args)) as conn:
        pgctx.export_bundle(conn, args.conversation, sys.stdout)
    return OK


def cmd_verify_bundle(args: argparse.Namespace) -> int:
    anchor_seq = anchor_hash = None
    if args.against:
        with open(args.bundle, "rb") as fh:
            header = json.loads(fh.readline())
        anchor = anchors(_load_digest(args.against)).get(header.get("conversation_id"))
        if anchor is None:
            print(f"FAIL the digest does not know conversation {header.get('conversation_id')!r}")
            return FAILED
        anchor_seq, anchor_hash = anchor
    report = pgctx.verify_bundle(args.bundle, anchor_seq=anchor_seq, anchor_hash=anchor_hash)
    _print_report(report)
    return OK if report.ok else FAILED


def cmd_erase(args: argparse.Namespace) -> int:
    from pgctx import erasure

    chosen = [bool(args.conversation), bool(args.tenant), args.expired]
    problem = None
    if sum(chosen) > 1 or (args.seq and not args.conversation) or (args.dry_run and not args.expired):
        problem = "one of --conversation [--seq ...], --tenant or --expired [--dry-run]"
    elif not any(chosen) and not args.vacuum:
        problem = "name --conversation, --tenant or --expired (or --vacuum alone)"
    elif (args.conversation or args.tenant) and not args.reason:
        problem = "--reason is required (it is kept in the chain: no personal data in it)"
    if problem:
        print(f"pgctx erase: {problem}", file=sys.stderr)
        return ERROR
    with psycopg.connect(_dsn(args), autocommit=True) as conn:
        if args.expired and args.dry_run:
            found = erasure.expired(conn)
            for x in found:
                print(f"would erase {x.conversation_id} (tenant {x.tenant or '-'}): last event "
                      f"{x.last_event_at.isoformat()}, policy {x.idle_days} idle days")
            print(f"{len(found)} conversation(s) past their retention policy; nothing erased (--dry-run)")
            return OK
        if args.conversation:
            reports = [erasure.erase(conn, args.conversation, seqs=args.seq, reason=args.reason)]
        elif args.tenant:
            reports = erasure.erase_tenant(conn, args.tenant, reason=args.reason)
        elif args.expired:
            reports = erasure.erase_expired(conn, reason=args.reason or "retention policy")
        else:
            reports = []
        for r in reports:
            if not r["erased"]:
                print(f"{r['conversation_id']}: nothing left to erase")
                continue
            removed = sum(len(v) for v in r["checkpoints_removed"].values())
            fallback = r["fold_fallback"]
            print(f"{r['conversation_id']}: erased {r['erased']} events {r['seqs']}, recorded at seq {r['erasure_seq']};"
                  f" {removed} checkpoint(s) removed"
                  + (f"; committed fold back to version {fallback['version']} (cursor {fallback['cursor']})"
                     if fallback else ""))
        if args.vacuum:
            for table in erasure.vacuum(conn):
                print(f"vacuumed {table}")
            print("still the operator's job (VACUUM cannot reach them):")
            for line in erasure.OPERATOR_REMAINS:
                print(f"  - {line}")
        elif any(r["erased"] for r in reports):
            print("the old row versions stay in the table files until VACUUM (run with --vacuum), "
                  "and in WAL and backups until they expire (docs/guarantees.md)")
    return OK


def cmd_retention(args: argparse.Namespace) -> int:
    from pgctx import erasure

    with psycopg.connect(_dsn(args), autocommit=True) as conn:
        erasure.set_retention_policy(conn, None if args.remove else args.idle_days, tenant=args.tenant)
    scope = f"tenant {args.tenant}" if args.tenant else "global"
    print(f"{scope} retention: " + ("removed" if args.remove else f"erase after {args.idle_days} idle days"))
    return OK


def cmd_digest(args: argparse.Namespace) -> int:
    with psycopg.connect(_dsn(args)) as conn:
        json.dump(pgctx.take_digest(conn), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return OK


def cmd_distribute(args: argparse.Namespace) -> int:
    from pgctx.distribute import CitusNotInstalled

    with psycopg.connect(_dsn(args), autocommit=True) as conn:
        try:
            statements = pgctx.distribute(conn, dry_run=args.dry_run, progress=lambda s: print(f"{s};", flush=True))
        except CitusNotInstalled:
            print("pgctx distribute: the citus extension is not installed in this database; nothing changed",
                  file=sys.stderr)
            return ERROR
        except psycopg.Error as exc:  # Citus refused a statement: say which; the next run continues there
            print(f"pgctx distribute: {exc.diag.message_primary or exc} [{exc.sqlstate}]", file=sys.stderr)
            for line in (exc.diag.message_detail, exc.diag.message_hint, *getattr(exc, "__notes__", ())):
                if line:
                    print(f"  {line}", file=sys.stderr)
            return ERROR
    if not statements:
        print("pgctx is already distributed: nothing to do")
    elif args.dry_run:
        print(f"pgctx is not distributed yet: {len(statements)} statements would run (--dry-run: nothing ran)")
    else:
        print(f"pgctx is distributed: {len(statements)} statements run")
    return OK


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pgctx", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)

    def command(name: str, func, help_: str, dsn: bool = True) -> argparse.ArgumentParser:
        c = sub.add_parser(name, help=help_, description=help_)
        if dsn:
            c.add_argument("--dsn", help="libpq connection string or URI (default: $PGCTX_DSN, else libpq's "
                                        "environment: PGHOST, PGPORT, PGDATABASE, PGUSER, PGSERVICE, ...)")
        c.set_defaults(func=func)
        return c

    command("demo", cmd_demo, "tell the order 10086 story on a throwaway PostgreSQL (or --dsn)")
    command("migrate", cmd_migrate, "install or upgrade the pgctx schema (alembic; safe to repeat)")
    command("status", cmd_status, "conversations: head, committed fold, PREPARED folds, unknown side effects, chain health")
    r = command("recover", cmd_recover, "resolve PREPARED folds, verify chains, list unknown side effects")
    r.add_argument("--conversation", action="append", help="only this conversation (repeatable)")
    r.add_argument("--full", action="store_true",
                   help="verify every chain from genesis (default: from the last point recovery verified, and"
                        " from genesis where there is none or a break stands)")
    v = command("verify", cmd_verify, "recompute hash chains in the database")
    v.add_argument("--conversation", action="append", help="only this conversation (repeatable)")
    v.add_argument("--against", metavar="DIGEST", help="a digest from `pgctx digest` to anchor against")
    v.add_argument("--from-seq", type=int, default=0, help="resume after a seq verified before")
    v.add_argument("--from-hash", help="the hash verified at --from-seq (hex)")
    def budget_args(c: argparse.ArgumentParser, d: pgctx.Budget = pgctx.Budget(), answer_share: bool = False) -> None:
        scaled = ("default: an eighth of the window for output, 0 for the others" if answer_share else
                  "default: scales with the window, at most 2000 / 4096 / 2000 tokens, a 16th / 8th / 16th of it")
        c.add_argument("--model", default=os.environ.get("PGCTX_MODEL", d.model),
                       help="model whose token encoding counts (default: $PGCTX_MODEL or %(default)s)")
        c.add_argument("--window", type=int, default=d.window, help="context window W (default %(default)s)")
        c.add_argument("--fixed-input", type=int, help=f"fixed input I ({scaled})")
        c.add_argument("--output", type=int, help=f"reserved output O ({scaled})")
        c.add_argument("--reasoning", type=int, default=d.reasoning, help="reserved reasoning R (default %(default)s)")
        c.add_argument("--margin", type=int, help=f"safety margin M ({scaled})")
        c.add_argument("--alpha", type=float, default=d.alpha, help="capacity threshold α (default %(default)s)")
        c.add_argument("--floor", type=float, default=d.structural_floor,
                       help="share of B structural and risk triggers wait for (default %(default)s)")
        c.add_argument("--tail", type=float, default=d.raw_tail,
                       help="share of B a fold leaves raw (default %(default)s)")
        c.add_argument("--summary-share", type=float, default=d.summary_share,
                       help="share of B the summary should stay within (default %(default)s)")
        c.add_argument("--evidence-share", type=float, default=d.evidence_share,
                       help="share of B live evidence may take raw in a context (default %(default)s)")

    f = command("fold", cmd_fold, "fold a conversation if a fold is due (capacity, structural or risk trigger)")
    f.add_argument("--conversation", required=True, help="the conversation to fold")
    budget_args(f)
    f.add_argument("--force", action="store_true", help="fold even if no trigger fired")
    f.add_argument("--summarizer", choices=("auto", "builtin", "openai"), default="auto",
                   help="auto: OpenAI when OPENAI_API_KEY or OPENAI_BASE_URL is set, else built-in")
    c = command("context", cmd_context, "print a conversation's working context (JSON) and its token accounting")
    c.add_argument("--conversation", required=True, help="the conversation whose context to build")
    budget_args(c)
    c.add_argument("--system", help="system rules to put first")
    c.add_argument("--message", help="the current user message")
    c.add_argument("--memory", action="append", help="a retrieved long-term memory (repeatable, optional)")
    c.add_argument("--format", choices=("chat", "responses"), default="chat",
                   help="chat completion messages or Responses API input items")
    e = command("export", cmd_export, "write a conversation's audit bundle (JSON lines) to stdout")
    e.add_argument("--conversation", required=True, help="the conversation to export")
    b = command("verify-bundle", cmd_verify_bundle, "verify an audit bundle offline (no database)", dsn=False)
    b.add_argument("bundle", help="the bundle file, as `pgctx export` wrote it")
    b.add_argument("--against", metavar="DIGEST", help="a digest from `pgctx digest` to anchor against")
    command("digest", cmd_digest, "write every conversation's chain head (JSON) to stdout")
    x = command("erase", cmd_erase, "erase conversation content, keeping the chain verifiable (pgctx_eraser role)")
    x.add_argument("--conversation", help="erase this conversation's events")
    x.add_argument("--seq", type=int, action="append", help="only this event of --conversation (repeatable)")
    x.add_argument("--tenant", help="erase every conversation of this tenant role")
    x.add_argument("--expired", action="store_true", help="erase conversations idle past their retention policy")
    x.add_argument("--dry-run", action="store_true", help="with --expired: list what would be erased, erase nothing")
    x.add_argument("--reason", help="why (kept in the erasure event: no personal data; default for --expired: "
                                    "'retention policy')")
    x.add_argument("--vacuum", action="store_true",
                   help="then VACUUM the tables erasure rewrites, and say what remains the operator's job")
    t = command("retention", cmd_retention, "set the retention policy: erase conversations idle for N days")
    t.add_argument("--tenant", help="the tenant role (default: the global policy)")
    group = t.add_mutually_exclusive_group(required=True)
    group.add_argument("--idle-days", type=int, help="erase conversations whose last event is older than this")
    group.add_argument("--remove", action="store_true", help="remove the policy")
    d = command("distribute", cmd_distribute, "distribute the pgctx schema over a Citus cluster by conversation "
                                              "(run on the coordinator after migrate; safe to repeat)")
    d.add_argument("--dry-run", action="store_true", help="print the statements that would run, run none")
    from pgctx.evaluation import EVAL_BUDGET

    v = sub.add_parser("eval", help="measure fidelity: replay trajectories and judge their probes",
                       description="Replay trajectories (default: the shipped suite) as an agent service would, and "
                                   "judge what each decision needs against pgctx's working context and against "
                                   "naive trimming at the same number of tokens (docs/eval.md).")
    v.set_defaults(func=cmd_eval)
    v.add_argument("paths", nargs="*", help="trajectory files or directories (default: the shipped suite)")
    v.add_argument("--dsn", help="replay into this database (default: an embedded throwaway PostgreSQL)")
    v.add_argument("--json", action="store_true", help="print the report as one JSON object")
    v.add_argument("--min-pass", type=float, help="exit 1 if pgctx's pass rate is below this (0..1)")
    v.add_argument("--summarizer", choices=("builtin", "openai"), default="builtin",
                   help="builtin (default) or openai (OPENAI_API_KEY / OPENAI_BASE_URL, --model)")
    v.add_argument("--ask", action="store_true",
                   help="also ask the model (--model, OPENAI_API_KEY / OPENAI_BASE_URL) the probes' questions, "
                        "given only pgctx's context, and score its answers")
    v.add_argument("--replay-only", action="store_true",
                   help="say only whether each trajectory replays (its line and SQLSTATE if not), no score: for "
                        "authors of held-out sets, who must not see one")
    budget_args(v, EVAL_BUDGET, answer_share=True)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        with translated(api=True):  # the commands' own queries too: a missing schema says to migrate
            return args.func(args)
    except PgctxError as exc:
        print(f"pgctx: {exc} [{exc.sqlstate or type(exc).__name__}]", file=sys.stderr)
        for extra in (exc.detail, exc.hint):
            if extra:
                print(f"  {extra}", file=sys.stderr)
        return ERROR
    except ValueError as exc:  # a budget that leaves no room, and similar bad arguments
        print(f"pgctx: {exc}", file=sys.stderr)
        return ERROR
    except psycopg.errors.InsufficientPrivilege as exc:
        print(f"pgctx: permission denied: {exc.diag.message_primary} [42501]", file=sys.stderr)
        if args.command in ("erase", "retention"):
            print("  erasure and retention need the pgctx_eraser role (granted by a DBA) or the schema owner",
                  file=sys.stderr)
        return ERROR
    except psycopg.OperationalError as exc:
        print(f"pgctx: cannot reach the database: {' '.join(str(exc).split())}", file=sys.stderr)
        return ERROR
    except CannotRun as exc:
        print(f"pgctx: {exc}", file=sys.stderr)
        return ERROR
    except BrokenPipeError:
        # the reader left (`pgctx context ... | head`): what it wanted was written; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return OK
    except OSError as exc:  # a file named on the command line (a bundle, a digest)
        print(f"pgctx: cannot read {exc.filename}: {exc.strerror}", file=sys.stderr)
        return ERROR


if __name__ == "__main__":
    sys.exit(main())
