#!/usr/bin/env python3
"""Generator of the held-out "workspace" trajectories (set 2).

Run from the checkout:  cd /work/main && .venv/bin/python bench/holdout2/workspace/generate.py
  --check   exit 1 if the .jsonl files on disk differ from what would be written
  --stats   print a table: file, id, window, events, tokens, decisions, probes by class

Every trajectory is built by one function below (t01 ... t10) with its own seeded
random.Random for filler variety (hashes, sizes, timings, listings), so the output is
deterministic.  Seqs are assigned by the builder and written on every event; probes refer
to them through the values the builder returns.
"""
from __future__ import annotations

import argparse
import json
import posixpath
import random
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

# --------------------------------------------------------------------------------------
# tools: one declaration per tool name, shared by every file that uses it
# --------------------------------------------------------------------------------------
TOOLS: dict[str, tuple[str, list[str], str]] = {
    # workspace
    "bash": ("write", [], "run a shell command in the persistent session shell; the session keeps its working directory"),
    "read_file": ("read", ["path"], "read a text file"),
    "write_file": ("write", ["path"], "create or overwrite a file"),
    "edit_file": ("write", ["path"], "replace one exact string in a file"),
    # Jira
    "jira_search": ("read", [], "JQL search"),
    "jira_get_issue": ("read", ["issue_key"], "one issue with fields and comments"),
    "jira_create_issue": ("write", ["project"], "create an issue"),
    "jira_transition_issue": ("write", ["issue_key"], "move an issue through its workflow"),
    "jira_add_comment": ("write", ["issue_key"], "comment on an issue"),
    "jira_assign_issue": ("write", ["issue_key"], "set the assignee"),
    "jira_link_issues": ("write", ["inward_issue", "outward_issue"], "link two issues"),
    # Zendesk
    "zendesk_get_ticket": ("read", ["ticket_id"], "a ticket with its comments"),
    "zendesk_search": ("read", [], "search tickets"),
    "zendesk_update_ticket": ("write", ["ticket_id"], "status, assignee, group, tags, comment"),
    # GitHub
    "github_create_pull_request": ("write", ["repo"], "open a pull request"),
    "github_get_pull_request": ("read", ["repo", "pull_number"], "a pull request"),
    "github_list_review_comments": ("read", ["repo", "pull_number"], "review comments of a pull request"),
    "github_request_reviewers": ("write", ["repo", "pull_number"], "request reviewers"),
    "github_list_check_runs": ("read", ["repo", "ref"], "check runs for a commit"),
    "github_merge_pull_request": ("write", ["repo", "pull_number"], "merge a pull request"),
    "github_delete_branch": ("irreversible", ["repo", "branch"], "delete a branch on the remote"),
    "github_list_branches": ("read", ["repo"], "branches of a repository"),
    "github_create_release": ("irreversible", ["repo", "tag"], "publish a release"),
    "github_list_pull_requests": ("read", ["repo"], "pull requests of a repository"),
    "github_add_issue_comment": ("write", ["repo", "issue_number"], "comment on an issue or pull request"),
    # package registries
    "registry_get_package": ("read", ["package"], "package metadata from the public npm registry"),
    "artifactory_get_package": ("read", ["package"], "package metadata from the internal Artifactory npm remote"),
    "registry_publish": ("irreversible", ["package", "version"], "publish a packed tarball to the npm registry"),
    # deploys
    "deploy_list": ("read", ["service", "environment"], "recent deploys of a service"),
    "deploy_create": ("write", ["service", "environment"], "deploy an image to an environment"),
    "deploy_get": ("read", ["deploy_id"], "one deploy and its rollout state"),
    "deploy_rollback": ("write", ["service", "environment"], "roll an environment back to an earlier deploy"),
    "metrics_query": ("read", [], "PromQL query over a time range"),
    # on-call
    "pagerduty_get_incident": ("read", ["incident_id"], "an incident"),
    "pagerduty_update_incident": ("write", ["incident_id"], "acknowledge, resolve, reassign"),
    "pagerduty_add_note": ("write", ["incident_id"], "add a note to an incident"),
    "sentry_get_issue": ("read", ["issue_id"], "a Sentry issue with its latest event"),
    "sentry_update_issue": ("write", ["issue_id"], "resolve, ignore or assign a Sentry issue"),
    "statuspage_create_incident": ("write", ["page_id"], "open a public status page incident"),
    "statuspage_update_incident": ("write", ["page_id", "incident_id"], "post an update to a status page incident"),
    "slack_post_message": ("write", ["channel"], "post a message"),
    # data platform
    "airflow_trigger_dag": ("write", ["dag_id"], "trigger a DAG run"),
    "airflow_get_dag_run": ("read", ["dag_id", "dag_run_id"], "one DAG run"),
    "warehouse_query": ("read", [], "read-only SQL on the warehouse"),
    "migrations_status": ("read", ["database"], "the schema-migrations service's view of a database"),
    # Terraform Cloud
    "tfc_create_run": ("write", ["workspace"], "queue a plan"),
    "tfc_get_run": ("read", ["run_id"], "a run and its plan/apply state"),
    "tfc_apply_run": ("irreversible", ["run_id"], "confirm and apply a planned run"),
    "aws_rds_describe": ("read", ["db_instance_identifier"], "describe-db-instances for one instance"),
}


# --------------------------------------------------------------------------------------
# the builder
# --------------------------------------------------------------------------------------
@dataclass
class Call:
    call_id: str
    seq: int
    key: str | None
    tool: str


class Traj:
    def __init__(self, num: int, slug: str, tid: str, title: str, exercises: list[str], description: str,
                 seed: int, home: str, cwd: str, prefix: str, window: int | None = None):
        self.num, self.slug, self.id, self.title = num, slug, tid, title
        self.exercises, self.description, self.window = exercises, description, window
        self.rng = random.Random(seed)
        self.steps: list[dict] = []
        self.seq = 0
        self.home = home
        self.cwd = cwd
        self.prefix = prefix
        self.n_call = 0
        self.used_tools: list[str] = []
        self.last_user_seq = 0
        self.clock = 0

    # ---- events
    def ev(self, kind: str, payload: dict) -> int:
        self.seq += 1
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": self.seq})
        return self.seq

    def user(self, text: str) -> int:
        s = self.ev("user", {"content": text})
        self.last_user_seq = s
        return s

    def say(self, text: str) -> int:
        return self.ev("assistant", {"content": text})

    def fact(self, key: str, value, subject: dict | None = None, kind: str = "fact") -> int:
        p = {"key": key, "value": value, "authority": "user", "confidence": "explicit"}
        if subject:
            p["subject"] = subject
        return self.ev(kind, p)

    def correction(self, key: str, value, subject: dict | None = None) -> int:
        return self.fact(key, value, subject, kind="correction")

    def call(self, tool: str, arguments: dict, key: str | None = None) -> Call:
        effect = TOOLS[tool][0]
        if tool not in self.used_tools:
            self.used_tools.append(tool)
        self.n_call += 1
        cid = f"call_{self.prefix}{self.n_call:03d}"
        payload = {"tool": tool, "call_id": cid, "arguments": arguments, "effect": effect}
        if effect != "read":
            key = key or f"{self.prefix}-{tool.split('_')[0]}-{self.n_call:03d}"
            payload["idempotency_key"] = key
        else:
            key = None
        s = self.ev("tool_call", payload)
        return Call(cid, s, key, tool)

    def res(self, c: Call, result=None, outcome: str = "succeeded", request_id: str | None = None,
            error: str | None = None, **extra) -> int:
        p: dict = {"call_id": c.call_id, "outcome": outcome}
        if request_id:
            p["request_id"] = request_id
        if error:
            p["error"] = error
        if result is not None:
            p["result"] = result
        p.update(extra)
        return self.ev("tool_result", p)

    def tool(self, tool: str, arguments: dict, result=None, key: str | None = None, **kw) -> tuple[Call, int]:
        c = self.call(tool, arguments, key)
        return c, self.res(c, result, **kw)

    def status_query(self, c: Call, outcome: str, result=None, request_id: str | None = None) -> int:
        p: dict = {"call_id": c.call_id, "outcome": outcome}
        if request_id:
            p["request_id"] = request_id
        if result is not None:
            p["result"] = result
        return self.ev("status_query", p)

    def approval(self, approval_id: str, status: str, scopes_event: int, **extra) -> int:
        p = {"approval_id": approval_id, "status": status, "scopes_event": scopes_event}
        p.update(extra)
        return self.ev("approval", p)

    def subtask_end(self, summary: str) -> int:
        return self.ev("subtask_end", {"summary": summary})

    def topic_switch(self, to: str) -> int:
        return self.ev("topic_switch", {"to": to})

    # ---- the shell, with its persistent working directory
    def _resolve(self, path: str) -> str:
        if path == "~" or path.startswith("~/"):
            path = self.home + path[1:]
        if not path.startswith("/"):
            path = posixpath.join(self.cwd, path)
        return posixpath.normpath(path)

    def sh(self, command: str, stdout: str = "", exit_code: int = 0, stderr: str = "",
           duration_ms: int | None = None, outcome: str | None = None, timeout_ms: int | None = None) -> tuple[Call, int]:
        # a leading chain of `cd X &&` (or a bare `cd X`) moves the session's directory
        for part in command.split("&&"):
            part = part.strip()
            if part.startswith("cd "):
                self.cwd = self._resolve(part[3:].strip())
            else:
                break
        args = {"command": command}
        if timeout_ms:
            args["timeout_ms"] = timeout_ms
        c = self.call("bash", args)
        if duration_ms is None:
            duration_ms = self.rng.randint(8, 140)
        result = {"exit_code": exit_code, "stdout": stdout}
        if stderr:
            result["stderr"] = stderr
        result["cwd"] = self.cwd
        result["duration_ms"] = duration_ms
        if outcome is None:
            outcome = "succeeded" if exit_code == 0 else "failed"
        err = f"command exited with status {exit_code}" if outcome == "failed" else None
        return c, self.res(c, result, outcome=outcome, error=err)

    def read(self, path: str, content: str) -> tuple[Call, int]:
        path = self._resolve(path)
        lines = content.count("\n") + (0 if content.endswith("\n") else 1)
        return self.tool("read_file", {"path": path}, {"path": path, "content": content, "lines": lines})

    def write(self, path: str, content: str) -> tuple[Call, int]:
        path = self._resolve(path)
        return self.tool("write_file", {"path": path, "content": content},
                         {"path": path, "bytes_written": len(content.encode())})

    def edit(self, path: str, old: str, new: str) -> tuple[Call, int]:
        path = self._resolve(path)
        return self.tool("edit_file", {"path": path, "old_str": old, "new_str": new},
                         {"path": path, "replacements": 1})

    def recover(self) -> int:
        """The agent restarted: pgctx appends one recovery event (the next seq) if a call is still running."""
        self.steps.append({"type": "recover"})
        self.seq += 1
        return self.seq

    # ---- decisions
    def decide(self, did: str, probes: list[dict], note: str = "") -> None:
        step = {"type": "decision", "id": did, "probes": probes}
        if note:
            step["note"] = note
        self.steps.append(step)

    # ---- output
    def header(self) -> dict:
        h = {"pgctx_trajectory": 1, "id": self.id, "title": self.title, "exercises": self.exercises,
             "description": self.description,
             "tools": [{"tool": t, "effect": TOOLS[t][0], "identifier_args": TOOLS[t][1],
                        "description": TOOLS[t][2]} for t in self.used_tools]}
        if self.window:
            h["window"] = self.window
        return h

    def text(self) -> str:
        out = [json.dumps(self.header(), ensure_ascii=False)]
        out += [json.dumps(s, ensure_ascii=False) for s in self.steps]
        return "\n".join(out) + "\n"

    @property
    def filename(self) -> str:
        return f"{self.num:02d}_{self.slug}.jsonl"


# probe shorthands ---------------------------------------------------------------------
def P_fact(key, value, why, subject=None, superseded=None):
    p = {"probe": "fact", "key": key, "value": value}
    if subject:  # one name=value pair, as the probe format spells it
        (k, v), = subject.items()
        p["subject"] = f"{k}={v}"
    if superseded:
        p["superseded"] = superseded
    p["why"] = why
    return p


def P_state(c: Call, status, why, request_id=None, by_key=False):
    p = {"probe": "tool_state"}
    if by_key:
        p["idempotency_key"] = c.key
    else:
        p["call_id"] = c.call_id
    p["status"] = status
    if request_id:
        p["request_id"] = request_id
    p["why"] = why
    return p


def P_next(tool, arguments, why):
    return {"probe": "next_call", "tool": tool, "arguments": arguments, "why": why}


def P_pending(why, approval_id=None, call: Call | None = None):
    p = {"probe": "pending"}
    if approval_id:
        p["approval_id"] = approval_id
    else:
        p["call_id"] = call.call_id
    p["why"] = why
    return p


def P_con(seq, text, why):
    return {"probe": "constraint", "seq": seq, "text": text, "why": why}


def P_ev(seqs, why):
    return {"probe": "evidence", "seqs": list(seqs), "why": why}


# --------------------------------------------------------------------------------------
# content helpers: what the real commands print
# --------------------------------------------------------------------------------------
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def hexs(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def ls_la(rng: random.Random, entries: list, owner: str = "dev", group: str = "dev", month: str = "Mar",
          days: tuple[int, int] = (1, 27), hidden: bool = True) -> str:
    """`ls -la`: entries are names (a trailing / is a directory) or (name, size) pairs."""
    rows = []
    total = 0
    def row(name, is_dir, size, links=None, perm=None):
        d = rng.randint(*days)
        hh, mm = rng.randint(8, 19), rng.randint(0, 59)
        perm = perm or ("drwxr-xr-x" if is_dir else ("-rwxr-xr-x" if name.endswith((".sh",)) else "-rw-r--r--"))
        links = links or (rng.randint(2, 9) if is_dir else 1)
        return f"{perm} {links:>2} {owner} {group} {size:>6} {month} {d:>2} {hh:02d}:{mm:02d} {name}"
    if hidden:
        rows.append(row(".", True, 4096))
        rows.append(row("..", True, 4096))
    for e in entries:
        if isinstance(e, tuple):
            name, size = e
        else:
            name, size = e, None
        is_dir = name.endswith("/")
        name = name.rstrip("/")
        if size is None:
            size = 4096 if is_dir else rng.choice([rng.randint(80, 900), rng.randint(900, 6000), rng.randint(6000, 40000)])
        total += max(4, size // 1024 * 1 + 4)
        rows.append(row(name, is_dir, size))
    return f"total {total}\n" + "\n".join(rows) + "\n"


def ls_plain(names: list[str], width: int = 4) -> str:
    rows = []
    for i in range(0, len(names), width):
        rows.append("  ".join(f"{n:<28}" for n in names[i:i + width]).rstrip())
    return "\n".join(rows) + "\n"


def git_oneline(entries: list[tuple[str, str]], head_deco: str | None = None) -> str:
    out = []
    for i, (sha, msg) in enumerate(entries):
        deco = f" ({head_deco})" if i == 0 and head_deco else ""
        out.append(f"{sha[:7]}{deco} {msg}")
    return "\n".join(out) + "\n"


def git_log_full(rng: random.Random, entries: list[tuple[str, str, str, str]], tz: str = "+0100") -> str:
    """entries: (sha40, author 'Name <mail>', date string, message)."""
    out = []
    for sha, author, date, msg in entries:
        out.append(f"commit {sha}\nAuthor: {author}\nDate:   {date} {tz}\n\n    " + msg.replace("\n", "\n    ") + "\n")
    return "\n".join(out)


def pytest_log(rng: random.Random, rootdir: str, files: list[tuple[str, int]], failures: dict | None = None,
               python: str = "3.12.2", plugins: str = "cov-4.1.0, xdist-3.5.0, hypothesis-6.98.3, anyio-4.3.0",
               deselected: int = 0, extra_fail_text: str = "", seconds: float | None = None,
               inifile: str = "pyproject.toml", warnings: int = 0) -> str:
    """A pytest run; failures maps a file to {test index: test id} and extra_fail_text is the FAILURES body."""
    failures = failures or {}
    total = sum(n for _, n in files)
    out = ["============================= test session starts ==============================",
           f"platform linux -- Python {python}, pytest-8.1.1, pluggy-1.4.0",
           f"rootdir: {rootdir}", f"configfile: {inifile}", f"plugins: {plugins}"]
    coll = f"collected {total + deselected} items"
    if deselected:
        coll += f" / {deselected} deselected / {total} selected"
    out += [coll, ""]
    done = 0
    nfail = 0
    skipped = 0
    for path, n in files:
        marks = []
        for i in range(n):
            if i in failures.get(path, {}):
                marks.append("F")
                nfail += 1
            else:
                marks.append("." if rng.random() > 0.015 else "s")
                skipped += marks[-1] == "s"
        done += n
        pct = int(done * 100 / total)
        line = f"{path} {''.join(marks)}"
        out.append(f"{line:<72}[{pct:>3}%]")
    if extra_fail_text:
        out += ["", "=================================== FAILURES ===================================", extra_fail_text.rstrip()]
    secs = seconds if seconds is not None else round(rng.uniform(4, 40), 2)
    parts = []
    if nfail:
        out += ["=========================== short test summary info ============================"]
        for path, idx in failures.items():
            for _, tid in idx.items():
                out.append(f"FAILED {path}::{tid}")
        parts.append(f"{nfail} failed")
    parts.append(f"{total - nfail - skipped} passed")
    if skipped:
        parts.append(f"{skipped} skipped")
    if deselected:
        parts.append(f"{deselected} deselected")
    if warnings:
        parts.append(f"{warnings} warnings")
    summary = f" {', '.join(parts)} in {secs:.2f}s "
    out.append(summary.center(80, "="))
    return "\n".join(out) + "\n"


def grep_lines(matches: list[tuple[str, int, str]]) -> str:
    return "\n".join(f"{p}:{n}:{t}" for p, n, t in matches) + "\n"


def iso(day: str, h: int, m: int, s: int = 0) -> str:
    return f"{day}T{h:02d}:{m:02d}:{s:02d}Z"


# ===== trajectories =====


# --------------------------------------------------------------------------------------
# 01: ledger monorepo, refund minor units; Jira beside the workspace; CI green vs local red
# --------------------------------------------------------------------------------------
ROUNDING_PY = '''"""Rounding helpers shared by ledger services.

All amounts inside the ledger are integers in the currency's minor unit. These helpers
convert between the major-unit decimals partners send us and minor-unit integers.
"""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

# ISO 4217 exponents for the currencies we settle in. Anything missing defaults to 2.
CURRENCY_EXPONENTS: dict[str, int] = {
    "EUR": 2, "USD": 2, "GBP": 2, "CHF": 2, "SEK": 2, "NOK": 2, "DKK": 2, "PLN": 2,
    "CZK": 2, "HUF": 2, "RON": 2, "AUD": 2, "CAD": 2, "NZD": 2, "SGD": 2, "HKD": 2,
    "AED": 2, "SAR": 2, "QAR": 2, "TRY": 2,
    "JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0,
}
DEFAULT_EXPONENT = 2


def exponent(currency: str) -> int:
    return CURRENCY_EXPONENTS.get(currency.upper(), DEFAULT_EXPONENT)


def to_minor(amount: Decimal | str, currency: str) -> int:
    """Major-unit decimal -> integer minor units, half-up (what our acquirers do)."""
    q = Decimal(amount).scaleb(exponent(currency))
    return int(q.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def to_major(minor: int, currency: str) -> Decimal:
    return Decimal(minor).scaleb(-exponent(currency))


def proportional(minor_total: int, part: int, whole: int) -> int:
    """Share of an integer minor amount, rounded to the nearest minor unit."""
    if whole <= 0:
        raise ValueError("whole must be positive")
    if not 0 <= part <= whole:
        raise ValueError("part must be between 0 and whole")
    return round(minor_total * part / whole)


def allocate(minor_total: int, weights: list[int]) -> list[int]:
    """Split an amount by weights so that the parts add up exactly (largest remainder)."""
    whole = sum(weights)
    raw = [minor_total * w / whole for w in weights]
    parts = [int(r) for r in raw]
    rest = minor_total - sum(parts)
    order = sorted(range(len(raw)), key=lambda i: raw[i] - parts[i], reverse=True)
    for i in order[:rest]:
        parts[i] += 1
    return parts
'''

PARTIAL_PY = '''from __future__ import annotations

import logging
from dataclasses import dataclass

from money.rounding import proportional, to_major, to_minor

from refunds.errors import RefundExceedsCapture, UnknownLine
from refunds.models import Order, RefundLine

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PartialRefund:
    order_id: str
    currency: str
    amount_minor: int
    lines: tuple[RefundLine, ...]

    @property
    def amount(self):
        return to_major(self.amount_minor, self.currency)


def compute_partial_refund(order: Order, quantities: dict[str, int]) -> PartialRefund:
    """Refund `quantities` (line id -> units) of `order`, pro rata of what was captured.

    The captured total is what the acquirer settled, so the refund is a share of it and
    not the sum of list prices: discounts and rounding at capture time are honoured.
    """
    captured_minor = to_minor(order.captured_amount, order.currency)
    units_total = sum(line.quantity for line in order.lines)
    lines: list[RefundLine] = []
    units = 0
    for line_id, qty in quantities.items():
        line = order.line(line_id)
        if line is None:
            raise UnknownLine(order.id, line_id)
        if qty > line.quantity - line.refunded_quantity:
            raise RefundExceedsCapture(order.id, line_id, qty)
        units += qty
        lines.append(RefundLine(line_id=line_id, quantity=qty))
    amount_minor = proportional(captured_minor, units, units_total)
    log.debug("partial refund %s: %s/%s units of %s minor -> %s",
              order.id, units, units_total, captured_minor, amount_minor)
    return PartialRefund(order.id, order.currency, amount_minor, tuple(lines))
'''

CI_YML = '''name: ci

on:
  pull_request:
  push:
    branches: [main]

concurrency:
  group: ci-${{ github.ref }}
  cancel-in-progress: true

jobs:
  lint:
    runs-on: ubuntu-22.04
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with: { python-version: "3.11" }
      - run: pip install ruff==0.3.4 mypy==1.9.0
      - run: ruff check . && ruff format --check .
      - run: mypy libs/money/src services/refunds/src services/payouts/src

  unit-tests:
    runs-on: ubuntu-22.04
    strategy:
      matrix:
        service: [refunds, payouts, ledger-core]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with: { python-version: "3.11" }
      - run: pip install -e libs/money -e services/${{ matrix.service }}[test]
      - name: pytest
        working-directory: services/${{ matrix.service }}
        # slow tests run nightly (nightly.yml); keep PR feedback under 5 minutes
        run: python -m pytest -m "not slow" -p no:cacheprovider --junitxml=junit.xml

  contract-tests:
    runs-on: ubuntu-22.04
    needs: unit-tests
    steps:
      - uses: actions/checkout@v4
      - run: make contract-tests
'''

FX_PY = '''"""FX conversion for payouts.

Rates come from the treasury feed (mid-market, 6 decimals). Payouts are converted at
the rate of the payout batch cut-off and rounded once, at the end.
"""
from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

# copied from libs/money so payouts can pin its own rounding rules (see LEDG-642)
MINOR_UNITS = {
    "EUR": 2, "USD": 2, "GBP": 2, "CHF": 2, "SEK": 2, "NOK": 2, "DKK": 2, "PLN": 2,
    "CZK": 2, "HUF": 2, "AUD": 2, "CAD": 2, "SGD": 2, "HKD": 2, "AED": 2, "SAR": 2,
    "JPY": 0, "KRW": 0,
}


def minor_units(currency: str) -> int:
    return MINOR_UNITS.get(currency, 2)


def convert(amount_minor: int, source: str, target: str, rate: Decimal) -> int:
    major = Decimal(amount_minor).scaleb(-minor_units(source))
    converted = (major * rate).scaleb(minor_units(target))
    return int(converted.quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def batch_total(amounts_minor: list[int]) -> int:
    return sum(amounts_minor)
'''


def t01() -> Traj:
    t = Traj(1, "ledger-refund-minor-units", "ws2-ledger-refund-minor-units",
             "Partial-refund rounding in a Python monorepo, with a Jira ticket, two PRs and CI that disagrees with the local run",
             ["working directory moves across a monorepo and a scratch dir; later calls depend on paths created earlier",
              "Jira issue key returned by one tool, used in commits, PR bodies and comments much later",
              "branch name typed once by the user, needed again after work on another branch",
              "CI check runs report success while the local full run fails on the same commit",
              "a Jira comment that times out and is resolved by a status query before anything is re-posted"],
             "A developer asks the agent to fix partial refunds for three-decimal currencies in the ledger "
             "monorepo, track it in Jira, open PRs and follow review; CI skips slow tests so it is green "
             "while the local run is red.",
             seed=101, home="/home/maya", cwd="/home/maya", prefix="lg")
    r = t.rng
    REPO = "/home/maya/src/ledger"
    GH = "acme-fin/ledger"
    u1 = t.user("Finance flagged partial refunds in three-decimal currencies being off by one fils. Their example: order "
                "ORD-7781204, captured 12.345 KWD, customer returned 3 of 7 items and got 5.290 back, it should have been "
                "5.291. Can you dig into it? Repo is ~/src/ledger. Don't push anything to main directly, everything goes "
                "through a PR, and Daniel (dokafor on GitHub) has to review anything that touches libs/money.")
    t.say("I'll start with the repo layout and where refunds compute their amounts.")
    t.sh("cd ~/src/ledger && pwd && git status",
         "/home/maya/src/ledger\nOn branch main\nYour branch is up to date with 'origin/main'.\n\nnothing to commit, working tree clean\n")
    t.sh("ls -la", ls_la(r, [".editorconfig", ".git/", ".github/", ".gitignore", ".pre-commit-config.yaml",
                               ".python-version", "CODEOWNERS", "Makefile", "README.md", "docker-compose.yml", "docs/",
                               "libs/", "mypy.ini", "pyproject.toml", "renovate.json", "ruff.toml", "scripts/",
                               "services/", "tools/", "uv.lock"], owner="maya", group="maya", month="Mar"))
    shas = [hexs(r, 40) for _ in range(16)]
    msgs = ["Merge pull request #477 from acme-fin/dependabot/pip/sqlalchemy-2.0.29",
            "payouts: retry treasury feed on 502 (LEDG-1163)", "refunds: expose refunded_quantity on line API",
            "ledger-core: partition journal_entries by month", "docs: settlement lifecycle diagram",
            "Merge pull request #471 from acme-fin/anil/ledg-1150-idempotent-captures",
            "refunds: idempotency keys on capture webhooks (LEDG-1150)", "ci: cache uv downloads",
            "money: allocate() largest remainder", "payouts: batch cut-off at 16:00 Europe/Amsterdam",
            "ledger-core: drop legacy balance view", "refunds: RefundExceedsCapture carries line id",
            "chore: ruff 0.3.4", "Merge pull request #462 from acme-fin/maya/ledg-1121-chf-rounding",
            "money: CHF cash rounding helper (LEDG-1121)", "tools: regen_fixtures accepts --only"]
    t.sh("git log --oneline -16", git_oneline(list(zip(shas, msgs)), "HEAD -> main, origin/main, origin/HEAD"))
    t.sh("ls services libs tools && cat CODEOWNERS",
         "libs:\nmoney\n\nservices:\nledger-core\npayouts\nrefunds\n\ntools:\nregen_fixtures.py\nseed_dev_db.py\nsettlement_diff.py\n\n"
         "# Order matters: the last matching pattern wins.\n*                       @acme-fin/ledger-team\n"
         "/libs/money/            @dokafor @acme-fin/ledger-team\n/services/payouts/      @acme-fin/payouts\n"
         "/.github/               @acme-fin/platform\n")
    t.sh("cd services/refunds && ls -la src/refunds tests",
         "src/refunds:\n" + ls_la(r, ["__init__.py", "api.py", "errors.py", "events.py", "models.py", "partial.py",
                                      "policy.py", "repository.py", "webhooks.py"], owner="maya", group="maya")
         + "\ntests:\n" + ls_la(r, ["__init__.py", "conftest.py", "fixtures/", "test_api.py", "test_events.py",
                                    "test_partial.py", "test_policy.py", "test_repository.py",
                                    "test_settlement_roundtrip.py", "test_webhooks.py"], owner="maya", group="maya"))
    g = [("src/refunds/partial.py", 5, "from money.rounding import proportional, to_major, to_minor"),
         ("src/refunds/partial.py", 33, "    captured_minor = to_minor(order.captured_amount, order.currency)"),
         ("src/refunds/partial.py", 44, "    amount_minor = proportional(captured_minor, units, units_total)"),
         ("src/refunds/policy.py", 61, "    fee_minor = to_minor(policy.restocking_fee, order.currency)"),
         ("src/refunds/api.py", 118, "        \"amount\": str(to_major(refund.amount_minor, refund.currency)),"),
         ("tests/test_partial.py", 12, "from money.rounding import to_minor"),
         ("tests/test_partial.py", 40, "    assert refund.amount_minor == to_minor(\"10.00\", \"EUR\")"),
         ("tests/test_partial.py", 57, "    assert refund.amount_minor == proportional(1999, 1, 3)"),
         ("tests/test_settlement_roundtrip.py", 22, "from money.rounding import exponent, to_major, to_minor"),
         ("tests/test_settlement_roundtrip.py", 48, "    assert to_minor(row[\"amount\"], row[\"currency\"]) == row[\"amount_minor\"]"),
         ("../../libs/money/src/money/rounding.py", 26, "def to_minor(amount: Decimal | str, currency: str) -> int:"),
         ("../../libs/money/src/money/rounding.py", 29, "    return int(q.quantize(Decimal(1), rounding=ROUND_HALF_UP))"),
         ("../../libs/money/src/money/rounding.py", 36, "def proportional(minor_total: int, part: int, whole: int) -> int:"),
         ("../../libs/money/src/money/rounding.py", 42, "    return round(minor_total * part / whole)"),
         ("../../libs/money/src/money/cash.py", 17, "    return int((Decimal(minor) / step).quantize(Decimal(1), rounding=ROUND_HALF_UP)) * step"),
         ("../../libs/money/tests/test_rounding.py", 9, "    assert proportional(100, 1, 3) == 33"),
         ("../../libs/money/tests/test_rounding.py", 14, "    assert to_minor(\"0.005\", \"EUR\") == 1")]
    t.sh("grep -rn -e 'to_minor\\|proportional\\|ROUND_HALF' src tests ../../libs/money", grep_lines(g))
    t.read(REPO + "/libs/money/src/money/rounding.py", ROUNDING_PY)
    t.read(REPO + "/services/refunds/src/refunds/partial.py", PARTIAL_PY)
    t.say("Two things stand out. `CURRENCY_EXPONENTS` has no KWD (nor BHD, OMR, JOD, TND), so KWD falls back to 2 "
          "decimals: 12.345 becomes 1235 hundredths before anything else happens. And `proportional()` does float "
          "division and Python's `round()`, which rounds half to even and inherits float error. I'll reproduce the "
          "finance example in a scratch directory so we don't touch the repo yet.")
    t.sh("mkdir -p /tmp/ledger-repro-1187 && cd /tmp/ledger-repro-1187 && pwd", "/tmp/ledger-repro-1187\n")
    repro = ('import sys\nsys.path.insert(0, "/home/maya/src/ledger/libs/money/src")\n'
             'from decimal import Decimal\nfrom money.rounding import exponent, proportional, to_major, to_minor\n\n'
             'cases = [("KWD", "12.345", 3, 7, "5.291"), ("BHD", "8.125", 1, 2, "4.063"), ("JPY", "1005", 1, 2, "503"),\n'
             '         ("EUR", "19.99", 1, 3, "6.66")]\nfor cur, captured, part, whole, expected in cases:\n'
             '    minor = to_minor(captured, cur)\n    got = to_major(proportional(minor, part, whole), cur)\n'
             '    flag = "OK " if got == Decimal(expected) else "BAD"\n'
             '    print(f"{flag} {cur} exp={exponent(cur)} captured={captured} -> {minor} minor, {part}/{whole} -> {got} (expected {expected})")\n')
    t.write("repro.py", repro)
    _, s_repro = t.sh("python3 repro.py",
         "BAD KWD exp=2 captured=12.345 -> 1235 minor, 3/7 -> 5.29 (expected 5.291)\n"
         "BAD BHD exp=2 captured=8.125 -> 813 minor, 1/2 -> 4.06 (expected 4.063)\n"
         "BAD JPY exp=0 captured=1005 -> 1005 minor, 1/2 -> 502 (expected 503)\n"
         "OK  EUR exp=2 captured=19.99 -> 1999 minor, 1/3 -> 6.66 (expected 6.66)\n")
    t.say("Reproduced, and it's broader than KWD: every three-decimal currency is treated as two-decimal, and "
          "exact halves round to even (JPY 1005 split in two gives 502, not 503). The EUR case is fine.")
    u_ticket = t.user("Yikes, JPY too. Open a ticket in LEDG for this, assign it to me and put it in the current "
                      "sprint. Put the finance example and your repro output in the description.")
    c, _ = t.tool("jira_search", {"jql": "project = LEDG AND sprint in openSprints() AND assignee = currentUser()",
                                   "fields": ["summary", "status", "customfield_10020"], "max_results": 5},
                  {"total": 3, "issues": [
                      {"key": "LEDG-1179", "fields": {"summary": "Payout batch report shows cut-off in UTC", "status": {"name": "In Progress"},
                                                        "customfield_10020": [{"id": 412, "name": "LEDG Sprint 38", "state": "active"}]}},
                      {"key": "LEDG-1171", "fields": {"summary": "Document refund state machine", "status": {"name": "To Do"},
                                                        "customfield_10020": [{"id": 412, "name": "LEDG Sprint 38", "state": "active"}]}},
                      {"key": "LEDG-1158", "fields": {"summary": "Flaky test_webhook_replay_after_restart", "status": {"name": "In Review"},
                                                        "customfield_10020": [{"id": 412, "name": "LEDG Sprint 38", "state": "active"}]}}],
                   "myself": {"accountId": "5f8a1c2e9b3d4e0071a2b3c4", "displayName": "Maya Rahman"}})
    desc = ("Finance report: ORD-7781204 captured 12.345 KWD, 3 of 7 items returned, refunded 5.290, expected 5.291.\n\n"
            "Cause: libs/money CURRENCY_EXPONENTS lacks the ISO 4217 three-decimal currencies (KWD, BHD, OMR, JOD, TND, "
            "IQD, LYD) so they default to 2; proportional() uses float division and round() (half-even).\n\nRepro:\n"
            "BAD KWD exp=2 captured=12.345 -> 1235 minor, 3/7 -> 5.29 (expected 5.291)\n"
            "BAD BHD exp=2 captured=8.125 -> 813 minor, 1/2 -> 4.06 (expected 4.063)\n"
            "BAD JPY exp=0 captured=1005 -> 1005 minor, 1/2 -> 502 (expected 503)\n"
            "OK  EUR exp=2 captured=19.99 -> 1999 minor, 1/3 -> 6.66 (expected 6.66)")
    c_create, _ = t.tool("jira_create_issue", {"project": "LEDG", "issue_type": "Bug",
                                               "summary": "Partial refunds wrong for three-decimal currencies and exact halves",
                                               "description": desc, "priority": "High",
                                               "assignee_account_id": "5f8a1c2e9b3d4e0071a2b3c4",
                                               "labels": ["refunds", "money", "finance-reported"],
                                               "customfield_10020": 412},
                         {"id": "10482", "key": "LEDG-1187", "self": "https://acme-fin.atlassian.net/rest/api/3/issue/10482"},
                         request_id="jira-7c1e4b20")
    t.say("Created LEDG-1187 (Bug, High), assigned to you in LEDG Sprint 38, with the repro in the description: "
          "https://acme-fin.atlassian.net/browse/LEDG-1187")
    u_fix = t.user("Perfect. Branch off main, call it maya/ledg-1187-refund-minor-units, and fix it. Add the missing "
                   "currencies and make proportional() round half-up with Decimal. Regression test with the finance "
                   "numbers please.")
    t.decide("lg-d2-fix", [
        P_next("bash", {"repo": REPO}, "the shell is in the scratch dir; the branch must be made in the repo"),
        P_fact("cwd", "/tmp/ledger-repro-1187", "where the session shell is right now",
               superseded=[REPO + "/services/refunds"]),
        P_next("write_file", {"captured": "12.345", "expected": "5.291"}, "the regression test uses the finance example"),
        P_con(u1, "everything goes through a PR", "the user's rule for the whole session"),
    ])
    t.sh("cd ~/src/ledger && git checkout -b maya/ledg-1187-refund-minor-units",
         "", stderr="Switched to a new branch 'maya/ledg-1187-refund-minor-units'\n")
    old = ('    "JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0,\n}')
    new = ('    "JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0, "VND": 0, "UGX": 0,\n'
           '    "KWD": 3, "BHD": 3, "OMR": 3, "JOD": 3, "TND": 3, "IQD": 3, "LYD": 3,\n}')
    t.edit("libs/money/src/money/rounding.py", old, new)
    t.edit("libs/money/src/money/rounding.py", "    return round(minor_total * part / whole)",
           "    share = Decimal(minor_total) * part / whole\n    return int(share.quantize(Decimal(1), rounding=ROUND_HALF_UP))")
    test_py = ('from decimal import Decimal\n\nimport pytest\nfrom money.rounding import exponent, proportional, to_major, to_minor\n\n'
               'from refunds.models import Order, OrderLine\nfrom refunds.partial import compute_partial_refund\n\n\n'
               '@pytest.mark.parametrize("currency, digits", [("KWD", 3), ("BHD", 3), ("OMR", 3), ("JOD", 3), ("JPY", 0), ("EUR", 2)])\n'
               'def test_exponents(currency, digits):\n    assert exponent(currency) == digits\n\n\n'
               'def test_proportional_rounds_half_up():\n    assert proportional(1005, 1, 2) == 503\n    assert proportional(1235, 3, 7) == 529\n\n\n'
               'def test_finance_example_ord_7781204():\n    """LEDG-1187: 12.345 KWD captured, 3 of 7 units returned."""\n'
               '    order = Order(id="ORD-7781204", currency="KWD", captured_amount=Decimal("12.345"),\n'
               '                  lines=[OrderLine(id="l1", quantity=4), OrderLine(id="l2", quantity=3)])\n'
               '    refund = compute_partial_refund(order, {"l2": 3})\n'
               '    assert refund.amount_minor == 5291\n    assert refund.amount == Decimal("5.291")\n')
    t.write("services/refunds/tests/test_partial_minor_units.py", test_py)
    t.sh("cd services/refunds && python -m pytest -q tests/test_partial_minor_units.py ../../libs/money/tests",
         "...........                                                              [100%]\n11 passed in 0.41s\n")
    files = [("tests/test_api.py", 38), ("tests/test_events.py", 21), ("tests/test_partial.py", 17),
             ("tests/test_partial_minor_units.py", 8), ("tests/test_policy.py", 26), ("tests/test_repository.py", 44),
             ("tests/test_settlement_roundtrip.py", 37), ("tests/test_webhooks.py", 29)]
    tb = ('__________________________ test_roundtrip_fx[KWD-USD] ___________________________\n\n'
          'row = {\'amount\': \'41.250\', \'amount_minor\': 4125, \'currency\': \'KWD\', \'settlement_id\': \'stl_0fa19\', \'target\': \'USD\'}\n\n'
          '    @pytest.mark.slow\n    @pytest.mark.parametrize("row", load_fixture("settlements.json"), ids=pair_id)\n'
          '    def test_roundtrip_fx(row):\n>       assert to_minor(row["amount"], row["currency"]) == row["amount_minor"]\n'
          'E       AssertionError: assert 41250 == 4125\nE        +  where 41250 = to_minor(\'41.250\', \'KWD\')\n\n'
          'tests/test_settlement_roundtrip.py:48: AssertionError\n'
          '----------------------------- Captured log call ------------------------------\n'
          'DEBUG    refunds.fixtures:fixtures.py:31 loaded 37 rows from tests/fixtures/settlements.json (generated 2023-06-02 by tools/regen_fixtures.py)')
    log_after = pytest_log(r, REPO + "/services/refunds", files,
                           failures={"tests/test_settlement_roundtrip.py": {29: "test_roundtrip_fx[KWD-USD]"}},
                           extra_fail_text=tb, seconds=43.18)
    c_local, s_local = t.sh("python -m pytest", log_after, exit_code=1, duration_ms=44870)
    t.say("The new tests pass, but the full local run has one failure: `test_roundtrip_fx[KWD-USD]` (marked slow). "
          "Its fixture `tests/fixtures/settlements.json` stores KWD amounts with two-decimal minor units (4125 for "
          "41.250), so it encoded the old bug. The fixture says it was generated by tools/regen_fixtures.py.")
    u_pr = t.user("That fixture is wrong, but leave it for now, it's a separate thing. Commit, push and open the PR. "
                  "Link the ticket in the PR.")
    t.decide("lg-d3-pr", [
        P_next("bash", {"ticket": "LEDG-1187", "branch": "maya/ledg-1187-refund-minor-units"},
               "the commit message references the ticket key returned by jira_create_issue; the push needs the branch"),
        P_next("github_request_reviewers", {"reviewer": "dokafor"}, "libs/money changed, the user named Daniel in the first message"),
        P_con(u1, "Don't push anything to main directly", "the push must go to the feature branch"),
    ])
    t.sh("git add -A && git status --short",
         " M libs/money/src/money/rounding.py\nA  services/refunds/tests/test_partial_minor_units.py\n", duration_ms=40)
    sha1 = "3f9c2ab" + hexs(r, 33)
    t.sh('git commit -m "LEDG-1187: minor units for three-decimal currencies, half-up proportional refunds"',
         f"[maya/ledg-1187-refund-minor-units {sha1[:7]}] LEDG-1187: minor units for three-decimal currencies, half-up proportional refunds\n"
         " 2 files changed, 31 insertions(+), 2 deletions(-)\n create mode 100644 services/refunds/tests/test_partial_minor_units.py\n")
    t.sh("git push -u origin maya/ledg-1187-refund-minor-units",
         "branch 'maya/ledg-1187-refund-minor-units' set up to track 'origin/maya/ledg-1187-refund-minor-units'.\n",
         stderr=("Enumerating objects: 17, done.\nCounting objects: 100% (17/17), done.\nDelta compression using up to 12 threads\n"
                 "Compressing objects: 100% (8/8), done.\nWriting objects: 100% (10/10), 1.92 KiB | 1.92 MiB/s, done.\n"
                 "Total 10 (delta 5), reused 0 (delta 0), pack-reused 0\nremote: Resolving deltas: 100% (5/5), completed with 5 local objects.\n"
                 "remote:\nremote: Create a pull request for 'maya/ledg-1187-refund-minor-units' on GitHub by visiting:\n"
                 "remote:      https://github.com/acme-fin/ledger/pull/new/maya/ledg-1187-refund-minor-units\nremote:\n"
                 "To github.com:acme-fin/ledger.git\n * [new branch]      maya/ledg-1187-refund-minor-units -> maya/ledg-1187-refund-minor-units\n"),
         duration_ms=2310)
    body = ("Fixes LEDG-1187.\n\n- add ISO 4217 three-decimal currencies (KWD, BHD, OMR, JOD, TND, IQD, LYD) and VND/UGX to CURRENCY_EXPONENTS\n"
            "- proportional() rounds half-up with Decimal instead of float round()\n- regression test with the finance example (ORD-7781204)\n\n"
            "Known: tests/fixtures/settlements.json encodes KWD with 2 decimals; the slow test_roundtrip_fx[KWD-USD] fails locally. Out of scope here.")
    c_pr, _ = t.tool("github_create_pull_request", {"repo": GH, "head": "maya/ledg-1187-refund-minor-units", "base": "main",
                                                     "title": "LEDG-1187: minor units for three-decimal currencies", "body": body, "draft": False},
                     {"number": 482, "html_url": "https://github.com/acme-fin/ledger/pull/482", "state": "open",
                      "head": {"ref": "maya/ledg-1187-refund-minor-units", "sha": sha1}, "base": {"ref": "main"},
                      "mergeable_state": "unknown", "created_at": "2024-03-14T10:42:19Z"})
    t.tool("github_request_reviewers", {"repo": GH, "pull_number": 482, "reviewers": ["dokafor"]},
           {"requested_reviewers": [{"login": "dokafor", "id": 3318842}], "number": 482})
    t.say("PR #482 is open against main (https://github.com/acme-fin/ledger/pull/482) and Daniel is requested as reviewer. "
          "I noted the fixture failure in the PR description.")
    t.user("Thanks. Keep an eye on CI for it.")
    t.tool("github_list_check_runs", {"repo": GH, "ref": sha1},
           {"total_count": 4, "check_runs": [
               {"name": "lint", "status": "completed", "conclusion": "success", "started_at": "2024-03-14T10:42:31Z", "completed_at": "2024-03-14T10:43:40Z"},
               {"name": "unit-tests (refunds)", "status": "in_progress", "conclusion": None, "started_at": "2024-03-14T10:42:33Z"},
               {"name": "unit-tests (payouts)", "status": "in_progress", "conclusion": None, "started_at": "2024-03-14T10:42:33Z"},
               {"name": "unit-tests (ledger-core)", "status": "queued", "conclusion": None}]})
    t.say("Lint has passed; the unit-test jobs are still running.")
    # --- topic: payouts copy of the table
    t.topic_switch("payouts has its own copy of the exponent table")
    u_pay = t.user("While that runs: I'm pretty sure payouts has the same table copy-pasted. Can you check services/payouts?")
    t.sh("cd services/payouts && ls -la src/payouts",
         ls_la(r, ["__init__.py", "batch.py", "cutoff.py", "feed.py", "fx.py", "models.py", "report.py", "scheduler.py", "sepa.py"],
               owner="maya", group="maya"))
    g2 = [("src/payouts/fx.py", 11, "# copied from libs/money so payouts can pin its own rounding rules (see LEDG-642)"),
          ("src/payouts/fx.py", 12, "MINOR_UNITS = {"),
          ("src/payouts/fx.py", 20, "def minor_units(currency: str) -> int:"),
          ("src/payouts/fx.py", 21, "    return MINOR_UNITS.get(currency, 2)"),
          ("src/payouts/batch.py", 8, "from payouts.fx import batch_total, convert, minor_units"),
          ("src/payouts/batch.py", 74, "        digits = minor_units(item.currency)"),
          ("src/payouts/report.py", 33, "    return f\"{Decimal(total).scaleb(-minor_units(cur)):.{minor_units(cur)}f} {cur}\""),
          ("src/payouts/sepa.py", 52, "    amount = Decimal(item.amount_minor).scaleb(-minor_units(item.currency))"),
          ("tests/test_fx.py", 6, "from payouts.fx import MINOR_UNITS, convert, minor_units"),
          ("tests/test_fx.py", 15, "    assert minor_units(\"JPY\") == 0")]
    t.sh("grep -rn -e 'MINOR_UNITS\\|minor_units' src tests", grep_lines(g2))
    t.read(REPO + "/services/payouts/src/payouts/fx.py", FX_PY)
    t.say("Confirmed: `services/payouts/src/payouts/fx.py` has its own `MINOR_UNITS` copy (per LEDG-642), also without "
          "KWD/BHD/OMR/JOD, and it defaults to 2 as well. It rounds half-even on purpose, so I'd only add the missing "
          "currencies there, not change the rounding mode.")
    u_pay2 = t.user("Agreed, don't touch the rounding mode in payouts, treasury wants half-even there. Do it on a separate "
                    "branch off main with its own ticket, and link it to the first one.")
    t.fact("payouts_rounding_mode", "ROUND_HALF_EVEN", {"service": "payouts"})
    t.decide("lg-d4-payouts-ticket", [
        P_next("jira_link_issues", {"outward_issue": "LEDG-1187"}, "the new ticket is linked to the key returned earlier"),
        P_next("jira_create_issue", {"sprint": "412"}, "the active sprint id came from the earlier JQL search"),
        P_con(u_pay2, "don't touch the rounding mode", "payouts keeps half-even"),
        P_fact("cwd", REPO + "/services/payouts", "the shell moved into services/payouts",
               superseded=["/tmp/ledger-repro-1187"]),
    ])
    c_t2, _ = t.tool("jira_create_issue", {"project": "LEDG", "issue_type": "Bug",
                                           "summary": "payouts fx.MINOR_UNITS lacks three-decimal currencies",
                                           "description": "Same gap as LEDG-1187 in services/payouts/src/payouts/fx.py (copy of the table, LEDG-642). "
                                                          "Add KWD, BHD, OMR, JOD, TND, IQD, LYD = 3. Keep ROUND_HALF_EVEN (treasury).",
                                           "priority": "Medium", "assignee_account_id": "5f8a1c2e9b3d4e0071a2b3c4",
                                           "labels": ["payouts", "money"], "customfield_10020": 412},
                     {"id": "10486", "key": "LEDG-1190", "self": "https://acme-fin.atlassian.net/rest/api/3/issue/10486"},
                     request_id="jira-9a02f7d1")
    t.tool("jira_link_issues", {"type": "Relates", "inward_issue": "LEDG-1190", "outward_issue": "LEDG-1187"},
           {"linked": True, "link_id": "20117"})
    t.sh("cd ~/src/ledger && git checkout main && git pull --ff-only && git checkout -b maya/ledg-1190-payouts-minor-units",
         "Already up to date.\n",
         stderr="Switched to branch 'main'\nYour branch is up to date with 'origin/main'.\nSwitched to a new branch 'maya/ledg-1190-payouts-minor-units'\n",
         duration_ms=1710)
    t.edit("services/payouts/src/payouts/fx.py", '    "JPY": 0, "KRW": 0,\n}',
           '    "JPY": 0, "KRW": 0,\n    "KWD": 3, "BHD": 3, "OMR": 3, "JOD": 3, "TND": 3, "IQD": 3, "LYD": 3,\n}')
    t.edit("services/payouts/tests/test_fx.py", '    assert minor_units("JPY") == 0',
           '    assert minor_units("JPY") == 0\n    assert minor_units("KWD") == 3\n    assert minor_units("BHD") == 3\n\n\n'
           'def test_convert_kwd_to_usd_keeps_half_even():\n    assert convert(41250, "KWD", "USD", Decimal("3.254100")) == 13423')
    pfiles = [("tests/test_batch.py", 31), ("tests/test_cutoff.py", 12), ("tests/test_feed.py", 19), ("tests/test_fx.py", 14),
              ("tests/test_report.py", 9), ("tests/test_scheduler.py", 16), ("tests/test_sepa.py", 27)]
    t.sh("cd services/payouts && python -m pytest", pytest_log(r, REPO + "/services/payouts", pfiles, seconds=12.07),
         duration_ms=13240)
    sha2 = "7d41e0c" + hexs(r, 33)
    t.sh('git commit -am "LEDG-1190: three-decimal currencies in payouts fx table" && git push -u origin maya/ledg-1190-payouts-minor-units',
         f"[maya/ledg-1190-payouts-minor-units {sha2[:7]}] LEDG-1190: three-decimal currencies in payouts fx table\n 2 files changed, 9 insertions(+)\n"
         "branch 'maya/ledg-1190-payouts-minor-units' set up to track 'origin/maya/ledg-1190-payouts-minor-units'.\n",
         stderr="remote:\nremote: Create a pull request for 'maya/ledg-1190-payouts-minor-units' on GitHub by visiting:\n"
                "remote:      https://github.com/acme-fin/ledger/pull/new/maya/ledg-1190-payouts-minor-units\nremote:\n"
                "To github.com:acme-fin/ledger.git\n * [new branch]      maya/ledg-1190-payouts-minor-units -> maya/ledg-1190-payouts-minor-units\n",
         duration_ms=2650)
    t.tool("github_create_pull_request", {"repo": GH, "head": "maya/ledg-1190-payouts-minor-units", "base": "main",
                                          "title": "LEDG-1190: three-decimal currencies in payouts fx table",
                                          "body": "Fixes LEDG-1190, follow-up of #482 (LEDG-1187). Rounding stays ROUND_HALF_EVEN.", "draft": False},
           {"number": 483, "html_url": "https://github.com/acme-fin/ledger/pull/483", "state": "open",
            "head": {"ref": "maya/ledg-1190-payouts-minor-units", "sha": sha2}, "base": {"ref": "main"}})
    t.say("LEDG-1190 is created and linked to LEDG-1187; PR #483 is open from maya/ledg-1190-payouts-minor-units "
          "(payouts tests all pass, half-even rounding left alone).")
    t.subtask_end("payouts follow-up: LEDG-1190, PR #483")
    # --- back to CI of 482
    c_ci, s_ci = t.tool("github_list_check_runs", {"repo": GH, "ref": sha1},
                        {"total_count": 5, "check_runs": [
                            {"name": "lint", "status": "completed", "conclusion": "success", "completed_at": "2024-03-14T10:43:40Z"},
                            {"name": "unit-tests (refunds)", "status": "completed", "conclusion": "success", "completed_at": "2024-03-14T10:46:02Z",
                             "output": {"title": "pytest", "summary": "180 passed, 3 skipped, 37 deselected in 61.40s"}},
                            {"name": "unit-tests (payouts)", "status": "completed", "conclusion": "success", "completed_at": "2024-03-14T10:45:11Z",
                             "output": {"title": "pytest", "summary": "128 passed, 4 deselected in 19.88s"}},
                            {"name": "unit-tests (ledger-core)", "status": "completed", "conclusion": "success", "completed_at": "2024-03-14T10:47:30Z",
                             "output": {"title": "pytest", "summary": "411 passed, 12 deselected in 97.02s"}},
                            {"name": "contract-tests", "status": "completed", "conclusion": "success", "completed_at": "2024-03-14T10:51:09Z"}]})
    t.say("CI on #482 finished: all five checks green (refunds: 180 passed, 3 skipped, 37 deselected).")
    u_green = t.user("CI is green, nice. Comment on LEDG-1187 with the PR link and move it to In Review.")
    t.decide("lg-d5-ticket-review", [
        P_next("jira_add_comment", {"pr": "482"}, "the PR number came back from create_pull_request many turns ago"),
        P_ev([s_local, s_ci], "CI green vs the local full run red on the same change: the comment should not claim all tests pass"),
        P_fact("payouts_rounding_mode", "ROUND_HALF_EVEN", "the user's decision for payouts stands", subject={"service": "payouts"}),
    ])
    t.tool("jira_add_comment", {"issue_key": "LEDG-1187",
                                "body": "PR: https://github.com/acme-fin/ledger/pull/482 (CI green). Note: CI runs -m \"not slow\"; "
                                        "locally test_roundtrip_fx[KWD-USD] fails because tests/fixtures/settlements.json encodes KWD with 2 decimals."},
           {"id": "88190", "created": "2024-03-14T10:53:02.114+0100"}, request_id="jira-2be81f09")
    c_tr, _ = t.tool("jira_transition_issue", {"issue_key": "LEDG-1187", "transition": "In Review"},
                     {"issue_key": "LEDG-1187", "from_status": "In Progress", "status": "In Review", "transition_id": "31"},
                     request_id="jira-51aa0c3e")
    t.say("Commented on LEDG-1187 with the PR link, and noted that CI is green only because it deselects slow tests while "
          "the full local run still fails on the fixture. Ticket is now In Review.")
    u_why = t.user("Wait, why is CI green if it fails locally? Show me what CI actually runs.")
    t.sh("cd ~/src/ledger && cat .github/workflows/ci.yml", CI_YML)
    t.sh("grep -n -A3 'markers' pyproject.toml services/refunds/pyproject.toml",
         "services/refunds/pyproject.toml:41:markers = [\nservices/refunds/pyproject.toml-42-    \"slow: touches fixtures or the db; nightly only\",\n"
         "services/refunds/pyproject.toml-43-    \"contract: provider contract tests\",\nservices/refunds/pyproject.toml-44-]\n")
    t.say("CI's unit-tests job runs `python -m pytest -m \"not slow\"` (slow tests are nightly per the comment), so the "
          "37 deselected tests include `test_roundtrip_fx`. Locally `pytest` has no marker filter, so it runs them and hits "
          "the bad fixture. Nightly will go red after merge unless the fixture is regenerated.")
    # --- review comments on 482
    u_rev = t.user("OK. Daniel left comments on the refund PR, go back to that branch and address them.")
    t.decide("lg-d6-review", [
        P_next("bash", {"branch": "maya/ledg-1187-refund-minor-units"}, "the branch name the user typed at the start of the fix; the shell is on the payouts branch"),
        P_next("github_list_review_comments", {"pull_number": "482"}, "'the refund PR' is #482, not #483"),
        P_fact("cwd", REPO, "cat ci.yml ran after cd ~/src/ledger", superseded=[REPO + "/services/payouts"]),
    ])
    t.tool("github_list_review_comments", {"repo": GH, "pull_number": 482},
           [{"id": 1527004411, "user": {"login": "dokafor"}, "path": "libs/money/src/money/rounding.py", "line": 43,
             "body": "Half-up is what finance asked for in LEDG-1187, fine. But please keep `allocate()` consistent: it still uses float "
                     "division. Either switch it to Decimal too or leave a comment why not.", "created_at": "2024-03-14T11:20:44Z"},
            {"id": 1527006172, "user": {"login": "dokafor"}, "path": "services/refunds/tests/test_partial_minor_units.py", "line": 14,
             "body": "Add a BHD case with an exact half (8.125 / 2). That's the one our Bahrain merchant complained about last year.",
             "created_at": "2024-03-14T11:22:09Z"},
            {"id": 1527007380, "user": {"login": "dokafor"}, "path": "libs/money/src/money/rounding.py", "line": 16,
             "body": "nit: keep the table alphabetical within each exponent group", "created_at": "2024-03-14T11:23:51Z"}])
    t.sh("git checkout maya/ledg-1187-refund-minor-units && git log --oneline -3",
         f"{sha1[:7]} (HEAD -> maya/ledg-1187-refund-minor-units, origin/maya/ledg-1187-refund-minor-units) LEDG-1187: minor units for three-decimal currencies, half-up proportional refunds\n"
         f"{shas[0][:7]} (origin/main, origin/HEAD, main) Merge pull request #477 from acme-fin/dependabot/pip/sqlalchemy-2.0.29\n"
         f"{shas[1][:7]} payouts: retry treasury feed on 502 (LEDG-1163)\n",
         stderr="Switched to branch 'maya/ledg-1187-refund-minor-units'\nYour branch is up to date with 'origin/maya/ledg-1187-refund-minor-units'.\n")
    t.edit("libs/money/src/money/rounding.py", "    raw = [minor_total * w / whole for w in weights]",
           "    raw = [Decimal(minor_total) * w / whole for w in weights]")
    t.edit("services/refunds/tests/test_partial_minor_units.py", "    assert proportional(1235, 3, 7) == 529",
           "    assert proportional(1235, 3, 7) == 529\n    assert proportional(8125, 1, 2) == 4063  # BHD exact half")
    t.sh("cd libs/money && python -m pytest -q && cd ../../services/refunds && python -m pytest -q -m 'not slow'",
         "..............                                                           [100%]\n14 passed in 0.52s\n"
         + "." * 72 + " [ 39%]\n" + "." * 40 + "s" + "." * 31 + " [ 78%]\n" + "." * 36 + "ss [100%]\n180 passed, 3 skipped, 37 deselected in 21.77s\n",
         duration_ms=23990)
    sha3 = "b80e7f1" + hexs(r, 33)
    t.sh('git commit -am "LEDG-1187: Decimal in allocate(), BHD half case, sorted table" && git push',
         f"[maya/ledg-1187-refund-minor-units {sha3[:7]}] LEDG-1187: Decimal in allocate(), BHD half case, sorted table\n 2 files changed, 6 insertions(+), 4 deletions(-)\n",
         stderr=f"To github.com:acme-fin/ledger.git\n   {sha1[:7]}..{sha3[:7]}  maya/ledg-1187-refund-minor-units -> maya/ledg-1187-refund-minor-units\n",
         duration_ms=2210)
    t.say("Addressed all three: `allocate()` now uses Decimal, a BHD exact-half test (8.125/2 -> 4.063), and the table is "
          "sorted within each exponent group. Pushed as " + sha3[:7] + "; the non-slow suite passes locally (180 passed, 3 skipped, 37 deselected).")
    # --- fixture after all
    u_fixture = t.user("You know what, fix the fixture too in this PR, otherwise nightly goes red the moment we merge. "
                       "Regenerate it with the tool, then run the repro script again against the fixed code.")
    t.decide("lg-d7-fixture", [
        P_next("bash", {"fixture": "tests/fixtures/settlements.json"}, "the failing fixture's path came from the failure log"),
        P_next("bash", {"repro": "/tmp/ledger-repro-1187"}, "the scratch dir made at the start holds repro.py"),
        P_fact("cwd", REPO + "/services/refunds", "the last shell command ended in services/refunds", superseded=[REPO]),
    ])
    regen = "\n".join([f"  {cur}->{tgt}: {n} rows" for cur, tgt, n in
                       [("EUR", "USD", 6), ("GBP", "EUR", 5), ("KWD", "USD", 4), ("BHD", "EUR", 3), ("JPY", "EUR", 5),
                        ("CHF", "EUR", 4), ("SEK", "EUR", 3), ("OMR", "USD", 3), ("USD", "JPY", 4)]])
    t.sh("cd ~/src/ledger && python tools/regen_fixtures.py --only settlements --out services/refunds/tests/fixtures/settlements.json",
         "regen_fixtures: reading sandbox settlements 2023-05-01..2023-05-31 (cached)\n" + regen +
         "\nwrote 37 rows to services/refunds/tests/fixtures/settlements.json (KWD/BHD/OMR now exponent 3)\n", duration_ms=3890)
    t.sh("git diff --stat", " services/refunds/tests/fixtures/settlements.json | 40 +++++++++++++++++-----------------\n 1 file changed, 20 insertions(+), 20 deletions(-)\n")
    t.sh("cd services/refunds && python -m pytest -q -m slow",
         "." * 37 + "                                    [100%]\n37 passed, 183 deselected in 18.41s\n", duration_ms=19020)
    t.sh("cd /tmp/ledger-repro-1187 && python3 repro.py",
         "OK  KWD exp=3 captured=12.345 -> 12345 minor, 3/7 -> 5.291 (expected 5.291)\n"
         "OK  BHD exp=3 captured=8.125 -> 8125 minor, 1/2 -> 4.063 (expected 4.063)\n"
         "OK  JPY exp=0 captured=1005 -> 1005 minor, 1/2 -> 503 (expected 503)\n"
         "OK  EUR exp=2 captured=19.99 -> 1999 minor, 1/3 -> 6.66 (expected 6.66)\n")
    sha4 = "e2c6d05" + hexs(r, 33)
    t.sh('cd ~/src/ledger && git commit -am "LEDG-1187: regenerate settlements fixture with three-decimal KWD/BHD/OMR" && git push',
         f"[maya/ledg-1187-refund-minor-units {sha4[:7]}] LEDG-1187: regenerate settlements fixture with three-decimal KWD/BHD/OMR\n 1 file changed, 20 insertions(+), 20 deletions(-)\n",
         stderr=f"To github.com:acme-fin/ledger.git\n   {sha3[:7]}..{sha4[:7]}  maya/ledg-1187-refund-minor-units -> maya/ledg-1187-refund-minor-units\n",
         duration_ms=2050)
    t.say("Fixture regenerated (37 rows, KWD/BHD/OMR now three decimals), the slow tests pass (37 passed), and the repro "
          "script now prints OK for all four cases. Pushed " + sha4[:7] + " to the PR branch.")
    u_comment = t.user("Great. Add a comment on the ticket saying the fixture is fixed in the same PR and that payouts is "
                       "tracked separately.")
    c_cm, _ = t.tool("jira_add_comment", {"issue_key": "LEDG-1187",
                                          "body": "Regenerated tests/fixtures/settlements.json in PR #482 (commit " + sha4[:7] + "); slow suite passes locally. "
                                                  "Payouts has its own copy of the table, tracked in LEDG-1190 (PR #483)."},
                     outcome="timeout", error="POST /rest/api/3/issue/LEDG-1187/comment: no response within 30s (gateway 504)")
    t.say("Jira timed out on that comment (504 from the gateway), so I don't know whether it was saved. I'll check the "
          "ticket before trying again so it isn't posted twice.")
    u_to = t.user("Fine, check first. And move LEDG-1190 to In Review as well while you're at it.")
    t.decide("lg-d8-timeout", [
        P_state(c_cm, "unknown", "the comment call timed out; it may or may not exist"),
        P_next("jira_get_issue", {"issue_key": "LEDG-1187"}, "check the comments of the first ticket before re-posting"),
        P_state(c_tr, "succeeded", "the earlier transition of LEDG-1187 went through", request_id="jira-51aa0c3e"),
        P_fact("payouts_rounding_mode", "ROUND_HALF_EVEN", "still the rule when touching payouts", subject={"service": "payouts"}),
    ])
    t.tool("jira_get_issue", {"issue_key": "LEDG-1187", "fields": ["status", "comment", "issuelinks"]},
           {"key": "LEDG-1187", "fields": {"status": {"name": "In Review", "id": "10003"},
                                           "issuelinks": [{"type": {"name": "Relates"}, "inwardIssue": {"key": "LEDG-1190", "fields": {"status": {"name": "To Do"}}}}],
                                           "comment": {"total": 2, "comments": [
                                               {"id": "88190", "author": {"displayName": "Maya Rahman"}, "created": "2024-03-14T10:53:02.114+0100",
                                                "body": "PR: https://github.com/acme-fin/ledger/pull/482 (CI green). Note: CI runs -m \"not slow\"; locally test_roundtrip_fx[KWD-USD] fails because tests/fixtures/settlements.json encodes KWD with 2 decimals."},
                                               {"id": "88213", "author": {"displayName": "Maya Rahman"}, "created": "2024-03-14T12:08:47.530+0100",
                                                "body": "Regenerated tests/fixtures/settlements.json in PR #482 (commit " + sha4[:7] + "); slow suite passes locally. Payouts has its own copy of the table, tracked in LEDG-1190 (PR #483)."}]}}})
    t.status_query(c_cm, "succeeded", {"comment_id": "88213", "found_in": "LEDG-1187 comments"}, request_id="jira-88213")
    t.tool("jira_transition_issue", {"issue_key": "LEDG-1190", "transition": "In Review"},
           {"issue_key": "LEDG-1190", "from_status": "To Do", "status": "In Review", "transition_id": "31"}, request_id="jira-6d3f9e77")
    t.say("The timed-out comment did land (comment 88213 on LEDG-1187), so I did not re-post it. LEDG-1190 is now In Review.")
    u_end = t.user("Good. Wrap up: give me the state of both tickets and PRs, and delete the scratch dir.")
    t.decide("lg-d9-wrap", [
        P_next("bash", {"scratch": "/tmp/ledger-repro-1187"}, "the scratch dir was created near the start"),
        P_state(c_cm, "succeeded", "the status query found the comment", request_id="jira-88213"),
        P_fact("status", "In Review", "LEDG-1187 is In Review", subject={"issue_key": "LEDG-1187"}, superseded=["In Progress"]),
        P_ev([s_local, s_ci], "the report must still say CI deselects slow tests while local runs them"),
    ])
    t.sh("rm -rf /tmp/ledger-repro-1187 && ls /tmp | grep -c ledger-repro || true", "0\n")
    t.say("Scratch dir removed. State: LEDG-1187 In Review with PR #482 (4 commits, fixture regenerated, waiting on "
          "Daniel's re-review); LEDG-1190 In Review with PR #483 (payouts table, half-even kept). CI on #482 was green "
          "with slow tests deselected; the slow suite now passes locally too.")
    return t


# --------------------------------------------------------------------------------------
# 02: UI kit release: version typed once, publish behind approval times out, registries disagree
# --------------------------------------------------------------------------------------
def vitest_log(rng, root, files, failed=None, duration=None, version="1.4.0"):
    """files: (path, n tests); failed: {path: (test title, message)}"""
    failed = failed or {}
    out = [f" RUN  v{version} {root}", ""]
    ntests = 0
    for path, n in files:
        ms = rng.randint(40, 1400)
        ntests += n
        if path in failed:
            title, msg = failed[path]
            out.append(f" ❯ {path}  ({n} tests | 1 failed) {ms + 5000}ms")
            out.append(f"   × {title}")
            out.append(f"     → {msg}")
        else:
            out.append(f" ✓ {path}  ({n} tests) {ms}ms")
    nf = len(failed)
    out.append("")
    if failed:
        out.append("⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯" if nf == 1 else f"⎯⎯⎯⎯⎯⎯⎯ Failed Tests {nf} ⎯⎯⎯⎯⎯⎯⎯")
        for path, (title, msg) in failed.items():
            out += ["", f" FAIL  {path} > {title}", f"Error: {msg}", f" ❯ {path}:88:5", "", "⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯", ""]
    tf = f"{nf} failed | {len(files) - nf} passed ({len(files)})" if nf else f"{len(files)} passed ({len(files)})"
    tt = f"{nf} failed | {ntests - nf} passed ({ntests})" if nf else f"{ntests} passed ({ntests})"
    d = duration or round(rng.uniform(20, 45), 2)
    out += [f" Test Files  {tf}", f"      Tests  {tt}", f"   Start at  {rng.randint(9, 16):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}",
            f"   Duration  {d}s (transform {round(d * 0.06, 2)}s, setup {round(d * 0.2, 2)}s, collect {round(d * 0.35, 2)}s, tests {round(d * 0.8, 2)}s, environment {round(d * 0.45, 2)}s, prepare {round(d * 0.15, 2)}s)"]
    return "\n".join(out) + "\n"


UI_COMPONENTS = ["accordion", "alert", "avatar", "badge", "breadcrumb", "button", "calendar", "checkbox", "combobox",
                 "date-picker", "dialog", "drawer", "dropdown-menu", "empty-state", "field", "file-upload", "icon-button",
                 "input", "link", "menu", "modal", "number-input", "pagination", "popover", "progress", "radio",
                 "select", "skeleton", "slider", "spinner", "stepper", "switch", "table", "tabs", "tag", "textarea",
                 "toast", "toggle-group", "tooltip", "tree", "visually-hidden", "portal", "focus-scope"]


def _camel(name):
    return "".join(p.capitalize() for p in name.split("-"))


def t02() -> Traj:
    t = Traj(2, "ui-kit-release", "ws2-ui-kit-release",
             "Cutting @acme/ui-kit 4.12.0: changelog, build, tag, publish under next, promote, GitHub release",
             ["a version number and a dist-tag typed once by the user, needed many turns later",
              "an irreversible publish behind an approval whose call times out and is resolved by a status query",
              "the public registry and the internal Artifactory mirror disagree about the latest version, far apart",
              "a GitHub release (irreversible) that needs the commit sha returned by an earlier push",
              "the user changes the dist-tag from next to latest after QA signs off"],
             "A frontend lead walks the agent through a release of a pnpm monorepo package; the registry "
             "publish hangs and must be checked, not repeated; the internal mirror reports a version the "
             "public registry never had.",
             seed=202, home="/home/priya", cwd="/home/priya", prefix="ui")
    r = t.rng
    REPO = "/home/priya/work/acme-ui"
    PKG = "@acme/ui-kit"
    GH = "acme-corp/acme-ui"
    u1 = t.user("We're cutting ui-kit 4.12.0 today. The release branch release/4.12 already exists, repo is ~/work/acme-ui. "
                "Rule for this one: publish under the next dist-tag first, NOT latest, until QA signs off in QA-3318. "
                "Start by telling me what's changed since the last release.")
    t.fact("release_version", "4.12.0", {"package": PKG})
    t.fact("dist_tag", "next", {"package": PKG})
    t.sh("cd ~/work/acme-ui && git fetch --tags origin && git checkout release/4.12 && git status",
         "On branch release/4.12\nYour branch is up to date with 'origin/release/4.12'.\n\nnothing to commit, working tree clean\n",
         stderr="From github.com:acme-corp/acme-ui\n   4c1d2e0..a97f3b1  main         -> origin/main\n * [new tag]         v4.12.0-rc.2 -> v4.12.0-rc.2\nSwitched to branch 'release/4.12'\n",
         duration_ms=2890)
    t.sh("ls -la && cat pnpm-workspace.yaml",
         ls_la(r, [".changeset/", ".editorconfig", ".eslintrc.cjs", ".git/", ".github/", ".gitignore", ".husky/", ".npmrc",
                   ".nvmrc", ".prettierrc", ".storybook/", "CODEOWNERS", "LICENSE", "README.md", "apps/", "chromatic.config.json",
                   "package.json", "packages/", "pnpm-lock.yaml", "pnpm-workspace.yaml", "scripts/", "tsconfig.base.json",
                   "turbo.json", "vitest.workspace.ts"], owner="priya", group="priya")
         + "packages:\n  - 'packages/*'\n  - 'apps/*'\n  - '!apps/legacy-playground'\n")
    _, s_reg = t.tool("registry_get_package", {"package": PKG},
                      {"name": PKG, "dist-tags": {"latest": "4.11.2", "next": "4.12.0-rc.2", "legacy": "3.9.7"},
                       "versions": ["4.10.0", "4.10.1", "4.11.0", "4.11.1", "4.11.2", "4.12.0-rc.1", "4.12.0-rc.2"],
                       "time": {"4.11.2": "2024-02-27T15:02:11.482Z", "4.12.0-rc.1": "2024-03-06T11:40:03.101Z",
                                "4.12.0-rc.2": "2024-03-12T09:12:55.930Z", "modified": "2024-03-12T09:12:56.204Z"},
                       "maintainers": [{"name": "acme-release-bot"}, {"name": "priya.n"}, {"name": "marco.b"}],
                       "repository": {"type": "git", "url": "git+https://github.com/acme-corp/acme-ui.git", "directory": "packages/ui-kit"},
                       "registry": "https://registry.npmjs.org/"})
    commits = [("feat(select): async option loading with loadOptions", "Lena Vogel"),
               ("fix(tooltip): do not reopen on focus after Escape", "Marco Bianchi"),
               ("feat(table): sticky header and column pinning", "Priya Nair"),
               ("fix(dialog): restore focus to trigger on close (#1402)", "Marco Bianchi"),
               ("chore(deps): bump @floating-ui/react to 0.26.9", "renovate[bot]"),
               ("feat(date-picker): locale-aware first day of week", "Aiko Tanaka"),
               ("fix(select): focus trap escapes when portal is nested (#1417)", "Marco Bianchi"),
               ("docs(table): pinning examples", "Priya Nair"),
               ("feat(tokens): add color.surface.sunken", "Lena Vogel"),
               ("fix(button): loading state keeps width", "Jonas Berg"),
               ("refactor(field): share label/description ids via context", "Jonas Berg"),
               ("feat(toast): pause timers while window is hidden", "Aiko Tanaka"),
               ("fix(combobox): announce result count to screen readers", "Lena Vogel"),
               ("test(tooltip): fake timers for delay tests", "Marco Bianchi"),
               ("chore: release 4.12.0-rc.1", "acme-release-bot"),
               ("fix(tabs): keyboard navigation skips disabled tabs", "Jonas Berg"),
               ("feat(icons): 14 new outline icons", "Aiko Tanaka"),
               ("fix(table): column resize handle hit area", "Priya Nair"),
               ("chore(deps): bump vitest to 1.4.0", "renovate[bot]"),
               ("fix(slider): rtl value mapping", "Lena Vogel"),
               ("chore: release 4.12.0-rc.2", "acme-release-bot"),
               ("fix(popover): close on outside pointerdown in shadow DOM", "Marco Bianchi")]
    shas = {m: hexs(r, 40) for m, _ in commits}
    t.sh("git log --no-merges --format='%h %s (%an)' v4.11.2..HEAD",
         "\n".join(f"{shas[m][:7]} {m} ({a})" for m, a in reversed(commits)) + "\n")
    t.sh("cat packages/ui-kit/package.json | head -40",
         '{\n  "name": "@acme/ui-kit",\n  "version": "4.12.0-rc.2",\n  "description": "Acme design system React components",\n'
         '  "license": "MIT",\n  "type": "module",\n  "sideEffects": ["**/*.css"],\n  "main": "./dist/index.cjs",\n'
         '  "module": "./dist/index.mjs",\n  "types": "./dist/index.d.ts",\n  "exports": {\n    ".": {\n      "types": "./dist/index.d.ts",\n'
         '      "import": "./dist/index.mjs",\n      "require": "./dist/index.cjs"\n    },\n    "./styles.css": "./dist/styles.css"\n  },\n'
         '  "files": ["dist", "README.md", "CHANGELOG.md"],\n  "scripts": {\n    "build": "tsup && vite build --config vite.lib.config.ts",\n'
         '    "test": "vitest run",\n    "lint": "eslint src --max-warnings 0",\n    "typecheck": "tsc -p tsconfig.json --noEmit",\n'
         '    "prepublishOnly": "pnpm run build"\n  },\n  "peerDependencies": {\n    "react": "^18.2.0",\n    "react-dom": "^18.2.0"\n  },\n'
         '  "dependencies": {\n    "@acme/tokens": "workspace:^",\n    "@acme/icons": "workspace:^",\n    "@floating-ui/react": "^0.26.9",\n'
         '    "clsx": "^2.1.0"\n  },\n  "publishConfig": {\n    "access": "public",\n    "provenance": true\n  },\n')
    t.say(f"There are {len(commits)} commits on release/4.12 since v4.11.2: features in select (async loading), table "
          "(sticky header, column pinning), date-picker (locale first day), toast, tokens and icons; fixes in tooltip, "
          "dialog focus restore, select focus trap (#1417), button, combobox, tabs, table resize, slider RTL and popover. "
          "The registry has latest = 4.11.2 and next = 4.12.0-rc.2; package.json is at 4.12.0-rc.2.")
    u2 = t.user("Good. Write the changelog entry from that, grouped into Features and Fixes, skip chores/docs/tests. Then bump the version.")
    t.decide("ui-d1-changelog", [
        P_fact("release_version", "4.12.0", "the version typed in the first message", subject={"package": PKG}),
        P_next("bash", {"since": "v4.11.2"}, "the range of commits for the entry"),
        P_con(u1, "publish under the next dist-tag first", "the publishing rule for the release"),
    ])
    cl_old = ("# @acme/ui-kit\n\n## 4.11.2\n\n### Fixes\n\n- dialog: scroll lock released when unmounted while open\n"
              "- select: value not cleared by `reset()` in uncontrolled forms\n\n## 4.11.1\n\n### Fixes\n\n"
              "- tooltip: arrow position in RTL\n- table: `aria-sort` on sortable headers\n\n## 4.11.0\n\n### Features\n\n"
              "- combobox: `creatable` prop\n- field: `description` slot\n- tokens: motion durations\n\n### Fixes\n\n"
              "- popover: z-index inside dialogs\n- tabs: focus ring clipped in overflow containers\n")
    t.read("packages/ui-kit/CHANGELOG.md", cl_old)
    feats = [m for m, _ in commits if m.startswith("feat")]
    fixes = [m for m, _ in commits if m.startswith("fix")]
    entry = ("## 4.12.0\n\n### Features\n\n" + "\n".join("- " + m.split(": ", 1)[0][5:-1] + ": " + m.split(": ", 1)[1] for m in feats)
             + "\n\n### Fixes\n\n" + "\n".join("- " + m.split(": ", 1)[0][4:-1] + ": " + m.split(": ", 1)[1] for m in fixes) + "\n\n")
    t.edit(REPO + "/packages/ui-kit/CHANGELOG.md", "# @acme/ui-kit\n\n", "# @acme/ui-kit\n\n" + entry)
    t.sh("pnpm --filter @acme/ui-kit exec npm version 4.12.0 --no-git-tag-version", "v4.12.0\n", duration_ms=1420)
    inst = ("Scope: all 7 workspace projects\nLockfile is up to date, resolution step is skipped\nProgress: resolved 1, reused 0, downloaded 0, added 0\n"
            "Packages: +1184\n" + "+" * 80 + "\nProgress: resolved 1184, reused 1181, downloaded 3, added 1184, done\n"
            ".../node_modules/esbuild postinstall$ node install.js\n.../node_modules/esbuild postinstall: Done\n"
            "packages/tokens prepare$ node scripts/check-names.mjs\npackages/tokens prepare: 214 tokens ok\npackages/tokens prepare: Done\n\n"
            "dependencies:\n+ react 18.2.0\n+ react-dom 18.2.0\n\ndevDependencies:\n+ @changesets/cli 2.27.1\n+ @playwright/test 1.42.1\n"
            "+ @testing-library/react 14.2.2\n+ @testing-library/user-event 14.5.2\n+ @types/react 18.2.66\n+ eslint 8.57.0\n+ tsup 8.0.2\n"
            "+ typescript 5.4.2\n+ vite 5.1.6\n+ vitest 1.4.0\n\n WARN  Issues with peer dependencies found\napps/docs\n└─┬ @docusaurus/core 3.1.1\n"
            "  └─┬ react-loadable-ssr-addon-v5-slorber 1.0.1\n    └── ✕ unmet peer webpack@\">=4.41.1 || 5.x\": found 5.90.3 in @docusaurus/core\n\nDone in 18.4s\n")
    t.sh("pnpm install --frozen-lockfile", inst, duration_ms=18420)
    build = ["Scope: 4 of 7 workspace projects",
             "packages/tokens build$ style-dictionary build --config sd.config.mjs",
             "packages/tokens build: css", "packages/tokens build: ✔︎ dist/tokens.css", "packages/tokens build: js",
             "packages/tokens build: ✔︎ dist/tokens.mjs", "packages/tokens build: ✔︎ dist/tokens.d.ts", "packages/tokens build: Done",
             "packages/icons build$ svgr --typescript --out-dir src/generated svg && tsup",
             "packages/icons build: 312 icons converted", "packages/icons build: CLI Building entry: src/index.ts",
             "packages/icons build: ESM dist/index.mjs     188.21 KB", "packages/icons build: CJS dist/index.cjs     201.77 KB",
             "packages/icons build: DTS dist/index.d.ts    41.02 KB", "packages/icons build: Done",
             "packages/ui-kit build$ tsup && vite build --config vite.lib.config.ts",
             "packages/ui-kit build: CLI Using tsconfig: tsconfig.build.json", "packages/ui-kit build: CLI tsup v8.0.2",
             "packages/ui-kit build: CLI Target: es2020", "packages/ui-kit build: ESM Build start", "packages/ui-kit build: CJS Build start"]
    for comp in UI_COMPONENTS[:22]:
        build.append(f"packages/ui-kit build: ESM dist/{_camel(comp)}.mjs   {r.uniform(2, 40):.2f} KB")
    build += ["packages/ui-kit build: ESM dist/index.mjs     318.52 KB", "packages/ui-kit build: ESM ⚡️ Build success in 2214ms",
              "packages/ui-kit build: CJS dist/index.cjs     341.09 KB", "packages/ui-kit build: CJS ⚡️ Build success in 2390ms",
              "packages/ui-kit build: DTS Build start", "packages/ui-kit build: DTS ⚡️ Build success in 7702ms",
              "packages/ui-kit build: DTS dist/index.d.ts 96.44 KB", "packages/ui-kit build: vite v5.1.6 building for production...",
              "packages/ui-kit build: transforming...", "packages/ui-kit build: ✓ 412 modules transformed.",
              "packages/ui-kit build: dist/styles.css  84.71 kB │ gzip: 12.95 kB", "packages/ui-kit build: ✓ built in 3.88s",
              "packages/ui-kit build: Done", "apps/docs build$ docusaurus build", "apps/docs build: [SKIPPED] (filtered: --filter !docs)"]
    t.sh("pnpm -r --filter '!docs' build", "\n".join(build) + "\n", duration_ms=21870)
    vfiles = [(f"src/{c}/{_camel(c)}.test.tsx", r.randint(4, 31)) for c in UI_COMPONENTS]
    t.sh("cd packages/ui-kit && pnpm test",
         vitest_log(r, REPO + "/packages/ui-kit", vfiles,
                    failed={"src/tooltip/Tooltip.test.tsx": ("Tooltip > closes on Escape after the open delay", "Test timed out in 5000ms.")}),
         exit_code=1, duration_ms=41020)
    t.sh("pnpm vitest run src/tooltip --reporter=verbose",
         " RUN  v1.4.0 " + REPO + "/packages/ui-kit\n\n ✓ src/tooltip/Tooltip.test.tsx > Tooltip > opens after the open delay 41ms\n"
         " ✓ src/tooltip/Tooltip.test.tsx > Tooltip > closes on Escape after the open delay 23ms\n"
         " ✓ src/tooltip/Tooltip.test.tsx > Tooltip > does not reopen on focus after Escape 19ms\n"
         " ✓ src/tooltip/Tooltip.test.tsx > Tooltip > respects prefers-reduced-motion 8ms\n"
         " ✓ src/tooltip/Tooltip.test.tsx > Tooltip > portal container prop 11ms\n\n Test Files  1 passed (1)\n      Tests  5 passed (5)\n"
         "   Duration  1.92s\n", duration_ms=2410)
    size_rows = [(f"dist/{_camel(c)}.mjs", r.uniform(1.2, 14.0), r.uniform(1.0, 15.0)) for c in UI_COMPONENTS[:16]]
    size_out = "\n".join(f"  {name}\n  Size limit:   {lim:.1f} kB\n  Size:         {min(sz, lim - 0.1):.2f} kB with all dependencies, minified and brotlied\n"
                         for name, sz, lim in size_rows)
    t.sh("pnpm size", "> @acme/ui-kit@4.12.0 size " + REPO + "/packages/ui-kit\n> size-limit\n\n" + size_out
         + "\n  dist/index.mjs (whole kit)\n  Size limit:   95 kB\n  Size:         91.37 kB with all dependencies, minified and brotlied\n",
         duration_ms=9120)
    diff = ("diff --git a/packages/ui-kit/CHANGELOG.md b/packages/ui-kit/CHANGELOG.md\nindex " + hexs(r, 7) + ".." + hexs(r, 7) + " 100644\n"
            "--- a/packages/ui-kit/CHANGELOG.md\n+++ b/packages/ui-kit/CHANGELOG.md\n@@ -1,5 +1,27 @@\n # @acme/ui-kit\n \n"
            + "".join("+" + l + "\n" for l in entry.rstrip("\n").split("\n")) + "+\n ## 4.11.2\n \n ### Fixes\n"
            "diff --git a/packages/ui-kit/package.json b/packages/ui-kit/package.json\nindex " + hexs(r, 7) + ".." + hexs(r, 7) + " 100644\n"
            "--- a/packages/ui-kit/package.json\n+++ b/packages/ui-kit/package.json\n@@ -1,6 +1,6 @@\n {\n   \"name\": \"@acme/ui-kit\",\n"
            "-  \"version\": \"4.12.0-rc.2\",\n+  \"version\": \"4.12.0\",\n   \"description\": \"Acme design system React components\",\n   \"license\": \"MIT\",\n")
    t.sh("git diff", diff)
    t.say("Changelog entry written (6 features, 10 fixes), version bumped to 4.12.0, build is clean. The full test run "
          "had one timeout in the Tooltip Escape test; rerun alone it passes in 23ms, so it's the known flaky delay test "
          "under load rather than a regression.")
    u3 = t.user("Yeah that tooltip test is flaky, ignore it. Commit, tag and push the release branch.")
    t.decide("ui-d2-tag", [
        P_next("bash", {"version": "4.12.0", "branch": "release/4.12"}, "tag name and branch come from the first message"),
        P_fact("cwd", REPO + "/packages/ui-kit", "the shell moved into the package for the tests", superseded=[REPO]),
    ])
    sha_rel = "5be20d9" + hexs(r, 33)
    t.sh("cd ~/work/acme-ui && git add packages/ui-kit/package.json packages/ui-kit/CHANGELOG.md && git commit -m 'chore: release @acme/ui-kit 4.12.0'",
         f"[release/4.12 {sha_rel[:7]}] chore: release @acme/ui-kit 4.12.0\n 2 files changed, 24 insertions(+), 1 deletion(-)\n")
    t.sh("git tag -a v4.12.0 -m '@acme/ui-kit 4.12.0' && git push origin release/4.12 --follow-tags && git rev-parse HEAD",
         sha_rel + "\n",
         stderr=(f"Enumerating objects: 12, done.\nCounting objects: 100% (12/12), done.\nWriting objects: 100% (7/7), 1.43 KiB | 1.43 MiB/s, done.\n"
                 f"Total 7 (delta 5), reused 0 (delta 0), pack-reused 0\nremote: Resolving deltas: 100% (5/5), completed with 5 local objects.\n"
                 f"To github.com:acme-corp/acme-ui.git\n   {shas[commits[-1][0]][:7]}..{sha_rel[:7]}  release/4.12 -> release/4.12\n * [new tag]         v4.12.0 -> v4.12.0\n"),
         duration_ms=3120)
    t.tool("github_list_check_runs", {"repo": GH, "ref": "v4.12.0"},
           {"total_count": 6, "check_runs": [
               {"name": "build", "status": "completed", "conclusion": "success", "completed_at": "2024-03-14T13:58:12Z", "head_sha": sha_rel},
               {"name": "test (node 18)", "status": "completed", "conclusion": "success", "completed_at": "2024-03-14T14:01:40Z",
                "output": {"title": "vitest", "summary": "43 passed (43), 612 tests"}},
               {"name": "test (node 20)", "status": "completed", "conclusion": "success", "completed_at": "2024-03-14T14:01:52Z",
                "output": {"title": "vitest", "summary": "43 passed (43), 612 tests"}},
               {"name": "size-limit", "status": "completed", "conclusion": "success", "output": {"summary": "index.mjs 91.37 kB / 95 kB"}},
               {"name": "chromatic", "status": "completed", "conclusion": "neutral",
                "output": {"title": "3 visual changes accepted", "summary": "Table (pinned columns), Select (async), DatePicker (ja-JP)"}},
               {"name": "publish-dry-run", "status": "completed", "conclusion": "success", "output": {"summary": "npm publish --dry-run ok, 214 files"}}]})
    t.say(f"Committed and tagged: v4.12.0 points at {sha_rel}, pushed with the release branch. CI on the tag is green "
          "(node 18/20 tests, size-limit, publish dry-run); Chromatic has 3 accepted visual changes.")
    u4 = t.user("Now pack it and publish. Remember the rule.")
    t.decide("ui-d3-publish", [
        P_fact("dist_tag", "next", "publishing under next until QA signs off", subject={"package": PKG}),
        P_con(u1, "NOT latest", "the user's publishing rule"),
        P_next("bash", {"package_dir": "packages/ui-kit"}, "npm pack runs in the package dir"),
    ])
    files_list = ["LICENSE", "README.md", "CHANGELOG.md", "package.json", "dist/index.cjs", "dist/index.mjs", "dist/index.d.ts",
                  "dist/styles.css"] + [f"dist/{_camel(c)}.mjs" for c in UI_COMPONENTS[:18]]
    sizes = {f: f"{r.uniform(1, 90):.1f}kB" for f in files_list}
    sizes.update({"dist/index.cjs": "341.1kB", "dist/index.mjs": "318.5kB", "dist/index.d.ts": "96.4kB", "dist/styles.css": "84.7kB"})
    integ = "sha512-" + "".join(r.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(86)) + "=="
    shasum = hexs(r, 40)
    pack = ("npm notice\nnpm notice 📦  @acme/ui-kit@4.12.0\nnpm notice === Tarball Contents ===\n"
            + "\n".join(f"npm notice {sizes[f]:<8} {f}" for f in files_list)
            + f"\nnpm notice === Tarball Details ===\nnpm notice name:          @acme/ui-kit\nnpm notice version:       4.12.0\n"
              f"npm notice filename:      acme-ui-kit-4.12.0.tgz\nnpm notice package size:  412.7 kB\nnpm notice unpacked size: 2.1 MB\n"
              f"npm notice shasum:        {shasum}\nnpm notice integrity:     {integ[:24]}[...]{integ[-12:]}\nnpm notice total files:   214\nnpm notice\n")
    t.sh("cd packages/ui-kit && npm pack", pack + "acme-ui-kit-4.12.0.tgz\n", duration_ms=5220)
    t.sh("ls -la && npm whoami",
         ls_la(r, [".eslintrc.cjs", ".storybook/", "CHANGELOG.md", "README.md", ("acme-ui-kit-4.12.0.tgz", 412698), "dist/",
                   "node_modules/", "package.json", "size-limit.json", "src/", "tsconfig.build.json", "tsconfig.json",
                   "tsup.config.ts", "vite.lib.config.ts", "vitest.config.ts"], owner="priya", group="priya") + "priya.n\n")
    TARBALL = REPO + "/packages/ui-kit/acme-ui-kit-4.12.0.tgz"
    c_pub = t.call("registry_publish", {"package": PKG, "version": "4.12.0", "tarball": TARBALL, "tag": "next",
                                        "access": "public", "provenance": True}, key="ui-publish-ui-kit-4.12.0")
    ap = "apr_ui_publish_4120"
    t.approval(ap, "requested", c_pub.seq, action="npm publish @acme/ui-kit@4.12.0 --tag next",
               reason="publishing a version to the public registry cannot be undone (a version number can never be reused)")
    t.say("Packed acme-ui-kit-4.12.0.tgz (214 files, 412.7 kB). Publishing is irreversible, so I need your go-ahead: "
          "`npm publish` of @acme/ui-kit@4.12.0 with dist-tag next (latest stays 4.11.2).")
    u5 = t.user("Hold on a sec, before I approve: does the internal Artifactory mirror agree that 4.11.2 is the current one? "
                "Last time the mirror was ahead of npm and it bit us.")
    t.decide("ui-d4-before-approve", [
        P_pending("the publish approval is still open while the user asks something else", approval_id=ap),
        P_pending("the publish call itself has not run", call=c_pub),
        P_next("artifactory_get_package", {"package": PKG}, "the package name from the first message"),
    ])
    _, s_art = t.tool("artifactory_get_package", {"package": PKG, "repo": "npm-virtual"},
                      {"name": PKG, "dist-tags": {"latest": "4.11.3", "next": "4.12.0-rc.2"},
                       "versions": ["4.11.0", "4.11.1", "4.11.2", "4.11.3", "4.12.0-rc.1", "4.12.0-rc.2"],
                       "time": {"4.11.3": "2024-03-08T22:47:10.009Z"},
                       "_artifactory": {"repo": "npm-local", "path": "@acme/ui-kit/-/@acme/ui-kit-4.11.3.tgz",
                                        "deployedBy": "marco.b", "remoteCacheHit": False}})
    t.sh("cd ~/work/acme-ui && git tag -l 'v4.11*' && git log --all --oneline --grep='4.11.3'",
         "v4.11.0\nv4.11.1\nv4.11.2\n" + f"{hexs(r, 7)} chore: 4.11.3 hotfix build (select focus trap) [skip ci]\n")
    t.say("They disagree. npm says latest is 4.11.2; Artifactory (npm-local, deployed by marco.b on 8 March) has a "
          "4.11.3 that the public registry never had and there's no v4.11.3 tag, only a commit on another branch "
          "'4.11.3 hotfix build (select focus trap)'. The focus-trap fix (#1417) is in release/4.12, so 4.12.0 supersedes it, "
          "but internal consumers pinned to ^4.11.3 resolve from Artifactory.")
    u6 = t.user("Right, that was Marco's emergency build for the Select focus trap. 4.12.0 has the fix, so that's fine. "
                "Approved, go ahead and publish.")
    t.approval(ap, "granted", c_pub.seq, granted_by="priya.n")
    t.res(c_pub, outcome="timeout",
          error="PUT https://registry.npmjs.org/@acme%2fui-kit: socket hang up after 60000ms (no response from registry)")
    t.say("The publish request timed out after 60 s with no response from the registry, so I don't know whether 4.12.0 "
          "was accepted. I won't re-run publish blindly: if it went through, a second attempt fails with "
          "'cannot publish over the previously published versions', and if it half-went through we need to know.")
    u7 = t.user("Ugh. OK, what's the state then? Don't retry anything until you know.")
    t.decide("ui-d5-timeout", [
        P_state(c_pub, "unknown", "the publish timed out: its outcome is unknown, neither failed nor done"),
        P_next("registry_get_package", {"package": PKG}, "ask the registry whether 4.12.0 exists"),
        P_con(u7, "Don't retry anything until you know", "no second publish before the status is known"),
        P_ev([s_reg, s_art], "the two registries' readings about latest, from far apart"),
    ])
    t.tool("registry_get_package", {"package": PKG},
           {"name": PKG, "dist-tags": {"latest": "4.11.2", "next": "4.12.0", "legacy": "3.9.7"},
            "versions": ["4.10.0", "4.10.1", "4.11.0", "4.11.1", "4.11.2", "4.12.0-rc.1", "4.12.0-rc.2", "4.12.0"],
            "time": {"4.12.0": "2024-03-14T14:21:40.877Z", "modified": "2024-03-14T14:21:41.002Z"}})
    t.status_query(c_pub, "succeeded", {"version": "4.12.0", "dist_tag": "next", "published_at": "2024-03-14T14:21:40.877Z",
                                        "shasum": shasum}, request_id="npm-pub-4.12.0-a1f9")
    t.sh("npm view @acme/ui-kit@4.12.0",
         "\n@acme/ui-kit@4.12.0 | MIT | deps: 4 | versions: 8\nAcme design system React components\nhttps://github.com/acme-corp/acme-ui#readme\n\n"
         f"dist\n.tarball: https://registry.npmjs.org/@acme/ui-kit/-/ui-kit-4.12.0.tgz\n.shasum: {shasum}\n.integrity: {integ}\n"
         ".unpackedSize: 2.1 MB\n.signatures: [ { keyid: 'SHA256:jl3bwswu80PjjokCgh0o2w5c2U4LhQAE57gj9cz1kzA', sig: 'MEUCIQD" + hexs(r, 40) + "...' } ]\n\n"
         "dependencies:\n@acme/icons: ^2.8.0         @acme/tokens: ^1.14.0        @floating-ui/react: ^0.26.9  clsx: ^2.1.0\n\n"
         "maintainers:\n- acme-release-bot <release-bot@acme.example>\n- priya.n <priya.nair@acme.example>\n- marco.b <marco.bianchi@acme.example>\n\n"
         "dist-tags:\nlatest: 4.11.2        legacy: 3.9.7         next: 4.12.0\n\npublished 3 minutes ago by priya.n <priya.nair@acme.example>\n",
         duration_ms=1890)
    t.say(f"It went through: 4.12.0 is on the registry under next (published 14:21:40Z, shasum {shasum[:12]}…, matching our pack). "
          "latest is still 4.11.2.")
    t.subtask_end("4.12.0 published under next; latest untouched")
    # docs side quest
    u8 = t.user("While QA tests it, bump the docs site to 4.12.0 on its own branch and open a PR against main.")
    t.sh("git checkout -b docs/ui-kit-4.12.0 origin/main && cd apps/docs && grep -n 'ui-kit' package.json",
         '23:    "@acme/ui-kit": "4.11.2",\n', stderr="branch 'docs/ui-kit-4.12.0' set up to track 'origin/main'.\nSwitched to a new branch 'docs/ui-kit-4.12.0'\n")
    t.read(REPO + "/apps/docs/package.json",
           '{\n  "name": "docs",\n  "version": "0.0.0",\n  "private": true,\n  "scripts": {\n    "docusaurus": "docusaurus",\n'
           '    "start": "docusaurus start --port 3030",\n    "build": "docusaurus build",\n    "swizzle": "docusaurus swizzle",\n'
           '    "deploy": "docusaurus deploy",\n    "clear": "docusaurus clear",\n    "serve": "docusaurus serve",\n'
           '    "typecheck": "tsc"\n  },\n  "dependencies": {\n    "@docusaurus/core": "3.1.1",\n    "@docusaurus/preset-classic": "3.1.1",\n'
           '    "@docusaurus/theme-live-codeblock": "3.1.1",\n    "@mdx-js/react": "^3.0.1",\n    "@acme/icons": "2.8.0",\n'
           '    "@acme/tokens": "1.14.0",\n    "@acme/ui-kit": "4.11.2",\n    "clsx": "^2.1.0",\n    "prism-react-renderer": "^2.3.1",\n'
           '    "react": "^18.2.0",\n    "react-dom": "^18.2.0"\n  },\n  "devDependencies": {\n    "@docusaurus/module-type-aliases": "3.1.1",\n'
           '    "@docusaurus/tsconfig": "3.1.1",\n    "@docusaurus/types": "3.1.1",\n    "typescript": "~5.4.2"\n  },\n'
           '  "browserslist": {\n    "production": [">0.5%", "not dead", "not op_mini all"],\n    "development": ["last 3 chrome version", "last 3 firefox version", "last 5 safari version"]\n'
           '  },\n  "engines": {\n    "node": ">=18.0"\n  }\n}\n')
    t.edit(REPO + "/apps/docs/package.json", '"@acme/ui-kit": "4.11.2"', '"@acme/ui-kit": "4.12.0"')
    docs = ["[INFO] [en] Creating an optimized production build...", "[webpackbar] ✔ Server: Compiled successfully in 21.84s",
            "[webpackbar] ✔ Client: Compiled successfully in 38.02s", "[SUCCESS] Generated static files in \"build\".",
            "[INFO] Use `npm run serve` command to test your build locally."]
    warn = [f"[WARNING] Docs markdown link couldn't be resolved: (../{c}/props.md) in \"docs/components/{c}.mdx\" for version current"
            for c in r.sample(UI_COMPONENTS, 9)]
    t.sh("pnpm install && pnpm build", "Lockfile is up to date, resolution step is skipped\nAlready up to date\nDone in 2.1s\n\n> docs@0.0.0 build "
         + REPO + "/apps/docs\n> docusaurus build\n\n" + "\n".join(warn) + "\n" + "\n".join(docs) + "\n", duration_ms=64210)
    t.sh("git commit -am 'docs: use @acme/ui-kit 4.12.0' && git push -u origin docs/ui-kit-4.12.0",
         "[docs/ui-kit-4.12.0 0c8e4aa] docs: use @acme/ui-kit 4.12.0\n 2 files changed, 5 insertions(+), 5 deletions(-)\n",
         stderr="To github.com:acme-corp/acme-ui.git\n * [new branch]      docs/ui-kit-4.12.0 -> docs/ui-kit-4.12.0\n", duration_ms=2480)
    t.tool("github_create_pull_request", {"repo": GH, "head": "docs/ui-kit-4.12.0", "base": "main",
                                          "title": "docs: use @acme/ui-kit 4.12.0", "body": "Bumps the docs site to 4.12.0 (currently on next).", "draft": True},
           {"number": 1431, "html_url": "https://github.com/acme-corp/acme-ui/pull/1431", "state": "open", "draft": True})
    t.say("Draft PR #1431 bumps apps/docs to 4.12.0; docs build passes (9 pre-existing broken props links warned). "
          "Draft until 4.12.0 is latest.")
    u9 = t.user("QA-3318 is closed, QA signed off. Promote 4.12.0 to latest and publish the GitHub release for the tag "
                "with the changelog entry as notes.")
    t.correction("dist_tag", "latest", {"package": PKG})
    t.decide("ui-d6-promote", [
        P_fact("dist_tag", "latest", "the user lifted the rule: latest now", subject={"package": PKG}, superseded=["next"]),
        P_next("github_create_release", {"tag": "v4.12.0", "target": sha_rel}, "the tag and the commit sha returned by the push"),
        P_state(c_pub, "succeeded", "the status query found 4.12.0 published", request_id="npm-pub-4.12.0-a1f9"),
        P_fact("cwd", REPO + "/apps/docs", "the shell is in the docs app", superseded=[REPO + "/packages/ui-kit"]),
    ])
    t.tool("jira_get_issue", {"issue_key": "QA-3318", "fields": ["status", "resolution", "comment"]},
           {"key": "QA-3318", "fields": {"summary": "Regression pass: @acme/ui-kit 4.12.0 (next)", "status": {"name": "Done"},
                                         "resolution": {"name": "Done"}, "assignee": {"displayName": "Sofia Marin"},
                                         "comment": {"total": 3, "comments": [
                                             {"author": {"displayName": "Sofia Marin"}, "created": "2024-03-14T15:10:31.000+0100",
                                              "body": "Installed @acme/ui-kit@next (4.12.0) in checkout-web and account-web. Smoke suites green."},
                                             {"author": {"displayName": "Sofia Marin"}, "created": "2024-03-14T15:38:02.000+0100",
                                              "body": "Select async: works, but loadOptions fires twice on mount in StrictMode dev builds only. Not blocking, filed UI-2291."},
                                             {"author": {"displayName": "Sofia Marin"}, "created": "2024-03-14T15:52:44.000+0100",
                                              "body": "Signed off for latest. Table pinning verified on Safari 17 and Firefox 123."}]}}})
    t.sh("npm dist-tag add @acme/ui-kit@4.12.0 latest && npm dist-tag ls @acme/ui-kit",
         "+latest: @acme/ui-kit@4.12.0\nlatest: 4.12.0\nlegacy: 3.9.7\nnext: 4.12.0\n", duration_ms=3310)
    c_rel = t.call("github_create_release", {"repo": GH, "tag": "v4.12.0", "target_commitish": sha_rel,
                                             "name": "@acme/ui-kit 4.12.0", "body": entry.strip(), "draft": False, "prerelease": False,
                                             "make_latest": "true"}, key="ui-release-v4.12.0")
    ap2 = "apr_ui_gh_release_v4120"
    t.approval(ap2, "requested", c_rel.seq, action="publish GitHub release v4.12.0 (notifies 1.2k watchers)")
    u10 = t.user("Yes, publish it.")
    t.approval(ap2, "granted", c_rel.seq, granted_by="priya.n")
    t.res(c_rel, {"id": 148822019, "html_url": "https://github.com/acme-corp/acme-ui/releases/tag/v4.12.0", "tag_name": "v4.12.0",
                  "target_commitish": sha_rel, "draft": False, "prerelease": False, "published_at": "2024-03-14T16:02:33Z"},
          request_id="gh-rel-148822019")
    t.tool("github_get_pull_request", {"repo": GH, "pull_number": 1431},
           {"number": 1431, "state": "open", "draft": True, "mergeable": True, "mergeable_state": "clean",
            "head": {"ref": "docs/ui-kit-4.12.0"}, "requested_reviewers": []})
    t.say("latest now points at 4.12.0, and the GitHub release v4.12.0 is published with the changelog as notes. "
          "PR #1431 is still a draft and mergeable.")
    u11 = t.user("Last check before I announce it in #frontend: what does each registry say now?")
    t.decide("ui-d7-announce", [
        P_next("artifactory_get_package", {"package": PKG}, "re-read the mirror that disagreed"),
        P_ev([s_reg, s_art], "the first npm reading and the Artifactory reading, for the announcement's caveat"),
        P_state(c_rel, "succeeded", "the release is out", request_id="gh-rel-148822019"),
        P_fact("dist_tag", "latest", "after the promotion", subject={"package": PKG}, superseded=["next"]),
    ])
    t.tool("registry_get_package", {"package": PKG},
           {"name": PKG, "dist-tags": {"latest": "4.12.0", "next": "4.12.0", "legacy": "3.9.7"}})
    t.tool("artifactory_get_package", {"package": PKG, "repo": "npm-virtual"},
           {"name": PKG, "dist-tags": {"latest": "4.11.3", "next": "4.12.0"},
            "_artifactory": {"repo": "npm-remote-cache", "metadataRetrievalCachePeriodSecs": 7200, "lastUpdated": "2024-03-14T14:25:02Z"}})
    t.say("npm: latest 4.12.0. Artifactory still says latest 4.11.3 (its metadata cache is 2 h, last refreshed 14:25Z, "
          "before the promotion, and 4.11.3 only exists there). Until it refreshes or someone zaps the cache, internal "
          "`^4.11.3` ranges won't pick up 4.12.0, so mention that in the announcement.")
    u12 = t.user("OK, post the announcement in #frontend for me, mention the Artifactory caveat and the QA follow-up ticket. "
                 "Then undraft the docs PR.")
    t.decide("ui-d8-slack", [
        P_next("slack_post_message", {"release_url": "https://github.com/acme-corp/acme-ui/releases/tag/v4.12.0", "followup": "UI-2291"},
               "the release URL and the follow-up ticket QA filed, both returned earlier"),
        P_next("github_get_pull_request", {"pull_number": "1431"}, "the docs PR number"),
        P_fact("release_version", "4.12.0", "the announced version", subject={"package": PKG}),
    ])
    t.tool("slack_post_message", {"channel": "#frontend",
                                  "text": ":package: @acme/ui-kit 4.12.0 is on latest. Notes: https://github.com/acme-corp/acme-ui/releases/tag/v4.12.0\n"
                                          "Heads-up: Artifactory still lists 4.11.3 (Marco's hotfix build) as latest until its metadata cache refreshes, "
                                          "so ^4.11.3 ranges won't pick up 4.12.0 yet. Known: loadOptions double-fires in StrictMode dev (UI-2291)."},
           {"ok": True, "channel": "C02FRONTEND", "ts": "1710430061.552309"}, request_id="slack-1710430061.552309")
    t.tool("github_get_pull_request", {"repo": GH, "pull_number": 1431},
           {"number": 1431, "state": "open", "draft": True, "node_id": "PR_kwDOF1r2c85oQn1a"})
    t.sh("gh pr ready 1431 --repo acme-corp/acme-ui", "✓ Pull request acme-corp/acme-ui#1431 is marked as \"ready for review\"\n", duration_ms=1320)
    t.say("Posted in #frontend with the release link, the Artifactory caveat and UI-2291. Docs PR #1431 is ready for review.")
    return t


# --------------------------------------------------------------------------------------
# 03: checkout-api release, prod deploy times out, Amex errors, rollback by deploy id, Zendesk
# --------------------------------------------------------------------------------------
GO_PKGS = ["cmd/checkout-api", "internal/api", "internal/api/middleware", "internal/cart", "internal/config", "internal/currency",
           "internal/fraud", "internal/idempotency", "internal/ledgerclient", "internal/orders", "internal/psp", "internal/psp/adyen",
           "internal/psp/amex", "internal/psp/stripe", "internal/ratelimit", "internal/store/postgres", "internal/telemetry",
           "internal/webhooks", "pkg/money", "pkg/retry"]


def go_test_log(rng, module, pkgs, fail=None):
    out = []
    for p in pkgs:
        if p.startswith("cmd/"):
            out.append(f"?   \t{module}/{p}\t[no test files]")
            continue
        if fail and p == fail[0]:
            out.append(f"--- FAIL: {fail[1]} ({rng.uniform(0.01, 0.4):.2f}s)\n    {fail[2]}\nFAIL\nFAIL\t{module}/{p}\t{rng.uniform(0.2, 3):.3f}s")
            continue
        out.append(f"ok  \t{module}/{p}\t{rng.uniform(0.02, 4.5):.3f}s\tcoverage: {rng.uniform(55, 92):.1f}% of statements")
    return "\n".join(out) + "\n"


def docker_build_log(rng, image, steps):
    out = ['#0 building with "default" instance using docker driver', "", "#1 [internal] load build definition from Dockerfile",
           f"#1 transferring dockerfile: {rng.uniform(0.8, 2.5):.2f}kB done", "#1 DONE 0.0s", "",
           "#2 [internal] load metadata for gcr.io/distroless/static-debian12:nonroot", "#2 DONE 0.9s", "",
           "#3 [internal] load metadata for docker.io/library/golang:1.22.2-bookworm", "#3 DONE 1.1s", "",
           "#4 [internal] load .dockerignore", "#4 transferring context: 212B done", "#4 DONE 0.0s", ""]
    n = 5
    for s, cached in steps:
        out.append(f"#{n} {s}")
        if cached:
            out.append(f"#{n} CACHED")
        else:
            out.append(f"#{n} DONE {rng.uniform(0.2, 48):.1f}s")
        out.append("")
        n += 1
    digest = hexs(rng, 64)
    out += [f"#{n} exporting to image", f"#{n} exporting layers {rng.uniform(0.3, 2):.1f}s done",
            f"#{n} writing image sha256:{digest} done", f"#{n} naming to {image} done", f"#{n} DONE {rng.uniform(0.5, 2.5):.1f}s"]
    return "\n".join(out) + "\n"


def t03() -> Traj:
    t = Traj(3, "checkout-deploy-rollback", "ws2-checkout-deploy-rollback",
             "checkout-api 2.31.0: staging, a prod deploy that times out, Amex failures from support, rollback by deploy id",
             ["a host name and a deploy window typed once by the user, needed much later",
              "a prod deploy whose create call times out and is resolved by a status query",
              "the deploy id of the previous release, returned by the first listing, used for the rollback many turns later",
              "Zendesk tickets beside the workspace: internal notes, group, status and a public reply held back until the user confirms",
              "the deploy service says the rollback finished while the service's own /version still answers 2.31.0"],
             "An engineer ships a Go service through staging to production; support escalates Amex payment failures, "
             "the agent rolls production back to the deploy id listed at the start and handles the Zendesk tickets.",
             seed=303, home="/home/tomas", cwd="/home/tomas", prefix="co")
    r = t.rng
    REPO = "/home/tomas/code/checkout-api"
    MOD = "github.com/acme/checkout-api"
    IMG = "registry.acme.internal/checkout/checkout-api"
    u1 = t.user("Today we ship checkout-api 2.31.0 (the PSP timeout rework). Staging first, then production. Repo is ~/code/checkout-api. "
                "For anything you need to check by hand, go through bastion-eu2.acme.internal, ssh as tomas. And never deploy "
                "production between 12:00 and 14:00 CET, that's our lunch peak.")
    t.fact("bastion_host", "bastion-eu2.acme.internal")
    t.fact("release_version", "2.31.0", {"service": "checkout-api"})
    t.sh("cd ~/code/checkout-api && git fetch --tags && git status && git describe --tags",
         "On branch main\nYour branch is up to date with 'origin/main'.\n\nnothing to commit, working tree clean\nv2.31.0\n",
         stderr="From github.com:acme/checkout-api\n * [new tag]         v2.31.0    -> v2.31.0\n", duration_ms=1650)
    log_entries = [("psp: per-PSP timeouts from config, drop global 8s (CHK-902)", "Tomás Ortega"),
                   ("psp/amex: reuse http.Client, keep-alive 90s", "Tomás Ortega"),
                   ("psp/amex: send merchant_category_code on authorize", "Ines Duarte"),
                   ("api: 504 instead of 502 when the PSP times out", "Ines Duarte"),
                   ("retry: jittered backoff with cap", "Karl Meyer"),
                   ("telemetry: psp label on authorize latency histogram", "Karl Meyer"),
                   ("config: CHECKOUT_PSP_TIMEOUTS env, json map", "Tomás Ortega"),
                   ("deps: pgx 5.5.5", "renovate[bot]"),
                   ("orders: expose psp_reference in order events", "Ines Duarte"),
                   ("fraud: skip velocity check for zero-amount auths", "Karl Meyer"),
                   ("release: v2.31.0", "release-bot")]
    t.sh("git log --format='%h %ad %s (%an)' --date=short v2.30.2..v2.31.0",
         "\n".join(f"{hexs(r, 7)} 2024-04-0{r.randint(2, 8)} {m} ({a})" for m, a in reversed(log_entries)) + "\n")
    _, s_list = t.tool("deploy_list", {"service": "checkout-api", "environment": "production", "limit": 6},
                       {"service": "checkout-api", "environment": "production", "deploys": [
                           {"deploy_id": "dep_01HV3K9QZ7R2WQ8YJ5C0T4M1NB", "version": "2.30.2", "image_digest": "sha256:4e0b" + hexs(r, 60),
                            "state": "succeeded", "current": True, "started_at": "2024-04-04T08:12:40Z", "finished_at": "2024-04-04T08:21:03Z", "by": "ines.duarte"},
                           {"deploy_id": "dep_01HTZ4P2B8XK6D3V9N7E5QF0AH", "version": "2.30.1", "state": "succeeded", "current": False,
                            "started_at": "2024-03-28T07:55:12Z", "by": "tomas.ortega"},
                           {"deploy_id": "dep_01HTR8M5W3C1JH6A2Y0G9KD7PS", "version": "2.30.0", "state": "rolled_back", "current": False,
                            "started_at": "2024-03-26T09:02:55Z", "by": "karl.meyer"},
                           {"deploy_id": "dep_01HTQX1E6N4B8Z2M7R5V3C9WDT", "version": "2.29.4", "state": "succeeded", "current": False,
                            "started_at": "2024-03-19T08:30:01Z", "by": "ines.duarte"}],
                        "clusters": ["prod-euw1-a", "prod-euw1-b"], "strategy": "rolling", "max_surge": "25%"})
    t.say("Production runs 2.30.2 (deploy dep_01HV3K9QZ7R2WQ8YJ5C0T4M1NB, 4 April). 2.31.0 adds per-PSP timeouts, the Amex "
          "client changes, 504 on PSP timeout and a few smaller things. I'll run the tests and build the image.")
    t.sh("make test", "go test -race -count=1 -coverprofile=cover.out ./...\n" + go_test_log(r, MOD, GO_PKGS), duration_ms=74210)
    steps = [("[builder 1/7] FROM docker.io/library/golang:1.22.2-bookworm@sha256:" + hexs(r, 64), True),
             ("[stage-1 1/3] FROM gcr.io/distroless/static-debian12:nonroot@sha256:" + hexs(r, 64), True),
             ("[internal] load build context", False), ("[builder 2/7] WORKDIR /src", True),
             ("[builder 3/7] COPY go.mod go.sum ./", True), ("[builder 4/7] RUN --mount=type=cache,target=/go/pkg/mod go mod download", True),
             ("[builder 5/7] COPY . .", False),
             ("[builder 6/7] RUN --mount=type=cache,target=/root/.cache/go-build CGO_ENABLED=0 go build -trimpath -ldflags=\"-s -w -X main.version=2.31.0 -X main.commit=8a41c2f\" -o /out/checkout-api ./cmd/checkout-api", False),
             ("[builder 7/7] RUN /out/checkout-api --version", False),
             ("[stage-1 2/3] COPY --from=builder /out/checkout-api /checkout-api", False),
             ("[stage-1 3/3] COPY migrations /migrations", False)]
    t.sh(f"docker build -t {IMG}:2.31.0 .", docker_build_log(r, f"{IMG}:2.31.0", steps), duration_ms=58840)
    digest = "sha256:9c1fa7" + hexs(r, 58)
    layers = "\n".join(f"{hexs(r, 12)}: {'Pushed' if i < 3 else 'Layer already exists'}" for i in range(9))
    t.sh(f"docker push {IMG}:2.31.0", f"The push refers to repository [{IMG}]\n{layers}\n2.31.0: digest: {digest} size: 2198\n",
         duration_ms=9110)
    c_stg, _ = t.tool("deploy_create", {"service": "checkout-api", "environment": "staging", "image": f"{IMG}@{digest}",
                                        "version": "2.31.0", "reason": "CHK-902 PSP timeout rework"},
                      {"deploy_id": "dep_01HV9S2C4K7Q1XWB8M3T6RZ0EF", "state": "in_progress", "environment": "staging"},
                      request_id="shipyard-req-7f21c9")
    t.tool("deploy_get", {"deploy_id": "dep_01HV9S2C4K7Q1XWB8M3T6RZ0EF"},
           {"deploy_id": "dep_01HV9S2C4K7Q1XWB8M3T6RZ0EF", "service": "checkout-api", "environment": "staging", "version": "2.31.0",
            "state": "succeeded", "rollout": {"desired": 3, "updated": 3, "ready": 3, "unavailable": 0},
            "events": [{"at": "2024-04-09T11:02:14Z", "msg": "ReplicaSet checkout-api-6d8c9f7b5 scaled up to 1"},
                       {"at": "2024-04-09T11:02:51Z", "msg": "readiness probe ok on 1/3"},
                       {"at": "2024-04-09T11:03:40Z", "msg": "ReplicaSet checkout-api-7b94d6c8f scaled down to 0"},
                       {"at": "2024-04-09T11:04:02Z", "msg": "rollout complete"}]})
    smoke = ("HTTP/2 200\ncontent-type: application/json\nx-request-id: 3d1f0b7e-2b1a-4c7e-9b0c-7f2a9d51c0e4\n\n"
             '{"status":"ok","version":"2.31.0","commit":"8a41c2f","uptime_s":142,"checks":{"postgres":"ok","ledger":"ok","psp.adyen":"ok","psp.stripe":"ok","psp.amex":"ok"}}\n'
             "--- authorize (sandbox cards) ---\n"
             "visa     4111111111111111  200  authorized  psp_ref=adyen_8831K2  312ms\n"
             "mc       5555555555554444  200  authorized  psp_ref=adyen_8831K7  288ms\n"
             "amex     378282246310005   200  authorized  psp_ref=amex_T0042913  611ms\n"
             "declined 4000000000000002  402  card_declined                      204ms\n"
             "timeout  4000000000009987  504  psp_timeout (adyen 3.0s)          3011ms\n")
    t.sh("ssh tomas@bastion-eu2.acme.internal 'curl -si https://checkout-api.staging.internal/healthz && ./smoke-authorize.sh staging'",
         smoke, duration_ms=6120)
    t.say("Staging is on 2.31.0 (dep_01HV9S2C4K7Q1XWB8M3T6RZ0EF, 3/3 ready) and the sandbox smoke test passes for Visa, "
          "Mastercard and Amex; the PSP timeout now returns 504 after 3.0 s as intended.")
    u2 = t.user("Nice. It's 14:20 now, so we're past the lunch peak. Go for production.")
    t.decide("co-d1-prod", [
        P_next("deploy_create", {"image": f"{IMG}@{digest}"}, "the same image digest that was pushed and tested on staging"),
        P_con(u1, "never deploy production between 12:00 and 14:00", "the deploy window rule"),
        P_fact("release_version", "2.31.0", "the version being shipped", subject={"service": "checkout-api"}),
    ])
    c_prod = t.call("deploy_create", {"service": "checkout-api", "environment": "production", "image": f"{IMG}@{digest}",
                                      "version": "2.31.0", "reason": "CHK-902 PSP timeout rework"}, key="co-deploy-prod-2.31.0")
    t.res(c_prod, outcome="timeout", error="POST https://shipyard.acme.internal/api/v2/deploys: context deadline exceeded (30s)")
    t.say("The production deploy request timed out after 30 s. Shipyard may or may not have started it; I'll check the "
          "deploy list before doing anything else, so we don't start a second rollout.")
    u3 = t.user("OK, check. Don't fire another deploy until we know.")
    t.decide("co-d2-timeout", [
        P_state(c_prod, "unknown", "the create call timed out: unknown, not failed"),
        P_next("deploy_list", {"service": "checkout-api", "environment": "production"}, "find out whether the deploy exists"),
        P_con(u3, "Don't fire another deploy", "no retry until the state is known"),
    ])
    t.tool("deploy_list", {"service": "checkout-api", "environment": "production", "limit": 2},
           {"service": "checkout-api", "environment": "production", "deploys": [
               {"deploy_id": "dep_01HV9W7N3F5P0YK2R8C6B4TXQJ", "version": "2.31.0", "state": "in_progress", "current": False,
                "idempotency_key": "co-deploy-prod-2.31.0", "started_at": "2024-04-09T12:20:31Z", "by": "tomas.ortega"},
               {"deploy_id": "dep_01HV3K9QZ7R2WQ8YJ5C0T4M1NB", "version": "2.30.2", "state": "succeeded", "current": True}]})
    t.status_query(c_prod, "succeeded", {"deploy_id": "dep_01HV9W7N3F5P0YK2R8C6B4TXQJ", "state": "in_progress"},
                   request_id="shipyard-req-8b03d4")
    _, s_prod_ok = t.tool("deploy_get", {"deploy_id": "dep_01HV9W7N3F5P0YK2R8C6B4TXQJ"},
                          {"deploy_id": "dep_01HV9W7N3F5P0YK2R8C6B4TXQJ", "environment": "production", "version": "2.31.0",
                           "state": "succeeded", "rollout": {"desired": 12, "updated": 12, "ready": 12, "unavailable": 0},
                           "clusters": {"prod-euw1-a": "6/6", "prod-euw1-b": "6/6"}, "finished_at": "2024-04-09T12:29:47Z"})
    t.say("The deploy did start despite the timeout (Shipyard matched our idempotency key): dep_01HV9W7N3F5P0YK2R8C6B4TXQJ, "
          "and it has finished, 12/12 ready across both clusters. Production is on 2.31.0.")
    t.subtask_end("2.31.0 in production: dep_01HV9W7N3F5P0YK2R8C6B4TXQJ")
    # --- support escalation
    t.topic_switch("support escalation: Amex payments failing")
    u4 = t.user("Support just pinged me: merchants are reporting Amex payments failing since about 14:30. Can you look at the "
                "Zendesk tickets and the metrics?")
    c_zs, _ = t.tool("zendesk_search", {"query": "type:ticket status<solved created>2024-04-09T12:00:00Z amex", "sort_by": "created_at"},
                     {"count": 3, "results": [
                         {"id": 48213, "subject": "All Amex transactions declined since ~14:30", "status": "open", "priority": "urgent",
                          "requester_id": 9120441, "organization_id": 3310, "group_id": 360001822, "tags": ["amex", "payments", "merchant_tier1"],
                          "created_at": "2024-04-09T12:41:09Z"},
                         {"id": 48219, "subject": "Amex error 'invalid_request' at checkout", "status": "new", "priority": "high",
                          "requester_id": 9120987, "organization_id": 4102, "group_id": 360001822, "tags": ["amex"],
                          "created_at": "2024-04-09T12:52:33Z"},
                         {"id": 48222, "subject": "Checkout broken for American Express customers??", "status": "new", "priority": "normal",
                          "requester_id": 9121530, "organization_id": 5877, "group_id": 360001822, "tags": [],
                          "created_at": "2024-04-09T13:03:58Z"}],
                      "next_page": None})
    t.tool("zendesk_get_ticket", {"ticket_id": 48213, "include": ["comments", "users"]},
           {"ticket": {"id": 48213, "subject": "All Amex transactions declined since ~14:30", "status": "open", "priority": "urgent",
                       "assignee_id": 8800214, "group_id": 360001822, "custom_fields": [{"id": 360009912, "value": "merchant_tier1"}]},
            "comments": [{"id": 1920448810, "author_id": 9120441, "public": True,
                          "body": "Hi, since around 14:30 CEST every Amex payment on our shop (merchant id M-33100) fails at checkout. Your API "
                                  "answers 502 with error code psp_invalid_request. Visa and Mastercard are fine. This is costing us sales, "
                                  "please escalate. Example order: ord_7Yc2Lq91 at 14:36."},
                         {"id": 1920452201, "author_id": 8800214, "public": False,
                          "body": "Tier1: reproduced with the merchant's test card on prod. Escalating to engineering (checkout team)."}],
            "users": [{"id": 9120441, "name": "Hanna Lindqvist", "organization": "Nordvik Outdoor AB"},
                      {"id": 8800214, "name": "Priyanka Rao", "role": "agent"}]})
    prom = {"status": "success", "data": {"resultType": "matrix", "result": []}}
    base = 1712666400
    for ver, psp, hi in [("2.31.0", "amex", True), ("2.31.0", "adyen", False), ("2.31.0", "stripe", False), ("2.30.2", "amex", False)]:
        vals = []
        for i in range(14):
            ts = base + i * 300
            if ver == "2.30.2":
                v = 0.0 if i > 5 else round(r.uniform(0.001, 0.004), 4)
            elif hi and i >= 6:
                v = round(r.uniform(0.92, 0.99), 4)
            else:
                v = round(r.uniform(0.0005, 0.006), 4) if i >= 6 else 0.0
            vals.append([ts, str(v)])
        prom["data"]["result"].append({"metric": {"service": "checkout-api", "version": ver, "psp": psp, "route": "/v1/payments/authorize"},
                                       "values": vals})
    t.tool("metrics_query", {"query": 'sum by (version, psp) (rate(http_requests_total{service="checkout-api",route="/v1/payments/authorize",code=~"5.."}[5m])) '
                                      '/ sum by (version, psp) (rate(http_requests_total{service="checkout-api",route="/v1/payments/authorize"}[5m]))',
                             "start": "2024-04-09T12:40:00Z", "end": "2024-04-09T13:50:00Z", "step": "300s"}, prom)
    t.say("It's us. Since 2.31.0 reached production (12:29Z = 14:29 CEST), Amex authorize calls fail 92-99% with 5xx on 2.31.0 "
          "pods, while Adyen and Stripe are normal. Three Zendesk tickets (48213 urgent, 48219, 48222); 48213 shows our "
          "API returning 502 psp_invalid_request. The staging smoke test passed, so it's likely something only the "
          "production Amex endpoint rejects, probably the new merchant_category_code field.")
    u5 = t.user("Roll production back to the previous release now, we'll debug after.")
    t.decide("co-d3-rollback", [
        P_next("deploy_rollback", {"to_deploy_id": "dep_01HV3K9QZ7R2WQ8YJ5C0T4M1NB"}, "the 2.30.2 deploy id from the very first listing"),
        P_state(c_prod, "succeeded", "the timed-out deploy turned out to exist", request_id="shipyard-req-8b03d4"),
        P_fact("bastion_host", "bastion-eu2.acme.internal", "manual checks after the rollback go through the bastion"),
    ])
    c_rb = t.call("deploy_rollback", {"service": "checkout-api", "environment": "production",
                                      "to_deploy_id": "dep_01HV3K9QZ7R2WQ8YJ5C0T4M1NB", "reason": "Amex authorize 5xx on 2.31.0 (ZD 48213)"},
                  key="co-rollback-prod-2.30.2")
    ap = "apr_co_rollback_prod"
    t.approval(ap, "requested", c_rb.seq, action="roll back checkout-api production to 2.30.2 (dep_01HV3K9QZ7R2WQ8YJ5C0T4M1NB)",
               policy="production changes outside a release need a human ack")
    t.say("Shipyard requires an explicit ack for production rollbacks: roll checkout-api production back to 2.30.2 "
          "(dep_01HV3K9QZ7R2WQ8YJ5C0T4M1NB)?")
    u6 = t.user("Before I ack: put an internal note on the three tickets that engineering is rolling back, and assign them to "
                "Payments L2. No public replies yet, I want to confirm recovery first.")
    t.decide("co-d4-notes-before-ack", [
        P_pending("the rollback approval is still open", approval_id=ap),
        P_next("zendesk_update_ticket", {"t1": 48213, "t2": 48219, "t3": 48222}, "the three ticket ids from the search"),
        P_con(u6, "No public replies yet", "only internal notes for now"),
    ])
    t.tool("zendesk_search", {"query": "type:group name:\"Payments L2\""},
           {"count": 1, "results": [{"id": 360004417, "name": "Payments L2", "result_type": "group", "default": False}]})
    for tid in (48213, 48219, 48222):
        t.tool("zendesk_update_ticket", {"ticket_id": tid, "group_id": 360004417, "status": "open",
                                         "comment": {"body": "Engineering: checkout-api 2.31.0 (deployed 12:29Z) breaks Amex authorize. "
                                                             "Rolling production back to 2.30.2 now. Do not reply to the customer yet.",
                                                     "public": False}},
               {"ticket": {"id": tid, "status": "open", "group_id": 360004417, "updated_at": f"2024-04-09T13:5{tid % 10}:1{tid % 7}Z"},
                "audit": {"id": 1920500000 + tid, "events": [{"type": "Comment", "public": False}, {"type": "Change", "field_name": "group_id", "value": "360004417"}]}},
               request_id=f"zd-audit-{1920500000 + tid}")
    t.say("Internal notes added and all three tickets moved to Payments L2 (group 360004417); nothing public.")
    u7 = t.user("Ack, roll back.")
    t.approval(ap, "granted", c_rb.seq, granted_by="tomas.ortega")
    t.res(c_rb, {"deploy_id": "dep_01HV9ZD2R6M8T0QF4C1K7B3XNW", "rollback_of": "dep_01HV9W7N3F5P0YK2R8C6B4TXQJ",
                 "to_deploy_id": "dep_01HV3K9QZ7R2WQ8YJ5C0T4M1NB", "version": "2.30.2", "state": "in_progress"},
          request_id="shipyard-req-9c44e1")
    _, s_rb_done = t.tool("deploy_get", {"deploy_id": "dep_01HV9ZD2R6M8T0QF4C1K7B3XNW"},
                          {"deploy_id": "dep_01HV9ZD2R6M8T0QF4C1K7B3XNW", "environment": "production", "version": "2.30.2", "state": "succeeded",
                           "rollout": {"desired": 12, "updated": 12, "ready": 12, "unavailable": 0},
                           "clusters": {"prod-euw1-a": "6/6", "prod-euw1-b": "6/6"}, "finished_at": "2024-04-09T13:58:12Z"})
    t.say("Rollback dep_01HV9ZD2R6M8T0QF4C1K7B3XNW finished: Shipyard reports production on 2.30.2, 12/12 ready.")
    u8 = t.user("Verify it from the bastion with the prod smoke test, I don't trust the dashboard alone.")
    t.decide("co-d5-verify", [
        P_next("bash", {"host": "bastion-eu2.acme.internal", "user": "tomas"}, "the bastion and login the user gave at the start"),
        P_state(c_rb, "succeeded", "the rollback call returned", request_id="shipyard-req-9c44e1"),
    ])
    ver_out = ("--- /version x6 ---\n"
               '{"version":"2.30.2","commit":"d07e1aa","pod":"checkout-api-7b94d6c8f-x2kqp"}\n'
               '{"version":"2.30.2","commit":"d07e1aa","pod":"checkout-api-7b94d6c8f-9mwzt"}\n'
               '{"version":"2.31.0","commit":"8a41c2f","pod":"checkout-api-canary-5c7d9b-qq4lf"}\n'
               '{"version":"2.30.2","commit":"d07e1aa","pod":"checkout-api-7b94d6c8f-hh2n7"}\n'
               '{"version":"2.31.0","commit":"8a41c2f","pod":"checkout-api-canary-5c7d9b-qq4lf"}\n'
               '{"version":"2.30.2","commit":"d07e1aa","pod":"checkout-api-7b94d6c8f-4c8rd"}\n'
               "--- authorize (prod test cards) ---\n"
               "visa     200  authorized  312ms\nmc       200  authorized  297ms\namex     200  authorized  644ms\n"
               "amex     502  psp_invalid_request  (pod checkout-api-canary-5c7d9b-qq4lf)  188ms\namex     200  authorized  602ms\n")
    _, s_curl = t.sh("ssh tomas@bastion-eu2.acme.internal 'for i in 1 2 3 4 5 6; do curl -s https://checkout-api.internal/version; echo; done; ./smoke-authorize.sh production'",
                     ver_out, duration_ms=8930)
    t.say("Not fully: 2 of 6 /version answers still say 2.31.0, all from one pod, checkout-api-canary-5c7d9b-qq4lf, and one "
          "Amex authorize through it still failed with psp_invalid_request. Shipyard's rollback only covers the main "
          "deployment; it looks like a canary deployment with 2.31.0 was left running.")
    pods = ["NAME                                   READY   STATUS    RESTARTS   AGE    IP             NODE"]
    for i in range(12):
        pods.append(f"checkout-api-7b94d6c8f-{hexs(r, 5)}            1/1     Running   0          {r.randint(3, 9)}m     10.42.{r.randint(1, 30)}.{r.randint(2, 250):<5}  ip-10-42-{r.randint(1, 60)}-{r.randint(1, 250)}.eu-west-1.compute.internal")
    pods.append("checkout-api-canary-5c7d9b-qq4lf       1/1     Running   0          91m    10.42.17.33    ip-10-42-17-8.eu-west-1.compute.internal")
    t.sh("ssh tomas@bastion-eu2.acme.internal 'kubectl --context prod-euw1-a -n checkout get pods -o wide; kubectl --context prod-euw1-a -n checkout get deploy'",
         "\n".join(pods) + "\n\nNAME                  READY   UP-TO-DATE   AVAILABLE   AGE\ncheckout-api          12/12   12           12          412d\n"
         "checkout-api-canary   1/1     1            1           91m\n", duration_ms=2440)
    logl = []
    for i in range(16):
        ok = i % 3 != 0
        ts = f"2024-04-09T13:{10 + i * 3:02d}:{r.randint(0, 59):02d}.{r.randint(100, 999)}Z"
        if ok:
            logl.append('{"level":"info","ts":"%s","msg":"authorize","psp":"%s","status":200,"latency_ms":%d,"order_id":"ord_%s"}'
                        % (ts, r.choice(["adyen", "stripe"]), r.randint(180, 420), hexs(r, 8)))
        else:
            logl.append('{"level":"error","ts":"%s","msg":"authorize failed","psp":"amex","status":502,"error":"amex authorize: 400 invalid_request: '
                        'field merchant_category_code: must be 4 digits","latency_ms":%d,"order_id":"ord_%s"}' % (ts, r.randint(150, 240), hexs(r, 8)))
    t.sh("ssh tomas@bastion-eu2.acme.internal 'kubectl --context prod-euw1-a -n checkout logs checkout-api-canary-5c7d9b-qq4lf --since=60m | tail -16'",
         "\n".join(logl) + "\n", duration_ms=1870)
    u9 = t.user("Damn, Karl started a manual canary before lunch. Scale the canary to zero, then re-run the check.")
    t.sh("ssh tomas@bastion-eu2.acme.internal 'kubectl --context prod-euw1-a -n checkout scale deploy/checkout-api-canary --replicas=0 && "
         "kubectl --context prod-euw1-a -n checkout rollout status deploy/checkout-api-canary; date -u'",
         "deployment.apps/checkout-api-canary scaled\ndeployment \"checkout-api-canary\" successfully rolled out\nTue Apr  9 14:07:19 UTC 2024\n", duration_ms=6120)
    t.sh("ssh tomas@bastion-eu2.acme.internal 'for i in 1 2 3 4 5 6; do curl -s https://checkout-api.internal/version; echo; done; ./smoke-authorize.sh production'",
         "--- /version x6 ---\n" + "".join('{"version":"2.30.2","commit":"d07e1aa","pod":"checkout-api-7b94d6c8f-%s"}\n' % hexs(r, 5) for _ in range(6))
         + "--- authorize (prod test cards) ---\nvisa     200  authorized  301ms\nmc       200  authorized  276ms\n"
           "amex     200  authorized  618ms\namex     200  authorized  597ms\namex     200  authorized  633ms\n", duration_ms=8410)
    t.say("Canary scaled to 0 at 14:07:19Z (16:07 CEST). All six /version answers now say 2.30.2 and Amex authorizes fine on every try.")
    # --- debugging the cause
    t.topic_switch("why Amex rejects 2.31.0")
    u10 = t.user("Good. Now find out why Amex rejects 2.31.0 requests in prod but not in staging.")
    diff = ("diff --git a/internal/psp/amex/authorize.go b/internal/psp/amex/authorize.go\nindex 51c0e2a..e93b7d4 100644\n"
            "--- a/internal/psp/amex/authorize.go\n+++ b/internal/psp/amex/authorize.go\n@@ -38,6 +38,7 @@ type authorizeRequest struct {\n"
            " \tAmount        amountField    `json:\"amount\"`\n \tCard          cardField      `json:\"card\"`\n \tMerchantID    string         `json:\"merchant_id\"`\n"
            "+\tMCC           string         `json:\"merchant_category_code\"`\n \tReference     string         `json:\"reference\"`\n"
            " \tThreeDS       *threeDSField  `json:\"three_ds,omitempty\"`\n }\n@@ -71,12 +72,14 @@ func (c *Client) Authorize(ctx context.Context, p Payment) (Result, error) {\n"
            " \treq := authorizeRequest{\n \t\tAmount:     amountOf(p),\n \t\tCard:       cardOf(p),\n \t\tMerchantID: c.cfg.MerchantID,\n"
            "+\t\tMCC:        c.cfg.MCC,\n \t\tReference:  p.OrderID,\n \t}\n-\tresp, err := c.http.Do(c.newRequest(ctx, \"/v3/authorize\", req))\n"
            "+\tctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)\n+\tdefer cancel()\n+\tresp, err := c.http.Do(c.newRequest(ctx, \"/v3/authorize\", req))\n"
            " \tif err != nil {\n \t\treturn Result{}, fmt.Errorf(\"amex authorize: %w\", err)\n \t}\n"
            "diff --git a/internal/config/config.go b/internal/config/config.go\nindex 9a0b1c2..4f6e8d1 100644\n--- a/internal/config/config.go\n+++ b/internal/config/config.go\n"
            "@@ -88,6 +88,7 @@ type AmexConfig struct {\n \tBaseURL    string        `env:\"AMEX_BASE_URL\"`\n \tMerchantID string        `env:\"AMEX_MERCHANT_ID\"`\n"
            "+\tMCC        string        `env:\"AMEX_MCC\"`\n \tTimeout    time.Duration `env:\"AMEX_TIMEOUT\" envDefault:\"4s\"`\n }\n")
    t.sh("cd ~/code/checkout-api && git diff v2.30.2..v2.31.0 -- internal/psp/amex internal/config", diff)
    go_src = (
        "package amex\n\nimport (\n\t\"bytes\"\n\t\"context\"\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"net/http\"\n\n"
        "\t\"github.com/acme/checkout-api/internal/config\"\n\t\"github.com/acme/checkout-api/internal/psp\"\n\t\"github.com/acme/checkout-api/pkg/money\"\n)\n\n"
        "// Client talks to the Amex Payments v3 API. One Client is shared by all requests.\ntype Client struct {\n\tcfg  config.AmexConfig\n\thttp *http.Client\n\ttok  *tokenSource\n}\n\n"
        "type amountField struct {\n\tValue    int64  `json:\"value\"`\n\tCurrency string `json:\"currency\"`\n}\n\n"
        "type cardField struct {\n\tToken  string `json:\"token\"`\n\tExpiry string `json:\"expiry\"`\n}\n\n"
        "type threeDSField struct {\n\tECI  string `json:\"eci\"`\n\tCAVV string `json:\"cavv\"`\n\tXID  string `json:\"xid,omitempty\"`\n}\n\n"
        "type authorizeRequest struct {\n\tAmount        amountField    `json:\"amount\"`\n\tCard          cardField      `json:\"card\"`\n"
        "\tMerchantID    string         `json:\"merchant_id\"`\n\tMCC           string         `json:\"merchant_category_code\"`\n"
        "\tReference     string         `json:\"reference\"`\n\tThreeDS       *threeDSField  `json:\"three_ds,omitempty\"`\n}\n\n"
        "type authorizeResponse struct {\n\tStatus    string `json:\"status\"`\n\tApproval  string `json:\"approval_code\"`\n"
        "\tReference string `json:\"transaction_id\"`\n\tError     *struct {\n\t\tCode    string `json:\"code\"`\n\t\tMessage string `json:\"message\"`\n\t} `json:\"error,omitempty\"`\n}\n\n"
        "func amountOf(p psp.Payment) amountField {\n\treturn amountField{Value: p.Amount.Minor(), Currency: p.Amount.Currency()}\n}\n\n"
        "func cardOf(p psp.Payment) cardField { return cardField{Token: p.CardToken, Expiry: p.CardExpiry} }\n\n"
        "// Authorize places a hold. Errors from Amex map to psp errors so the API layer can pick a status code.\n"
        "func (c *Client) Authorize(ctx context.Context, p psp.Payment) (psp.Result, error) {\n"
        "\treq := authorizeRequest{\n\t\tAmount:     amountOf(p),\n\t\tCard:       cardOf(p),\n\t\tMerchantID: c.cfg.MerchantID,\n"
        "\t\tMCC:        c.cfg.MCC,\n\t\tReference:  p.OrderID,\n\t}\n\tctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)\n\tdefer cancel()\n"
        "\tresp, err := c.http.Do(c.newRequest(ctx, \"/v3/authorize\", req))\n\tif err != nil {\n\t\treturn psp.Result{}, fmt.Errorf(\"amex authorize: %w\", err)\n\t}\n"
        "\tdefer resp.Body.Close()\n\tvar out authorizeResponse\n\tif err := json.NewDecoder(resp.Body).Decode(&out); err != nil {\n"
        "\t\treturn psp.Result{}, fmt.Errorf(\"amex authorize: decode: %w\", err)\n\t}\n"
        "\tswitch {\n\tcase resp.StatusCode == http.StatusBadRequest && out.Error != nil:\n"
        "\t\treturn psp.Result{}, psp.ErrInvalidRequest{PSP: \"amex\", Code: out.Error.Code, Detail: out.Error.Message}\n"
        "\tcase out.Status == \"DECLINED\":\n\t\treturn psp.Result{Declined: true, Reference: out.Reference}, nil\n"
        "\tcase out.Status == \"APPROVED\":\n\t\treturn psp.Result{Authorized: true, Reference: out.Reference, ApprovalCode: out.Approval}, nil\n"
        "\t}\n\treturn psp.Result{}, fmt.Errorf(\"amex authorize: unexpected status %d %q\", resp.StatusCode, out.Status)\n}\n\n"
        "func (c *Client) newRequest(ctx context.Context, path string, body any) *http.Request {\n\tb, _ := json.Marshal(body)\n"
        "\treq, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+path, bytes.NewReader(b))\n"
        "\treq.Header.Set(\"Content-Type\", \"application/json\")\n\treq.Header.Set(\"Authorization\", \"Bearer \"+c.tok.Token(ctx))\n\treturn req\n}\n\n"
        "var _ = money.Zero\n")
    t.read(REPO + "/internal/psp/amex/authorize.go", go_src)
    t.sh("cat deploy/production/values.yaml",
         "image:\n  repository: registry.acme.internal/checkout/checkout-api\n  # tag is set by shipyard\nreplicaCount: 6\n"
         "resources:\n  requests: { cpu: 500m, memory: 384Mi }\n  limits: { memory: 768Mi }\npdb:\n  minAvailable: 4\n"
         "hpa:\n  enabled: true\n  minReplicas: 6\n  maxReplicas: 18\n  targetCPUUtilizationPercentage: 65\n"
         "env:\n    LOG_LEVEL: info\n    CHECKOUT_PSP_TIMEOUTS: '{\"adyen\":\"3s\",\"stripe\":\"3s\",\"amex\":\"4s\"}'\n"
         "    AMEX_BASE_URL: https://api.americanexpress.com/payments\n    AMEX_MERCHANT_ID: \"9312004417\"\n"
         "    ADYEN_ENDPOINT: https://checkout-live.adyenpayments.com/checkout/v71\n    LEDGER_URL: http://ledger.ledger.svc.cluster.local:8080\n"
         "    FRAUD_VELOCITY_WINDOW: 10m\n    OTEL_EXPORTER_OTLP_ENDPOINT: http://otel-collector.observability:4317\n"
         "secrets:\n  - name: checkout-api-psp\n    keys: [ADYEN_API_KEY, STRIPE_SECRET_KEY, AMEX_CLIENT_ID, AMEX_CLIENT_SECRET]\n"
         "  - name: checkout-api-db\n    keys: [DATABASE_URL]\n"
         "ingress:\n  host: checkout-api.internal\n  annotations:\n    nginx.ingress.kubernetes.io/proxy-read-timeout: \"15\"\n")
    t.sh("grep -rn 'AMEX_MCC' deploy/ charts/ .env.example",
         "deploy/staging/values.yaml:57:    AMEX_MCC: \"5999\"\n.env.example:31:AMEX_MCC=5999\n")
    t.say("Found it. 2.31.0 sends `merchant_category_code` from the new AMEX_MCC setting. Staging's values.yaml sets it "
          "(5999), production's doesn't, so in prod the field goes out as an empty string and Amex answers invalid_request. "
          "Fix: `omitempty` on the field plus setting AMEX_MCC in deploy/production/values.yaml.")
    u11 = t.user("Makes sense. Make the code fix on a branch and push it; the prod value I'll ask Ines about. Then update the "
                 "tickets: now you can reply publicly that it's fixed since 15:58 CEST, and mark them solved.")
    t.decide("co-d6-close", [
        P_next("zendesk_update_ticket", {"t1": 48213, "t2": 48219, "t3": 48222}, "the three tickets from the search, long ago"),
        P_con(u6, "No public replies yet", "the hold on public replies, now lifted by the user"),
        P_ev([s_rb_done, s_curl], "Shipyard said 2.30.2 everywhere while /version still answered 2.31.0: the reply must not claim an earlier recovery time"),
        P_fact("cwd", REPO, "the diff ran in the repo", superseded=["/home/tomas"]),
    ])
    t.sh("git checkout -b fix/amex-mcc-omitempty", "", stderr="Switched to a new branch 'fix/amex-mcc-omitempty'\n")
    t.edit(REPO + "/internal/psp/amex/authorize.go", 'MCC           string         `json:"merchant_category_code"`',
           'MCC           string         `json:"merchant_category_code,omitempty"`')
    t.sh("go test ./internal/psp/amex/... -run 'Authorize' -v",
         "=== RUN   TestAuthorize_OK\n--- PASS: TestAuthorize_OK (0.00s)\n=== RUN   TestAuthorize_Timeout\n--- PASS: TestAuthorize_Timeout (0.25s)\n"
         "=== RUN   TestAuthorize_EmptyMCCOmitted\n--- PASS: TestAuthorize_EmptyMCCOmitted (0.00s)\n=== RUN   TestAuthorize_Declined\n--- PASS: TestAuthorize_Declined (0.00s)\n"
         f"PASS\nok  \t{MOD}/internal/psp/amex\t0.412s\n", duration_ms=3810)
    t.sh("git commit -am 'psp/amex: omit empty merchant_category_code (ZD 48213)' && git push -u origin fix/amex-mcc-omitempty",
         "[fix/amex-mcc-omitempty 1c9d3e8] psp/amex: omit empty merchant_category_code (ZD 48213)\n 2 files changed, 19 insertions(+), 1 deletion(-)\n",
         stderr="To github.com:acme/checkout-api.git\n * [new branch]      fix/amex-mcc-omitempty -> fix/amex-mcc-omitempty\n", duration_ms=2330)
    reply = ("Hello, a change we deployed at 14:29 CEST caused American Express payments to fail. We rolled it back and Amex "
             "payments have been working again since 16:07 CEST. Orders that failed in between were not charged and can be retried. "
             "We're sorry for the disruption. Checkout team")
    for tid in (48213, 48219, 48222):
        t.tool("zendesk_update_ticket", {"ticket_id": tid, "status": "solved", "comment": {"body": reply, "public": True}},
               {"ticket": {"id": tid, "status": "solved", "group_id": 360004417},
                "audit": {"id": 1920600000 + tid, "events": [{"type": "Comment", "public": True}, {"type": "Change", "field_name": "status", "value": "solved"}]}},
               request_id=f"zd-audit-{1920600000 + tid}")
    t.say("Fix pushed on fix/amex-mcc-omitempty (1c9d3e8). Public replies sent and tickets 48213, 48219 and 48222 solved. "
          "I wrote 16:07 CEST rather than 15:58: Shipyard's rollback finished at 15:58, but the leftover canary kept failing "
          "some Amex payments until it was scaled down at 16:07.")
    u12 = t.user("Last: post a short summary in #checkout-incidents with the deploy ids, so tomorrow's retro has them.")
    t.decide("co-d7-summary", [
        P_next("slack_post_message", {"bad": "dep_01HV9W7N3F5P0YK2R8C6B4TXQJ", "rollback": "dep_01HV9ZD2R6M8T0QF4C1K7B3XNW",
                                      "good": "dep_01HV3K9QZ7R2WQ8YJ5C0T4M1NB"}, "all three deploy ids came from tool results much earlier"),
        P_fact("state", "succeeded", "the rollback deploy's final state", subject={"deploy_id": "dep_01HV9ZD2R6M8T0QF4C1K7B3XNW"}),
        P_ev([s_curl], "the /version reading that contradicted Shipyard belongs in the retro"),
    ])
    t.tool("slack_post_message", {"channel": "#checkout-incidents",
                                  "text": "Amex outage 14:29-16:07 CEST. Bad deploy: dep_01HV9W7N3F5P0YK2R8C6B4TXQJ (2.31.0, timed out on create but ran). "
                                          "Rollback: dep_01HV9ZD2R6M8T0QF4C1K7B3XNW to dep_01HV3K9QZ7R2WQ8YJ5C0T4M1NB (2.30.2). Shipyard reported done at 13:58Z "
                                          "but a manual canary (checkout-api-canary) kept serving 2.31.0 until scaled to 0. Cause: empty merchant_category_code "
                                          "(AMEX_MCC unset in prod). Fix: branch fix/amex-mcc-omitempty. ZD 48213/48219/48222 solved."},
           {"ok": True, "channel": "C03CHKINC", "ts": "1712678533.209911"}, request_id="slack-1712678533.209911")
    t.say("Posted in #checkout-incidents with all three deploy ids, the canary detail and the tickets.")
    return t


# --------------------------------------------------------------------------------------
# 04: disk full on a Postgres replica: WAL piling up, core dumps, OPS ticket, stale metrics
# --------------------------------------------------------------------------------------
def wal_names(start_hi: int, start_lo: int, n: int, tl: str = "00000001") -> list[str]:
    out = []
    hi, lo = start_hi, start_lo
    for _ in range(n):
        out.append(f"{tl}{hi:08X}{lo:08X}")
        lo += 1
        if lo > 0xFF:
            lo, hi = 0, hi + 1
    return out


def t04() -> Traj:
    t = Traj(4, "replica-disk-full", "ws2-replica-disk-full",
             "A Postgres replica at 97% disk: WAL that cannot be archived, old core dumps, an OPS ticket, a stale alert",
             ["a shell that moves through /var/lib/postgresql, /var/log and /var/crash; later commands depend on those paths",
              "a host name, a Vault path and an assignee typed once by the user, needed much later",
              "an irreversible rm behind an approval whose call times out; its outcome is settled by a status query",
              "Prometheus still says 97% used while df on the host says 71%, far apart",
              "a Jira OPS ticket created early and updated (comment, assignee, transition) at the end"],
             "An on-call engineer has the agent investigate a disk alert on a database replica, clean up, fix WAL "
             "archiving and keep the ops ticket current, with read-only access to the primary.",
             seed=404, home="/home/olu", cwd="/home/olu", prefix="dk")
    r = t.rng
    HOST = "db-replica-03.fra.acme.internal"
    PRIMARY = "db-primary-01.fra.acme.internal"
    u1 = t.user(f"PagerDuty woke me up: DiskSpaceCritical on {HOST}, / at 97%. You're in a shell on that box (sudo works). "
                f"The primary is {PRIMARY}: read-only checks only there, never restart or change anything on the primary. "
                "Find out what's eating the disk.")
    t.fact("primary_host", PRIMARY)
    c_pd, _ = t.tool("pagerduty_get_incident", {"incident_id": "Q2K8ZQ4VX1M0TR"},
                     {"incident": {"id": "Q2K8ZQ4VX1M0TR", "incident_number": 88412, "title": f"DiskSpaceCritical {HOST} / 97%",
                                   "status": "triggered", "urgency": "high", "created_at": "2024-04-16T01:01:12Z",
                                   "service": {"id": "PSVC7FRA", "summary": "postgres-fra"},
                                   "assignments": [{"assignee": {"id": "PU4OLU1", "summary": "Olu Adeyemi"}}],
                                   "escalation_policy": {"summary": "DB on-call"},
                                   "body": {"details": {"alertname": "DiskSpaceCritical", "instance": f"{HOST}:9100", "mountpoint": "/",
                                                        "expr": "avg_over_time(node_filesystem_used_ratio[10m]) > 0.95", "value": "0.9691"}}}})
    t.tool("pagerduty_update_incident", {"incident_id": "Q2K8ZQ4VX1M0TR", "status": "acknowledged"},
           {"incident": {"id": "Q2K8ZQ4VX1M0TR", "status": "acknowledged", "acknowledgements": [{"at": "2024-04-16T01:12:30Z", "acknowledger": {"summary": "Olu Adeyemi"}}]}},
           request_id="pd-ack-Q2K8ZQ4VX1M0TR")
    t.sh("hostname -f && uptime && df -h",
         f"{HOST}\n 03:12:44 up 41 days,  6:02,  1 user,  load average: 1.92, 1.71, 1.64\n"
         "Filesystem      Size  Used Avail Use% Mounted on\nudev             32G     0   32G   0% /dev\ntmpfs           6.3G  1.2M  6.3G   1% /run\n"
         "/dev/nvme0n1p1  492G  476G   16G  97% /\ntmpfs            32G  1.1M   32G   1% /dev/shm\ntmpfs           5.0M     0  5.0M   0% /run/lock\n"
         "/dev/nvme0n1p15 105M  6.1M   99M   6% /boot/efi\ntmpfs           6.3G  4.0K  6.3G   1% /run/user/1004\n")
    procs = ["USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"]
    pp = [("postgres", "1822", "/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf"),
          ("postgres", "1830", "postgres: 15/main: startup recovering 00000001000004F000000091"),
          ("postgres", "1831", "postgres: 15/main: checkpointer"), ("postgres", "1832", "postgres: 15/main: background writer"),
          ("postgres", "1840", "postgres: 15/main: walreceiver streaming 4F0/91B80000"),
          ("postgres", "1841", "postgres: 15/main: archiver failed on 00000001000004E10000002C"),
          ("prometh+", "1190", "/usr/bin/prometheus-node-exporter --collector.textfile.directory=/var/lib/prometheus/node-exporter"),
          ("postgres", "1204", "/usr/bin/postgres_exporter --web.listen-address=:9187"),
          ("root", "988", "/usr/bin/containerd"), ("root", "1101", "/usr/sbin/sshd -D"),
          ("postgres", str(r.randint(20000, 40000)), "postgres: 15/main: analytics reports 10.31.7.40(51822) SELECT"),
          ("postgres", str(r.randint(20000, 40000)), "postgres: 15/main: analytics reports 10.31.7.41(49210) idle"),
          ("olu", str(r.randint(40000, 60000)), "-bash")]
    for u, pid, cmd in pp:
        procs.append(f"{u:<8} {pid:>7} {r.uniform(0, 12):>4.1f} {r.uniform(0.1, 30):>4.1f} {r.randint(10000, 9000000):>7} {r.randint(5000, 8000000):>6} ?        Ss   Mar06 {r.randint(0, 900):>3}:{r.randint(0, 59):02d} {cmd}")
    t.sh("ps aux --sort=-%mem | head -14", "\n".join(procs) + "\n")
    t.sh("sudo -u postgres psql -X -c 'select pg_is_in_recovery(), pg_last_wal_replay_lsn(), now() - pg_last_xact_replay_timestamp() as replay_delay' -c 'select * from pg_stat_archiver'",
         " pg_is_in_recovery | pg_last_wal_replay_lsn |  replay_delay\n-------------------+------------------------+-----------------\n"
         " t                 | 4F0/91B80000           | 00:00:00.398112\n(1 row)\n\n"
         " archived_count | last_archived_wal        |      last_archived_time       | failed_count | last_failed_wal          |       last_failed_time        |          stats_reset\n"
         "----------------+--------------------------+-------------------------------+--------------+--------------------------+-------------------------------+-------------------------------\n"
         "         881204 | 00000001000004E10000002B | 2024-04-12 09:13:58.221+00    |       193310 | 00000001000004E10000002C | 2024-04-16 01:12:51.008+00    | 2024-01-03 10:00:12.55+00\n(1 row)\n")
    t.sh("sudo du -xh --max-depth=1 /var 2>/dev/null | sort -rh | head -12",
         "441G\t/var\n402G\t/var/lib\n31G\t/var/crash\n6.9G\t/var/log\n612M\t/var/cache\n44M\t/var/backups\n12M\t/var/spool\n4.0K\t/var/tmp\n4.0K\t/var/opt\n4.0K\t/var/mail\n4.0K\t/var/local\n")
    t.sh("sudo du -xh --max-depth=1 /var/lib/postgresql/15/main | sort -rh | head",
         "401G\t/var/lib/postgresql/15/main\n238G\t/var/lib/postgresql/15/main/base\n161G\t/var/lib/postgresql/15/main/pg_wal\n"
         "1.3G\t/var/lib/postgresql/15/main/pg_xact\n412M\t/var/lib/postgresql/15/main/pg_multixact\n88M\t/var/lib/postgresql/15/main/pg_subtrans\n"
         "16M\t/var/lib/postgresql/15/main/global\n2.1M\t/var/lib/postgresql/15/main/pg_stat_tmp\n")
    dbs = [("analytics_scratch", "19 GB"), ("orders", "141 GB"), ("payments", "52 GB"), ("postgres", "8137 kB"), ("reports", "24 GB"),
           ("template0", "7753 kB"), ("template1", "7905 kB")]
    t.sh("sudo -u postgres psql -X -c 'select datname, pg_size_pretty(pg_database_size(datname)) as size, datconnlimit, "
         "(select count(*) from pg_stat_activity a where a.datname = d.datname) as conns from pg_database d order by 1'",
         "      datname      |  size   | datconnlimit | conns\n-------------------+---------+--------------+-------\n"
         + "\n".join(f" {n:<17} | {sz:<7} | {-1:>12} | {r.randint(0, 40):>5}" for n, sz in dbs) + f"\n({len(dbs)} rows)\n")
    t.sh("cd /var/lib/postgresql/15/main/pg_wal && sudo ls | wc -l && sudo ls archive_status | grep -c '.ready'", "10297\n10288\n")
    names = wal_names(0x4E1, 0x2C, 22)
    lst = ["total 168718336", "drwx------  3 postgres postgres   528384 Apr 16 03:12 .", "drwx------ 19 postgres postgres     4096 Mar  5 22:10 .."]
    for i, n in enumerate(names):
        lst.append(f"-rw-------  1 postgres postgres 16777216 Apr 1{2 if i < 10 else 3} {r.randint(0, 23):02d}:{r.randint(0, 59):02d} {n}")
    lst.append("drwx------  2 postgres postgres   622592 Apr 16 03:12 archive_status")
    t.sh("sudo ls -la | head -26", "\n".join(lst) + "\n")
    t.say("pg_wal holds 161 GB: 10,297 segments, of which 10,288 are marked .ready, i.e. waiting to be archived. The "
          "oldest are from 12 April, so archiving has been failing for about four days. There's also 31 GB in /var/crash.")
    jl = []
    for i in range(18):
        ts = f"Apr 16 0{2 + i // 10}:{(i * 3) % 60:02d}:{r.randint(0, 59):02d}"
        seg = names[i % len(names)]
        if i % 3 == 2:
            jl.append(f"{ts} {HOST.split('.')[0]} postgres[1822]: [{r.randint(10000, 99999)}-1] WARNING:  archiving write-ahead log file \"{seg}\" failed too many times, will try again later")
        else:
            jl.append(f"{ts} {HOST.split('.')[0]} postgres[1822]: [{r.randint(10000, 99999)}-1] LOG:  archive command failed with exit code 1")
            jl.append(f"{ts} {HOST.split('.')[0]} postgres[1822]: [{r.randint(10000, 99999)}-2] DETAIL:  The failed archive command was: envdir /etc/wal-g/env wal-g wal-push pg_wal/{seg}")
    t.sh("sudo journalctl -u postgresql@15-main --since '-1h' --no-pager | tail -18", "\n".join(jl[-18:]) + "\n", duration_ms=610)
    big = [("/var/lib/postgresql/15/main/base/16402/2619881", "1.0G"), ("/var/lib/postgresql/15/main/base/16402/2619881.1", "1.0G"),
           ("/var/lib/postgresql/15/main/base/16402/2619881.2", "1.0G"), ("/var/lib/postgresql/15/main/base/16402/2619902", "1.0G"),
           ("/var/lib/postgresql/15/main/base/16402/2619902.1", "1.0G"), ("/var/crash/postgres.1822.1712190420.core", "9.8G"),
           ("/var/crash/postgres.29031.1712190431.core", "9.7G"), ("/var/crash/_usr_lib_postgresql_15_bin_postgres.114.crash", "10G"),
           ("/var/log/postgresql/postgresql-15-main.log", "1.8G"), ("/var/log/postgresql/postgresql-15-main.log.1", "2.1G"),
           ("/var/cache/apt/archives/linux-image-6.5.0-1017-aws_6.5.0-1017.17~22.04.1_amd64.deb", "1.1G")]
    big += [(f"/var/lib/postgresql/15/main/base/16402/{r.randint(2600000, 2700000)}", "1.0G") for _ in range(8)]
    t.sh("sudo find / -xdev -type f -size +1G -printf '%s\\t%p\\n' 2>/dev/null | numfmt --to=iec --field=1 | sort -rh | head -20",
         "\n".join(f"{sz}\t{pth}" for pth, sz in sorted(big, key=lambda x: -float(x[1][:-1]))[:20]) + "\n", duration_ms=38120)
    t.sh("cat /etc/postgresql/15/main/conf.d/20-archive.conf",
         "# managed by ansible (role: postgres-replica), do not edit by hand\narchive_mode = always\n"
         "archive_command = 'envdir /etc/wal-g/env wal-g wal-push %p'\narchive_timeout = 60\nrestore_command = 'envdir /etc/wal-g/env wal-g wal-fetch %f %p'\n"
         "wal_keep_size = 2GB\nmax_slot_wal_keep_size = 64GB\n")
    t.sh("cd /var/log/postgresql && ls -la",
         ls_la(r, [("postgresql-15-main.log", 1893120412), ("postgresql-15-main.log.1", 2214008771), ("postgresql-15-main.log.2.gz", 212883102),
                   ("postgresql-15-main.log.3.gz", 198112044), ("postgresql-15-main.log.4.gz", 20881201), ("postgresql-15-main.log.5.gz", 19992113),
                   ("postgresql-15-main.log.6.gz", 21005532), ("postgresql-15-main.log.7.gz", 20110284), ("wal-g.log", 412201)],
               owner="postgres", group="adm", month="Apr", days=(9, 16)))
    walg = []
    for i in range(7):
        walg.append(f"ERROR: 2024/04/16 0{2 + i // 6}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(100000, 999999)} "
                    f"upload: could not upload '{names[i]}': failed to upload 'fra-pg/wal_005/{names[i]}.br' to bucket 'acme-pg-archive-fra': "
                    "AccessDenied: Access Denied\n\tstatus code: 403, request id: " + hexs(r, 16).upper() + ", host id: " + hexs(r, 40))
    t.sh("tail -7 wal-g.log", "\n".join(walg) + "\n")
    errs = []
    for i in range(28):
        ts = f"2024-04-1{r.randint(3, 6)} {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}.{r.randint(100, 999)} UTC"
        kind = r.choice(["archive", "archive", "archive", "space", "slow"])
        if kind == "archive":
            errs.append(f"{ts} [1841] LOG:  archive command failed with exit code 1")
        elif kind == "space":
            errs.append(f"{ts} [{r.randint(20000, 40000)}] analytics@reports ERROR:  could not write to file \"base/pgsql_tmp/pgsql_tmp{r.randint(20000, 40000)}.{r.randint(0, 9)}\": No space left on device")
        else:
            errs.append(f"{ts} [{r.randint(20000, 40000)}] analytics@reports LOG:  temporary file: path \"base/pgsql_tmp/pgsql_tmp{r.randint(20000, 40000)}.0\", size {r.randint(100000000, 2000000000)}")
    t.sh("sudo grep -hE 'No space left|archive command failed|temporary file' postgresql-15-main.log postgresql-15-main.log.1 | tail -28",
         "\n".join(sorted(errs)) + "\n", duration_ms=21900)
    t.sh("sudo ls -la /etc/wal-g/env && sudo cat /etc/wal-g/env/AWS_ACCESS_KEY_ID /etc/wal-g/env/WALG_S3_PREFIX",
         ls_la(r, [("AWS_ACCESS_KEY_ID", 21), ("AWS_REGION", 13), ("AWS_SECRET_ACCESS_KEY", 41), ("PGHOST", 21), ("WALG_COMPRESSION_METHOD", 7),
                   ("WALG_S3_PREFIX", 31)], owner="root", group="postgres", month="Feb", days=(20, 20))
         + "AKIA4XRB2Q7MZ3WLPO5K\ns3://acme-pg-archive-fra/fra-pg\n")
    t.say("Cause found: wal-g can't push WAL to s3://acme-pg-archive-fra, every upload gets 403 AccessDenied. The access key "
          "in /etc/wal-g/env (AKIA4XRB2Q7MZ3WLPO5K) dates from 20 February; it looks rotated or revoked. Until archiving "
          "works Postgres keeps every segment, hence 161 GB of WAL.")
    u2 = t.user("Ugh, the key rotation on the 12th. Open an OPS ticket for this before we change anything, priority High, "
                "I'll own it for now.")
    t.decide("dk-d1-ticket", [
        P_next("jira_create_issue", {"host": HOST, "bucket": "acme-pg-archive-fra"}, "the ticket names the host and the failing bucket"),
        P_con(u1, "never restart or change anything on the primary", "the rule that frames every action"),
        P_fact("cwd", "/var/log/postgresql", "the shell is in the postgres log dir", superseded=["/var/lib/postgresql/15/main/pg_wal"]),
    ])
    c_tk, _ = t.tool("jira_create_issue", {"project": "OPS", "issue_type": "Incident", "priority": "High",
                                           "summary": f"{HOST}: / at 97%, WAL archiving failing since 2024-04-12 (wal-g 403)",
                                           "description": "DiskSpaceCritical fired 03:01 CEST. pg_wal 161G, 10288 segments .ready. wal-g wal-push to "
                                                          "s3://acme-pg-archive-fra/fra-pg fails with AccessDenied since the key rotation on 12 Apr. "
                                                          "/var/crash holds 31G of core dumps.",
                                           "labels": ["postgres", "fra", "disk"], "assignee": "olu.adeyemi"},
                     {"id": "77120", "key": "OPS-4471", "self": "https://acme.atlassian.net/rest/api/3/issue/77120"}, request_id="jira-0a71c3d9")
    t.say("Opened OPS-4471 (Incident, High), assigned to you.")
    u3 = t.user("The new wal-g key for fra is in Vault at secret/ops/walg/fra-archive, fields access_key_id and secret. But first "
                "let's buy room: what's in /var/crash?")
    t.fact("vault_path", "secret/ops/walg/fra-archive")
    t.sh("cd /var/crash && ls -la",
         ls_la(r, [("_usr_lib_postgresql_15_bin_postgres.114.crash", 10866211204), ("_usr_lib_postgresql_15_bin_postgres.114.core", 0),
                   ("postgres.1822.1712190420.core", 10447211776), ("postgres.29031.1712190431.core", 10402182912), ("wal-g.4410.1711932011.core", 188211200)],
               owner="root", group="root", month="Apr", days=(1, 4)))
    t.sh("sudo file postgres.1822.1712190420.core && sudo gdb -batch -ex bt /usr/lib/postgresql/15/bin/postgres postgres.1822.1712190420.core 2>/dev/null | head -12",
         "postgres.1822.1712190420.core: ELF 64-bit LSB core file, x86-64, version 1 (SYSV), SVR4-style, from 'postgres: 15/main: startup recovering 000000010000044A000000E1'\n"
         "#0  0x00007f1c2a3b1a7c in __pthread_kill_implementation () from /lib/x86_64-linux-gnu/libc.so.6\n"
         "#1  0x00007f1c2a35d476 in raise () from /lib/x86_64-linux-gnu/libc.so.6\n#2  0x00007f1c2a3437f3 in abort () from /lib/x86_64-linux-gnu/libc.so.6\n"
         "#3  0x000055d0c1f0b2a1 in errfinish (filename=<optimized out>, lineno=<optimized out>, funcname=<optimized out>) at elog.c:604\n"
         "#4  0x000055d0c1b90f10 in XLogReadRecord (...) at xlogreader.c:612\n#5  0x000055d0c1b7c3e2 in ReadRecord (...) at xlogrecovery.c:3064\n"
         "#6  0x000055d0c1b7e8a9 in PerformWalRecovery () at xlogrecovery.c:1744\n#7  0x000055d0c1b71c55 in StartupXLOG () at xlog.c:5426\n", duration_ms=7720)
    t.say("/var/crash has three postgres cores from 4 April (about 10 GB each, from the startup/recovery process, the crash "
          "that was investigated under the replica restart), one wal-g core from 1 April and an apport .crash report. "
          "Deleting the cores would free ~31 GB.")
    u4 = t.user("Those were already analysed in OPS-4390, nobody needs them. Delete the core files and the .crash report.")
    t.decide("dk-d2-delete", [
        P_fact("cwd", "/var/crash", "the rm is relative to /var/crash", superseded=["/var/log/postgresql"]),
        P_fact("vault_path", "secret/ops/walg/fra-archive", "typed by the user one turn earlier, needed after the cleanup"),
    ])
    c_rm = t.call("bash", {"command": "sudo rm -v /var/crash/*.core /var/crash/_usr_lib_postgresql_15_bin_postgres.114.crash", "timeout_ms": 120000},
                  key="dk-rm-var-crash-cores")
    ap = "apr_dk_rm_crash"
    t.approval(ap, "requested", c_rm.seq, action="delete 5 files (31 GB) in /var/crash on " + HOST, irreversible=True)
    u5 = t.user("Yes, approved.")
    t.approval(ap, "granted", c_rm.seq, granted_by="olu.adeyemi")
    s_rm_res = t.res(c_rm, {"stdout": "removed '/var/crash/_usr_lib_postgresql_15_bin_postgres.114.core'\nremoved '/var/crash/postgres.1822.1712190420.core'\n",
                            "cwd": "/var/crash"},
                     outcome="timeout", error="command did not finish within 120000 ms; the session shell was interrupted")
    t.say("The rm hit the 2-minute limit: it had removed two files when the shell was interrupted. I can't tell from "
          "this whether the rest were deleted, partially written, or still there.")
    u6 = t.user("Hm. Where are we with that then? Don't just rerun it blind.")
    t.decide("dk-d3-rm-unknown", [
        P_state(c_rm, "unknown", "the rm timed out: neither done nor failed"),
        P_ev([c_rm.seq, s_rm_res], "the irreversible call and its partial output must stay verbatim"),
        P_con(u6, "Don't just rerun it blind", "check before any retry"),
    ])
    t.sh("ls -la /var/crash && df -h /",
         "total 16\ndrwxrwsrwt  2 root whoopsie  4096 Apr 16 03:31 .\ndrwxr-xr-x 14 root root      4096 Jan 30 11:02 ..\n"
         "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p1  492G  445G   47G  91% /\n")
    t.status_query(c_rm, "succeeded", {"remaining_files": 0, "freed": "31G", "checked_by": "ls -la /var/crash"})
    t.say("The deletion completed: /var/crash is empty and / went from 97% to 91% (47 GB free). Nothing to rerun.")
    u7 = t.user("Good. Now fix the archiving with the new key.")
    t.decide("dk-d4-key", [
        P_next("bash", {"vault": "secret/ops/walg/fra-archive", "field": "access_key_id"}, "the Vault path and field names the user typed earlier"),
        P_state(c_rm, "succeeded", "the rm is settled: do not repeat it"),
        P_con(u1, "read-only checks only there", "nothing about this touches the primary"),
    ])
    t.sh("vault kv get -format=json -field=data secret/ops/walg/fra-archive | jq -r 'keys[]' && vault kv metadata get -format=json secret/ops/walg/fra-archive | jq '.data.current_version, .data.updated_time'",
         "access_key_id\nsecret\n3\n\"2024-04-12T09:14:02.118420Z\"\n", duration_ms=1310)
    t.sh("vault kv get -field=access_key_id secret/ops/walg/fra-archive | sudo tee /etc/wal-g/env/AWS_ACCESS_KEY_ID >/dev/null && "
         "vault kv get -field=secret secret/ops/walg/fra-archive | sudo tee /etc/wal-g/env/AWS_SECRET_ACCESS_KEY >/dev/null && "
         "sudo chmod 640 /etc/wal-g/env/AWS_* && sudo chgrp postgres /etc/wal-g/env/AWS_*", "", duration_ms=1720)
    t.sh("sudo -u postgres envdir /etc/wal-g/env wal-g wal-push /var/lib/postgresql/15/main/pg_wal/" + names[0],
         "", stderr=f"INFO: 2024/04/16 03:38:12.402113 FILE PATH: {names[0]}.br\n", duration_ms=820)
    t.say("The new key works: a manual wal-push of the oldest segment succeeded. Postgres retries archiving on its own; "
          "the .ready backlog should now drain.")
    t.sh("sleep 300; ls /var/lib/postgresql/15/main/pg_wal/archive_status | grep -c .ready; df -h /",
         "6114\nFilesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p1  492G  412G   80G  84% /\n", duration_ms=300950)
    t.sh("sleep 600; ls /var/lib/postgresql/15/main/pg_wal/archive_status | grep -c .ready; df -h /",
         "43\nFilesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p1  492G  349G  143G  71% /\n", duration_ms=600880)
    t.sh("sudo -u postgres psql -X -c 'select archived_count, last_archived_wal, last_archived_time, failed_count, last_failed_time from pg_stat_archiver'",
         " archived_count | last_archived_wal        |      last_archived_time       | failed_count |       last_failed_time\n"
         "----------------+--------------------------+-------------------------------+--------------+-------------------------------\n"
         "         891449 | 00000001000004F00000005E | 2024-04-16 01:53:41.870+00    |       193311 | 2024-04-16 01:32:02.114+00\n(1 row)\n")
    bl = ["name                          modified                  wal_segment_backup_start"]
    for i in range(14):
        d = 2 + i
        seg = f"00000001000004{0xA0 + i * 4:02X}000000{r.randint(0, 0xFF):02X}"
        bl.append(f"base_{seg} 2024-04-{d:02d}T02:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z {seg}")
    t.sh("sudo -u postgres envdir /etc/wal-g/env wal-g backup-list 2>/dev/null | tail -15", "\n".join(bl) + "\n", duration_ms=2810)
    t.sh("sudo -u postgres envdir /etc/wal-g/env wal-g wal-verify integrity timeline 2>&1 | tail -14",
         "INFO: 2024/04/16 03:55:10.118201 Current WAL segment: 00000001000004F000000091\n"
         "INFO: 2024/04/16 03:55:10.402288 Building check runner: integrity\nINFO: 2024/04/16 03:55:10.930113 Detected earliest available backup: base_00000001000004A0000000C4\n"
         "INFO: 2024/04/16 03:55:10.930201 Building check runner: timeline\nINFO: 2024/04/16 03:55:11.002981 Running the check: integrity\n"
         "[wal-verify] integrity check status: WARNING\n[wal-verify] integrity check details:\n"
         "+-----+--------------------------+--------------------------+----------------+-----------------+\n"
         "| TLI | START                    | END                      | SEGMENTS COUNT | STATUS          |\n"
         "+-----+--------------------------+--------------------------+----------------+-----------------+\n"
         "|   1 | 00000001000004A0000000C4 | 00000001000004F00000005E |          20379 | FOUND           |\n"
         "|   1 | 00000001000004F00000005F | 00000001000004F000000090 |             50 | MISSING_UPLOADING |\n"
         "+-----+--------------------------+--------------------------+----------------+-----------------+\n"
         "[wal-verify] timeline check status: OK\n[wal-verify] timeline check details:\nHighest timeline found in storage: 1\nCurrent cluster timeline: 1\n",
         duration_ms=9420)
    t.say("Backlog nearly drained: 43 segments still .ready (from 10,288) and / is down to 71%. wal-verify finds the archive "
          "continuous from the oldest base backup up to the last ~50 segments that are still uploading, and the timeline is OK.")
    u8 = t.user(f"Check replication on the primary is healthy too, and whether the replica's slot there is holding WAL. Read-only!")
    t.decide("dk-d5-primary", [
        P_next("bash", {"host": PRIMARY}, "the primary's host name the user typed at the start"),
        P_fact("primary_host", PRIMARY, "the primary named once at the start"),
        P_con(u1, "never restart or change anything on the primary", "only SELECTs on the primary"),
    ])
    repl = ("  application_name  |  client_addr  |   state   | sent_lsn     | replay_lsn   | write_lag       | replay_lag      | sync_state\n"
            "--------------------+---------------+-----------+--------------+--------------+-----------------+-----------------+------------\n"
            " db-replica-02      | 10.31.4.22    | streaming | 4F0/91C2A3E8 | 4F0/91C2A3E8 | 00:00:00.000812 | 00:00:00.002170 | async\n"
            " db-replica-03      | 10.31.4.23    | streaming | 4F0/91C2A3E8 | 4F0/91B80000 | 00:00:00.001104 | 00:00:00.412008 | async\n"
            " pg-backup-fra      | 10.31.9.5     | streaming | 4F0/91C2A3E8 | 4F0/91C2A3E8 | 00:00:00.000541 | 00:00:00.000988 | async\n(3 rows)\n\n"
            "      slot_name      | slot_type | active | restart_lsn  | wal_status | retained\n"
            "---------------------+-----------+--------+--------------+------------+----------\n"
            " db_replica_02       | physical  | t      | 4F0/91C2A3E8 | reserved   | 0 bytes\n"
            " db_replica_03       | physical  | t      | 4F0/91B80000 | reserved   | 672 kB\n"
            " pg_backup_fra       | physical  | t      | 4F0/91C2A3E8 | reserved   | 0 bytes\n"
            " debezium_orders_old | logical   | f      | 4C2/0A000028 | extended   | 44 GB\n(4 rows)\n")
    t.sh(f"psql -h {PRIMARY} -U monitor -d postgres -X -c \"select application_name, client_addr, state, sent_lsn, replay_lsn, write_lag, replay_lag, sync_state "
         "from pg_stat_replication\" -c \"select slot_name, slot_type, active, restart_lsn, wal_status, pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)) retained from pg_replication_slots\"",
         repl, duration_ms=440)
    t.say("Replication is healthy: db-replica-03 is streaming with 0.4 s replay lag. Its slot holds only 672 kB. But the "
          "primary has an inactive logical slot, debezium_orders_old, retaining 44 GB of WAL. That's a separate risk on "
          "the primary; per your rule I haven't touched it.")
    u9 = t.user("Leave that slot, I'll raise it with the data team. Is the alert going to clear? Check what Prometheus says now.")
    _, s_df = t.sh("df -h / && date -u", "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p1  492G  349G  143G  71% /\nTue Apr 16 01:58:40 UTC 2024\n")
    vals = [[1713232800 + i * 60, str(round(0.969 - (0.0005 * i if i < 4 else 0), 4))] for i in range(10)]
    _, s_prom = t.tool("metrics_query", {"query": f'1 - node_filesystem_avail_bytes{{instance="{HOST}:9100",mountpoint="/"}} / node_filesystem_size_bytes{{instance="{HOST}:9100",mountpoint="/"}}',
                                         "start": "2024-04-16T01:50:00Z", "end": "2024-04-16T01:59:00Z", "step": "60s"},
                       {"status": "success", "data": {"resultType": "matrix", "result": [
                           {"metric": {"instance": f"{HOST}:9100", "job": "node", "mountpoint": "/", "device": "/dev/nvme0n1p1", "fstype": "ext4"},
                            "values": vals}]},
                        "warnings": [f"target {HOST}:9100 last scrape 2024-04-16T01:20:09Z: context deadline exceeded"]})
    t.say("They disagree: df on the host says 71% used right now, Prometheus still says ~96.8% with a flat line. The "
          "query warning explains it: the last successful scrape of node_exporter on this host was at 01:20Z, and scrapes "
          "time out since. The alert won't clear until scrapes work again.")
    t.sh("systemctl status prometheus-node-exporter --no-pager | head -14",
         "● prometheus-node-exporter.service - Prometheus exporter for machine metrics\n     Loaded: loaded (/lib/systemd/system/prometheus-node-exporter.service; enabled; vendor preset: enabled)\n"
         "     Active: active (running) since Wed 2024-03-06 21:10:18 UTC; 5 weeks 6 days ago\n       Docs: https://github.com/prometheus/node_exporter\n"
         "   Main PID: 1190 (prometheus-node)\n      Tasks: 11 (limit: 77021)\n     Memory: 1.9G\n        CPU: 6h 41min 12.803s\n"
         "     CGroup: /system.slice/prometheus-node-exporter.service\n             └─1190 /usr/bin/prometheus-node-exporter --collector.textfile.directory=/var/lib/prometheus/node-exporter\n\n"
         f"Apr 16 01:21:44 {HOST.split('.')[0]} prometheus-node-exporter[1190]: ts=2024-04-16T01:21:44.118Z caller=textfile.go:227 level=error collector=textfile msg=\"failed to read textfile collector directory\" err=\"too many open files\"\n"
         f"Apr 16 01:40:02 {HOST.split('.')[0]} prometheus-node-exporter[1190]: ts=2024-04-16T01:40:02.980Z caller=stdlib.go:105 level=error caller=\"http: Accept error: accept tcp [::]:9100: accept4: too many open files; retrying in 1s\"\n")
    u10 = t.user("It's only the exporter on the replica, not postgres, so restart node-exporter there. Then update the ticket: "
                 "what happened, what we did, the debezium slot as a follow-up, and hand it to Rui from the DBA team "
                 "(rui.santos) and move it to Mitigated.")
    t.decide("dk-d6-ticket-update", [
        P_next("jira_add_comment", {"issue_key": "OPS-4471"}, "the ticket key returned at the start"),
        P_ev([s_df, s_prom], "df and Prometheus disagree: the comment must explain the stale metric"),
        P_state(c_tk, "succeeded", "the ticket exists", request_id="jira-0a71c3d9"),
        P_fact("cwd", "/var/crash", "no cd since /var/crash; the sleep and df ran there", superseded=["/var/log/postgresql"]),
    ])
    t.sh("sudo systemctl restart prometheus-node-exporter && sleep 20 && curl -s localhost:9100/metrics | grep -E '^node_filesystem_avail_bytes.*mountpoint=\"/\"'",
         'node_filesystem_avail_bytes{device="/dev/nvme0n1p1",fstype="ext4",mountpoint="/"} 1.53641984e+11\n', duration_ms=21330)
    body = (f"Cause: wal-g on {HOST} used the pre-rotation S3 key (AKIA4XRB2Q7MZ3WLPO5K, 2024-02-20); since the rotation on 12 Apr "
            "every wal-push got 403, 10288 WAL segments piled up in pg_wal (161G).\n"
            "Done: deleted 31G of already-analysed core dumps in /var/crash (OPS-4390); installed key v3 from Vault "
            "secret/ops/walg/fra-archive into /etc/wal-g/env; archive backlog drained (43 .ready left at 03:58); / now 71%.\n"
            "Metrics: Prometheus kept showing ~97% because node-exporter hit 'too many open files' and scrapes timed out "
            "since 01:20Z; restarted node-exporter on the replica only.\n"
            f"Primary {PRIMARY}: replication healthy (replica-03 lag 0.4s), checked read-only. Follow-up: inactive logical slot "
            "debezium_orders_old retains 44 GB on the primary, needs an owner decision.")
    c_cm, _ = t.tool("jira_add_comment", {"issue_key": "OPS-4471", "body": body}, {"id": "301544", "created": "2024-04-16T04:06:11.208+0200"},
                     request_id="jira-5e2d8a10")
    c_as = t.call("jira_assign_issue", {"issue_key": "OPS-4471", "assignee": "rui.santos"})
    t.res(c_as, outcome="timeout", error="PUT /rest/api/3/issue/OPS-4471/assignee: read timeout after 20s")
    t.say("Exporter restarted and reporting 143 GB free again. Comment posted on OPS-4471. The reassignment to rui.santos "
          "timed out on Jira's side; I'll check the ticket before retrying.")
    u11 = t.user("Fine. Do that, and then the transition.")
    t.decide("dk-d7-assign-unknown", [
        P_state(c_as, "unknown", "the assignment timed out: check, don't assume"),
        P_next("jira_transition_issue", {"issue_key": "OPS-4471", "transition": "Mitigated"}, "the target status the user asked for a turn ago"),
        P_next("jira_get_issue", {"assignee": "rui.santos"}, "what to look for in the ticket"),
    ])
    t.tool("jira_get_issue", {"issue_key": "OPS-4471", "fields": ["assignee", "status"]},
           {"key": "OPS-4471", "fields": {"assignee": {"name": "rui.santos", "displayName": "Rui Santos"}, "status": {"name": "Investigating"}}})
    t.status_query(c_as, "succeeded", {"assignee": "rui.santos"}, request_id="jira-assign-OPS-4471")
    t.tool("jira_transition_issue", {"issue_key": "OPS-4471", "transition": "Mitigated"},
           {"issue_key": "OPS-4471", "from_status": "Investigating", "status": "Mitigated", "transition_id": "71"}, request_id="jira-7bc0e441")
    t.say("The assignment had gone through (Rui Santos is the assignee), so no retry. OPS-4471 is now Mitigated.")
    u12 = t.user("Has the alert cleared? If so resolve the page and add a note pointing at the ticket.")
    t.decide("dk-d8-resolve", [
        P_next("pagerduty_update_incident", {"incident_id": "Q2K8ZQ4VX1M0TR"}, "the incident id looked up at the very start"),
        P_next("pagerduty_add_note", {"ticket": "OPS-4471"}, "the note points at the ticket created early on"),
        P_fact("status", "Mitigated", "the ticket's current state", subject={"issue_key": "OPS-4471"}, superseded=["Investigating"]),
    ])
    t.tool("metrics_query", {"query": f'1 - node_filesystem_avail_bytes{{instance="{HOST}:9100",mountpoint="/"}} / node_filesystem_size_bytes{{instance="{HOST}:9100",mountpoint="/"}}',
                             "start": "2024-04-16T02:06:00Z", "end": "2024-04-16T02:12:00Z", "step": "60s"},
           {"status": "success", "data": {"resultType": "matrix", "result": [
               {"metric": {"instance": f"{HOST}:9100", "job": "node", "mountpoint": "/"},
                "values": [[1713233160 + i * 60, str(round(0.7098 + r.uniform(-0.0004, 0.0004), 4))] for i in range(7)]}]}})
    t.tool("pagerduty_add_note", {"incident_id": "Q2K8ZQ4VX1M0TR", "content": "Mitigated, see OPS-4471: wal-g key rotated, WAL backlog drained, / at 71%. "
                                                                            "node-exporter on the replica was stuck (too many open files), restarted."},
           {"note": {"id": "PN8QWZ41", "created_at": "2024-04-16T02:13:02Z"}}, request_id="pd-note-PN8QWZ41")
    t.tool("pagerduty_update_incident", {"incident_id": "Q2K8ZQ4VX1M0TR", "status": "resolved", "resolution": "Mitigated, OPS-4471"},
           {"incident": {"id": "Q2K8ZQ4VX1M0TR", "status": "resolved", "resolved_at": "2024-04-16T02:13:09Z"}}, request_id="pd-resolve-Q2K8ZQ4VX1M0TR")
    t.say("Prometheus now shows 71% with fresh samples, so the alert cleared. Added a note pointing at OPS-4471 and resolved the incident.")
    return t


# --------------------------------------------------------------------------------------
# 05: support engineer: Zendesk ticket about CSV export dropping rows; repro, fix, Jira, PR
# --------------------------------------------------------------------------------------
CSV_EXPORTER_RB = '''# frozen_string_literal: true

module Exports
  # Builds the shipment CSV for the "Export" button and the nightly SFTP drop.
  #
  # Columns follow the account's export profile; the default profile is
  # DEFAULT_COLUMNS. Large exports are streamed in batches of BATCH_SIZE.
  class CsvExporter
    DEFAULT_COLUMNS = %w[shipment_id reference status carrier service
                         origin_city destination_city weight_kg description
                         created_at delivered_at].freeze
    BATCH_SIZE = 2_000

    def initialize(account:, scope:, profile: account.export_profile)
      @account = account
      @scope = scope
      @profile = profile
      @columns = profile&.columns.presence || DEFAULT_COLUMNS
      @separator = profile&.col_sep.presence || ","
    end

    def each_line
      return enum_for(:each_line) unless block_given?

      yield header_line
      @scope.find_in_batches(batch_size: BATCH_SIZE) do |batch|
        batch.each do |shipment|
          line = row_for(shipment).join(@separator)
          # guard against rows that would shift columns in Excel
          next unless line.split(@separator).size == @columns.size

          yield line
        end
      end
    end

    def to_file(path)
      File.open(path, "w:UTF-8") do |f|
        f.write("\\uFEFF") if @profile&.excel_bom?
        each_line { |line| f.puts(line) }
      end
      path
    end

    private

    def header_line
      @columns.map { |c| I18n.t("exports.columns.#{c}", default: c.humanize) }.join(@separator)
    end

    def row_for(shipment)
      @columns.map { |c| format_value(shipment.public_send(c)) }
    end

    def format_value(value)
      case value
      when Time, ActiveSupport::TimeWithZone then value.utc.iso8601
      when BigDecimal then value.to_s("F")
      when nil then ""
      else value.to_s.tr("\\n", " ")
      end
    end
  end
end
'''


def rspec_log(rng, files, failures=None, seed=None):
    failures = failures or {}
    dots = []
    n = 0
    for f, cnt in files:
        for i in range(cnt):
            dots.append("F" if (f, i) in failures else ".")
            n += 1
    lines = [f"Randomized with seed {seed or rng.randint(1000, 65000)}", ""]
    s = "".join(dots)
    lines += [s[i:i + 100] for i in range(0, len(s), 100)]
    nf = len(failures)
    if nf:
        lines += ["", "Failures:", ""]
        for k, ((f, i), (title, body)) in enumerate(failures.items(), 1):
            lines += [f"  {k}) {title}", body, f"     # ./{f}:{20 + i * 7}:in `block (3 levels) in <top (required)>'", ""]
    secs = rng.uniform(20, 90)
    lines += [f"Finished in {secs:.2f} seconds (files took {rng.uniform(3, 9):.2f} seconds to load)",
              f"{n} examples, {nf} failure{'s' if nf != 1 else ''}"]
    if nf:
        lines += ["", "Failed examples:", ""] + [f"rspec ./{f}:{20 + i * 7} # {title}" for (f, i), (title, _) in failures.items()]
    return "\n".join(lines) + "\n"


def t05() -> Traj:
    t = Traj(5, "csv-export-support", "ws2-csv-export-support",
             "Support escalation: CSV export drops rows; Zendesk ticket, Rails repro and fix, Jira bug, PR, customer reply",
             ["Zendesk ticket work beside the workspace: internal notes, group, status, tags, a public reply held back",
              "an account id and export id typed once by the user, used in the repro several turns later",
              "a Zendesk update that times out and turns out not to have been performed",
              "the customer corrects the delimiter they use; the fix and the reply must use the new value",
              "ticket ids found by an early search, needed for the closing replies at the end"],
             "A support engineer escalates a customer's CSV export problem; the agent reproduces it in the "
             "Rails app, finds a filter that silently drops rows, opens a Jira bug and a PR, and keeps the "
             "Zendesk ticket in step.",
             seed=505, home="/home/sam", cwd="/home/sam", prefix="cx")
    r = t.rng
    REPO = "/home/sam/src/shipyard-web"
    u1 = t.user("New escalation, Zendesk #90412 from Brightline Logistics. They say the shipment CSV export silently drops rows. "
                "Their account is ACC-20931 and the export they're complaining about is job exp_5Kq81Z. Rule while we work on it: "
                "internal notes only on the ticket, no public replies until I say so.")
    t.fact("account_id", "ACC-20931", {"ticket_id": "90412"})
    c_tk, s_tk = t.tool("zendesk_get_ticket", {"ticket_id": 90412, "include": ["comments", "users", "organizations"]},
                        {"ticket": {"id": 90412, "subject": "CSV export missing shipments", "status": "open", "priority": "high",
                                    "type": "problem", "group_id": 21004410, "assignee_id": 3301902, "tags": ["export", "csv", "enterprise"],
                                    "custom_fields": [{"id": 4401002, "value": "ACC-20931"}, {"id": 4401017, "value": None}],
                                    "created_at": "2024-05-06T07:44:12Z"},
                         "comments": [
                             {"id": 33018811201, "author_id": 71100234, "public": True, "created_at": "2024-05-06T07:44:12Z",
                              "body": "Hello, our weekly shipment export (Reports > Shipments > Export CSV, last 7 days) has 1,842 rows but the "
                                      "dashboard says 1,911 shipments for the same filter. We reconcile invoices from this file so missing "
                                      "rows are a real problem. It seems to be shipments with longer descriptions but I'm not sure. "
                                      "Export job id from the confirmation email: exp_5Kq81Z. Regards, Dana Whitfield, Finance Ops"},
                             {"id": 33018990475, "author_id": 3301902, "public": False, "created_at": "2024-05-06T08:20:03Z",
                              "body": "T1: reproduced count mismatch with the customer's filter (1,842 vs 1,911). Not a permissions thing, "
                                      "admin user sees the same. Escalating to T2."},
                             {"id": 33019004018, "author_id": 3301902, "public": True, "created_at": "2024-05-06T08:22:40Z",
                              "body": "Hi Dana, thanks for the details. I've passed this to our technical team and we'll update you as soon as we know more."}],
                         "users": [{"id": 71100234, "name": "Dana Whitfield", "email": "dana.whitfield@brightline-logistics.example"},
                                   {"id": 3301902, "name": "Jonas Feld", "role": "agent"}],
                         "organizations": [{"id": 900221, "name": "Brightline Logistics", "tags": ["enterprise", "eu"]}]})
    c_srch, s_srch = t.tool("zendesk_search", {"query": "type:ticket \"export\" csv missing rows created>2024-03-01", "sort_by": "created_at", "sort_order": "desc"},
                            {"count": 4, "results": [
                                {"id": 90412, "subject": "CSV export missing shipments", "status": "open", "organization_id": 900221},
                                {"id": 90101, "subject": "Export CSV has fewer lines than expected", "status": "pending", "organization_id": 900587,
                                 "description": "Our export of April only has 612 lines, the report shows 640."},
                                {"id": 89977, "subject": "Some shipments not in CSV download", "status": "on-hold", "organization_id": 901140,
                                 "description": "Shipments with notes containing commas do not appear in the export, I think."},
                                {"id": 88410, "subject": "CSV export takes very long", "status": "solved", "organization_id": 900221,
                                 "description": "Export of 90 days runs > 10 minutes."}]})
    t.tool("zendesk_get_ticket", {"ticket_id": 89977, "include": ["comments"]},
           {"ticket": {"id": 89977, "subject": "Some shipments not in CSV download", "status": "hold", "priority": "normal", "group_id": 21004410,
                       "created_at": "2024-04-18T13:02:44Z"},
            "comments": [{"id": 32881001220, "public": True, "author_id": 72200871,
                          "body": "When I download the CSV of my shipments some are missing. I think it's the ones where I wrote notes with commas, "
                                  "e.g. 'Glass, handle with care'. Can you check? Thanks, Marek (Kowalczyk Meble)"},
                         {"id": 32881554102, "public": False, "author_id": 3301877,
                          "body": "Couldn't reproduce with my test account (notes with commas exported fine?). Putting on hold, asked customer for an example."},
                         {"id": 32881554388, "public": True, "author_id": 3301877,
                          "body": "Hi Marek, could you send us the id of a shipment that is missing from the file? Then we can look into it."}]})
    t.tool("zendesk_get_ticket", {"ticket_id": 90101, "include": ["comments"]},
           {"ticket": {"id": 90101, "subject": "Export CSV has fewer lines than expected", "status": "pending", "priority": "normal", "group_id": 21004410,
                       "created_at": "2024-04-29T09:31:05Z"},
            "comments": [{"id": 32960010071, "public": True, "author_id": 72301552,
                          "body": "Our export of April only has 612 lines, the report shows 640 shipments. Which ones are missing and why? "
                                  "— Fatima Haddad, Haddad Trading"},
                         {"id": 32960220983, "public": True, "author_id": 3301877,
                          "body": "Hi Fatima, the report counts shipments including cancelled ones, while the export leaves those out. Does that explain the difference?"},
                         {"id": 32961002310, "public": True, "author_id": 72301552,
                          "body": "No, we had no cancelled shipments in April. Still 28 missing."}]})
    t.say("#90412: Brightline's 7-day export has 1,842 rows vs 1,911 shipments on the dashboard; Dana suspects long "
          "descriptions. The search turns up two more open tickets that look like the same bug: #90101 (612 vs 640 lines) and "
          "#89977 (on hold, 'notes containing commas'). #88410 is an unrelated slowness ticket.")
    u2 = t.user("Interesting, #89977 says commas. Go reproduce it in the app with their export.")
    t.decide("cx-d1-repro", [
        P_next("bash", {"export": "exp_5Kq81Z", "account": "ACC-20931"}, "the ids typed in the first message"),
        P_con(u1, "internal notes only", "the rule for the ticket"),
    ])
    t.sh("cd ~/src/shipyard-web && git pull --ff-only && git log --oneline -5",
         "Already up to date.\n" + "\n".join(f"{hexs(r, 9)} {m}" for m in
         ["Merge pull request #2201 from shipyard/carrier-dhl-parcel-v2", "Carriers: DHL Parcel v2 tracking webhooks",
          "Exports: add excel_bom option to export profiles", "Bump rails from 7.1.3.2 to 7.1.3.3", "Reports: cache dashboard counts for 5 minutes"]) + "\n",
         duration_ms=1420)
    t.sh("git remote -v && git status -sb", "origin\tgit@github.com:shipyard/shipyard-web.git (fetch)\norigin\tgit@github.com:shipyard/shipyard-web.git (push)\n## main...origin/main\n")
    t.sh("grep -rn 'class CsvExporter\\|CsvExporter.new\\|col_sep' app lib config",
         grep_lines([("app/services/exports/csv_exporter.rb", 7, "  class CsvExporter"),
                     ("app/services/exports/csv_exporter.rb", 18, "      @separator = profile&.col_sep.presence || \",\""),
                     ("app/jobs/exports/shipment_export_job.rb", 22, "      exporter = Exports::CsvExporter.new(account: job.account, scope: scope)"),
                     ("app/jobs/exports/sftp_drop_job.rb", 31, "        Exports::CsvExporter.new(account: account, scope: scope).to_file(tmp.path)"),
                     ("app/models/export_profile.rb", 9, "  validates :col_sep, inclusion: { in: [\",\", \";\", \"\\t\", \"|\"] }, allow_nil: true"),
                     ("app/controllers/api/v2/exports_controller.rb", 44, "    exporter = Exports::CsvExporter.new(account: current_account, scope: scope, profile: profile)"),
                     ("config/locales/de.yml", 212, "      col_sep_hint: \"Excel (DE) erwartet Semikolon\""),
                     ("lib/tasks/exports.rake", 14, "    Exports::CsvExporter.new(account: account, scope: scope).to_file(args[:path])")]))
    t.read(REPO + "/app/services/exports/csv_exporter.rb", CSV_EXPORTER_RB)
    t.read(REPO + "/app/models/export_profile.rb",
           "# frozen_string_literal: true\n\n# Per-account export settings (Settings > Exports). One profile per account.\n"
           "class ExportProfile < ApplicationRecord\n  belongs_to :account\n\n  SEPARATORS = [\",\", \";\", \"\\t\", \"|\"].freeze\n\n"
           "  validates :name, presence: true, length: { maximum: 80 }\n  validates :col_sep, inclusion: { in: SEPARATORS }, allow_nil: true\n"
           "  validate :columns_are_known\n\n  # Excel in de/fr/nl locales expects ';'; we suggest it on the settings page.\n"
           "  def self.suggested_separator(locale)\n    %w[de fr nl it es].include?(locale.to_s[0, 2]) ? \";\" : \",\"\n  end\n\n"
           "  def excel_bom?\n    excel_bom\n  end\n\n  private\n\n  def columns_are_known\n    unknown = Array(columns) - Shipment::EXPORTABLE_COLUMNS\n"
           "    errors.add(:columns, \"unknown: #{unknown.join(', ')}\") if unknown.any?\n  end\nend\n")
    t.say("The exporter joins values with the separator by hand and then skips any line where "
          "`line.split(@separator).size != @columns.size`, i.e. any row whose value contains the separator. Values are "
          "never quoted, so a description with a comma makes the row 'too long' and it's silently dropped.")
    runner = ("export exp_5Kq81Z account=ACC-20931 (Brightline Logistics) profile=default col_sep=\",\"\n"
              "scope: shipments created 2024-04-29..2024-05-05 -> 1911 rows\n"
              "lines yielded (excluding header): 1862\nskipped by column guard: 49\n"
              "sample skipped:\n")
    samples = ["Pallet 3/4, fragile", "Spare parts, urgent, call before delivery", "Returns batch 17, see RMA-4410",
               "Tiles (ceramic), 2x crates", "Cold chain, keep 2-8C", "Documents, signature required"]
    for i, desc in enumerate(samples):
        runner += f"  SHP-{r.randint(1000000, 9999999)}  description={desc!r}  fields_after_split={11 + desc.count(',')}\n"
    t.sh("bin/rails runner 'e = ExportJob.find_by!(public_id: \"exp_5Kq81Z\"); ex = Exports::CsvExporter.new(account: e.account, scope: e.scope); "
         "lines = ex.each_line.drop(1); puts \"lines=#{lines.size} scope=#{e.scope.count}\"' -e development && bin/diagnose_export exp_5Kq81Z",
         "lines=1862 scope=1911\n" + runner, duration_ms=14220)
    hdr = "Shipment ID,Reference,Status,Carrier,Service,Origin city,Destination city,Weight (kg),Description,Created at,Delivered at"
    rows = [hdr]
    cities = ["Hamburg", "Bremen", "Berlin", "Leipzig", "Dortmund", "Köln", "Frankfurt", "Stuttgart", "München", "Nürnberg", "Hannover", "Rotterdam"]
    for i in range(20):
        rows.append(f"SHP-{4409000 + i * 37},BL-{r.randint(100000, 999999)},{r.choice(['delivered', 'delivered', 'in_transit', 'exception'])},"
                    f"{r.choice(['dhl', 'dpd', 'gls', 'ups'])},{r.choice(['parcel', 'freight', 'express'])},{r.choice(cities)},{r.choice(cities)},"
                    f"{r.uniform(0.4, 480):.1f},{r.choice(['Pallet', 'Box', 'Documents', 'Tiles', 'Spare parts', 'Returns'])} {r.randint(1, 40)},"
                    f"2024-04-{r.randint(29, 30)}T{r.randint(6, 18):02d}:{r.randint(0, 59):02d}:00Z,2024-05-0{r.randint(1, 5)}T{r.randint(8, 19):02d}:{r.randint(0, 59):02d}:00Z")
    t.sh("bin/rails runner 'Exports::CsvExporter.new(account: Account.find_by!(public_id: \"ACC-20931\"), scope: ExportJob.find_by!(public_id: \"exp_5Kq81Z\").scope, profile: nil).to_file(\"/tmp/exp_5Kq81Z.csv\")' -e development && wc -l /tmp/exp_5Kq81Z.csv && head -21 /tmp/exp_5Kq81Z.csv",
         "1863 /tmp/exp_5Kq81Z.csv\n" + "\n".join(rows) + "\n", duration_ms=11020)
    t.read(REPO + "/app/jobs/exports/shipment_export_job.rb",
           "# frozen_string_literal: true\n\nmodule Exports\n  class ShipmentExportJob < ApplicationJob\n    queue_as :exports\n"
           "    retry_on ActiveRecord::Deadlocked, wait: 5.seconds, attempts: 3\n\n    def perform(export_job_id)\n"
           "      job = ExportJob.find(export_job_id)\n      job.update!(state: :running, started_at: Time.current)\n\n"
           "      scope = job.scope.includes(:carrier, :origin, :destination)\n"
           "      exporter = Exports::CsvExporter.new(account: job.account, scope: scope)\n\n"
           "      Tempfile.create([job.public_id, \".csv\"]) do |tmp|\n        exporter.to_file(tmp.path)\n"
           "        job.file.attach(io: File.open(tmp.path), filename: \"shipments-#{job.range_label}.csv\", content_type: \"text/csv\")\n      end\n\n"
           "      job.update!(state: :done, finished_at: Time.current, row_count: job.scope.count)\n"
           "      ExportMailer.with(job: job).ready.deliver_later\n    rescue StandardError => e\n"
           "      job.update!(state: :failed, error: e.message.truncate(500))\n      raise\n    end\n  end\nend\n")
    t.say("Note the job stores `row_count: job.scope.count` (1,911) even though fewer lines were written, so the "
          "confirmation email and the UI say 1,911 while the file has 1,842. Nothing logs the skipped rows.")
    t.say("Reproduced the mechanism with exp_5Kq81Z's scope on the dev snapshot: 1,911 shipments, 1,862 lines written, 49 "
          "rows skipped by the column guard, all with commas in the description. The customer's file is missing 69, so the "
          "dev numbers don't match exactly yet, but it's the same mechanism as #89977 and almost certainly #90101.")
    u2b = t.user("How many other customers are hit by this? Check on the read replica, last 30 days.")
    accs = []
    for i in range(28):
        accs.append((f"ACC-{r.randint(10000, 39999)}", r.choice([",", ",", ",", ";", ";", "\t"]), r.randint(1, 900), r.randint(200, 40000)))
    accs[0] = ("ACC-20931", ";", 241, 8120)
    accs.sort(key=lambda a: -a[2])
    SEPNAME = {"\t": "tab"}
    tbl = (" account_id | col_sep | affected_rows | total_rows | exports_30d\n------------+---------+---------------+------------+-------------\n"
           + "\n".join(f" {a:<10} | {SEPNAME.get(sep, sep):<7} | {aff:>13} | {tot:>10} | {r.randint(1, 60):>11}" for a, sep, aff, tot in accs)
           + f"\n({len(accs)} rows)\n")
    t.sh("psql \"$REPLICA_URL\" -X -c \"select a.public_id as account_id, coalesce(p.col_sep, ',') as col_sep, "
         "count(*) filter (where s.description like '%' || coalesce(p.col_sep, ',') || '%' or s.reference like '%' || coalesce(p.col_sep, ',') || '%') as affected_rows, "
         "count(*) as total_rows, (select count(*) from export_jobs j where j.account_id = a.id and j.created_at > now() - interval '30 days') as exports_30d "
         "from shipments s join accounts a on a.id = s.account_id left join export_profiles p on p.account_id = a.id "
         "where s.created_at > now() - interval '30 days' group by 1, 2, a.id having count(*) filter (where s.description like '%' || coalesce(p.col_sep, ',') || '%') > 0 "
         "order by 3 desc limit 28\"", tbl, duration_ms=9810)
    t.say(f"At least {len(accs)} accounts have had rows dropped in the last 30 days (the query stops at 28); ACC-20931 among them with 241 rows. "
          "Most use ',' but several use ';' or tab. Only three of them have opened tickets so far.")
    u3 = t.user("Nailed it. Open a Jira bug in REP for the engineering fix, and put an internal note on the Zendesk ticket "
                "with the root cause and the Jira link. Move it to the Tier 2 group and on-hold.")
    t.decide("cx-d2-jira-note", [
        P_next("jira_create_issue", {"ticket": "90412", "count": "1,842"}, "the Zendesk id and the repro numbers go into the bug"),
        P_con(u1, "no public replies until I say so", "the note must be internal"),
        P_next("zendesk_update_ticket", {"related": "89977"}, "the related ticket found by the search belongs in the note"),
    ])
    c_j, _ = t.tool("jira_create_issue", {"project": "REP", "issue_type": "Bug", "priority": "High",
                                          "summary": "CSV export silently drops rows whose values contain the separator",
                                          "description": "Exports::CsvExporter#each_line joins values without quoting and skips lines where "
                                                         "split(sep).size != columns.size. Any description with a comma is dropped.\n"
                                                         "Customer file exp_5Kq81Z (ACC-20931): 1842 of 1911 rows. Dev repro: the 49 rows with commas are skipped.\n"
                                                         "Zendesk: 90412, 90101, 89977.",
                                          "labels": ["exports", "customer-impact"], "components": ["Reports"]},
                    {"id": "51822", "key": "REP-812", "self": "https://shipyard.atlassian.net/rest/api/3/issue/51822"}, request_id="jira-rep-812")
    t.tool("zendesk_search", {"query": "type:group \"Tier 2\""},
           {"count": 2, "results": [{"id": 21004877, "name": "Tier 2 - Technical", "result_type": "group"},
                                    {"id": 21005120, "name": "Tier 2 - Billing", "result_type": "group"}]})
    note = ("Root cause: Exports::CsvExporter writes values unquoted and drops every row whose value contains the separator "
            "(column guard). Customer's exp_5Kq81Z has 1842 of 1911 rows; the dev repro skips every row with a comma in the description. "
            "Engineering bug: REP-812 (https://shipyard.atlassian.net/browse/REP-812). Same cause: #90101, #89977.")
    c_up = t.call("zendesk_update_ticket", {"ticket_id": 90412, "group_id": 21004877, "status": "hold",
                                             "tags": ["export", "csv", "enterprise", "rep-812"],
                                             "custom_fields": [{"id": 4401017, "value": "REP-812"}],
                                             "comment": {"body": note, "public": False}})
    t.res(c_up, outcome="timeout", error="PUT https://shipyard.zendesk.com/api/v2/tickets/90412.json: timeout after 30s")
    t.say("REP-812 is created. The Zendesk update (internal note, Tier 2 - Technical, on-hold, REP-812 field) timed out, "
          "so I'll check the ticket's audits before sending it again.")
    u4 = t.user("Check it, and don't double post the note.")
    t.decide("cx-d3-timeout", [
        P_state(c_up, "unknown", "the update timed out"),
        P_next("zendesk_get_ticket", {"ticket_id": 90412}, "look at the ticket's latest audit"),
        P_state(c_j, "succeeded", "the Jira bug exists", request_id="jira-rep-812"),
    ])
    t.tool("zendesk_get_ticket", {"ticket_id": 90412, "include": ["audits"]},
           {"ticket": {"id": 90412, "status": "open", "group_id": 21004410, "tags": ["export", "csv", "enterprise"],
                       "updated_at": "2024-05-06T08:22:40Z"},
            "audits": [{"id": 33019004017, "created_at": "2024-05-06T08:22:40Z", "author_id": 3301902,
                        "events": [{"type": "Comment", "public": True}]}]})
    t.status_query(c_up, "not_performed", {"latest_audit": "33019004017", "ticket_updated_at": "2024-05-06T08:22:40Z"})
    t.say("The timed-out update never landed: the ticket's latest audit is still Jonas's public reply from 08:22, status open, "
          "old group, no REP-812. I'll send it again.")
    u5 = t.user("Go ahead.")
    c_up2, _ = t.tool("zendesk_update_ticket", {"ticket_id": 90412, "group_id": 21004877, "status": "hold",
                                                 "tags": ["export", "csv", "enterprise", "rep-812"],
                                                 "custom_fields": [{"id": 4401017, "value": "REP-812"}],
                                                 "comment": {"body": note, "public": False}},
                      {"ticket": {"id": 90412, "status": "hold", "group_id": 21004877, "tags": ["export", "csv", "enterprise", "rep-812"]},
                       "audit": {"id": 33020117442, "events": [{"type": "Comment", "public": False}, {"type": "Change", "field_name": "status", "value": "hold"},
                                                               {"type": "Change", "field_name": "group_id", "value": "21004877"}]}},
                      request_id="zd-audit-33020117442")
    t.say("Done: internal note posted once, ticket on-hold in Tier 2 - Technical with REP-812 linked.")
    t.subtask_end("ticket 90412 escalated: REP-812, on-hold, internal note")
    # --- fix
    u6 = t.user("Engineering is swamped, so let's do the fix ourselves. Use Ruby's CSV library so values get quoted, drop "
                "the guard, add specs. Branch name sam/rep-812-csv-quoting.")
    t.sh("git checkout -b sam/rep-812-csv-quoting", "", stderr="Switched to a new branch 'sam/rep-812-csv-quoting'\n")
    t.edit(REPO + "/app/services/exports/csv_exporter.rb",
           "          line = row_for(shipment).join(@separator)\n          # guard against rows that would shift columns in Excel\n"
           "          next unless line.split(@separator).size == @columns.size\n\n          yield line\n",
           "          yield CSV.generate_line(row_for(shipment), col_sep: @separator, row_sep: \"\")\n")
    t.edit(REPO + "/app/services/exports/csv_exporter.rb",
           "      @columns.map { |c| I18n.t(\"exports.columns.#{c}\", default: c.humanize) }.join(@separator)",
           "      CSV.generate_line(@columns.map { |c| I18n.t(\"exports.columns.#{c}\", default: c.humanize) }, col_sep: @separator, row_sep: \"\")")
    spec = ('# frozen_string_literal: true\n\nrequire "rails_helper"\nrequire "csv"\n\nRSpec.describe Exports::CsvExporter do\n'
            '  let(:account) { create(:account) }\n  let(:scope) { Shipment.where(account: account) }\n\n'
            '  it "keeps rows whose description contains the separator (REP-812)" do\n'
            '    create(:shipment, account: account, description: "Pallet 3/4, fragile")\n    create(:shipment, account: account, description: "plain")\n'
            '    lines = described_class.new(account: account, scope: scope).each_line.to_a\n'
            '    expect(lines.size).to eq(3)\n    expect(CSV.parse(lines.join("\\n"), headers: true).map { |r| r["Description"] }).to include("Pallet 3/4, fragile")\n  end\n\n'
            '  it "quotes values with quotes and separators" do\n    create(:shipment, account: account, description: \'12" pipes, "bent"\')\n'
            '    line = described_class.new(account: account, scope: scope).each_line.to_a.last\n'
            '    expect(line).to include(\'"12"" pipes, ""bent"""\')\n  end\nend\n')
    t.write(REPO + "/spec/services/exports/csv_exporter_spec.rb", spec)
    files = [("spec/services/exports/csv_exporter_spec.rb", 2), ("spec/jobs/exports/shipment_export_job_spec.rb", 9),
             ("spec/jobs/exports/sftp_drop_job_spec.rb", 7), ("spec/requests/api/v2/exports_spec.rb", 23),
             ("spec/models/export_profile_spec.rb", 11), ("spec/services/reports/dashboard_counts_spec.rb", 14)]
    t.sh("bundle exec rspec spec/services/exports spec/jobs/exports spec/requests/api/v2/exports_spec.rb spec/models/export_profile_spec.rb spec/services/reports",
         rspec_log(r, files, failures={("spec/requests/api/v2/exports_spec.rb", 17): (
             "GET /api/v2/exports/:id/download returns the legacy unquoted format for v1 clients",
             "     Failure/Error: expect(response.body.lines[1]).to eq(\"SHP-1000001,REF-1,delivered,dhl,parcel,Berlin,Hamburg,2.5,box,2024-05-01T08:00:00Z,\\n\")\n\n"
             "       expected: \"SHP-1000001,REF-1,delivered,dhl,parcel,Berlin,Hamburg,2.5,box,2024-05-01T08:00:00Z,\\n\"\n"
             "            got: \"SHP-1000001,REF-1,delivered,dhl,parcel,Berlin,Hamburg,2.5,box,2024-05-01T08:00:00Z,\\\"\\\"\\n\"\n\n"
             "       (compared using ==)")}),
         exit_code=1, duration_ms=61220)
    t.say("New specs pass. One existing request spec fails: it pins the exact legacy line for an empty delivered_at, and "
          "CSV writes an empty string as `\"\"` when quoting is on. That's only the representation of empty fields; I'll "
          "set `quote_empty: false` so empty values stay bare like before.")
    t.edit(REPO + "/app/services/exports/csv_exporter.rb", 'col_sep: @separator, row_sep: "")\n        end',
           'col_sep: @separator, row_sep: "", quote_empty: false)\n        end')
    t.sh("bundle exec rspec spec/services/exports spec/jobs/exports spec/requests/api/v2/exports_spec.rb spec/models/export_profile_spec.rb spec/services/reports",
         rspec_log(r, files), duration_ms=58300)
    # --- customer correction
    u7 = t.user("Update from Dana on the ticket: they don't use commas at all, their export profile is set to semicolon because "
                "of German Excel. So their dropped rows must be descriptions with semicolons. Make sure the specs cover that.")
    t.correction("col_sep", ";", {"account_id": "ACC-20931"})
    t.decide("cx-d4-semicolon", [
        P_fact("col_sep", ";", "the customer's separator, corrected by the customer", subject={"account_id": "ACC-20931"}, superseded=[","]),
        P_next("bash", {"export": "exp_5Kq81Z"}, "re-run the repro for their job with the profile's separator"),
        P_fact("cwd", REPO, "the shell is still in the app repo", superseded=["/home/sam"]),
    ])
    t.tool("zendesk_get_ticket", {"ticket_id": 90412, "include": ["comments"], "since": "2024-05-06T09:00:00Z"},
           {"ticket": {"id": 90412, "status": "open", "group_id": 21004877, "tags": ["export", "csv", "enterprise", "rep-812"]},
            "comments": [{"id": 33020880913, "author_id": 71100234, "public": True, "created_at": "2024-05-06T10:12:09Z",
                          "body": "Hi again, one more thing that may help: we don't use commas at all, our export profile is set to semicolon "
                                  "because our Excel is German. Some of our descriptions do have semicolons in them (\"Fliesen; 2 Kisten\"). "
                                  "Dana"}]})
    t.say("Hm, the ticket status came back 'open', not 'hold': Dana's public comment re-opened it, which Zendesk does by default.")
    t.sh("bin/rails runner 'p Account.find_by!(public_id: \"ACC-20931\").export_profile' -e development", "nil\n", duration_ms=6100)
    t.sh("psql \"$REPLICA_URL\" -X -c \"select p.name, p.col_sep, p.excel_bom, p.columns from export_profiles p join accounts a on a.id = p.account_id where a.public_id = 'ACC-20931'\" "
         "-c \"select count(*) as with_sep from shipments s join export_jobs j on j.public_id = 'exp_5Kq81Z' where s.account_id = j.account_id "
         "and s.created_at between j.range_start and j.range_end and s.description like '%;%'\"",
         "        name        | col_sep | excel_bom |                                            columns\n"
         "--------------------+---------+-----------+------------------------------------------------------------------------------------------------\n"
         " brightline-finance | ;       | t         | {shipment_id,reference,status,carrier,service,destination_city,weight_kg,description,delivered_at}\n(1 row)\n\n"
         " with_sep\n----------\n       69\n(1 row)\n", duration_ms=2210)
    t.read(REPO + "/bin/diagnose_export",
           "#!/usr/bin/env ruby\n# frozen_string_literal: true\n\n# Usage: bin/diagnose_export <export public id>\n"
           "# Replays an export's scope through CsvExporter and reports skipped rows.\nrequire_relative \"../config/environment\"\n\n"
           "job = ExportJob.find_by!(public_id: ARGV.fetch(0))\nprofile = job.account.export_profile\n"
           "sep = profile&.col_sep.presence || \",\"\n"
           "puts \"export #{job.public_id} account=#{job.account.public_id} (#{job.account.name}) profile=#{profile&.name || 'default'} col_sep=#{sep.inspect}\"\n"
           "scope = job.scope\nputs \"scope: shipments created #{job.range_label} -> #{scope.count} rows\"\n\n"
           "columns = profile&.columns.presence || Exports::CsvExporter::DEFAULT_COLUMNS\nskipped = []\nyielded = 0\n"
           "scope.find_each do |s|\n  line = columns.map { |c| s.public_send(c).to_s }.join(sep)\n"
           "  if line.split(sep).size == columns.size\n    yielded += 1\n  else\n    skipped << s\n  end\nend\n"
           "puts \"lines yielded (excluding header): #{yielded}\"\nputs \"skipped by column guard: #{skipped.size}\"\n"
           "puts \"sample skipped:\"\nskipped.first(6).each do |s|\n"
           "  puts \"  #{s.public_id}  description=#{s.description.inspect}  fields_after_split=#{columns.map { |c| s.public_send(c).to_s }.join(sep).split(sep).size}\"\nend\n")
    t.say("Dana is right and my first repro was misleading: the dev snapshot has no export profiles, so bin/diagnose_export "
          "fell back to ','. In production their profile 'brightline-finance' uses ';', and exactly 69 shipments in the export's "
          "scope have a ';' in the description: that's the whole gap (1,911 - 1,842). Same bug, different separator; the fix "
          "already uses the profile's separator. Adding a ';' spec.")
    t.edit(REPO + "/spec/services/exports/csv_exporter_spec.rb", '  it "quotes values with quotes and separators" do',
           '  it "keeps rows containing a semicolon when the profile separator is ;" do\n'
           '    profile = create(:export_profile, account: account, col_sep: ";")\n'
           '    create(:shipment, account: account, description: "Fliesen; 2 Kisten")\n'
           '    lines = described_class.new(account: account, scope: scope, profile: profile).each_line.to_a\n'
           '    expect(CSV.parse(lines.join("\\n"), col_sep: ";", headers: true).map { |r| r["Description"] }).to eq(["Fliesen; 2 Kisten"])\n  end\n\n'
           '  it "quotes values with quotes and separators" do')
    t.sh("bundle exec rspec spec/services/exports/csv_exporter_spec.rb --format documentation",
         "\nRandomized with seed 40417\n\nExports::CsvExporter\n  keeps rows containing a semicolon when the profile separator is ;\n"
         "  quotes values with quotes and separators\n  keeps rows whose description contains the separator (REP-812)\n\n"
         "Finished in 0.61 seconds (files took 4.02 seconds to load)\n3 examples, 0 failures\n", duration_ms=6010)
    t.sh("git diff app/services", "diff --git a/app/services/exports/csv_exporter.rb b/app/services/exports/csv_exporter.rb\nindex 7c1d0e2..b94a6f1 100644\n"
         "--- a/app/services/exports/csv_exporter.rb\n+++ b/app/services/exports/csv_exporter.rb\n@@ -1,5 +1,7 @@\n # frozen_string_literal: true\n \n+require \"csv\"\n+\n module Exports\n"
         "@@ -24,11 +26,7 @@ module Exports\n       yield header_line\n       @scope.find_in_batches(batch_size: BATCH_SIZE) do |batch|\n         batch.each do |shipment|\n"
         "-          line = row_for(shipment).join(@separator)\n-          # guard against rows that would shift columns in Excel\n-          next unless line.split(@separator).size == @columns.size\n-\n-          yield line\n"
         "+          yield CSV.generate_line(row_for(shipment), col_sep: @separator, row_sep: \"\", quote_empty: false)\n         end\n       end\n     end\n"
         "@@ -45,7 +43,8 @@ module Exports\n     private\n \n     def header_line\n-      @columns.map { |c| I18n.t(\"exports.columns.#{c}\", default: c.humanize) }.join(@separator)\n"
         "+      CSV.generate_line(@columns.map { |c| I18n.t(\"exports.columns.#{c}\", default: c.humanize) },\n+                        col_sep: @separator, row_sep: \"\", quote_empty: false)\n     end\n")
    t.sh("bundle exec rubocop app/services/exports spec/services/exports",
         "Inspecting 4 files\n..C.\n\nOffenses:\n\nspec/services/exports/csv_exporter_spec.rb:29:5: C: [Correctable] RSpec/ExampleLength: Example has too many lines. [6/5]\n"
         "    it \"keeps rows containing a semicolon when the profile separator is ;\" do ...\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\n"
         "4 files inspected, 1 offense detected, 1 offense autocorrectable\n", exit_code=1, duration_ms=4410)
    t.edit(REPO + "/spec/services/exports/csv_exporter_spec.rb", '    lines = described_class.new(account: account, scope: scope, profile: profile).each_line.to_a\n    expect(CSV.parse(lines.join("\\n"), col_sep: ";"',
           '    lines = described_class.new(account: account, scope: scope, profile: profile).each_line.to_a.join("\\n")\n    expect(CSV.parse(lines, col_sep: ";"')
    t.sh("bundle exec rubocop app/services/exports spec/services/exports", "Inspecting 4 files\n....\n\n4 files inspected, no offenses detected\n", duration_ms=4020)
    added = "\n".join(f"> SHP-{r.randint(4409000, 4412999)};BL-{r.randint(100000, 999999)};delivered;{r.choice(['dhl', 'dpd', 'gls'])};{r.choice(['parcel', 'freight'])};"
                       f"{r.choice(['Hamburg', 'Leipzig', 'München', 'Köln'])};{r.uniform(1, 400):.1f};\"{d}\";2024-05-0{r.randint(1, 5)}T{r.randint(8, 18):02d}:{r.randint(10, 59)}:00Z"
                       for d in ["Pallet 3/4; fragile", "Retour; siehe RMA-4410", "Fliesen; 2 Kisten; Vorsicht", "Ersatzteile; dringend",
                                 "Kühlkette; 2-8C", "Dokumente; Unterschrift", "Glas; Vorsicht", "Muster; kostenlos", "Paletten 1-3; Rampe 4",
                                 "Teillieferung; Rest folgt", "Retoure; beschädigt", "Möbel; 2 Mann Handling"])
    t.sh("bin/rails runner 'j = ExportJob.find_by!(public_id: \"exp_5Kq81Z\"); pr = ExportProfile.new(col_sep: \";\", columns: %w[shipment_id reference status carrier service destination_city weight_kg description delivered_at]); "
         "Exports::CsvExporter.new(account: j.account, scope: j.scope, profile: pr).to_file(\"/tmp/exp_5Kq81Z.fixed.csv\")' -e development && "
         "wc -l /tmp/exp_5Kq81Z.fixed.csv && ruby -rcsv -e 'rows = CSV.read(ARGV[0], col_sep: \";\", headers: true); puts rows.size' /tmp/exp_5Kq81Z.fixed.csv && grep -c '\"' /tmp/exp_5Kq81Z.fixed.csv && grep '\"' /tmp/exp_5Kq81Z.fixed.csv | head -12",
         "1912 /tmp/exp_5Kq81Z.fixed.csv\n1911\n69\n" + added.replace("> ", "") + "\n", duration_ms=13880)
    t.say("With the fix, their export has 1,912 lines (header + 1,911 shipments); the 69 previously dropped rows are there, "
          "with the semicolon values quoted.")
    big = [(f"spec/{d}_spec.rb", r.randint(30, 160)) for d in ["models", "services", "jobs", "requests", "system", "lib", "mailers", "policies",
                                                               "components", "helpers", "channels", "views", "routing", "integrations"]]
    t.sh("bundle exec rspec --exclude-pattern 'spec/system/**/*_spec.rb'", rspec_log(r, big), duration_ms=412330)
    t.say("Full suite (without the browser system specs) is green.")
    u8 = t.user("Commit, push and open the PR against main, reference the Jira bug.")
    t.decide("cx-d5-pr", [
        P_next("bash", {"branch": "sam/rep-812-csv-quoting", "jira": "REP-812"}, "branch typed by the user, bug key returned by Jira"),
        P_next("github_create_pull_request", {"repo": "shipyard/shipyard-web"}, "the repo, as the log's merge commits show"),
    ])
    sha = hexs(r, 40)
    t.sh("git add -A && git commit -m 'Exports: quote CSV values instead of dropping rows with the separator (REP-812)' && git push -u origin sam/rep-812-csv-quoting",
         f"[sam/rep-812-csv-quoting {sha[:7]}] Exports: quote CSV values instead of dropping rows with the separator (REP-812)\n 2 files changed, 41 insertions(+), 7 deletions(-)\n"
         " create mode 100644 spec/services/exports/csv_exporter_spec.rb\n",
         stderr="remote:\nremote: Create a pull request for 'sam/rep-812-csv-quoting' on GitHub by visiting:\n"
                "remote:      https://github.com/shipyard/shipyard-web/pull/new/sam/rep-812-csv-quoting\nremote:\n"
                "To github.com:shipyard/shipyard-web.git\n * [new branch]      sam/rep-812-csv-quoting -> sam/rep-812-csv-quoting\n", duration_ms=2710)
    t.tool("github_create_pull_request", {"repo": "shipyard/shipyard-web", "head": "sam/rep-812-csv-quoting", "base": "main",
                                          "title": "Exports: quote CSV values instead of dropping rows (REP-812)",
                                          "body": "REP-812. CsvExporter now writes with CSV.generate_line (profile col_sep, quote_empty: false) and "
                                                  "no longer skips rows containing the separator. Specs for ',' and ';' profiles.\n\nZendesk: 90412, 90101, 89977"},
           {"number": 2207, "html_url": "https://github.com/shipyard/shipyard-web/pull/2207", "state": "open",
            "head": {"ref": "sam/rep-812-csv-quoting", "sha": sha}})
    t.tool("github_list_check_runs", {"repo": "shipyard/shipyard-web", "ref": sha},
           {"total_count": 4, "check_runs": [
               {"name": "rspec (1/4)", "status": "completed", "conclusion": "success", "output": {"summary": "1204 examples, 0 failures"}},
               {"name": "rspec (2/4)", "status": "completed", "conclusion": "success", "output": {"summary": "1188 examples, 0 failures"}},
               {"name": "rspec (3/4)", "status": "completed", "conclusion": "success", "output": {"summary": "1231 examples, 0 failures, 2 pending"}},
               {"name": "rspec (4/4)", "status": "completed", "conclusion": "success", "output": {"summary": "1197 examples, 0 failures"}},
               {"name": "rubocop", "status": "completed", "conclusion": "success"},
               {"name": "brakeman", "status": "completed", "conclusion": "success", "output": {"summary": "0 security warnings"}}]})
    t.tool("jira_add_comment", {"issue_key": "REP-812", "body": "Fix in https://github.com/shipyard/shipyard-web/pull/2207. Customer (ACC-20931) uses ';' — covered by a spec."},
           {"id": "700128", "created": "2024-05-06T11:02:51.000+0200"}, request_id="jira-700128")
    t.say("PR #2207 is open (https://github.com/shipyard/shipyard-web/pull/2207) and linked from REP-812.")
    u9 = t.user("Merged by Ilse and it went out with the 14:00 deploy. Now you may reply publicly: tell Dana it's fixed, the "
                "rows with semicolons are in the export now, and that she should re-run the export for last week. Same for "
                "the two other tickets that had this bug, adapted to them. Set all three to solved.")
    t.decide("cx-d6-reply", [
        P_next("zendesk_update_ticket", {"t2": 90101, "t3": 89977}, "the two related tickets came from the first search"),
        P_fact("col_sep", ";", "the reply to Dana talks about semicolons", subject={"account_id": "ACC-20931"}, superseded=[","]),
        P_state(c_up, "failed", "the first update was not performed; only the retry exists"),
        P_con(u1, "no public replies until I say so", "the hold that the user now lifts"),
    ])
    merge_sha = hexs(r, 40)
    t.tool("github_get_pull_request", {"repo": "shipyard/shipyard-web", "pull_number": 2207},
           {"number": 2207, "state": "closed", "merged": True, "merged_at": "2024-05-06T11:48:20Z", "merged_by": {"login": "ilse-vk"},
            "merge_commit_sha": merge_sha, "base": {"ref": "main"}, "head": {"ref": "sam/rep-812-csv-quoting", "sha": sha},
            "review_comments": 2, "commits": 1, "additions": 52, "deletions": 7, "changed_files": 2})
    t.sh("curl -s https://app.shipyard.example/up/version && git fetch -q origin && git merge-base --is-ancestor " + merge_sha[:12] + " origin/production && echo deployed",
         '{"app":"shipyard-web","release":"2024.05.06-1400","commit":"' + hexs(r, 12) + '","deployed_at":"2024-05-06T12:03:44Z","region":"eu-central-1"}\ndeployed\n',
         duration_ms=2480)
    t.say("Confirmed: #2207 was merged by ilse-vk at 11:48Z and its merge commit is in the production branch deployed at 12:03Z (14:03 CEST).")
    msgs = {90412: "Hi Dana, thanks for your patience and for the hint about semicolons. The export skipped every shipment whose "
                   "text contained your separator (;). This is fixed since today 14:00 CEST: values are now quoted instead of the row "
                   "being dropped. Please re-run the export for last week; it should have all 1,911 shipments.",
            90101: "Hello, the missing lines were shipments whose description contained a comma, which our export dropped. This is "
                   "fixed since today 14:00 CEST. Please re-run your April export; it should now match the report.",
            89977: "Hello, you were right: shipments with commas in their notes were left out of the CSV. This is fixed since today "
                   "14:00 CEST. Please download the export again."}
    for tid in (90412, 90101, 89977):
        t.tool("zendesk_update_ticket", {"ticket_id": tid, "status": "solved", "comment": {"body": msgs[tid], "public": True}},
               {"ticket": {"id": tid, "status": "solved"}, "audit": {"id": 33021000000 + tid, "events": [{"type": "Comment", "public": True}]}},
               request_id=f"zd-audit-{33021000000 + tid}")
    t.say("Public replies sent and all three tickets (90412, 90101, 89977) are solved; Dana's mentions the semicolon.")
    u10 = t.user("Great work. Close the Jira bug too, and tell me the final state of everything.")
    t.decide("cx-d7-close", [
        P_next("jira_transition_issue", {"issue_key": "REP-812"}, "the bug key from early in the session"),
        P_state(c_up2, "succeeded", "the retried internal note", request_id="zd-audit-33020117442"),
        P_ev([s_srch], "the search that listed the other affected tickets"),
    ])
    t.tool("jira_transition_issue", {"issue_key": "REP-812", "transition": "Done", "resolution": "Fixed"},
           {"issue_key": "REP-812", "from_status": "In Progress", "status": "Done", "resolution": "Fixed"}, request_id="jira-rep-812-done")
    t.say("REP-812 is Done (Fixed). Final state: fix merged as PR #2207 and deployed at 14:00; Zendesk 90412, 90101 and 89977 "
          "solved with public replies; the first on-hold update had not gone through and was sent once more, so the internal "
          "note exists exactly once.")
    return t


# --------------------------------------------------------------------------------------
# 06: stale branch cleanup: protected patterns, rescued commits, batched irreversible deletes
# --------------------------------------------------------------------------------------
ATLAS_BRANCHES = [
    # name, last commit date, author, merged into main, open PR number
    ("main", "2024-06-19", "Ren Watanabe", True, None),
    ("release/2023.4", "2023-12-14", "Ren Watanabe", True, None),
    ("release/2024.1", "2024-03-28", "Ren Watanabe", True, None),
    ("release/2024.2", "2024-06-11", "Mikko Korhonen", False, None),
    ("hotfix/2024-q3", "2024-06-17", "Mikko Korhonen", False, None),
    ("hotfix/2024-q1-ledger-rounding", "2024-02-02", "Ana Sousa", True, None),
    ("feature/search-v2", "2024-02-27", "Jules Martin", True, 311),
    ("feature/tenant-quotas", "2023-11-08", "Ana Sousa", True, None),
    ("feature/audit-log-export", "2023-10-19", "Jules Martin", True, None),
    ("feature/graphql-gateway", "2023-09-02", "Priit Tamm", False, None),
    ("feature/bulk-import-csv", "2024-01-15", "Ana Sousa", True, None),
    ("feature/sso-okta", "2023-12-01", "Ren Watanabe", True, None),
    ("feature/rate-limit-headers", "2024-05-30", "Jules Martin", False, 398),
    ("feature/webhooks-retry-ui", "2024-06-12", "Sara Lindgren", False, 401),
    ("fix/flaky-kafka-consumer-test", "2023-12-20", "Mikko Korhonen", True, None),
    ("fix/timezone-billing-cycle", "2024-01-09", "Ana Sousa", True, None),
    ("fix/npe-tenant-settings", "2023-08-22", "Priit Tamm", True, None),
    ("fix/pagination-cursor-overflow", "2024-02-14", "Sara Lindgren", True, None),
    ("fix/oom-report-generator", "2023-11-29", "Mikko Korhonen", True, None),
    ("fix/cors-preflight-cache", "2024-03-01", "Jules Martin", True, None),
    ("chore/gradle-8.5", "2023-12-05", "Priit Tamm", True, None),
    ("chore/java-21", "2024-01-22", "Ren Watanabe", True, None),
    ("chore/remove-legacy-soap", "2023-10-02", "Ana Sousa", True, None),
    ("chore/spotless-config", "2023-09-14", "Priit Tamm", True, None),
    ("chore/testcontainers-1.19", "2024-02-08", "Mikko Korhonen", True, None),
    ("experiment/otel-sampler", "2023-11-21", "Sara Lindgren", False, None),
    ("experiment/virtual-threads", "2024-01-30", "Ren Watanabe", False, None),
    ("experiment/r2dbc", "2023-07-18", "Priit Tamm", False, None),
    ("spike/cqrs-orders", "2023-08-09", "Jules Martin", False, None),
    ("ren/tmp-bisect", "2023-12-18", "Ren Watanabe", False, None),
    ("ren/release-notes-script", "2024-02-19", "Ren Watanabe", True, None),
    ("mk/debug-ci-cache", "2023-10-27", "Mikko Korhonen", True, None),
    ("sara/wip-dashboard", "2024-06-04", "Sara Lindgren", False, None),
    ("dependabot/gradle/org.postgresql-postgresql-42.7.1", "2023-12-22", "dependabot[bot]", True, None),
    ("dependabot/gradle/com.fasterxml.jackson-jackson-bom-2.16.1", "2024-01-05", "dependabot[bot]", True, None),
    ("dependabot/github_actions/actions/setup-java-4", "2023-12-07", "dependabot[bot]", True, None),
    ("dependabot/gradle/io.micrometer-micrometer-bom-1.13.1", "2024-06-14", "dependabot[bot]", False, 404),
    ("renovate/testcontainers-monorepo", "2024-06-18", "renovate[bot]", False, 405),
    ("feature/invoice-pdf-v2", "2023-09-28", "Ana Sousa", True, None),
    ("feature/tenant-export", "2024-02-21", "Sara Lindgren", True, None),
    ("fix/deadlock-outbox", "2024-03-12", "Mikko Korhonen", True, None),
    ("fix/jwt-clock-skew", "2023-12-11", "Jules Martin", True, None),
]


def t06() -> Traj:
    t = Traj(6, "atlas-branch-cleanup", "ws2-atlas-branch-cleanup",
             "Stale branch cleanup in a Gradle monorepo: protected patterns, rescued commits, batched remote deletions",
             ["branch patterns the user forbids once at the start and that must hold through dozens of deletions",
              "commit ids listed early, cherry-picked onto a rescue branch later",
              "irreversible branch deletions behind approvals: one granted, one denied, one deletion that times out",
              "git says a branch is merged while GitHub says its pull request is still open, far apart",
              "a tracking issue number typed once, used for the final report"],
             "A maintainer asks the agent to prune stale remote branches; the agent builds a candidate list in a "
             "scratch dir, rescues unmerged work, deletes in approved batches and logs it on the tracking issue.",
             seed=606, home="/home/ren", cwd="/home/ren", prefix="br")
    r = t.rng
    REPO = "/home/ren/dev/atlas"
    GH = "northwind/atlas"
    CUT = "2024-03-22"
    u1 = t.user("Our atlas repo has way too many stale branches. Clean up remote branches that are merged into main and haven't "
                "moved in 90 days. Hard rules: never touch release/* or hotfix/2024-q3, even though GitHub doesn't protect them, "
                "and keep anything that still has an open PR. Log what you delete in the tracking issue #402 at the end.")
    t.sh("cd ~/dev/atlas && git fetch --prune origin && git status -sb",
         "## main...origin/main\n",
         stderr="From github.com:northwind/atlas\n - [deleted]         (none)     -> origin/ana/scratch\n   7f2c1d9..e81a4b0  main       -> origin/main\n",
         duration_ms=3410)
    shas = {b[0]: hexs(r, 40) for b in ATLAS_BRANCHES}
    t.sh("gh api repos/northwind/atlas/rulesets && gh api repos/northwind/atlas/branches/main/protection --jq '{reviews: .required_pull_request_reviews.required_approving_review_count, checks: [.required_status_checks.contexts[]], linear: .required_linear_history.enabled, force_push: .allow_force_pushes.enabled}'",
         '[\n  {\n    "id": 411902,\n    "name": "main",\n    "target": "branch",\n    "source_type": "Repository",\n    "source": "northwind/atlas",\n'
         '    "enforcement": "active",\n    "conditions": { "ref_name": { "include": ["~DEFAULT_BRANCH"], "exclude": [] } },\n'
         '    "node_id": "RRS_lACqUmVwb3NpdG9yec4Fp1xyzgAGSJ4",\n    "created_at": "2023-05-11T09:14:02.000Z",\n    "updated_at": "2024-01-22T16:40:51.000Z"\n  }\n]\n'
         '{\n  "reviews": 1,\n  "checks": ["build (21)", "integration-tests", "spotless", "dependency-review"],\n  "linear": false,\n  "force_push": false\n}\n',
         duration_ms=1530)
    refs = sorted(ATLAS_BRANCHES, key=lambda b: b[1])
    t.sh("git for-each-ref --sort=committerdate refs/remotes/origin --format='%(committerdate:short) %(objectname:short) %(refname:lstrip=3) (%(authorname))'",
         "\n".join(f"{d} {shas[n][:7]} {n} ({a})" for n, d, a, _, _ in refs) + "\n")
    _, s_merged = t.sh("git branch -r --merged origin/main | sed 's#  origin/##' | grep -v '^HEAD'",
                       "\n".join(n for n, _, _, m, _ in ATLAS_BRANCHES if m) + "\n")
    t.say(f"{len(ATLAS_BRANCHES) - 1} remote branches besides main; {sum(1 for b in ATLAS_BRANCHES if b[3]) - 1} are merged into main.")
    u2 = t.user("Put the candidates in a file in a scratch dir so I can review them, with the reason each one qualifies.")
    t.decide("br-d1-candidates", [
        P_con(u1, "never touch release/* or hotfix/2024-q3", "protected patterns exclude branches from the list"),
        P_con(u1, "keep anything that still has an open PR", "open PRs exclude branches too"),
        P_fact("cwd", REPO, "the shell is in the repo"),
    ])
    cands = [b for b in ATLAS_BRANCHES if b[3] and b[1] < CUT and b[0] != "main" and not b[0].startswith("release/")
             and b[0] != "hotfix/2024-q3" and not (b[4] and b[0] != "feature/search-v2")]
    # the agent's first list still contains search-v2: git says merged, its PR is open (#311) but the list above was built from git only
    lines = [f"{n:<62} merged=yes  last={d}  author={a}" for n, d, a, _, _ in cands]
    t.sh("mkdir -p /tmp/atlas-branch-cleanup && cd /tmp/atlas-branch-cleanup && pwd", "/tmp/atlas-branch-cleanup\n")
    t.write("/tmp/atlas-branch-cleanup/candidates.txt", "\n".join(lines) + "\n")
    t.sh("ls -la && git -C ~/dev/atlas count-objects -vH", ls_la(r, [("candidates.txt", len("\n".join(lines)) + 1)], owner="ren", group="ren", month="Jun", days=(20, 20))
         + "count: 412\nsize: 3.18 MiB\nin-pack: 188204\npacks: 3\nsize-pack: 241.77 MiB\nprune-packable: 0\ngarbage: 0\nsize-garbage: 0 bytes\n")
    t.sh("wc -l candidates.txt && cat candidates.txt", f"{len(cands)} candidates.txt\n" + "\n".join(lines) + "\n")
    t.say(f"{len(cands)} candidates in /tmp/atlas-branch-cleanup/candidates.txt: merged into main, last commit before {CUT}, "
          "not release/* or hotfix/2024-q3. Unmerged stale branches (experiment/*, spike/cqrs-orders, ren/tmp-bisect, "
          "feature/graphql-gateway) are not in it.")
    u3 = t.user("Looks mostly right. Before anything gets deleted: Sara's experiment/otel-sampler isn't merged but it has two "
                "commits we want — the sampler config and the tail-sampling processor. Save those onto a new branch from main "
                "called chore/otel-sampler-rescue and push it. The rest of that experiment can go later.")
    sampler_log = [(hexs(r, 40), "otel: collector tail-sampling processor config (errors + p99 latency)"),
                   (hexs(r, 40), "otel: wip exporter batching, do not merge"),
                   (hexs(r, 40), "otel: ParentBased(TraceIdRatio 0.05) sampler via SDK autoconfigure"),
                   (hexs(r, 40), "otel: bump agent to 1.32.0"),
                   (hexs(r, 40), "otel: try head sampling in gateway (reverted below)"),
                   (hexs(r, 40), "Revert \"otel: try head sampling in gateway\"")]
    t.sh("cd ~/dev/atlas && git log --format='%H %an %ad %s' --date=short origin/main..origin/experiment/otel-sampler",
         "\n".join(f"{h} Sara Lindgren 2023-11-{10 + i:02d} {m}" for i, (h, m) in enumerate(reversed(sampler_log))) + "\n")
    t.say(f"The branch has 6 commits not in main. The two you mean are {sampler_log[0][0][:10]} (tail-sampling processor config) "
          f"and {sampler_log[2][0][:10]} (the ParentBased TraceIdRatio sampler).")
    t.sh(f"git show --stat --format='commit %H%nAuthor: %an <%ae>%nDate:   %ad%n%n    %s%n%n%b' {sampler_log[2][0][:10]} {sampler_log[0][0][:10]}",
         f"commit {sampler_log[2][0]}\nAuthor: Sara Lindgren <sara.lindgren@northwind.example>\nDate:   Tue Nov 14 10:02:11 2023 +0100\n\n"
         "    otel: ParentBased(TraceIdRatio 0.05) sampler via SDK autoconfigure\n\n    Head sampling at 5% for root spans, children follow the parent.\n"
         "    Configured through OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG so ops can change it per env.\n\n"
         " platform/observability/src/main/java/com/northwind/atlas/observability/SamplerConfig.java      | 41 +++++++++++++++++++\n"
         " platform/observability/src/test/java/com/northwind/atlas/observability/SamplerConfigTest.java  | 38 ++++++++++++++++++\n"
         " deploy/helm/atlas/values.yaml                                                                  |  2 +\n"
         " 3 files changed, 81 insertions(+)\n\n"
         f"commit {sampler_log[0][0]}\nAuthor: Sara Lindgren <sara.lindgren@northwind.example>\nDate:   Fri Nov 10 16:44:30 2023 +0100\n\n"
         "    otel: collector tail-sampling processor config (errors + p99 latency)\n\n    Keep all error traces and traces slower than 1.2s, 5% of the rest.\n\n"
         " deploy/otel/collector.yaml                                                                     | 22 +++++++++-\n"
         " platform/observability/src/test/java/com/northwind/atlas/observability/TailSamplingPolicyTest.java | 47 ++++++++++++++++++++\n"
         " 2 files changed, 67 insertions(+), 2 deletions(-)\n")
    u4 = t.user("Yes, those two. Go.")
    t.decide("br-d2-rescue", [
        P_next("bash", {"sampler": sampler_log[2][0][:10], "tail": sampler_log[0][0][:10]}, "the two commit ids from the log"),
        P_next("bash", {"branch": "chore/otel-sampler-rescue"}, "the branch name the user gave one turn earlier"),
        P_fact("cwd", REPO, "cd back into the repo before the log", superseded=["/tmp/atlas-branch-cleanup"]),
    ])
    t.sh(f"git switch -c chore/otel-sampler-rescue origin/main && git cherry-pick {sampler_log[2][0][:10]} {sampler_log[0][0][:10]}",
         f"[chore/otel-sampler-rescue {hexs(r, 7)}] otel: ParentBased(TraceIdRatio 0.05) sampler via SDK autoconfigure\n Author: Sara Lindgren <sara.lindgren@northwind.example>\n Date: Thu Nov 14 10:02:11 2023 +0100\n 2 files changed, 18 insertions(+)\n",
         exit_code=1, stderr="Switched to a new branch 'chore/otel-sampler-rescue'\nAuto-merging deploy/otel/collector.yaml\nCONFLICT (content): Merge conflict in deploy/otel/collector.yaml\n"
                             "error: could not apply " + sampler_log[0][0][:7] + "... otel: collector tail-sampling processor config (errors + p99 latency)\n"
                             "hint: After resolving the conflicts, mark them as resolved with\nhint: \"git add/rm <pathspec>\", then run\nhint: \"git cherry-pick --continue\".\n")
    conflict = ("receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: 0.0.0.0:4317\n      http:\n        endpoint: 0.0.0.0:4318\n\n"
                "processors:\n  memory_limiter:\n    check_interval: 1s\n    limit_percentage: 80\n    spike_limit_percentage: 20\n"
                "<<<<<<< HEAD\n  batch:\n    send_batch_size: 8192\n    timeout: 5s\n=======\n  batch:\n    send_batch_size: 2048\n    timeout: 2s\n"
                "  tail_sampling:\n    decision_wait: 10s\n    num_traces: 50000\n    policies:\n      - name: errors\n        type: status_code\n"
                "        status_code: { status_codes: [ERROR] }\n      - name: slow\n        type: latency\n        latency: { threshold_ms: 1200 }\n"
                "      - name: baseline\n        type: probabilistic\n        probabilistic: { sampling_percentage: 5 }\n>>>>>>> " + sampler_log[0][0][:7] + " (otel: collector tail-sampling processor config (errors + p99 latency))\n\n"
                "exporters:\n  otlphttp/tempo:\n    endpoint: http://tempo-distributor.observability:4318\n\nservice:\n  pipelines:\n    traces:\n"
                "      receivers: [otlp]\n      processors: [memory_limiter, batch]\n      exporters: [otlphttp/tempo]\n")
    t.read(REPO + "/deploy/otel/collector.yaml", conflict)
    t.say("The tail-sampling commit conflicts in deploy/otel/collector.yaml: main has since raised the batch processor to "
          "8192/5s, the old commit had 2048/2s plus the new tail_sampling block. I'll keep main's batch settings, add the "
          "tail_sampling block and put it in the traces pipeline.")
    resolved = conflict.split("<<<<<<< HEAD\n")[0] + "  batch:\n    send_batch_size: 8192\n    timeout: 5s\n" + \
        conflict.split("=======\n")[1].split("    timeout: 2s\n")[1].split(">>>>>>>")[0] + "\n" + \
        conflict.split(")\n\n", 1)[1].replace("processors: [memory_limiter, batch]", "processors: [memory_limiter, tail_sampling, batch]")
    t.write(REPO + "/deploy/otel/collector.yaml", resolved)
    rescue_sha = hexs(r, 40)
    t.sh("git add deploy/otel/collector.yaml && GIT_EDITOR=true git cherry-pick --continue && git log --oneline -3 && git push -u origin chore/otel-sampler-rescue",
         f"[chore/otel-sampler-rescue {rescue_sha[:7]}] otel: collector tail-sampling processor config (errors + p99 latency)\n Author: Sara Lindgren <sara.lindgren@northwind.example>\n 1 file changed, 16 insertions(+), 1 deletion(-)\n"
         f"{rescue_sha[:7]} (HEAD -> chore/otel-sampler-rescue) otel: collector tail-sampling processor config (errors + p99 latency)\n"
         f"{hexs(r, 7)} otel: ParentBased(TraceIdRatio 0.05) sampler via SDK autoconfigure\n{shas['main'][:7]} (origin/main, origin/HEAD, main) Merge pull request #403 from northwind/fix/outbox-batch\n",
         stderr="To github.com:northwind/atlas.git\n * [new branch]      chore/otel-sampler-rescue -> chore/otel-sampler-rescue\n", duration_ms=2820)
    tasks = [":platform:observability:compileJava", ":platform:observability:processResources", ":platform:observability:classes",
             ":platform:observability:compileTestJava", ":platform:observability:processTestResources", ":platform:observability:testClasses",
             ":platform:observability:spotlessJava", ":platform:observability:spotlessJavaCheck", ":platform:observability:spotlessYaml",
             ":platform:observability:spotlessYamlCheck", ":platform:observability:test", ":platform:observability:jacocoTestReport",
             ":platform:observability:check", ":deploy:validateOtelConfig"]
    glog = ["> Configure project :", "Using Java toolchain 21 (Eclipse Temurin 21.0.3+9-LTS)", ""]
    for tk in tasks:
        glog.append(f"> Task {tk}" + (" UP-TO-DATE" if "process" in tk or "classes" in tk.lower() and r.random() < 0.5 else ""))
        if tk.endswith(":test"):
            glog += ["", "SamplerConfigTest > parentBasedRatioFromEnv() PASSED", "SamplerConfigTest > defaultsToAlwaysOnWhenUnset() PASSED",
                     "SamplerConfigTest > rejectsRatioAboveOne() PASSED", "TailSamplingPolicyTest > errorsAreAlwaysKept() PASSED",
                     "TailSamplingPolicyTest > slowTracesAboveThresholdKept() PASSED", "", "5 tests completed, 0 failed"]
        if tk == ":deploy:validateOtelConfig":
            glog += ["otelcol-contrib validate --config=deploy/otel/collector.yaml", "2024-06-20T14:31:02.118Z\tinfo\tconfig is valid"]
    glog += ["", "BUILD SUCCESSFUL in 48s", f"{len(tasks) + 9} actionable tasks: {len(tasks) - 3} executed, 12 up-to-date"]
    t.sh("./gradlew :platform:observability:check :deploy:validateOtelConfig --console=plain", "\n".join(glog) + "\n", duration_ms=48220)
    t.say(f"chore/otel-sampler-rescue is pushed with both commits (tip {rescue_sha[:7]}); Sara stays the author. The "
          "observability module's checks and the collector config validation pass on top of main.")
    t.subtask_end("sampler commits rescued on chore/otel-sampler-rescue")
    batch1 = [b[0] for b in cands if not b[0].startswith("dependabot/")]
    plan = t.say(f"Batch 1, {len(batch1)} branches, deleting on GitHub (cannot be undone from our side, though GitHub keeps the "
                 "commits for a while):\n" + "\n".join("- " + n for n in batch1) + "\nBatch 2 would be the 3 merged dependabot branches.")
    ap1 = "apr_br_batch1"
    t.approval(ap1, "requested", plan, action=f"delete {len(batch1)} remote branches on {GH}", branches=batch1)
    u5 = t.user("Wait, one thing. Isn't search-v2 still being reviewed? Jules mentioned it in standup.")
    t.decide("br-d3-searchv2", [
        P_pending("the batch-1 approval is still open", approval_id=ap1),
        P_next("github_list_pull_requests", {"head": "feature/search-v2", "repo": GH}, "look up PRs whose head is the full branch name from the list"),
        P_con(u1, "keep anything that still has an open PR", "the rule that search-v2 would break"),
    ])
    new_tip = hexs(r, 40)
    t.tool("github_list_pull_requests", {"repo": GH, "state": "all", "head": "northwind:feature/search-v2"},
           [{"number": 311, "state": "open", "draft": True, "title": "Search v2: ranking + facets", "head": {"ref": "feature/search-v2"},
             "base": {"ref": "main"}, "user": {"login": "jules"}, "created_at": "2024-01-08T09:12:40Z", "updated_at": "2024-06-20T13:52:10Z"},
            {"number": 276, "state": "closed", "merged_at": None, "title": "WIP search v2 (superseded by #311)", "head": {"ref": "feature/search-v2"},
             "base": {"ref": "main"}, "user": {"login": "jules"}, "closed_at": "2024-01-08T09:10:02Z"}])
    _, s_pr = t.tool("github_get_pull_request", {"repo": GH, "pull_number": 311},
                     {"number": 311, "state": "open", "draft": True, "merged": False, "title": "Search v2: ranking + facets",
                      "head": {"ref": "feature/search-v2", "sha": new_tip}, "base": {"ref": "main"},
                      "mergeable_state": "dirty", "commits": 24, "updated_at": "2024-06-20T13:52:10Z",
                      "requested_reviewers": [{"login": "ren"}, {"login": "ana-sousa"}]})
    graph = [f"*   {hexs(r, 7)} Merge pull request #290 from northwind/feature/tenant-export",
             "|\\", f"| * {hexs(r, 7)} tenant-export: stream rows instead of buffering", f"| * {hexs(r, 7)} tenant-export: include search facets in export",
             f"| *   {hexs(r, 7)} Merge branch 'feature/search-v2' into feature/tenant-export", "| |\\",
             f"| | * {shas['feature/search-v2'][:7]} search-v2: facet counts endpoint", f"| | * {hexs(r, 7)} search-v2: BM25 ranking behind flag",
             f"| | * {hexs(r, 7)} search-v2: index mapping v2", f"| * | {hexs(r, 7)} tenant-export: csv + jsonl writers", "| |/",
             f"| * {hexs(r, 7)} tenant-export: job skeleton", f"* | {hexs(r, 7)} Merge pull request #288 from northwind/fix/pagination-cursor-overflow",
             f"* | {hexs(r, 7)} Merge pull request #287 from northwind/chore/testcontainers-1.19", "|/", f"* {hexs(r, 7)} Merge pull request #284 from northwind/feature/bulk-import-csv"]
    t.sh(f"git log --graph --oneline -16 {hexs(r, 7)}^..origin/main -- && git fetch origin feature/search-v2 && git rev-parse origin/feature/search-v2 && git merge-base --is-ancestor origin/feature/search-v2 origin/main; echo merged=$?",
         "\n".join(graph) + "\n" + new_tip + "\nmerged=1\n",
         stderr=f"From github.com:northwind/atlas\n * branch            feature/search-v2 -> FETCH_HEAD\n   {shas['feature/search-v2'][:7]}..{new_tip[:7]}  feature/search-v2 -> origin/feature/search-v2\n")
    t.say("You're right, and my list was wrong about it. When we fetched, origin/feature/search-v2 was at "
          f"{shas['feature/search-v2'][:7]} (27 Feb), which reached main through #290 (tenant-export merged search-v2 into "
          "itself), so git listed it as merged. GitHub says PR #311 is open (draft, not merged) and Jules pushed to it at "
          f"13:52Z today, after our fetch: the branch is now at {new_tip[:7]}, which is not in main. It must stay. I also "
          "hadn't cross-checked open PRs for the candidates yet; doing that now.")
    prs = [b for b in ATLAS_BRANCHES if b[4]]
    t.tool("github_list_pull_requests", {"repo": GH, "state": "open", "per_page": 50},
           [{"number": pr, "title": {311: "Search v2: ranking + facets", 398: "Rate limit headers (RFC 9239 draft)", 401: "Webhooks: retry UI",
                                     404: "Bump io.micrometer:micrometer-bom from 1.12.2 to 1.13.1", 405: "Update testcontainers monorepo to v1.19.8"}[pr],
             "head": {"ref": n}, "base": {"ref": "main"}, "draft": pr == 311, "user": {"login": a.split()[0].lower()},
             "updated_at": f"{d}T10:00:00Z"} for n, d, a, _, pr in prs])
    t.say("No other candidate has an open PR: #398, #401, #404 and #405 are on branches that aren't candidates. "
          "I'll drop search-v2 from batch 1.")
    batch1 = [n for n in batch1 if n != "feature/search-v2"]
    t.approval(ap1, "denied", plan, reason="list included feature/search-v2 (open PR #311)")
    plan2 = t.say(f"Corrected batch 1, {len(batch1)} branches (feature/search-v2 removed):\n" + "\n".join("- " + n for n in batch1))
    ap2 = "apr_br_batch1b"
    t.approval(ap2, "requested", plan2, action=f"delete {len(batch1)} remote branches on {GH}", branches=batch1)
    u6 = t.user("Good catch. Approved.")
    t.approval(ap2, "granted", plan2, granted_by="ren")
    dels = {}
    for i, n in enumerate(batch1):
        c = t.call("github_delete_branch", {"repo": GH, "branch": n}, key=f"br-del-{n.replace('/', '-')}")
        if i == 9:
            t.res(c, outcome="timeout", error=f"DELETE https://api.github.com/repos/{GH}/git/refs/heads/{n}: timeout after 10s")
        else:
            t.res(c, {"ref": f"refs/heads/{n}", "deleted": True, "status": 204}, request_id=f"gh-{hexs(r, 8).upper()}")
        dels[n] = c
    timed_out = batch1[9]
    t.say(f"Deleted {len(batch1) - 1} of {len(batch1)}. The delete of {timed_out} timed out, so I don't know yet whether it's gone.")
    u7 = t.user("Find out about that one. Then do the dependabot ones.")
    t.decide("br-d4-timeout", [
        P_state(dels[timed_out], "unknown", "the deletion timed out"),
        P_next("github_list_branches", {"repo": GH}, "check whether the branch still exists"),
        P_state(dels[batch1[0]], "succeeded", "the first deletion of the batch went through"),
    ])
    remaining = [b[0] for b in ATLAS_BRANCHES if b[0] not in batch1]
    t.tool("github_list_branches", {"repo": GH, "per_page": 100},
           [{"name": n, "protected": n == "main", "commit": {"sha": shas[n]}} for n in sorted(remaining)])
    t.status_query(dels[timed_out], "succeeded", {"branch": timed_out, "exists": False})
    t.say(f"{timed_out} is no longer in the branch list, so that delete did go through.")
    dep = [b[0] for b in cands if b[0].startswith("dependabot/")]
    plan3 = t.say("Batch 2, the merged dependabot branches:\n" + "\n".join("- " + n for n in dep))
    ap3 = "apr_br_batch2"
    t.approval(ap3, "requested", plan3, action=f"delete {len(dep)} dependabot branches on {GH}", branches=dep)
    u8 = t.user("Actually no, leave dependabot's branches alone, it cleans up after itself and gets confused otherwise. "
                "Skip batch 2.")
    t.approval(ap3, "denied", plan3, reason="user: leave dependabot alone")
    t.say("Skipped; dependabot branches stay.")
    u9 = t.user("Now the unmerged stale ones: experiment/r2dbc, spike/cqrs-orders and ren/tmp-bisect can go. And the rest of "
                "otel-sampler now that it's rescued. Check none of them has anything we haven't saved, then delete after I approve.")
    t.decide("br-d5-unmerged", [
        P_next("bash", {"rescue": "chore/otel-sampler-rescue"}, "compare otel-sampler against the rescue branch"),
        P_con(u8, "leave dependabot's branches alone", "the user's second refusal still applies"),
        P_con(u1, "never touch release/* or hotfix/2024-q3", "still in force"),
    ])
    def last3(msgs, day):
        return "".join(f"{hexs(r, 7)} {day} {m}\n" for m in msgs)
    t.sh("for b in experiment/r2dbc spike/cqrs-orders ren/tmp-bisect experiment/otel-sampler; do echo \"== $b\"; git log --oneline origin/main..origin/$b | wc -l; "
         "git log -3 --format='%h %ad %s' --date=short origin/$b; done && git cherry -v chore/otel-sampler-rescue origin/experiment/otel-sampler",
         "== experiment/r2dbc\n14\n" + last3(["r2dbc: pool metrics (broken on native image)", "r2dbc: tenant repository port", "r2dbc: spike connection factory"], "2023-07-18")
         + "== spike/cqrs-orders\n31\n" + last3(["cqrs: projection rebuild benchmark notes", "cqrs: order projection in separate schema", "cqrs: event store table"], "2023-08-09")
         + "== ren/tmp-bisect\n2\n" + last3(["bisect: mark good 4e1a", "bisect: mark bad 91c0", "Merge pull request #251 from northwind/fix/jwt-clock-skew"], "2023-12-18")
         + "== experiment/otel-sampler\n6\n"
         + "".join(f"{'-' if i in (0, 2) else '+'} {h} {m}\n" for i, (h, m) in enumerate(sampler_log)))
    plan4 = t.say("All four are unmerged by design. otel-sampler: the two wanted commits are in the rescue branch ('-' in git "
                  "cherry), the other four are the WIP/revert ones. r2dbc (14 commits) and cqrs-orders (31) are abandoned "
                  "spikes, tmp-bisect has 2 bisect markers. Delete these 4?")
    ap4 = "apr_br_batch3"
    t.approval(ap4, "requested", plan4, action="delete 4 unmerged branches", branches=["experiment/r2dbc", "spike/cqrs-orders", "ren/tmp-bisect", "experiment/otel-sampler"])
    u10 = t.user("Approved.")
    t.approval(ap4, "granted", plan4, granted_by="ren")
    for n in ["experiment/r2dbc", "spike/cqrs-orders", "ren/tmp-bisect", "experiment/otel-sampler"]:
        dels[n] = t.call("github_delete_branch", {"repo": GH, "branch": n}, key=f"br-del-{n.replace('/', '-')}")
        t.res(dels[n], {"ref": f"refs/heads/{n}", "deleted": True, "status": 204}, request_id=f"gh-{hexs(r, 8).upper()}")
    t.sh("git fetch --prune origin && git branch -vv | grep ': gone]' | awk '{print $1}'",
         "chore/java-21\nfix/cors-preflight-cache\nren/release-notes-script\nren/tmp-bisect\n",
         stderr="".join(f" - [deleted]         (none)     -> origin/{n}\n" for n in batch1[:14]) + " ...\n", duration_ms=2410)
    u11 = t.user("Delete those local ones too, then write the summary on the tracking issue.")
    t.decide("br-d6-report", [
        P_next("github_add_issue_comment", {"issue_number": 402}, "the tracking issue number typed in the first message"),
        P_next("github_add_issue_comment", {"rescue": "chore/otel-sampler-rescue", "pr": "311"}, "the report names the rescue branch and why search-v2 stayed"),
        P_ev([s_merged, s_pr], "git's merged list and GitHub's PR state disagreed about search-v2"),
        P_state(dels[timed_out], "succeeded", "the timed-out deletion was confirmed by the branch listing"),
        P_fact("state", "open", "search-v2's PR is open, which is why it was kept", subject={"pull_number": 311}),
    ])
    t.sh("git branch -D chore/java-21 fix/cors-preflight-cache ren/release-notes-script ren/tmp-bisect",
         "Deleted branch chore/java-21 (was " + hexs(r, 7) + ").\nDeleted branch fix/cors-preflight-cache (was " + hexs(r, 7) + ").\n"
         "Deleted branch ren/release-notes-script (was " + hexs(r, 7) + ").\nDeleted branch ren/tmp-bisect (was " + hexs(r, 7) + ").\n")
    body = (f"Branch cleanup {CUT} cut-off (merged into main, no commits for 90 days):\n\nDeleted ({len(batch1)}):\n" + "\n".join(f"- `{n}`" for n in batch1)
            + "\n\nDeleted, unmerged by decision: `experiment/r2dbc`, `spike/cqrs-orders`, `ren/tmp-bisect`, `experiment/otel-sampler` "
              "(its two useful commits are on `chore/otel-sampler-rescue`).\n\nKept: release/*, hotfix/2024-q3 (policy), branches with open PRs "
              "(#311 feature/search-v2: git sees its old tip as merged via #290, but the PR is open), dependabot/* (manages itself), "
              "feature/graphql-gateway, experiment/virtual-threads, sara/wip-dashboard (unmerged, not requested).")
    t.tool("github_add_issue_comment", {"repo": GH, "issue_number": 402, "body": body},
           {"id": 2181990421, "html_url": f"https://github.com/{GH}/issues/402#issuecomment-2181990421", "created_at": "2024-06-20T15:12:44Z"},
           request_id="gh-comment-2181990421")
    t.say("Local branches removed and the summary is on #402 "
          f"(https://github.com/{GH}/issues/402#issuecomment-2181990421).")
    u12 = t.user("Thanks. Remove the scratch dir and open a draft PR for the rescue branch so Sara sees it.")
    t.decide("br-d7-wrap", [
        P_next("bash", {"scratch": "/tmp/atlas-branch-cleanup"}, "the scratch dir made for the candidate list"),
        P_next("github_create_pull_request", {"head": "chore/otel-sampler-rescue"}, "the rescue branch"),
    ])
    t.sh("rm -rf /tmp/atlas-branch-cleanup", "")
    t.tool("github_create_pull_request", {"repo": GH, "head": "chore/otel-sampler-rescue", "base": "main", "draft": True,
                                          "title": "otel: sampler + tail-sampling config (rescued from experiment/otel-sampler)",
                                          "body": "@sara-lindgren your two commits from experiment/otel-sampler, rebased on main. The branch itself was deleted in #402's cleanup."},
           {"number": 406, "html_url": f"https://github.com/{GH}/pull/406", "state": "open", "draft": True})
    t.say("Scratch dir removed; draft PR #406 is open for the rescue branch.")
    return t


# --------------------------------------------------------------------------------------
# 07: dbt finance mart double counts refunds; billing migration vs warehouse replica version
# --------------------------------------------------------------------------------------
def dbt_build_log(rng, target, schema, nodes, failures=None, start=(10, 41, 2)):
    """nodes: (kind, name) where kind is view/table/incremental/test"""
    failures = failures or {}
    h, m, sec = start
    def ts():
        nonlocal h, m, sec
        sec += rng.randint(0, 3)
        if sec >= 60:
            sec -= 60
            m += 1
        return f"{h:02d}:{m:02d}:{sec:02d}"
    out = [f"{ts()}  Running with dbt=1.8.3", f"{ts()}  Registered adapter: snowflake=1.8.3",
           f"{ts()}  Found 412 models, 1288 data tests, 61 sources, 14 exposures, 3 metrics, 1021 macros", f"{ts()}  ",
           f"{ts()}  Concurrency: 8 threads (target='{target}')", f"{ts()}  "]
    n = len(nodes)
    npass = nerr = 0
    for i, (kind, name) in enumerate(nodes, 1):
        if kind == "test":
            out.append(f"{ts()}  {i} of {n} START test {name} {'.' * max(3, 50 - len(name))} [RUN]")
            if name in failures:
                out.append(f"{ts()}  {i} of {n} FAIL {failures[name]} {name} {'.' * max(3, 46 - len(name))} [FAIL {failures[name]} in {rng.uniform(0.5, 4):.2f}s]")
                nerr += 1
            else:
                out.append(f"{ts()}  {i} of {n} PASS {name} {'.' * max(3, 50 - len(name))} [PASS in {rng.uniform(0.4, 3):.2f}s]")
                npass += 1
        else:
            mat = {"view": "sql view model", "table": "sql table model", "incremental": "sql incremental model"}[kind]
            out.append(f"{ts()}  {i} of {n} START {mat} {schema}.{name} {'.' * max(3, 40 - len(name))} [RUN]")
            res = "SUCCESS 1" if kind == "view" else f"SUCCESS {rng.randint(1000, 900000)}"
            out.append(f"{ts()}  {i} of {n} OK created {mat} {schema}.{name} {'.' * max(3, 34 - len(name))} [{res} in {rng.uniform(0.8, 40):.2f}s]")
            npass += 1
    kinds = {k: sum(1 for kk, _ in nodes if kk == k) for k in ("view", "table", "incremental", "test")}
    out += [f"{ts()}  ", f"{ts()}  Finished running {kinds['view']} view models, {kinds['table']} table models, {kinds['incremental']} incremental models, "
            f"{kinds['test']} data tests in 0 hours {rng.randint(0, 3)} minutes and {rng.uniform(5, 59):.2f} seconds.", f"{ts()}  "]
    if nerr:
        out.append(f"{ts()}  Completed with {nerr} error{'s' if nerr > 1 else ''} and 0 warnings:")
        for name, cnt in failures.items():
            out += [f"{ts()}  ", f"{ts()}  Failure in test {name} (models/marts/finance/_finance__tests.yml)",
                    f"{ts()}    Got {cnt} result{'s' if cnt != 1 else ''}, configured to fail if != 0", f"{ts()}  ",
                    f"{ts()}    compiled code at target/compiled/acme_analytics/models/marts/finance/_finance__tests.yml/{name}.sql"]
    else:
        out.append(f"{ts()}  Completed successfully")
    out += [f"{ts()}  ", f"{ts()}  Done. PASS={npass} WARN=0 ERROR={nerr} SKIP=0 TOTAL={n}"]
    return "\n".join(out) + "\n"


REVENUE_DAILY_SQL = '''{{
  config(
    materialized = 'incremental',
    unique_key = ['revenue_date', 'legal_entity', 'currency'],
    incremental_strategy = 'merge',
    cluster_by = ['revenue_date'],
    tags = ['finance', 'daily']
  )
}}

with charges as (
    select * from {{ ref('int_billing__charges_enriched') }}
    {% if is_incremental() %}
    where charged_at >= dateadd(day, -{{ var('lookback_days', 3) }}, (select max(revenue_date) from {{ this }}))
    {% endif %}
),

refunds as (
    select * from {{ ref('stg_billing__refunds') }}
    {% if is_incremental() %}
    where refunded_at >= dateadd(day, -{{ var('lookback_days', 3) }}, (select max(revenue_date) from {{ this }}))
    {% endif %}
),

gross as (
    select
        date_trunc('day', convert_timezone('UTC', 'Europe/Berlin', charged_at))::date as revenue_date,
        legal_entity,
        currency,
        sum(amount) as gross_revenue,
        count(*) as charge_count
    from charges
    where status = 'succeeded'
    group by 1, 2, 3
),

refunded as (
    select
        date_trunc('day', convert_timezone('UTC', 'Europe/Berlin', refunded_at))::date as revenue_date,
        legal_entity,
        currency,
        sum(amount) as refunded_amount,
        count(*) as refund_count
    from refunds
    where status = 'succeeded'
    group by 1, 2, 3
)

select
    coalesce(g.revenue_date, r.revenue_date) as revenue_date,
    coalesce(g.legal_entity, r.legal_entity) as legal_entity,
    coalesce(g.currency, r.currency) as currency,
    coalesce(g.gross_revenue, 0) as gross_revenue,
    coalesce(r.refunded_amount, 0) as refunded_amount,
    coalesce(g.gross_revenue, 0) - coalesce(r.refunded_amount, 0) as net_revenue,
    coalesce(g.charge_count, 0) as charge_count,
    coalesce(r.refund_count, 0) as refund_count,
    current_timestamp() as _loaded_at
from gross g
full outer join refunded r
    on g.revenue_date = r.revenue_date
   and g.legal_entity = r.legal_entity
   and g.currency = r.currency
'''

STG_REFUNDS_SQL = '''with source as (
    select * from {{ source('billing', 'refunds') }}
),

renamed as (
    select
        id as refund_id,
        charge_id,
        refund_group_id,
        legal_entity,
        upper(currency) as currency,
        amount_minor / 100.0 as amount,
        status,
        reason,
        created_at as refunded_at,
        _fivetran_synced
    from source
    where not coalesce(_fivetran_deleted, false)
)

select * from renamed
'''


def t07() -> Traj:
    t = Traj(7, "finance-mart-refunds", "ws2-finance-mart-refunds",
             "A dbt finance mart double counts refunds after a billing migration the warehouse replica has not caught up with",
             ["a dbt target typed once with a prohibition (prod_eu, never prod), needed for every later warehouse and dbt call",
              "the migrations service says billing is at version 187 while the warehouse replica's sync state says 186, far apart",
              "an Airflow DAG trigger that times out; its run id comes from a later status query",
              "the user corrects the backfill start date; the later backfill must use the new one",
              "a Jira ticket read at the start and updated with the PR and the DAG run id at the end"],
             "An analytics engineer has the agent find why revenue_daily double counts refunds; a billing schema "
             "migration split refunds into two rows, and the warehouse replica still has the old schema.",
             seed=707, home="/home/ana", cwd="/home/ana", prefix="fm")
    r = t.rng
    REPO = "/home/ana/work/analytics-dbt"
    u1 = t.user("Finance says revenue_daily has been off since Monday: net revenue too low, looks like refunds counted twice. "
                "Ticket is DATA-552. The dbt repo is ~/work/analytics-dbt. Important: anything against production uses target "
                "prod_eu. NOT prod, that's the US account and we must not write there from here.")
    t.fact("dbt_target", "prod_eu")
    t.tool("jira_get_issue", {"issue_key": "DATA-552", "fields": ["summary", "status", "description", "comment", "assignee", "reporter"]},
           {"key": "DATA-552", "fields": {
               "summary": "revenue_daily: net revenue too low since 2024-07-08 (refunds doubled?)", "status": {"name": "To Do"},
               "assignee": {"displayName": "Ana Petrova"}, "reporter": {"displayName": "Lukas Brandt"},
               "description": "Finance close check fails for DE01 and NL01 from 2024-07-08. net_revenue in marts.finance.revenue_daily is "
                              "below the ledger by roughly the refunded amount. E.g. DE01 EUR 2024-07-09: mart 412,880.14, ledger 431,226.90, "
                              "refunds that day per ledger 18,346.76.",
               "comment": {"comments": [
                   {"author": {"displayName": "Lukas Brandt"}, "created": "2024-07-10T08:12:00.000+0200",
                    "body": "FYI billing shipped partial refund adjustments on Monday morning (BILL-2210). Might be related?"},
                   {"author": {"displayName": "Mei Chen"}, "created": "2024-07-10T09:30:41.000+0200",
                    "body": "Checked exposures: the CFO dashboard and the monthly close export both read revenue_daily. Close is on the 15th."}]}}})
    t.sh("cd ~/work/analytics-dbt && git pull --ff-only && git log --oneline -8 -- models/marts/finance models/staging/billing",
         "Already up to date.\n" + "\n".join(f"{hexs(r, 8)} {m}" for m in [
             "finance: revenue_daily clustered by revenue_date", "billing: stg_billing__refunds exposes refund_group_id (BILL-2188)",
             "finance: legal_entity from charges, not accounts", "finance: add assert_revenue_daily_matches_ledger",
             "billing: drop _fivetran_deleted rows in staging", "finance: lookback_days var for incremental runs",
             "billing: currency upper() in staging", "finance: revenue_daily incremental merge"]) + "\n", duration_ms=1380)
    t.sh("sed -n '1,60p' ~/.dbt/profiles.yml | sed 's/password: .*/password: ****/'",
         "acme_analytics:\n  target: dev\n  outputs:\n    dev:\n      type: snowflake\n      account: acme-eu1.eu-central-1\n      user: ANA_PETROVA\n"
         "      authenticator: externalbrowser\n      role: TRANSFORMER_DEV\n      warehouse: TRANSFORM_XS\n      database: ANALYTICS_DEV\n      schema: DBT_ANA\n      threads: 8\n"
         "    ci:\n      type: snowflake\n      account: acme-eu1.eu-central-1\n      user: DBT_CI\n      private_key_path: ~/.ssh/dbt_ci.p8\n"
         "      role: TRANSFORMER_CI\n      warehouse: TRANSFORM_S\n      database: ANALYTICS_CI\n      schema: CI\n      threads: 8\n"
         "    prod_eu:\n      type: snowflake\n      account: acme-eu1.eu-central-1\n      user: DBT_PROD_EU\n      private_key_path: ~/.ssh/dbt_prod_eu.p8\n"
         "      role: TRANSFORMER_PROD\n      warehouse: TRANSFORM_M\n      database: ANALYTICS\n      schema: ANALYTICS\n      threads: 16\n"
         "    prod:\n      type: snowflake\n      account: acme-us1.us-east-1\n      user: DBT_PROD_US\n      private_key_path: ~/.ssh/dbt_prod_us.p8\n"
         "      role: TRANSFORMER_PROD\n      warehouse: TRANSFORM_M\n      database: ANALYTICS\n      schema: ANALYTICS\n      threads: 16\n")
    lsn = ["source:acme_analytics.billing.charges", "source:acme_analytics.billing.refunds", "source:acme_analytics.billing.accounts",
           "source:acme_analytics.ledger.daily_totals", "source:acme_analytics.fx.rates_daily", "acme_analytics.staging.billing.stg_billing__charges",
           "acme_analytics.staging.billing.stg_billing__refunds", "acme_analytics.staging.billing.stg_billing__accounts",
           "acme_analytics.staging.fx.stg_fx__rates_daily", "acme_analytics.intermediate.billing.int_billing__charges_enriched",
           "acme_analytics.intermediate.billing.int_billing__refunds_by_group", "acme_analytics.marts.finance.revenue_daily",
           "acme_analytics.marts.finance.revenue_monthly", "acme_analytics.marts.finance.close_export_revenue",
           "exposure:acme_analytics.cfo_dashboard", "exposure:acme_analytics.monthly_close_export",
           "acme_analytics.marts.finance.not_null_revenue_daily_revenue_date", "acme_analytics.marts.finance.unique_revenue_daily_revenue_date__legal_entity__currency",
           "acme_analytics.marts.finance.assert_revenue_daily_matches_ledger", "acme_analytics.marts.finance.assert_revenue_monthly_sums_daily",
           "acme_analytics.staging.billing.not_null_stg_billing__refunds_refund_id", "acme_analytics.staging.billing.unique_stg_billing__refunds_refund_id"]
    t.sh("dbt ls --select +revenue_daily+ --resource-type model source exposure test --output name --quiet 2>/dev/null || dbt ls --select +revenue_daily+",
         "\n".join(lsn) + "\n", duration_ms=7420)
    gap_rows = []
    for d in range(3, 11):
        for le in ("DE01", "NL01", "AT01"):
            ledger = r.uniform(80000, 450000) if le != "AT01" else r.uniform(20000, 60000)
            diff = 0.0 if d < 5 or le == "AT01" else (r.uniform(300, 1200) if d < 8 else r.uniform(5000, 19000))
            gap_rows.append([f"2024-07-{d:02d}", le, f"{ledger - diff:.2f}", f"{ledger:.2f}", f"{-diff:.2f}"])
    t.tool("warehouse_query", {"connection": "prod_eu", "sql":
        "select r.revenue_date, r.legal_entity, r.net_revenue, l.net as ledger_net, r.net_revenue - l.net as diff from marts_finance.revenue_daily r "
        "join raw_ledger.daily_totals l using (revenue_date, legal_entity, currency) where r.revenue_date between '2024-07-03' and '2024-07-10' and r.currency = 'EUR' order by 1, 2"},
        {"columns": ["REVENUE_DATE", "LEGAL_ENTITY", "NET_REVENUE", "LEDGER_NET", "DIFF"], "rows": gap_rows,
         "query_id": "01b5a39e-0604-8e1d-0000-4d1a00b2f0c1", "rows_returned": len(gap_rows)})
    t.sh("dbt source freshness --select source:billing source:ledger --target dev",
         "10:02:11  Running with dbt=1.8.3\n10:02:12  Registered adapter: snowflake=1.8.3\n10:02:14  Found 412 models, 1288 data tests, 61 sources, 14 exposures, 3 metrics, 1021 macros\n"
         "10:02:14  \n10:02:15  Concurrency: 8 threads (target='dev')\n10:02:15  \n"
         "10:02:16  1 of 4 START freshness of billing.accounts ............................... [RUN]\n10:02:16  2 of 4 START freshness of billing.charges ................................ [RUN]\n"
         "10:02:16  3 of 4 START freshness of billing.refunds ................................ [RUN]\n10:02:16  4 of 4 START freshness of ledger.daily_totals ............................ [RUN]\n"
         "10:02:17  1 of 4 PASS freshness of billing.accounts ................................ [PASS in 0.91s]\n10:02:17  2 of 4 PASS freshness of billing.charges ................................. [PASS in 0.88s]\n"
         "10:02:17  3 of 4 PASS freshness of billing.refunds ................................. [PASS in 0.93s]\n10:02:18  4 of 4 PASS freshness of ledger.daily_totals ............................. [PASS in 1.02s]\n"
         "10:02:18  \n10:02:18  Finished running 4 sources in 0 hours 0 minutes and 3.71 seconds (3.71s).\n10:02:18  \n10:02:18  Done.\n", duration_ms=7100)
    t.say("The gap is real and only in DE01 and NL01 (AT01 matches): a few hundred euros a day on 5-7 July, then "
          "5,000-19,000 a day from 8 July. Sources are fresh, so it's not a stale load.")
    t.read(REPO + "/models/marts/finance/revenue_daily.sql", REVENUE_DAILY_SQL)
    t.read(REPO + "/models/staging/billing/stg_billing__refunds.sql", STG_REFUNDS_SQL)
    u2 = t.user("The billing comment on the ticket is a good lead. What did their migration on Monday change?")
    t.decide("fm-d1-migration", [
        P_fact("dbt_target", "prod_eu", "the production target the user named at the start"),
        P_con(u1, "NOT prod", "never the US account"),
        P_next("migrations_status", {"bill": "BILL-2210"}, "the billing change named in the ticket's comment"),
    ])
    _, s_mig = t.tool("migrations_status", {"database": "billing", "environment": "production-eu"},
                      {"database": "billing", "environment": "production-eu", "current_version": 187,
                       "applied": [
                           {"version": 187, "name": "refund_adjustments_in_refunds", "ticket": "BILL-2210", "applied_at": "2024-07-08T04:10:12Z",
                            "summary": "partial refunds become one row per adjustment: refunds.kind in ('refund','adjustment'); the original refund row is kept, adjustments reference it via refund_group_id"},
                           {"version": 186, "name": "refunds_reason_code_enum", "ticket": "BILL-2175", "applied_at": "2024-06-27T04:02:55Z"},
                           {"version": 185, "name": "charges_idx_legal_entity_created", "ticket": "BILL-2160", "applied_at": "2024-06-18T04:05:31Z"}],
                       "pending": []})
    t.say("Billing migration 187 (BILL-2210, applied 2024-07-08 04:10 UTC) changed refunds: partial refunds now get one row "
          "per adjustment with `kind` in ('refund', 'adjustment'), and the original refund row stays. If our staging model "
          "doesn't filter on kind, every partial refund is counted as the refund plus its adjustments.")
    u3 = t.user("Check the warehouse: are there refund groups with both kinds since Monday, and how much money is that?")
    t.decide("fm-d2-warehouse", [
        P_next("warehouse_query", {"connection": "prod_eu"}, "queries run on the EU account the user named"),
        P_con(u1, "we must not write there from here", "the US account is off limits"),
    ])
    c_q1, _ = t.tool("warehouse_query", {"connection": "prod_eu", "sql":
        "select date_trunc('day', created_at)::date as day, legal_entity, count(*) as rows, count(distinct refund_group_id) as groups, "
        "sum(amount_minor) / 100 as amount from raw_billing.refunds where created_at >= '2024-07-05' group by 1, 2 order by 1, 2"},
        {"columns": ["DAY", "LEGAL_ENTITY", "ROWS", "GROUPS", "AMOUNT"], "rows": [
            [f"2024-07-{d:02d}", le, rows, grp, f"{amt:.2f}"] for d, le, rows, grp, amt in
            [(5, "DE01", 412, 412, 17210.40), (5, "NL01", 188, 188, 6112.95), (6, "DE01", 301, 301, 12880.10), (6, "NL01", 97, 97, 3310.00),
             (7, "DE01", 288, 288, 11941.72), (7, "NL01", 102, 102, 3521.18), (8, "DE01", 799, 431, 35012.44), (8, "NL01", 351, 190, 12004.87),
             (9, "DE01", 822, 440, 36693.52), (9, "NL01", 340, 183, 11760.30), (10, "DE01", 610, 329, 27004.91), (10, "NL01", 262, 141, 9182.66)]],
         "query_id": "01b5a3c2-0604-8e1d-0000-4d1a00b2f44e", "rows_returned": 12, "warehouse": "ANALYST_WH"})
    t.say("From 8 July the raw refunds table has almost twice as many rows as refund groups (DE01 on 9 July: 822 rows, "
          "440 groups), before that rows = groups. So each partial refund shows up as several rows and the amounts add up.")
    u4 = t.user("And the staging model can just filter kind = 'refund'? Check the warehouse actually has that column.")
    _, s_cols = t.tool("warehouse_query", {"connection": "prod_eu", "sql":
        "select column_name, data_type from information_schema.columns where table_schema = 'RAW_BILLING' and table_name = 'REFUNDS' order by ordinal_position"},
        {"columns": ["COLUMN_NAME", "DATA_TYPE"], "rows": [["ID", "TEXT"], ["CHARGE_ID", "TEXT"], ["REFUND_GROUP_ID", "TEXT"], ["LEGAL_ENTITY", "TEXT"],
                                                          ["CURRENCY", "TEXT"], ["AMOUNT_MINOR", "NUMBER"], ["STATUS", "TEXT"], ["REASON", "TEXT"],
                                                          ["REASON_CODE", "TEXT"], ["CREATED_AT", "TIMESTAMP_NTZ"], ["_FIVETRAN_SYNCED", "TIMESTAMP_TZ"],
                                                          ["_FIVETRAN_DELETED", "BOOLEAN"]],
         "query_id": "01b5a3c4-0604-8e1d-0000-4d1a00b2f5a0", "rows_returned": 12})
    _, s_sync = t.tool("warehouse_query", {"connection": "prod_eu", "sql": "select * from raw_billing._sync_state"},
                       {"columns": ["CONNECTOR", "SCHEMA_VERSION", "LAST_SCHEMA_REFRESH", "LAST_SYNC", "STATUS"],
                        "rows": [["billing_eu_postgres", 186, "2024-06-27T05:00:41Z", "2024-07-10T09:45:12Z", "SYNCING"]],
                        "query_id": "01b5a3c4-0604-8e1d-0000-4d1a00b2f5c8", "rows_returned": 1})
    t.say("No: the warehouse copy has no KIND column. The replica's sync state says schema_version 186, last schema refresh "
          "27 June, while the migrations service says billing is at 187 since 8 July. The connector keeps syncing rows but "
          "never picked up the new column, so the adjustment rows arrive without the field that tells them apart.")
    u5 = t.user("Then we need the schema refresh. Trigger the billing replication DAG with a schema refresh, EU only.")
    t.decide("fm-d3-trigger", [
        P_ev([s_mig, s_sync], "the two versions of the billing schema, 187 and 186"),
        P_fact("dbt_target", "prod_eu", "EU only"),
    ])
    c_dag = t.call("airflow_trigger_dag", {"dag_id": "billing_replication_eu", "conf": {"full_schema_refresh": True, "tables": ["refunds"],
                                                                                      "resync_since": "2024-07-08",
                                                                                      "reason": "DATA-552: pick up refunds.kind (billing v187)"}},
                   key="fm-airflow-billing-eu-refresh")
    t.res(c_dag, outcome="timeout", error="POST https://airflow.data.acme.io/api/v1/dags/billing_replication_eu/dagRuns: 504 Gateway Timeout")
    t.say("Airflow's API gateway answered 504 on the trigger, so I don't know if a run was created. I'll list the DAG's "
          "recent runs rather than triggering again (a second schema refresh would re-sync the table twice).")
    u6 = t.user("OK. Meanwhile start on the staging fix on a branch, ana/data-552-refund-kind.")
    t.decide("fm-d4-dag-unknown", [
        P_state(c_dag, "unknown", "the trigger timed out"),
        P_pending("the trigger's outcome is still open", call=c_dag),
        P_fact("cwd", REPO, "the branch is made in the dbt repo", superseded=["/home/ana"]),
    ])
    t.sh("git checkout -b ana/data-552-refund-kind", "", stderr="Switched to a new branch 'ana/data-552-refund-kind'\n")
    t.edit(REPO + "/models/staging/billing/stg_billing__refunds.sql",
           "        reason,\n        created_at as refunded_at,",
           "        reason,\n        -- billing v187 (BILL-2210): partial refunds add 'adjustment' rows to the same group.\n"
           "        -- Rows synced before the schema refresh have no kind; they are all original refunds.\n"
           "        coalesce(kind, 'refund') as refund_kind,\n        created_at as refunded_at,")
    t.edit(REPO + "/models/staging/billing/stg_billing__refunds.sql", "    where not coalesce(_fivetran_deleted, false)\n)",
           "    where not coalesce(_fivetran_deleted, false)\n)\n\n, refunds_only as (\n    select * from renamed where refund_kind = 'refund'\n)")
    t.edit(REPO + "/models/staging/billing/stg_billing__refunds.sql", "select * from renamed", "select * from refunds_only")
    t.read(REPO + "/models/staging/billing/_billing__sources.yml",
           "version: 2\n\nsources:\n  - name: billing\n    database: RAW\n    schema: RAW_BILLING\n    loader: fivetran\n"
           "    loaded_at_field: _fivetran_synced\n    freshness:\n      warn_after: { count: 2, period: hour }\n      error_after: { count: 6, period: hour }\n"
           "    tables:\n      - name: charges\n        columns:\n          - name: id\n            tests: [unique, not_null]\n          - name: legal_entity\n"
           "          - name: amount_minor\n          - name: status\n            tests:\n              - accepted_values:\n                  values: ['succeeded', 'failed', 'pending', 'disputed']\n"
           "      - name: refunds\n        description: One row per refund (billing). Since v187 also one row per partial-refund adjustment.\n"
           "        columns:\n          - name: id\n            tests: [unique, not_null]\n          - name: charge_id\n            tests:\n"
           "              - relationships:\n                  to: source('billing', 'charges')\n                  field: id\n"
           "          - name: refund_group_id\n          - name: reason_code\n      - name: accounts\n        columns:\n          - name: id\n            tests: [unique, not_null]\n")
    t.edit(REPO + "/models/staging/billing/_billing__sources.yml", "          - name: reason_code",
           "          - name: reason_code\n          - name: kind\n            description: \"'refund' or 'adjustment' (billing v187)\"")
    dag_runs = [{"dag_run_id": "scheduled__2024-07-10T09:00:00+00:00", "state": "success", "run_type": "scheduled",
                 "start_date": "2024-07-10T09:00:04Z", "end_date": "2024-07-10T09:45:20Z"},
                {"dag_run_id": "manual__2024-07-10T10:12:31.418220+00:00", "state": "running", "run_type": "manual",
                 "conf": {"full_schema_refresh": True, "tables": ["refunds"], "resync_since": "2024-07-08", "reason": "DATA-552: pick up refunds.kind (billing v187)"},
                 "start_date": "2024-07-10T10:12:33Z", "end_date": None}]
    t.tool("airflow_get_dag_run", {"dag_id": "billing_replication_eu", "dag_run_id": "~", "order_by": "-start_date", "limit": 2},
           {"dag_runs": list(reversed(dag_runs)), "total_entries": 2})
    t.status_query(c_dag, "succeeded", {"dag_run_id": "manual__2024-07-10T10:12:31.418220+00:00", "state": "running"},
                   request_id="airflow-manual__2024-07-10T10:12:31.418220+00:00")
    t.say("The trigger did go through: run manual__2024-07-10T10:12:31.418220+00:00 with our conf is running. Staging "
          "edits are in place; I'll build in dev once the refresh lands.")
    t.tool("airflow_get_dag_run", {"dag_id": "billing_replication_eu", "dag_run_id": "manual__2024-07-10T10:12:31.418220+00:00"},
           {"dag_run_id": "manual__2024-07-10T10:12:31.418220+00:00", "state": "success", "start_date": "2024-07-10T10:12:33Z",
            "end_date": "2024-07-10T10:31:07Z", "tasks": [{"task_id": "fivetran_schema_refresh", "state": "success"},
                                                          {"task_id": "fivetran_resync_refunds", "state": "success", "rows": 4184, "since": "2024-07-08"},
                                                          {"task_id": "check_sync_state", "state": "success"}]})
    t.tool("warehouse_query", {"connection": "prod_eu", "sql": "select schema_version, last_schema_refresh from raw_billing._sync_state; "
                                                               "select kind, count(*) from raw_billing.refunds where created_at >= '2024-07-08' group by 1"},
           {"results": [{"columns": ["SCHEMA_VERSION", "LAST_SCHEMA_REFRESH"], "rows": [[187, "2024-07-10T10:29:58Z"]]},
                        {"columns": ["KIND", "COUNT(*)"], "rows": [["refund", 1523], ["adjustment", 1661]]}],
            "query_id": "01b5a3d9-0604-8e1d-0000-4d1a00b2f901"})
    nodes = [("view", "stg_billing__refunds"), ("test", "not_null_stg_billing__refunds_refund_id"), ("test", "unique_stg_billing__refunds_refund_id"),
             ("test", "accepted_values_stg_billing__refunds_refund_kind__refund"), ("view", "int_billing__refunds_by_group"),
             ("table", "int_billing__charges_enriched"), ("incremental", "revenue_daily"), ("test", "not_null_revenue_daily_revenue_date"),
             ("test", "unique_revenue_daily_revenue_date__legal_entity__currency"), ("test", "assert_revenue_daily_matches_ledger"),
             ("table", "revenue_monthly"), ("test", "assert_revenue_monthly_sums_daily"), ("table", "close_export_revenue"),
             ("test", "not_null_close_export_revenue_legal_entity")]
    t.sh("dbt build --select stg_billing__refunds+ --target dev --full-refresh",
         dbt_build_log(r, "dev", "DBT_ANA", nodes, failures={"assert_revenue_daily_matches_ledger": 4}), exit_code=1, duration_ms=212400)
    t.sh("dbt show --inline \"select * from {{ ref('revenue_daily') }} r join {{ source('ledger', 'daily_totals') }} l using (revenue_date, legal_entity, currency) "
         "where abs(r.net_revenue - l.net) > 0.01\" --target dev",
         "| revenue_date | legal_entity | currency | gross_revenue | refunded_amount | net_revenue | net        |\n"
         "| ------------ | ------------ | -------- | ------------- | --------------- | ----------- | ---------- |\n"
         "| 2024-07-05   | DE01         | EUR      |    398,201.77 |       17,210.40 |  380,991.37 | 382,140.21 |\n"
         "| 2024-07-05   | NL01         | EUR      |    141,882.10 |        6,112.95 |  135,769.15 | 136,201.40 |\n"
         "| 2024-07-06   | DE01         | EUR      |    322,004.88 |       12,880.10 |  309,124.78 | 309,800.02 |\n"
         "| 2024-07-07   | DE01         | EUR      |    301,118.40 |       11,941.72 |  289,176.68 | 289,611.09 |\n", duration_ms=8800)
    t.say("Since 8 July the mart now matches the ledger. The ledger test still fails on 4 rows, all 5-7 July (before the "
          "migration): there our refunds are higher than the ledger's by a few hundred euros. That's not the kind "
          "problem at first sight; something touched those days.")
    u7 = t.user("Ah, Lukas just told me: billing's backfill script for BILL-2210 also rewrote the refunds from Friday 5 July "
                "as adjustment groups. So the backfill of the mart has to start at 2024-07-05, not Monday like I said before. "
                "And those older rows came through the resync with their kind now, right?")
    t.correction("backfill_start", "2024-07-05", {"model": "revenue_daily"})
    t.decide("fm-d5-backfill-date", [
        P_fact("backfill_start", "2024-07-05", "the corrected start date", subject={"model": "revenue_daily"}),
        P_next("warehouse_query", {"connection": "prod_eu"}, "verify the older rows' kinds on the EU account"),
        P_state(c_dag, "succeeded", "the refresh run exists and finished", request_id="airflow-manual__2024-07-10T10:12:31.418220+00:00"),
    ])
    t.tool("warehouse_query", {"connection": "prod_eu", "sql": "select date_trunc('day', created_at)::date as day, kind, count(*) from raw_billing.refunds "
                                                               "where created_at between '2024-07-05' and '2024-07-08' group by 1, 2 order by 1, 2"},
           {"columns": ["DAY", "KIND", "COUNT(*)"], "rows": [["2024-07-05", None, 631], ["2024-07-06", None, 410], ["2024-07-07", None, 399]],
            "query_id": "01b5a3e0-0604-8e1d-0000-4d1a00b2fa33"})
    t.say("No, they didn't: the refresh run only resynced rows since 2024-07-08 (that was in its conf, from 'since Monday'), "
          "so 5-7 July still have kind NULL, and the staging model's coalesce treats billing's rewritten adjustment rows as "
          "refunds. That's the 4 failing ledger rows. It needs a second resync from 2024-07-05.")
    u7b = t.user("Yes, run it again from the 5th. Same DAG, EU.")
    c_dag2, _ = t.tool("airflow_trigger_dag", {"dag_id": "billing_replication_eu", "conf": {"full_schema_refresh": False, "tables": ["refunds"],
                                                                                          "resync_since": "2024-07-05",
                                                                                          "reason": "DATA-552: resync refunds rewritten by BILL-2210 backfill"}},
                       {"dag_run_id": "manual__2024-07-10T11:20:02.901377+00:00", "state": "queued", "logical_date": "2024-07-10T11:20:02.901377+00:00"},
                       key="fm-airflow-billing-eu-resync-0705", request_id="airflow-manual__2024-07-10T11:20:02.901377+00:00")
    t.tool("airflow_get_dag_run", {"dag_id": "billing_replication_eu", "dag_run_id": "manual__2024-07-10T11:20:02.901377+00:00"},
           {"dag_run_id": "manual__2024-07-10T11:20:02.901377+00:00", "state": "success", "start_date": "2024-07-10T11:20:05Z",
            "end_date": "2024-07-10T11:34:48Z", "tasks": [{"task_id": "fivetran_resync_refunds", "state": "success", "rows": 1440, "since": "2024-07-05"},
                                                          {"task_id": "check_sync_state", "state": "success"}]})
    t.tool("warehouse_query", {"connection": "prod_eu", "sql": "select date_trunc('day', created_at)::date as day, kind, count(*) from raw_billing.refunds "
                                                               "where created_at between '2024-07-05' and '2024-07-08' group by 1, 2 order by 1, 2"},
           {"columns": ["DAY", "KIND", "COUNT(*)"], "rows": [["2024-07-05", "adjustment", 31], ["2024-07-05", "refund", 600],
                                                             ["2024-07-06", "adjustment", 12], ["2024-07-06", "refund", 398],
                                                             ["2024-07-07", "adjustment", 9], ["2024-07-07", "refund", 390]],
            "query_id": "01b5a3f2-0604-8e1d-0000-4d1a00b2fc10"})
    t.say("Second resync (manual__2024-07-10T11:20:02.901377+00:00) done: 5-7 July now have their adjustment rows marked "
          "(31, 12, 9). Rebuilding in dev.")
    t.sh("dbt build --select stg_billing__refunds+ --target dev --full-refresh",
         dbt_build_log(r, "dev", "DBT_ANA", nodes, start=(11, 2, 40)), duration_ms=208100)
    t.say("All 14 nodes pass in dev, including assert_revenue_daily_matches_ledger for every day.")
    t.sh("git diff", "diff --git a/models/staging/billing/_billing__sources.yml b/models/staging/billing/_billing__sources.yml\nindex 4f1c2aa..9d0e7b3 100644\n"
         "--- a/models/staging/billing/_billing__sources.yml\n+++ b/models/staging/billing/_billing__sources.yml\n@@ -30,6 +30,8 @@ sources:\n"
         "                   field: id\n           - name: refund_group_id\n           - name: reason_code\n+          - name: kind\n+            description: \"'refund' or 'adjustment' (billing v187)\"\n"
         "       - name: accounts\n         columns:\n           - name: id\n"
         "diff --git a/models/staging/billing/stg_billing__refunds.sql b/models/staging/billing/stg_billing__refunds.sql\nindex 2b7d9e1..c41a0f8 100644\n"
         "--- a/models/staging/billing/stg_billing__refunds.sql\n+++ b/models/staging/billing/stg_billing__refunds.sql\n@@ -12,6 +12,10 @@ renamed as (\n"
         "         amount_minor / 100.0 as amount,\n         status,\n         reason,\n+        -- billing v187 (BILL-2210): partial refunds add 'adjustment' rows to the same group.\n"
         "+        -- Rows synced before the schema refresh have no kind; they are all original refunds.\n+        coalesce(kind, 'refund') as refund_kind,\n"
         "         created_at as refunded_at,\n         _fivetran_synced\n     from source\n     where not coalesce(_fivetran_deleted, false)\n )\n \n"
         "-select * from renamed\n+, refunds_only as (\n+    select * from renamed where refund_kind = 'refund'\n+)\n+\n+select * from refunds_only\n")
    t.sh("sqlfluff lint models/staging/billing/stg_billing__refunds.sql --dialect snowflake --templater dbt",
         "== [models/staging/billing/stg_billing__refunds.sql] FAIL\nL:  23 | P:   1 | LT04 | Found leading comma ','. Expected only trailing near\n"
         "                       | line breaks. [layout.commas]\nL:  24 | P:   5 | AM04 | Query produces an unknown number of result columns.\n"
         "                       | [ambiguous.column_count]\nAll Finished 📜 🎉!\n", exit_code=1, duration_ms=9120)
    t.edit(REPO + "/models/staging/billing/stg_billing__refunds.sql", ")\n\n, refunds_only as (", "),\n\nrefunds_only as (")
    t.sh("sqlfluff lint models/staging/billing/stg_billing__refunds.sql --dialect snowflake --templater dbt",
         "== [models/staging/billing/stg_billing__refunds.sql] FAIL\nL:  24 | P:   5 | AM04 | Query produces an unknown number of result columns.\n"
         "                       | [ambiguous.column_count]\nAll Finished 📜 🎉!\n", exit_code=1, duration_ms=8870)
    t.say("Only AM04 (select * in a CTE) is left, and the repo's .sqlfluff disables AM04 for staging models in CI "
          "(`exclude_rules = AM04` under models/staging), so that's the same as every other staging model.")
    u8 = t.user("Great. Commit, push, PR.")
    sha = hexs(r, 40)
    t.sh("git add models/staging/billing && git commit -m 'billing: count only kind=refund rows in stg_billing__refunds (DATA-552)' && git push -u origin ana/data-552-refund-kind",
         f"[ana/data-552-refund-kind {sha[:7]}] billing: count only kind=refund rows in stg_billing__refunds (DATA-552)\n 2 files changed, 12 insertions(+), 1 deletion(-)\n",
         stderr="To github.com:acme-data/analytics-dbt.git\n * [new branch]      ana/data-552-refund-kind -> ana/data-552-refund-kind\n", duration_ms=2210)
    t.tool("github_create_pull_request", {"repo": "acme-data/analytics-dbt", "head": "ana/data-552-refund-kind", "base": "main",
                                          "title": "DATA-552: only kind=refund rows in stg_billing__refunds",
                                          "body": "Billing v187 (BILL-2210) adds adjustment rows to refunds. Staging keeps only kind='refund' "
                                                  "(coalesce for rows without kind). Needs raw_billing schema refresh (done in prod_eu). Backfill from 2024-07-05."},
           {"number": 1877, "html_url": "https://github.com/acme-data/analytics-dbt/pull/1877", "state": "open"})
    t.tool("github_list_check_runs", {"repo": "acme-data/analytics-dbt", "ref": sha},
           {"total_count": 3, "check_runs": [
               {"name": "dbt-ci (slim, state:modified+)", "status": "completed", "conclusion": "success",
                "output": {"summary": "14 of 14 nodes passed against target ci (deferred to prod_eu manifest)"}},
               {"name": "sqlfluff", "status": "completed", "conclusion": "success"},
               {"name": "dbt-project-evaluator", "status": "completed", "conclusion": "success"}]})
    t.say("PR #1877 is open and CI (slim dbt build, sqlfluff, project evaluator) is green.")
    u9 = t.user("Mei approved and merged it. Now do the production backfill of the mart.")
    t.decide("fm-d6-backfill", [
        P_next("bash", {"target": "prod_eu", "start": "2024-07-05"}, "the EU target from the start and the corrected date"),
        P_fact("backfill_start", "2024-07-05", "after the correction", subject={"model": "revenue_daily"}, superseded=["2024-07-08"]),
        P_con(u1, "NOT prod", "the backfill writes: it must not go to the US account"),
    ])
    t.sh("git checkout main && git pull --ff-only && dbt build --select stg_billing__refunds+ --target prod_eu --vars '{lookback_days: 6}'",
         dbt_build_log(r, "prod_eu", "ANALYTICS", nodes, start=(13, 20, 5)),
         stderr="Switched to branch 'main'\n", duration_ms=301200)
    t.tool("warehouse_query", {"connection": "prod_eu", "sql": "select revenue_date, legal_entity, net_revenue from marts_finance.revenue_daily "
                                                               "where revenue_date between '2024-07-05' and '2024-07-10' and legal_entity = 'DE01' order by 1"},
           {"columns": ["REVENUE_DATE", "LEGAL_ENTITY", "NET_REVENUE"], "rows": [["2024-07-05", "DE01", "382140.21"], ["2024-07-06", "DE01", "309800.02"],
                                                                                ["2024-07-07", "DE01", "289611.09"], ["2024-07-08", "DE01", "425771.30"],
                                                                                ["2024-07-09", "DE01", "431226.90"], ["2024-07-10", "DE01", "402118.55"]],
            "query_id": "01b5a4f1-0604-8e1d-0000-4d1a00b30112"})
    t.say("Production backfill done on prod_eu with a 6-day lookback (covers 5 July onwards). DE01 9 July is now 431,226.90, "
          "exactly the ledger figure from the ticket.")
    u10 = t.user("Perfect. Update DATA-552 with what happened and move it to Done. Mention the PR and the Airflow run so "
                 "billing can see we needed a manual refresh.")
    t.decide("fm-d7-jira", [
        P_next("jira_add_comment", {"pr": "1877", "dag_run": "manual__2024-07-10T10:12:31.418220+00:00", "dag_run_2": "manual__2024-07-10T11:20:02.901377+00:00"},
               "the PR number and both refresh run ids, the first one from the status query"),
        P_ev([s_mig, s_sync], "the version mismatch (187 vs 186) explains why the refresh was needed"),
        P_state(c_dag, "succeeded", "the timed-out trigger did create the run", request_id="airflow-manual__2024-07-10T10:12:31.418220+00:00"),
    ])
    t.tool("jira_add_comment", {"issue_key": "DATA-552", "body":
        "Cause: billing v187 (BILL-2210, 2024-07-08) writes partial refunds as extra 'adjustment' rows; the warehouse replica stayed on "
        "schema 186 (no refunds.kind) so staging counted them as refunds. Billing's backfill also rewrote 5-7 July.\n"
        "Fix: schema refresh via Airflow run manual__2024-07-10T10:12:31.418220+00:00 (billing_replication_eu), PR "
        "https://github.com/acme-data/analytics-dbt/pull/1877 (only kind='refund'), backfill on prod_eu from 2024-07-05. "
        "DE01 2024-07-09 now 431,226.90 = ledger.\nFollow-up for billing: schema changes need a connector schema refresh."},
           {"id": "188204", "created": "2024-07-10T15:41:12.000+0200"}, request_id="jira-188204")
    t.tool("jira_transition_issue", {"issue_key": "DATA-552", "transition": "Done"},
           {"issue_key": "DATA-552", "from_status": "To Do", "status": "Done"}, request_id="jira-data-552-done")
    t.say("DATA-552 has the write-up and is Done.")
    u11 = t.user("Last thing: tell #billing-eng in Slack that schema changes like v187 need a connector schema refresh on our side, "
                 "and give them both Airflow run ids for reference.")
    t.decide("fm-d8-slack", [
        P_next("slack_post_message", {"run1": "manual__2024-07-10T10:12:31.418220+00:00", "run2": "manual__2024-07-10T11:20:02.901377+00:00",
                                      "change": "BILL-2210"}, "both run ids and the billing change, all from much earlier"),
        P_fact("backfill_start", "2024-07-05", "the date they need to know billing's backfill reached", subject={"model": "revenue_daily"}, superseded=["2024-07-08"]),
        P_state(c_dag2, "succeeded", "the second resync", request_id="airflow-manual__2024-07-10T11:20:02.901377+00:00"),
    ])
    t.tool("slack_post_message", {"channel": "#billing-eng", "text":
        "Hi billing folks :wave: v187 (BILL-2210) added refunds.kind, but our Fivetran connector only picks up new columns on a schema "
        "refresh, so revenue_daily double counted partial refunds from 5 July (DATA-552). We ran billing_replication_eu twice: "
        "manual__2024-07-10T10:12:31.418220+00:00 (schema refresh + resync since 07-08) and manual__2024-07-10T11:20:02.901377+00:00 "
        "(resync since 07-05, your backfill rewrote those days). Could you ping #data-platform before schema migrations? Thanks!"},
           {"ok": True, "channel": "C04BILLENG", "ts": "1720619102.338109"}, request_id="slack-1720619102.338109")
    t.say("Posted in #billing-eng with both run ids.")
    return t


# --------------------------------------------------------------------------------------
# 08: storefront PR review loop: comments, lint/type errors, no force-push, Chromatic token, merge
# --------------------------------------------------------------------------------------
AUTOCOMPLETE_TSX = '''import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";

import { Combobox } from "@/components/ui/combobox";
import { searchAddresses, type AddressSuggestion } from "@/lib/address/search";
import { trackEvent } from "@/lib/analytics";

type Props = {
  country: string;
  value: string;
  onChange: (value: string) => void;
  onSelect: (address: AddressSuggestion) => void;
};

export function AddressAutocomplete({ country, value, onChange, onSelect }: Props) {
  const t = useTranslations("checkout.address");
  const [suggestions, setSuggestions] = useState<AddressSuggestion[]>([]);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    if (value.length < 3) {
      setSuggestions([]);
      return;
    }
    setLoading(true);
    searchAddresses({ query: value, country })
      .then((result) => setSuggestions(result.items))
      .finally(() => setLoading(false));
  }, [value, country]);

  return (
    <Combobox
      label="Street address"
      value={value}
      onInputChange={onChange}
      items={suggestions}
      loading={loading}
      itemToString={(item) => item?.label ?? ""}
      onSelectedItemChange={(item) => {
        if (!item) return;
        trackEvent("checkout_address_autocomplete_selected", { country, position: suggestions.indexOf(item) });
        onSelect(item);
      }}
      emptyMessage={t("noResults")}
    />
  );
}
'''


def t08() -> Traj:
    t = Traj(8, "storefront-pr-review", "ws2-storefront-pr-review",
             "Working through review comments on a Next.js storefront PR: lint and type errors, no force-push, Chromatic, merge and branch deletion",
             ["a rule typed once (no force-push) and a project token typed once, both needed much later",
              "review comment authors and file paths returned by one tool, used for edits and re-review requests later",
              "a merge that times out and is resolved by a status query before the branch deletion",
              "an irreversible branch deletion behind an approval that stays open while the user asks about something else",
              "working directory changes between the app, a package and a scratch checkout"],
             "A frontend developer has the agent address review feedback on a checkout PR, keep history intact, run "
             "visual tests with a token given once, and merge.",
             seed=808, home="/Users/lee", cwd="/Users/lee", prefix="sf", window=8192)
    r = t.rng
    REPO = "/Users/lee/code/storefront"
    GH = "acme-shop/storefront"
    u1 = t.user("Picking my PR #1289 back up, reviewers left comments over the weekend. Repo is ~/code/storefront, use Node 20. "
                "Please don't force-push on this one: reviewers lose their place, so add fixup commits instead. "
                "For visual tests later, the Chromatic project token is chpt_5f1c0a9e2d7b44e.")
    t.fact("chromatic_project_token", "chpt_5f1c0a9e2d7b44e")
    head0 = hexs(r, 40)
    t.tool("github_get_pull_request", {"repo": GH, "pull_number": 1289},
           {"number": 1289, "title": "Checkout: address autocomplete (DE, AT, CH)", "state": "open", "draft": False,
            "head": {"ref": "lee/checkout-address-autocomplete", "sha": head0}, "base": {"ref": "main"},
            "mergeable_state": "blocked", "review_decision": "CHANGES_REQUESTED", "commits": 7, "changed_files": 11,
            "requested_reviewers": [], "labels": [{"name": "checkout"}, {"name": "needs-a11y-review"}]})
    comments = [
        {"id": 1620001201, "user": {"login": "mfischer"}, "path": "src/features/checkout/AddressAutocomplete.tsx", "line": 24,
         "body": "This fires a request on every keystroke. Please debounce (250ms is what search uses) and cancel in-flight requests "
                 "with an AbortController, otherwise slow responses overwrite newer ones."},
        {"id": 1620001388, "user": {"login": "mfischer"}, "path": "src/lib/address/search.ts", "line": 11,
         "body": "`searchAddresses` should accept a `signal` then."},
        {"id": 1620002040, "user": {"login": "priya-a11y"}, "path": "src/features/checkout/AddressAutocomplete.tsx", "line": 33,
         "body": "Hard-coded English label. Use t(\"street\"). Also the loading state needs an aria-live announcement, screen readers "
                 "currently get nothing while suggestions load."},
        {"id": 1620002117, "user": {"login": "priya-a11y"}, "path": "src/features/checkout/AddressAutocomplete.tsx", "line": 41,
         "body": "position: suggestions.indexOf(item) is -1 when the list refreshed between render and select. Pass the index from the combobox instead."},
        {"id": 1620003391, "user": {"login": "jkowalski"}, "path": "e2e/checkout/address.spec.ts", "line": 5,
         "body": "nit: use the `mockAddressApi` fixture instead of hitting the staging API from e2e."}]
    _, s_comments = t.tool("github_list_review_comments", {"repo": GH, "pull_number": 1289}, comments)
    t.say("Five comments from three reviewers: mfischer wants debounce + AbortController (AddressAutocomplete.tsx:24) and a "
          "`signal` on `searchAddresses` (search.ts:11); priya-a11y wants the label translated, an aria-live loading "
          "announcement, and the index from the combobox for analytics; jkowalski wants the e2e test on the mockAddressApi fixture.")
    t.sh("cd ~/code/storefront && git fetch origin && git status -sb && git switch lee/checkout-address-autocomplete && git pull --ff-only",
         "## main...origin/main\n", stderr="Switched to branch 'lee/checkout-address-autocomplete'\nYour branch is up to date with 'origin/lee/checkout-address-autocomplete'.\nAlready up to date.\n",
         duration_ms=2210)
    blog = ["checkout: address autocomplete component", "address: search client for address-api v1", "checkout: wire autocomplete into CheckoutForm",
            "messages: address strings for de, en, fr-CH", "analytics: checkout_address_autocomplete_selected event", "e2e: address autocomplete happy path",
            "checkout: CH house number after street"]
    t.sh("git log --oneline origin/main...HEAD --left-right --cherry-pick | head -30",
         "".join(f"> {hexs(r, 7) if i else head0[:7]} {m}\n" for i, m in enumerate(reversed(blog)))
         + "".join(f"< {hexs(r, 7)} {m}\n" for m in ["combobox: report selectedIndex in SelectionChange (#1301)", "cart: summary shows VAT per rate (#1297)",
                                                    "analytics: typed event registry (#1296)", "messages: de-CH/fr-CH review (#1294)", "deps: next 14.1.4 (#1292)"]))
    t.sh("source ~/.nvm/nvm.sh && nvm use 20 && node -v && npm -v", "Now using node v20.12.2 (npm v10.5.0)\nv20.12.2\n10.5.0\n", duration_ms=640)
    npm = ("npm warn deprecated inflight@1.0.6: This module is not supported, and leaks memory. Do not use it.\n"
           "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported\n"
           "npm warn deprecated @humanwhocodes/config-array@0.11.14: Use @eslint/config-array instead\n\n"
           "> storefront@0.0.0 prepare\n> husky\n\n> storefront@0.0.0 postinstall\n> prisma generate && node scripts/copy-locales.mjs\n\n"
           "Environment variables loaded from .env\nPrisma schema loaded from prisma/schema.prisma\n\n✔ Generated Prisma Client (v5.12.1) to ./node_modules/@prisma/client in 212ms\n\n"
           "copied 6 locale bundles (de, de-AT, de-CH, en, fr-CH, it-CH)\n\nadded 1412 packages, and audited 1413 packages in 41s\n\n"
           "248 packages are looking for funding\n  run `npm fund` for details\n\n3 moderate severity vulnerabilities\n\n"
           "To address issues that do not require attention, run:\n  npm audit fix\n\nRun `npm audit` for details.\n")
    t.sh("npm ci", npm, duration_ms=41880)
    ua = t.user("What are those 3 moderate vulnerabilities? Anything in the checkout path?")
    audit = ("# npm audit report\n\nbrowserify-sign  2.6.0 - 4.2.1\nSeverity: moderate\nbrowserify-sign upper bound check issue in `dsaVerify` leads to a signature forgery attack - https://github.com/advisories/GHSA-x9w5-v3q2-3rhw\n"
             "fix available via `npm audit fix`\nnode_modules/browserify-sign\n  crypto-browserify  >=3.12.0\n  Depends on vulnerable versions of browserify-sign\n  node_modules/crypto-browserify\n\n"
             "undici  <=5.28.3\nSeverity: moderate\nUndici's fetch with integrity option is too lax when algorithm is specified but hash value is in incorrect - https://github.com/advisories/GHSA-9qxr-qj54-h672\n"
             "Undici's Proxy-Authorization header not cleared on cross-origin redirect for dispatch, request, stream, pipeline - https://github.com/advisories/GHSA-m4v8-wqvr-p9f7\n"
             "fix available via `npm audit fix`\nnode_modules/@vercel/node/node_modules/undici\n  @vercel/node  >=2.3.1\n  Depends on vulnerable versions of undici\n  node_modules/@vercel/node\n\n"
             "3 moderate severity vulnerabilities\n\nTo address all issues, run:\n  npm audit fix\n")
    t.sh("npm audit --omit=optional", audit, exit_code=1, duration_ms=3120)
    t.sh("npm ls browserify-sign undici --all 2>/dev/null | head -14",
         "storefront@0.0.0 /Users/lee/code/storefront\n├─┬ @storybook/nextjs@8.0.8\n│ └─┬ node-polyfill-webpack-plugin@2.0.1\n│   └─┬ crypto-browserify@3.12.0\n"
         "│     └── browserify-sign@4.2.1\n└─┬ vercel@33.7.1\n  └─┬ @vercel/node@3.0.26\n    └── undici@5.26.5\n")
    t.say("None are in the shipped app: browserify-sign comes in through Storybook's webpack polyfills, undici through "
          "the Vercel CLI (@vercel/node), both dev dependencies. Nothing in the checkout path; `npm audit fix` can wait for a chore PR.")
    u2 = t.user("Start with Moritz's debounce comment and the signal one, they go together.")
    t.decide("sf-d1-debounce", [
        P_next("read_file", {"path": "src/lib/address/search.ts"}, "the second comment's file, as returned by the review listing"),
        P_con(u1, "don't force-push", "the history rule for the whole PR"),
        P_fact("cwd", REPO, "the shell is in the repo", superseded=["/Users/lee"]),
    ])
    t.read(REPO + "/src/features/checkout/AddressAutocomplete.tsx", AUTOCOMPLETE_TSX)
    search_ts = ('import { z } from "zod";\n\nimport { env } from "@/env";\n\nconst Suggestion = z.object({ id: z.string(), label: z.string(), street: z.string(),\n'
                 '  houseNumber: z.string().optional(), postalCode: z.string(), city: z.string(), country: z.string().length(2) });\n'
                 'export type AddressSuggestion = z.infer<typeof Suggestion>;\n\nconst Response = z.object({ items: z.array(Suggestion) });\n\n'
                 'export async function searchAddresses(params: { query: string; country: string }) {\n'
                 '  const url = new URL("/v1/addresses/search", env.NEXT_PUBLIC_ADDRESS_API);\n  url.searchParams.set("q", params.query);\n'
                 '  url.searchParams.set("country", params.country);\n  const res = await fetch(url, { headers: { accept: "application/json" } });\n'
                 '  if (!res.ok) throw new Error(`address search failed: ${res.status}`);\n  return Response.parse(await res.json());\n}\n')
    t.read(REPO + "/src/lib/address/search.ts", search_ts)
    t.edit(REPO + "/src/lib/address/search.ts",
           "export async function searchAddresses(params: { query: string; country: string }) {",
           "export async function searchAddresses(params: { query: string; country: string; signal?: AbortSignal }) {")
    t.edit(REPO + "/src/lib/address/search.ts", '{ headers: { accept: "application/json" } }',
           '{ headers: { accept: "application/json" }, signal: params.signal }')
    t.edit(REPO + "/src/features/checkout/AddressAutocomplete.tsx",
           "    setLoading(true);\n    searchAddresses({ query: value, country })\n      .then((result) => setSuggestions(result.items))\n"
           "      .finally(() => setLoading(false));\n  }, [value, country]);",
           "    const controller = new AbortController();\n    const timer = setTimeout(() => {\n      setLoading(true);\n"
           "      searchAddresses({ query: value, country, signal: controller.signal })\n        .then((result) => setSuggestions(result.items))\n"
           "        .catch((error: unknown) => {\n          if ((error as Error).name !== \"AbortError\") setSuggestions([]);\n        })\n"
           "        .finally(() => {\n          if (!controller.signal.aborted) setLoading(false);\n        });\n    }, DEBOUNCE_MS);\n"
           "    return () => {\n      clearTimeout(timer);\n      controller.abort();\n    };\n  }, [value, country]);")
    t.edit(REPO + "/src/features/checkout/AddressAutocomplete.tsx", 'import { trackEvent } from "@/lib/analytics";\n',
           'import { trackEvent } from "@/lib/analytics";\n\nconst DEBOUNCE_MS = 250;\n')
    lint = ("\n/Users/lee/code/storefront/src/features/checkout/AddressAutocomplete.tsx\n"
            "  33:7   error    Hard-coded string literal in JSX attribute \"label\"                      i18next/no-literal-string\n"
            "  41:77  warning  'indexOf' on state array inside event handler may be stale              local/no-stale-index\n\n"
            "/Users/lee/code/storefront/src/features/checkout/CheckoutForm.tsx\n"
            "  88:11  warning  React Hook useCallback has a missing dependency: 'country'. Either include it or remove the dependency array  react-hooks/exhaustive-deps\n\n"
            "/Users/lee/code/storefront/e2e/checkout/address.spec.ts\n"
            "  5:1    error    'STAGING_ADDRESS_API' is not allowed in e2e, use the mockAddressApi fixture  local/no-live-apis-in-e2e\n\n"
            "✖ 4 problems (2 errors, 2 warnings)\n\n")
    t.sh("npx eslint src/features/checkout src/lib/address e2e/checkout --max-warnings 0", lint, exit_code=1, duration_ms=9120)
    tsc = ("src/features/checkout/AddressAutocomplete.tsx(43,41): error TS2345: Argument of type 'AddressSuggestion | null' is not assignable to parameter of type 'AddressSuggestion'.\n"
           "  Type 'null' is not assignable to type 'AddressSuggestion'.\n"
           "src/features/checkout/CheckoutForm.tsx(112,9): error TS2322: Type '(address: AddressSuggestion) => void' is not assignable to type '(address: AddressSuggestion, index: number) => void'.\n"
           "  Target signature provides too few arguments. Expected 2 or more, but got 1.\n"
           "src/components/ui/combobox/Combobox.tsx(58,5): error TS2741: Property 'selectedIndex' is missing in type '{ selectedItem: T | null; }' but required in type 'SelectionChange<T>'.\n\n"
           "Found 3 errors in 3 files.\n\nErrors  Files\n     1  src/components/ui/combobox/Combobox.tsx:58\n     1  src/features/checkout/AddressAutocomplete.tsx:43\n     1  src/features/checkout/CheckoutForm.tsx:112\n")
    t.sh("npx tsc --noEmit -p tsconfig.json", tsc, exit_code=2, duration_ms=22410)
    t.read(REPO + "/src/components/ui/combobox/types.ts",
           "export type SelectionChange<T> = {\n  selectedItem: T | null;\n};\n\nexport type ComboboxProps<T> = {\n  label: string;\n  value: string;\n"
           "  items: T[];\n  loading?: boolean;\n  emptyMessage?: string;\n  itemToString: (item: T | null) => string;\n  onInputChange: (value: string) => void;\n"
           "  onSelectedItemChange: (change: SelectionChange<T>) => void;\n};\n")
    t.sh("git show origin/main:src/components/ui/combobox/types.ts",
         "export type SelectionChange<T> = {\n  selectedItem: T | null;\n  /** index in `items` at the moment of selection, -1 when cleared */\n  selectedIndex: number;\n};\n\n"
         "export type ComboboxProps<T> = {\n  label: string;\n  value: string;\n  items: T[];\n  loading?: boolean;\n  emptyMessage?: string;\n"
         "  itemToString: (item: T | null) => string;\n  onInputChange: (value: string) => void;\n  onSelectedItemChange: (change: SelectionChange<T>) => void;\n};\n")
    t.say("Debounce (250 ms) and AbortController are in, and `searchAddresses` takes a `signal`. eslint flags the two things "
          "Priya and Jakub commented on. tsc has 3 errors, all from the combobox's selection-change type: someone added a "
          "required `selectedIndex` to `SelectionChange<T>` on main and this branch predates it.")
    u3 = t.user("Main moved then. Merge main in (not rebase, same reason as before), then do Priya's comments.")
    t.decide("sf-d2-merge-main", [
        P_con(u1, "add fixup commits instead", "merge, don't rebase or force-push"),
        P_next("edit_file", {"path": REPO + "/src/features/checkout/AddressAutocomplete.tsx"}, "Priya's comments are on this file"),
    ])
    t.sh("git add -A && git commit -m 'fixup! checkout: debounce address search, abort stale requests' && git merge origin/main --no-edit",
         "[lee/checkout-address-autocomplete " + hexs(r, 7) + "] fixup! checkout: debounce address search, abort stale requests\n 2 files changed, 19 insertions(+), 5 deletions(-)\n"
         "Auto-merging src/components/ui/combobox/Combobox.tsx\nAuto-merging src/features/checkout/CheckoutForm.tsx\nMerge made by the 'ort' strategy.\n"
         " src/components/ui/combobox/Combobox.tsx        |  14 +-\n src/components/ui/combobox/types.ts            |   9 +-\n src/features/cart/CartSummary.tsx               |  31 ++--\n"
         " src/features/checkout/CheckoutForm.tsx         |   6 +-\n src/lib/analytics/events.ts                     |  22 +++\n messages/de-CH.json                             |  12 +-\n"
         " messages/fr-CH.json                            |  12 +-\n 7 files changed, 78 insertions(+), 28 deletions(-)\n", duration_ms=1910)
    checkout_form = ('"use client";\n\nimport { useCallback, useState } from "react";\nimport { useTranslations } from "next-intl";\n\n'
                     'import { AddressAutocomplete } from "./AddressAutocomplete";\nimport { PaymentStep } from "./PaymentStep";\nimport { ShippingStep } from "./ShippingStep";\n'
                     'import { Summary } from "./Summary";\nimport { useCheckout } from "./useCheckout";\nimport type { AddressSuggestion } from "@/lib/address/search";\n'
                     'import { formatStreet } from "@/lib/address/format";\nimport { TextField } from "@/components/ui/text-field";\n\n'
                     'export function CheckoutForm({ locale }: { locale: string }) {\n  const t = useTranslations("checkout");\n'
                     '  const { state, update, submit, errors } = useCheckout();\n  const [street, setStreet] = useState(state.address.street);\n'
                     '  const country = state.address.country;\n\n  const applySuggestion = useCallback(\n    (address: AddressSuggestion) => {\n'
                     '      update({\n        address: {\n          ...state.address,\n          street: formatStreet(address, country),\n'
                     '          postalCode: address.postalCode,\n          city: address.city,\n        },\n      });\n      setStreet(formatStreet(address, country));\n'
                     '    },\n    [state.address, update],\n  );\n\n  return (\n    <form onSubmit={submit} noValidate className="grid gap-6">\n'
                     '      <fieldset className="grid gap-4">\n        <legend className="text-lg font-semibold">{t("address.legend")}</legend>\n'
                     '        <AddressAutocomplete country={country} value={street} onChange={setStreet} onSelect={applySuggestion} />\n'
                     '        <div className="grid grid-cols-3 gap-4">\n          <TextField name="postalCode" label={t("address.postalCode")} value={state.address.postalCode}\n'
                     '            error={errors.postalCode} onChange={(v) => update({ address: { ...state.address, postalCode: v } })} />\n'
                     '          <TextField className="col-span-2" name="city" label={t("address.city")} value={state.address.city}\n'
                     '            error={errors.city} onChange={(v) => update({ address: { ...state.address, city: v } })} />\n        </div>\n'
                     '      </fieldset>\n      <ShippingStep locale={locale} />\n      <PaymentStep locale={locale} />\n      <Summary />\n'
                     '    </form>\n  );\n}\n')
    t.read(REPO + "/src/features/checkout/CheckoutForm.tsx", checkout_form)
    t.say("After the merge, CheckoutForm's `onSelect={applySuggestion}` type-checks again (main's Combobox no longer passes the "
          "index to onSelect). The exhaustive-deps warning is real though: `applySuggestion` uses `country` but doesn't list it; I'll add it.")
    t.edit(REPO + "/src/features/checkout/CheckoutForm.tsx", "    [state.address, update],", "    [state.address, update, country],")
    t.edit(REPO + "/src/features/checkout/AddressAutocomplete.tsx", '      label="Street address"', '      label={t("street")}')
    t.edit(REPO + "/src/features/checkout/AddressAutocomplete.tsx",
           '      onSelectedItemChange={(item) => {\n        if (!item) return;\n        trackEvent("checkout_address_autocomplete_selected", { country, position: suggestions.indexOf(item) });',
           '      onSelectedItemChange={({ selectedItem: item, selectedIndex }) => {\n        if (!item) return;\n        trackEvent("checkout_address_autocomplete_selected", { country, position: selectedIndex });')
    t.edit(REPO + "/src/features/checkout/AddressAutocomplete.tsx", '      emptyMessage={t("noResults")}\n    />',
           '      emptyMessage={t("noResults")}\n    />\n    <p className="sr-only" aria-live="polite">\n      {loading ? t("loadingSuggestions") : t("suggestionCount", { count: suggestions.length })}\n    </p>')
    t.sh("grep -n '\"address\"' -A8 messages/de.json | head -12",
         '212:    "address": {\n213-      "street": "Straße und Hausnummer",\n214-      "noResults": "Keine Adresse gefunden",\n'
         '215-      "postalCode": "PLZ",\n216-      "city": "Ort"\n217-    },\n')
    for loc, vals in [("de", ("Vorschläge werden geladen", "{count, plural, one {# Vorschlag} other {# Vorschläge}}")),
                      ("en", ("Loading suggestions", "{count, plural, one {# suggestion} other {# suggestions}}")),
                      ("fr-CH", ("Chargement des suggestions", "{count, plural, one {# suggestion} other {# suggestions}}"))]:
        t.edit(REPO + f"/messages/{loc}.json", '"noResults": ', f'"loadingSuggestions": "{vals[0]}",\n      "suggestionCount": "{vals[1]}",\n      "noResults": ')
    t.sh("npx tsc --noEmit -p tsconfig.json && npx eslint src/features/checkout src/lib/address --max-warnings 0 && echo OK", "OK\n", duration_ms=27330)
    tests = [(f"src/features/checkout/{n}.test.tsx", r.randint(3, 14)) for n in ["AddressAutocomplete", "CheckoutForm", "PaymentStep", "ShippingStep", "Summary"]]
    tests += [(f"src/lib/address/{n}.test.ts", r.randint(2, 8)) for n in ["search", "format", "normalize"]]
    tests += [(f"src/components/ui/combobox/{n}.test.tsx", r.randint(5, 20)) for n in ["Combobox", "useComboboxState"]]
    t.sh("npx vitest run src/features/checkout src/lib/address src/components/ui/combobox", vitest_log(r, REPO, tests), duration_ms=18800)
    u4 = t.user("Now Jakub's e2e nit, then run the checkout e2e suite.")
    t.edit(REPO + "/e2e/checkout/address.spec.ts", 'import { test, expect } from "@playwright/test";\n\nconst api = process.env.STAGING_ADDRESS_API;',
           'import { expect } from "@playwright/test";\n\nimport { test } from "../fixtures/mockAddressApi";')
    pw = ["", "Running 18 tests using 4 workers", ""]
    specs = ["address.spec.ts:12:7 › address autocomplete › suggests after 3 characters", "address.spec.ts:24:7 › address autocomplete › debounces typing",
             "address.spec.ts:38:7 › address autocomplete › stale response does not overwrite newer", "address.spec.ts:52:7 › address autocomplete › announces loading to screen readers",
             "address.spec.ts:66:7 › address autocomplete › fills street, postal code and city", "address.spec.ts:80:7 › address autocomplete › CH addresses keep house number after street",
             "guest.spec.ts:9:5 › guest checkout › card payment", "guest.spec.ts:31:5 › guest checkout › invoice payment (DE only)",
             "guest.spec.ts:52:5 › guest checkout › TWINT (CH only)", "account.spec.ts:8:5 › account checkout › saved address",
             "account.spec.ts:27:5 › account checkout › new address with autocomplete", "vouchers.spec.ts:6:5 › vouchers › percentage voucher",
             "vouchers.spec.ts:22:5 › vouchers › expired voucher message", "shipping.spec.ts:7:5 › shipping › express only for DE/AT",
             "shipping.spec.ts:25:5 › shipping › pickup points map", "errors.spec.ts:5:5 › errors › payment declined retry",
             "errors.spec.ts:19:5 › errors › address API down falls back to manual entry", "a11y.spec.ts:4:5 › a11y › axe has no violations on checkout"]
    for i, sp in enumerate(specs):
        browser = "chromium" if i % 3 else ("webkit" if i % 2 else "firefox")
        mark = "✘" if i == 14 else "✓"
        pw.append(f"  {mark}  {i + 1:>2} [{browser}] › checkout/{sp} ({r.uniform(0.8, 9.5):.1f}s)")
    pw += ["", "  1) [chromium] › checkout/shipping.spec.ts:25:5 › shipping › pickup points map ─────────────────────", "",
           "    Error: Timed out 5000ms waiting for expect(locator).toBeVisible()", "",
           "    Locator: getByRole('region', { name: 'Pickup points map' })", "    Expected: visible", "    Received: <element(s) not found>", "",
           "      30 |   await page.getByLabel('Pickup point').check();", "    > 31 |   await expect(page.getByRole('region', { name: 'Pickup points map' })).toBeVisible();",
           "         |                                                                              ^", "",
           "    Retry #1 ───────────────────────────────────────────────────────────────────────────────────────", "    ✓ passed (7.9s)", "",
           "  1 flaky", "    [chromium] › checkout/shipping.spec.ts:25:5 › shipping › pickup points map ─────────────────────",
           "  17 passed (1.4m)", "", "  Serving HTML report at http://localhost:9323. Press Ctrl+C to quit."]
    t.sh("npx playwright test e2e/checkout --reporter=list", "\n".join(pw) + "\n", duration_ms=88100)
    t.say("All address specs pass with the mock fixture, including the new stale-response and aria-live ones. One flaky "
          "test, the pickup points map, failed once and passed on retry; it's not touched by this PR (map tiles from an external CDN).")
    diff = ("diff --git a/src/features/checkout/AddressAutocomplete.tsx b/src/features/checkout/AddressAutocomplete.tsx\n--- a/src/features/checkout/AddressAutocomplete.tsx\n+++ b/src/features/checkout/AddressAutocomplete.tsx\n"
            "@@ -35,7 +35,7 @@ export function AddressAutocomplete({ country, value, onChange, onSelect }: Props) {\n   return (\n     <Combobox\n"
            "-      label=\"Street address\"\n+      label={t(\"street\")}\n       value={value}\n       onInputChange={onChange}\n       items={suggestions}\n"
            "@@ -43,12 +43,15 @@ export function AddressAutocomplete({ country, value, onChange, onSelect }: Props) {\n       itemToString={(item) => item?.label ?? \"\"}\n"
            "-      onSelectedItemChange={(item) => {\n+      onSelectedItemChange={({ selectedItem: item, selectedIndex }) => {\n         if (!item) return;\n"
            "-        trackEvent(\"checkout_address_autocomplete_selected\", { country, position: suggestions.indexOf(item) });\n"
            "+        trackEvent(\"checkout_address_autocomplete_selected\", { country, position: selectedIndex });\n         onSelect(item);\n       }}\n"
            "       emptyMessage={t(\"noResults\")}\n     />\n+    <p className=\"sr-only\" aria-live=\"polite\">\n"
            "+      {loading ? t(\"loadingSuggestions\") : t(\"suggestionCount\", { count: suggestions.length })}\n+    </p>\n   );\n }\n"
            "diff --git a/e2e/checkout/address.spec.ts b/e2e/checkout/address.spec.ts\n--- a/e2e/checkout/address.spec.ts\n+++ b/e2e/checkout/address.spec.ts\n"
            "@@ -1,6 +1,6 @@\n-import { test, expect } from \"@playwright/test\";\n+import { expect } from \"@playwright/test\";\n \n"
            "-const api = process.env.STAGING_ADDRESS_API;\n+import { test } from \"../fixtures/mockAddressApi\";\n"
            "diff --git a/messages/de.json b/messages/de.json\n--- a/messages/de.json\n+++ b/messages/de.json\n@@ -211,6 +211,8 @@\n     \"address\": {\n"
            "       \"street\": \"Straße und Hausnummer\",\n+      \"loadingSuggestions\": \"Vorschläge werden geladen\",\n"
            "+      \"suggestionCount\": \"{count, plural, one {# Vorschlag} other {# Vorschläge}}\",\n       \"noResults\": \"Keine Adresse gefunden\",\n")
    t.sh("git diff --stat && git diff -- src/features/checkout/AddressAutocomplete.tsx e2e/checkout/address.spec.ts messages/de.json",
         " e2e/checkout/address.spec.ts                  |  4 ++--\n messages/de.json                              |  2 ++\n messages/en.json                              |  2 ++\n"
         " messages/fr-CH.json                           |  2 ++\n src/features/checkout/AddressAutocomplete.tsx | 10 +++++++---\n 5 files changed, 16 insertions(+), 4 deletions(-)\n" + diff)
    routes = [("○ /", "5.2 kB", "121 kB"), ("○ /_not-found", "871 B", "88.2 kB"), ("λ /[locale]", "3.9 kB", "119 kB"),
              ("λ /[locale]/account", "6.1 kB", "128 kB"), ("λ /[locale]/account/orders", "4.4 kB", "126 kB"),
              ("λ /[locale]/cart", "7.8 kB", "131 kB"), ("λ /[locale]/checkout", "24.6 kB", "162 kB"),
              ("λ /[locale]/checkout/confirmation", "3.1 kB", "118 kB"), ("λ /[locale]/p/[slug]", "11.2 kB", "139 kB"),
              ("λ /[locale]/search", "9.7 kB", "135 kB"), ("λ /api/health", "0 B", "0 B"), ("λ /api/revalidate", "0 B", "0 B"),
              ("○ /robots.txt", "0 B", "0 B"), ("λ /sitemap.xml", "0 B", "0 B")]
    build = ("\n> storefront@0.0.0 build\n> next build\n\n  ▲ Next.js 14.1.4\n  - Environments: .env.production\n  - Experiments (use at your own risk):\n"
             "     · typedRoutes\n\n   Creating an optimized production build ...\n ✓ Compiled successfully\n   Linting and checking validity of types ...\n"
             "   Collecting page data ...\n   Generating static pages (0/6) ...\n   Generating static pages (6/6)\n ✓ Generating static pages (6/6)\n"
             "   Finalizing page optimization ...\n   Collecting build traces ...\n\nRoute (app)                                  Size     First Load JS\n"
             + "\n".join(f"{'┌' if i == 0 else ('└' if i == len(routes) - 1 else '├')} {n:<43}{a:<9}{b}" for i, (n, a, b) in enumerate(routes))
             + "\n+ First Load JS shared by all             86.9 kB\n  ├ chunks/2200-4c1d0e5f2a9b7c13.js        31.4 kB\n  ├ chunks/fd9d1056-9f2c7b1d4e8a0c55.js    53.6 kB\n"
               "  └ other shared chunks (total)            1.93 kB\n\n\nƒ Middleware                             38.2 kB\n\n○  (Static)   prerendered as static content\nλ  (Dynamic)  server-rendered on demand using Node.js\n")
    t.sh("npm run build", build, duration_ms=97420)
    t.say("Production build passes; /[locale]/checkout grew to 24.6 kB (from 24.1 kB on main).")
    u5 = t.user("Fine. Commit and push.")
    t.decide("sf-d3-push", [
        P_con(u1, "don't force-push", "a plain push of new commits"),
        P_next("bash", {"branch": "lee/checkout-address-autocomplete"}, "the PR's head branch from the PR lookup"),
    ])
    head1 = hexs(r, 40)
    t.sh("git add -A && git commit -m 'fixup! checkout: translated label, aria-live loading, index from combobox, mock API in e2e' && git push origin lee/checkout-address-autocomplete",
         f"[lee/checkout-address-autocomplete {head1[:7]}] fixup! checkout: translated label, aria-live loading, index from combobox, mock API in e2e\n 6 files changed, 31 insertions(+), 9 deletions(-)\n",
         stderr=f"To github.com:acme-shop/storefront.git\n   {head0[:7]}..{head1[:7]}  lee/checkout-address-autocomplete -> lee/checkout-address-autocomplete\n", duration_ms=2610)
    u6 = t.user("Run Chromatic on it so Priya can check the visuals. Is there a story for the loading state?")
    t.decide("sf-d4-chromatic", [
        P_next("bash", {"token": "chpt_5f1c0a9e2d7b44e"}, "the token the user typed at the very start"),
        P_fact("chromatic_project_token", "chpt_5f1c0a9e2d7b44e", "typed once, needed now"),
    ])
    t.read(REPO + "/src/features/checkout/AddressAutocomplete.stories.tsx",
           'import type { Meta, StoryObj } from "@storybook/react";\nimport { http, HttpResponse, delay } from "msw";\n\n'
           'import { AddressAutocomplete } from "./AddressAutocomplete";\nimport { addressFixtures } from "@/test/fixtures/addresses";\n\n'
           'const meta = {\n  title: "Checkout/AddressAutocomplete",\n  component: AddressAutocomplete,\n  args: { country: "DE", value: "Hauptstr", onChange: () => {}, onSelect: () => {} },\n'
           '  parameters: { chromatic: { viewports: [375, 1280] } },\n} satisfies Meta<typeof AddressAutocomplete>;\nexport default meta;\n\n'
           'type Story = StoryObj<typeof meta>;\n\nexport const WithSuggestions: Story = {\n  parameters: {\n    msw: { handlers: [http.get("*/v1/addresses/search", () => HttpResponse.json({ items: addressFixtures.de }))] },\n  },\n};\n\n'
           'export const Loading: Story = {\n  parameters: {\n    msw: { handlers: [http.get("*/v1/addresses/search", async () => { await delay("infinite"); return HttpResponse.json({ items: [] }); })] },\n  },\n};\n\n'
           'export const NoResults: Story = {\n  args: { value: "Xyzzy" },\n  parameters: { msw: { handlers: [http.get("*/v1/addresses/search", () => HttpResponse.json({ items: [] }))] } },\n};\n\n'
           'export const Swiss: Story = {\n  args: { country: "CH", value: "Bahnhofstr" },\n'
           '  parameters: { msw: { handlers: [http.get("*/v1/addresses/search", () => HttpResponse.json({ items: addressFixtures.ch }))] } },\n};\n')
    t.say("Yes, there are Loading, WithSuggestions, NoResults and Swiss stories (MSW-mocked), at 375 and 1280 px. Running Chromatic.")
    chrom = ("Chromatic CLI v11.3.0\nhttps://www.chromatic.com/docs/cli\n\n✔ Authenticated with Chromatic\n  → Using project token '****b44e'\n"
             f"✔ Retrieved git information\n  → Commit '{head1[:7]}' on branch 'lee/checkout-address-autocomplete'; found 1 parent build\n"
             "✔ Collected Storybook metadata\n  → Storybook 8.0.8 for React; using the @storybook/nextjs builder (8.0.8)\n"
             "✔ Storybook built in 1 minute 12 seconds\n  → View build log at /Users/lee/code/storefront/build-storybook.log\n"
             "✔ Publish complete in 21 seconds\n  → View your Storybook at https://6151f2a0bd1f7c003a1d3c2e-kqmvxzsbfe.chromatic.com\n"
             "✔ Started build 2291\n  → Continue setup at https://www.chromatic.com/setup?appId=6151f2a0bd1f7c003a1d3c2e\n"
             "✔ Build 2291 auto-accepted\n  → Tested 412 stories across 3 browsers; captured 1236 snapshots in 2 minutes 4 seconds\n"
             "✖ Found 6 visual changes: Review the changes at https://www.chromatic.com/build?appId=6151f2a0bd1f7c003a1d3c2e&number=2291\n"
             "  → Checkout/AddressAutocomplete: Loading (chrome, firefox, safari)\n  → Checkout/AddressAutocomplete: With suggestions (chrome, firefox, safari)\n")
    t.sh("npx chromatic --project-token=chpt_5f1c0a9e2d7b44e --exit-zero-on-changes --only-changed", chrom, duration_ms=224400)
    t.say("Chromatic build 2291: 6 visual changes, all in Checkout/AddressAutocomplete (Loading and With suggestions, 3 "
          "browsers each), as expected from the new announcement text. Review link: "
          "https://www.chromatic.com/build?appId=6151f2a0bd1f7c003a1d3c2e&number=2291")
    u7 = t.user("Reply on the PR with what changed per comment, include the Chromatic link for Priya, and re-request review from everyone who commented.")
    t.decide("sf-d5-rerequest", [
        P_next("github_request_reviewers", {"r1": "mfischer", "r2": "priya-a11y", "r3": "jkowalski"}, "the three reviewer logins from the comment listing"),
        P_next("github_add_issue_comment", {"chromatic": "https://www.chromatic.com/build?appId=6151f2a0bd1f7c003a1d3c2e&number=2291"}, "the review link"),
        P_ev([s_comments], "the reply walks through each comment"),
    ])
    t.tool("github_add_issue_comment", {"repo": GH, "issue_number": 1289, "body":
        "Thanks all! Addressed in two fixup commits (no force-push, squash on merge):\n"
        "- @mfischer debounce 250ms + AbortController; `searchAddresses` takes `signal` (search.ts)\n"
        "- @priya-a11y label via t(\"street\"), aria-live polite region for loading/suggestion count, position from the combobox's selectedIndex. "
        "Visuals: https://www.chromatic.com/build?appId=6151f2a0bd1f7c003a1d3c2e&number=2291\n"
        "- @jkowalski e2e uses the mockAddressApi fixture now\nAlso merged main for the new SelectionChange type."},
           {"id": 2051177309, "html_url": "https://github.com/acme-shop/storefront/pull/1289#issuecomment-2051177309"}, request_id="gh-comment-2051177309")
    t.tool("github_request_reviewers", {"repo": GH, "pull_number": 1289, "reviewers": ["mfischer", "priya-a11y", "jkowalski"]},
           {"requested_reviewers": [{"login": "mfischer"}, {"login": "priya-a11y"}, {"login": "jkowalski"}]})
    t.tool("github_list_check_runs", {"repo": GH, "ref": head1},
           {"total_count": 6, "check_runs": [
               {"name": "lint", "conclusion": "success", "status": "completed"}, {"name": "typecheck", "conclusion": "success", "status": "completed"},
               {"name": "unit", "conclusion": "success", "status": "completed", "output": {"summary": "1,942 passed"}},
               {"name": "e2e (chromium)", "conclusion": "success", "status": "completed", "output": {"summary": "18 passed, 1 flaky"}},
               {"name": "UI Tests (Chromatic)", "conclusion": "action_required", "status": "completed", "output": {"summary": "6 changes must be accepted"}},
               {"name": "Vercel Preview", "conclusion": "success", "status": "completed", "details_url": "https://storefront-git-lee-checkout-address-autocomplete-acme-shop.vercel.app"}]})
    t.say("Replied on the PR, re-requested all three reviewers. CI is green except Chromatic, which waits for the 6 changes to be accepted.")
    ub = t.user("Any replies on the threads yet?")
    t.tool("github_list_review_comments", {"repo": GH, "pull_number": 1289, "since": "2024-04-15T07:30:00Z"},
           [{"id": 1620104410, "in_reply_to_id": 1620001201, "user": {"login": "mfischer"}, "path": "src/features/checkout/AddressAutocomplete.tsx",
             "body": "👍 Could you also make sure loading is reset when the query drops below 3 chars? Right now it can stay true if you delete fast."},
            {"id": 1620104987, "in_reply_to_id": 1620002040, "user": {"login": "priya-a11y"}, "path": "src/features/checkout/AddressAutocomplete.tsx",
             "body": "Announcement works in VoiceOver. I'll accept the Chromatic diffs once the count message says 'Vorschläge' in de-CH too, it falls back to en."},
            {"id": 1620105202, "in_reply_to_id": 1620003391, "user": {"login": "jkowalski"}, "path": "e2e/checkout/address.spec.ts", "body": "thanks!"}])
    t.say("Two follow-ups: Moritz wants `loading` reset when the query drops below 3 characters, and Priya says de-CH falls "
          "back to English for the count (I only added de, en and fr-CH). Fixing both.")
    t.edit(REPO + "/src/features/checkout/AddressAutocomplete.tsx", "    if (value.length < 3) {\n      setSuggestions([]);\n      return;",
           "    if (value.length < 3) {\n      setSuggestions([]);\n      setLoading(false);\n      return;")
    t.edit(REPO + "/messages/de-CH.json", '"noResults": ', '"loadingSuggestions": "Vorschläge werden geladen",\n      "suggestionCount": "{count, plural, one {# Vorschlag} other {# Vorschläge}}",\n      "noResults": ')
    head1 = hexs(r, 40)
    t.sh("npx vitest run src/features/checkout && git commit -am 'fixup! checkout: reset loading below 3 chars, de-CH strings' && git push origin lee/checkout-address-autocomplete",
         " RUN  v1.4.0 /Users/lee/code/storefront\n\n ✓ src/features/checkout/AddressAutocomplete.test.tsx  (9 tests) 402ms\n ✓ src/features/checkout/CheckoutForm.test.tsx  (12 tests) 911ms\n"
         " ✓ src/features/checkout/PaymentStep.test.tsx  (7 tests) 230ms\n ✓ src/features/checkout/ShippingStep.test.tsx  (6 tests) 188ms\n ✓ src/features/checkout/Summary.test.tsx  (4 tests) 97ms\n\n"
         " Test Files  5 passed (5)\n      Tests  38 passed (38)\n   Duration  4.12s\n"
         f"[lee/checkout-address-autocomplete {head1[:7]}] fixup! checkout: reset loading below 3 chars, de-CH strings\n 2 files changed, 3 insertions(+)\n",
         stderr=f"To github.com:acme-shop/storefront.git\n   {hexs(r, 7)}..{head1[:7]}  lee/checkout-address-autocomplete -> lee/checkout-address-autocomplete\n", duration_ms=9100)
    t.tool("github_add_issue_comment", {"repo": GH, "issue_number": 1289, "body": "@mfischer loading now resets below 3 chars; @priya-a11y de-CH has the strings now (" + head1[:7] + ")."},
           {"id": 2051240077, "html_url": "https://github.com/acme-shop/storefront/pull/1289#issuecomment-2051240077"}, request_id="gh-comment-2051240077")
    t.tool("github_list_check_runs", {"repo": GH, "ref": head1},
           {"total_count": 6, "check_runs": [
               {"name": "lint", "conclusion": "success", "status": "completed"}, {"name": "typecheck", "conclusion": "success", "status": "completed"},
               {"name": "unit", "conclusion": "success", "status": "completed", "output": {"summary": "1,942 passed"}},
               {"name": "e2e (chromium)", "conclusion": "success", "status": "completed", "output": {"summary": "18 passed"}},
               {"name": "UI Tests (Chromatic)", "conclusion": "action_required", "status": "completed", "output": {"summary": "2 changes must be accepted (de-CH count text)"}},
               {"name": "Vercel Preview", "conclusion": "success", "status": "completed", "details_url": "https://storefront-git-lee-checkout-address-autocomplete-acme-shop.vercel.app"}]})
    t.say(f"Both fixed and pushed as {head1[:7]} (plain push), replied on the PR. CI is green again; Chromatic has 2 new "
          "changes (the de-CH count text) for Priya to accept.")
    u8 = t.user("Everyone approved and Priya accepted the Chromatic changes. Squash-merge it please.")
    t.tool("github_get_pull_request", {"repo": GH, "pull_number": 1289},
           {"number": 1289, "state": "open", "mergeable": True, "mergeable_state": "clean", "review_decision": "APPROVED",
            "head": {"ref": "lee/checkout-address-autocomplete", "sha": head1},
            "reviews": [{"user": {"login": "mfischer"}, "state": "APPROVED", "body": "Nice, the AbortController cleanup reads well."},
                        {"user": {"login": "priya-a11y"}, "state": "APPROVED", "body": "VoiceOver announces loading and the count now. Accepted the Chromatic diffs."},
                        {"user": {"login": "jkowalski"}, "state": "APPROVED", "body": ""}]})
    c_merge = t.call("github_merge_pull_request", {"repo": GH, "pull_number": 1289, "merge_method": "squash", "sha": head1,
                                                    "commit_title": "Checkout: address autocomplete (DE, AT, CH) (#1289)"}, key="sf-merge-1289")
    t.res(c_merge, outcome="timeout", error="PUT /repos/acme-shop/storefront/pulls/1289/merge: 502 Bad Gateway after 10s")
    t.say("GitHub returned 502 on the merge. Merges sometimes complete anyway; I'll check the PR before retrying.")
    u9 = t.user("Check. If it's merged, delete the branch.")
    t.decide("sf-d6-merge-unknown", [
        P_state(c_merge, "unknown", "the merge call hit a 502: unknown outcome"),
        P_next("github_get_pull_request", {"pull_number": 1289, "repo": GH}, "check the PR state"),
        P_next("github_merge_pull_request", {"sha": head1}, "if it must be retried, the head sha pins what gets merged"),
        P_con(u1, "don't force-push", "deleting the branch is fine after the merge, rewriting it never was"),
    ])
    merge_sha = hexs(r, 40)
    t.tool("github_get_pull_request", {"repo": GH, "pull_number": 1289},
           {"number": 1289, "state": "closed", "merged": True, "merged_at": "2024-04-15T09:02:51Z", "merge_commit_sha": merge_sha,
            "merged_by": {"login": "lee-ng"}, "head": {"ref": "lee/checkout-address-autocomplete", "sha": head1}})
    t.status_query(c_merge, "succeeded", {"merged": True, "merge_commit_sha": merge_sha}, request_id="gh-merge-1289")
    c_del = t.call("github_delete_branch", {"repo": GH, "branch": "lee/checkout-address-autocomplete"}, key="sf-del-lee-checkout-address-autocomplete")
    ap = "apr_sf_delete_branch"
    t.approval(ap, "requested", c_del.seq, action=f"delete branch lee/checkout-address-autocomplete on {GH}")
    t.say(f"It was merged (squash commit {merge_sha[:7]} at 09:02Z), so no retry. Deleting the head branch needs your "
          "confirmation, it can't be undone from here.")
    u10 = t.user("One sec, before that: is there anything on my local branch that isn't on the remote? I had a scratch commit somewhere.")
    t.decide("sf-d7-before-delete", [
        P_pending("the deletion approval is still open", approval_id=ap),
        P_state(c_merge, "succeeded", "the merge is confirmed", request_id="gh-merge-1289"),
        P_next("bash", {"branch": "lee/checkout-address-autocomplete"}, "compare local and remote of the head branch"),
        P_fact("cwd", REPO, "still in the storefront repo", superseded=["/Users/lee"]),
    ])
    t.sh("git fetch origin && git log --oneline origin/lee/checkout-address-autocomplete..lee/checkout-address-autocomplete && git stash list && git reflog -8",
         "stash@{0}: WIP on lee/checkout-address-autocomplete: 1d4e9aa checkout: postal code validation experiment\n"
         f"{head1[:7]} HEAD@{{0}}: commit: fixup! checkout: reset loading below 3 chars, de-CH strings\n"
         f"{hexs(r, 7)} HEAD@{{1}}: commit: fixup! checkout: translated label, aria-live loading, index from combobox, mock API in e2e\n"
         f"{hexs(r, 7)} HEAD@{{2}}: merge origin/main: Merge made by the 'ort' strategy.\n{hexs(r, 7)} HEAD@{{3}}: commit: fixup! checkout: debounce address search, abort stale requests\n"
         f"{head0[:7]} HEAD@{{4}}: pull --ff-only: Fast-forward\n{hexs(r, 7)} HEAD@{{5}}: checkout: moving from main to lee/checkout-address-autocomplete\n")
    t.say("No local commits beyond the remote, but there's a stash: 'WIP ... postal code validation experiment'. Deleting "
          "the remote branch doesn't touch it; stashes are local. Want me to keep it on a branch to be safe?")
    u11 = t.user("Yes, put the stash on a local branch lee/postal-code-experiment, then go ahead with the deletion.")
    t.sh("git stash branch lee/postal-code-experiment stash@{0} && git switch main && git pull --ff-only",
         "On branch lee/postal-code-experiment\nChanges not staged for commit:\n  modified:   src/lib/address/normalize.ts\n  modified:   src/lib/address/normalize.test.ts\n\n"
         "Dropped stash@{0} (" + hexs(r, 40) + ")\n", stderr="Switched to a new branch 'lee/postal-code-experiment'\nerror: Your local changes to the following files would be overwritten by checkout:\n"
         "\tsrc/lib/address/normalize.ts\n\tsrc/lib/address/normalize.test.ts\nPlease commit your changes or stash them before you switch branches.\nAborting\n",
         exit_code=1)
    t.sh("git add -A && git commit -m 'wip: postal code validation experiment' && git switch main && git pull --ff-only",
         "[lee/postal-code-experiment " + hexs(r, 7) + "] wip: postal code validation experiment\n 2 files changed, 44 insertions(+), 3 deletions(-)\n",
         stderr=f"Switched to branch 'main'\nYour branch is behind 'origin/main' by 14 commits, and can be fast-forwarded.\nUpdating {hexs(r, 7)}..{merge_sha[:7]}\nFast-forward\n")
    t.approval(ap, "granted", c_del.seq, granted_by="lee-ng")
    t.res(c_del, {"ref": "refs/heads/lee/checkout-address-autocomplete", "deleted": True, "status": 204}, request_id="gh-del-1289-head")
    t.sh("git branch -d lee/checkout-address-autocomplete && git branch -vv",
         "Deleted branch lee/checkout-address-autocomplete (was " + head1[:7] + ").\n"
         f"  lee/postal-code-experiment {hexs(r, 7)} wip: postal code validation experiment\n* main                       {merge_sha[:7]} [origin/main] Checkout: address autocomplete (DE, AT, CH) (#1289)\n")
    t.sh("curl -s https://storefront.acme-shop.example/api/health && curl -s -o /dev/null -w '%{http_code} %{time_total}s\\n' https://storefront.acme-shop.example/de/checkout",
         '{"status":"ok","commit":"' + merge_sha[:7] + '","region":"fra1","deployedAt":"2024-04-15T09:06:40.118Z"}\n200 0.412s\n', duration_ms=900)
    t.say("The stash is now a commit on local branch lee/postal-code-experiment; the remote head branch is deleted and the "
          "local one too. main is at the squash commit.")
    return t


# --------------------------------------------------------------------------------------
# 09: RDS minor upgrade via Terraform Cloud; change ticket; AWS drift vs the plan; apply timeout
# --------------------------------------------------------------------------------------
RDS_MAIN_TF = '''terraform {
  required_version = ">= 1.6.0"
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.40" }
  }
  cloud {
    organization = "acme-infra"
    workspaces { tags = ["orders-rds"] }
  }
}

provider "aws" {
  region = var.region
  default_tags { tags = { team = "orders", env = var.env, managed_by = "terraform" } }
}

resource "aws_db_parameter_group" "orders" {
  name_prefix = "orders-${var.env}-pg15-"
  family      = "postgres15"

  parameter {
    name  = "max_connections"
    value = var.max_connections
    apply_method = "pending-reboot"
  }
  parameter {
    name  = "log_min_duration_statement"
    value = "500"
  }
  parameter {
    name  = "shared_preload_libraries"
    value = "pg_stat_statements,auto_explain"
    apply_method = "pending-reboot"
  }
  lifecycle { create_before_destroy = true }
}

resource "aws_db_instance" "orders" {
  identifier                  = "orders-${var.env}"
  engine                      = "postgres"
  engine_version              = var.engine_version
  instance_class              = var.instance_class
  allocated_storage           = var.allocated_storage
  max_allocated_storage       = var.allocated_storage * 2
  storage_type                = "gp3"
  multi_az                    = var.multi_az
  db_subnet_group_name        = "orders-${var.env}"
  vpc_security_group_ids      = [data.aws_security_group.orders_db.id]
  parameter_group_name        = aws_db_parameter_group.orders.name
  auto_minor_version_upgrade  = true
  allow_major_version_upgrade = false
  apply_immediately           = var.apply_immediately
  maintenance_window          = "Mon:23:00-Tue:00:00"
  backup_window               = "01:00-01:45"
  backup_retention_period     = 14
  deletion_protection         = true
  performance_insights_enabled = true
  copy_tags_to_snapshot       = true
  skip_final_snapshot         = false
  final_snapshot_identifier   = "orders-${var.env}-final"
}
'''


def tf_plan_text(rng, env, from_ver, to_ver, pg_old, pg_new, maxconn_old, maxconn_new):
    return (f"Terraform v1.7.5\non linux_amd64\nInitializing plugins and modules...\n"
            f"aws_db_parameter_group.orders: Refreshing state... [id=orders-{env}-pg15-{pg_old}]\n"
            f"data.aws_security_group.orders_db: Reading...\ndata.aws_security_group.orders_db: Read complete after 0s [id=sg-0{hexs(rng, 16)}]\n"
            f"aws_db_instance.orders: Refreshing state... [id=db-{hexs(rng, 26).upper()}]\n\n"
            "Terraform used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:\n"
            "  + create\n  ~ update in-place\n+/- create replacement and then destroy\n\nTerraform will perform the following actions:\n\n"
            "  # aws_db_instance.orders will be updated in-place\n  ~ resource \"aws_db_instance\" \"orders\" {\n"
            f"      ~ engine_version                        = \"{from_ver}\" -> \"{to_ver}\"\n        id                                    = \"db-{hexs(rng, 26).upper()}\"\n"
            f"        identifier                            = \"orders-{env}\"\n      ~ parameter_group_name                  = \"orders-{env}-pg15-{pg_old}\" -> (known after apply)\n"
            "        tags                                  = {}\n        # (58 unchanged attributes hidden)\n    }\n\n"
            "  # aws_db_parameter_group.orders must be replaced\n+/- resource \"aws_db_parameter_group\" \"orders\" {\n"
            f"      ~ arn         = \"arn:aws:rds:eu-west-1:418220117301:pg:orders-{env}-pg15-{pg_old}\" -> (known after apply)\n"
            f"      ~ id          = \"orders-{env}-pg15-{pg_old}\" -> (known after apply)\n      ~ name        = \"orders-{env}-pg15-{pg_old}\" -> (known after apply)\n"
            "        # (4 unchanged attributes hidden)\n\n      - parameter {\n          - apply_method = \"pending-reboot\" -> null\n"
            f"          - name         = \"max_connections\" -> null\n          - value        = \"{maxconn_old}\" -> null\n        }}\n"
            f"      + parameter {{\n          + apply_method = \"pending-reboot\"\n          + name         = \"max_connections\"\n          + value        = \"{maxconn_new}\"\n        }}\n\n"
            "        # (2 unchanged blocks hidden)\n    }\n\nPlan: 1 to add, 1 to change, 1 to destroy.\n")


def t09() -> Traj:
    t = Traj(9, "rds-minor-upgrade", "ws2-rds-minor-upgrade",
             "Orders RDS 15.4 -> 15.6 through Terraform Cloud: staging, a change ticket, a prod plan gone stale by AWS, an apply that times out",
             ["workspace names, a change ticket and a maintenance window typed once by the user, needed hours later",
              "irreversible Terraform Cloud applies behind approvals; one approval stays open while the user asks something",
              "the prod plan (from Terraform state) says 15.4 while AWS reports 15.5 for the same instance, far apart",
              "a prod apply whose confirm call times out and is settled by a status query",
              "the working directory moves between the staging and prod stacks of a live-infra repo"],
             "An SRE has the agent upgrade a Postgres RDS instance through Terraform Cloud, following a change "
             "ticket; AWS's auto minor upgrade moved prod between the plan and the maintenance window.",
             seed=909, home="/home/dmitri", cwd="/home/dmitri", prefix="tf")
    r = t.rng
    REPO = "/home/dmitri/src/infra-live"
    STG = REPO + "/envs/staging/eu-west-1/rds-orders"
    PRD = REPO + "/envs/prod/eu-west-1/rds-orders"
    u1 = t.user("AWS is deprecating Postgres 15.4 on RDS, so orders DB goes to 15.6. Change ticket CHG-3318. TFC workspaces are "
                "orders-rds-staging and orders-rds-prod. Rules: applies only through Terraform Cloud, never terraform apply from a "
                "laptop, and prod only inside tonight's window, 02:00-04:00 UTC. Also raise max_connections to 800 while we're at it, "
                "since we'll reboot anyway. Repo: ~/src/infra-live.")
    t.fact("change_ticket", "CHG-3318")
    t.fact("maintenance_window", "02:00-04:00 UTC")
    t.tool("jira_get_issue", {"issue_key": "CHG-3318", "fields": ["summary", "status", "customfield_12001", "customfield_12002", "description", "comment"]},
           {"key": "CHG-3318", "fields": {
               "summary": "orders RDS (staging, prod): Postgres 15.4 -> 15.6, max_connections 800", "status": {"name": "Approved"},
               "customfield_12001": {"value": "Normal change"}, "customfield_12002": "2024-06-11T02:00:00Z/2024-06-11T04:00:00Z",
               "description": "Risk: medium (reboot, ~5 min write downtime on prod with Multi-AZ failover). Rollback: none for engine "
                              "version (restore from snapshot); parameter group revert via TF. Pre-checks: snapshot, pg_stat_activity < 300.",
               "comment": {"comments": [{"author": {"displayName": "CAB bot"}, "created": "2024-06-10T11:00:04.000+0000",
                                         "body": "Approved by CAB (Wed board). Implementer: Dmitri Volkov."}]}}})
    t.sh("cd ~/src/infra-live && git pull --ff-only && ls envs envs/*/eu-west-1",
         "Already up to date.\nenvs:\ndev\nprod\nstaging\n\nenvs/dev/eu-west-1:\nbastion\neks\nrds-orders\nredis-sessions\nvpc\n\n"
         "envs/prod/eu-west-1:\nbastion\ncloudfront\neks\nrds-orders\nrds-payments\nredis-sessions\ns3-exports\nvpc\n\n"
         "envs/staging/eu-west-1:\nbastion\neks\nrds-orders\nrds-payments\nredis-sessions\nvpc\n", duration_ms=1320)
    t.sh("git log --oneline -8 -- envs/*/eu-west-1/rds-orders modules/rds",
         "".join(f"{hexs(r, 8)} {m}\n" for m in ["orders-rds: performance insights on (OPS-4012)", "orders-rds prod: 1500 GB, max 3000 (CHG-3190)",
                                                  "rds: gp3 everywhere (CHG-3102)", "orders-rds: pg_stat_statements + auto_explain",
                                                  "orders-rds staging: db.r6g.large", "orders-rds: deletion_protection", "orders-rds: postgres 15.4 (CHG-2950)",
                                                  "orders-rds: move to TFC workspaces"]))
    t.sh("cd envs/staging/eu-west-1/rds-orders && ls -la && cat terraform.tfvars",
         ls_la(r, [".terraform.lock.hcl", "backend.tf", "data.tf", "main.tf", "outputs.tf", "terraform.tfvars", "variables.tf"], owner="dmitri", group="dmitri", month="May")
         + 'env               = "staging"\nregion            = "eu-west-1"\nengine_version    = "15.4"\ninstance_class    = "db.r6g.large"\n'
           'allocated_storage = 200\nmulti_az          = false\nmax_connections   = 400\napply_immediately = true\n')
    t.read(STG + "/main.tf", RDS_MAIN_TF)
    t.read(STG + "/variables.tf",
           'variable "env" {\n  type = string\n}\n\nvariable "region" {\n  type    = string\n  default = "eu-west-1"\n}\n\n'
           'variable "engine_version" {\n  type        = string\n  description = "Postgres minor version, e.g. 15.6. Major upgrades need allow_major_version_upgrade."\n'
           '  validation {\n    condition     = can(regex("^15\\\\.[0-9]+$", var.engine_version))\n    error_message = "Only Postgres 15.x is allowed in this stack."\n  }\n}\n\n'
           'variable "instance_class" {\n  type = string\n}\n\nvariable "allocated_storage" {\n  type = number\n}\n\n'
           'variable "multi_az" {\n  type    = bool\n  default = true\n}\n\nvariable "max_connections" {\n  type        = number\n'
           '  description = "Static parameter; changing it needs a reboot (we use pending-reboot)."\n  validation {\n'
           '    condition     = var.max_connections >= 100 && var.max_connections <= 2000\n    error_message = "max_connections must be between 100 and 2000."\n  }\n}\n\n'
           'variable "apply_immediately" {\n  type        = bool\n  default     = false\n  description = "true: modifications happen at apply time, not in the RDS maintenance window"\n}\n')
    t.tool("aws_rds_describe", {"db_instance_identifier": "orders-staging"},
           {"DBInstances": [{"DBInstanceIdentifier": "orders-staging", "Engine": "postgres", "EngineVersion": "15.4", "DBInstanceClass": "db.r6g.large",
                             "DBInstanceStatus": "available", "MultiAZ": False, "AutoMinorVersionUpgrade": True,
                             "PreferredMaintenanceWindow": "mon:23:00-tue:00:00", "PendingModifiedValues": {},
                             "DBParameterGroups": [{"DBParameterGroupName": "orders-staging-pg15-20240212094411", "ParameterApplyStatus": "in-sync"}]}]})
    t.sh("aws rds describe-db-engine-versions --engine postgres --engine-version 15.4 --query 'DBEngineVersions[0].[Status,ValidUpgradeTarget[?IsMajorVersionUpgrade==`false`].EngineVersion]' --output json",
         '[\n    "deprecated",\n    [\n        "15.5",\n        "15.6",\n        "15.7"\n    ]\n]\n', duration_ms=1720)
    t.sh("aws rds describe-db-engine-versions --engine postgres --engine-version 15.6 --query 'DBEngineVersions[0].{status:Status,default:IsDefault,family:DBParameterGroupFamily,desc:DBEngineVersionDescription}'",
         '{\n    "status": "available",\n    "default": false,\n    "family": "postgres15",\n    "desc": "PostgreSQL 15.6-R1"\n}\n', duration_ms=1380)
    t.say("Staging is on 15.4 with max_connections 400 and apply_immediately = true. The change is two tfvars lines per env: "
          "engine_version 15.6 and max_connections 800. The parameter group is create_before_destroy with a name prefix, so "
          "changing max_connections replaces it.")
    u2 = t.user("OK, do staging: branch, change, PR, then a plan in TFC.")
    t.decide("tf-d1-staging", [
        P_fact("cwd", STG, "the shell is in the staging stack", superseded=[REPO]),
        P_con(u1, "never terraform apply from a laptop", "applies only through TFC"),
        P_next("edit_file", {"max_connections": "800"}, "the new max_connections the user asked for"),
    ])
    t.sh("git switch -c dmitri/chg-3318-orders-pg156", "", stderr="Switched to a new branch 'dmitri/chg-3318-orders-pg156'\n")
    t.edit(STG + "/terraform.tfvars", 'engine_version    = "15.4"', 'engine_version    = "15.6"')
    t.edit(STG + "/terraform.tfvars", "max_connections   = 400", "max_connections   = 800")
    t.sh("terraform fmt -check && terraform init -backend=false -input=false >/dev/null && terraform validate",
         "Success! The configuration is valid.\n\n", duration_ms=8420)
    checks = []
    for cid, name, res in [("CKV_AWS_16", "Ensure all data stored in the RDS is securely encrypted at rest", "PASSED"),
                           ("CKV_AWS_17", "Ensure all data stored in RDS is not publicly accessible", "PASSED"),
                           ("CKV_AWS_118", "Ensure that enhanced monitoring is enabled for Amazon RDS instances", "FAILED"),
                           ("CKV_AWS_129", "Ensure that respective logs of Amazon RDS are enabled", "FAILED"),
                           ("CKV_AWS_133", "Ensure that RDS instances has backup policy", "PASSED"),
                           ("CKV_AWS_157", "Ensure that RDS instances have Multi-AZ enabled", "FAILED"),
                           ("CKV_AWS_161", "Ensure RDS database has IAM authentication enabled", "FAILED"),
                           ("CKV_AWS_226", "Ensure DB instance gets all minor upgrades automatically", "PASSED"),
                           ("CKV_AWS_293", "Ensure that AWS database instances have deletion protection enabled", "PASSED"),
                           ("CKV_AWS_353", "Ensure that RDS instances have performance insights enabled", "PASSED")]:
        checks.append(f"Check: {cid}: \"{name}\"\n\t{res} for resource: aws_db_instance.orders\n\tFile: /main.tf:38-64")
    t.sh("checkov -d . --framework terraform --compact --quiet --skip-check CKV2_AWS_30,CKV2_AWS_60 || true",
         "terraform scan results:\n\nPassed checks: 6, Failed checks: 4, Skipped checks: 2\n\n" + "\n".join(c for c in checks if "FAILED" in c)
         + "\n\n(baseline .checkov.baseline.json lists all 4 as accepted for rds-orders: CKV_AWS_118, CKV_AWS_129, CKV_AWS_157 (staging only), CKV_AWS_161)\n",
         duration_ms=6220)
    sha = hexs(r, 40)
    t.sh("git commit -am 'orders-rds staging: postgres 15.6, max_connections 800 (CHG-3318)' && git push -u origin dmitri/chg-3318-orders-pg156",
         f"[dmitri/chg-3318-orders-pg156 {sha[:7]}] orders-rds staging: postgres 15.6, max_connections 800 (CHG-3318)\n 1 file changed, 2 insertions(+), 2 deletions(-)\n",
         stderr="To github.com:acme-infra/infra-live.git\n * [new branch]      dmitri/chg-3318-orders-pg156 -> dmitri/chg-3318-orders-pg156\n", duration_ms=2300)
    t.tool("github_create_pull_request", {"repo": "acme-infra/infra-live", "head": "dmitri/chg-3318-orders-pg156", "base": "main",
                                          "title": "CHG-3318: orders RDS postgres 15.6, max_connections 800", "body": "Staging first; prod in the 2024-06-11 02:00-04:00 UTC window."},
           {"number": 2718, "html_url": "https://github.com/acme-infra/infra-live/pull/2718", "state": "open"})
    t.sh("tfc-cli workspaces show orders-rds-staging orders-rds-prod --fields name,terraform-version,working-directory,auto-apply,execution-mode,vcs-branch,locked",
         "NAME                 TERRAFORM  WORKING DIRECTORY                     AUTO-APPLY  EXECUTION  VCS BRANCH  LOCKED\n"
         "orders-rds-staging   1.7.5      envs/staging/eu-west-1/rds-orders     false       remote     main        false\n"
         "orders-rds-prod      1.7.5      envs/prod/eu-west-1/rds-orders        false       remote     main        false\n", duration_ms=1280)
    c_sr, _ = t.tool("tfc_create_run", {"workspace": "orders-rds-staging", "message": "CHG-3318 staging (PR #2718)", "is_destroy": False,
                                        "configuration_version": {"branch": "dmitri/chg-3318-orders-pg156", "commit": sha}},
                     {"data": {"id": "run-Stg8kQ2mV4xPz9aB", "type": "runs", "attributes": {"status": "pending", "message": "CHG-3318 staging (PR #2718)"}}},
                     request_id="tfc-req-11a0")
    _, s_splan = t.tool("tfc_get_run", {"run_id": "run-Stg8kQ2mV4xPz9aB", "include": ["plan"]},
                        {"data": {"id": "run-Stg8kQ2mV4xPz9aB", "attributes": {"status": "planned", "has-changes": True, "is-confirmable": True,
                                                                              "actions": {"is-confirmable": True, "is-discardable": True}},
                                  "relationships": {"plan": {"data": {"id": "plan-Qm2v9XcT1", "attributes": {"resource-additions": 1, "resource-changes": 1, "resource-destructions": 1}}}}},
                         "plan_log": tf_plan_text(r, "staging", "15.4", "15.6", "20240212094411", "20240610142205", 400, 800)})
    t.say("Staging plan run-Stg8kQ2mV4xPz9aB is planned: engine_version 15.4 -> 15.6 in place, parameter group replaced "
          "(max_connections 400 -> 800). 1 add, 1 change, 1 destroy (the old parameter group).")
    u3 = t.user("Looks right. Apply staging.")
    c_sa = t.call("tfc_apply_run", {"run_id": "run-Stg8kQ2mV4xPz9aB", "comment": "CHG-3318 staging"}, key="tf-apply-run-Stg8kQ2mV4xPz9aB")
    ap1 = "apr_tf_apply_staging"
    t.approval(ap1, "requested", c_sa.seq, action="apply run-Stg8kQ2mV4xPz9aB on orders-rds-staging (reboots orders-staging)")
    t.say("Confirming a TFC apply can't be undone (the engine upgrade is one-way), so I need your explicit OK for "
          "run-Stg8kQ2mV4xPz9aB on orders-rds-staging.")
    u4 = t.user("Before I OK it: is anything on staging connected right now? QA said they might run a load test today.")
    t.decide("tf-d2-staging-approval", [
        P_pending("the staging apply approval is open", approval_id=ap1),
        P_pending("the apply call has not run", call=c_sa),
        P_next("bash", {"host": "orders-staging"}, "check connections on the staging instance"),
    ])
    t.sh("psql \"host=orders-staging.c8zq1x2y3w4v.eu-west-1.rds.amazonaws.com dbname=orders user=sre_readonly sslmode=require\" -X -c "
         "\"select usename, application_name, state, count(*) from pg_stat_activity where datname = 'orders' group by 1, 2, 3 order by 4 desc\"",
         "   usename    |   application_name    | state  | count\n--------------+-----------------------+--------+-------\n"
         " orders_app   | orders-api            | idle   |    38\n orders_app   | orders-worker         | idle   |    12\n"
         " orders_app   | orders-api            | active |     2\n sre_readonly | psql                  | active |     1\n"
         " debezium     | debezium-orders-cdc   | idle   |     1\n(5 rows)\n", duration_ms=780)
    t.say("Only the usual background: orders-api and worker pools mostly idle (2 active), CDC and me. No load-test client.")
    u5 = t.user("Good, approved.")
    t.approval(ap1, "granted", c_sa.seq, granted_by="dmitri.volkov")
    t.res(c_sa, {"data": {"id": "run-Stg8kQ2mV4xPz9aB", "attributes": {"status": "confirmed"}}}, request_id="tfc-req-11b7")
    t.tool("tfc_get_run", {"run_id": "run-Stg8kQ2mV4xPz9aB", "include": ["apply"]},
           {"data": {"id": "run-Stg8kQ2mV4xPz9aB", "attributes": {"status": "applied", "status-timestamps": {"applying-at": "2024-06-10T14:31:02Z", "applied-at": "2024-06-10T14:49:40Z"}}},
            "apply_log": "aws_db_parameter_group.orders: Creating...\naws_db_parameter_group.orders: Creation complete after 2s [id=orders-staging-pg15-20240610143104]\n"
                         "aws_db_instance.orders: Modifying... [id=db-" + hexs(r, 26).upper() + "]\n"
                         + "".join(f"aws_db_instance.orders: Still modifying... [{m}m{sec}s elapsed]\n" for m, sec in [(2, 0), (5, 10), (8, 20), (11, 30), (14, 40), (17, 50)])
                         + "aws_db_instance.orders: Modifications complete after 18m31s\naws_db_parameter_group.orders (deposed object 4e1f0c2a): Destroying...\n"
                           "aws_db_parameter_group.orders: Destruction complete after 1s\n\nApply complete! Resources: 1 added, 1 changed, 1 destroyed.\n"})
    t.sh("psql \"host=orders-staging.c8zq1x2y3w4v.eu-west-1.rds.amazonaws.com dbname=orders user=sre_readonly sslmode=require\" -X -At -c 'select version()' -c 'show max_connections'",
         "PostgreSQL 15.6 on aarch64-unknown-linux-gnu, compiled by gcc (GCC) 7.3.1 20180712 (Red Hat 7.3.1-6), 64-bit\n800\n", duration_ms=610)
    t.sh("curl -s https://orders-api.staging.acme.internal/health/ready && for i in 1 2 3; do curl -s -o /dev/null -w '%{http_code} %{time_total}\\n' -X POST "
         "https://orders-api.staging.acme.internal/v1/orders -H 'content-type: application/json' -d @test/fixtures/order-smoke.json; done",
         '{"status":"ready","checks":{"db":{"status":"up","latency_ms":3,"server_version":"15.6"},"redis":{"status":"up"},"kafka":{"status":"up"}}}\n'
         "201 0.184\n201 0.171\n201 0.169\n", duration_ms=2100)
    t.say("Staging applied in 18.5 min: PostgreSQL 15.6, max_connections 800. orders-api on staging is ready and creates orders.")
    t.subtask_end("staging on 15.6 via run-Stg8kQ2mV4xPz9aB")
    # prod prep
    u6 = t.user("Great. Prepare prod the same way and queue the prod plan now so we can review it before tonight. No apply yet.")
    t.decide("tf-d3-prod-plan", [
        P_next("tfc_create_run", {"workspace": "orders-rds-prod"}, "the prod workspace named at the start"),
        P_con(u1, "prod only inside tonight's window", "plan now, apply later"),
        P_fact("cwd", STG, "still in the staging stack; prod is ../../../prod/eu-west-1/rds-orders"),
    ])
    t.sh("cd ../../../prod/eu-west-1/rds-orders && pwd && cat terraform.tfvars",
         PRD + '\nenv               = "prod"\nregion            = "eu-west-1"\nengine_version    = "15.4"\ninstance_class    = "db.r6g.2xlarge"\n'
         'allocated_storage = 1500\nmulti_az          = true\nmax_connections   = 500\napply_immediately = true\n')
    t.edit(PRD + "/terraform.tfvars", 'engine_version    = "15.4"', 'engine_version    = "15.6"')
    t.edit(PRD + "/terraform.tfvars", "max_connections   = 500", "max_connections   = 800")
    sha2 = hexs(r, 40)
    t.sh("git commit -am 'orders-rds prod: postgres 15.6, max_connections 800 (CHG-3318)' && git push",
         f"[dmitri/chg-3318-orders-pg156 {sha2[:7]}] orders-rds prod: postgres 15.6, max_connections 800 (CHG-3318)\n 1 file changed, 2 insertions(+), 2 deletions(-)\n",
         stderr=f"To github.com:acme-infra/infra-live.git\n   {sha[:7]}..{sha2[:7]}  dmitri/chg-3318-orders-pg156 -> dmitri/chg-3318-orders-pg156\n", duration_ms=2010)
    t.tool("tfc_create_run", {"workspace": "orders-rds-prod", "message": "CHG-3318 prod (PR #2718)", "is_destroy": False,
                              "configuration_version": {"branch": "dmitri/chg-3318-orders-pg156", "commit": sha2}},
           {"data": {"id": "run-Prd3nW7cR1yLq5eK", "type": "runs", "attributes": {"status": "pending"}}}, request_id="tfc-req-12c4")
    _, s_pplan = t.tool("tfc_get_run", {"run_id": "run-Prd3nW7cR1yLq5eK", "include": ["plan"]},
                        {"data": {"id": "run-Prd3nW7cR1yLq5eK", "attributes": {"status": "planned", "has-changes": True, "is-confirmable": True,
                                                                              "created-at": "2024-06-10T15:10:44Z"}},
                         "plan_log": tf_plan_text(r, "prod", "15.4", "15.6", "20231108101502", "20240610151049", 500, 800)})
    t.tool("github_list_check_runs", {"repo": "acme-infra/infra-live", "ref": sha2},
           {"total_count": 4, "check_runs": [
               {"name": "terraform fmt/validate", "status": "completed", "conclusion": "success"},
               {"name": "tflint", "status": "completed", "conclusion": "success", "output": {"summary": "0 issues (aws ruleset 0.30.0)"}},
               {"name": "checkov", "status": "completed", "conclusion": "success", "output": {"summary": "2 stacks, 0 new failures vs baseline"}},
               {"name": "Terraform Cloud/acme-infra/orders-rds-prod", "status": "completed", "conclusion": "success",
                "output": {"title": "Plan: 1 to add, 1 to change, 1 to destroy", "summary": "speculative plan run-Spc6hJ1dQ8vNa4rE"}},
               {"name": "Terraform Cloud/acme-infra/orders-rds-staging", "status": "completed", "conclusion": "neutral",
                "output": {"title": "No changes", "summary": "speculative plan run-Spc2kB7wE3tRy9uM: infrastructure matches configuration"}}]})
    t.say("Prod plan run-Prd3nW7cR1yLq5eK (15:10Z): engine_version 15.4 -> 15.6, parameter group replaced (max_connections "
          "500 -> 800), Multi-AZ so the reboot fails over. Same shape as staging. It stays planned until tonight.")
    u7 = t.user("Thanks. Set the change ticket to Implementing and note staging is done. I'll be back at 2.")
    t.tool("jira_add_comment", {"issue_key": "CHG-3318", "body": "Staging done 14:49Z via TFC run-Stg8kQ2mV4xPz9aB: PostgreSQL 15.6, max_connections 800. "
                                                               "Prod plan run-Prd3nW7cR1yLq5eK queued for the 02:00-04:00 UTC window. PR #2718."},
           {"id": "412088", "created": "2024-06-10T15:14:02.000+0000"}, request_id="jira-412088")
    t.tool("jira_transition_issue", {"issue_key": "CHG-3318", "transition": "Implementing"},
           {"issue_key": "CHG-3318", "from_status": "Approved", "status": "Implementing"}, request_id="jira-chg-impl")
    t.say("CHG-3318 is Implementing with the staging result and the prod run id.")
    t.topic_switch("prod window")
    # --- at night
    u8 = t.user("02:04 UTC, I'm here. Do the pre-checks from the ticket and then apply prod.")
    t.decide("tf-d4-window", [
        P_next("tfc_apply_run", {"run_id": "run-Prd3nW7cR1yLq5eK"}, "the prod plan's run id from the afternoon"),
        P_con(u1, "02:00-04:00 UTC", "the window the apply must fit in"),
        P_fact("maintenance_window", "02:00-04:00 UTC", "typed once at the start"),
        P_next("aws_rds_describe", {"db_instance_identifier": "orders-prod"}, "pre-check the prod instance"),
    ])
    _, s_aws = t.tool("aws_rds_describe", {"db_instance_identifier": "orders-prod"},
                      {"DBInstances": [{"DBInstanceIdentifier": "orders-prod", "Engine": "postgres", "EngineVersion": "15.5", "DBInstanceClass": "db.r6g.2xlarge",
                                        "DBInstanceStatus": "available", "MultiAZ": True, "AutoMinorVersionUpgrade": True,
                                        "PreferredMaintenanceWindow": "mon:23:00-tue:00:00", "PendingModifiedValues": {},
                                        "DBParameterGroups": [{"DBParameterGroupName": "orders-prod-pg15-20231108101502", "ParameterApplyStatus": "in-sync"}],
                                        "LatestRestorableTime": "2024-06-11T01:59:12Z"}],
                       "Events": [{"Date": "2024-06-10T23:04:11Z", "Message": "Database instance patched: engine version 15.5 (auto minor version upgrade)"},
                                  {"Date": "2024-06-10T23:21:48Z", "Message": "Multi-AZ instance failover completed"}]})
    t.say("Stop before applying: AWS says orders-prod is on 15.5, not 15.4. Its own maintenance window (Mon 23:00 UTC) ran "
          "an auto minor version upgrade to 15.5 at 23:04 last night, with a failover. Our prod plan from 15:10 shows "
          "'15.4 -> 15.6' because it was made before that. The apply would probably still work, but it would apply a plan "
          "made against a different database than the one that exists now.")
    u9 = t.user("Ugh, auto minor upgrade. Discard that plan and do a fresh one, then we apply that. Still time.")
    t.decide("tf-d5-replan", [
        P_ev([s_pplan, s_aws], "the plan's 15.4 and AWS's 15.5 for the same instance"),
        P_next("tfc_create_run", {"workspace": "orders-rds-prod", "commit": sha2}, "same workspace and commit, new plan"),
        P_con(u1, "applies only through Terraform Cloud", "the re-plan is also in TFC"),
    ])
    t.sh("tfc-cli runs discard run-Prd3nW7cR1yLq5eK --comment 'stale: AWS auto-upgraded to 15.5 at 23:04Z' && tfc-cli runs list orders-rds-prod --limit 6",
         "Run run-Prd3nW7cR1yLq5eK discarded.\nID                     STATUS      SOURCE     CREATED               MESSAGE\n"
         "run-Prd3nW7cR1yLq5eK   discarded   tfe-api    2024-06-10T15:10:44Z  CHG-3318 prod (PR #2718)\n"
         "run-Spc6hJ1dQ8vNa4rE   planned     github     2024-06-10T15:09:58Z  speculative: PR #2718\n"
         "run-Prd1aZ8xV3kLm0pQ   applied     github     2024-05-21T09:02:14Z  orders-rds: performance insights on (OPS-4012)\n"
         "run-Prd7yT2nC5wQe8sA   applied     github     2024-04-30T08:44:51Z  orders-rds prod: 1500 GB, max 3000 (CHG-3190)\n"
         "run-Prd4mK9bF1hRt6dW   discarded   tfe-api    2024-04-29T16:20:03Z  CHG-3190 dry run\n"
         "run-Prd2pH6jD4gNs3vE   applied     github     2024-03-12T10:10:27Z  rds: gp3 everywhere (CHG-3102)\n", duration_ms=1620)
    t.sh("aws rds describe-pending-maintenance-actions --filters Name=db-instance-id,Values=orders-prod --output json",
         '{\n    "PendingMaintenanceActions": [\n        {\n            "ResourceIdentifier": "arn:aws:rds:eu-west-1:418220117301:db:orders-prod",\n'
         '            "PendingMaintenanceActionDetails": [\n                {\n                    "Action": "system-update",\n'
         '                    "AutoAppliedAfterDate": "2024-07-15T00:00:00+00:00",\n                    "CurrentApplyDate": "2024-07-15T23:00:00+00:00",\n'
         '                    "Description": "New Operating System update is available"\n                }\n            ]\n        }\n    ]\n}\n', duration_ms=1190)
    t.sh("psql \"host=orders-prod.c8zq1x2y3w4v.eu-west-1.rds.amazonaws.com dbname=orders user=sre_readonly sslmode=require\" -X -c "
         "\"select count(*) as conns, count(*) filter (where state = 'active') as active from pg_stat_activity\" -c "
         "\"select snapshot_id from sre.manual_snapshots where created_at > now() - interval '10 minutes'\"",
         " conns | active\n-------+--------\n   212 |     19\n(1 row)\n\n snapshot_id\n-------------\n(0 rows)\n", duration_ms=690)
    t.sh("aws rds create-db-snapshot --db-instance-identifier orders-prod --db-snapshot-identifier orders-prod-chg-3318-pre --tags Key=change,Value=CHG-3318 "
         "--query 'DBSnapshot.[DBSnapshotIdentifier,Status,EngineVersion]' --output text && aws rds wait db-snapshot-available --db-snapshot-identifier orders-prod-chg-3318-pre && echo available",
         "orders-prod-chg-3318-pre\tcreating\t15.5\navailable\n", duration_ms=512000)
    c_pr2, _ = t.tool("tfc_create_run", {"workspace": "orders-rds-prod", "message": "CHG-3318 prod re-plan after AWS auto minor upgrade", "is_destroy": False,
                                         "configuration_version": {"branch": "dmitri/chg-3318-orders-pg156", "commit": sha2}},
                      {"data": {"id": "run-Prd9tH4gZ6mXw2cD", "type": "runs", "attributes": {"status": "pending"}}}, request_id="tfc-req-13d9")
    _, s_plan2 = t.tool("tfc_get_run", {"run_id": "run-Prd9tH4gZ6mXw2cD", "include": ["plan"]},
                        {"data": {"id": "run-Prd9tH4gZ6mXw2cD", "attributes": {"status": "planned", "has-changes": True, "is-confirmable": True,
                                                                              "created-at": "2024-06-11T02:19:30Z"}},
                         "plan_log": tf_plan_text(r, "prod", "15.5", "15.6", "20231108101502", "20240611021935", 500, 800)})
    t.say("Pre-checks: 212 connections (19 active), under 300; snapshot orders-prod-chg-3318-pre is available (taken on "
          "15.5). New plan run-Prd9tH4gZ6mXw2cD: engine_version 15.5 -> 15.6, parameter group replacement as before.")
    u10 = t.user("Post a heads-up in #orders-oncall that the failover is coming, then apply it.")
    t.tool("slack_post_message", {"channel": "#orders-oncall", "text": ":warning: CHG-3318: orders-prod Postgres 15.5 -> 15.6 now (02:2x UTC). "
                                                                      "Multi-AZ failover, expect ~5 min of write errors from orders-api. Snapshot orders-prod-chg-3318-pre taken."},
           {"ok": True, "channel": "C05ORDONC", "ts": "1718072390.118402"}, request_id="slack-1718072390.118402")
    c_pa = t.call("tfc_apply_run", {"run_id": "run-Prd9tH4gZ6mXw2cD", "comment": "CHG-3318 prod"}, key="tf-apply-run-Prd9tH4gZ6mXw2cD")
    ap2 = "apr_tf_apply_prod"
    t.approval(ap2, "requested", c_pa.seq, action="apply run-Prd9tH4gZ6mXw2cD on orders-rds-prod (Multi-AZ failover, ~5 min writes down)")
    u11 = t.user("Yes, approved, go.")
    t.approval(ap2, "granted", c_pa.seq, granted_by="dmitri.volkov")
    t.res(c_pa, outcome="timeout", error="POST https://app.terraform.io/api/v2/runs/run-Prd9tH4gZ6mXw2cD/actions/apply: timeout after 30s")
    t.say("The confirm request to Terraform Cloud timed out. The apply may or may not have been queued; confirming twice "
          "is refused by TFC anyway, but I'll read the run's state rather than retry.")
    u12 = t.user("What's it doing?")
    t.decide("tf-d6-apply-unknown", [
        P_state(c_pa, "unknown", "the prod apply confirm timed out"),
        P_next("tfc_get_run", {"run_id": "run-Prd9tH4gZ6mXw2cD"}, "the fresh run, not the discarded one"),
        P_fact("change_ticket", "CHG-3318", "the ticket to update once this finishes"),
    ])
    t.tool("tfc_get_run", {"run_id": "run-Prd9tH4gZ6mXw2cD", "include": ["apply"]},
           {"data": {"id": "run-Prd9tH4gZ6mXw2cD", "attributes": {"status": "applying", "status-timestamps": {"confirmed-at": "2024-06-11T02:24:12Z", "applying-at": "2024-06-11T02:24:20Z"}}},
            "apply_log": "aws_db_parameter_group.orders: Creating...\naws_db_parameter_group.orders: Creation complete after 2s [id=orders-prod-pg15-20240611022422]\n"
                         "aws_db_instance.orders: Modifying... [id=db-" + hexs(r, 26).upper() + "]\naws_db_instance.orders: Still modifying... [2m0s elapsed]\n"})
    t.status_query(c_pa, "succeeded", {"run_id": "run-Prd9tH4gZ6mXw2cD", "status": "applying", "confirmed_at": "2024-06-11T02:24:12Z"},
                   request_id="tfc-req-14e2")
    t.say("The confirm went through at 02:24:12Z; the run is applying (new parameter group created, instance modifying).")
    base = 1718072400
    t.tool("metrics_query", {"query": 'sum by (code) (rate(http_requests_total{service="orders-api",route=~"/v1/orders.*",method="POST"}[1m]))',
                             "start": "2024-06-11T02:20:00Z", "end": "2024-06-11T02:50:00Z", "step": "120s"},
           {"status": "success", "data": {"resultType": "matrix", "result": [
               {"metric": {"code": "201"}, "values": [[base + i * 120, f"{(38.5 if i not in (9, 10) else (6.2 if i == 9 else 21.7)) + r.uniform(-2, 2):.2f}"] for i in range(16)]},
               {"metric": {"code": "503"}, "values": [[base + i * 120, f"{(0.0 if i not in (9, 10) else (31.9 if i == 9 else 14.8)):.2f}"] for i in range(16)]},
               {"metric": {"code": "409"}, "values": [[base + i * 120, f"{r.uniform(0.1, 0.6):.2f}"] for i in range(16)]}]}})
    t.say("orders-api saw the failover as expected: 503s for about four minutes around 02:38-02:42Z, then back to ~38 orders/s.")
    t.tool("tfc_get_run", {"run_id": "run-Prd9tH4gZ6mXw2cD", "include": ["apply"]},
           {"data": {"id": "run-Prd9tH4gZ6mXw2cD", "attributes": {"status": "applied", "status-timestamps": {"applied-at": "2024-06-11T02:51:03Z"}}},
            "apply_log": "".join(f"aws_db_instance.orders: Still modifying... [{m}m{sec}s elapsed]\n" for m, sec in [(4, 0), (8, 10), (12, 20), (16, 30), (20, 40), (24, 50)])
                         + "aws_db_instance.orders: Modifications complete after 26m38s\naws_db_parameter_group.orders (deposed object 9c2d11f0): Destroying...\n"
                           "aws_db_parameter_group.orders: Destruction complete after 1s\n\nApply complete! Resources: 1 added, 1 changed, 1 destroyed.\n"})
    t.sh("psql \"host=orders-prod.c8zq1x2y3w4v.eu-west-1.rds.amazonaws.com dbname=orders user=sre_readonly sslmode=require\" -X -At -c 'select version()' -c 'show max_connections' "
         "-c \"select count(*) from pg_stat_activity\"", "PostgreSQL 15.6 on aarch64-unknown-linux-gnu, compiled by gcc (GCC) 7.3.1 20180712 (Red Hat 7.3.1-6), 64-bit\n800\n231\n", duration_ms=640)
    ev = [("2024-06-11T02:24:31Z", "Applying modification to database instance parameter group"),
          ("2024-06-11T02:25:02Z", "Performing database upgrade on the secondary instance"), ("2024-06-11T02:33:44Z", "Database instance patched"),
          ("2024-06-11T02:37:58Z", "Multi-AZ instance failover started"), ("2024-06-11T02:38:40Z", "DB instance restarted"),
          ("2024-06-11T02:41:51Z", "Multi-AZ instance failover completed"), ("2024-06-11T02:42:09Z", "Performing database upgrade on the former primary"),
          ("2024-06-11T02:49:17Z", "Database instance patched"), ("2024-06-11T02:50:55Z", "Finished applying modification to DB parameter group")]
    t.sh("aws rds describe-events --source-type db-instance --source-identifier orders-prod --duration 60 --query 'Events[].[Date,Message]' --output text",
         "".join(f"{d}\t{m}\n" for d, m in ev), duration_ms=1410)
    pglog = []
    for i in range(14):
        ts = f"2024-06-11 02:{42 + i // 3}:{r.randint(0, 59):02d} UTC"
        pglog.append(r.choice([f"{ts}::@:[{r.randint(400, 900)}]:LOG:  checkpoint complete: wrote {r.randint(900, 9000)} buffers ({r.uniform(0.1, 2):.1f}%); 0 WAL file(s) added, 0 removed, {r.randint(1, 9)} recycled",
                               f"{ts}:10.40.{r.randint(1, 40)}.{r.randint(2, 250)}(5{r.randint(1000, 9999)}):orders_app@orders:[{r.randint(1000, 9999)}]:LOG:  duration: {r.uniform(500, 1900):.3f} ms  execute <unnamed>: select * from order_lines where order_id = $1",
                               f"{ts}:10.40.{r.randint(1, 40)}.{r.randint(2, 250)}(5{r.randint(1000, 9999)}):debezium@orders:[{r.randint(1000, 9999)}]:LOG:  starting logical decoding for slot \"debezium_orders\"",
                               f"{ts}::@:[{r.randint(400, 900)}]:LOG:  automatic analyze of table \"orders.public.orders\" system usage: CPU: user: 0.41 s, system: 0.02 s, elapsed: 0.61 s"]))
    t.sh("aws rds download-db-log-file-portion --db-instance-identifier orders-prod --log-file-name error/postgresql.log.2024-06-11-02 --starting-token 0 --output text | grep -v 'connection authorized' | tail -14",
         "\n".join(pglog) + "\n", duration_ms=2890)
    t.say("Prod applied at 02:51Z, inside the window: PostgreSQL 15.6, max_connections 800, 231 connections back. RDS events show "
          "the secondary upgraded first, failover 02:37:58-02:41:51Z, then the former primary; the Postgres log since then has "
          "only checkpoints, slow-query lines and the CDC slot reconnecting.")
    u13 = t.user("Close out the change ticket with the details, and merge the PR.")
    t.decide("tf-d7-close", [
        P_next("jira_add_comment", {"run": "run-Prd9tH4gZ6mXw2cD", "snapshot": "orders-prod-chg-3318-pre", "discarded": "run-Prd3nW7cR1yLq5eK"},
               "the applied run, the snapshot and the discarded stale run"),
        P_state(c_pa, "succeeded", "the timed-out confirm did go through", request_id="tfc-req-14e2"),
        P_next("github_merge_pull_request", {"pull_number": "2718"}, "the infra PR opened in the afternoon"),
        P_ev([s_aws], "AWS's 15.5 reading explains the re-plan in the ticket"),
    ])
    t.tool("jira_add_comment", {"issue_key": "CHG-3318", "body":
        "Prod done 02:51Z (window 02:00-04:00 UTC). Pre-checks: 212 conns, snapshot orders-prod-chg-3318-pre. Note: AWS auto minor upgrade "
        "had moved orders-prod to 15.5 at 23:04Z, so the afternoon plan run-Prd3nW7cR1yLq5eK (15.4 -> 15.6) was discarded and re-planned as "
        "run-Prd9tH4gZ6mXw2cD (15.5 -> 15.6), applied 02:24-02:51Z. Result: PostgreSQL 15.6, max_connections 800. PR #2718."},
           {"id": "412301", "created": "2024-06-11T02:55:40.000+0000"}, request_id="jira-412301")
    t.tool("jira_transition_issue", {"issue_key": "CHG-3318", "transition": "Done", "resolution": "Successful"},
           {"issue_key": "CHG-3318", "from_status": "Implementing", "status": "Done"}, request_id="jira-chg-done")
    t.tool("github_merge_pull_request", {"repo": "acme-infra/infra-live", "pull_number": 2718, "merge_method": "squash"},
           {"merged": True, "sha": hexs(r, 40), "message": "Pull Request successfully merged"}, request_id="gh-merge-2718")
    t.say("CHG-3318 is Done with the full record, and PR #2718 is merged so main matches what's deployed.")
    return t


# --------------------------------------------------------------------------------------
# 10: night on-call: Rust service panics after a release; hotfix from the tag, agent restart mid-canary
# --------------------------------------------------------------------------------------
def cargo_test_log(rng, crates):
    out = []
    total = 0
    for crate, tests in crates:
        out.append(f"     Running unittests src/lib.rs (target/debug/deps/{crate.replace('-', '_')}-{hexs(rng, 16)})\n")
        out.append(f"running {len(tests)} tests")
        for tname in tests:
            out.append(f"test {tname} ... ok")
        out.append(f"\ntest result: ok. {len(tests)} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in {rng.uniform(0.01, 2.5):.2f}s\n")
        total += len(tests)
    out.append(f"   Doc-tests route_planner\n\nrunning 3 tests\ntest src/eta/mod.rs - eta::Eta::from_segments (line 41) ... ok\n"
               f"test src/graph/mod.rs - graph::Graph::shortest (line 88) ... ok\ntest src/lib.rs - (line 12) ... ok\n\n"
               f"test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.92s\n")
    return "\n".join(out) + "\n"


def t10() -> Traj:
    t = Traj(10, "oncall-hotfix-route-planner", "ws2-oncall-hotfix-route-planner",
             "Night on-call: a Rust service panics after a release; hotfix from the release tag, canary interrupted by an agent restart, status page",
             ["a status page id, a canary rule and a release branch typed by the user; the branch is corrected later",
              "a commit id found on main, cherry-picked onto a hotfix branch cut from a tag",
              "the agent restarts while the canary deploy call is running: the call becomes unknown and is settled by a status query",
              "ids from PagerDuty, Sentry, Statuspage and the deploy service, used across the whole night",
              "a small context window: most of the session is far behind each late decision"],
             "An on-call engineer and the agent handle a 5xx spike: Sentry points at a panic, the fix is already on main, "
             "a hotfix release goes out through a canary while the status page and the incident are kept current.",
             seed=1010, home="/home/noor", cwd="/home/noor", prefix="rp", window=2048)
    r = t.rng
    REPO = "/home/noor/src/route-planner"
    IMG = "ghcr.io/acme-mobility/route-planner"
    u1 = t.user("Paged at 03:10: route-planner 5xx in eu. Incident is P7X2Q9M in PagerDuty. If we need the public status page, "
                "its page id is kctbh9vrtdwd. Release branch is release/2024.10. One rule tonight: canary first, and no full "
                "rollout until the canary has been clean for 15 minutes.")
    t.fact("statuspage_page_id", "kctbh9vrtdwd")
    t.fact("release_branch", "release/2024.10", {"service": "route-planner"})
    c_pd, _ = t.tool("pagerduty_get_incident", {"incident_id": "P7X2Q9M"},
                     {"incident": {"id": "P7X2Q9M", "incident_number": 23187, "title": "route-planner: 5xx ratio > 5% (eu-central-1)",
                                   "status": "triggered", "urgency": "high", "created_at": "2024-11-14T02:09:41Z",
                                   "service": {"id": "PRTPLN1", "summary": "route-planner"}, "assignments": [{"assignee": {"summary": "Noor Haddad"}}],
                                   "body": {"details": {"alertname": "RoutePlanner5xxHigh", "value": "0.183", "region": "eu-central-1",
                                                        "runbook": "https://runbooks.acme-mobility.io/route-planner/5xx"}}}})
    t.tool("pagerduty_update_incident", {"incident_id": "P7X2Q9M", "status": "acknowledged"},
           {"incident": {"id": "P7X2Q9M", "status": "acknowledged"}}, request_id="pd-ack-P7X2Q9M")
    _, s_sentry = t.tool("sentry_get_issue", {"issue_id": "ROUTE-PLANNER-4KQ", "include_latest_event": True},
                         {"id": "5102284417", "shortId": "ROUTE-PLANNER-4KQ", "title": "panicked at src/eta/traffic.rs:212:41: called `Option::unwrap()` on a `None` value",
                          "culprit": "route_planner::eta::traffic::apply_segment_speeds", "level": "fatal", "status": "unresolved",
                          "firstSeen": "2024-11-14T02:01:13Z", "lastSeen": "2024-11-14T02:14:40Z", "count": "18822", "userCount": 6411,
                          "firstRelease": {"version": "route-planner@2024.11.2"},
                          "latestEvent": {"eventID": "c41e2f0a9b7d4c1e8f3a6b5d2e1c0f9a", "tags": [{"key": "release", "value": "route-planner@2024.11.2"},
                                                                                                 {"key": "region", "value": "eu-central-1"}, {"key": "route", "value": "POST /v2/eta"}],
                                          "entries": [{"type": "exception", "data": {"values": [{"type": "panic", "value": "called `Option::unwrap()` on a `None` value",
                                                        "stacktrace": {"frames": [
                                                            {"function": "tokio::runtime::task::harness::poll_future", "filename": "harness.rs"},
                                                            {"function": "route_planner::api::eta::handler", "filename": "src/api/eta.rs", "lineno": 77},
                                                            {"function": "route_planner::eta::Eta::compute", "filename": "src/eta/mod.rs", "lineno": 133},
                                                            {"function": "route_planner::eta::traffic::apply_segment_speeds", "filename": "src/eta/traffic.rs", "lineno": 212}]}}]}}]}})
    crumbs = []
    for i in range(9):
        crumbs.append({"timestamp": f"2024-11-14T02:14:{30 + i:02d}.{r.randint(100, 999)}Z", "category": r.choice(["http", "redis", "traffic", "graph"]),
                       "level": "info", "message": r.choice([f"GET graph tile eu/{r.randint(1000, 9999)} hit", f"HERE segments fetched ({r.randint(100, 900)} of {r.randint(900, 1400)} edges covered)",
                                                             "profile lookup miss for edge " + str(r.randint(10 ** 8, 10 ** 9)), "redis GET rp:profile:weekday:02 ok",
                                                             f"route computed: {r.randint(40, 900)} edges"])})
    t.tool("sentry_get_issue", {"issue_id": "ROUTE-PLANNER-4KQ", "event_id": "c41e2f0a9b7d4c1e8f3a6b5d2e1c0f9a", "include": ["breadcrumbs", "request", "contexts"]},
           {"eventID": "c41e2f0a9b7d4c1e8f3a6b5d2e1c0f9a", "dateCreated": "2024-11-14T02:14:40Z",
            "request": {"method": "POST", "url": "https://route-planner.internal/v2/eta", "data": {"origin": [52.5208, 13.4095], "destination": [48.1374, 11.5755],
                                                                                                 "vehicle_profile": "van_3_5t", "departure_time": "2024-11-14T03:00:00Z"}},
            "contexts": {"runtime": {"name": "rustc", "version": "1.81.0"}, "os": {"name": "Linux", "kernel_version": "6.1.112"},
                         "trace": {"trace_id": hexs(r, 32), "span_id": hexs(r, 16), "op": "http.server"}},
            "breadcrumbs": {"values": crumbs}})
    t.tool("deploy_list", {"service": "route-planner", "environment": "production", "limit": 3},
           {"deploys": [{"deploy_id": "dep_rp_20241114_0158", "version": "2024.11.2", "state": "succeeded", "current": True, "started_at": "2024-11-14T01:58:02Z",
                         "by": "release-train", "image_digest": "sha256:" + hexs(r, 64)},
                        {"deploy_id": "dep_rp_20241107_0201", "version": "2024.11.1", "state": "succeeded", "current": False, "started_at": "2024-11-07T02:01:44Z"},
                        {"deploy_id": "dep_rp_20241031_0203", "version": "2024.10.4", "state": "succeeded", "current": False}]})
    t.say("The release train deployed 2024.11.2 at 01:58Z; Sentry's ROUTE-PLANNER-4KQ (18.8k events, 6.4k users) started "
          "02:01Z with release 2024.11.2: a panic at src/eta/traffic.rs:212, `Option::unwrap()` on None in "
          "apply_segment_speeds, on POST /v2/eta. So it's the release. Shall I open a status page incident?")
    runbook = ("# route-planner: 5xx ratio high\n\n**Owner:** mobility-routing (#routing-oncall)  \n**Dashboards:** Grafana `route-planner / overview`\n\n"
               "## First checks\n\n1. Was there a deploy in the last hour? `deploy_list route-planner production`. The release train deploys Thursdays 01:55 UTC.\n"
               "2. Sentry project `route-planner`: sort by first seen.\n3. Upstreams: HERE traffic feed (`traffic-feed-here`), graph tiles bucket, Redis `rp-cache`.\n\n"
               "## Mitigations\n\n- **Bad release:** roll back with the deploy service to the previous deploy id, *or* hotfix from the release tag "
               "(never from main: main may contain unreleased schema changes for the graph cache).\n- **Traffic feed down:** set `TRAFFIC_FEED_ENABLED=false`, "
               "ETAs fall back to profiles (accuracy -8% median).\n- **Redis:** restart is safe, cache warms in ~5 min.\n\n"
               "## Comms\n\n- Public status page component `ETA API` (7b1m5yq0xk2n) if customer-facing for > 10 min.\n- Post updates in #incidents every 30 min.\n")
    t.sh("curl -s https://runbooks.acme-mobility.io/route-planner/5xx.md", runbook, duration_ms=420)
    pods = ["NAME                             READY   STATUS    RESTARTS        AGE"]
    for i in range(12):
        pods.append(f"route-planner-6f9c7d5b8-{hexs(r, 5)}   1/1     Running   {r.randint(4, 19)} ({r.randint(1, 9)}m ago)   {r.randint(14, 19)}m")
    t.sh("kubectl --context prod-euc1 -n routing get pods -l app=route-planner && kubectl --context prod-euc1 -n routing logs deploy/route-planner --since=5m | grep -c panicked",
         "\n".join(pods) + "\n1842\n", duration_ms=2100)
    lg = []
    for i in range(10):
        ts = f"2024-11-14T02:{15 + i // 4}:{r.randint(0, 59):02d}.{r.randint(100000, 999999)}Z"
        if i % 3 == 0:
            lg.append(f"thread 'tokio-runtime-worker' panicked at src/eta/traffic.rs:212:41:\ncalled `Option::unwrap()` on a `None` value\n"
                      "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace")
        else:
            lg.append('{"timestamp":"%s","level":"INFO","target":"route_planner::api::eta","fields":{"message":"eta computed","route_edges":%d,"covered":%d,"ms":%d}}'
                      % (ts, r.randint(40, 900), r.randint(10, 400), r.randint(8, 60)))
    t.sh("kubectl --context prod-euc1 -n routing logs route-planner-6f9c7d5b8-" + hexs(r, 5) + " --previous --tail=14",
         "\n".join(lg) + "\n", duration_ms=900)
    t.sh("curl -s https://traffic-feed-here.internal.acme-mobility.io/status | jq '{state, coverage_pct, segments, last_update, adapter_version}'",
         '{\n  "state": "ok",\n  "coverage_pct": 61.4,\n  "segments": 1882044,\n  "last_update": "2024-11-14T02:18:00Z",\n  "adapter_version": "2.0.0"\n}\n', duration_ms=380)
    t.say("All 12 pods are crash-looping (4-19 restarts in 19 minutes) and there were 1,842 panics in the last 5 minutes. "
          "The runbook says: for a bad release, roll back or hotfix from the release tag, never from main.")
    u2 = t.user("Yes, open it as 'investigating', ETA API degraded. Then look at the code.")
    t.decide("rp-d1-statuspage", [
        P_next("statuspage_create_incident", {"page_id": "kctbh9vrtdwd"}, "the page id typed in the first message"),
        P_con(u1, "no full rollout until the canary has been clean for 15 minutes", "tonight's rollout rule"),
    ])
    c_sp, _ = t.tool("statuspage_create_incident", {"page_id": "kctbh9vrtdwd", "name": "Degraded ETA calculations",
                                                    "status": "investigating", "impact_override": "minor",
                                                    "body": "Some route and arrival-time requests are failing. We are investigating.",
                                                    "component_ids": ["7b1m5yq0xk2n"], "components": {"7b1m5yq0xk2n": "degraded_performance"}},
                     {"id": "q8r0b1xz4ltc", "status": "investigating", "shortlink": "https://stspg.io/q8r0b1xz4ltc", "created_at": "2024-11-14T02:17:02Z"},
                     request_id="sp-q8r0b1xz4ltc")
    t.tool("slack_post_message", {"channel": "#incidents", "text": ":rotating_light: route-planner 5xx ~18% in eu-central-1 since 02:01Z (PD P7X2Q9M). "
                                                                 "Cause: panic in ETA traffic adjustment, release 2024.11.2 (Sentry ROUTE-PLANNER-4KQ). Status page: https://stspg.io/q8r0b1xz4ltc. IC: Noor."},
           {"ok": True, "channel": "C01INCIDENTS", "ts": "1731550640.100200"}, request_id="slack-1731550640.100200")
    t.sh("cd ~/src/route-planner && git fetch --tags origin && git branch -r | grep release/ && git describe --tags origin/release/2024.10",
         "  origin/release/2024.09\n  origin/release/2024.10\n  origin/release/2024.11\nv2024.10.4\n",
         stderr="From github.com:acme-mobility/route-planner\n * [new tag]         v2024.11.2 -> v2024.11.2\n", duration_ms=2320)
    t.say("Status page incident q8r0b1xz4ltc is up (https://stspg.io/q8r0b1xz4ltc). Note: release/2024.10 ends at v2024.10.4; "
          "what's running is 2024.11.2, which lives on release/2024.11.")
    u3 = t.user("Ah right, we cut 2024.11 last week. The release branch is release/2024.11 then, forget 2024.10.")
    t.correction("release_branch", "release/2024.11", {"service": "route-planner"})
    t.decide("rp-d2-branch", [
        P_fact("release_branch", "release/2024.11", "corrected by the user", subject={"service": "route-planner"}, superseded=["release/2024.10"]),
        P_next("bash", {"tag": "v2024.11.2"}, "the tag of the running release, from the fetch"),
        P_fact("cwd", REPO, "the shell is in the repo", superseded=["/home/noor"]),
    ])
    traffic_rs = ('use std::collections::HashMap;\n\nuse crate::graph::{EdgeId, Route};\nuse crate::traffic::{SegmentSpeed, TrafficSnapshot};\n\n'
                  '/// Speeds below this are treated as standstill (km/h).\nconst MIN_SPEED_KMH: f32 = 3.0;\n\n'
                  'pub struct TrafficAdjusted {\n    pub seconds: f32,\n    pub congested_edges: usize,\n}\n\n'
                  '/// Applies live segment speeds to the free-flow travel time of each edge of the route.\n'
                  'pub fn apply_segment_speeds(route: &Route, snapshot: &TrafficSnapshot) -> TrafficAdjusted {\n'
                  '    let speeds: HashMap<EdgeId, &SegmentSpeed> = snapshot.segments.iter().map(|s| (s.edge, s)).collect();\n'
                  '    let mut seconds = 0.0;\n    let mut congested_edges = 0;\n    for edge in &route.edges {\n'
                  '        let free_flow = edge.length_m / (edge.free_flow_kmh / 3.6);\n'
                  '        // segments without coverage fall back to the historical profile\n'
                  '        let speed = speeds\n            .get(&edge.id)\n            .map(|s| s.kmh)\n'
                  '            .unwrap_or_else(|| snapshot.profile.get(&edge.id).copied().unwrap());\n'
                  '        let kmh = speed.max(MIN_SPEED_KMH);\n        if kmh < edge.free_flow_kmh * 0.5 {\n            congested_edges += 1;\n        }\n'
                  '        seconds += free_flow * (edge.free_flow_kmh / kmh);\n    }\n    TrafficAdjusted { seconds, congested_edges }\n}\n')
    t.sh("git switch --detach v2024.11.2 && git log --oneline -6 v2024.11.1..v2024.11.2",
         "".join(f"{hexs(r, 9)} {m}\n" for m in ["release: 2024.11.2", "traffic: new HERE feed adapter (segments only where covered)",
                                                 "eta: profile lookup per edge instead of per route", "deps: tokio 1.41.1", "api: /v2/eta accepts departure_time",
                                                 "graph: cache contraction hierarchy per region"]),
         stderr="HEAD is now at " + hexs(r, 7) + " release: 2024.11.2\n")
    t.read(REPO + "/src/eta/traffic.rs", traffic_rs)
    t.say("Line 212 is the `.unwrap()` on the historical profile: with the new HERE feed adapter, segments without live "
          "coverage fall back to `snapshot.profile`, and edges missing from the profile panic.")
    fix_sha = "9c4e1b7" + hexs(r, 33)
    t.sh("git log --oneline origin/main --since=2024-11-01 -- src/eta/traffic.rs && git log -1 --format='%H%n%an%n%ad%n%s%n%n%b' " + fix_sha[:9],
         f"{fix_sha[:9]} eta: missing profile speed falls back to free flow (ROUTE-311)\n{hexs(r, 9)} eta: profile lookup per edge instead of per route\n"
         f"{fix_sha}\nYusuf Demir\nWed Nov 13 16:41:09 2024 +0100\neta: missing profile speed falls back to free flow (ROUTE-311)\n\n"
         "HERE only covers a subset of segments; edges with neither live nor profile speed\nused to panic. Use free-flow speed and count them in metrics.\n")
    t.sh(f"git show --stat --patch {fix_sha[:9]} -- src/eta/traffic.rs | head -60",
         f"commit {fix_sha}\nAuthor: Yusuf Demir <yusuf.demir@acme-mobility.io>\nDate:   Wed Nov 13 16:41:09 2024 +0100\n\n"
         "    eta: missing profile speed falls back to free flow (ROUTE-311)\n\n src/eta/traffic.rs           | 19 +++++++++++++++----\n"
         " src/eta/traffic/tests.rs     | 27 +++++++++++++++++++++++++++\n src/metrics.rs               |  2 ++\n 3 files changed, 46 insertions(+), 2 deletions(-)\n\n"
         "diff --git a/src/eta/traffic.rs b/src/eta/traffic.rs\n--- a/src/eta/traffic.rs\n+++ b/src/eta/traffic.rs\n@@ -203,12 +203,23 @@ pub fn apply_segment_speeds(route: &Route, snapshot: &TrafficSnapshot) -> TrafficAdjusted {\n"
         "     let mut congested_edges = 0;\n+    let mut uncovered_edges = 0;\n     for edge in &route.edges {\n         let free_flow = edge.length_m / (edge.free_flow_kmh / 3.6);\n"
         "-        // segments without coverage fall back to the historical profile\n-        let speed = speeds\n-            .get(&edge.id)\n-            .map(|s| s.kmh)\n"
         "-            .unwrap_or_else(|| snapshot.profile.get(&edge.id).copied().unwrap());\n+        // live speed, else the historical profile, else free flow (HERE covers\n"
         "+        // only part of the network since the new adapter)\n+        let speed = match speeds.get(&edge.id) {\n+            Some(s) => s.kmh,\n"
         "+            None => match snapshot.profile.get(&edge.id) {\n+                Some(kmh) => *kmh,\n+                None => {\n+                    uncovered_edges += 1;\n"
         "+                    edge.free_flow_kmh\n+                }\n+            },\n+        };\n         let kmh = speed.max(MIN_SPEED_KMH);\n"
         "@@ -219,5 +230,6 @@ pub fn apply_segment_speeds(route: &Route, snapshot: &TrafficSnapshot) -> TrafficAdjusted {\n         seconds += free_flow * (edge.free_flow_kmh / kmh);\n     }\n"
         "+    metrics::ETA_UNCOVERED_EDGES.inc_by(uncovered_edges as u64);\n     TrafficAdjusted { seconds, congested_edges }\n }\n")
    t.sh("git log --oneline v2024.11.2..origin/main | head -20",
         "".join(f"{hexs(r, 9)} {m}\n" for m in ["graph-cache: schema v7 (tiles with turn restrictions)", "api: /v3/eta draft behind flag",
                                                  "deps: axum 0.7.9", "graph-cache: migrate v6 -> v7 on startup", fix_sha[:0] + "metrics: eta_uncovered_edges counter",
                                                  "eta: missing profile speed falls back to free flow (ROUTE-311)", "ci: cache sccache per target",
                                                  "traffic: HERE adapter retries on 429", "docs: traffic coverage map"]))
    t.say(f"The fix is already on main: {fix_sha[:9]} 'eta: missing profile speed falls back to free flow (ROUTE-311)' by Yusuf, "
          "merged yesterday afternoon, after the 2024.11.2 release was cut.")
    ur = t.user("Wouldn't a rollback to 2024.11.1 be faster?")
    t.sh("git show v2024.11.2:CHANGELOG.md | sed -n '1,40p'",
         "# Changelog\n\n## 2024.11.2 (2024-11-13)\n\n### Changed\n- traffic: new HERE feed adapter 2.0.0 (segment-level data, partial coverage)\n"
         "- eta: profile lookup per edge instead of per route\n- graph: contraction hierarchy cached per region\n\n### Migrations\n"
         "- graph-cache schema v5 -> v6, applied on startup by the first pod (`graph_cache_migrate`). **v6 cannot be read by 2024.11.1 and older.**\n\n"
         "### Dependencies\n- tokio 1.41.1\n\n## 2024.11.1 (2024-11-06)\n\n### Fixed\n- api: 400 instead of 500 for unknown vehicle profiles\n"
         "- graph: ferry edges excluded for `truck_hazmat`\n\n## 2024.11.0 (2024-10-31)\n\n### Added\n- api: `departure_time` on /v2/eta (preview)\n"
         "- traffic: feed health endpoint\n\n### Changed\n- graph: tiles in zstd\n")
    t.sh("redis-cli -h rp-cache.routing.svc.cluster.local --no-auth-warning GET graph_cache:schema_version && redis-cli -h rp-cache.routing.svc.cluster.local --no-auth-warning GET graph_cache:migrated_at",
         "6\n2024-11-14T01:59:41Z\n", duration_ms=260)
    t.say("Not safely: 2024.11.2 migrated the shared graph cache to schema v6 at 01:59:41Z, and its changelog says v6 can't be "
          "read by 2024.11.1. A rollback would need a cache rebuild first (the runbook doesn't cover that), so the hotfix from "
          "the tag is the faster path.")
    u4 = t.user("Perfect. Hotfix branch from the v2024.11.2 tag, cherry-pick that commit, version 2024.11.3, tests, tag and push.")
    t.decide("rp-d3-cherry", [
        P_next("bash", {"commit": fix_sha[:9]}, "the fix commit found on main"),
        P_fact("release_branch", "release/2024.11", "the hotfix is merged back into this branch later", subject={"service": "route-planner"}, superseded=["release/2024.10"]),
    ])
    t.sh(f"git switch -c hotfix/2024.11.3 v2024.11.2 && git cherry-pick -x {fix_sha[:9]}",
         f"[hotfix/2024.11.3 {hexs(r, 7)}] eta: missing profile speed falls back to free flow (ROUTE-311)\n Author: Yusuf Demir <yusuf.demir@acme-mobility.io>\n"
         " Date: Wed Nov 13 16:41:09 2024 +0100\n 3 files changed, 46 insertions(+), 2 deletions(-)\n", stderr="Switched to a new branch 'hotfix/2024.11.3'\n")
    t.read(REPO + "/Cargo.toml",
           '[package]\nname = "route-planner"\nversion = "2024.11.2"\nedition = "2021"\nrust-version = "1.81"\npublish = false\n\n'
           '[workspace]\nmembers = ["crates/geo", "crates/graph-cache"]\n\n[dependencies]\naxum = "0.7.7"\ntokio = { version = "1.41.1", features = ["full"] }\n'
           'serde = { version = "1", features = ["derive"] }\nserde_json = "1"\ntracing = "0.1"\ntracing-subscriber = { version = "0.3", features = ["json", "env-filter"] }\n'
           'prometheus = "0.13"\nreqwest = { version = "0.12", default-features = false, features = ["json", "rustls-tls"] }\nredis = { version = "0.27", features = ["tokio-comp"] }\n'
           'route-planner-geo = { path = "crates/geo" }\ngraph-cache = { path = "crates/graph-cache" }\nthiserror = "1"\nonce_cell = "1"\n\n'
           '[dev-dependencies]\ninsta = "1.40"\nproptest = "1.5"\nwiremock = "0.6"\n\n[profile.release]\nlto = "thin"\ncodegen-units = 1\ndebug = "line-tables-only"\n')
    t.edit(REPO + "/Cargo.toml", 'version = "2024.11.2"', 'version = "2024.11.3"')
    t.edit(REPO + "/CHANGELOG.md", "# Changelog\n\n", "# Changelog\n\n## 2024.11.3 (2024-11-14)\n\n### Fixed\n"
           "- eta: edges with neither live nor profile speed use free flow instead of panicking (ROUTE-311, PD P7X2Q9M)\n\n")
    tests = [("route-planner", ["api::eta::tests::rejects_past_departure", "api::eta::tests::accepts_departure_time", "eta::tests::free_flow_only",
                               "eta::traffic::tests::live_speed_used", "eta::traffic::tests::profile_fallback", "eta::traffic::tests::missing_profile_uses_free_flow",
                               "eta::traffic::tests::min_speed_clamp", "eta::traffic::tests::congested_edges_counted", "graph::tests::ch_cache_per_region",
                               "graph::tests::shortest_path_berlin_fixture", "graph::tests::unreachable_returns_none", "traffic::here::tests::parses_segments",
                               "traffic::here::tests::partial_coverage", "traffic::snapshot::tests::merge_profiles"]),
             ("route-planner-geo", ["tests::haversine_known_distances", "tests::bbox_contains", "tests::polyline_roundtrip", "tests::tile_keys"])]
    t.sh("cargo test --locked 2>&1 | grep -v '^   Compiling'",
         "    Finished `test` profile [unoptimized + debuginfo] target(s) in 1m 12s\n" + cargo_test_log(r, tests), duration_ms=84100)
    t.sh("cargo clippy --locked --all-targets -- -D warnings 2>&1 | tail -3 && cargo build --release --locked 2>&1 | tail -4",
         "    Checking route-planner v2024.11.3 (/home/noor/src/route-planner)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 41.02s\n"
         "   Compiling route-planner-geo v0.9.2 (/home/noor/src/route-planner/crates/geo)\n   Compiling route-planner v2024.11.3 (/home/noor/src/route-planner)\n"
         "    Finished `release` profile [optimized] target(s) in 3m 48s\n", duration_ms=271000)
    rel_sha = hexs(r, 40)
    t.sh("git commit -am 'release: 2024.11.3' && git tag -a v2024.11.3 -m 'route-planner 2024.11.3 (hotfix ROUTE-311)' && git push origin hotfix/2024.11.3 v2024.11.3",
         f"[hotfix/2024.11.3 {rel_sha[:7]}] release: 2024.11.3\n 2 files changed, 3 insertions(+), 3 deletions(-)\n",
         stderr="To github.com:acme-mobility/route-planner.git\n * [new branch]      hotfix/2024.11.3 -> hotfix/2024.11.3\n * [new tag]         v2024.11.3 -> v2024.11.3\n", duration_ms=2610)
    digest = "sha256:" + hexs(r, 64)
    t.tool("github_list_check_runs", {"repo": "acme-mobility/route-planner", "ref": "v2024.11.3"},
           {"total_count": 3, "check_runs": [
               {"name": "test", "status": "completed", "conclusion": "success"},
               {"name": "clippy", "status": "completed", "conclusion": "success"},
               {"name": "image", "status": "completed", "conclusion": "success",
                "output": {"summary": f"pushed {IMG}:2024.11.3 ({digest})"}}]})
    t.sh("kubectl --context prod-euc1 -n routing get deploy route-planner -o jsonpath='{.spec.template.spec.containers[0].image}{\"\\n\"}{.status.replicas} {.status.readyReplicas} {.status.unavailableReplicas}{\"\\n\"}' && "
         "kubectl --context prod-euc1 -n routing get events --field-selector involvedObject.kind=Pod --sort-by=.lastTimestamp | tail -8",
         f"{IMG}@sha256:{hexs(r, 64)}\n24 9 15\n"
         "LAST SEEN   TYPE      REASON      OBJECT                                  MESSAGE\n"
         + "".join(f"{r.randint(5, 59)}s         Warning   BackOff     pod/route-planner-6f9c7d5b8-{hexs(r, 5)}   Back-off restarting failed container route-planner in pod route-planner-6f9c7d5b8-{hexs(r, 5)}_routing\n" for _ in range(6))
         + f"{r.randint(5, 59)}s         Normal    Pulled      pod/route-planner-6f9c7d5b8-{hexs(r, 5)}   Container image \"{IMG}:2024.11.2\" already present on machine\n", duration_ms=1500)
    t.say(f"Tests pass (18 + doc tests), v2024.11.3 is tagged and pushed; CI built {IMG}:2024.11.3 with digest {digest[:19]}…")
    u5 = t.user("Canary it.")
    c_can = t.call("deploy_create", {"service": "route-planner", "environment": "production", "image": f"{IMG}@{digest}", "version": "2024.11.3",
                                     "strategy": "canary", "canary_percent": 10, "reason": "hotfix ROUTE-311, PD P7X2Q9M"}, key="rp-deploy-canary-2024.11.3")
    t.recover()
    t.say("I was restarted while the canary deploy request was in flight, so I have no answer for it: the canary may or "
          "may not exist. I'll ask the deploy service instead of sending it again.")
    u6 = t.user("You dropped out for a minute. Where are we with the canary?")
    t.decide("rp-d4-recovered", [
        P_state(c_can, "unknown", "the deploy call was running when the agent restarted"),
        P_next("deploy_list", {"service": "route-planner"}, "find the canary deploy"),
        P_con(u1, "canary first", "the rollout rule"),
    ])
    t.tool("deploy_list", {"service": "route-planner", "environment": "production", "limit": 2},
           {"deploys": [{"deploy_id": "dep_rp_20241114_0233", "version": "2024.11.3", "state": "canary", "canary_percent": 10, "current": False,
                         "idempotency_key": "rp-deploy-canary-2024.11.3", "started_at": "2024-11-14T02:33:19Z"},
                        {"deploy_id": "dep_rp_20241114_0158", "version": "2024.11.2", "state": "succeeded", "current": True}]})
    t.status_query(c_can, "succeeded", {"deploy_id": "dep_rp_20241114_0233", "state": "canary", "canary_percent": 10},
                   request_id="deploy-req-rp-0233")
    t.say("The canary exists: dep_rp_20241114_0233, 2024.11.3 at 10% since 02:33:19Z.")
    base = 1731551400
    _, s_m1 = t.tool("metrics_query", {"query": 'sum by (version) (rate(http_requests_total{service="route-planner",code=~"5.."}[2m])) / sum by (version) (rate(http_requests_total{service="route-planner"}[2m]))',
                                       "start": "2024-11-14T02:34:00Z", "end": "2024-11-14T02:44:00Z", "step": "120s"},
                       {"status": "success", "data": {"resultType": "matrix", "result": [
                           {"metric": {"version": "2024.11.3"}, "values": [[base + 240 + i * 120, f"{r.uniform(0.0005, 0.002):.4f}"] for i in range(6)]},
                           {"metric": {"version": "2024.11.2"}, "values": [[base + 240 + i * 120, f"{r.uniform(0.16, 0.19):.4f}"] for i in range(6)]}]}})
    _, s_lat = t.tool("metrics_query", {"query": 'histogram_quantile(0.99, sum by (le, version) (rate(http_request_duration_seconds_bucket{service="route-planner",route="/v2/eta"}[5m])))',
                                        "start": "2024-11-14T02:34:00Z", "end": "2024-11-14T02:44:00Z", "step": "120s"},
                       {"status": "success", "data": {"resultType": "matrix", "result": [
                           {"metric": {"version": "2024.11.3"}, "values": [[base + 240 + i * 120, f"{r.uniform(0.21, 0.29):.3f}"] for i in range(6)]},
                           {"metric": {"version": "2024.11.2"}, "values": [[base + 240 + i * 120, f"{r.uniform(0.9, 2.4):.3f}"] for i in range(6)]}]}})
    clog = []
    for i in range(8):
        clog.append('{"timestamp":"2024-11-14T02:4%d:%02d.%06dZ","level":"INFO","target":"route_planner::api::eta","fields":{"message":"eta computed","route_edges":%d,"covered":%d,"uncovered":%d,"ms":%d}}'
                    % (i // 3, r.randint(0, 59), r.randint(0, 999999), r.randint(40, 900), r.randint(10, 400), r.randint(0, 30), r.randint(8, 60)))
    t.sh("kubectl --context prod-euc1 -n routing logs -l app=route-planner,track=canary --since=10m --tail=8 && kubectl --context prod-euc1 -n routing get pods -l track=canary",
         "\n".join(clog) + "\nNAME                                    READY   STATUS    RESTARTS   AGE\nroute-planner-canary-7d4b9c6f5-" + hexs(r, 5)
         + "   1/1     Running   0          11m\nroute-planner-canary-7d4b9c6f5-" + hexs(r, 5) + "   1/1     Running   0          11m\n", duration_ms=1400)
    t.say("Ten minutes in: the canary (2024.11.3) is at 0.05-0.2% 5xx and p99 ~0.25 s, the rest (2024.11.2) still ~17% 5xx "
          "with p99 up to 2.4 s from restarts. Canary pods: 0 restarts, and the logs show uncovered edges handled.")
    u7 = t.user("Update the status page: fix identified, rolling out.")
    t.decide("rp-d5-status-update", [
        P_next("statuspage_update_incident", {"page_id": "kctbh9vrtdwd", "incident_id": "q8r0b1xz4ltc"}, "page id from the user, incident id from the create call"),
        P_state(c_can, "succeeded", "the status query found the canary", request_id="deploy-req-rp-0233"),
    ])
    t.tool("statuspage_update_incident", {"page_id": "kctbh9vrtdwd", "incident_id": "q8r0b1xz4ltc", "status": "identified",
                                          "body": "We found the cause of the failing ETA requests and are rolling out a fix."},
           {"id": "q8r0b1xz4ltc", "status": "identified", "updated_at": "2024-11-14T02:45:10Z"}, request_id="sp-upd-1")
    u8 = t.user("It's been about 12 minutes on canary. Roll it out fully.")
    t.decide("rp-d6-full", [
        P_con(u1, "clean for 15 minutes", "12 minutes is not 15: the rule says wait"),
        P_next("deploy_create", {"image": f"{IMG}@{digest}"}, "the full rollout uses the same digest as the canary"),
        P_ev([s_m1], "the canary's error rate is what 'clean' is judged on"),
    ])
    t.say("Your rule was 15 clean minutes and the canary started at 02:33:19Z, so that's 02:48:19Z, about three minutes from "
          "now. I'll check the error rate again then and roll out if it's still clean. OK?")
    u9 = t.user("Fair, my own rule. Wait and then go.")
    t.tool("metrics_query", {"query": 'sum by (version) (rate(http_requests_total{service="route-planner",code=~"5.."}[2m])) / sum by (version) (rate(http_requests_total{service="route-planner"}[2m]))',
                             "start": "2024-11-14T02:44:00Z", "end": "2024-11-14T02:49:00Z", "step": "60s"},
           {"status": "success", "data": {"resultType": "matrix", "result": [
               {"metric": {"version": "2024.11.3"}, "values": [[base + 840 + i * 60, f"{r.uniform(0.0004, 0.0018):.4f}"] for i in range(6)]},
               {"metric": {"version": "2024.11.2"}, "values": [[base + 840 + i * 60, f"{r.uniform(0.16, 0.19):.4f}"] for i in range(6)]}]}})
    c_full, _ = t.tool("deploy_create", {"service": "route-planner", "environment": "production", "image": f"{IMG}@{digest}", "version": "2024.11.3",
                                         "strategy": "rolling", "promote_from": "dep_rp_20241114_0233", "reason": "hotfix ROUTE-311, canary clean 15 min"},
                       {"deploy_id": "dep_rp_20241114_0249", "state": "in_progress"}, key="rp-deploy-full-2024.11.3", request_id="deploy-req-rp-0249")
    t.tool("deploy_get", {"deploy_id": "dep_rp_20241114_0249"},
           {"deploy_id": "dep_rp_20241114_0249", "version": "2024.11.3", "state": "succeeded", "rollout": {"desired": 24, "updated": 24, "ready": 24},
            "finished_at": "2024-11-14T02:56:41Z"})
    t.tool("sentry_get_issue", {"issue_id": "ROUTE-PLANNER-4KQ"},
           {"shortId": "ROUTE-PLANNER-4KQ", "status": "unresolved", "lastSeen": "2024-11-14T02:55:02Z", "count": "24410",
            "stats": {"1h": [[1731549600, 3022], [1731553200, 1188]]}})
    t.say("At 02:48Z the canary was still clean, so I promoted it: dep_rp_20241114_0249, 24/24 ready at 02:56:41Z. Sentry's "
          "last panic was at 02:55:02Z, from the last old pods draining.")
    u10 = t.user("Watch it for ten minutes, then resolve everything: status page, Sentry issue, PagerDuty.")
    t.decide("rp-d7-resolve", [
        P_next("statuspage_update_incident", {"incident_id": "q8r0b1xz4ltc"}, "the status page incident from the start of the night"),
        P_next("pagerduty_update_incident", {"incident_id": "P7X2Q9M"}, "the incident typed in the first message"),
        P_state(c_can, "succeeded", "the recovered canary call is settled", request_id="deploy-req-rp-0233"),
        P_fact("statuspage_page_id", "kctbh9vrtdwd", "typed once, hours ago"),
    ])
    t.tool("metrics_query", {"query": 'sum(rate(http_requests_total{service="route-planner",code=~"5.."}[2m])) / sum(rate(http_requests_total{service="route-planner"}[2m]))',
                             "start": "2024-11-14T02:57:00Z", "end": "2024-11-14T03:07:00Z", "step": "120s"},
           {"status": "success", "data": {"resultType": "matrix", "result": [
               {"metric": {}, "values": [[base + 1620 + i * 120, f"{r.uniform(0.0003, 0.0012):.4f}"] for i in range(6)]}]}})
    t.tool("statuspage_update_incident", {"page_id": "kctbh9vrtdwd", "incident_id": "q8r0b1xz4ltc", "status": "resolved",
                                          "body": "ETA requests have been working normally since 02:56 UTC. We're sorry for the disruption.",
                                          "components": {"7b1m5yq0xk2n": "operational"}},
           {"id": "q8r0b1xz4ltc", "status": "resolved", "resolved_at": "2024-11-14T03:07:30Z"}, request_id="sp-resolve")
    t.tool("sentry_update_issue", {"issue_id": "ROUTE-PLANNER-4KQ", "status": "resolved", "status_details": {"inRelease": "route-planner@2024.11.3"}},
           {"id": "5102284417", "status": "resolved", "statusDetails": {"inRelease": "route-planner@2024.11.3"}}, request_id="sentry-resolve-4KQ")
    t.tool("pagerduty_add_note", {"incident_id": "P7X2Q9M", "content": "Hotfix 2024.11.3 (cherry-pick of " + fix_sha[:9] + ", ROUTE-311) via canary dep_rp_20241114_0233 "
                                                                     "and rollout dep_rp_20241114_0249. 5xx < 0.2% since 02:56Z."},
           {"note": {"id": "PNQ1Z8R4", "created_at": "2024-11-14T03:07:52Z"}}, request_id="pd-note-PNQ1Z8R4")
    t.tool("pagerduty_update_incident", {"incident_id": "P7X2Q9M", "status": "resolved"},
           {"incident": {"id": "P7X2Q9M", "status": "resolved", "resolved_at": "2024-11-14T03:08:01Z"}}, request_id="pd-resolve-P7X2Q9M")
    t.say("Ten clean minutes (5xx 0.03-0.12%). Status page resolved, Sentry issue resolved in 2024.11.3, PagerDuty note "
          "added and P7X2Q9M resolved.")
    u11 = t.user("Now get the hotfix back into the release branch with a PR, so next week's 2024.11.4 doesn't lose it.")
    t.decide("rp-d8-backmerge", [
        P_next("github_create_pull_request", {"base": "release/2024.11", "head": "hotfix/2024.11.3"}, "the corrected release branch and the hotfix branch"),
        P_fact("release_branch", "release/2024.11", "not the branch the user first named", subject={"service": "route-planner"}, superseded=["release/2024.10"]),
        P_ev([s_sentry], "the PR body cites the Sentry issue"),
    ])
    t.tool("github_create_pull_request", {"repo": "acme-mobility/route-planner", "head": "hotfix/2024.11.3", "base": "release/2024.11",
                                          "title": "Hotfix 2024.11.3 back into release/2024.11",
                                          "body": "Cherry-pick of " + fix_sha[:9] + " (ROUTE-311) + version bump, deployed tonight for PD P7X2Q9M / Sentry ROUTE-PLANNER-4KQ. "
                                                  "main already has the fix."},
           {"number": 982, "html_url": "https://github.com/acme-mobility/route-planner/pull/982", "state": "open"})
    t.tool("github_list_check_runs", {"repo": "acme-mobility/route-planner", "ref": rel_sha},
           {"total_count": 3, "check_runs": [{"name": "test", "status": "completed", "conclusion": "success"},
                                             {"name": "clippy", "status": "completed", "conclusion": "success"},
                                             {"name": "image", "status": "completed", "conclusion": "skipped", "output": {"summary": "images are built for tags only"}}]})
    t.say("PR #982 (hotfix/2024.11.3 into release/2024.11) is open and green.")
    u12 = t.user("Last: a follow-up ticket for the release train deploying at 02:00 with an untested feed adapter, and a "
                 "short summary in #incidents. Then I'm going back to bed.")
    t.tool("jira_create_issue", {"project": "ROUTE", "issue_type": "Task", "priority": "High",
                                 "summary": "Release train: block deploys with partial traffic-feed coverage; canary before 100%",
                                 "description": "Incident P7X2Q9M (2024-11-14): 2024.11.2 rolled out to 100% at 01:58Z and panicked on edges without "
                                                "profile speed (fixed on main as ROUTE-311 after the release cut). Proposal: release train uses a 10% "
                                                "canary with an automatic 15-minute gate; integration test with partial HERE coverage."},
           {"id": "88810", "key": "ROUTE-318", "self": "https://acme-mobility.atlassian.net/rest/api/3/issue/88810"}, request_id="jira-route-318")
    t.tool("slack_post_message", {"channel": "#incidents", "text": ":white_check_mark: route-planner resolved 03:08Z. 02:01-02:56Z ETA 5xx up to 18% "
                                                                 "(panic in 2024.11.2). Hotfix 2024.11.3 = cherry-pick " + fix_sha[:9] + " (ROUTE-311), canary "
                                                                 "dep_rp_20241114_0233 15 min, rollout dep_rp_20241114_0249. Back-merge PR #982. Follow-up ROUTE-318. "
                                                                 "Status page q8r0b1xz4ltc resolved."},
           {"ok": True, "channel": "C01INCIDENTS", "ts": "1731553790.220911"}, request_id="slack-1731553790.220911")
    pm = ("# 2024-11-14 route-planner ETA failures (P7X2Q9M)\n\n**Status:** draft, for the Thursday review  \n**IC:** Noor Haddad  \n"
          "**Duration:** 02:01-02:56 UTC (customer impact), resolved 03:08 UTC\n\n## Summary\n\nThe release train deployed route-planner 2024.11.2 at "
          "01:58 UTC. With the new HERE adapter (2.0.0, 61% segment coverage) edges without a live speed fall back to the historical profile; "
          "edges missing from the profile hit an `unwrap()` in `apply_segment_speeds` and the worker panicked. Up to 18% of requests failed.\n\n"
          "## Timeline (UTC)\n\n- 01:58 release train starts dep_rp_20241114_0158 (2024.11.2, 100% rolling)\n- 02:01 first panic in Sentry ROUTE-PLANNER-4KQ\n"
          "- 02:09 PagerDuty P7X2Q9M triggered, 02:10 acknowledged\n- 02:17 status page incident q8r0b1xz4ltc (investigating)\n"
          f"- 02:26 fix found on main ({fix_sha[:9]}, ROUTE-311, merged after the release cut)\n- 02:33 canary dep_rp_20241114_0233 (2024.11.3, 10%)\n"
          "- 02:45 status page: identified\n- 02:49 rollout dep_rp_20241114_0249 after 15 clean canary minutes\n- 02:56 rollout complete, last panic 02:55\n"
          "- 03:08 resolved (status page, Sentry, PagerDuty)\n\n## What went well\n\n- The fix already existed and cherry-picked cleanly onto the tag.\n"
          "- Canary gate caught nothing new and kept the blast radius at 10% for the hotfix.\n\n## What went wrong\n\n- The release train rolls out "
          "to 100% with no canary.\n- ROUTE-311 was known on Wednesday but not marked as a release blocker.\n- I (the on-call's agent) was restarted "
          "mid-canary; the deploy service's idempotency key made it safe to check instead of re-sending.\n\n## Follow-ups\n\n- ROUTE-318: canary + "
          "15-minute gate in the release train, partial-coverage integration test\n- PR #982: back-merge into release/2024.11\n")
    t.write("/home/noor/incidents/2024-11-14-route-planner.md", pm)
    t.say("ROUTE-318 filed, the summary is in #incidents, and a postmortem draft is in ~/incidents/2024-11-14-route-planner.md. Good night!")
    return t


# ===== main =====
def _strings(obj) -> list[str]:
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in [str(k)] + _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return [str(obj)]


def validate(t: Traj, counter=None) -> list[str]:
    """Authoring checks (not pgctx's judge): references exist, next_call values were said or
    returned before the decision's own user message, constraint texts are in their events."""
    problems = []
    seen_text: list[str] = []
    by_seq: dict[int, dict] = {}
    calls: set[str] = set()
    approvals: set[str] = set()
    prev = None
    last_user_text = ""
    for step in t.steps:
        if step["type"] == "event":
            by_seq[step["seq"]] = step
            text = "\n".join(_strings(step["payload"])).lower()
            if step["kind"] == "user":
                last_user_text = text
            seen_text.append(text)
            if step["kind"] == "tool_call":
                calls.add(step["payload"]["call_id"])
            if step["kind"] == "approval":
                approvals.add(step["payload"]["approval_id"])
            if counter is not None:
                from pgctx.eventlog import event_tokens
                n = event_tokens(step["kind"], step["payload"], counter)
                if n > 1500:
                    problems.append(f"seq {step['seq']} has {n} tokens")
        elif step["type"] != "decision":
            pass
        else:
            if prev is None or prev["type"] != "event" or prev["kind"] not in ("user", "fact", "correction"):
                problems.append(f"decision {step['id']} does not follow a user event")
            # the texts before the decision's own user message
            idx = max(i for i, s in enumerate(t.steps[:t.steps.index(step)]) if s["type"] == "event" and s["kind"] == "user")
            earlier = "\n".join("\n".join(_strings(s["payload"])).lower()
                                for s in t.steps[:idx] if s["type"] == "event")
            for p in step["probes"]:
                c = p["probe"]
                if c == "next_call":
                    for name, v in p["arguments"].items():
                        v = str(v).lower()
                        if v not in earlier:
                            problems.append(f"{step['id']}: next_call value {v!r} not seen earlier")
                        if v in last_user_text:
                            problems.append(f"{step['id']}: next_call value {v!r} is in the decision's own user message")
                elif c in ("constraint",):
                    ev = by_seq.get(p["seq"])
                    if not ev or p["text"].lower() not in "\n".join(_strings(ev["payload"])).lower():
                        problems.append(f"{step['id']}: constraint text {p['text']!r} not in seq {p['seq']}")
                elif c == "evidence":
                    for s in p["seqs"]:
                        if s not in by_seq:
                            problems.append(f"{step['id']}: evidence seq {s} not yet appended")
                elif c in ("tool_state",):
                    if "call_id" in p and p["call_id"] not in calls:
                        problems.append(f"{step['id']}: unknown call {p['call_id']}")
                elif c == "pending":
                    if "approval_id" in p and p["approval_id"] not in approvals:
                        problems.append(f"{step['id']}: unknown approval {p['approval_id']}")
                    if "call_id" in p and p["call_id"] not in calls:
                        problems.append(f"{step['id']}: unknown call {p['call_id']}")
                elif c == "fact":
                    v = p["value"]
                    if str(v).lower() not in "\n".join(seen_text):
                        problems.append(f"{step['id']}: fact value {v!r} never appears")
                if not p.get("why"):
                    problems.append(f"{step['id']}: probe without why")
        prev = step
    return problems


def build_all() -> list[Traj]:
    names = [f"t{n:02d}" for n in range(1, 11)]
    return [globals()[n]() for n in names if n in globals()]


def stats(ts: list[Traj], counter) -> None:
    from pgctx.eventlog import event_tokens
    classes = ("fact", "tool_state", "next_call", "pending", "constraint", "evidence")
    head = f"{'file':<38} {'id':<33} {'window':>6} {'events':>6} {'tokens':>7} {'dec':>4} " + " ".join(f"{c[:9]:>9}" for c in classes) + f" {'probes':>6}"
    print(head)
    tot = {"events": 0, "tokens": 0, "dec": 0, "probes": 0, **{c: 0 for c in classes}}
    for t in ts:
        evs = [s for s in t.steps if s["type"] == "event"]
        toks = sum(event_tokens(s["kind"], s["payload"], counter) for s in evs)
        decs = [s for s in t.steps if s["type"] == "decision"]
        pc = {c: sum(1 for d in decs for p in d["probes"] if p["probe"] == c) for c in classes}
        np_ = sum(pc.values())
        print(f"{t.filename:<38} {t.id:<33} {str(t.window or 4096):>6} {len(evs):>6} {toks:>7} {len(decs):>4} "
              + " ".join(f"{pc[c]:>9}" for c in classes) + f" {np_:>6}")
        tot["events"] += len(evs); tot["tokens"] += toks; tot["dec"] += len(decs); tot["probes"] += np_
        for c in classes:
            tot[c] += pc[c]
    print(f"{'total':<38} {len(ts):<33} {'':>6} {tot['events']:>6} {tot['tokens']:>7} {tot['dec']:>4} "
          + " ".join(f"{tot[c]:>9}" for c in classes) + f" {tot['probes']:>6}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--stats", action="store_true")
    args = ap.parse_args()
    ts = build_all()
    ids = [t.id for t in ts]
    assert len(ids) == len(set(ids)), "duplicate ids"
    counter = None
    try:
        from pgctx.tokens import TokenCounter
        counter = TokenCounter("o200k_base")
    except ImportError:
        pass
    bad = False
    for t in ts:
        for p in validate(t, counter):
            print(f"{t.filename}: {p}", file=sys.stderr)
            bad = True
    if args.stats:
        stats(ts, counter)
        return 1 if bad else 0
    if args.check:
        differ = [t.filename for t in ts if not (HERE / t.filename).exists()
                  or (HERE / t.filename).read_text(encoding="utf-8") != t.text()]
        for f in differ:
            print(f"differs: {f}", file=sys.stderr)
        return 1 if differ or bad else 0
    for t in ts:
        (HERE / t.filename).write_text(t.text(), encoding="utf-8")
    print(f"wrote {len(ts)} trajectories to {HERE}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
