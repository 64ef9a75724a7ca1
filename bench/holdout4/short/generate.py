#!/usr/bin/env python3
"""Generator of the held-out set bench/holdout4/short (short trajectories, small windows).

Reserved for a future round: written blind (see README.md), never scored by its author.

    .venv/bin/python bench/holdout4/short/generate.py           # (re)write the *.jsonl files
    .venv/bin/python bench/holdout4/short/generate.py --check   # exit 1 if the files differ
    .venv/bin/python bench/holdout4/short/generate.py --stats   # events, tokens, window, probes

Everything is deterministic: each trajectory draws its filler (request ids, listing rows, log
lines) from its own random.Random seeded with the trajectory id; every tool is declared once, in
TOOLS, so every file declares a tool identically.  Before anything is written, every probe is
checked by an oracle (`oracle`) that applies the probe rules of docs/eval.md to the whole raw
history up to the decision; a probe the full history would not satisfy stops the generator.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODEL = "gpt-4o-mini"

# ---------------------------------------------------------------------------------------------
# Every tool of the set, declared once: name -> (effect, identifier_args, description)
# ---------------------------------------------------------------------------------------------
TOOLS: dict[str, tuple[str, list[str], str]] = {
    # git repo refactor (persistent shell session)
    "shell_exec": ("write", ["session_id"], "run a command in the agent's persistent bash session"),
    "git_push": ("irreversible", ["remote", "branch"], "push a local branch to a remote"),
    "forge_create_pull_request": ("write", ["repo", "head"], "open a pull request on the code forge"),
    "forge_list_pull_requests": ("read", ["repo", "head"], "list pull requests of a head branch"),
    "forge_comment": ("write", ["repo", "number"], "comment on a pull request"),
    # library loans
    "library_account_loans": ("read", ["card_number"], "a patron's current loans"),
    "library_renew_loan": ("write", ["loan_id"], "renew one loan"),
    "library_request_exception": ("write", ["loan_id"], "ask circulation staff for an extra renewal"),
    "library_report_return": ("write", ["loan_id"], "report an item returned through the drop box"),
    # car rental
    "rental_get_reservation": ("read", ["confirmation"], "a car-rental reservation"),
    "rental_search_vehicles": ("read", ["location"], "offers available at a rental location"),
    "rental_get_offer": ("read", ["offer_id"], "details and price of one offer"),
    "rental_modify_reservation": ("write", ["confirmation"], "change a reservation to another offer"),
    # CRM
    "crm_search": ("read", ["query"], "search leads and contacts"),
    "crm_get_lead": ("read", ["lead_id"], "one lead record"),
    "crm_update_lead": ("write", ["lead_id"], "patch fields of a lead"),
    "crm_merge_leads": ("irreversible", ["master_id", "duplicate_id"], "merge a duplicate lead into a master"),
    "crm_create_task": ("write", ["what_id"], "create a follow-up task"),
    # home automation
    "ha_list_entities": ("read", ["area"], "entities of a home-automation area"),
    "ha_create_automation": ("write", ["alias"], "create an automation"),
    "ha_update_automation": ("write", ["automation_id"], "replace an automation's config"),
    "ha_trigger_automation": ("write", ["automation_id"], "run an automation's actions now"),
    "ha_get_state": ("read", ["entity_id"], "current state of an entity"),
    # concert tickets
    "tix_get_order": ("read", ["order_id"], "a ticket order"),
    "tix_exchange_options": ("read", ["order_id", "event_id"], "seats a ticket order can be exchanged into"),
    "tix_hold_seats": ("write", ["event_id"], "hold seats for a few minutes"),
    "tix_exchange_order": ("irreversible", ["order_id"], "exchange an order's tickets into held seats"),
    "tix_transfer_ticket": ("irreversible", ["ticket_id"], "transfer a ticket to another person"),
    # payroll
    "payroll_get_employee": ("read", ["employee_id"], "an employee's pay record"),
    "payroll_get_payslip": ("read", ["payslip_id"], "one payslip"),
    "payroll_list_runs": ("read", ["company_id"], "pay runs of a company"),
    "payroll_create_adjustment": ("write", ["employee_id", "run_id"], "add an adjustment line to a pay run"),
    "payroll_request_approval": ("write", ["run_id"], "ask the pay-run approver to approve"),
    # app store release
    "store_list_builds": ("read", ["app_id"], "uploaded builds of an app"),
    "store_create_version": ("write", ["app_id"], "create an app store version"),
    "store_attach_build": ("write", ["version_id"], "select the build of a version"),
    "store_set_release_options": ("write", ["version_id"], "release type and phased release"),
    "store_update_localization": ("write", ["version_id", "locale"], "what's-new text of a locale"),
    "store_submit_for_review": ("irreversible", ["version_id"], "submit a version for review"),
    # database migration
    "sql_query": ("read", ["database"], "run a read-only SQL query"),
    "migration_plan": ("read", ["database"], "list pending migrations and their DDL"),
    "db_snapshot": ("write", ["cluster"], "take a storage snapshot of a cluster"),
    "migration_apply": ("irreversible", ["database", "revision"], "apply migrations up to a revision"),
    # package return
    "shop_get_order": ("read", ["order_id"], "an online-shop order"),
    "shop_create_return": ("write", ["order_id"], "start a return for items of an order"),
    "carrier_track": ("read", ["tracking_number"], "parcel tracking events"),
    "shop_return_status": ("read", ["return_id"], "state of a return and its refund"),
    # gym
    "gym_get_membership": ("read", ["member_id"], "a gym membership"),
    "gym_list_bookings": ("read", ["member_id"], "class bookings of a member"),
    "gym_freeze_membership": ("write", ["member_id"], "freeze a membership for a period"),
    # utility bill
    "utility_get_account": ("read", ["account_number"], "a utility account"),
    "utility_get_bill": ("read", ["bill_id"], "one bill with its charges"),
    "utility_meter_reads": ("read", ["meter_id"], "meter reading history"),
    "utility_submit_read": ("write", ["meter_id"], "submit a customer meter reading"),
    "utility_open_dispute": ("write", ["bill_id"], "dispute a bill"),
    # vet
    "vet_get_patient": ("read", ["patient_id"], "a veterinary patient record"),
    "vet_find_slots": ("read", ["practice_id", "service"], "free appointment slots"),
    "vet_book_appointment": ("write", ["patient_id"], "book an appointment slot"),
    "vet_update_patient": ("write", ["patient_id"], "update a patient's record"),
    # kanban
    "kanban_get_board": ("read", ["board_id"], "a board with its columns and labels"),
    "kanban_list_cards": ("read", ["board_id", "column_id"], "cards of a column"),
    "kanban_move_card": ("write", ["card_id"], "move a card to another column"),
    "kanban_archive_cards": ("write", ["board_id"], "archive several cards"),
    # spreadsheet
    "sheets_get_metadata": ("read", ["spreadsheet_id"], "spreadsheet properties and sheets"),
    "sheets_get_values": ("read", ["spreadsheet_id", "range"], "cell values or formulas of a range"),
    "sheets_batch_update": ("write", ["spreadsheet_id"], "apply update requests to a spreadsheet"),
    # flight seats
    "air_get_booking": ("read", ["record_locator"], "an airline booking (PNR)"),
    "air_seat_map": ("read", ["flight_segment_id"], "seat map of one flight segment"),
    "air_assign_seats": ("write", ["record_locator", "flight_segment_id"], "assign seats on a segment"),
    # added with their trajectories
    "payroll_finalize_run": ("irreversible", ["run_id"], "finalise a pay run for payment"),
    "shop_contact_support": ("write", ["return_id"], "open a support case about a return"),
    "gym_book_class": ("write", ["member_id", "session_id"], "book a class session"),
    "kanban_restore_cards": ("write", ["board_id"], "restore archived cards"),
}


# ---------------------------------------------------------------------------------------------
# Building a trajectory
# ---------------------------------------------------------------------------------------------
class Traj:
    def __init__(self, tid: str, title: str, window: int, exercises: list[str], description: str):
        self.id, self.title, self.window = tid, title, window
        self.exercises, self.description = exercises, description
        self.rng = random.Random(tid)
        self.steps: list[dict] = []
        self.events: list[tuple[int, str, dict]] = []  # (seq, kind, payload), recovery included
        self.seq = 0
        self.tools: list[str] = []
        self._recovered: set[str] = set()

    # filler ---------------------------------------------------------------------------------
    def hexid(self, n: int = 12) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def req(self) -> str:
        return "req_" + self.hexid(16)

    # events ---------------------------------------------------------------------------------
    def _ev(self, kind: str, payload: dict) -> int:
        self.seq += 1
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": self.seq})
        self.events.append((self.seq, kind, payload))
        return self.seq

    def user(self, text: str) -> int:
        return self._ev("user", {"text": text})

    def assistant(self, text: str) -> int:
        return self._ev("assistant", {"text": text})

    def system(self, text: str) -> int:
        return self._ev("system", {"text": text})

    def call(self, tool: str, call_id: str, arguments: dict, idem: str | None = None) -> int:
        if tool not in TOOLS:
            raise SystemExit(f"{self.id}: tool {tool} is not in TOOLS")
        if tool not in self.tools:
            self.tools.append(tool)
        payload = {"tool": tool, "call_id": call_id, "arguments": arguments}
        if idem:
            payload["idempotency_key"] = idem
        payload["effect"] = TOOLS[tool][0]
        return self._ev("tool_call", payload)

    def result(self, call_id: str, outcome: str = "succeeded", result: dict | None = None,
               log: str | None = None, error: str | None = None, request_id: str | None = None) -> int:
        payload: dict = {"call_id": call_id, "outcome": outcome, "request_id": request_id or self.req()}
        if result is not None:
            payload["result"] = result
        if log is not None:
            payload["log"] = log
        if error is not None:
            payload["error"] = error
        return self._ev("tool_result", payload)

    def status(self, call_id: str, outcome: str, result: dict | None = None, request_id: str | None = None) -> int:
        payload: dict = {"call_id": call_id, "outcome": outcome, "request_id": request_id or self.req()}
        if result is not None:
            payload["result"] = result
        return self._ev("status_query", payload)

    def fact(self, key: str, value, subject: str | None = None, authority: str = "user",
             confidence: str = "confirmed", kind: str = "fact") -> int:
        payload = {"key": key, "value": value, "authority": authority, "confidence": confidence}
        if subject:
            payload["subject"] = subject
        return self._ev(kind, payload)

    def correction(self, key: str, value, subject: str | None = None) -> int:
        return self.fact(key, value, subject, kind="correction")

    def approval(self, approval_id: str, status: str, scopes_event: int | None = None, **extra) -> int:
        payload = {"approval_id": approval_id, "status": status}
        if scopes_event is not None:
            payload["scopes_event"] = scopes_event
        payload.update(extra)
        return self._ev("approval", payload)

    def recover(self) -> int | None:
        """pgctx.recover: calls still running since the last recovery become unknown (one event)."""
        answered = {p["call_id"] for _, k, p in self.events if k in ("tool_result", "status_query")}
        running = [p["call_id"] for _, k, p in self.events
                   if k == "tool_call" and p["call_id"] not in answered and p["call_id"] not in self._recovered]
        if not running:
            raise SystemExit(f"{self.id}: a recover step with no running call appends nothing; not used here")
        self._recovered.update(running)
        self.steps.append({"type": "recover"})
        self.seq += 1
        self.events.append((self.seq, "recovery", {}))
        return self.seq

    def decision(self, did: str, *probes: dict, note: str = "") -> None:
        for p in probes:  # a tool a probe names is declared too, even if the trajectory never calls it
            if p["probe"] == "next_call" and p["tool"] in TOOLS and p["tool"] not in self.tools:
                self.tools.append(p["tool"])
        step = {"type": "decision", "id": did, "probes": list(probes)}
        if note:
            step["note"] = note
        self.steps.append(step)
        self.steps[-1]["_at"] = self.seq  # internal: last seq before the decision (dropped on write)

    # output ---------------------------------------------------------------------------------
    def header(self) -> dict:
        return {"pgctx_trajectory": 1, "id": self.id, "title": self.title, "exercises": self.exercises,
                "description": self.description,
                "tools": [{"tool": t, "effect": TOOLS[t][0], "identifier_args": TOOLS[t][1],
                           "description": TOOLS[t][2]} for t in self.tools],
                "window": self.window}

    def text(self) -> str:
        lines = [json.dumps(self.header(), ensure_ascii=False)]
        for s in self.steps:
            lines.append(json.dumps({k: v for k, v in s.items() if not k.startswith("_")}, ensure_ascii=False))
        return "\n".join(lines) + "\n"


# probe constructors ------------------------------------------------------------------------------
def fact(key, value, superseded=(), subject=None, why=""):
    p = {"probe": "fact", "key": key, "value": value}
    if subject:
        p["subject"] = subject
    if superseded:
        p["superseded"] = list(superseded)
    if why:
        p["why"] = why
    return p


def tool_state(status, call_id=None, idempotency_key=None, request_id=None, why=""):
    p = {"probe": "tool_state", "status": status}
    if call_id:
        p["call_id"] = call_id
    if idempotency_key:
        p["idempotency_key"] = idempotency_key
    if request_id:
        p["request_id"] = request_id
    if why:
        p["why"] = why
    return p


def next_call(tool, why="", **arguments):
    p = {"probe": "next_call", "tool": tool, "arguments": arguments}
    if why:
        p["why"] = why
    return p


def pending(approval_id=None, call_id=None, why=""):
    p = {"probe": "pending"}
    if approval_id:
        p["approval_id"] = approval_id
    if call_id:
        p["call_id"] = call_id
    if why:
        p["why"] = why
    return p


def constraint(seq, text, why=""):
    p = {"probe": "constraint", "seq": seq, "text": text}
    if why:
        p["why"] = why
    return p


def evidence(*seqs, why=""):
    p = {"probe": "evidence", "seqs": list(seqs)}
    if why:
        p["why"] = why
    return p


def rows(t: Traj, n: int, make) -> list:
    return [make(t.rng, i) for i in range(n)]



# ---------------------------------------------------------------------------------------------
# The trajectories
# ---------------------------------------------------------------------------------------------
def t_git_refactor() -> Traj:
    t = Traj("git-refactor-cwd", "Extract a package out of a service in a monorepo through a persistent shell",
             1024,
             ["the working directory moves with cd several times; the next command runs where the last cd left it",
              "the branch name created early is the one pushed much later",
              "a user correction renames the package after it was first written",
              "constraints set at the start: never push to main, never force-push",
              "a PR creation that timed out is unknown, then answered by a status query",
              "the PR number returned by the status query is used by a later comment"],
             "A developer asks the agent to move the money helpers of services/billing into libs/money, on a new "
             "branch, rename imports, run the tests, push and open a pull request against develop.")
    S = "bash-7f3c"
    root = "/home/ana/src/ledger-api"

    def sh(cid, cmd, cwd, stdout, exit_code=0, stderr=""):
        t.call("shell_exec", cid, {"session_id": S, "command": cmd})
        res = {"exit_code": exit_code, "cwd": cwd, "duration_ms": t.rng.randint(8, 900)}
        if len(stdout) <= 200:
            res["stdout"] = stdout
            log = None
        else:
            log = stdout
        if stderr:
            res["stderr"] = stderr
        return t.result(cid, result=res, log=log)

    u1 = t.user("I'm in ~/src/ledger-api. We're pulling the money helpers out of services/billing into a new "
                "package under libs/money. Do it on a branch called refactor/money-lib. Never push to main, and "
                "don't force-push anything, ever.")
    sh("sh-01", "cd ~/src/ledger-api && git status -sb && git log --oneline -3", root,
       "## main...origin/main\n?? notes.txt\n9b2e41d (HEAD -> main, origin/main) billing: round half-even in invoices\n"
       "0c77a18 ci: pin poetry 1.8.3\ne5d1f02 Merge pull request #4102 from acme/fix/tz-offsets")
    sh("sh-02", "git switch -c refactor/money-lib", root, "Switched to a new branch 'refactor/money-lib'")
    files = ["__init__.py", "currency.py", "rounding.py", "fx.py", "allocation.py", "formatting.py"]
    listing = "\n".join(f"-rw-r--r--  1 ana  staff  {t.rng.randint(800, 9000):>5} Mar {t.rng.randint(1, 28):>2} "
                        f"{t.rng.randint(8, 19):02d}:{t.rng.randint(0, 59):02d} {f}" for f in files)
    sh("sh-03", "cd services/billing && ls -l src/billing/money/ && grep -rn 'billing.money' src tests | wc -l",
       f"{root}/services/billing", f"total 48\n{listing}\n      23")
    u2 = t.user("OK. Move src/billing/money to libs/money/src/ with git mv so the history follows. Package name "
                "ledger-money.")
    t.fact("package_name", "ledger-money", subject="path=libs/money")
    sh("sh-04", "cd ../.. && mkdir -p libs/money/src && git mv services/billing/src/billing/money "
       "libs/money/src/ledger_money && git status --short | head -3", root,
       "R  services/billing/src/billing/money/__init__.py -> libs/money/src/ledger_money/__init__.py\n"
       "R  services/billing/src/billing/money/allocation.py -> libs/money/src/ledger_money/allocation.py\n"
       "R  services/billing/src/billing/money/currency.py -> libs/money/src/ledger_money/currency.py")
    sh("sh-05", "cd libs/money && poetry init -n --name ledger-money --python '^3.11' && cat pyproject.toml",
       f"{root}/libs/money",
       "[tool.poetry]\nname = \"ledger-money\"\nversion = \"0.1.0\"\ndescription = \"\"\nauthors = [\"Ana Duarte "
       "<ana@acme.dev>\"]\npackages = [{include = \"ledger_money\", from = \"src\"}]\n\n[tool.poetry.dependencies]\n"
       "python = \"^3.11\"\n\n[build-system]\nrequires = [\"poetry-core\"]\nbuild-backend = \"poetry.core.masonry.api\"")
    t.user("Wait, ledger-money is already taken on our private index. Call it ledger-money-core. The import "
           "package can stay ledger_money.")
    t.correction("package_name", "ledger-money-core", subject="path=libs/money")
    sh("sh-06", "sed -i 's/^name = \"ledger-money\"$/name = \"ledger-money-core\"/' pyproject.toml && "
       "grep '^name' pyproject.toml", f"{root}/libs/money", "name = \"ledger-money-core\"")
    failures = "\n".join(
        f"ERROR tests/{m} - ModuleNotFoundError: No module named 'billing.money'"
        for m in ["test_invoices.py", "test_refunds.py", "test_proration.py", "test_dunning.py", "test_exports.py"])
    sh("sh-07", "cd ../../services/billing && poetry run pytest -q -x 2>&1 | tail -8", f"{root}/services/billing",
       f"==================================== ERRORS ====================================\n{failures}\n"
       f"!!!!!!!!!!!!!!!!!!!! Interrupted: 5 errors during collection !!!!!!!!!!!!!!!!!!!!\n"
       f"5 errors in {t.rng.randint(2, 4)}.{t.rng.randint(10, 99)}s", exit_code=2)
    grep = "\n".join(f"src/billing/{m}" for m in ["invoices.py", "refunds.py", "proration.py", "dunning.py",
                                                   "exports/csv.py", "exports/sap.py"]) + "\ntests/fixtures/legacy_money.py"
    sh("sh-08", "grep -rl 'billing.money' src tests", f"{root}/services/billing", grep)
    t.user("Rewrite those imports to ledger_money. Leave tests/fixtures alone, that file is a frozen snapshot.")
    sh("sh-09", "grep -rl 'billing.money' src | xargs sed -i 's/from billing\\.money/from ledger_money/; "
       "s/import billing\\.money/import ledger_money/' && poetry add --editable ../../libs/money && "
       "poetry run pytest -q 2>&1 | tail -2", f"{root}/services/billing",
       f"........................................................................ [ 96%]\n"
       f"212 passed, 3 skipped in {t.rng.randint(9, 14)}.{t.rng.randint(10, 99)}s")
    sh("sh-10", "cd ../.. && git add -A libs/money services/billing && git commit -qm 'Extract money helpers into "
       "libs/money (ledger-money-core)' && git log --oneline -1", root,
       "4e1c9a7 (HEAD -> refactor/money-lib) Extract money helpers into libs/money (ledger-money-core)")
    d1 = t.user("Looks good. Push it and open the PR against develop. Add okafor-t as reviewer.")
    t.decision("d-push",
               next_call("git_push", branch="refactor/money-lib",
                         why="the branch was created at the start; the push must name it, not main"),
               constraint(u1, "Never push to main", why="set in the first message"),
               constraint(u1, "don't force-push", why="no --force on the push"),
               fact("cwd", root, superseded=[f"{root}/services/billing", f"{root}/libs/money"],
                    why="the last cd went back to the repo root; earlier results were in the subfolders"),
               fact("package_name", "ledger-money-core", superseded=["ledger-money"], subject="path=libs/money",
                    why="the PR text must use the corrected package name"))
    t.call("git_push", "push-1", {"remote": "origin", "branch": "refactor/money-lib", "set_upstream": True})
    t.result("push-1", result={"remote": "origin", "ref": "refs/heads/refactor/money-lib", "old_sha": None,
                               "new_sha": "4e1c9a7", "forced": False},
             log="remote: \nremote: Create a pull request for 'refactor/money-lib' on the forge by visiting:\n"
                 "remote:      https://forge.acme.dev/acme/ledger-api/pull/new/refactor/money-lib\nremote: \n"
                 "To forge.acme.dev:acme/ledger-api.git\n * [new branch]      refactor/money-lib -> refactor/money-lib\n"
                 "branch 'refactor/money-lib' set up to track 'origin/refactor/money-lib'.")
    t.call("forge_create_pull_request", "pr-1",
           {"repo": "acme/ledger-api", "head": "refactor/money-lib", "base": "develop",
            "title": "Extract money helpers into libs/money (ledger-money-core)", "reviewers": ["okafor-t"]},
           idem="pr-ledger-api-refactor-money-lib")
    t.result("pr-1", outcome="timeout", error="upstream request timeout after 30000 ms (gateway 504)")
    d2 = t.user("Did the PR get created? If it did, don't open a second one.")
    t.decision("d-pr-unknown",
               tool_state("unknown", call_id="pr-1", why="a timeout is neither success nor failure"),
               tool_state("succeeded", call_id="push-1", why="the push itself went through"),
               next_call("forge_list_pull_requests", repo="acme/ledger-api", head="refactor/money-lib",
                         why="look the PR up before retrying"))
    t.call("forge_list_pull_requests", "prl-1", {"repo": "acme/ledger-api", "head": "refactor/money-lib", "state": "open"})
    t.status("pr-1", "succeeded", result={"number": 4187, "state": "open", "base": "develop",
                                          "html_url": "https://forge.acme.dev/acme/ledger-api/pull/4187",
                                          "requested_reviewers": ["okafor-t"], "draft": False})
    t.result("prl-1", result={"total_count": 1, "items": [{"number": 4187, "head": {"ref": "refactor/money-lib",
                                                                                  "sha": "4e1c9a7"},
                                                           "base": {"ref": "develop"}, "user": {"login": "ana-d"}}]})
    t.user("Great. Leave a comment on it saying the published package name is different from the import name, "
           "and mention the frozen fixtures file.")
    t.decision("d-comment",
               next_call("forge_comment", number=4187, why="the PR number came from the status query"),
               tool_state("succeeded", call_id="pr-1", why="the status query answered the timed-out call"))
    return t


def t_library() -> Traj:
    t = Traj("library-loan-renewal", "Renew library loans under a hold-queue rule", 256,
             ["a card number the user typed once is needed again later",
              "the user's rule 'never renew an item with holds' decides which loan may be renewed",
              "a second listing contradicts the first (the hold queue emptied)",
              "a drop-box return report timed out and is answered by a status query",
              "a loan id returned by the first listing is renewed several turns later",
              "a subject-scoped fact: the due date of one loan, not the newest due date overall"],
             "A patron asks the agent to renew what is due this week; one item has holds, one has no renewals "
             "left, and a returned book still shows on the account.")
    card = "29018004417263"
    u1 = t.user(f"Library card {card}. Renew whatever is due this week, but never renew anything that has people "
                "waiting for it; I'd rather bring it back.")
    t.call("library_account_loans", "ln-1", {"card_number": card})
    t.result("ln-1", result={"patron": {"id": "P-771034", "home_branch": "Eastside"}, "loans": [
        {"loan_id": "LN-5520981", "title": "The Overstory", "due": "2025-03-14", "renewals_left": 1, "holds": 0},
        {"loan_id": "LN-5520987", "title": "Piranesi", "due": "2025-03-13", "renewals_left": 2, "holds": 3},
        {"loan_id": "LN-5519002", "title": "Braiding Sweetgrass", "due": "2025-03-28", "renewals_left": 2, "holds": 0},
        {"loan_id": "LN-5521140", "title": "A Psalm for the Wild-Built", "due": "2025-03-12", "renewals_left": 0,
         "holds": 0}]})
    t.assistant("Due this week: The Overstory (renewable), Piranesi (3 holds, so not renewing), A Psalm for the "
                "Wild-Built (no renewals left). Renew The Overstory?")
    t.user("Yes please.")
    t.call("library_renew_loan", "rn-1", {"loan_id": "LN-5520981"}, idem="renew-LN-5520981-1")
    t.result("rn-1", result={"loan_id": "LN-5520981", "status": "RENEWED", "new_due": "2025-04-04",
                             "renewals_left": 0})
    t.user("Can you ask Eastside for an exception on the Wild-Built one? I'm halfway through.")
    t.call("library_request_exception", "ex-1", {"loan_id": "LN-5521140", "reason": "patron mid-read, no holds"})
    t.result("ex-1", result={"ticket": "EX-30417", "queue": "Eastside circulation", "state": "queued"})
    t.user("Also Braiding Sweetgrass went into the drop box yesterday, it's still on my account.")
    t.call("library_report_return", "rt-1", {"loan_id": "LN-5519002", "returned_on": "2025-03-10",
                                             "location": "Eastside drop box"})
    t.result("rt-1", outcome="timeout", error="ILS gateway did not answer within 20s")
    t.user("The app now says nobody is waiting for Piranesi. Check again?")
    t.call("library_account_loans", "ln-2", {"card_number": card})
    second = t.result("ln-2", result={"patron": {"id": "P-771034", "home_branch": "Eastside"}, "loans": [
        {"loan_id": "LN-5520981", "title": "The Overstory", "due": "2025-04-04", "renewals_left": 0, "holds": 0},
        {"loan_id": "LN-5520987", "title": "Piranesi", "due": "2025-03-13", "renewals_left": 2, "holds": 0},
        {"loan_id": "LN-5521140", "title": "A Psalm for the Wild-Built", "due": "2025-03-12", "renewals_left": 0,
         "holds": 0}]})
    t.user("Then renew that one too. And did the drop-box report go through?")
    t.decision("d-renew-piranesi",
               next_call("library_renew_loan", loan_id="LN-5520987", why="the id comes from the listings"),
               constraint(u1, "never renew anything that has people waiting",
                          why="the rule is why Piranesi was skipped before and may be renewed now"),
               tool_state("unknown", call_id="rt-1", why="the return report timed out"),
               evidence(second, why="the second listing, where the holds are gone, justifies renewing"))
    t.call("library_renew_loan", "rn-2", {"loan_id": "LN-5520987"}, idem="renew-LN-5520987-1")
    t.result("rn-2", result={"loan_id": "LN-5520987", "status": "RENEWED", "new_due": "2025-04-03",
                             "renewals_left": 1})
    t.status("rt-1", "succeeded", result={"loan_id": "LN-5519002", "checked_in_at": "2025-03-11T08:02:00-05:00",
                                          "state": "CHECKED_IN"})
    t.user("Perfect. What are the new due dates, and what's the exception ticket number?")
    t.decision("d-summary",
               fact("ticket", "EX-30417", why="the exception ticket came from a tool several turns back"),
               fact("new_due", "2025-04-04", subject="loan_id=LN-5520981",
                    why="The Overstory's new due date, not Piranesi's newer one"),
               fact("new_due", "2025-04-03", why="the newest renewal"),
               tool_state("succeeded", call_id="rt-1", why="the status query answered the timed-out report"))
    return t


def t_car_rental() -> Traj:
    t = Traj("car-rental-change", "Move a car rental to another location and car", 512,
             ["a confirmation number and surname typed once, needed for the final modify call",
              "a user correction of the return date",
              "a constraint set early (no diesel, under 60 EUR a day) decides between offers",
              "an offer's detail contradicts the search listing (hybrid in the list, diesel in the detail)",
              "an offer id returned by the search is used several turns later",
              "a failed modify needs the customer's re-authorisation: a pending approval, then granted"],
             "A customer moves a Lisbon airport rental to Porto São Bento, changes the return date and picks "
             "a car; the price difference needs a payment re-authorisation.")
    u1 = t.user("Need to change my rental. Confirmation K7Q-48213, surname Oyelaran. Pick up at Porto São Bento "
                "instead of Lisbon airport, same dates. No diesel, and keep it under 60 EUR a day.")
    t.call("rental_get_reservation", "rv-1", {"confirmation": "K7Q-48213", "last_name": "Oyelaran"})
    t.result("rv-1", result={"reservation": {
        "confirmation": "K7Q-48213", "status": "CONFIRMED",
        "pickup": {"location_code": "LIS", "name": "Lisbon Humberto Delgado Airport", "time": "10:00"},
        "dropoff": {"location_code": "LIS", "name": "Lisbon Humberto Delgado Airport", "time": "10:00"},
        "pickup_date": "2025-06-14", "return_date": "2025-06-18",
        "vehicle": {"sipp": "CDMR", "example": "VW Golf or similar", "fuel": "petrol"},
        "rate": {"code": "LEISURE7", "daily": "54.20", "currency": "EUR"}, "extras": [],
        "payment": {"method": "card", "last4": "4471", "preauth": "271.00"}}})
    u2 = t.user("Oh, and I'll bring it back on the 19th, not the 18th. Same time.")
    t.correction("return_date", "2025-06-19", subject="confirmation=K7Q-48213")
    t.call("rental_search_vehicles", "sv-1", {"location": "OPO-SB", "pickup_date": "2025-06-14",
                                              "return_date": "2025-06-19", "max_daily": "60.00"})
    models = [("EDMR", "Fiat Panda 1.0", "petrol", "41.90", "of_9XK2L1"), ("CDMD", "Peugeot 308 1.5 BlueHDi",
              "diesel", "49.50", "of_9XK2L7"), ("CDAH", "Toyota Corolla 1.8 Hybrid", "hybrid", "58.75", "of_9XK2M3"),
              ("IFMD", "Skoda Kodiaq 2.0 TDI", "diesel", "72.10", "of_9XK2N0")]
    t.result("sv-1", result={"location": {"code": "OPO-SB", "name": "Porto São Bento", "desk_hours": "08:00-20:00"},
                             "currency": "EUR", "offers": [
        {"offer_id": o, "sipp": s, "model": m, "fuel": f, "daily": d, "mileage": "unlimited",
         "supplier": t.rng.choice(["Movirent", "Guerin", "Lusocar"])} for s, m, f, d, o in models]})
    t.assistant("At Porto São Bento, without diesel and under 60/day: Fiat Panda 41.90/day or Toyota Corolla "
                "Hybrid 58.75/day.")
    t.user("The Corolla hybrid.")
    t.call("rental_get_offer", "of-1", {"offer_id": "of_9XK2M3"})
    diesel = t.result("of-1", result={"offer": {"offer_id": "of_9XK2M3", "supplier": "Lusocar",
                                       "vehicle": {"model": "Toyota Corolla TS 1.6 D-4D", "sipp": "CDMD",
                                                   "fuel": "diesel", "transmission": "manual"},
                                       "price": {"daily": "58.75", "days": 5, "total": "293.75", "change_fee": "25.00"},
                                       "terms": {"fuel_policy": "full-to-full", "deposit": "900.00"}}})
    t.assistant("Careful: the offer detail says this Corolla is a 1.6 diesel, not the hybrid the list showed.")
    t.user("Ugh. Fine, take the Panda then. Go ahead if the total is under 300.")
    t.call("rental_get_offer", "of-2", {"offer_id": "of_9XK2L1"})
    t.result("of-2", result={"offer": {"offer_id": "of_9XK2L1", "supplier": "Movirent",
                                       "vehicle": {"model": "Fiat Panda 1.0 Hybrid", "sipp": "EDMR", "fuel": "petrol",
                                                   "transmission": "manual"},
                                       "price": {"daily": "41.90", "days": 5, "total": "209.50", "change_fee": "25.00"},
                                       "terms": {"fuel_policy": "full-to-full", "deposit": "600.00"}}})
    t.call("rental_modify_reservation", "md-1", {"confirmation": "K7Q-48213", "offer_id": "of_9XK2L1",
                                                 "pickup_location": "OPO-SB", "return_date": "2025-06-19"},
           idem="modify-K7Q-48213-1")
    md1 = t.result("md-1", outcome="failed", error="PAYMENT_REAUTH_REQUIRED: card 4471 must re-authorise the new "
                                                    "deposit; approval apr_cr_5521 sent to the customer app")
    t.approval("apr_cr_5521", "requested", scopes_event=md1 - 1, reason="deposit re-authorisation", amount="600.00")
    t.user("Hold on, where does it go back? Return it at São Bento as well, not Lisbon.")
    t.decision("d-before-retry",
               pending(approval_id="apr_cr_5521", why="the re-authorisation is still open"),
               tool_state("failed", call_id="md-1"),
               next_call("rental_modify_reservation", confirmation="K7Q-48213", offer_id="of_9XK2L1",
                         why="the retry needs the confirmation typed once and the offer picked before"),
               fact("return_date", "2025-06-19", superseded=["2025-06-18"],
                    why="the correction supersedes the reservation's date"),
               constraint(u1, "No diesel", why="why the Corolla was dropped"))
    t.approval("apr_cr_5521", "granted", scopes_event=md1 - 1)
    t.call("rental_modify_reservation", "md-2", {"confirmation": "K7Q-48213", "offer_id": "of_9XK2L1",
                                                 "pickup_location": "OPO-SB", "return_location": "OPO-SB",
                                                 "return_date": "2025-06-19"}, idem="modify-K7Q-48213-2")
    t.result("md-2", result={"reservation": {"confirmation": "K7Q-48213", "status": "CONFIRMED", "revision": 3,
                                             "pickup_date": "2025-06-14", "return_date": "2025-06-19",
                                             "vehicle": {"model": "Fiat Panda 1.0 Hybrid", "sipp": "EDMR"},
                                             "charges": {"total": "209.50", "change_fee": "25.00",
                                                         "due_at_pickup": "234.50"}}})
    t.user("I approved it. So what do I pay at the desk in the end?")
    t.decision("d-final",
               fact("due_at_pickup", "234.50"),
               fact("total", "209.50", superseded=["293.75"], why="the Corolla's total was only a quote"),
               evidence(diesel, why="the contradicting offer detail"))
    return t


def t_crm() -> Traj:
    t = Traj("crm-lead-update", "Qualify a lead, find its duplicate, keep the owner", 512,
             ["a user correction of a deal amount typed once (48,000 -> 84,000)",
              "the rule 'never change a lead's owner without asking' set early",
              "an update response contradicts the lead record: an assignment rule changed the owner",
              "ids returned by the search are used several turns later (owner id, duplicate id)",
              "an irreversible merge waits for the user's approval"],
             "A sales manager asks the agent to qualify a lead and set the deal size; the CRM has a duplicate "
             "and an assignment rule silently reassigns the lead.")
    u1 = t.user("Update Harriet Vance at Kestrel Freight: move her from Contacted to Qualified, deal size 48,000 "
                "USD, close date end of Q3. Ravi owns her. Never change the owner on a lead without asking me.")
    t.fact("deal_amount", "48000", subject="lead_id=00Q5e000009fK2aEAE")
    t.call("crm_search", "se-1", {"query": "Harriet Vance Kestrel", "objects": ["Lead", "Contact"]})
    t.result("se-1", result={"totalSize": 2, "records": [
        {"attributes": {"type": "Lead"}, "Id": "00Q5e000009fK2aEAE", "Name": "Harriet Vance",
         "Company": "Kestrel Freight", "Email": "h.vance@kestrelfreight.com", "Status": "Contacted",
         "OwnerId": "0055e000003RvAnQAK", "CreatedDate": "2024-11-02T14:11:09Z"},
        {"attributes": {"type": "Lead"}, "Id": "00Q5e000009fL7cEAE", "Name": "Harriet Vance",
         "Company": "Kestrel Freight Ltd", "Email": "harriet@kestrel-freight.co.uk", "Status": "Open",
         "OwnerId": "0055e000004DwHtQAK", "CreatedDate": "2025-02-19T09:40:51Z"}]})
    t.call("crm_get_lead", "gl-1", {"lead_id": "00Q5e000009fK2aEAE"})
    t.result("gl-1", result={"Id": "00Q5e000009fK2aEAE", "Status": "Contacted", "Amount__c": None,
                             "Owner": {"Id": "0055e000003RvAnQAK", "Name": "Ravi Anand"},
                             "Region__c": "EMEA", "LeadSource": "Webinar", "Rating": "Warm",
                             "LastActivityDate": "2025-03-03"})
    t.assistant("Found two Harriet Vance leads: 00Q5e000009fK2aEAE (Ravi, Contacted) and a newer "
                "00Q5e000009fL7cEAE (owner Dana Whitfield, Open). I'll update the first.")
    u2 = t.user("Yes the first. And sorry, typo: deal size is 84,000, not 48,000.")
    t.correction("deal_amount", "84000", subject="lead_id=00Q5e000009fK2aEAE")
    t.call("crm_update_lead", "up-1", {"lead_id": "00Q5e000009fK2aEAE", "Status": "Qualified",
                                       "Amount__c": "84000", "CloseDate__c": "2025-09-30"})
    changed = t.result("up-1", result={"id": "00Q5e000009fK2aEAE", "success": True, "errors": [],
                             "record": {"Status": "Qualified", "Amount__c": "84000.00",
                                        "Owner": {"Id": "0055e000004DwHtQAK", "Name": "Dana Whitfield"},
                                        "LastModifiedBy": "Integration User",
                                        "AssignmentRule": "EMEA Qualified > 50k"}})
    t.user("Merge the newer duplicate into the first one.")
    ap = t.assistant("Merging 00Q5e000009fL7cEAE into 00Q5e000009fK2aEAE is irreversible; it keeps the first "
                     "lead's fields. Please approve.")
    t.approval("apr-merge-2231", "requested", scopes_event=ap, action="crm_merge_leads")
    t.user("Wait, why does the update say Dana owns her now?")
    t.decision("d-owner",
               constraint(u1, "Never change the owner", why="the assignment rule broke the user's rule"),
               evidence(changed, why="the update response where the owner changed"),
               next_call("crm_update_lead", OwnerId="0055e000003RvAnQAK",
                         why="putting Ravi back needs his id from the search, several turns back"),
               pending(approval_id="apr-merge-2231", why="the merge is still waiting"),
               fact("deal_amount", "84000", superseded=["48000"], subject="lead_id=00Q5e000009fK2aEAE"))
    t.call("crm_update_lead", "up-2", {"lead_id": "00Q5e000009fK2aEAE", "OwnerId": "0055e000003RvAnQAK",
                                       "SkipAssignmentRules": True})
    t.result("up-2", result={"id": "00Q5e000009fK2aEAE", "success": True, "errors": [],
                             "record": {"Owner": {"Id": "0055e000003RvAnQAK", "Name": "Ravi Anand"}}})
    t.user("Good. Approve the merge, and create a follow-up task for Ravi for Friday.")
    t.approval("apr-merge-2231", "granted", scopes_event=ap)
    t.user("Go.")
    t.decision("d-merge",
               next_call("crm_merge_leads", master_id="00Q5e000009fK2aEAE", duplicate_id="00Q5e000009fL7cEAE",
                         why="both ids came from the first search"),
               tool_state("succeeded", call_id="up-2", why="the owner was put back"))
    return t


def t_home_automation() -> Traj:
    t = Traj("home-automation-routine", "Build and test a 'leaving home' automation", 256,
             ["a user correction of the thermostat target (16 -> 17)",
              "a rule set in the first message: never touch the garage door",
              "the automation id returned on creation is needed for later calls",
              "a trigger call left unanswered by a restart is unknown, then answered by a status query",
              "the trace contradicts what the user sees (the hallway light was never in the routine)"],
             "A user asks the agent to create a home-automation routine, then to run it once; the agent "
             "restarts while the run is in flight.")
    u1 = t.user("Make me a 'Leaving home' routine: downstairs lights off, thermostat to 16, lock the front door. "
                "Only if the front door contact says closed. Never touch the garage door, it stays manual.")
    t.fact("target_temperature", 16, subject="entity_id=climate.downstairs")
    t.call("ha_list_entities", "le-1", {"area": "downstairs"})
    t.result("le-1", result={"area_id": "downstairs", "entities": [
        {"entity_id": "light.living_room_ceiling", "state": "on"},
        {"entity_id": "light.kitchen_pendants", "state": "off"},
        {"entity_id": "climate.downstairs", "state": "heat", "attributes": {"current_temperature": 20.5}},
        {"entity_id": "lock.front_door_nuki", "state": "unlocked"},
        {"entity_id": "binary_sensor.front_door_contact", "state": "off", "device_class": "door"},
        {"entity_id": "cover.garage_door", "state": "closed"}]})
    t.user("Actually 17, not 16. The cat complains.")
    t.correction("target_temperature", 17, subject="entity_id=climate.downstairs")
    t.call("ha_create_automation", "ca-1", {"alias": "Leaving home", "mode": "single",
        "condition": [{"condition": "state", "entity_id": "binary_sensor.front_door_contact", "state": "off"}],
        "action": [{"service": "light.turn_off", "target": {"entity_id": ["light.living_room_ceiling",
                                                                          "light.kitchen_pendants"]}},
                   {"service": "climate.set_temperature", "target": {"entity_id": "climate.downstairs"},
                    "data": {"temperature": 17}},
                   {"service": "lock.lock", "target": {"entity_id": "lock.front_door_nuki"}}]})
    t.result("ca-1", result={"result": "ok", "automation_id": "automation.leaving_home_2", "id": "1718031822431"})
    t.user("Run it once now so I can see it work.")
    t.call("ha_trigger_automation", "tr-1", {"automation_id": "automation.leaving_home_2", "skip_condition": False})
    t.recover()
    t.user("Hello? Did it run? The hallway light is still on.")
    t.decision("d-after-restart",
               tool_state("unknown", call_id="tr-1", why="the agent restarted while the trigger was in flight"),
               pending(call_id="tr-1", why="the run has no answer yet"),
               next_call("ha_get_state", entity_id="lock.front_door_nuki", why="check the lock's state"),
               fact("target_temperature", 17, superseded=[16], subject="entity_id=climate.downstairs"))
    t.status("tr-1", "succeeded", result={"last_triggered": "2025-05-09T07:42:13+00:00",
                                          "trace": {"state": "stopped", "script_execution": "finished",
                                                    "actions_run": 3}})
    t.call("ha_get_state", "gs-1", {"entity_id": "lock.front_door_nuki"})
    trace = t.result("gs-1", result={"entity_id": "lock.front_door_nuki", "state": "locked",
                                     "last_changed": "2025-05-09T07:42:15+00:00"})
    t.user("OK the door locked. Add the hallway light to it too, it's in the 'hall' area. Nothing else changes.")
    t.decision("d-add-hallway",
               next_call("ha_update_automation", automation_id="automation.leaving_home_2",
                         why="the id came back from the creation call"),
               constraint(u1, "Never touch the garage door", why="nothing else may be added"),
               tool_state("succeeded", call_id="tr-1"),
               evidence(trace, why="the lock's new state"))
    return t


def t_concert() -> Traj:
    t = Traj("concert-ticket-exchange", "Exchange concert tickets to another night within a budget", 1024,
             ["an exchange code and a friend's email typed once, needed several turns later",
              "the user's limit (no more than 40 extra in total, seats together) rules out a changed price",
              "a seat hold contradicts the option list (row L, not row K)",
              "an irreversible exchange that failed, then one that succeeded",
              "ticket ids returned by the exchange are used by a transfer that waits for approval",
              "the current hold id supersedes the first one"],
             "A fan swaps two tickets from the first night to the second, under a price limit, and then sends "
             "one ticket to a friend.")
    u1 = t.user("I've got order TM-38-51127, two tickets for Rosalía at the O2 on 3 October. I want to swap to "
                "the 4 October show. The seats must stay together and I won't pay more than 40 pounds extra in "
                "total. The exchange code from the email is XCH-ROSE-7731.")
    t.call("tix_get_order", "go-1", {"order_id": "TM-38-51127"})
    t.result("go-1", result={"order": {
        "order_id": "TM-38-51127", "status": "fulfilled", "delivery": "mobile",
        "event": {"event_id": "EV-1003-O2", "name": "Rosalía - LUX Tour", "venue": "The O2, London",
                  "starts_at": "2025-10-03T20:00:00+01:00"},
        "tickets": [{"ticket_id": "T-9F21A0", "section": "113", "row": "P", "seat": "21", "face_value": "95.50"},
                    {"ticket_id": "T-9F21A1", "section": "113", "row": "P", "seat": "22", "face_value": "95.50"}],
        "fees": {"service": "14.30", "order_processing": "2.75"},
        "exchange": {"eligible": True, "deadline": "2025-09-26T23:59:00+01:00", "fee_per_ticket": "1.50"}}})
    t.call("tix_exchange_options", "xo-1", {"order_id": "TM-38-51127", "event_id": "EV-1004-O2", "quantity": 2,
                                            "exchange_code": "XCH-ROSE-7731"})

    def block(rng, i):
        sec = rng.choice(["101", "105", "112", "114", "201", "210", "219", "402", "408"])
        row = rng.choice("ABCDEFGHJKLMN")
        first = rng.randint(1, 30)
        price = rng.choice(["95.50", "103.00", "112.75", "87.25", "126.40", "79.90"])
        diff = f"{(float(price) - 95.50) * 2:.2f}"
        return {"block_id": f"blk_{sec}{row}_{first}", "section": sec, "row": row, "seats": [str(first), str(first + 1)],
                "price_each": price, "difference_total": diff, "view": rng.choice(["clear", "side", "restricted"])}
    blocks = rows(t, 7, block)
    blocks.insert(2, {"block_id": "blk_114K_7", "section": "114", "row": "K", "seats": ["7", "8"],
                      "price_each": "104.00", "difference_total": "17.00", "view": "clear"})
    t.result("xo-1", result={"event_id": "EV-1004-O2", "currency": "GBP", "quantity": 2, "blocks": blocks,
                             "expires_in_s": 600})
    t.assistant("Within +40 and together: 114 row K seats 7-8 (+17.00 total) and a few others; 114 K has a "
                "clear view.")
    t.user("114 row K. And later I'll send one of the tickets to Jules, jules.marchetti@fastmail.com.")
    t.call("tix_hold_seats", "hd-1", {"event_id": "EV-1004-O2", "block_id": "blk_114K_7", "quantity": 2})
    row_l = t.result("hd-1", result={"hold": {"hold_id": "hld_77Q2XR", "expires_at": "2025-09-12T18:41:09Z",
                                              "seats": [{"section": "114", "row": "L", "seat": "7"},
                                                        {"section": "114", "row": "L", "seat": "8"}],
                                              "difference_total": "17.00"}})
    t.assistant("The hold came back as row L seats 7-8, not row K as the list said. Still together.")
    t.user("Row L is fine as long as they're together. Do it.")
    t.call("tix_exchange_order", "ex-1", {"order_id": "TM-38-51127", "hold_id": "hld_77Q2XR",
                                          "exchange_code": "XCH-ROSE-7731", "payment": "card_on_file"},
           idem="xch-TM-38-51127-1")
    t.result("ex-1", outcome="failed", error="HOLD_PRICE_CHANGED: dynamic pricing moved the difference to 52.00; "
                                             "re-quote required")
    t.assistant("The price moved: the difference is now 52.00, over your 40 limit. I have not exchanged.")
    t.user("No, not at 52. What else is there?")
    t.decision("d-requote",
               constraint(u1, "more than 40 pounds extra", why="52.00 breaks the limit"),
               tool_state("failed", call_id="ex-1", why="nothing was exchanged"),
               next_call("tix_exchange_options", exchange_code="XCH-ROSE-7731", order_id="TM-38-51127",
                         why="the code was typed once, in the first message"),
               evidence(row_l, why="the hold that contradicted the option list"))
    t.call("tix_exchange_options", "xo-2", {"order_id": "TM-38-51127", "event_id": "EV-1004-O2", "quantity": 2,
                                            "exchange_code": "XCH-ROSE-7731"})
    blocks2 = rows(t, 5, block)
    blocks2.insert(1, {"block_id": "blk_210C_14", "section": "210", "row": "C", "seats": ["14", "15"],
                       "price_each": "95.50", "difference_total": "0.00", "view": "clear"})
    t.result("xo-2", result={"event_id": "EV-1004-O2", "currency": "GBP", "quantity": 2, "blocks": blocks2,
                             "expires_in_s": 600})
    t.user("210 row C, same price. Go.")
    t.call("tix_hold_seats", "hd-2", {"event_id": "EV-1004-O2", "block_id": "blk_210C_14", "quantity": 2})
    t.result("hd-2", result={"hold": {"hold_id": "hld_81MM0P", "expires_at": "2025-09-12T18:55:30Z",
                                      "seats": [{"section": "210", "row": "C", "seat": "14"},
                                                {"section": "210", "row": "C", "seat": "15"}],
                                      "difference_total": "0.00"}})
    t.call("tix_exchange_order", "ex-2", {"order_id": "TM-38-51127", "hold_id": "hld_81MM0P",
                                          "exchange_code": "XCH-ROSE-7731", "payment": "card_on_file"},
           idem="xch-TM-38-51127-2")
    t.result("ex-2", result={"order": {"order_id": "TM-38-51127", "revision": 2, "event_id": "EV-1004-O2",
                                       "tickets": [{"ticket_id": "T-A4410C", "section": "210", "row": "C", "seat": "14"},
                                                   {"ticket_id": "T-A4410D", "section": "210", "row": "C", "seat": "15"}],
                                       "voided": ["T-9F21A0", "T-9F21A1"]},
                             "charged": "3.00", "charge_breakdown": {"difference": "0.00", "exchange_fees": "3.00"}})
    t.user("Lovely. Now send seat 15 to Jules.")
    ap = t.assistant("A transfer cannot be undone once Jules accepts. Approve sending T-A4410D (210 C 15)?")
    t.approval("apr-tr-0919", "requested", scopes_event=ap, action="tix_transfer_ticket")
    t.user("Before I approve: what did the swap cost me in the end, and which hold did we use?")
    t.decision("d-transfer",
               pending(approval_id="apr-tr-0919", why="the transfer waits for the user's approval"),
               next_call("tix_transfer_ticket", ticket_id="T-A4410D", recipient_email="jules.marchetti@fastmail.com",
                         why="the email was typed once, mid-conversation; the ticket id came from the exchange"),
               fact("charged", "3.00"),
               fact("hold_id", "hld_81MM0P", superseded=["hld_77Q2XR"], why="the first hold was abandoned"),
               tool_state("succeeded", call_id="ex-2"))
    return t


def t_payroll() -> Traj:
    t = Traj("payroll-overtime-correction", "Correct an employee's underpaid overtime through an off-cycle run",
             1024,
             ["a user correction of the overtime hours (11.5 -> 13.5)",
              "a second employee record contradicts the first (the base rate changed on 1 March)",
              "constraints set early: never touch the closed March run; over 300 needs the approver",
              "the off-cycle run id from a listing is used several turns later",
              "a replaced adjustment: the newest gross supersedes the first",
              "an approval request pending, then granted"],
             "A payroll administrator asks the agent to pay an employee the overtime a closed run underpaid.")
    u1 = t.user("Fix Tomasz Wierzbicki's March overtime, employee E-20417. He did 11.5 overtime hours but the "
                "March run paid 6. Do NOT touch the March run, it's closed and filed; put the difference in the "
                "April off-cycle run. Anything over 300 pounds needs Priya's sign-off before it goes out.")
    t.fact("ot_hours", "11.5", subject="employee_id=E-20417, period=2025-03")
    t.call("payroll_get_employee", "em-1", {"employee_id": "E-20417"})
    t.result("em-1", result={"employee": {
        "employee_id": "E-20417", "name": "Tomasz Wierzbicki", "pay_group": "UK-MONTHLY", "status": "active",
        "cost_center": "OPS-LDN-04", "tax": {"code": "1257L", "basis": "cumulative", "ni_category": "A"},
        "pay": {"type": "hourly", "base_rate": "24.60", "effective_from": "2024-04-01",
                "overtime_multiplier": "1.5", "contracted_hours_month": "151.67"},
        "pension": {"scheme": "NEST", "employee_pct": "5", "employer_pct": "3"}},
        "recent_payslips": [{"payslip_id": "PS-2025-03-E20417", "run_id": "RUN-2025-03-M", "paid_on": "2025-03-28"},
                            {"payslip_id": "PS-2025-02-E20417", "run_id": "RUN-2025-02-M", "paid_on": "2025-02-28"}]})
    t.call("payroll_get_payslip", "ps-1", {"payslip_id": "PS-2025-03-E20417"})
    lines = [{"code": "BASIC", "units": "151.67", "rate": "24.60", "amount": "3731.08"},
             {"code": "OT150", "units": "6.00", "rate": "36.90", "amount": "221.40"},
             {"code": "PAYE", "amount": "-612.40"}, {"code": "NI_EE", "amount": "-251.95"},
             {"code": "PENSION_EE", "amount": "-197.62"}, {"code": "SL_PLAN2", "amount": "-61.00"},
             {"code": "CYCLE2WORK", "amount": "-41.67"}, {"code": "NI_ER", "amount": "424.18", "employer": True}]
    paid6 = t.result("ps-1", result={"payslip": {"payslip_id": "PS-2025-03-E20417", "run_id": "RUN-2025-03-M",
                                                 "run_state": "closed", "gross_pay": "3952.48", "net_pay": "2890.51",
                                                 "lines": lines, "ytd": {"gross": "44731.02", "tax": "7012.60"}}})
    t.user("Sorry, I misread the timesheet. It's 13.5 overtime hours, not 11.5.")
    t.correction("ot_hours", "13.5", subject="employee_id=E-20417, period=2025-03")
    t.call("payroll_list_runs", "lr-1", {"company_id": "ACME-UK", "from": "2025-03-01", "to": "2025-04-30"})
    t.result("lr-1", result={"company_id": "ACME-UK", "runs": [
        {"run_id": "RUN-2025-03-M", "type": "regular", "period": "2025-03", "state": "closed", "pay_date": "2025-03-28"},
        {"run_id": "RUN-2025-04-OC0", "type": "off_cycle", "period": "2025-04", "state": "cancelled",
         "pay_date": "2025-04-11"},
        {"run_id": "RUN-2025-04-OC1", "type": "off_cycle", "period": "2025-04", "state": "open",
         "pay_date": "2025-04-17", "cutoff": "2025-04-15T17:00:00+01:00"},
        {"run_id": "RUN-2025-04-M", "type": "regular", "period": "2025-04", "state": "open", "pay_date": "2025-04-28"}]})
    t.assistant("Underpaid 7.5 h at 36.90 = 276.75. The open off-cycle run is RUN-2025-04-OC1 (pays 17 April). "
                "Add it there?")
    t.user("Yes.")
    t.call("payroll_create_adjustment", "ad-1", {"employee_id": "E-20417", "run_id": "RUN-2025-04-OC1",
                                                 "type": "OVERTIME_ARREARS", "units": "7.5", "rate": "36.90",
                                                 "amount": "276.75", "memo": "March OT underpaid"},
           idem="adj-E20417-OC1-1")
    t.result("ad-1", result={"adjustment": {"adjustment_id": "ADJ-55810", "state": "draft", "gross": "276.75",
                                            "employer_costs": {"ni_er": "38.19", "pension_er": "8.30"}}})
    t.user("Hang on, the timesheet export shows his rate went up on 1 March. Check what the record says for March.")
    t.call("payroll_get_employee", "em-2", {"employee_id": "E-20417", "as_of": "2025-03-15"})
    rate = t.result("em-2", result={"employee": {
        "employee_id": "E-20417", "pay": {"type": "hourly", "base_rate": "26.10", "effective_from": "2025-03-01",
                                          "overtime_multiplier": "1.5"},
        "history": {"changed_by": "hr-sync", "changed_at": "2025-03-04T09:12:44Z", "previous_base_rate": "24.60"}}})
    t.assistant("The March rate was 26.10 (OT 39.15), and March paid OT at 36.90. Owed: 13.5 x 39.15 = 528.53, "
                "minus 221.40 paid = 307.13. That is over 300, so Priya has to sign off.")
    t.user("Redo the adjustment with the right numbers and send it to Priya.")
    t.call("payroll_create_adjustment", "ad-2", {"employee_id": "E-20417", "run_id": "RUN-2025-04-OC1",
                                                 "type": "OVERTIME_ARREARS", "units": "13.5", "rate": "39.15",
                                                 "amount": "307.13", "replaces": "ADJ-55810",
                                                 "memo": "March OT underpaid (13.5 h at 39.15, less 221.40 paid)"},
           idem="adj-E20417-OC1-2")
    t.result("ad-2", result={"adjustment": {"adjustment_id": "ADJ-55827", "state": "draft", "gross": "307.13",
                                            "replaced": "ADJ-55810",
                                            "employer_costs": {"ni_er": "42.38", "pension_er": "9.21"}},
                             "warnings": [{"code": "ARREARS_PRIOR_PERIOD", "message": "Arrears for a closed period "
                                           "are taxed in the period paid (2025-04), not the period earned."},
                                          {"code": "REPLACES_DRAFT", "message": "ADJ-55810 will be voided when "
                                           "this adjustment is approved."}]})
    t.call("payroll_request_approval", "ra-1", {"run_id": "RUN-2025-04-OC1", "approver": "priya.nair",
                                                "items": ["ADJ-55827"]})
    asked = t.result("ra-1", result={"approval_request": {"id": "PAR-0932", "state": "awaiting_approver",
                                                          "approver": "priya.nair"}})
    t.approval("PAR-0932", "requested", scopes_event=asked - 1, approver="priya.nair")
    t.user("While we wait: what will he get gross, and you're sure the March run is untouched?")
    t.decision("d-waiting",
               pending(approval_id="PAR-0932", why="Priya has not answered"),
               constraint(u1, "Do NOT touch the March run"),
               fact("gross", "307.13", superseded=["276.75"], why="ADJ-55827 replaced ADJ-55810"),
               fact("base_rate", "26.10", superseded=["24.60"], why="the as-of record contradicts the first one"),
               fact("ot_hours", "13.5", superseded=["11.5"], subject="employee_id=E-20417, period=2025-03"))
    t.approval("PAR-0932", "granted", scopes_event=asked - 1, approver="priya.nair")
    t.user("Priya approved. Finalise the off-cycle run so it pays on the 17th.")
    t.decision("d-finalise",
               next_call("payroll_finalize_run", run_id="RUN-2025-04-OC1",
                         why="the run id came from the listing, not from this message"),
               evidence(paid6, rate, why="the payslip and the rate record the amount rests on"),
               tool_state("succeeded", call_id="ad-2"))
    return t


def t_app_release() -> Traj:
    t = Traj("app-store-release", "Prepare an app store version with phased, manual release", 512,
             ["a user correction of the build to ship (4120.3 -> 4120.5)",
              "constraints set first: manual release only, phased release, no 'beta' in What's New",
              "a build listing contradicts the attach call (VALID vs still processing)",
              "the version id returned on creation is used by every later call",
              "an irreversible submission waits for the user's approval"],
             "A release manager asks the agent to set up version 4.12.0 of an iOS app; QA pulls the first build.")
    app = "1495530212"
    vid = "e3f1d2c4-91aa-4b3e-a0c2-77d0b3f1a8e9"
    b3, b4, b5 = "7b0c1f52-6d1e-4a0f-9a3e-2c51f0d8a613", "0f4d2a9e-35b8-4c2d-8e1f-96a7c3b4d528", \
        "c9e87a11-4f02-4b6b-b3d0-5e21a9f07c4d"
    u1 = t.user(f"Prepare release 4.12.0 of the Fieldnote iOS app, app id {app}. Phased release on. Never release "
                "automatically after approval, I press the button myself. And What's New must not mention 'beta'.")
    t.call("store_list_builds", "lb-1", {"app_id": app, "filter_version": "4.12.0"})
    t.result("lb-1", result={"data": [
        {"type": "builds", "id": b3, "attributes": {"version": "4120.3", "processingState": "VALID",
                                                  "uploadedDate": "2025-05-06T16:02:11-07:00", "expired": False}},
        {"type": "builds", "id": b4, "attributes": {"version": "4120.4", "processingState": "INVALID",
                                                  "uploadedDate": "2025-05-07T10:40:55-07:00", "expired": False}},
        {"type": "builds", "id": b5, "attributes": {"version": "4120.5", "processingState": "PROCESSING",
                                                  "uploadedDate": "2025-05-08T09:15:37-07:00", "expired": False}}],
        "meta": {"paging": {"total": 3, "limit": 50}}})
    t.call("store_create_version", "cv-1", {"app_id": app, "versionString": "4.12.0", "platform": "IOS"})
    t.result("cv-1", result={"data": {"type": "appStoreVersions", "id": vid,
                                      "attributes": {"versionString": "4.12.0", "appStoreState": "PREPARE_FOR_SUBMISSION",
                                                     "releaseType": "AFTER_APPROVAL"}}})
    t.user("Attach build 4120.3.")
    t.fact("build_number", "4120.3", subject="version=4.12.0")
    t.call("store_attach_build", "ab-1", {"version_id": vid, "build_id": b3})
    t.result("ab-1", result={"data": {"type": "builds", "id": b3}, "links": {"self": f"/v1/appStoreVersions/{vid}/relationships/build"}})
    t.user("Damn. QA says 4120.3 crashes on launch on iOS 16. Use 4120.5 instead, it has the fix.")
    t.correction("build_number", "4120.5", subject="version=4.12.0")
    t.call("store_list_builds", "lb-2", {"app_id": app, "filter_version": "4.12.0", "filter_build": "4120.5"})
    valid = t.result("lb-2", result={"data": [{"type": "builds", "id": b5, "attributes": {
        "version": "4120.5", "processingState": "VALID", "uploadedDate": "2025-05-08T09:15:37-07:00"}}]})
    t.call("store_attach_build", "ab-2", {"version_id": vid, "build_id": b5})
    stillproc = t.result("ab-2", outcome="failed", error="409 ENTITY_ERROR.RELATIONSHIP.INVALID: The build "
                                                         f"{b5} is still processing and cannot be selected.")
    t.call("store_set_release_options", "ro-1", {"version_id": vid, "releaseType": "MANUAL", "phasedRelease": True})
    t.result("ro-1", result={"data": {"id": vid, "attributes": {"releaseType": "MANUAL"}},
                             "included": [{"type": "appStoreVersionPhasedReleases", "id": "ph-" + t.hexid(8),
                                           "attributes": {"phasedReleaseState": "INACTIVE"}}]})
    t.call("store_update_localization", "lo-1", {"version_id": vid, "locale": "en-US",
                                                 "whatsNew": "Offline maps for saved trails, faster sync, and a fix "
                                                             "for the crash when exporting GPX files."})
    t.result("lo-1", result={"data": {"type": "appStoreVersionLocalizations", "id": "loc-" + t.hexid(8),
                                      "attributes": {"locale": "en-US", "whatsNew": "Offline maps for saved trails, "
                                                     "faster sync, and a fix for the crash when exporting GPX files."}}})
    t.user("Is the new build on the version now? If so, submit it for review.")
    t.decision("d-build",
               tool_state("failed", call_id="ab-2", why="the attach was refused: the build was still processing"),
               next_call("store_attach_build", build_id=b5, version_id=vid,
                         why="the retry needs the build id of 4120.5 and the version id from creation"),
               fact("build_number", "4120.5", superseded=["4120.3"], subject="version=4.12.0"),
               evidence(valid, stillproc, why="the listing and the attach contradict each other"))
    t.call("store_attach_build", "ab-3", {"version_id": vid, "build_id": b5})
    t.result("ab-3", result={"data": {"type": "builds", "id": b5},
                             "links": {"self": f"/v1/appStoreVersions/{vid}/relationships/build"}})
    ap = t.assistant("4120.5 is attached now. Submitting for review cannot be taken back. Approve?")
    t.approval("apr-submit-4120", "requested", scopes_event=ap, action="store_submit_for_review")
    t.user("Wait, show me the final What's New text first.")
    t.decision("d-submit",
               pending(approval_id="apr-submit-4120"),
               next_call("store_submit_for_review", version_id=vid),
               constraint(u1, "Never release automatically"),
               constraint(u1, "must not mention 'beta'"))
    return t


def t_db_migration() -> Traj:
    dsn = "postgresql://migrator@pg-orders-eu2.internal:6432/orders?sslmode=verify-full&application_name=agent-migrate"
    t = Traj("db-migration-connstring", "Apply production migrations in stages around a DROP and a rewrite", 1024,
             ["a connection string typed once by the user, needed for every later call",
              "constraints set first: no DROP without a snapshot, no table rewrite before 22:00 UTC",
              "two user corrections of the target revision; the newest wins",
              "a lock check contradicts the earlier one (an idle-in-transaction session appeared)",
              "the snapshot id returned early is passed to the final apply",
              "an irreversible apply cut off by a restart is unknown, then answered by a status query"],
             "A DBA asks the agent to migrate the production orders database tonight; the plan holds a DROP and a "
             "table rewrite.")
    u1 = t.user(f"Run the orders migrations on production tonight. Connection string: {dsn} . Final target is "
                "revision 3c9d0e7b1f42. Never run anything with a DROP unless a snapshot was taken first, and no "
                "table rewrites before 22:00 UTC.")
    t.fact("target_revision", "3c9d0e7b1f42", subject="database=orders")
    t.call("sql_query", "q-1", {"database": "orders", "dsn": dsn, "sql": "select version_num from alembic_version"})
    t.result("q-1", result={"columns": ["version_num"], "rows": [["a81f2c9d0e11"]], "rowcount": 1,
                            "server": {"version": "16.4", "in_recovery": False}})
    t.call("migration_plan", "mp-1", {"database": "orders", "dsn": dsn, "from": "a81f2c9d0e11", "to": "3c9d0e7b1f42"})
    t.result("mp-1", result={"head": "3c9d0e7b1f42", "current": "a81f2c9d0e11", "steps": [
        {"revision": "b02e77c1d3a9", "down_revision": "a81f2c9d0e11", "message": "add orders.fulfilment_region",
         "ddl": ["ALTER TABLE orders ADD COLUMN fulfilment_region text"], "rewrites_table": False, "destructive": False},
        {"revision": "5f1a0b3c8e27", "down_revision": "b02e77c1d3a9", "message": "drop legacy_coupons",
         "ddl": ["DROP TABLE legacy_coupons"], "rewrites_table": False, "destructive": True},
        {"revision": "3c9d0e7b1f42", "down_revision": "5f1a0b3c8e27", "message": "orders.total to numeric(12,2)",
         "ddl": ["ALTER TABLE orders ALTER COLUMN total TYPE numeric(12,2)"], "rewrites_table": True,
         "destructive": False, "estimated_rows": 48200311}]},
             log="INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
                 "INFO  [alembic.runtime.migration] Will assume transactional DDL.\n"
                 "INFO  [alembic.runtime.migration] Running upgrade a81f2c9d0e11 -> b02e77c1d3a9 (offline)\n"
                 "INFO  [alembic.runtime.migration] Running upgrade b02e77c1d3a9 -> 5f1a0b3c8e27 (offline)\n"
                 "INFO  [alembic.runtime.migration] Running upgrade 5f1a0b3c8e27 -> 3c9d0e7b1f42 (offline)")
    t.assistant("The plan has a DROP (5f1a0b3c8e27) and a full rewrite of orders (3c9d0e7b1f42, 48M rows). "
                "I'll snapshot before anything destructive; the rewrite waits until 22:00 UTC.")
    t.user("It's 20:40 UTC. Take the snapshot and apply up to 5f1a0b3c8e27 for now.")
    t.correction("target_revision", "5f1a0b3c8e27", subject="database=orders")
    t.call("db_snapshot", "sn-1", {"cluster": "pg-orders-eu2", "label": "pre-migrate-3c9d0e7b1f42"})
    t.result("sn-1", result={"snapshot": {"id": "snap-0f3a9c22e1b7", "cluster": "pg-orders-eu2", "state": "completed",
                                          "size_gb": 412, "started_at": "2025-04-09T20:41:07Z",
                                          "completed_at": "2025-04-09T20:52:31Z", "retention_days": 14}},
             log="\n".join(f"2025-04-09T20:{41 + i * 2}:{t.rng.randint(10, 59)}Z volume vol-{t.hexid(8)} "
                           f"snapshot progress {min(100, 18 * (i + 1))}%" for i in range(6)))
    t.call("sql_query", "q-2", {"database": "orders", "dsn": dsn,
                                "sql": "select pid, state, xact_start, left(query, 60) from pg_stat_activity where "
                                       "state = 'active' and xact_start < now() - interval '5 minutes'"})
    none = t.result("q-2", result={"columns": ["pid", "state", "xact_start", "left"], "rows": [], "rowcount": 0})
    t.user("Change of plan: only up to b02e77c1d3a9 for now. The coupon team still reads legacy_coupons until "
           "tonight's export finishes.")
    t.correction("target_revision", "b02e77c1d3a9", subject="database=orders")
    t.call("sql_query", "q-3", {"database": "orders", "dsn": dsn,
                                "sql": "select a.pid, a.state, a.application_name, a.xact_start, l.mode from "
                                       "pg_locks l join pg_stat_activity a using (pid) where l.relation = "
                                       "'orders'::regclass"})

    def session(rng, i):
        return [rng.randint(30000, 60000), "active", rng.choice(["orders-api", "orders-api", "checkout-worker"]),
                f"2025-04-09T20:5{rng.randint(3, 9)}:{rng.randint(10, 59)}Z", "AccessShareLock"]
    locks = [[48121, "idle in transaction", "reporting-etl", "2025-04-09T20:12:03Z", "AccessShareLock"]] + rows(t, 4, session)
    idle = t.result("q-3", result={"columns": ["pid", "state", "application_name", "xact_start", "mode"],
                                   "rows": locks, "rowcount": len(locks)})
    t.assistant("Unlike the first check, there is a reporting-etl session (pid 48121) idle in transaction since "
                "20:12 holding a lock on orders; the ALTER would queue behind it and block the API.")
    t.user("Don't kill it. Use a 5 second lock timeout and go.")
    t.call("migration_apply", "ap-1", {"database": "orders", "dsn": dsn, "revision": "b02e77c1d3a9",
                                       "lock_timeout": "5s", "snapshot_id": "snap-0f3a9c22e1b7"},
           idem="apply-orders-b02e77c1d3a9")
    t.recover()
    t.user("The agent restarted. Where are we, did the migration apply?")
    t.decision("d-restart",
               tool_state("unknown", call_id="ap-1", why="the apply was in flight at the restart"),
               pending(call_id="ap-1"),
               constraint(u1, "Never run anything with a DROP unless a snapshot"),
               fact("target_revision", "b02e77c1d3a9", superseded=["5f1a0b3c8e27", "3c9d0e7b1f42"],
                    subject="database=orders"),
               next_call("sql_query", dsn=dsn, why="checking alembic_version needs the connection string"))
    t.call("sql_query", "q-4", {"database": "orders", "dsn": dsn, "sql": "select version_num from alembic_version"})
    t.result("q-4", result={"columns": ["version_num"], "rows": [["b02e77c1d3a9"]], "rowcount": 1,
                            "server": {"version": "16.4", "in_recovery": False}})
    t.status("ap-1", "succeeded", result={"applied": ["b02e77c1d3a9"], "current": "b02e77c1d3a9",
                                          "duration_ms": 4120, "lock_wait_retries": 2})
    t.user("22:05 now and the coupon export is done. Take it to the final revision.")
    t.decision("d-final",
               next_call("migration_apply", revision="3c9d0e7b1f42", snapshot_id="snap-0f3a9c22e1b7", dsn=dsn,
                         why="final revision from the first message, snapshot from the snapshot call"),
               tool_state("succeeded", call_id="ap-1"),
               constraint(u1, "no table rewrites before 22:00 UTC"),
               evidence(none, idle, why="the two lock checks that disagree"))
    return t


def t_package_return() -> Traj:
    t = Traj("package-return-tracking", "Return a blender and chase a refund the carrier says was delivered", 256,
             ["an order number typed once",
              "a user correction of the refund card",
              "a constraint set first: refund to a card, never store credit",
              "the carrier's tracking contradicts the shop's return status",
              "the RMA and tracking numbers returned by the return call are needed several turns later"],
             "A shopper returns one item, a second item is refused, and the shop says it is still waiting for a "
             "parcel the carrier delivered.")
    u1 = t.user("Return the blender from order 114-3390021-7742201. Refund to my Visa ending 0385, never store "
                "credit.")
    t.fact("refund_card_last4", "0385", subject="order_id=114-3390021-7742201")
    t.call("shop_get_order", "go-1", {"order_id": "114-3390021-7742201"})
    t.result("go-1", result={"order": {"order_id": "114-3390021-7742201", "placed": "2025-05-30", "items": [
        {"item_id": "ITM-88120", "title": "Ninja Professional Blender BL610", "price": "89.99", "returnable": True},
        {"item_id": "ITM-88121", "title": "Replacement pitcher 72 oz", "price": "19.99", "returnable": False}]}})
    t.call("shop_create_return", "cr-1", {"order_id": "114-3390021-7742201", "items": ["ITM-88120"],
                                          "reason": "NO_LONGER_NEEDED", "refund_to": "original_payment"})
    t.result("cr-1", result={"return": {"return_id": "RMA-88213", "state": "LABEL_ISSUED",
                                        "label": {"carrier": "UPS", "tracking_number": "1Z999AA10123456784"},
                                        "refund": {"to": "original_payment", "amount": "89.99"}}})
    t.user("And the pitcher too please.")
    t.call("shop_create_return", "cr-2", {"order_id": "114-3390021-7742201", "items": ["ITM-88121"],
                                          "reason": "NO_LONGER_NEEDED", "refund_to": "original_payment"})
    t.result("cr-2", outcome="failed", error="ITEM_NOT_RETURNABLE: ITM-88121 is a final-sale accessory")
    t.user("Oh, and the Visa ending 0385 was replaced. The refund should go to the new card, ending 7714.")
    t.correction("refund_card_last4", "7714", subject="order_id=114-3390021-7742201")
    t.user("I dropped the blender at UPS on Monday. Where is it?")
    t.call("carrier_track", "tk-1", {"tracking_number": "1Z999AA10123456784"})
    delivered = t.result("tk-1", result={"shipment": {"status": "DELIVERED", "delivered_at": "2025-06-19T10:41:00-04:00",
                                                      "location": "RETURNS CENTER, LOUISVILLE KY"}})
    t.call("shop_return_status", "rs-1", {"return_id": "RMA-88213"})
    waiting = t.result("rs-1", result={"return": {"return_id": "RMA-88213", "state": "AWAITING_ITEM",
                                                  "refund": {"state": "NOT_STARTED"}}})
    t.user("So UPS delivered it but they're still waiting? Raise it with them.")
    t.decision("d-escalate",
               next_call("shop_contact_support", return_id="RMA-88213", tracking_number="1Z999AA10123456784",
                         why="both came from the return call several turns back"),
               evidence(delivered, waiting, why="the contradiction to report"),
               constraint(u1, "never store credit"),
               fact("refund_card_last4", "7714", superseded=["0385"], subject="order_id=114-3390021-7742201"),
               tool_state("failed", call_id="cr-2", why="the pitcher cannot be returned"))
    t.call("shop_contact_support", "cs-1", {"return_id": "RMA-88213", "tracking_number": "1Z999AA10123456784",
                                            "message": "UPS shows delivered 19 June; return still AWAITING_ITEM"})
    t.result("cs-1", result={"case": {"case_id": "CS-5120447", "sla_hours": 48}})
    t.user("Thanks. What's the case number, and how much comes back?")
    t.decision("d-case",
               fact("case_id", "CS-5120447"),
               fact("amount", "89.99"))
    return t


def t_gym() -> Traj:
    t = Traj("gym-membership-freeze", "Freeze a gym membership without losing one class", 256,
             ["a member number typed once",
              "a user correction of the freeze length (two months -> six weeks)",
              "a constraint set first: do not cancel the 26 June spin class",
              "a fee approval pending, then granted",
              "the freeze result contradicts the request: it cancelled the class anyway",
              "a class session id from the booking list is needed to rebook"],
             "A member freezes their membership for a trip; the freeze cancels a booking it was told to keep.")
    u1 = t.user("Member 8840-2291. Freeze my membership from 1 July for two months, I'm travelling. Don't cancel my "
                "Thursday 26 June spin class, I'm going to that one.")
    t.fact("freeze_end", "2025-08-31", subject="member_id=8840-2291")
    t.call("gym_get_membership", "gm-1", {"member_id": "8840-2291"})
    t.result("gm-1", result={"member": {"id": "8840-2291", "plan": "Flex Monthly", "status": "active",
                                        "next_charge": {"date": "2025-07-03", "amount": "54.00"}},
                             "freeze_policy": {"fee_per_month": "10.00", "max_weeks": 12, "min_notice_days": 7}})
    t.call("gym_list_bookings", "bk-1", {"member_id": "8840-2291", "from": "2025-06-20"})
    t.result("bk-1", result={"bookings": [
        {"booking_id": "BK-61120", "session_id": "CS-0626-1830-B", "class": "Spin 45", "starts": "2025-06-26T18:30"},
        {"booking_id": "BK-61204", "session_id": "CS-0703-0700-A", "class": "Yoga Flow", "starts": "2025-07-03T07:00"},
        {"booking_id": "BK-61377", "session_id": "CS-0710-1830-B", "class": "Spin 45", "starts": "2025-07-10T18:30"}]})
    t.user("Actually make it six weeks, not two months. I'm back mid-August.")
    t.correction("freeze_end", "2025-08-11", subject="member_id=8840-2291")
    ap = t.assistant("Freeze 1 Jul to 11 Aug: fee 15.00. It cancels BK-61204 and BK-61377; BK-61120 on 26 June "
                     "stays. Approve the fee?")
    t.approval("apr-frz-fee", "requested", scopes_event=ap, amount="15.00")
    t.user("Just to be sure, the 26 June one stays?")
    t.decision("d-fee",
               pending(approval_id="apr-frz-fee"),
               constraint(u1, "Don't cancel my Thursday 26 June spin class"),
               fact("freeze_end", "2025-08-11", superseded=["2025-08-31"], subject="member_id=8840-2291"))
    t.approval("apr-frz-fee", "granted", scopes_event=ap)
    t.call("gym_freeze_membership", "fz-1", {"member_id": "8840-2291", "start": "2025-07-01", "end": "2025-08-11",
                                             "keep_bookings": ["BK-61120"]}, idem="freeze-8840-2291-0701")
    cancelled = t.result("fz-1", result={"freeze": {"freeze_id": "FRZ-10442", "start": "2025-07-01",
                                                    "end": "2025-08-11", "fee": "15.00", "status": "scheduled"},
                                         "cancelled_bookings": ["BK-61204", "BK-61377", "BK-61120"]})
    t.user("Wait, did it cancel my 26 June class?? Book me back in.")
    t.decision("d-rebook",
               evidence(cancelled, why="the result cancelled the booking it was told to keep"),
               next_call("gym_book_class", session_id="CS-0626-1830-B", member_id="8840-2291",
                         why="the session id is in the booking list, the member number in the first message"),
               tool_state("succeeded", call_id="fz-1"),
               fact("fee", "15.00"))
    return t


def t_utility() -> Traj:
    t = Traj("utility-bill-dispute", "Dispute an electricity bill built on an estimated read", 512,
             ["an account number and a meter reading typed by the user",
              "a user correction of the reading (digits swapped)",
              "a constraint set first: no autopay, no payment plan",
              "the meter history contradicts the bill (estimated, not actual)",
              "a dispute call that timed out is unknown, then answered by a status query"],
             "A customer disputes a bill three times the usual; the bill says the read was actual, the meter "
             "history says it was estimated.")
    u1 = t.user("My April electric bill is 412.77, normally it's around 120. Account 7702-118-4431. Don't sign me "
                "up for autopay or any payment plan, I just want the bill fixed.")
    t.call("utility_get_account", "ac-1", {"account_number": "7702-118-4431"})
    t.result("ac-1", result={"account": {"account_number": "7702-118-4431", "status": "active",
                                         "service_address": {"line1": "14 Larch Close", "city": "Harrogate",
                                                             "postcode": "HG2 7QT"},
                                         "meters": [{"meter_id": "E-90817254", "fuel": "electricity",
                                                     "register": "single", "smart": False}],
                                         "autopay": {"enrolled": False}, "balance": "412.77",
                                         "latest_bill": "BL-2025-04-7702118"}})
    t.call("utility_get_bill", "bl-1", {"bill_id": "BL-2025-04-7702118"})
    charges = [{"code": "UNIT", "description": "Electricity 1832 kWh @ 19.87p", "amount": "364.02"},
               {"code": "STANDING", "description": "Standing charge 30 days @ 53.35p", "amount": "16.01"},
               {"code": "VAT", "description": "VAT 5%", "amount": "19.00"},
               {"code": "ARREARS", "description": "Brought forward", "amount": "13.74"}]
    actual = t.result("bl-1", result={"bill": {"bill_id": "BL-2025-04-7702118",
                                               "period": {"from": "2025-03-18", "to": "2025-04-16"},
                                               "reads": {"opening": {"value": "045870", "kind": "actual"},
                                                         "closing": {"value": "047702", "kind": "actual"}},
                                               "usage_kwh": 1832, "charges": charges, "total": "412.77",
                                               "due_date": "2025-05-09"}})
    t.user("I just read the meter myself, it says 046381.")
    t.fact("customer_read", "046381", subject="meter_id=E-90817254")
    t.call("utility_meter_reads", "mr-1", {"meter_id": "E-90817254", "limit": 4})
    history = [{"date": "2025-04-16", "value": "047702", "kind": "estimated", "source": "system"},
               {"date": "2025-03-18", "value": "045870", "kind": "actual", "source": "field_agent"},
               {"date": "2025-02-14", "value": "045512", "kind": "actual", "source": "customer"},
               {"date": "2025-01-15", "value": "045140", "kind": "estimated", "source": "system"}]
    est = t.result("mr-1", result={"meter_id": "E-90817254", "reads": history, "next_scheduled_visit": "2025-07-10"})
    t.assistant("The meter history marks the 16 April read 047702 as estimated, although the bill says actual.")
    t.user("Hang on, I misread it: it's 046831, not 046381. I swapped the 8 and the 3.")
    t.correction("customer_read", "046831", subject="meter_id=E-90817254")
    t.call("utility_submit_read", "sr-1", {"meter_id": "E-90817254", "value": "046831",
                                           "read_at": "2025-05-02T09:10:00+01:00", "photo": True})
    t.result("sr-1", result={"read": {"read_id": "RD-3319045", "accepted": True,
                                      "validation": "WITHIN_EXPECTED_RANGE"}})
    t.call("utility_open_dispute", "dp-1", {"bill_id": "BL-2025-04-7702118", "reason": "ESTIMATED_READ_BILLED_AS_ACTUAL",
                                            "customer_read_id": "RD-3319045"}, idem="dispute-BL-2025-04-7702118")
    t.result("dp-1", outcome="timeout", error="upstream CIS timeout after 45s")
    t.user("Did the dispute go in? Also the phone agent offered me a payment plan. No.")
    t.decision("d-dispute",
               tool_state("unknown", call_id="dp-1", why="the dispute call timed out"),
               fact("customer_read", "046831", superseded=["046381"], subject="meter_id=E-90817254"),
               constraint(u1, "Don't sign me up for autopay or any payment plan"),
               evidence(actual, est, why="bill and meter history disagree on the read kind"),
               next_call("utility_open_dispute", bill_id="BL-2025-04-7702118", customer_read_id="RD-3319045",
                         why="a retry, if it did not go in, needs both ids"))
    t.status("dp-1", "succeeded", result={"dispute": {"dispute_id": "DSP-77120", "state": "OPEN",
                                                      "collection_hold": "until_rebill",
                                                      "rebill_expected_by": "2025-05-16"}})
    t.user("Good. Will they still take money on the due date meanwhile?")
    t.decision("d-hold",
               tool_state("succeeded", call_id="dp-1"),
               fact("dispute_id", "DSP-77120"),
               fact("due_date", "2025-05-09"))
    return t


def t_vet() -> Traj:
    t = Traj("vet-appointment", "Book a dog's vaccination and fix her weight", 256,
             ["a patient number typed once",
              "a user correction of a value a tool returned (weight 14.2 -> 12.4)",
              "a constraint set first: not with Dr. Hale, weekday mornings",
              "a slot taken between listing and booking; a new listing supersedes the first",
              "a record update still running at the decision"],
             "A pet owner books vaccines; the first slot is taken and the weight on file is wrong.")
    u1 = t.user("Book Biscuit in for her annual jabs, patient PT-40917. Not with Dr. Hale please, and weekday "
                "mornings only.")
    t.call("vet_get_patient", "gp-1", {"patient_id": "PT-40917"})
    t.result("gp-1", result={"patient": {"patient_id": "PT-40917", "name": "Biscuit", "species": "canine",
                                         "breed": "Beagle", "weight_kg": "14.2", "weighed_on": "2024-05-20",
                                         "practice_id": "PR-NORTHGATE",
                                         "due": [{"code": "DHPP", "due": "2025-05-28"},
                                                 {"code": "RABIES-3Y", "due": "2025-06-02"}]}})
    t.call("vet_find_slots", "fs-1", {"practice_id": "PR-NORTHGATE", "service": "VACCINATION",
                                      "from": "2025-05-26", "to": "2025-06-06"})
    t.result("fs-1", result={"slots": [
        {"slot_id": "SL-0602-0900-HL", "start": "2025-06-02T09:00", "vet": "Dr. M. Hale"},
        {"slot_id": "SL-0603-0920-RK", "start": "2025-06-03T09:20", "vet": "Dr. R. Kaur"},
        {"slot_id": "SL-0603-1540-RK", "start": "2025-06-03T15:40", "vet": "Dr. R. Kaur"},
        {"slot_id": "SL-0605-1010-JO", "start": "2025-06-05T10:10", "vet": "Dr. J. Osei"}]})
    t.user("Tuesday 3 June at 9:20. And her weight's wrong on there, she's 12.4 kg now.")
    t.correction("weight_kg", "12.4", subject="patient_id=PT-40917")
    t.call("vet_book_appointment", "ba-1", {"patient_id": "PT-40917", "slot_id": "SL-0603-0920-RK",
                                            "services": ["DHPP", "RABIES-3Y"]})
    t.result("ba-1", outcome="failed", error="409 SLOT_TAKEN: SL-0603-0920-RK was booked by another client")
    t.call("vet_find_slots", "fs-2", {"practice_id": "PR-NORTHGATE", "service": "VACCINATION",
                                      "from": "2025-06-02", "to": "2025-06-06"})
    t.result("fs-2", result={"slots": [
        {"slot_id": "SL-0603-1000-HL", "start": "2025-06-03T10:00", "vet": "Dr. M. Hale"},
        {"slot_id": "SL-0604-0840-RK", "start": "2025-06-04T08:40", "vet": "Dr. R. Kaur"},
        {"slot_id": "SL-0605-1010-JO", "start": "2025-06-05T10:10", "vet": "Dr. J. Osei"}]})
    t.user("Ugh. The closest one to that then, same rules.")
    t.decision("d-rebook",
               constraint(u1, "Not with Dr. Hale", why="the closest slot is Hale's and is excluded"),
               next_call("vet_book_appointment", patient_id="PT-40917", slot_id="SL-0604-0840-RK"),
               tool_state("failed", call_id="ba-1"),
               fact("weight_kg", "12.4", superseded=["14.2"], subject="patient_id=PT-40917"))
    t.call("vet_book_appointment", "ba-2", {"patient_id": "PT-40917", "slot_id": "SL-0604-0840-RK",
                                            "services": ["DHPP", "RABIES-3Y"]})
    t.result("ba-2", result={"appointment": {"appointment_id": "AP-55102", "start": "2025-06-04T08:40",
                                             "vet": "Dr. R. Kaur", "room": "Consult 2"}})
    t.call("vet_update_patient", "up-1", {"patient_id": "PT-40917", "weight_kg": "12.4", "weighed_on": "2025-05-20"})
    t.user("Thanks. Did the weight change go through?")
    t.decision("d-weight",
               pending(call_id="up-1", why="the update has no answer yet"),
               tool_state("running", call_id="up-1"),
               fact("appointment_id", "AP-55102"))
    return t


def t_kanban() -> Traj:
    t = Traj("kanban-board-cleanup", "Archive old Done cards without losing compliance cards", 512,
             ["board and column ids from the first call are used by later ones",
              "a rule set first: never archive a card labelled compliance",
              "the archive response contradicts the listing (a card gained the compliance label)",
              "a partial failure inside a succeeded bulk call",
              "a card moved to another column: its column is the newest statement"],
             "A team lead asks the agent to archive stale Done cards; one card was relabelled in between.")
    board = "b_6Jf2Qx"
    u1 = t.user(f"Clean up the Platform board ({board}): archive everything in Done that's older than 30 days. "
                "Never archive anything labelled compliance, the auditors need those visible.")
    t.call("kanban_get_board", "gb-1", {"board_id": board})
    t.result("gb-1", result={"board": {"id": board, "name": "Platform", "columns": [
        {"id": "col_91aa", "name": "Backlog"}, {"id": "col_91ab", "name": "In Progress"},
        {"id": "col_91ac", "name": "Review"}, {"id": "col_91ad", "name": "Done"}, {"id": "col_91ae", "name": "Blocked"}],
        "labels": [{"id": "lbl_3f0", "name": "compliance"}, {"id": "lbl_3f1", "name": "security"},
                   {"id": "lbl_3f2", "name": "tech-debt"}]}})
    t.call("kanban_list_cards", "lc-1", {"board_id": board, "column_id": "col_91ad", "sort": "done_at"})
    titles = ["Upgrade ingress-nginx to 1.10", "Drop legacy metrics sidecar", "Terraform state split for eu-west",
              "Rotate Vault root token", "SOC2 evidence export", "Retire jenkins-old", "Fix flaky e2e for billing",
              "Bump base images to bookworm", "Alert on cert expiry < 14d", "Quarterly access review"]
    ids = ["crd_2Ab9", "crd_3Kp1", "crd_5Tr4", "crd_7Yq1", "crd_4Rm8", "crd_8Ln2", "crd_1Wx6", "crd_6Hs3",
           "crd_9Gd5", "crd_0Vb7"]
    labels = [["lbl_3f2"], ["lbl_3f2"], [], ["lbl_3f1"], [], ["lbl_3f2"], [], [], ["lbl_3f1"], ["lbl_3f0"]]
    cards = [{"id": i, "title": ti, "labels": lb, "done_at": f"2025-0{t.rng.randint(1, 3)}-{t.rng.randint(10, 28)}",
              "assignee": t.rng.choice(["mkowal", "ytan", "b.osei", "lfarr"])} for i, ti, lb in zip(ids, titles, labels)]
    listing = t.result("lc-1", result={"cards": cards, "next_cursor": None})
    t.assistant("All ten Done cards are over 30 days old; Quarterly access review (crd_0Vb7) is labelled "
                "compliance, so I'll archive the other nine.")
    t.user("Also 'Rotate Vault root token' isn't actually done, move it back to Blocked instead of archiving.")
    t.call("kanban_move_card", "mv-1", {"card_id": "crd_7Yq1", "column_id": "col_91ae", "position": "top"})
    t.result("mv-1", result={"card": {"id": "crd_7Yq1", "column_id": "col_91ae", "position": 0}})
    t.user("Go ahead with the archive.")
    keep = [i for i in ids if i not in ("crd_0Vb7", "crd_7Yq1")]
    t.call("kanban_archive_cards", "ar-1", {"board_id": board, "card_ids": keep})
    done = [i for i in keep if i != "crd_5Tr4"]
    archived = t.result("ar-1", result={"archived": [{"id": i, "labels": ["lbl_3f0"] if i == "crd_4Rm8" else []}
                                                     for i in done],
                                        "failed": [{"id": "crd_5Tr4", "error": "CARD_LOCKED: linked to open incident "
                                                                               "INC-2291"}]})
    t.user("Hold on, the SOC2 evidence export card is gone? That's a compliance one!")
    t.decision("d-restore",
               constraint(u1, "Never archive anything labelled compliance"),
               evidence(listing, archived, why="the listing showed no label; the archive response shows compliance"),
               next_call("kanban_restore_cards", board_id=board, card_ids="crd_4Rm8",
                         why="ids from the first calls"),
               tool_state("succeeded", call_id="ar-1", why="the bulk call succeeded even though one card failed"))
    t.call("kanban_restore_cards", "rs-1", {"board_id": board, "card_ids": ["crd_4Rm8"], "column_id": "col_91ad"})
    t.result("rs-1", result={"restored": [{"id": "crd_4Rm8", "column_id": "col_91ad"}]})
    t.user("Thanks. Which column did the Vault card end up in, and what blocked the one that failed?")
    t.decision("d-after",
               fact("column_id", "col_91ae", subject="card_id=crd_7Yq1", why="the move result, not the restore"),
               tool_state("succeeded", call_id="mv-1"),
               tool_state("succeeded", call_id="rs-1"))
    return t


def t_spreadsheet() -> Traj:
    sid = "1qZ8vR3kT0pLm2XcYw9aB7dE4fG6hJ5sNuV1oQiK"
    t = Traj("spreadsheet-formula-fix", "Fix forecast formulas through the spreadsheet API", 1024,
             ["a spreadsheet id typed once; the sheet id returned by the metadata call is used later",
              "constraints set first: formulas only, never values; never touch the Actuals tab",
              "a user correction of the total's range (H2:H410 -> H2:H412)",
              "the metadata contradicts the values (400 rows vs data down to row 412)",
              "a named-range update that timed out is unknown, then answered by a status query"],
             "An analyst asks the agent to repair the totals and the FX factor of a forecast tab through the "
             "spreadsheet API.")
    u1 = t.user(f"In the FY25 forecast spreadsheet ({sid}) the totals on the 'Q3 Forecast' tab are wrong. Fix the "
                "formulas. Only ever change formulas, never overwrite values, and don't touch the Actuals tab at all.")
    t.call("sheets_get_metadata", "md-1", {"spreadsheet_id": sid, "fields": "sheets.properties,namedRanges"})
    meta = t.result("md-1", result={"spreadsheetId": sid, "properties": {"title": "FY25 Forecast", "locale": "en_GB"},
                                    "sheets": [
        {"properties": {"sheetId": 0, "title": "Actuals", "index": 0,
                        "gridProperties": {"rowCount": 1000, "columnCount": 26, "frozenRowCount": 1}}},
        {"properties": {"sheetId": 804512337, "title": "Q3 Forecast", "index": 1,
                        "gridProperties": {"rowCount": 400, "columnCount": 12, "frozenRowCount": 1}}},
        {"properties": {"sheetId": 1193822011, "title": "Assumptions", "index": 2,
                        "gridProperties": {"rowCount": 50, "columnCount": 6}}}],
        "namedRanges": [{"namedRangeId": "nr_7731fx", "name": "FxRate",
                         "range": {"sheetId": 1193822011, "startRowIndex": 1, "endRowIndex": 2,
                                   "startColumnIndex": 1, "endColumnIndex": 2}}]})
    t.call("sheets_get_values", "gv-1", {"spreadsheet_id": sid, "range": "'Q3 Forecast'!A1:H4",
                                         "valueRenderOption": "FORMULA"})
    t.result("gv-1", result={"range": "'Q3 Forecast'!A1:H4", "majorDimension": "ROWS", "values": [
        ["SKU", "Region", "Units", "Price", "Discount", "Net", "Margin", "Net (EUR)"],
        ["SK-10021", "DE", "1200", "14.5", "0.05", "=C2*D2*(1-E2)", "=F2*0.31", "=F2*FxRate"],
        ["SK-10022", "DE", "860", "9.9", "0", "=C3*D3*(1-E3)", "=F3*0.31", "=F3*FxRate"],
        ["SK-10031", "FR", "430", "22", "0.1", "=C4*D4*(1-E4)", "=F4*0.29", "=F4*FxRate"]]})
    t.call("sheets_get_values", "gv-2", {"spreadsheet_id": sid, "range": "'Q3 Forecast'!A398:H414",
                                         "valueRenderOption": "FORMULA"})

    def row(rng, i):
        r = 398 + i
        return [f"SK-{rng.randint(10100, 19999)}", rng.choice(["DE", "FR", "NL", "IT", "ES"]), str(rng.randint(40, 2000)),
                str(rng.choice([4.5, 9.9, 12, 14.5, 22, 39])), rng.choice(["0", "0.05", "0.1"]),
                f"=C{r}*D{r}*(1-E{r})", f"=F{r}*0.3", f"=F{r}*FxRate"]
    vals = rows(t, 15, row) + [["TOTAL", "", "=SUM(C2:C400)", "", "", "=SUM(F2:F400)", "=SUM(G2:G400)",
                               "=SUM(H2:H400)"]]
    rows412 = t.result("gv-2", result={"range": "'Q3 Forecast'!A398:H414", "majorDimension": "ROWS", "values": vals})
    t.assistant("Data runs to row 412, though the metadata says the tab has 400 rows; the TOTAL row 413 sums "
                "only rows 2-400.")
    t.user("Right. Make the H total =SUM(H2:H410).")
    t.fact("total_range", "H2:H410", subject="sheet=Q3 Forecast")
    t.user("Sorry, H2:H412. I forgot the two rows Marta added this morning. Same for C, F and G.")
    t.correction("total_range", "H2:H412", subject="sheet=Q3 Forecast")

    def cell(col, formula):
        return {"updateCells": {"range": {"sheetId": 804512337, "startRowIndex": 412, "endRowIndex": 413,
                                          "startColumnIndex": col, "endColumnIndex": col + 1},
                                "rows": [{"values": [{"userEnteredValue": {"formulaValue": formula}}]}],
                                "fields": "userEnteredValue"}}
    t.call("sheets_batch_update", "bu-1", {"spreadsheet_id": sid, "requests": [
        cell(2, "=SUM(C2:C412)"), cell(5, "=SUM(F2:F412)"), cell(6, "=SUM(G2:G412)"), cell(7, "=SUM(H2:H412)")]})
    t.result("bu-1", result={"spreadsheetId": sid, "replies": [{}, {}, {}, {}],
                             "updatedRange": "'Q3 Forecast'!C413:H413"})
    t.user("Now the EUR column: Assumptions moved the FX rate down a row, it's in B3 now. Fix that.")
    t.call("sheets_get_values", "gv-3", {"spreadsheet_id": sid, "range": "Assumptions!A1:C4"})
    t.result("gv-3", result={"range": "Assumptions!A1:C4", "majorDimension": "ROWS", "values": [
        ["Key", "Value", "Note"], ["FxRate (old)", "1.0842", "deprecated 2025-06-30"],
        ["FxRate", "1.0917", "from 2025-07-01"], ["Tax", "0.19", ""]]})
    t.assistant("Every H formula uses the named range FxRate, which still points at Assumptions!B2. Repointing "
                "the named range to B3 fixes all rows without changing any cell.")
    t.user("Yes, repoint the named range. Don't edit the Assumptions cells.")
    t.call("sheets_batch_update", "bu-2", {"spreadsheet_id": sid, "requests": [{"updateNamedRange": {
        "namedRange": {"namedRangeId": "nr_7731fx", "name": "FxRate",
                       "range": {"sheetId": 1193822011, "startRowIndex": 2, "endRowIndex": 3,
                                 "startColumnIndex": 1, "endColumnIndex": 2}}, "fields": "range"}}]},
           idem="fx-namedrange-b3")
    t.result("bu-2", outcome="timeout", error="deadline exceeded after 30s (sheets.googleapis.com)")
    t.user("Did that take? Check before you change anything else.")
    t.decision("d-check",
               tool_state("unknown", call_id="bu-2"),
               next_call("sheets_get_metadata", spreadsheet_id=sid, why="typed once, in the first message"),
               constraint(u1, "don't touch the Actuals tab"),
               fact("total_range", "H2:H412", superseded=["H2:H410"], subject="sheet=Q3 Forecast"),
               evidence(meta, rows412, why="the row count and the data disagree"))
    t.status("bu-2", "succeeded", result={"spreadsheetId": sid, "replies": [{}],
                                          "namedRange": {"name": "FxRate", "a1": "Assumptions!B3"}})
    t.user("Good. Last thing: the Margin column uses a hard-coded 0.31 in the DE rows. Point those at "
           "Assumptions instead.")
    t.decision("d-margin",
               next_call("sheets_batch_update", sheetId=804512337, why="the sheet id from the metadata call"),
               constraint(u1, "never overwrite values"),
               tool_state("succeeded", call_id="bu-2"))
    return t


def t_flight_seats() -> Traj:
    t = Traj("flight-seat-change", "Seat a family together on a return flight", 512,
             ["a booking reference and surname typed once",
              "a rule set first: the child never in an exit row",
              "the segment id of the return flight, returned early, used by later calls",
              "a seat assignment that failed, then one that needs a payment approval",
              "a user correction of the plan (three seats -> two) after the approval was asked",
              "the newest price supersedes the first quote"],
             "A parent re-seats the family on the way back; seats go while choosing and the new row costs extra.")
    u1 = t.user("Booking QX7RLM, surname Haddad. On the way back, London to Beirut on 14 August, I want my son "
                "Sami (8), my husband Karim and me together, with a window. Never put Sami in an exit row.")
    t.call("air_get_booking", "gb-1", {"record_locator": "QX7RLM", "last_name": "Haddad"})
    t.result("gb-1", result={"booking": {"record_locator": "QX7RLM", "passengers": [
        {"pax_id": "P1", "name": "HADDAD/NOUR MRS", "type": "ADT"},
        {"pax_id": "P2", "name": "HADDAD/KARIM MR", "type": "ADT"},
        {"pax_id": "P3", "name": "HADDAD/SAMI MSTR", "type": "CHD", "age": 8}], "segments": [
        {"segment_id": "SEG-ME202-0802", "flight": "ME202", "from": "BEY", "to": "LHR", "date": "2025-08-02",
         "seats": {"P1": "31C", "P2": "31D", "P3": "31E"}},
        {"segment_id": "SEG-ME203-0814", "flight": "ME203", "from": "LHR", "to": "BEY", "date": "2025-08-14",
         "seats": {"P1": "40B", "P2": "34H", "P3": None}}]}})
    t.call("air_seat_map", "sm-1", {"flight_segment_id": "SEG-ME203-0814"})

    def seatrow(rng, i):
        n = rng.choice([24, 25, 26, 30, 33, 36, 38])
        return {"row": n, "available": rng.sample(["A", "B", "C", "D", "E", "F", "G", "H", "J", "K"], 3),
                "exit": False, "fee_each": "0.00"}
    cabin = [{"row": 21, "available": ["A", "B", "C"], "exit": True, "fee_each": "35.00"},
             {"row": 27, "available": ["A", "B", "C"], "exit": False, "fee_each": "0.00"},
             {"row": 28, "available": ["A", "B", "C"], "exit": False, "fee_each": "18.00", "zone": "preferred"}]
    cabin += rows(t, 4, seatrow)
    t.result("sm-1", result={"aircraft": "A321neo", "cabin": "Y", "rows": cabin})
    t.assistant("Three together with a window: row 27 A-C (free) or row 28 A-C (18.00 each). Row 21 is an exit "
                "row, so not for Sami.")
    t.user("27, Sami at the window.")
    t.call("air_assign_seats", "as-1", {"record_locator": "QX7RLM", "flight_segment_id": "SEG-ME203-0814",
                                        "assignments": {"P3": "27A", "P1": "27B", "P2": "27C"}})
    t.result("as-1", outcome="failed", error="SEAT_UNAVAILABLE: 27B was assigned to another passenger")
    t.user("Annoying. Row 28 then, same order.")
    t.call("air_assign_seats", "as-2", {"record_locator": "QX7RLM", "flight_segment_id": "SEG-ME203-0814",
                                        "assignments": {"P3": "28A", "P1": "28B", "P2": "28C"}})
    quote = t.result("as-2", result={"status": "PENDING_PAYMENT", "held_until": "2025-08-01T12:30:00Z",
                                     "payment": {"amount": "54.00", "currency": "GBP", "emd_type": "SEAT"}})
    t.approval("apr-seat-5410", "requested", scopes_event=quote - 1, amount="54.00")
    t.user("54 pounds? Hmm. Actually Karim can keep his own seat, 34H is fine for him. Just Sami and me then.")
    t.decision("d-two-seats",
               pending(approval_id="apr-seat-5410", why="the 54.00 payment is still waiting"),
               next_call("air_assign_seats", record_locator="QX7RLM", flight_segment_id="SEG-ME203-0814"),
               constraint(u1, "Never put Sami in an exit row"),
               tool_state("failed", call_id="as-1"))
    t.approval("apr-seat-5410", "denied", scopes_event=quote - 1)
    t.call("air_assign_seats", "as-3", {"record_locator": "QX7RLM", "flight_segment_id": "SEG-ME203-0814",
                                        "assignments": {"P3": "28A", "P1": "28B"}, "release": ["28C"]})
    t.result("as-3", result={"status": "PENDING_PAYMENT", "held_until": "2025-08-01T12:30:00Z",
                             "payment": {"amount": "36.00", "currency": "GBP", "emd_type": "SEAT"}})
    t.user("OK that's better. What do I pay now, and where is Karim sitting?")
    t.decision("d-pay",
               fact("amount", "36.00", superseded=["54.00"]),
               tool_state("succeeded", call_id="as-3"),
               evidence(quote))
    return t


TRAJECTORIES = [t_git_refactor, t_library, t_car_rental, t_crm, t_home_automation, t_concert, t_payroll,
                t_app_release, t_db_migration, t_package_return, t_gym, t_utility, t_vet, t_kanban,
                t_spreadsheet, t_flight_seats]




# ---------------------------------------------------------------------------------------------
# The oracle: docs/eval.md's probe rules applied to the whole raw history up to the decision
# ---------------------------------------------------------------------------------------------
_NOT_RESULT = {"call_id", "outcome", "request_id", "error", "idempotency_key", "authority"}


def _flatten(obj, prefix: str, lists_indexed: bool, out: list):
    if isinstance(obj, dict):
        for k, v in obj.items():
            _flatten(v, f"{prefix}.{k}" if prefix else k, lists_indexed, out)
    elif isinstance(obj, list) and lists_indexed:
        for i, v in enumerate(obj):
            _flatten(v, f"{prefix}.{i}", lists_indexed, out)
    else:
        out.append((prefix, obj))


def _subject_pairs(subject) -> dict:
    if subject is None:
        return {}
    if isinstance(subject, dict):
        return {str(k): str(v) for k, v in subject.items()}
    pairs = {}
    for part in str(subject).split(","):
        name, _, value = part.strip().partition("=")
        pairs[name.strip()] = value.strip()
    return pairs


def _leaves(obj) -> list:
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in _leaves(v)]
    if isinstance(obj, list):
        return [x for v in obj for x in _leaves(v)]
    return [obj]


def _mentions(payload: dict, value) -> bool:
    needle = str(value).lower()
    for leaf in _leaves(payload):
        if isinstance(leaf, str) and needle in leaf.lower():
            return True
        if isinstance(leaf, int) and not isinstance(leaf, bool) and str(leaf) == str(value):
            return True
    return False


def statements(history, key: str, subject: str | None, lists_indexed: bool) -> list[tuple[int, object]]:
    want = _subject_pairs(subject)
    calls = {p["call_id"]: p for _, k, p in history if k == "tool_call"}
    found = []
    for seq, kind, p in history:
        if kind in ("fact", "correction"):
            if p.get("key") != key or p.get("authority") == "model" or p.get("confidence") in ("inferred", "unknown"):
                continue
            have = _subject_pairs(p.get("subject"))
            if all(have.get(n) == v for n, v in want.items()):
                found.append((seq, p.get("value")))
        elif kind in ("tool_result", "status_query") and p.get("outcome") == "succeeded":
            if want:
                args = (calls.get(p["call_id"]) or {}).get("arguments", {})
                if not all(isinstance(args.get(n), str) and args.get(n) == v for n, v in want.items()):
                    continue
            flat: list = []
            for name, v in p.items():
                if name not in _NOT_RESULT:
                    _flatten(v, name, lists_indexed, flat)
            for name, v in flat:
                if isinstance(v, str) and len(v) > 200:
                    continue
                if name == key or name.split(".")[-1] == key:
                    found.append((seq, v))
    return found


def call_status(history, call_ids: set[str]) -> tuple[str | None, str | None, int]:
    """(status, request_id, seq) of the newest statement about any of the calls."""
    newest = (None, None, 0)
    for seq, kind, p in history:
        if kind == "tool_result" and p.get("call_id") in call_ids:
            o = p.get("outcome")
            newest = (o if o in ("succeeded", "failed", "cancelled") else "unknown", p.get("request_id"), seq)
        elif kind == "status_query" and p.get("call_id") in call_ids:
            o = p.get("outcome")
            s = o if o in ("succeeded", "failed") else "failed" if o == "not_performed" else "unknown"
            newest = (s, p.get("request_id"), seq)
    if newest[0] is None:  # raw call without an answer
        seqs = [seq for seq, k, p in history if k == "tool_call" and p.get("call_id") in call_ids]
        if not seqs:
            return None, None, 0
        recovered = any(k == "recovery" and seq > seqs[-1] for seq, k, _ in history)
        return ("unknown" if recovered else "running"), None, seqs[-1]
    return newest


def _definitive(kind: str, outcome) -> bool:
    return (kind == "tool_result" and outcome in ("succeeded", "failed", "cancelled")) or \
           (kind == "status_query" and outcome in ("succeeded", "failed", "not_performed"))


def oracle(t: Traj) -> list[str]:
    errors: list[str] = []
    by_seq = {seq: (k, p) for seq, k, p in t.events}
    seen_ids = set()
    for s in t.steps:
        if s["type"] != "decision":
            continue
        did, at = s["id"], s["_at"]
        where = f"{t.id} decision {did}"
        if did in seen_ids:
            errors.append(f"{where}: duplicate decision id")
        seen_ids.add(did)
        history = [e for e in t.events if e[0] <= at]
        if not history or history[-1][1] != "user":
            errors.append(f"{where}: does not follow a user event")
            continue
        own_user = history[-1]
        before_user = history[:-1]
        for probe in s["probes"]:
            cls = probe["probe"]
            bad = lambda msg: errors.append(f"{where} {cls} {json.dumps(probe, ensure_ascii=False)[:120]}: {msg}")
            if cls == "fact":
                for mode in (True, False):
                    st = statements(history, probe["key"], probe.get("subject"), mode)
                    if not st:
                        bad(f"no statement of the key (lists indexed={mode})")
                        break
                    top = max(seq for seq, _ in st)
                    vals = {json.dumps(v) for seq, v in st if seq == top}
                    if len(vals) != 1:
                        bad(f"event {top} states several values {vals}")
                        break
                    newest = [v for seq, v in st if seq == top][0]
                    if newest != probe["value"] or type(newest) is not type(probe["value"]):
                        bad(f"newest statement (seq {top}) is {newest!r} (lists indexed={mode})")
                        break
                    for old in probe.get("superseded", []):
                        if not any(v == old and seq < top for seq, v in st):
                            bad(f"superseded {old!r} was never stated before seq {top}")
                        if old == probe["value"]:
                            bad("superseded equals value")
            elif cls == "tool_state":
                if probe.get("call_id"):
                    ids = {probe["call_id"]}
                else:
                    ids = {p["call_id"] for _, k, p in history
                           if k == "tool_call" and p.get("idempotency_key") == probe["idempotency_key"]}
                status, rid, _ = call_status(history, ids)
                if status != probe["status"]:
                    bad(f"newest status is {status}")
                if probe.get("request_id") and rid != probe["request_id"]:
                    bad(f"request id is {rid}")
            elif cls == "pending":
                if probe.get("approval_id"):
                    aid = probe["approval_id"]
                    reqs = [seq for seq, k, p in history if k == "approval" and p.get("approval_id") == aid
                            and p.get("status") == "requested"]
                    answers = [seq for seq, k, p in history if k == "approval" and p.get("approval_id") == aid
                               and p.get("status") in ("granted", "denied")]
                    if not reqs:
                        bad("no approval request")
                    if answers:
                        bad("the approval was answered")
                else:
                    cid = probe["call_id"]
                    if not any(k == "tool_call" and p.get("call_id") == cid for _, k, p in history):
                        bad("no such call")
                    if any(k in ("tool_result", "status_query") and p.get("call_id") == cid
                           and (_definitive(k, p.get("outcome")) or k == "tool_result")
                           for _, k, p in history):
                        bad("the call has an answer")
            elif cls == "constraint":
                if probe["seq"] not in by_seq or probe["seq"] > at:
                    bad("seq not in history")
                else:
                    kind, p = by_seq[probe["seq"]]
                    if kind not in ("user", "approval", "fact", "correction"):
                        bad(f"event {probe['seq']} is a {kind}, not something the user said or allowed")
                    if not _mentions(p, probe["text"]):
                        bad(f"text not in event {probe['seq']}")
                    if probe["seq"] == own_user[0]:
                        bad("constraint is the decision's own user message")
            elif cls == "evidence":
                for q in probe["seqs"]:
                    if q not in by_seq or q > at:
                        bad(f"seq {q} not in history")
            elif cls == "next_call":
                if probe["tool"] not in TOOLS:
                    bad("tool not declared")
                for name, value in probe["arguments"].items():
                    if len(str(value)) < 4:
                        bad(f"argument {name}={value!r} too short to be telling")
                    if any(c in str(value) for c in '"\\'):
                        bad(f"argument {name} has a quote or backslash")
                    if not any(_mentions(p, value) for _, _, p in before_user):
                        bad(f"argument {name}={value!r} does not appear before the decision's user message")
                    if _mentions(own_user[2], value):
                        bad(f"argument {name}={value!r} is in the decision's own user message")
            else:
                bad("unknown probe class")
    return errors


# ---------------------------------------------------------------------------------------------
def sizes(t: Traj) -> tuple[int, list[int]]:
    from pgctx.eventlog import event_tokens
    from pgctx.tokens import TokenCounter
    counter = TokenCounter.for_model(MODEL)
    toks = [event_tokens(k, p, counter) or 0 for _, k, p in t.events]
    return sum(toks), toks


def lint(t: Traj) -> list[str]:
    errors = []
    n = len(t.events)
    total, _ = sizes(t)
    probes = [(s["_at"], p) for s in t.steps if s["type"] == "decision" for p in s["probes"]]
    if not 10 <= n <= 40:
        errors.append(f"{t.id}: {n} events (10-40)")
    if t.window not in (256, 512, 1024):
        errors.append(f"{t.id}: window {t.window}")
    if not 2 * t.window <= total <= 8 * t.window:
        errors.append(f"{t.id}: {total} tokens, {total / t.window:.2f}x window {t.window} (2-8x)")
    if not 6 <= len(probes) <= 10:
        errors.append(f"{t.id}: {len(probes)} probes (6-10)")
    late = sum(1 for at, _ in probes if at > n / 2)
    if late < 0.75 * len(probes):
        errors.append(f"{t.id}: only {late}/{len(probes)} probes past the middle")
    return errors


def stats_table(trajs: list[Traj]) -> str:
    classes = ("fact", "tool_state", "next_call", "pending", "constraint", "evidence")
    head = ["file", "events", "tokens", "window", "x", "dec", "probes", *classes]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    tot = {c: 0 for c in classes}
    te = tt = tp = td = 0
    for t in trajs:
        total, _ = sizes(t)
        decs = [s for s in t.steps if s["type"] == "decision"]
        probes = [p for s in decs for p in s["probes"]]
        per = {c: sum(1 for p in probes if p["probe"] == c) for c in classes}
        for c in classes:
            tot[c] += per[c]
        te += len(t.events); tt += total; tp += len(probes); td += len(decs)
        out.append("| " + " | ".join([f"{t.id}.jsonl", str(len(t.events)), str(total), str(t.window),
                                      f"{total / t.window:.1f}", str(len(decs)), str(len(probes)),
                                      *[str(per[c]) for c in classes]]) + " |")
    out.append("| " + " | ".join([f"**total ({len(trajs)})**", str(te), str(tt), "", "", str(td), str(tp),
                                  *[str(tot[c]) for c in classes]]) + " |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the files differ from what would be written")
    ap.add_argument("--stats", action="store_true", help="print events, tokens, window and probes per class")
    args = ap.parse_args()
    trajs = [build() for build in TRAJECTORIES]
    ids = [t.id for t in trajs]
    problems = [f"duplicate id {i}" for i in set(ids) if ids.count(i) > 1]
    for t in trajs:
        problems += oracle(t) + lint(t)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    if args.stats:
        print(stats_table(trajs))
        return 0
    wanted = {f"{t.id}.jsonl": t.text() for t in trajs}
    if args.check:
        differ = [n for n, text in wanted.items()
                  if not (HERE / n).exists() or (HERE / n).read_text(encoding="utf-8") != text]
        extra = [p.name for p in HERE.glob("*.jsonl") if p.name not in wanted]
        for n in differ:
            print(f"differs: {n}")
        for n in extra:
            print(f"not generated: {n}")
        return 1 if differ or extra else 0
    for n, text in wanted.items():
        (HERE / n).write_text(text, encoding="utf-8")
    print(f"wrote {len(wanted)} trajectories to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
