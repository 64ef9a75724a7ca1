#!/usr/bin/env python3
"""Generator of the held-out LONG trajectory set (bench/holdout4/long).

Reserved for a future evaluation round: it has NOT been run against any summarizer.

    python generate.py            # write every *.jsonl beside this file
    python generate.py --check    # exit 1 if a file differs from what would be written
    python generate.py --stats    # print the statistics table

Every trajectory is built from a domain spec (DOMAINS below) by one story engine
(build), with filler drawn from its own random.Random seeded by the trajectory id.
Every tool is declared once, in TOOLS, so every file declares a tool identically.
Before anything is written, every probe is checked by an oracle (Oracle) that applies
the probe rules of docs/eval.md to the whole raw history up to the decision.
Token counts use pgctx.tokens.TokenCounter and pgctx.eventlog.event_tokens (called only).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

EVENTS_RANGE = (100, 160)
TOKENS_RANGE = (12_000, 16_000)
TOKENS_AIM = (12_150, 15_850)  # a margin inside the range: pgctx's replay counts a few tokens more
MAX_EVENT = 1_500
LONG_OUTPUT = 300

# ---------------------------------------------------------------------------------------------
# Every tool of every trajectory, declared once: name -> (effect, identifier_args, description)
# ---------------------------------------------------------------------------------------------
TOOLS: dict[str, tuple[str, list[str], str]] = {}


def tool(name: str, effect: str, ids: list[str], description: str) -> None:
    assert name not in TOOLS, name
    TOOLS[name] = (effect, ids, description)


# shared
tool("shell", "write", [], "run a shell command in the agent's working shell")
# data pipeline backfill
tool("wh_use", "read", [], "select the warehouse session's role, warehouse and database")
tool("wh_query", "read", [], "run a read-only SQL statement in the warehouse")
tool("wh_exec", "write", ["table"], "run a DML/DDL statement against a warehouse table")
tool("orch_list_runs", "read", ["dag_id"], "list orchestrator DAG runs")
tool("orch_trigger", "write", ["dag_id"], "trigger an orchestrator DAG run with a conf")
tool("orch_run_status", "read", ["dag_id", "run_id"], "state of one orchestrator DAG run")
tool("orch_task_log", "read", ["dag_id", "run_id"], "log of one task instance")
tool("orch_clear", "irreversible", ["dag_id", "run_id"], "clear task instances of a run so they re-execute")
tool("table_stats", "read", ["table"], "row counts and freshness of a warehouse table, from the catalog")
# kubernetes upgrade
tool("kubectl", "write", [], "run kubectl against the current kube context")
tool("cluster_info", "read", ["cluster"], "managed Kubernetes cluster description from the provider API")
tool("nodepool_upgrade", "irreversible", ["cluster", "nodepool"], "start a node-pool version upgrade")
tool("operation_status", "read", ["operation_id"], "status of a provider long-running operation")
tool("pagerduty_maint", "write", ["service_id"], "create a maintenance window on a PagerDuty service")
# monorepo dependency upgrade
tool("git", "write", [], "run git in the agent's checkout")
tool("pnpm", "write", [], "run pnpm in the agent's checkout")
tool("ci_runs", "read", ["pipeline_id"], "CI pipeline status and jobs")
tool("ci_job_log", "read", ["job_id"], "log of one CI job")
tool("ci_retry", "write", ["job_id"], "retry one CI job")
tool("gh_pr", "write", ["repo"], "create or update a pull request")
tool("gh_pr_merge", "irreversible", ["repo", "pr_number"], "merge a pull request")
tool("npm_view", "read", ["package"], "registry metadata of a package")
# CRM cleanup and merge
tool("crm_select_workspace", "read", [], "select the CRM workspace the following calls act on")
tool("crm_search", "read", [], "search CRM records")
tool("crm_get_account", "read", ["account_id"], "one CRM account with contacts and deals")
tool("crm_merge", "irreversible", ["survivor_id"], "merge duplicate accounts into a survivor")
tool("crm_update", "write", ["account_id"], "update fields on a CRM account")
tool("billing_customer", "read", ["account_id"], "billing system's record of a customer")
tool("crm_export_job", "write", [], "start a bulk export job")
tool("crm_job_status", "read", ["job_id"], "status of a bulk CRM job")
# wedding vendors
tool("email_search", "read", [], "search the planner mailbox")
tool("email_send", "write", ["to"], "send an email")
tool("vendor_portal", "read", ["vendor_id"], "a vendor's booking portal record")
tool("payment_send", "irreversible", ["payee"], "send a payment from the wedding account")
tool("payment_status", "read", ["payment_id"], "status of a sent payment")
tool("calendar_add", "write", [], "add an event to the shared calendar")
tool("sheet_read", "read", ["sheet"], "read a range of a spreadsheet")
tool("sheet_write", "write", ["sheet"], "write cells of a spreadsheet")
# mortgage refinance
tool("lender_portal", "read", ["loan_number"], "loan application status on the lender's portal")
tool("doc_upload", "write", ["loan_number"], "upload a document to the loan file")
tool("doc_list", "read", ["loan_number"], "documents on file and conditions")
tool("bank_statement", "read", ["account"], "download a bank statement")
tool("esign_envelope", "irreversible", ["envelope_id"], "sign an e-signature envelope")
tool("credit_report", "read", ["applicant"], "credit bureau summary")
tool("rate_lock", "irreversible", ["loan_number"], "lock the rate on a loan")
tool("servicer_payoff", "read", ["loan_number"], "payoff quote from the current servicer")
# payroll and contractors
tool("payroll_company", "read", [], "select the payroll company (entity) the following calls act on")
tool("payroll_preview", "read", ["pay_period"], "preview a payroll run")
tool("payroll_submit", "irreversible", ["pay_period"], "submit a payroll run for processing")
tool("contractor_list", "read", [], "contractors and their payment details")
tool("contractor_pay", "irreversible", ["contractor_id"], "pay a contractor")
tool("bank_balance", "read", ["account"], "balance of a bank account")
tool("ledger_post", "write", ["journal"], "post a journal entry to the ledger")
tool("payroll_run_status", "read", ["run_id"], "status of a submitted payroll run")
tool("w9_lookup", "read", ["contractor_id"], "W-9 / tax form on file for a contractor")
# conference
tool("venue_api", "read", ["venue_id"], "venue booking record")
tool("venue_hold", "write", ["venue_id"], "place or change a hold on venue rooms")
tool("cfp_list", "read", [], "CFP submissions and review scores")
tool("speaker_email", "write", ["speaker_id"], "email a speaker")
tool("ticketing", "read", ["event_id"], "ticket sales and tiers")
tool("ticket_tier", "write", ["event_id"], "create or change a ticket tier")
tool("contract_sign", "irreversible", ["contract_id"], "sign a vendor contract")
tool("av_quote", "read", ["vendor_id"], "AV vendor quote")
# support escalation
tool("ticket_get", "read", ["ticket_id"], "a support ticket with its thread")
tool("ticket_update", "write", ["ticket_id"], "update or reply on a ticket")
tool("billing_lookup", "read", ["order_id"], "billing record of an order")
tool("billing_refund", "irreversible", ["order_id"], "refund an order (fully or partly)")
tool("shipping_track", "read", ["order_id"], "carrier tracking of an order's shipment")
tool("shipping_reship", "write", ["order_id"], "create a replacement shipment")
tool("job_status", "read", ["job_id"], "status of an asynchronous back-office job")
tool("crm_customer", "read", ["customer_id"], "customer profile")
# grant submission
tool("grants_portal", "read", ["application_id"], "sponsor portal application record")
tool("grants_upload", "write", ["application_id"], "upload a component to the application")
tool("grants_submit", "irreversible", ["application_id"], "submit the application to the sponsor")
tool("budget_sheet", "read", ["sheet"], "read the budget workbook")
tool("osp_routing", "write", ["proposal_id"], "route the proposal for institutional sign-off")
tool("osp_status", "read", ["proposal_id"], "routing status in the sponsored-programs office")
tool("pdf_check", "read", ["file"], "check a PDF against sponsor formatting rules")
# film festival
tool("festival_platform", "read", ["festival_id"], "festival listing, deadlines and fees")
tool("submission_create", "write", ["festival_id"], "create a festival submission")
tool("submission_pay", "irreversible", ["submission_id"], "pay a submission fee")
tool("submission_status", "read", ["submission_id"], "status of a festival submission")
tool("vimeo_link", "write", ["video_id"], "create or change a private screener link")
tool("dcp_check", "read", ["package"], "validate a DCP package")
tool("drive_list", "read", [], "list files in the production drive")
# home renovation
tool("bids_inbox", "read", [], "contractor bids received")
tool("permit_portal", "read", ["permit_id"], "city permit record")
tool("permit_apply", "write", ["address"], "file a permit application")
tool("escrow_release", "irreversible", ["contract_id"], "release a milestone payment from escrow")
tool("escrow_status", "read", ["contract_id"], "escrow account and milestones")
tool("supplier_order", "write", ["supplier"], "order materials")
tool("supplier_order_status", "read", ["order_ref"], "status of a materials order")
tool("schedule_crew", "write", ["contractor"], "book a crew date")
# IAM audit
tool("aws_profile", "read", [], "switch the CLI profile / assumed role")
tool("aws_iam", "read", [], "read-only IAM query in the current account")
tool("aws_iam_change", "irreversible", ["principal"], "detach/delete an IAM policy or key")
tool("access_analyzer", "read", ["analyzer"], "access analyzer findings")
tool("cloudtrail_lookup", "read", ["principal"], "CloudTrail events for a principal")
tool("ticket_jira", "write", ["issue_key"], "create or update a Jira issue")
tool("credential_report", "read", [], "generate/download the IAM credential report")
# catalogue migration
tool("shop_select", "read", [], "select the storefront the following calls act on")
tool("catalog_export", "read", ["store"], "export products from the old platform")
tool("catalog_import", "write", ["store"], "start a product import job")
tool("import_status", "read", ["import_id"], "status of an import job")
tool("product_get", "read", ["sku"], "one product as the new store holds it")
tool("redirects_publish", "irreversible", ["store"], "publish URL redirects")
tool("inventory_sync", "write", ["location_id"], "sync inventory levels for a location")
tool("erp_item", "read", ["sku"], "ERP record of an item")
# hospital roster
tool("roster_select", "read", [], "select the ward roster the following calls act on")
tool("roster_view", "read", ["ward", "week"], "a ward's roster for a week")
tool("roster_assign", "write", ["staff_id"], "assign or move a shift")
tool("roster_publish", "irreversible", ["ward", "week"], "publish a roster to staff")
tool("staff_record", "read", ["staff_id"], "staff record: credentials, hours, leave")
tool("agency_request", "write", ["ward"], "request an agency nurse")
tool("agency_status", "read", ["request_id"], "status of an agency request")
tool("timeclock", "read", ["staff_id"], "clock-in/out records")
# donor campaign
tool("donor_db", "read", [], "query the donor database")
tool("donor_segment", "write", ["segment"], "create or change a donor segment")
tool("mail_campaign", "write", ["campaign_id"], "create or change a mailing")
tool("mail_send", "irreversible", ["campaign_id"], "send a mailing")
tool("mail_stats", "read", ["campaign_id"], "delivery and response stats")
tool("gift_processor", "read", ["gift_id"], "payment processor record of a gift")
tool("crm_donor", "read", ["donor_id"], "donor profile in the CRM")
tool("match_pledge", "read", ["pledge_id"], "matching-gift pledge terms")
# fleet maintenance
tool("fleet_select", "read", [], "select the depot whose vehicles the following calls act on")
tool("telematics", "read", ["vehicle_id"], "odometer, engine hours and fault codes of a vehicle")
tool("work_order", "write", ["vehicle_id"], "open or change a maintenance work order")
tool("shop_booking", "write", ["shop_id"], "book a bay at a repair shop")
tool("parts_order", "irreversible", ["vendor"], "order parts (non-returnable)")
tool("parts_status", "read", ["po_number"], "status of a parts order")
tool("dvir_reports", "read", ["vehicle_id"], "driver vehicle inspection reports")


# ---------------------------------------------------------------------------------------------
# Builder: appends steps, tracks seqs and open calls
# ---------------------------------------------------------------------------------------------
class Builder:
    def __init__(self, spec: dict, rng: random.Random):
        self.spec, self.rng = spec, rng
        self.steps: list[dict] = []
        self.seq = 0
        self.calls: dict[str, dict] = {}      # call_id -> arguments/tool/seq
        self.unanswered: set[str] = set()     # calls with no tool_result at all
        self.n_calls = 0
        self.used_tools: set[str] = set()
        self.decision_ids: set[str] = set()

    def ev(self, kind: str, payload: dict) -> int:
        self.seq += 1
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": self.seq})
        return self.seq

    def user(self, text: str) -> int:
        return self.ev("user", {"text": text})

    def asst(self, text: str) -> int:
        return self.ev("assistant", {"text": text})

    def system(self, text: str) -> int:
        return self.ev("system", {"text": text})

    def fact(self, key, value, subject=None, kind="fact", authority="user") -> int:
        p = {"key": key, "value": value, "authority": authority, "confidence": "confirmed"}
        if subject:
            p["subject"] = subject
        return self.ev(kind, p)

    def correction(self, key, value, subject=None) -> int:
        return self.fact(key, value, subject, kind="correction")

    def new_call_id(self) -> str:
        self.n_calls += 1
        return f"call_{self.spec['prefix']}{self.n_calls:03d}"

    def request_id(self) -> str:
        return "req_" + "".join(self.rng.choice("0123456789abcdef") for _ in range(12))

    def call(self, tool_name: str, args: dict, result=None, *, outcome="succeeded", log=None,
             idem=None, error=None, extra=None, answer=True):
        """tool_call (+ tool_result unless answer=False). Returns (call_id, call_seq, result_seq)."""
        assert tool_name in TOOLS, tool_name
        self.used_tools.add(tool_name)
        cid = self.new_call_id()
        p = {"tool": tool_name, "call_id": cid, "arguments": args, "effect": TOOLS[tool_name][0]}
        if idem:
            p["idempotency_key"] = idem
        cseq = self.ev("tool_call", p)
        self.calls[cid] = {"tool": tool_name, "arguments": args, "seq": cseq}
        self.unanswered.add(cid)
        rseq = None
        if answer:
            rseq = self.answer(cid, result, outcome=outcome, log=log, error=error, extra=extra)
        return cid, cseq, rseq

    def answer(self, cid, result=None, *, outcome="succeeded", log=None, error=None, extra=None) -> int:
        p: dict = {"call_id": cid, "outcome": outcome, "request_id": self.request_id()}
        if result is not None:
            p["result"] = result
        if log is not None:
            p["log"] = log
        if error is not None:
            p["error"] = error
        if extra:
            p.update(extra)
        self.unanswered.discard(cid)
        self.calls[cid]["request_id"] = p["request_id"]
        return self.ev("tool_result", p)

    def status_query(self, cid, outcome, result=None) -> int:
        p: dict = {"call_id": cid, "outcome": outcome}
        if result is not None:
            p["result"] = result
        return self.ev("status_query", p)

    def approval(self, aid, status, scopes_event) -> int:
        return self.ev("approval", {"approval_id": aid, "status": status, "scopes_event": scopes_event})

    def recover(self) -> int | None:
        self.steps.append({"type": "recover"})
        if self.unanswered:
            self.seq += 1
            self.steps[-1]["_recovery_seq"] = self.seq
            self.unanswered.clear()
            return self.seq
        return None

    def decision(self, did: str, probes: list[dict], note: str = "") -> None:
        assert did not in self.decision_ids
        self.decision_ids.add(did)
        self.steps.append({"type": "decision", "id": did, "probes": probes, "note": note})


# probe constructors
def P_fact(key, value, superseded=(), subject=None, why=""):
    p = {"probe": "fact", "key": key, "value": value}
    if subject:
        p["subject"] = subject
    if superseded:
        p["superseded"] = list(superseded)
    if why:
        p["why"] = why
    return p


def P_tool(call_id, status, request_id=None, why="", idem=None):
    p = {"probe": "tool_state", "status": status}
    if idem:
        p["idempotency_key"] = idem
    else:
        p["call_id"] = call_id
    if request_id:
        p["request_id"] = request_id
    if why:
        p["why"] = why
    return p


def P_next(tool_name, arguments, why=""):
    return {"probe": "next_call", "tool": tool_name, "arguments": arguments, **({"why": why} if why else {})}


def P_pending(approval_id=None, call_id=None, why=""):
    p = {"probe": "pending"}
    p["approval_id" if approval_id else "call_id"] = approval_id or call_id
    if why:
        p["why"] = why
    return p


def P_cons(seq, text, why=""):
    return {"probe": "constraint", "seq": seq, "text": text, **({"why": why} if why else {})}


def P_ev(seqs, why=""):
    return {"probe": "evidence", "seqs": list(seqs), **({"why": why} if why else {})}


# ---------------------------------------------------------------------------------------------
# Oracle: the probe rules of docs/eval.md applied to the whole raw history up to the decision
# ---------------------------------------------------------------------------------------------
EXCLUDED = {"call_id", "outcome", "request_id", "error", "idempotency_key", "authority"}


class OracleError(Exception):
    pass


def _leaves(obj, path, in_list, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            _leaves(v, path + [str(k)], in_list, out)
    elif isinstance(obj, list):
        if all(not isinstance(v, (dict, list)) for v in obj):
            out.append((path, obj, in_list))
        for i, v in enumerate(obj):
            if isinstance(v, (dict, list)):
                _leaves(v, path + [str(i)], True, out)
    else:
        if isinstance(obj, str) and len(obj) > 200:
            return
        out.append((path, obj, in_list))


def result_fields(payload: dict):
    out: list = []
    for k, v in payload.items():
        if k not in EXCLUDED:
            _leaves(v, [k], False, out)
    return out


def _subject_pairs(subject):
    if subject is None:
        return {}
    if isinstance(subject, dict):
        return {str(k): str(v) for k, v in subject.items()}
    pairs = {}
    for part in str(subject).split(","):
        if part.strip():
            name, _, value = part.strip().partition("=")
            pairs[name.strip()] = value.strip()
    return pairs


def _texts(obj, out):
    if isinstance(obj, dict):
        for v in obj.values():
            _texts(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _texts(v, out)
    elif obj is not None:
        out.append(str(obj) if not isinstance(obj, bool) else json.dumps(obj))
    return out


class Oracle:
    def __init__(self, traj_id: str, steps: list[dict]):
        self.id = traj_id
        self.steps = steps

    def fail(self, did, probe, msg):
        raise OracleError(f"{self.id} decision {did}: {probe.get('probe')} probe {probe}: {msg}")

    def check(self):
        history: list[tuple[int, str, dict]] = []
        for step in self.steps:
            if step["type"] == "event":
                history.append((step["seq"], step["kind"], step["payload"]))
            elif step["type"] == "recover" and "_recovery_seq" in step:
                history.append((step["_recovery_seq"], "recovery", {}))
            elif step["type"] == "decision":
                self.check_decision(step, history)

    def check_decision(self, step, history):
        did = step["id"]
        if not history or history[-1][1] != "user":
            raise OracleError(f"{self.id} decision {did}: does not follow a user event")
        by_seq = {s: (k, p) for s, k, p in history}
        calls = {p["call_id"]: (s, p) for s, k, p in history if k == "tool_call"}
        own_user = history[-1][0]
        for probe in step["probes"]:
            kind = probe["probe"]
            if kind == "evidence":
                for s in probe["seqs"]:
                    if s not in by_seq:
                        self.fail(did, probe, f"seq {s} does not exist yet")
            elif kind == "constraint":
                s = probe["seq"]
                if s not in by_seq:
                    self.fail(did, probe, "seq does not exist")
                k, p = by_seq[s]
                if k != "user":
                    self.fail(did, probe, "constraint seq is not a user event")
                if probe["text"].lower() not in " ".join(_texts(p, [])).lower():
                    self.fail(did, probe, "text not in the event")
            elif kind == "fact":
                self.check_fact(did, probe, history, calls)
            elif kind == "tool_state":
                cid = probe.get("call_id")
                if cid is None:
                    ids = [c for c, (s, p) in calls.items() if p.get("idempotency_key") == probe["idempotency_key"]]
                    if len(ids) != 1:
                        self.fail(did, probe, "idempotency key does not name exactly one call")
                    cid = ids[0]
                status, rid = self.call_status(cid, history, calls)
                if status != probe["status"]:
                    self.fail(did, probe, f"newest status is {status}")
                if probe.get("request_id") and probe["request_id"] != rid:
                    self.fail(did, probe, f"request id is {rid}")
            elif kind == "pending":
                if probe.get("approval_id"):
                    states = [p["status"] for s, k, p in history
                              if k == "approval" and p["approval_id"] == probe["approval_id"]]
                    if not states or states[-1] != "requested":
                        self.fail(did, probe, f"approval states {states}")
                else:
                    cid = probe["call_id"]
                    if cid not in calls:
                        self.fail(did, probe, "no such call")
                    if self.definitive(cid, history):
                        self.fail(did, probe, "call has a definitive answer")
            elif kind == "next_call":
                if probe["tool"] not in TOOLS:
                    self.fail(did, probe, "unknown tool")
                text = " ".join(" ".join(_texts(p, [])) for s, k, p in history if s < own_user).lower()
                for name, value in probe["arguments"].items():
                    if str(value).lower() not in text:
                        self.fail(did, probe, f"argument {name}={value!r} not stated before the user message")
            else:
                self.fail(did, probe, "unknown probe class")

    @staticmethod
    def definitive(cid, history):
        for s, k, p in history:
            if p.get("call_id") != cid:
                continue
            if k == "tool_result" and p["outcome"] in ("succeeded", "failed", "cancelled"):
                return True
            if k == "status_query" and p["outcome"] in ("succeeded", "failed", "not_performed"):
                return True
        return False

    @staticmethod
    def call_status(cid, history, calls):
        status, rid = None, None
        call_seq = calls[cid][0]
        answered = False
        for s, k, p in history:
            if k == "tool_result" and p.get("call_id") == cid:
                answered = True
                status = p["outcome"] if p["outcome"] in ("succeeded", "failed", "cancelled") else "unknown"
                rid = p.get("request_id")
            elif k == "status_query" and p.get("call_id") == cid:
                answered = True
                o = p["outcome"]
                status = {"succeeded": "succeeded", "failed": "failed", "not_performed": "failed"}.get(o, "unknown")
                rid = p.get("request_id", rid)
        if not answered:
            recovered = any(k == "recovery" and s > call_seq for s, k, p in history)
            status = "unknown" if recovered else "running"
        return status, rid

    def check_fact(self, did, probe, history, calls):
        key, value = probe["key"], probe["value"]
        want = _subject_pairs(probe.get("subject"))
        statements: list[tuple[int, object, bool]] = []
        for s, k, p in history:
            if k in ("fact", "correction"):
                if p.get("key") != key or p.get("authority") == "model" or p.get("confidence") in ("inferred", "unknown"):
                    continue
                have = _subject_pairs(p.get("subject"))
                if all(have.get(n) == v for n, v in want.items()):
                    statements.append((s, p["value"], False))
            elif (k == "tool_result" or k == "status_query") and p.get("outcome") == "succeeded":
                matches = []
                for path, v, in_list in result_fields(p):
                    dotted = ".".join(path)
                    if path[-1] == key or dotted == key:
                        matches.append((v, in_list))
                if not matches:
                    continue
                if want:
                    args = calls.get(p["call_id"], (0, {"arguments": {}}))[1]["arguments"]
                    if not all(str(args.get(n)) == v for n, v in want.items()):
                        continue
                for v, in_list in matches:
                    statements.append((s, v, in_list))
        if not statements:
            self.fail(did, probe, "key never stated")
        newest_seq = statements[-1][0]
        newest = [st for st in statements if st[0] == newest_seq]
        if any(v != value or type(v) is not type(value) for _, v, _ in newest):
            self.fail(did, probe, f"newest statement (seq {newest_seq}) is {[v for _, v, _ in newest]}")
        if any(in_list for _, _, in_list in newest):
            self.fail(did, probe, "newest statement is inside a list")
        for old in probe.get("superseded", []):
            if old == value:
                self.fail(did, probe, "superseded equals value")
            if not any(v == old for s, v, _ in statements if s < newest_seq):
                self.fail(did, probe, f"superseded {old!r} was never stated earlier")


# ---------------------------------------------------------------------------------------------
# Text helpers for long outputs
# ---------------------------------------------------------------------------------------------
def hexid(rng, n=8):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def ts(rng, day="2024-05-14", h0=8, h1=18):
    return f"{day}T{rng.randint(h0, h1 - 1):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"


def table(header: list[str], rows: list[list]) -> str:
    cols = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cols) for i in range(len(header))]
    return "\n".join("   ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in cols)


def insert_at(rng, lines: list, special, lo=0.3, hi=0.8):
    i = rng.randint(int(len(lines) * lo), max(int(len(lines) * lo), int(len(lines) * hi)))
    lines.insert(i, special)
    return lines


STANDARD_EXERCISES = [
    "a current context (working directory, branch, selected account) set and moved by calls",
    "ids returned by one tool and used by another many turns later",
    "codes and amounts the user typed once",
    "user corrections of an earlier value (one corrected twice)",
    "a call that times out, resolved later by a status query",
    "a call left unknown (status query unknown) and a call made unknown by a restart",
    "pending approvals (one granted in the second session, one still open)",
    "constraints the user set early",
    "long tool outputs with the one value that matters inside",
    "two tools disagreeing about the same field, many turns apart",
    "a side topic and a second session",
]


# ---------------------------------------------------------------------------------------------
# The story engine
# ---------------------------------------------------------------------------------------------
def build(S: dict, density: float) -> Builder:
    rng = random.Random(S["id"])
    b = Builder(S, rng)
    carry = [0.0]
    fillers = S["fillers"]
    order = list(range(len(fillers)))

    def fill(n: int) -> None:
        carry[0] += n * density
        k = int(carry[0])
        carry[0] -= k
        for _ in range(k):
            if not order:
                order.extend(range(len(fillers)))
                rng.shuffle(order)
            f = fillers[order.pop()]
            u, tname, args, result, a = f(rng)
            if u and rng.random() < 0.75:
                b.user(u)
            b.call(tname, args, result)
            b.asst(a)

    ctx = S["ctx"]

    def move(i: int, text: str | None):
        if text:
            b.user(text)
        v = ctx["values"][i]
        cid, cs, rs = b.call(ctx["tool"], ctx["args"](v), ctx["result"](v, rng))
        b.asst(ctx["said"][i])
        return rs

    def long_call(L: dict):
        b.user(L["ask"])
        result, log = L["make"](rng)
        _, _, rs = b.call(L["tool"], L["args"], result, log=log)
        b.asst(L["said"])
        return rs

    V = S["value"]
    # ---- session 1
    b.system(S["system"])
    s_kick = b.user(S["kickoff"])
    b.asst(S["kickoff_ack"])
    cap_key, cap_value = S["cap"]
    b.fact(cap_key, cap_value)
    move(0, None)
    fill(2)
    s_c2 = b.user(S["c2"][0])
    b.asst(S["c2_ack"])
    fill(1)
    s_list = long_call(S["listing"])
    fill(1)
    b.user(S["d1_ask"])
    b.decision("d1-early-context", [
        P_fact(ctx["key"], ctx["values"][0], why="the context set by the first call"),
        P_cons(s_kick, S["c1_text"], why="the constraint set in the first message"),
        P_next(S["listing"]["use_tool"], S["listing"]["use_args"], why="the one value of the long listing"),
    ])
    b.user(V["say"][0])
    b.fact(V["key"], V["vals"][0], V.get("subject"))
    b.asst(V["ack"][0])
    C = S["create"]
    b.user(C["ask"])
    c_create, _, _ = b.call(C["tool"], C["args"], C["result"], idem=C.get("idem"))
    b.asst(C["said"])
    fill(2)
    b.user(V["say"][1])
    b.correction(V["key"], V["vals"][1], V.get("subject"))
    b.asst(V["ack"][1])
    fill(1)
    move(1, ctx["move_text"][0])
    T = S["timeout"]
    b.user(T["ask"])
    c_to, _, _ = b.call(T["tool"], T["args"], outcome="timeout", error=T["error"])
    b.asst(T["said"])
    b.user(T["followup"])
    b.decision("d2-after-timeout", [
        P_tool(c_to, "unknown", why="a timed-out call is neither done nor failed"),
        P_pending(call_id=c_to, why="the timed-out call is still open"),
        P_fact(V["key"], V["vals"][1], [V["vals"][0]], V.get("subject"), why="the user's first correction"),
        P_fact(ctx["key"], ctx["values"][1], [ctx["values"][0]], why="the context moved"),
    ])
    b.asst(T["wait_said"])
    fill(1)
    long_call(S["long2"])
    b.user(S["side"][0])
    b.asst(S["side"][1])
    if len(S["side"]) > 2:
        b.user(S["side"][2])
        b.asst(S["side"][3])
    fill(1)
    b.user(T["check_ask"])
    b.status_query(c_to, "succeeded", T["sq_result"])
    b.asst(T["sq_said"])
    fill(1)
    K = S["contra"]
    b.user(K["a_ask"])
    _, _, s_ka = b.call(K["a"][0], K["a"][1], K["a"][2])
    b.asst(K["a_said"])
    fill(2)
    A = S["appr1"]
    s_ap = b.user(A["ask"])
    b.approval(A["id"], "requested", s_ap)
    b.asst(A["said"])
    b.user(A["meanwhile"])
    b.decision("d3-mid", [
        P_pending(approval_id=A["id"], why="the approval was requested and not yet answered"),
        P_tool(c_to, "succeeded", why="the status query resolved the timeout"),
        P_next(C["use_tool"], C["use_args"], why="the id the create call returned"),
        P_cons(s_c2, S["c2"][1], why="the second constraint"),
    ])
    b.asst(A["meanwhile_said"])
    fill(2)
    long_call(S["long3"])
    fill(1)
    R = S["running"]
    b.user(R["ask"])
    c_run, _, _ = b.call(R["tool"], R["args"], answer=False)
    b.asst(R["said"])
    # ---- the agent restarts: a second session
    b.recover()
    b.system(S["break"])
    b.user(S["resume"])
    b.decision("d4-second-session", [
        P_tool(c_run, "unknown", why="the call was running when the agent restarted"),
        P_pending(approval_id=A["id"], why="still waiting for the user's go-ahead"),
        P_cons(s_kick, S["c1_text"], why="the first constraint across sessions"),
        P_fact(cap_key, cap_value, why="the limit recorded at the start"),
    ])
    b.asst(S["resume_said"])
    b.user(V["say"][2])
    b.correction(V["key"], V["vals"][2], V.get("subject"))
    b.asst(V["ack"][2])
    fill(1)
    s_grant = b.user(A["grant"])
    b.approval(A["id"], "granted", s_ap)
    c_ap, _, _ = b.call(A["tool"], A["args"], A["result"], idem=A.get("idem"))
    b.asst(A["done_said"])
    fill(1)
    b.user(K["b_ask"])
    _, _, s_kb = b.call(K["b"][0], K["b"][1], K["b"][2])
    b.asst(K["b_said"])
    b.user(K["which"])
    b.decision("d5-contradiction", [
        P_ev([s_ka, s_kb], why="both readings of the disputed field, raw"),
        P_fact(V["key"], V["vals"][2], V["vals"][:2], V.get("subject"), why="the value corrected twice"),
        P_tool(c_ap, "succeeded", b.calls[c_ap]["request_id"], why="the approved action ran"),
    ])
    b.user(K["resolve"])
    b.correction(K["key"], K["winner"], K["subject"])
    b.asst(K["resolve_said"])
    fill(1)
    move(2, ctx["move_text"][1])
    fill(1)
    U = S["unknown"]
    b.user(U["ask"])
    c_unk, _, _ = b.call(U["tool"], U["args"], outcome="timeout", error=U["error"])
    b.status_query(c_unk, "unknown")
    b.asst(U["said"])
    fill(1)
    if "long4" in S:
        long_call(S["long4"])
    A2 = S["appr2"]
    s_ap2 = b.user(A2["ask"])
    b.approval(A2["id"], "requested", s_ap2)
    b.asst(A2["said"])
    F = S["final"]
    b.user(F["ask"])
    loser = K["x"] if K["winner"] == K["y"] else K["y"]
    b.decision("d6-final-call", [
        P_next(F["tool"], F["args"], why="ids, codes and context gathered across the conversation"),
        P_pending(approval_id=A2["id"], why="the second approval is open"),
        P_fact(ctx["key"], ctx["values"][2], ctx["values"][:2], why="the newest context"),
        P_fact(K["key"], K["winner"], [loser], K["subject"], why="the user's resolution of the contradiction"),
        P_tool(c_unk, "unknown", why="the status query could not tell"),
        P_cons(s_c2, S["c2"][1], why="the second constraint, late"),
    ])
    b.asst(F["said"])
    fill(1)
    b.user(S["last_ask"])
    b.decision("d7-wrap-up", [
        P_ev([s_list], why="the long listing the last step quotes"),
        P_next(S["listing"]["use_tool"], S["listing"]["use_args"], why="the value from the first long output"),
        P_fact(V["key"], V["vals"][2], V["vals"][:2], V.get("subject")),
        P_cons(s_kick, S["c1_text"]),
        P_tool(c_run, "unknown", why="nobody re-checked the interrupted call"),
    ])
    return b


def rows_result(rng, n, rowfn, special, pos=(0.35, 0.8), key="items", extra=None):
    rows = [rowfn(rng, i) for i in range(n)]
    insert_at(rng, rows, special, *pos)
    out = {key: rows}
    if extra:
        out.update(extra)
    return out


def log_text(rng, n, linefn, special, pos=(0.35, 0.8)):
    lines = [linefn(rng, i) for i in range(n)]
    insert_at(rng, lines, special, *pos)
    return "\n".join(lines)


DOMAINS: list[dict] = []

# ---------------------------------------------------------------------------------------------
# 1. Kubernetes cluster upgrade
# ---------------------------------------------------------------------------------------------
tool("cmdb_cluster", "read", ["cluster"], "platform team's cluster inventory (synced nightly)")


def _k8s_node(rng, i, pool="default-pool", pre="gke-stg-eu"):
    return [f"{pre}-{pool}-{hexid(rng)}-{hexid(rng, 4)}", "Ready", "<none>", f"{rng.randint(2, 190)}d",
            "v1.27.13-gke.1000", f"10.132.0.{rng.randint(2, 250)}", "Container-Optimized OS from Google",
            "containerd://1.7.13"]


def _k8s_nodes(rng):
    rows = [_k8s_node(rng, i) for i in range(12)] + [_k8s_node(rng, i, "gpu-inference") for i in range(3)]
    bad = ["gke-stg-eu-default-pool-7f3c2a91-x2kq", "NotReady", "<none>", "41d", "v1.27.13-gke.1000",
           "10.132.0.77", "Container-Optimized OS from Google", "containerd://1.7.13"]
    insert_at(rng, rows, bad, 0.4, 0.7)
    hdr = ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "OS-IMAGE", "CONTAINER-RUNTIME"]
    return {"exit_code": 0}, table(hdr, rows)


def _k8s_pods(rng):
    rows = []
    for i in range(16):
        app = rng.choice(["payments-api", "ledger-writer", "fx-rates", "payments-worker", "webhook-relay"])
        rows.append([f"{app}-{hexid(rng, 9)}-{hexid(rng, 5)}", "1/1", "Running", str(rng.randint(0, 3)),
                     f"{rng.randint(1, 30)}d", f"10.8.{rng.randint(0, 9)}.{rng.randint(2, 250)}",
                     f"gke-prod-eu-1-default-pool-{hexid(rng)}-{hexid(rng, 4)}"])
    rows.insert(9, ["payments-api-6d9f7c8b54-q7wzr", "0/1", "CrashLoopBackOff", "17", "2h", "10.8.3.41",
                     "gke-prod-eu-1-default-pool-91be02cd-7hhn"])
    hdr = ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"]
    return {"exit_code": 0, "namespace": "payments"}, table(hdr, rows)


def _k8s_events(rng):
    lines = []
    for i in range(30):
        lines.append(f"{rng.randint(1, 59)}m   Normal   {rng.choice(['Scheduled', 'Pulled', 'Created', 'Started', 'SuccessfulCreate'])}   "
                     f"pod/{rng.choice(['fx-rates', 'ledger-writer', 'webhook-relay'])}-{hexid(rng, 9)}-{hexid(rng, 5)}   "
                     f"{rng.choice(['Successfully assigned', 'Container image already present on machine', 'Created container', 'Started container'])}")
    lines.insert(17, "12m   Warning  FailedEviction   poddisruptionbudget/payments-api-pdb   Cannot evict pod as it would "
                     "violate the pod's disruption budget (minAvailable=3, currentHealthy=3)")
    return {"exit_code": 0}, "LAST SEEN   TYPE     REASON   OBJECT   MESSAGE\n" + "\n".join(lines)


DOMAINS.append(dict(
    id="k8s-upgrade-contexts", prefix="k8", title="GKE 1.27 to 1.28 upgrade across three kube contexts",
    description="An SRE agent upgrades staging then two prod clusters from a shell whose kube context moves; "
                "a change ticket typed once, a target version corrected twice, an operation that times out.",
    system="You are an SRE assistant with a shell (kubectl, gcloud) and PagerDuty. Act only on the current kube "
           "context; say which context you are in before every write.",
    ctx=dict(tool="kubectl", key="kube_context",
             values=["gke_acme-stg_europe-west1_stg-eu", "gke_acme-prod_europe-west1_prod-eu-1",
                     "gke_acme-prod_us-east4_prod-us-2"],
             args=lambda v: {"command": f"config use-context {v}"},
             result=lambda v, rng: {"kube_context": v, "namespace_default": "default", "exit_code": 0},
             said=["Switched to the staging context.", "Now on prod-eu-1.", "Now on prod-us-2."],
             move_text=["Staging is fine. Switch to prod-eu-1 and let's do the control plane there.",
                        "EU is settled. Move to prod-us-2, it's the last one."]),
    kickoff="We're upgrading the GKE clusters from 1.27 to 1.28 today, staging first. Rules: never drain more than "
            "one node at a time in prod, and payments pods must stay at 3 replicas minimum. The change ticket is "
            "CHG-40317, put it in every annotation and window description.",
    kickoff_ack="Got it: one drain at a time in prod, payments at >= 3 replicas, CHG-40317 on everything. Starting in staging.",
    c1_text="never drain more than one node at a time", cap=("max_parallel_drains", 1),
    c2=("Also, do not touch the gpu-inference node pool in any cluster. The ML team upgrades their own.", "gpu-inference"),
    c2_ack="Noted, gpu-inference is off limits everywhere.",
    listing=dict(ask="List the staging nodes, wide.", tool="kubectl", args={"command": "get nodes -o wide"},
                 make=_k8s_nodes, said="27 nodes; one of them is not Ready, the rest are on v1.27.13.",
                 use_tool="kubectl", use_args={"node": "gke-stg-eu-default-pool-7f3c2a91-x2kq"}),
    d1_ask="Cordon the one that isn't Ready before anything else.",
    value=dict(key="upgrade_target_version", vals=["1.28.9-gke.1000", "1.28.7-gke.1026", "1.28.10-gke.1075"],
               say=["Target version is 1.28.9-gke.1000.",
                    "Correction: 1.28.9 isn't offered in our region yet. Use 1.28.7-gke.1026 instead.",
                    "Change of plan from security: 1.28.7 has the CVE-2024-3177 issue. Target 1.28.10-gke.1075 now."],
               ack=["Target 1.28.9-gke.1000.", "Target is now 1.28.7-gke.1026.", "Target is now 1.28.10-gke.1075."]),
    create=dict(ask="Open a PagerDuty maintenance window on the payments service, 4 hours from now.",
                tool="pagerduty_maint", args={"service_id": "PX7Q2LM", "duration_minutes": 240,
                                              "description": "GKE 1.28 upgrade CHG-40317"},
                result={"maintenance_window": {"id": "PMW4K2Z", "type": "maintenance_window", "sequence_number": 2211,
                                               "start_time": "2024-05-14T09:05:00Z", "end_time": "2024-05-14T13:05:00Z",
                                               "services": [{"id": "PX7Q2LM", "summary": "payments-api"}],
                                               "html_url": "https://acme.pagerduty.com/maintenance_windows/PMW4K2Z"}},
                said="Maintenance window is open until 13:05 UTC.", idem="pd-maint-chg40317",
                use_tool="pagerduty_maint", use_args={"window_id": "PMW4K2Z"}),
    timeout=dict(ask="Kick off the prod-eu-1 control plane upgrade.", tool="nodepool_upgrade",
                 args={"cluster": "prod-eu-1", "nodepool": "control-plane", "version": "1.28.7-gke.1026"},
                 error="DEADLINE_EXCEEDED: timed out after 60s waiting for the operation handle",
                 said="The API call timed out before returning an operation; it may or may not have started.",
                 followup="Did it start or not? Don't start it twice.",
                 wait_said="I'll check the operation list instead of retrying.",
                 check_ask="Check on that control plane upgrade now.",
                 sq_result={"operation_id": "operation-1715680111-4a1c9e", "operation_type": "UPGRADE_MASTER",
                            "operation_status": "RUNNING", "progress_percent": 35},
                 sq_said="It did start: UPGRADE_MASTER operation at 35%."),
    long2=dict(ask="Show me the payments pods in prod-eu-1.", tool="kubectl", args={"command": "get pods -n payments -o wide"},
               make=_k8s_pods, said="One payments-api pod is in CrashLoopBackOff with 17 restarts; the rest are Running."),
    side=("Unrelated: my laptop's kubectl keeps warning about gke-gcloud-auth-plugin. Do I have to fix that?",
          "Yes, eventually: since 1.26 the built-in GCP auth provider is gone, so install gke-gcloud-auth-plugin "
          "with gcloud components install and set USE_GKE_GCLOUD_AUTH_PLUGIN=True; then re-run get-credentials."),
    contra=dict(key="control_plane_version", subject="cluster=prod-eu-1",
                a_ask="What does the provider say prod-eu-1's control plane is on now?",
                a=("cluster_info", {"cluster": "prod-eu-1"},
                   {"cluster": {"name": "prod-eu-1", "location": "europe-west1", "control_plane_version": "1.28.7-gke.1026",
                                "status": "RUNNING", "release_channel": "REGULAR",
                                "node_pools": [{"name": "default-pool", "version": "1.27.13-gke.1000", "node_count": 18},
                                               {"name": "gpu-inference", "version": "1.27.13-gke.1000", "node_count": 4}]}}),
                a_said="Provider API: control plane 1.28.7-gke.1026, node pools still 1.27.13.",
                b_ask="Check the CMDB entry for prod-eu-1 so the change record is right.",
                b=("cmdb_cluster", {"cluster": "prod-eu-1"},
                   {"ci": {"name": "prod-eu-1", "owner": "platform", "control_plane_version": "1.27.13-gke.1000",
                           "last_sync": "2024-05-13T02:00:00Z", "tier": "1"}}),
                b_said="The CMDB still shows 1.27.13-gke.1000 for the control plane, which disagrees with the provider.",
                which="Which version is prod-eu-1's control plane actually on?",
                resolve="The CMDB syncs nightly, it's stale. The provider is right: 1.28.7-gke.1026.",
                resolve_said="Recording the provider's 1.28.7-gke.1026 as the control plane version.",
                x="1.28.7-gke.1026", y="1.27.13-gke.1000", winner="1.28.7-gke.1026"),
    appr1=dict(id="apr-k8s-eu1-pool", ask="Next, upgrade the prod-eu-1 default-pool nodes.",
               said="That's irreversible in practice; I need your explicit go-ahead for the prod-eu-1 default-pool upgrade.",
               meanwhile="While you think about it, keep an eye on the maintenance window, we may need to extend it.",
               meanwhile_said="Will do; it ends at 13:05.",
               grant="Approved: upgrade prod-eu-1 default-pool now, to the new target.",
               tool="nodepool_upgrade", args={"cluster": "prod-eu-1", "nodepool": "default-pool", "version": "1.28.10-gke.1075",
                                              "max_surge": 1, "max_unavailable": 0},
               result={"operation": {"name": "operation-1715688420-77d2b1", "operation_type": "UPGRADE_NODES",
                                     "target_link": "projects/acme-prod/locations/europe-west1/clusters/prod-eu-1/nodePools/default-pool"}},
               done_said="UPGRADE_NODES started on default-pool with surge 1, unavailable 0.", idem="np-eu1-default-11028"),
    long3=dict(ask="Any disruption events in payments since the drains began?", tool="kubectl",
               args={"command": "get events -n payments --sort-by=.lastTimestamp"}, make=_k8s_events,
               said="Mostly routine; one FailedEviction from the payments-api PDB."),
    running=dict(ask="Drain gke-prod-eu-1-default-pool-91be02cd-7hhn, ignore daemonsets.", tool="kubectl",
                 args={"command": "drain gke-prod-eu-1-default-pool-91be02cd-7hhn --ignore-daemonsets --delete-emptydir-data"},
                 said="Drain started; waiting on pod evictions."),
    **{"break": "Session resumed on 2024-05-15 08:40 UTC after the agent process was restarted."},
    resume="Morning. My laptop died yesterday mid-drain. Where do things stand?",
    resume_said="The drain of 91be02cd-7hhn was in flight when we stopped; its outcome is unknown. The default-pool approval was still open.",
    unknown=dict(ask="Extend the PagerDuty window by two hours.", tool="pagerduty_maint",
                 args={"window_id": "PMW4K2Z", "end_time": "2024-05-15T15:05:00Z"},
                 error="504 Gateway Timeout from api.pagerduty.com",
                 said="The extension timed out and the status lookup could not tell whether it applied."),
    appr2=dict(id="apr-k8s-us2-pool", ask="Queue the prod-us-2 default-pool upgrade too; I'll approve it after lunch.",
               said="Queued for approval: prod-us-2 default-pool upgrade."),
    final=dict(ask="Prepare the prod-us-2 pool upgrade call exactly as you'd send it, then wait for my approval.",
               tool="nodepool_upgrade", args={"cluster": "prod-us-2", "version": "1.28.10-gke.1075",
                                              "change_ticket": "CHG-40317", "window_id": "PMW4K2Z"},
               said="Prepared; waiting for approval."),
    last_ask="Last thing: the staging node that was NotReady at the very start, give me its exact name so I can file it.",
    fillers=[
        lambda rng: ("How are the staging pods?", "kubectl", {"command": "get pods -A --field-selector=status.phase!=Running"},
                     {"exit_code": 0, "stdout": "NAMESPACE   NAME   READY   STATUS   RESTARTS   AGE\n" + "\n".join(
                         f"{rng.choice(['batch', 'reporting', 'etl'])}   {rng.choice(['report', 'export', 'reindex'])}-{hexid(rng, 5)}-{hexid(rng, 4)}   0/1   Completed   0   {rng.randint(1, 9)}h" for _ in range(rng.randint(12, 18)))},
                     "Only completed batch jobs are not Running; nothing stuck."),
        lambda rng: ("What does top say?", "kubectl", {"command": "top nodes"},
                     {"exit_code": 0, "stdout": "NAME   CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%\n" + "\n".join(
                         f"gke-node-{hexid(rng, 4)}   {rng.randint(200, 3500)}m   {rng.randint(5, 88)}%   {rng.randint(2000, 12000)}Mi   {rng.randint(10, 80)}%" for _ in range(rng.randint(16, 22)))},
                     "Headroom looks fine on every node."),
        lambda rng: ("Check the PDBs.", "kubectl", {"command": "get pdb -A"},
                     {"exit_code": 0, "stdout": "NAMESPACE   NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE\n"
                      "payments   payments-api-pdb   3   N/A   " + str(rng.randint(0, 2)) + "   212d\n" + "".join(f"{n}   {n}-pdb   N/A   1   1   {rng.randint(30, 300)}d\n" for n in rng.sample(['fx-rates', 'webhook-relay', 'search', 'catalog', 'auth', 'notifier', 'cart', 'pricing', 'reporting', 'geo', 'media', 'inbox'], 9)) +
                      "ledger   ledger-writer-pdb   N/A   1   1   190d\nkube-system   kube-dns-pdb   N/A   1   1   300d"},
                     "PDBs are in place; payments-api has minAvailable 3."),
        lambda rng: (None, "cluster_info", {"cluster": "stg-eu"},
                     {"cluster": {"name": "stg-eu", "status": "RUNNING", "release_channel": "REGULAR",
                                  "maintenance_policy": {"window": "SAT 02:00-06:00"},
                                  "node_pools": [{"name": "default-pool", "node_count": rng.randint(20, 24), "version": "1.27.13-gke.1000",
                                                  "autoscaling": {"enabled": True, "min_node_count": 3, "max_node_count": 30},
                                                  "management": {"auto_upgrade": False, "auto_repair": True}},
                                                 {"name": "gpu-inference", "node_count": 3, "version": "1.27.13-gke.1000",
                                                  "config": {"machine_type": "g2-standard-8", "accelerators": [{"accelerator_count": 1, "accelerator_type": "nvidia-l4"}]}}],
                                  "addons_config": {"http_load_balancing": {}, "horizontal_pod_autoscaling": {}, "gce_persistent_disk_csi_driver_config": {"enabled": True}},
                                  "network_config": {"network": "projects/acme-stg/global/networks/stg", "subnetwork": "projects/acme-stg/regions/europe-west1/subnetworks/stg-eu-nodes", "datapath_provider": "ADVANCED_DATAPATH"},
                                  "logging_service": "logging.googleapis.com/kubernetes", "monitoring_service": "monitoring.googleapis.com/kubernetes"}},
                     "Staging cluster is RUNNING."),
        lambda rng: ("Any operations still going?", "operation_status", {"operation_id": f"operation-{rng.randint(1715600000, 1715699999)}-{hexid(rng, 6)}"},
                     {"operations": [{"name": f"operation-{rng.randint(1715600000, 1715699999)}-{hexid(rng, 6)}", "operation_type": rng.choice(["SET_LABELS", "UPDATE_CLUSTER", "REPAIR_CLUSTER", "AUTO_UPGRADE_NODES"]),
                                      "status": "DONE", "start_time": ts(rng), "end_time": ts(rng), "zone": "europe-west1",
                                      "self_link": f"https://container.googleapis.com/v1/projects/acme-stg/locations/europe-west1/operations/operation-{hexid(rng, 10)}"} for _ in range(rng.randint(5, 8))]},
                     "That one is DONE."),
    ],
))


ROW_SCALE = [1.0]  # routine answers' length; make() raises it when a story has too many events for its tokens


def FL(user, tool_name, args, rowfn, n, asst, key="items", extra=None):
    """a routine read whose answer is a list of n..n+4 rows"""
    def f(rng):
        m = int(n * ROW_SCALE[0])
        result = {key: [rowfn(rng) for _ in range(rng.randint(m, m + 4))]}
        if extra:
            result.update(extra(rng) if callable(extra) else extra)
        return user, tool_name, args(rng) if callable(args) else args, result, asst
    return f


def LR(rowfn, n, special, key="items", extra=None):
    """a long answer: a list of n rows with the special one inside"""
    return lambda rng: (rows_result(rng, n, lambda r, i: rowfn(r), special, key=key, extra=extra), None)


def LL(linefn, n, special, result=None):
    """a long answer: a log / CLI text of n lines with the special one inside"""
    return lambda rng: (dict(result or {"exit_code": 0}), log_text(rng, n, lambda r, i: linefn(r), special))


def money(rng, lo, hi):
    return f"{rng.randint(lo, hi)}.{rng.randint(0, 99):02d}"


NAMES = ["Avery Chen", "Jordan Patel", "Sam Okafor", "Riley Novak", "Morgan Silva", "Casey Brandt", "Quinn Moreau",
         "Dana Whitfield", "Emeka Obi", "Hana Sato", "Lucas Ferreira", "Ines Duarte", "Tomasz Wrona", "Priya Raman",
         "Noor Haddad", "Felix Lindqvist", "Marta Kowalczyk", "Owen Gallagher", "Yara Nasser", "Kofi Mensah"]

# ---------------------------------------------------------------------------------------------
# 2. Data-pipeline backfill across a warehouse and an orchestrator
# ---------------------------------------------------------------------------------------------
DOMAINS.append(dict(
    id="pipeline-backfill", prefix="pb", title="Backfilling three weeks of orders_fact across warehouse and orchestrator",
    description="A data engineer's agent backfills a fact table: the warehouse session's database moves, run ids from "
                "the orchestrator are reused much later, a date range is corrected twice.",
    system="You are a data-platform assistant with a warehouse SQL session and the Airflow API. Writes go only to the "
           "database selected in the current session.",
    ctx=dict(tool="wh_use", key="session_database", values=["ANALYTICS_DEV", "ANALYTICS_STAGE", "ANALYTICS_PROD"],
             args=lambda v: {"statement": f"USE ROLE TRANSFORMER; USE WAREHOUSE TRANSFORM_L; USE DATABASE {v}"},
             result=lambda v, rng: {"status": "Statement executed successfully.", "session_database": v,
                                    "session_role": "TRANSFORMER", "session_warehouse": "TRANSFORM_L"},
             said=["Session is on ANALYTICS_DEV.", "Session moved to ANALYTICS_STAGE.", "Session is on ANALYTICS_PROD now."],
             move_text=["Dev numbers reconcile. Point the session at stage.", "Stage is good. Go to prod for the real backfill."]),
    kickoff="We lost orders_fact partitions after the dedup bug. Backfill must never run on the shared warehouse "
            "during business hours (08:00-18:00 CET), and cap it at 4 concurrent DAG runs. The Jira ticket is "
            "DATA-7719; tag every run conf with it.",
    kickoff_ack="Understood: no shared-warehouse runs 08:00-18:00 CET, at most 4 concurrent runs, DATA-7719 on every conf.",
    c1_text="never run on the shared warehouse during business hours", cap=("max_concurrent_runs", 4),
    c2=("Another thing: the finance_snapshots schema is read-only for us. Never write to it.", "finance_snapshots"),
    c2_ack="finance_snapshots stays read-only.",
    listing=dict(ask="Which partitions are missing? Pull the partition audit.", tool="wh_query",
                 args={"sql": "SELECT * FROM ops.partition_audit WHERE table_name = 'ORDERS_FACT' ORDER BY ds"},
                 make=LR(lambda r: {"ds": f"2024-04-{r.randint(1, 28):02d}", "row_count": r.randint(180000, 260000),
                                    "expected": r.randint(180000, 260000), "state": "OK", "checked_at": ts(r, "2024-05-13")},
                         21, {"ds": "2024-04-17", "row_count": 0, "expected": 214381, "state": "MISSING_ROWS",
                              "checked_at": "2024-05-13T04:12:09Z", "first_bad_batch": "bx_20240417_0931"}, key="rows",
                         extra={"query_id": "01b4c2e1-0001-9a3e", "rows_returned": 27}),
                 said="Most partitions are OK; the audit lists one with zero rows and a first bad batch id.",
                 use_tool="orch_trigger", use_args={"first_bad_batch": "bx_20240417_0931"}),
    d1_ask="Start with the one that has zero rows. What's the batch we'd replay from?",
    value=dict(key="backfill_range", vals=["2024-04-10..2024-04-30", "2024-04-12..2024-04-30", "2024-04-12..2024-05-02"],
               say=["Backfill range is 2024-04-10..2024-04-30.",
                    "Correction: the dedup bug shipped on the 12th. Make the range 2024-04-12..2024-04-30.",
                    "One more change: the fix only deployed on May 2nd, so the range is 2024-04-12..2024-05-02."],
               ack=["Range 2024-04-10..2024-04-30.", "Range is now 2024-04-12..2024-04-30.", "Range is now 2024-04-12..2024-05-02."]),
    create=dict(ask="Trigger the orders_fact_backfill DAG for dev.", tool="orch_trigger",
                args={"dag_id": "orders_fact_backfill", "conf": {"ticket": "DATA-7719", "target": "ANALYTICS_DEV"}},
                result={"dag_run": {"dag_id": "orders_fact_backfill", "dag_run_id": "manual__2024-05-14T07:02:11+00:00",
                                    "state": "queued", "logical_date": "2024-05-14T07:02:11+00:00",
                                    "conf": {"ticket": "DATA-7719", "target": "ANALYTICS_DEV"}, "external_trigger": True}},
                said="Queued dev backfill run manual__2024-05-14T07:02:11+00:00.", idem="bf-dev-data7719",
                use_tool="orch_run_status", use_args={"run_id": "manual__2024-05-14T07:02:11+00:00"}),
    timeout=dict(ask="Run the stage dedup cleanup (DELETE of duplicate order lines).", tool="wh_exec",
                 args={"table": "ANALYTICS_STAGE.MARTS.ORDERS_FACT",
                       "sql": "DELETE FROM MARTS.ORDERS_FACT USING ops.dupe_keys d WHERE ORDERS_FACT.line_key = d.line_key"},
                 error="statement timeout: client gave up after 300s; query may still be executing",
                 said="The client timed out after 300s; the DELETE may still be running server-side.",
                 followup="Did the delete run? I don't want it twice.",
                 wait_said="I'll look it up by query history rather than re-running it.",
                 check_ask="Look up that DELETE in query history now.",
                 sq_result={"query_id": "01b4c2f7-0001-a11c", "execution_status": "SUCCESS", "rows_deleted": 18422},
                 sq_said="It completed: 18,422 duplicate lines deleted."),
    long2=dict(ask="Show me the last stage run's task log.", tool="orch_task_log",
               args={"dag_id": "orders_fact_backfill", "run_id": "manual__2024-05-14T08:40:55+00:00", "task_id": "load_partition"},
               make=LL(lambda r: f"[{ts(r)}] {{taskinstance.py:{r.randint(1100, 2400)}}} INFO - "
                                 f"{r.choice(['Loaded chunk', 'Merged partition chunk', 'COPY INTO staged rows', 'Committed'])} "
                                 f"ds=2024-04-{r.randint(12, 30):02d} rows={r.randint(9000, 31000)}",
                       34, "[2024-05-14T08:51:02Z] {taskinstance.py:2390} WARNING - partition ds=2024-04-23 loaded 0 "
                           "rows: upstream extract raw.orders_2024_04_23 is missing (s3://acme-raw/orders/ds=2024-04-23/)"),
               said="Loads look normal except a warning about one upstream extract."),
    side=("Side question: is it worth moving us from Airflow 2.7 to 2.9 this quarter?",
          "Probably, if you use datasets: 2.9 adds dataset aliases and conditional scheduling, plus a lot of UI fixes. "
          "It's a metadata-DB migration though, so not mid-backfill."),
    contra=dict(key="row_count", subject="table=ANALYTICS_STAGE.MARTS.ORDERS_FACT",
                a_ask="How many rows does stage orders_fact have now, per the catalog?",
                a=("table_stats", {"table": "ANALYTICS_STAGE.MARTS.ORDERS_FACT"},
                   {"table": "ORDERS_FACT", "schema": "MARTS", "row_count": 48211930, "bytes": 9122004112,
                    "last_altered": "2024-05-14T09:12:40Z", "clustering_key": "LINEAR(ds)"}),
                a_said="The catalog says 48,211,930 rows.",
                b_ask="Count stage orders_fact directly to double-check.",
                b=("wh_exec", {"table": "ANALYTICS_STAGE.MARTS.ORDERS_FACT", "sql": "SELECT COUNT(*) AS row_count FROM MARTS.ORDERS_FACT"},
                   {"query_id": "01b4c3aa-0001-b0f2", "rows": 1, "row_count": 48193508}),
                b_said="A direct COUNT(*) gives 48,193,508, not the catalog's 48,211,930.",
                which="So which stage row count do we put in the reconciliation?",
                resolve="The catalog figure lags after DELETEs. Use the COUNT(*): 48193508.",
                resolve_said="Using 48,193,508 for stage.",
                x=48211930, y=48193508, winner=48193508),
    appr1=dict(id="apr-pb-prod-clear", ask="Clear the failed prod tasks of the April run so they re-execute.",
               said="Clearing prod task instances is irreversible; I need your approval first.",
               meanwhile="While that waits, how long did the stage run take end to end?",
               meanwhile_said="About 1 h 40 min for the stage run.",
               grant="Approved, clear them. It's after 18:00 now.",
               tool="orch_clear", args={"dag_id": "orders_fact_backfill", "run_id": "scheduled__2024-04-30T00:00:00+00:00",
                                        "only_failed": True, "dry_run": False},
               result={"task_instances": [{"task_id": "load_partition", "map_index": 11, "state": "cleared"},
                                          {"task_id": "load_partition", "map_index": 12, "state": "cleared"}]},
               done_said="Two failed mapped tasks cleared.", idem="clear-prod-0430"),
    long3=dict(ask="List recent runs of the backfill DAG.", tool="orch_list_runs", args={"dag_id": "orders_fact_backfill", "limit": 25},
               make=LR(lambda r: {"dag_run_id": f"manual__2024-05-{r.randint(1, 13):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:00+00:00",
                                  "state": r.choice(["success", "success", "failed"]), "run_type": "manual",
                                  "start_date": ts(r, "2024-05-1" + str(r.randint(0, 3)))}, 22,
                       {"dag_run_id": "manual__2024-05-14T08:40:55+00:00", "state": "success", "run_type": "manual",
                        "start_date": "2024-05-14T08:40:58Z", "note": "stage backfill DATA-7719"}, key="dag_runs",
                       extra={"total_entries": 23}),
               said="23 runs listed; the stage one succeeded."),
    running=dict(ask="Trigger the prod backfill now.", tool="orch_trigger",
                 args={"dag_id": "orders_fact_backfill", "conf": {"ticket": "DATA-7719", "target": "ANALYTICS_PROD"}},
                 said="Trigger sent; waiting for the API to return the run."),
    **{"break": "Session resumed 2024-05-15 07:55 CET; the agent host was rebooted overnight."},
    resume="I'm back. The bastion rebooted last night. What state is the prod backfill in?",
    resume_said="The prod trigger never returned before the reboot, so I can't say if a run was created. The clear approval is still open.",
    unknown=dict(ask="Refresh the downstream dashboard extract.", tool="wh_exec",
                 args={"table": "ANALYTICS_PROD.REPORTING.ORDERS_DAILY", "sql": "CALL reporting.refresh_orders_daily()"},
                 error="statement timeout after 300s", said="Timed out, and query history shows no final state for it yet."),
    appr2=dict(id="apr-pb-prod-swap", ask="Prepare the partition swap into prod; I'll approve it once finance signs off.",
               said="Swap prepared and waiting on your approval."),
    final=dict(ask="Write out the prod run status check you'd make for the dev run and the range, exactly.",
               tool="orch_run_status", args={"run_id": "manual__2024-05-14T07:02:11+00:00", "range": "2024-04-12..2024-05-02",
                                              "ticket": "DATA-7719"},
               said="Ready to check it."),
    last_ask="Before I write the postmortem: the first bad batch id from the partition audit, exactly?",
    fillers=[
        FL("What's the warehouse queue like?", "wh_query", {"sql": "SHOW WAREHOUSES LIKE 'TRANSFORM%'"},
           lambda r: {"name": f"TRANSFORM_{r.choice(['S', 'M', 'L', 'XL'])}", "state": r.choice(["STARTED", "SUSPENDED"]),
                      "running": r.randint(0, 6), "queued": r.randint(0, 3), "size": r.choice(["Small", "Medium", "Large"])},
           9, "Queues are short; nothing blocking.", key="warehouses"),
        FL(None, "orch_list_runs", {"dag_id": "orders_fact_daily", "limit": 12},
           lambda r: {"dag_run_id": f"scheduled__2024-05-{r.randint(1, 13):02d}T00:00:00+00:00", "state": "success",
                      "end_date": ts(r, "2024-05-13")}, 10, "Daily DAG is healthy.", key="dag_runs"),
        FL("Any long-running queries on our role?", "wh_query",
           {"sql": "SELECT query_id, execution_status, total_elapsed_time FROM TABLE(information_schema.query_history()) LIMIT 15"},
           lambda r: {"query_id": f"01b4c{hexid(r, 3)}-0001-{hexid(r, 4)}", "execution_status": "SUCCESS",
                      "total_elapsed_time": r.randint(400, 90000), "warehouse_name": "TRANSFORM_L"}, 12,
           "Nothing unusual in query history.", key="queries"),
    ],
))

# ---------------------------------------------------------------------------------------------
# 3. Monorepo dependency upgrade
# ---------------------------------------------------------------------------------------------
DOMAINS.append(dict(
    id="monorepo-deps-upgrade", prefix="mr", title="Upgrading React and TypeScript across a pnpm monorepo",
    description="A developer's agent upgrades dependencies across branches; CI job ids and a PR number come back from "
                "tools and are reused much later; the pinned TypeScript version is corrected twice.",
    system="You are a coding assistant with a shell in the checkout (git, pnpm) and the CI and GitHub APIs.",
    ctx=dict(tool="git", key="current_branch", values=["chore/deps-react-18-3", "chore/deps-typescript-5-4", "release/2024.05"],
             args=lambda v: {"command": f"checkout {v}"},
             result=lambda v, rng: {"exit_code": 0, "current_branch": v, "head": hexid(rng, 10),
                                    "stderr": f"Switched to branch '{v}'"},
             said=["On chore/deps-react-18-3.", "On chore/deps-typescript-5-4.", "On release/2024.05."],
             move_text=["React branch is green. Check out the TypeScript branch next.",
                        "Both merged. Check out release/2024.05 for the backport."]),
    kickoff="Upgrade React to 18.3 and TypeScript across the monorepo. Rules: never force-push to any shared branch, "
            "and nothing may merge unless the e2e-smoke job passes. The Renovate override token is RNV-5521-QX; "
            "pass it when you regenerate the lockfile.",
    kickoff_ack="Understood: no force-pushes to shared branches, e2e-smoke must pass before any merge, RNV-5521-QX for the lockfile.",
    c1_text="never force-push to any shared branch", cap=("required_check", "e2e-smoke"),
    c2=("And leave packages/legacy-admin alone, it's frozen until the rewrite.", "legacy-admin"),
    c2_ack="packages/legacy-admin is frozen; I'll filter it out.",
    listing=dict(ask="What does pnpm think is outdated?", tool="pnpm", args={"command": "outdated -r --format json"},
                 make=LR(lambda r: {"package": r.choice(["eslint", "vite", "vitest", "@types/node", "zod", "lodash-es", "date-fns",
                                                          "@tanstack/react-query", "msw", "prettier"]),
                                    "current": f"{r.randint(1, 9)}.{r.randint(0, 20)}.{r.randint(0, 9)}",
                                    "latest": f"{r.randint(1, 9)}.{r.randint(0, 20)}.{r.randint(0, 9)}",
                                    "dependentPackages": [{"name": f"@acme/{r.choice(['web', 'ui', 'api-client', 'docs'])}"}]},
                         24, {"package": "react-dom", "current": "18.2.0", "latest": "18.3.1", "wanted": "18.2.0",
                              "dependentPackages": [{"name": "@acme/web"}], "peerConflict": "@acme/ui requires react-dom@~18.2.0"},
                         key="outdated"),
                 said="24 outdated packages; react-dom has a peer conflict declared by @acme/ui.",
                 use_tool="pnpm", use_args={"peer": "react-dom@~18.2.0"}),
    d1_ask="Fix the peer range that blocks react-dom first.",
    value=dict(key="typescript_pin", vals=["5.4.5", "5.3.3", "5.4.2"],
               say=["Pin TypeScript at 5.4.5.", "Correction: ts-jest breaks on 5.4, pin TypeScript at 5.3.3 for now.",
                    "Update: ts-jest 29.1.2 fixed it, but 5.4.5 breaks our decorators. Pin TypeScript at 5.4.2."],
               ack=["TypeScript pinned at 5.4.5.", "Pin is now 5.3.3.", "Pin is now 5.4.2."]),
    create=dict(ask="Open the PR for the React branch.", tool="gh_pr",
                args={"repo": "acme/web-monorepo", "head": "chore/deps-react-18-3", "base": "main", "title": "chore(deps): react 18.3"},
                result={"pull_request": {"number": 4821, "state": "open", "draft": False, "mergeable_state": "blocked",
                                         "html_url": "https://github.com/acme/web-monorepo/pull/4821",
                                         "head": {"ref": "chore/deps-react-18-3", "sha": "9be1c07a42"}}},
                said="PR opened, blocked until checks pass.", idem="pr-react-18-3",
                use_tool="gh_pr_merge", use_args={"pr_number": 4821}),
    timeout=dict(ask="Retry the flaky e2e job on the TypeScript branch pipeline.", tool="ci_retry",
                 args={"job_id": "8812043", "pipeline_id": "311904"},
                 error="HTTP 504 from ci.acme.dev after 30s", said="The retry request timed out; the job may or may not have been re-queued.",
                 followup="Did the retry go through? Don't queue two.",
                 wait_said="I'll check the job state instead of retrying again.",
                 check_ask="Check whether that e2e retry was queued.",
                 sq_result={"job": {"id": 8812077, "retried_from": 8812043, "job_state": "running", "stage": "e2e"}},
                 sq_said="It was queued: new job 8812077 is running."),
    long2=dict(ask="Show the failing typecheck log.", tool="ci_job_log", args={"job_id": "8812031"},
               make=LL(lambda r: f"packages/{r.choice(['web', 'ui', 'api-client'])}/src/{r.choice(['hooks', 'components', 'lib'])}/"
                                 f"{r.choice(['useCart', 'Table', 'Modal', 'client', 'format'])}.ts{r.choice(['', 'x'])}:{r.randint(3, 300)}:{r.randint(1, 40)} "
                                 f"- warning TS{r.choice(['6133', '6196', '7006'])}: {r.choice(['declared but never read', 'implicitly has an any type'])}.",
                       36, "packages/ui/src/components/DataGrid.tsx:118:7 - error TS2322: Type 'ReactNode' is not assignable "
                           "to type 'ReactElement<any, any>' (from @types/react 18.3.3).",
                       result={"exit_code": 2, "job_state": "failed"}),
               said="Mostly warnings; one real error in DataGrid.tsx from the @types/react bump."),
    side=("Random question: should we switch to Biome instead of ESLint + Prettier?",
          "It's much faster and one tool, but our custom ESLint rules (import boundaries) have no Biome equivalent yet. "
          "Worth a spike later, not in this upgrade."),
    contra=dict(key="checks_conclusion", subject="pr_number=4821",
                a_ask="What's the check status on PR 4821?",
                a=("ci_runs", {"pipeline_id": "311870", "pr_number": "4821"},
                   {"pipeline": {"id": 311870, "ref": "chore/deps-react-18-3", "checks_conclusion": "success",
                                 "jobs": [{"name": "lint", "state": "success"}, {"name": "e2e-smoke", "state": "success"}]}}),
                a_said="CI says all jobs succeeded, e2e-smoke included.",
                b_ask="What does GitHub itself show for PR 4821 before we merge?",
                b=("gh_pr", {"repo": "acme/web-monorepo", "pr_number": "4821", "action": "get"},
                   {"pull_request": {"number": 4821, "mergeable_state": "blocked", "checks_conclusion": "failure",
                                     "failing": ["e2e-smoke (re-run after rebase)"]}}),
                b_said="GitHub reports the checks as failure: e2e-smoke failed on the re-run after the rebase.",
                which="CI said success and GitHub says failure. Which is it?",
                resolve="The rebase re-ran e2e-smoke and it failed. GitHub's failure is current.",
                resolve_said="Treating PR 4821's checks as failure.", x="success", y="failure", winner="failure"),
    appr1=dict(id="apr-mr-merge-ts", ask="Merge the TypeScript PR once it's green.",
               said="Merging is irreversible; please approve the TypeScript PR merge.",
               meanwhile="While waiting, which packages still import from react-dom/test-utils?",
               meanwhile_said="Three: @acme/ui, @acme/web, @acme/docs.",
               grant="Approved: merge the TypeScript PR.",
               tool="gh_pr_merge", args={"repo": "acme/web-monorepo", "pr_number": 4830, "merge_method": "squash"},
               result={"merged": True, "sha": "c41d9e0b77", "message": "Pull Request successfully merged"},
               done_said="PR 4830 squash-merged.", idem="merge-4830"),
    long3=dict(ask="Show me pnpm why for @types/react.", tool="pnpm", args={"command": "why @types/react -r"},
               make=LL(lambda r: f"@acme/{r.choice(['web', 'ui', 'docs', 'api-client'])} {r.choice(['dependencies', 'devDependencies'])}:\n"
                                 f"  {r.choice(['@testing-library/react', 'react-select', '@storybook/react', 'recharts'])} {r.randint(1, 14)}.{r.randint(0, 9)}.{r.randint(0, 9)}\n"
                                 f"  └── @types/react 18.{r.choice([2, 3])}.{r.randint(0, 20)}", 22,
                       "@acme/legacy-admin dependencies:\n  @types/react 17.0.80  (pinned in packages/legacy-admin/package.json)"),
               said="Most packages resolve 18.x; legacy-admin pins 17.0.80."),
    running=dict(ask="Regenerate the lockfile on the release branch.", tool="pnpm",
                 args={"command": "install --lockfile-only --filter !@acme/legacy-admin"},
                 said="pnpm is resolving; it's slow on the release branch."),
    **{"break": "Session resumed the next morning; the agent's shell was restarted."},
    resume="Back. My terminal got killed overnight. Where are we?",
    resume_said="The lockfile regeneration was running when the shell died; its outcome is unknown. The TypeScript PR merge approval is open.",
    unknown=dict(ask="Retry the e2e-smoke job on PR 4821.", tool="ci_retry", args={"job_id": "8812190", "pipeline_id": "311870"},
                 error="HTTP 504 from ci.acme.dev after 30s", said="Timed out again and the job lookup says nothing definite."),
    appr2=dict(id="apr-mr-merge-react", ask="Queue the merge of the React PR; I'll approve after e2e-smoke passes.",
               said="Merge of the React PR is queued for your approval."),
    final=dict(ask="Write the merge call you'd make for the React PR, with the lockfile token.",
               tool="gh_pr_merge", args={"pr_number": 4821, "renovate_token": "RNV-5521-QX", "typescript": "5.4.2"},
               said="Prepared; waiting for approval and a green e2e-smoke."),
    last_ask="Remind me exactly which peer range blocked react-dom at the start?",
    fillers=[
        FL("What's git status?", "git", {"command": "status --porcelain=v2 --branch"},
           lambda r: {"path": f"packages/{r.choice(['web', 'ui', 'api-client', 'docs'])}/{r.choice(['package.json', 'tsconfig.json', 'src/index.ts'])}",
                      "xy": r.choice([".M", "M.", "??"])}, 10, "Only the expected manifest edits are modified.", key="entries"),
        FL("How's the pipeline?", "ci_runs", lambda r: {"pipeline_id": str(r.randint(311800, 311899))},
           lambda r: {"name": r.choice(["lint", "typecheck", "unit", "build", "storybook"]), "state": "success",
                      "duration_s": r.randint(40, 900), "runner": f"ci-runner-{r.randint(1, 40)}"}, 10, "Pipeline is green so far.", key="jobs"),
        FL(None, "npm_view", lambda r: {"package": r.choice(["react", "typescript", "@types/react"])},
           lambda r: {"version": f"{r.randint(17, 18)}.{r.randint(0, 3)}.{r.randint(0, 9)}", "published": ts(r, "2024-04-2" + str(r.randint(0, 9)))},
           10, "Registry metadata checked.", key="versions"),
    ],
))

# ---------------------------------------------------------------------------------------------
# 4. CRM data cleanup and merge
# ---------------------------------------------------------------------------------------------
DOMAINS.append(dict(
    id="crm-dedupe-merge", prefix="cr", title="Deduplicating and merging CRM accounts across two workspaces",
    description="A revops agent merges duplicate accounts; the selected workspace moves; the billing system disagrees "
                "with the CRM about an account's owner; the survivor rule is corrected twice.",
    system="You are a revenue-operations assistant with CRM and billing access. Every CRM call acts on the selected workspace.",
    ctx=dict(tool="crm_select_workspace", key="workspace_id", values=["ws_emea_sandbox", "ws_emea_prod", "ws_na_prod"],
             args=lambda v: {"workspace": v}, result=lambda v, rng: {"workspace_id": v, "api_limit_remaining": rng.randint(4000, 9000)},
             said=["Working in the EMEA sandbox.", "Now in EMEA production.", "Now in the NA production workspace."],
             move_text=["Sandbox merges look right. Switch to EMEA prod.", "EMEA is done. Switch to NA prod."]),
    kickoff="We need to dedupe the Nordic accounts. Never merge an account that has an open deal over EUR 50,000 "
            "without asking me, and keep the oldest created record as the survivor. The data-steward approval code "
            "is DS-88-4417; log it on each merge.",
    kickoff_ack="Clear: ask before merging anything with an open deal over EUR 50,000, oldest record survives, DS-88-4417 on each merge.",
    c1_text="open deal over EUR 50,000", cap=("open_deal_threshold_eur", 50000),
    c2=("Don't touch any account tagged partner-channel; the partner team owns those.", "partner-channel"),
    c2_ack="Accounts tagged partner-channel are excluded.",
    listing=dict(ask="Find the duplicate candidates for Nordlys Energi.", tool="crm_search",
                 args={"query": "name ~ 'Nordlys'", "fields": ["id", "name", "created_at", "domain", "tags"]},
                 make=LR(lambda r: {"id": f"acc_{hexid(r, 10)}", "name": r.choice(["Nordlys Solar AB", "Nordlyset Media", "Nordlys Bakeri",
                                                                                  "Nordlys Energi Service", "Nordlys Reiser"]),
                                    "created_at": ts(r, f"20{r.randint(15, 23)}-0{r.randint(1, 9)}-1{r.randint(0, 9)}"),
                                    "domain": r.choice(["nordlys.se", "nordlysmedia.no", "nordlys-reiser.no", None]), "tags": []},
                         20, {"id": "acc_7c1e00b9d2", "name": "Nordlys Energi AS", "created_at": "2016-03-02T10:14:00Z",
                              "domain": "nordlysenergi.no", "tags": ["enterprise"], "duplicate_of": None, "dupe_score": 0.97},
                         key="records", extra={"total": 21, "next_cursor": None}),
                 said="21 matches; one Nordlys Energi AS record created in 2016 scores 0.97 as the duplicate cluster head.",
                 use_tool="crm_merge", use_args={"survivor_id": "acc_7c1e00b9d2"}),
    d1_ask="Use the oldest Nordlys Energi record as survivor. Which id is it?",
    value=dict(key="survivor_rule", vals=["oldest created", "most activities", "most activities, then oldest"],
               say=["Survivor rule: oldest created.",
                    "Correction: sales ops wants the record with the most activities to survive, not the oldest.",
                    "Refinement: most activities, then oldest as the tiebreak."],
               ack=["Survivor rule: oldest created.", "Survivor rule is now most activities.", "Survivor rule: most activities, then oldest."]),
    create=dict(ask="Start an export backup of the Nordic accounts before we merge anything.", tool="crm_export_job",
                args={"object": "accounts", "filter": "region = 'Nordics'", "format": "csv"},
                result={"job": {"id": "exp_20240514_2291", "state": "queued", "object": "accounts", "estimated_rows": 3120}},
                said="Backup export queued.", idem="export-nordics-0514",
                use_tool="crm_job_status", use_args={"job_id": "exp_20240514_2291"}),
    timeout=dict(ask="Update the billing-country field on the Nordlys Energi survivor to NO.", tool="crm_update",
                 args={"account_id": "acc_7c1e00b9d2", "fields": {"billing_country": "NO"}},
                 error="upstream request timeout (30s)", said="The update call timed out; it may have been applied.",
                 followup="Did that update land?", wait_said="I'll read the account back rather than re-send it.",
                 check_ask="Read the Nordlys Energi record back to see if the update landed.",
                 sq_result={"account_id": "acc_7c1e00b9d2", "billing_country": "NO", "updated_at": "2024-05-14T10:41:19Z"},
                 sq_said="It landed: billing_country is NO."),
    long2=dict(ask="Pull Nordlys Energi's full record with contacts and deals.", tool="crm_get_account",
               args={"account_id": "acc_3f90aa1c44", "include": ["contacts", "deals"]},
               make=lambda rng: ({"account": {"id": "acc_3f90aa1c44", "name": "Nordlys Energi", "created_at": "2019-08-21T09:00:00Z",
                                              "contacts": [{"id": f"con_{hexid(rng, 8)}", "name": rng.choice(NAMES), "email": f"user{rng.randint(10, 99)}@nordlysenergi.no",
                                                            "title": rng.choice(["CFO", "Buyer", "IT lead", "Ops manager"])} for _ in range(14)],
                                              "deals": [{"id": f"deal_{hexid(rng, 6)}", "stage": rng.choice(["closed_won", "closed_lost"]),
                                                         "amount_eur": rng.randint(3000, 40000)} for _ in range(9)] +
                                                       [{"id": "deal_a91f22", "stage": "negotiation", "amount_eur": 182000, "close_date": "2024-06-28"}]}}, None),
               said="The 2019 duplicate has 14 contacts and an open deal in negotiation."),
    side=("Off topic: is it better to store phone numbers in E.164 in the CRM?",
          "Yes: E.164 (+47 22 12 34 56 as +4722123456) dedupes and dials reliably; format for display only."),
    contra=dict(key="account_owner", subject="account_id=acc_3f90aa1c44",
                a_ask="Who owns the 2019 duplicate in the CRM?",
                a=("crm_get_account", {"account_id": "acc_3f90aa1c44"},
                   {"account": {"id": "acc_3f90aa1c44", "account_owner": "Ingrid Solberg", "owner_team": "Nordics AE"}}),
                a_said="CRM says Ingrid Solberg owns it.",
                b_ask="Check what billing has for that same account.",
                b=("billing_customer", {"account_id": "acc_3f90aa1c44"},
                   {"customer": {"id": "cus_Q81kd2", "account_owner": "Henrik Dahl", "collections_status": "current"}}),
                b_said="Billing lists Henrik Dahl as the owner, which disagrees with the CRM.",
                which="So who is the owner we keep on the merged record?",
                resolve="Ingrid took over in March; billing never got updated. Keep Ingrid Solberg.",
                resolve_said="Keeping Ingrid Solberg as owner.", x="Ingrid Solberg", y="Henrik Dahl", winner="Ingrid Solberg"),
    appr1=dict(id="apr-cr-merge-nordlys", ask="Merge the 2019 Nordlys Energi duplicate into the survivor.",
               said="The duplicate has an open EUR 182,000 deal, over your threshold, so I need your approval.",
               meanwhile="Meanwhile, how many contacts would move?", meanwhile_said="14 contacts and 10 deals would move.",
               grant="Approved. Merge it; the deal owner stays the same.",
               tool="crm_merge", args={"survivor_id": "acc_7c1e00b9d2", "merged_ids": ["acc_3f90aa1c44"], "steward_code": "DS-88-4417"},
               result={"merge": {"id": "mrg_55120", "survivor_id": "acc_7c1e00b9d2", "moved": {"contacts": 14, "deals": 10}}},
               done_said="Merged; 14 contacts and 10 deals moved to the survivor.", idem="merge-nordlys-2019"),
    long3=dict(ask="Search NA prod for the Fjord Logistics duplicates.", tool="crm_search",
               args={"query": "name ~ 'Fjord Logistics'"},
               make=LR(lambda r: {"id": f"acc_{hexid(r, 10)}", "name": r.choice(["Fjord Logistics Inc", "Fjord Logistics LLC", "Fjord Log. Inc."]),
                                  "created_at": ts(r, f"20{r.randint(17, 23)}-0{r.randint(1, 9)}-2{r.randint(0, 8)}"), "activities": r.randint(0, 300)},
                       18, {"id": "acc_0b3e7d11fa", "name": "Fjord Logistics Inc", "created_at": "2017-01-09T15:22:00Z",
                            "activities": 944, "tags": ["partner-channel"]}, key="records"),
               said="19 records; the busiest one is tagged partner-channel."),
    running=dict(ask="Run the bulk merge for the 6 small Fjord duplicates (none tagged partner-channel).", tool="crm_merge",
                 args={"survivor_id": "acc_1dd0c9e342", "merged_ids": ["acc_91aa", "acc_91ab", "acc_91ac", "acc_91ad", "acc_91ae", "acc_91af"],
                       "steward_code": "DS-88-4417"},
                 said="Bulk merge submitted; waiting for the response."),
    **{"break": "Session resumed two days later (2024-05-16); the agent worker was redeployed in between."},
    resume="Hi again. Did the Fjord bulk merge finish before your redeploy?",
    resume_said="It was still in flight at the redeploy, so its result is unknown. The Nordlys merge approval was also open.",
    unknown=dict(ask="Re-run the export job for NA.", tool="crm_export_job", args={"object": "accounts", "filter": "region = 'NA'"},
                 error="upstream request timeout (30s)", said="Timed out; the job lookup returns no record either way."),
    appr2=dict(id="apr-cr-merge-fjord", ask="Queue the Fjord partner-channel record question for the partner team's approval.",
               said="Queued; waiting on the partner team."),
    final=dict(ask="Spell out the next merge call for the Nordic survivor with the steward code and the backup job.",
               tool="crm_merge", args={"survivor_id": "acc_7c1e00b9d2", "steward_code": "DS-88-4417", "backup_job": "exp_20240514_2291"},
               said="Prepared."),
    last_ask="For the audit note: which record id was the Nordlys Energi survivor?",
    fillers=[
        FL("How many API calls do we have left today?", "crm_search", {"query": "limits"},
           lambda r: {"endpoint": r.choice(["/accounts", "/contacts", "/deals", "/merge"]), "used": r.randint(10, 900), "limit": 10000},
           10, "Plenty of API budget left.", key="limits"),
        FL(None, "crm_search", lambda r: {"query": f"domain = '{r.choice(['nordlys.se', 'fjordlog.com', 'havbris.no'])}'"},
           lambda r: {"id": f"acc_{hexid(r, 10)}", "name": r.choice(["Havbris AS", "Fjordlog", "Nordlys Solar AB"]),
                      "owner": r.choice(NAMES), "created_at": ts(r, "2021-06-01")}, 10, "No new duplicates in that domain.", key="records"),
        FL("Any contacts without email?", "crm_search", {"query": "contacts where email is null and region = 'Nordics'"},
           lambda r: {"id": f"con_{hexid(r, 8)}", "name": r.choice(NAMES), "phone": f"+47{r.randint(40000000, 99999999)}"},
           10, "Those contacts have phone only; leaving them.", key="records"),
    ],
))


def simple(id, prefix, title, description, system, ctx, kickoff, c1_text, cap, c2, listing, d1_ask, value, create,
           timeout, long2, side, contra, appr1, long3, running, brk, resume, unknown, appr2, final, last_ask, fillers):
    """a domain spec from positional parts, with the assistant's routine lines filled in"""
    ctx.setdefault("said", [f"Context is now {v}." for v in ctx["values"]])
    value.setdefault("ack", [f"Noted: {v}." for v in value["vals"]])
    for part, line in ((listing, "Listed; see above."), (create, "Done."), (long2, "Got it."), (long3, "Got it."),
                       (running, "Started; waiting for the response."), (unknown, "Timed out, and the status lookup can't tell either way."),
                       (appr2, "Queued; waiting for your approval."), (final, "Prepared; not sent yet.")):
        part.setdefault("said", line)
    timeout.setdefault("said", "The call timed out; it may or may not have gone through.")
    timeout.setdefault("followup", "Did that go through? Don't do it twice.")
    timeout.setdefault("wait_said", "I'll check its status instead of retrying.")
    timeout.setdefault("check_ask", "Check on the call that timed out earlier.")
    timeout.setdefault("sq_said", "The status lookup says it went through.")
    appr1.setdefault("said", "That needs your explicit approval first.")
    appr1.setdefault("meanwhile_said", "Sure.")
    appr1.setdefault("done_said", "Done.")
    contra.setdefault("a_said", "Noted.")
    contra.setdefault("b_said", "This disagrees with the earlier reading of the same field.")
    contra.setdefault("resolve_said", "Recorded.")
    contra.setdefault("which", "Those two don't match. Which one is right?")
    DOMAINS.append(dict(id=id, prefix=prefix, title=title, description=description, system=system, ctx=ctx, kickoff=kickoff,
                        kickoff_ack="Understood, I'll keep to that.", c1_text=c1_text, cap=cap, c2=c2, c2_ack="Noted.",
                        listing=listing, d1_ask=d1_ask, value=value, create=create, timeout=timeout, long2=long2, side=side,
                        contra=contra, appr1=appr1, long3=long3, running=running, resume=resume,
                        resume_said="One call was in flight when we stopped, so its outcome is unknown; let me pick up from there.",
                        unknown=unknown, appr2=appr2, final=final, last_ask=last_ask, fillers=fillers, **{"break": brk}))


# ---------------------------------------------------------------------------------------------
# 5. Wedding vendor coordination
# ---------------------------------------------------------------------------------------------
tool("budget_account", "read", [], "select which funding account (joint, parents' gift) payments come from")
simple(
    "wedding-vendors", "wd", "Coordinating wedding vendors, deposits and a changing headcount",
    "A planner agent books vendors and pays deposits from a selected funding account; the guest count is corrected twice; "
    "the caterer and the venue disagree on the date's headcount.",
    "You are a wedding-planning assistant with the couple's mailbox, vendor portals, a budget sheet and payments.",
    dict(tool="budget_account", key="funding_account", values=["joint-checking-4410", "parents-gift-savings-9023", "joint-checking-4410-hold"],
         args=lambda v: {"account": v}, result=lambda v, rng: {"funding_account": v, "available": money(rng, 4000, 18000), "currency": "USD"},
         move_text=["Use the parents' gift savings for the caterer deposit.", "Switch back to the joint account, but the hold sub-account."]),
    "Wedding is 2024-09-21 at Larkspur Barn. Total vendor spend must stay under $38,000, and never pay anything "
    "without a signed contract on file. The planner discount code Maya gave us is LARK-VIP-261.",
    "never pay anything without a signed contract", ("vendor_budget_usd", 38000),
    ("No vendors that need a Sunday setup; the barn only allows Friday and Saturday access.", "Friday and Saturday"),
    dict(ask="Search the inbox for the caterer quotes.", tool="email_search", args={"query": "from:(*catering*) quote after:2024/03/01"},
         make=LR(lambda r: {"id": f"msg_{hexid(r, 12)}", "from": f"{r.choice(['events', 'hello', 'bookings'])}@{r.choice(['sagecatering', 'plateandvine', 'hearthkitchen'])}.com",
                            "subject": r.choice(["Re: quote request", "Menu options", "Tasting dates", "Updated pricing"]),
                            "snippet": r.choice(["Thanks for reaching out", "Attached the revised menu", "Happy to hold the date"]), "date": ts(r, "2024-04-0" + str(r.randint(1, 9)))},
                 18, {"id": "msg_18f2a7c03e9b", "from": "events@hearthkitchen.com", "subject": "Quote HK-2291 for 9/21",
                      "snippet": "Quote HK-2291: family style, $92 per guest, deposit 30% to hold 9/21", "date": "2024-04-11T16:20:00Z"},
                 key="messages", extra={"resultSizeEstimate": 19}),
         said="19 messages; one has a formal quote number for 9/21.", use_tool="vendor_portal", use_args={"quote": "HK-2291"}),
    "Let's go with the Hearth Kitchen quote. Which quote number was it?",
    dict(key="guest_count", vals=[140, 152, 147],
         say=["Plan for 140 guests.", "Correction: my cousin's family is coming after all, it's 152 guests.",
              "Update: five declined this week, so 147 guests final."]),
    dict(ask="Add the tasting to the shared calendar.", tool="calendar_add",
         args={"title": "Hearth Kitchen tasting", "start": "2024-05-30T18:00:00-07:00", "location": "Hearth Kitchen, Petaluma"},
         result={"event": {"id": "evt_6kq01b2x9f", "status": "confirmed", "htmlLink": "https://calendar.example.com/event?eid=evt_6kq01b2x9f"}},
         use_tool="calendar_add", use_args={"event_id": "evt_6kq01b2x9f"}),
    dict(ask="Pay the florist deposit, $1,200.", tool="payment_send",
         args={"payee": "Wildroot Florals", "amount": "1200.00", "memo": "deposit 9/21"},
         error="bank API did not respond within 45s",
         sq_result={"payment_id": "pay_7X2M91", "payment_state": "settled", "amount": "1200.00"}),
    dict(ask="Pull the venue contract record from the portal.", tool="vendor_portal", args={"vendor_id": "larkspur-barn"},
         make=lambda rng: ({"booking": {"id": "LB-2024-0921", "date": "2024-09-21", "access": {"friday": "12:00-22:00", "saturday": "08:00-23:59"},
                                        "rules": [f"Rule {i}: " + rng.choice(["No confetti", "Quiet after 22:00 outdoors", "Candles in hurricanes only",
                                                                               "Vendors must carry $1M liability", "No glass on the lawn"]) for i in range(1, 16)],
                                        "payments": [{"due": f"2024-0{m}-01", "amount": money(rng, 800, 3000), "paid": m < 5} for m in range(2, 10)],
                                        "capacity_seated": 160, "contract_signed": True, "contract_id": "CTR-LB-5531"}}, None)),
    ("Totally unrelated, but how far ahead should we send save-the-dates?",
     "Six to eight months is typical; for a September date with out-of-town guests, January to March works."),
    dict(key="headcount_on_file", subject="event_date=2024-09-21",
         a_ask="What headcount does the caterer have on file for 9/21?",
         a=("vendor_portal", {"vendor_id": "hearth-kitchen", "event_date": "2024-09-21"},
            {"order": {"quote": "HK-2291", "headcount_on_file": 152, "menu": "family style"}}),
         b_ask="And what headcount does the venue have for 9/21?",
         b=("sheet_read", {"sheet": "Vendor tracker", "range": "Venue!A1:F20", "event_date": "2024-09-21"},
            {"values": {"venue": "Larkspur Barn", "headcount_on_file": 140, "updated": "2024-04-02"}}),
         resolve="The venue sheet is from April. The real number is the current one, 147; update both.",
         x=152, y=140, winner=147),
    dict(id="apr-wd-caterer-deposit", ask="Pay the Hearth Kitchen 30% deposit.",
         meanwhile="While we wait, what's left in the budget?", grant="Approved, the contract is signed. Pay it.",
         tool="payment_send", args={"payee": "Hearth Kitchen", "amount": "4057.20", "memo": "HK-2291 deposit"},
         result={"payment": {"id": "pay_8R1C44", "payment_state": "sent", "amount": "4057.20"}}, idem="pay-hk-2291-dep"),
    dict(ask="Read the budget tracker.", tool="sheet_read", args={"sheet": "Wedding budget", "range": "A1:G40"},
         make=LR(lambda r: {"vendor": r.choice(["Photographer", "DJ", "Officiant", "Rentals", "Cake", "Hair & makeup", "Stationery", "Shuttle"]),
                            "quoted": money(r, 300, 6000), "paid": money(r, 0, 2000), "status": r.choice(["booked", "quoted", "paid"])},
                 22, {"vendor": "Rentals", "quoted": "3980.00", "paid": "0.00", "status": "quoted", "note": "requires Sunday pickup"}, key="rows")),
    dict(ask="Send the DJ their deposit.", tool="payment_send", args={"payee": "Bassline Events", "amount": "500.00", "memo": "DJ deposit"}),
    "Session resumed three days later; the assistant was restarted after an app update.",
    "Hi! Back after the long weekend. Did the DJ deposit go out?",
    dict(ask="Email the rental company to confirm Saturday pickup.", tool="email_send",
         args={"to": "orders@partyrentalsco.com", "subject": "Pickup 9/22", "body": "Can you do Saturday night pickup instead of Sunday?"},
         error="SMTP relay timeout"),
    dict(id="apr-wd-rentals", ask="Line up the rentals payment; I want to see the revised invoice first."),
    dict(ask="Write the final caterer headcount update as you'd send it, with Maya's discount code.",
         tool="vendor_portal", args={"quote": "HK-2291", "guest_count": 147, "discount_code": "LARK-VIP-261"}),
    "What was the exact Hearth Kitchen quote number again?",
    [FL("Any new vendor emails?", "email_search", {"query": "is:unread label:wedding"},
        lambda r: {"id": f"msg_{hexid(r, 12)}", "from": r.choice(["bookings@bassline.events", "hi@wildroot.com", "studio@goldenhourphoto.com"]),
                   "subject": r.choice(["Timeline questions", "Invoice attached", "Checking in"]), "date": ts(r, "2024-05-1" + str(r.randint(0, 9)))},
        10, "Routine vendor mail; nothing urgent.", key="messages"),
     FL(None, "sheet_read", {"sheet": "Guest list", "range": "A1:D200"},
        lambda r: {"name": r.choice(NAMES), "rsvp": r.choice(["yes", "no", "pending"]), "meal": r.choice(["chicken", "fish", "veg"])},
        14, "RSVPs are trickling in.", key="rows"),
     FL("What's on the calendar this month?", "sheet_read", {"sheet": "Vendor tracker", "range": "Calendar!A1:C30"},
        lambda r: {"date": f"2024-06-{r.randint(1, 30):02d}", "what": r.choice(["Cake tasting", "Dress fitting", "Venue walkthrough", "Call with DJ"])},
        10, "A few appointments; nothing conflicts.", key="rows")],
)


def generic_fillers(tool_a, args_a, key_a, rowfn_a, tool_b, args_b, key_b, rowfn_b, tool_c, args_c, key_c, rowfn_c, n=10):
    return [FL("Quick status check?", tool_a, args_a, rowfn_a, n, "Nothing needs attention there.", key=key_a),
            FL(None, tool_b, args_b, rowfn_b, n, "Checked; routine.", key=key_b),
            FL("Anything new?", tool_c, args_c, rowfn_c, n, "No changes that affect us.", key=key_c)]


# 6. Mortgage refinance paperwork
tool("loan_file_select", "read", [], "select which loan file (application) the following calls act on")
simple(
    "mortgage-refinance", "mg", "Refinance paperwork: conditions, statements, a rate lock",
    "A homeowner's agent clears underwriting conditions; the selected loan file moves from the pre-approval to the "
    "application; the payoff amount from two sources disagrees; the appraisal value is corrected twice.",
    "You are a personal-finance assistant with the lender portal, bank statements and e-signature.",
    dict(tool="loan_file_select", key="active_loan_file", values=["PRE-2024-11873", "APP-2024-40912", "APP-2024-40912-R1"],
         args=lambda v: {"loan_file": v}, result=lambda v, rng: {"active_loan_file": v, "loan_officer": "Dana Whitfield"},
         move_text=["Pre-approval is done. Switch to the real application file.", "They re-issued the file after the rate change; switch to the R1 file."]),
    "Refinancing our 30-year at 7.1%. Don't lock any rate above 6.25%, and never sign anything with a prepayment penalty. "
    "Our portal PIN for statements is 604-219.", "Don't lock any rate above 6.25%", ("max_lock_rate_pct", "6.25"),
    ("Also: use only the Alder Credit Union statements, not the brokerage ones.", "Alder Credit Union"),
    dict(ask="What conditions are still open on the file?", tool="doc_list", args={"loan_number": "PRE-2024-11873"},
         make=LR(lambda r: {"condition_id": f"C{r.randint(100, 999)}", "text": r.choice(["Signed 4506-C", "Homeowners insurance declarations",
                                "Two months bank statements", "HOA questionnaire", "Photo ID", "Paystubs (30 days)"]), "state": r.choice(["cleared", "cleared", "received"])},
                 20, {"condition_id": "C417", "text": "Letter of explanation for $9,850 deposit on 2024-03-22", "state": "open", "due": "2024-05-20"},
                 key="conditions", extra={"loan_number": "PRE-2024-11873"}),
         use_tool="doc_upload", use_args={"condition_id": "C417"}),
    "Which condition is the one still open? Let's clear it.",
    dict(key="appraised_value", vals=["612000", "598000", "605500"],
         say=["The appraisal came in at 612000.", "Sorry, I misread it: the appraised value is 598000.",
              "They revised the appraisal after the comps review: 605500."]),
    dict(ask="Upload the explanation letter for the deposit.", tool="doc_upload",
         args={"loan_number": "APP-2024-40912", "condition_id": "C417", "file": "LOE_deposit_0322.pdf"},
         result={"document": {"id": "doc_81f20c", "condition_id": "C417", "review_state": "pending_review"}},
         use_tool="doc_list", use_args={"document_id": "doc_81f20c"}),
    dict(ask="Download the April statement from Alder.", tool="bank_statement", args={"account": "alder-checking-3381", "month": "2024-04", "pin": "604-219"},
         error="statement service timed out after 60s",
         sq_result={"statement": {"id": "stmt_2024_04_3381", "pages": 6, "ending_balance": "14210.77"}}),
    dict(ask="Show me the credit summary.", tool="credit_report", args={"applicant": "primary"},
         make=LL(lambda r: f"{r.choice(['TRADELINE', 'INQUIRY'])}  {r.choice(['CHASE CARD', 'AMEX', 'TOYOTA FIN', 'SALLIE MAE', 'CITI'])}  opened {r.randint(2008, 2022)}  "
                           f"bal ${r.randint(0, 30000)}  {r.choice(['CURRENT', 'CURRENT', 'PAID'])}", 30,
                 "MID SCORE (tri-merge): 748   Experian 751  Equifax 748  TransUnion 739", result={"report_id": "cr_55a19"})),
    ("Side question: should we also roll the HELOC into this refi?",
     "Only if the blended rate is lower; the HELOC is small and variable, and rolling it in raises the LTV above 75%."),
    dict(key="payoff_amount", subject="loan_number=APP-2024-40912",
         a_ask="What's the payoff per the lender portal?",
         a=("lender_portal", {"loan_number": "APP-2024-40912"}, {"application": {"payoff_amount": "388412.19", "stage": "underwriting"}}),
         b_ask="Get the payoff quote from the current servicer too.",
         b=("servicer_payoff", {"loan_number": "APP-2024-40912"}, {"quote": {"payoff_amount": "389107.45", "good_through": "2024-06-14", "per_diem": "73.86"}}),
         resolve="The servicer quote is the authoritative one; use 389107.45.", x="388412.19", y="389107.45", winner="389107.45"),
    dict(id="apr-mg-rate-lock", ask="Lock the 6.125% rate for 45 days.", meanwhile="Meanwhile, how much is the lock extension fee if closing slips?",
         grant="Approved, lock it.", tool="rate_lock", args={"loan_number": "APP-2024-40912", "rate_pct": "6.125", "days": 45},
         result={"lock": {"id": "LCK-77120", "rate_pct": "6.125", "expires": "2024-06-28"}}, idem="lock-40912-6125"),
    dict(ask="List everything in the loan file.", tool="doc_list", args={"loan_number": "APP-2024-40912", "all": True},
         make=LR(lambda r: {"document_id": f"doc_{hexid(r, 6)}", "type": r.choice(["paystub", "W-2", "statement", "ID", "insurance"]), "uploaded": ts(r, "2024-05-0" + str(r.randint(1, 9)))},
                 24, {"document_id": "doc_9a0e3c", "type": "closing disclosure draft", "uploaded": "2024-05-13T11:02:00Z", "flag": "prepayment penalty: none"}, key="documents")),
    dict(ask="Upload the insurance declarations.", tool="doc_upload", args={"loan_number": "APP-2024-40912", "file": "HOI_dec_2024.pdf"}),
    "Session resumed the next week; the assistant restarted after a laptop update.",
    "I'm back. Did the insurance upload go through before you restarted?",
    dict(ask="Request the appraisal transfer letter.", tool="doc_upload", args={"loan_number": "APP-2024-40912-R1", "file": "appraisal_transfer_request.pdf"},
         error="portal timeout"),
    dict(id="apr-mg-esign-cd", ask="Get the closing disclosure envelope ready to sign; I want to read it first."),
    dict(ask="Write the status check on the explanation letter with the payoff we agreed.", tool="doc_list",
         args={"document_id": "doc_81f20c", "payoff": "389107.45", "pin": "604-219"}),
    "Which condition id was the deposit explanation again?",
    generic_fillers("lender_portal", {"loan_number": "APP-2024-40912", "view": "milestones"}, "milestones",
                    lambda r: {"milestone": r.choice(["Disclosures sent", "Appraisal ordered", "Title ordered", "Underwriting"]), "date": ts(r, "2024-05-0" + str(r.randint(1, 9)))},
                    "bank_statement", {"account": "alder-checking-3381", "view": "recent"}, "transactions",
                    lambda r: {"date": f"2024-05-{r.randint(1, 13):02d}", "desc": r.choice(["PAYROLL", "PG&E", "SAFEWAY", "TRANSFER"]), "amount": money(r, 5, 3000)},
                    "email_search", {"query": "from:lender"}, "messages",
                    lambda r: {"subject": r.choice(["Document received", "Condition update", "Your loan status"]), "date": ts(r, "2024-05-1" + str(r.randint(0, 3)))}),
)

# 7. Small-business payroll and contractor payments
simple(
    "payroll-contractors", "py", "Semi-monthly payroll and contractor payouts for two entities",
    "A bookkeeper agent previews and submits payroll for two legal entities; the selected company moves; an hours total "
    "is corrected twice; the bank and the payroll provider disagree on a funding balance.",
    "You are a bookkeeping assistant with the payroll provider, the bank and the ledger.",
    dict(tool="payroll_company", key="payroll_entity", values=["Bramble Coffee LLC", "Bramble Roastery Inc", "Bramble Coffee LLC (2024-05B)"],
         args=lambda v: {"company": v}, result=lambda v, rng: {"payroll_entity": v, "fein_last4": str(rng.randint(1000, 9999))},
         move_text=["Cafe payroll is ready. Switch to the roastery.", "Roastery done. Back to the cafe for the second half of May."]),
    "Run payroll for the May 1-15 period. Payroll must be submitted by Wednesday 15:00 PT, and no single contractor "
    "payout over $6,000 without my sign-off. The bank's transfer code for this week is BX-3390-T.",
    "no single contractor payout over $6,000", ("contractor_payout_limit_usd", 6000),
    ("Reminder: Lena is on unpaid leave from May 6, don't pay her hourly for those days.", "unpaid leave"),
    dict(ask="Preview the cafe payroll.", tool="payroll_preview", args={"pay_period": "2024-05-01..2024-05-15"},
         make=LR(lambda r: {"employee": r.choice(NAMES), "hours": f"{r.randint(20, 80)}.{r.choice(['00', '25', '50', '75'])}", "gross": money(r, 600, 3200),
                            "net": money(r, 450, 2500), "flags": []}, 22,
                 {"employee": "Lena Fischer", "hours": "61.50", "gross": "1414.50", "net": "1120.02", "flags": ["hours_after_leave_start"], "timesheet_id": "TS-55821"},
                 key="employees", extra={"preview_id": "prv_0515_cafe"}),
         use_tool="payroll_preview", use_args={"timesheet": "TS-55821"}),
    "Whose timesheet is flagged? Fix that one first.",
    dict(key="lena_hours", vals=["24.00", "26.50", "25.75"],
         say=["Lena's real hours before her leave are 24.00.", "Correction: the manager found a shift, make it 26.50.",
              "Final: one shift was 45 minutes short, so 25.75."]),
    dict(ask="Post the accrual journal for the contractors.", tool="ledger_post", args={"journal": "GJ", "memo": "May 1-15 contractor accrual"},
         result={"entry": {"id": "JE-2024-0518", "status": "posted", "lines": 6}}, use_tool="ledger_post", use_args={"reverse": "JE-2024-0518"}),
    dict(ask="Pay Rosa Lindgren's invoice, $2,450.", tool="contractor_pay", args={"contractor_id": "ctr_rosa_l", "amount": "2450.00", "invoice": "INV-112"},
         error="payments API timeout (60s)", sq_result={"payout": {"id": "po_3LmA92", "payout_state": "in_transit", "amount": "2450.00"}}),
    dict(ask="Show the contractor list with their payment details.", tool="contractor_list", args={"active": True},
         make=LR(lambda r: {"contractor_id": f"ctr_{hexid(r, 6)}", "name": r.choice(NAMES), "method": r.choice(["ACH", "ACH", "wire"]),
                            "w9_on_file": True, "ytd_paid": money(r, 1000, 40000)}, 18,
                 {"contractor_id": "ctr_obi_e", "name": "Emeka Obi", "method": "ACH", "w9_on_file": False, "ytd_paid": "5800.00", "note": "W-9 expired"},
                 key="contractors")),
    ("Side topic: do we need to file a 1099-NEC for a contractor we paid by card?",
     "No: payments made by card or PayPal are reported by the processor on a 1099-K, so you don't file 1099-NEC for those."),
    dict(key="available_balance", subject="account=ops-checking-2201",
         a_ask="What does the bank say is available in the operating account?",
         a=("bank_balance", {"account": "ops-checking-2201"}, {"account": {"available_balance": "48210.55", "ledger_balance": "49010.55"}}),
         b_ask="What does the payroll provider see as the funding balance?",
         b=("payroll_run_status", {"run_id": "run_0515_cafe", "account": "ops-checking-2201"}, {"funding": {"available_balance": "51880.10", "verified_at": "2024-05-13T06:00:00Z"}}),
         resolve="The provider's number is from Monday morning. Trust the bank's 48210.55.", x="48210.55", y="51880.10", winner="48210.55"),
    dict(id="apr-py-submit-cafe", ask="Submit the cafe payroll.", meanwhile="Meanwhile, what's the total employer tax?",
         grant="Approved. Submit the cafe payroll.", tool="payroll_submit",
         args={"pay_period": "2024-05-01..2024-05-15", "company": "Bramble Coffee LLC", "transfer_code": "BX-3390-T"},
         result={"run": {"id": "run_0515_cafe", "run_state": "processing", "debit_date": "2024-05-16"}}, idem="submit-0515-cafe"),
    dict(ask="Pull the roastery preview.", tool="payroll_preview", args={"pay_period": "2024-05-01..2024-05-15", "company": "roastery"},
         make=LR(lambda r: {"employee": r.choice(NAMES), "hours": f"{r.randint(30, 88)}.00", "gross": money(r, 900, 4200)}, 22,
                 {"employee": "Tomasz Wrona", "hours": "96.00", "gross": "2688.00", "flags": ["overtime_not_approved"]}, key="employees")),
    dict(ask="Pay Emeka Obi's invoice of $1,100.", tool="contractor_pay", args={"contractor_id": "ctr_obi_e", "amount": "1100.00"}),
    "Session resumed Thursday morning; the bookkeeping assistant was restarted.",
    "Morning. Did Emeka's payment go through before you restarted?",
    dict(ask="Post the payroll journal for the cafe.", tool="ledger_post", args={"journal": "PR", "memo": "cafe payroll 05-15"}, error="ledger API timeout"),
    dict(id="apr-py-roastery", ask="Get the roastery payroll ready to submit, but I want to approve the overtime first."),
    dict(ask="Write the roastery submit call with the transfer code and Lena's hours.", tool="payroll_submit",
         args={"transfer_code": "BX-3390-T", "lena_hours": "25.75", "accrual": "JE-2024-0518"}),
    "Which timesheet id was Lena's again?",
    generic_fillers("bank_balance", {"account": "ops-checking-2201", "view": "transactions"}, "transactions",
                    lambda r: {"date": f"2024-05-{r.randint(1, 13):02d}", "desc": r.choice(["SQUARE DEPOSIT", "SYSCO", "PG&E", "RENT"]), "amount": money(r, 40, 9000)},
                    "w9_lookup", lambda r: {"contractor_id": f"ctr_{hexid(r, 6)}"}, "forms",
                    lambda r: {"form": "W-9", "signed": f"202{r.randint(1, 4)}-0{r.randint(1, 9)}-1{r.randint(0, 9)}", "tin_match": "verified"},
                    "payroll_run_status", lambda r: {"run_id": f"run_04{r.randint(10, 30)}"}, "events",
                    lambda r: {"at": ts(r, "2024-04-30"), "what": r.choice(["funded", "taxes filed", "paystubs published"])}),
)

# 8. Customer-support escalation across ticketing, billing and shipping
tool("helpdesk_view", "read", [], "select the helpdesk view / queue the following calls act on")
simple(
    "support-escalation", "se", "Escalated order complaint across ticketing, billing and shipping",
    "A support agent's assistant works an escalation: the helpdesk queue moves; billing and shipping disagree about the "
    "delivery ZIP; the refund amount is corrected twice; a reship times out.",
    "You are a tier-2 support assistant with the helpdesk, billing and shipping tools.",
    dict(tool="helpdesk_view", key="active_queue", values=["tier2-escalations", "billing-disputes", "vip-care"],
         args=lambda v: {"queue": v}, result=lambda v, rng: {"active_queue": v, "open_tickets": rng.randint(12, 80)},
         move_text=["Move this into the billing-disputes queue, they own refunds.", "The customer is VIP now. Move to vip-care."]),
    "Escalation on ticket 88123 for order ORD-5530-1187. Never refund more than the order total, and always reply "
    "to the customer within 2 hours of each update. The customer read me their verification code: 7Q4-KP9.",
    "Never refund more than the order total", ("reply_sla_hours", 2),
    ("Don't offer store credit; the customer explicitly refused it.", "store credit"),
    dict(ask="Pull the ticket with its thread.", tool="ticket_get", args={"ticket_id": "88123", "include": "comments"},
         make=LR(lambda r: {"id": r.randint(900000, 999999), "author": r.choice(["customer", "agent:jpatel", "system"]),
                            "body": r.choice(["Any update?", "We're looking into it.", "Status changed to pending.", "Still nothing arrived."]),
                            "created_at": ts(r, "2024-05-1" + str(r.randint(0, 3)))}, 20,
                 {"id": 944120, "author": "customer", "body": "Box arrived crushed; the espresso machine (serial EM-77-20931) leaks.",
                  "created_at": "2024-05-11T15:02:00Z", "attachments": ["IMG_2201.jpg"]}, key="comments",
                 extra={"ticket": {"id": 88123, "priority": "high", "requester": "Noor Haddad"}}),
         use_tool="shipping_reship", use_args={"serial": "EM-77-20931"}),
    "What's the machine's serial? We'll need it for the replacement.",
    dict(key="refund_amount", vals=["89.00", "129.00", "119.50"],
         say=["Refund the shipping and a goodwill amount, 89.00 total.", "Correction: the supervisor approved 129.00.",
              "Recalculated with the coupon she used: 119.50."]),
    dict(ask="Add an internal note to the ticket.", tool="ticket_update", args={"ticket_id": "88123", "internal_note": "Damage confirmed by photo."},
         result={"ticket": {"id": 88123, "audit_id": "aud_301772", "status": "open"}}, use_tool="ticket_update", use_args={"audit_id": "aud_301772"}),
    dict(ask="Create a replacement shipment.", tool="shipping_reship", args={"order_id": "ORD-5530-1187", "sku": "EM-PRO-2"},
         error="carrier API timeout after 45s", sq_result={"shipment": {"id": "shp_44K2", "tracking": "1Z999AA10123456784", "label_state": "created"}}),
    dict(ask="Show the billing record.", tool="billing_lookup", args={"order_id": "ORD-5530-1187", "view": "full"},
         make=lambda rng: ({"invoice": {"id": "inv_5530", "total": "749.00", "lines": [{"sku": f"SKU-{rng.randint(1000, 9999)}", "amount": money(rng, 5, 60)} for _ in range(14)] +
                                        [{"sku": "EM-PRO-2", "amount": "649.00"}], "payments": [{"method": "visa", "last4": "4242", "captured": "749.00"}]}}, None)),
    ("Unrelated: what's our policy on international returns?",
     "International returns are accepted within 30 days; the customer pays return shipping unless the item arrived damaged."),
    dict(key="delivery_zip", subject="order_id=ORD-5530-1187",
         a_ask="What delivery ZIP does billing have?",
         a=("billing_lookup", {"order_id": "ORD-5530-1187"}, {"order": {"delivery_zip": "94110", "bill_zip": "94110"}}),
         b_ask="What ZIP did the carrier deliver to?",
         b=("shipping_track", {"order_id": "ORD-5530-1187"}, {"tracking": {"delivery_zip": "94107", "status_detail": "Delivered, front desk"}}),
         resolve="She moved last month; the carrier's 94107 is right. Ship the replacement there.", x="94110", y="94107", winner="94107"),
    dict(id="apr-se-refund", ask="Issue the partial refund.", meanwhile="While that waits, draft the reply to the customer.",
         grant="Approved. Refund it.", tool="billing_refund", args={"order_id": "ORD-5530-1187", "amount": "119.50", "reason": "damaged"},
         result={"refund": {"id": "re_3PqX1", "refund_state": "succeeded", "amount": "119.50"}}, idem="refund-5530-1"),
    dict(ask="Pull the tracking history of the original shipment.", tool="shipping_track", args={"order_id": "ORD-5530-1187", "history": True},
         make=LL(lambda r: f"{ts(r, '2024-05-0' + str(r.randint(6, 9)))}  {r.choice(['Departed facility', 'Arrived at facility', 'In transit', 'Processing'])}  "
                           f"{r.choice(['OAKLAND CA', 'RENO NV', 'SACRAMENTO CA', 'SAN PABLO CA'])}", 30,
                 "2024-05-10T09:12:44Z  Exception: package damaged, rewrapped  SAN FRANCISCO CA  (claim ref DMG-22817)")),
    dict(ask="Open a carrier damage claim.", tool="job_status", args={"job_id": "claim-DMG-22817", "action": "open"}),
    "Session resumed the next day; the support assistant restarted after a deploy.",
    "Back on 88123. Where is the damage claim?",
    dict(ask="Send the customer the update.", tool="ticket_update", args={"ticket_id": "88123", "public_reply": "Replacement is on the way."},
         error="helpdesk API timeout"),
    dict(id="apr-se-upgrade", ask="Set up an expedited upgrade for the replacement; needs my approval."),
    dict(ask="Write the reship correction you'd send: serial, ZIP and verification code.", tool="shipping_reship",
         args={"serial": "EM-77-20931", "zip": "94107", "verification": "7Q4-KP9"}),
    "What was the leaking machine's serial number again?",
    generic_fillers("ticket_get", lambda r: {"ticket_id": str(r.randint(88000, 88999))}, "comments",
                    lambda r: {"author": r.choice(["customer", "agent"]), "body": r.choice(["Thanks", "Any news?", "Following up"]), "at": ts(r)},
                    "crm_customer", {"customer_id": "cus_noor_h"}, "orders",
                    lambda r: {"order": f"ORD-{r.randint(5000, 5600)}-{r.randint(1000, 9999)}", "total": money(r, 20, 900), "placed": ts(r, "2024-0" + str(r.randint(1, 4)) + "-11")},
                    "job_status", lambda r: {"job_id": f"job_{hexid(r, 6)}"}, "steps",
                    lambda r: {"step": r.choice(["queued", "label", "pick", "pack"]), "at": ts(r)}),
)

# 9. Security audit of cloud IAM
simple(
    "iam-security-audit", "ia", "IAM audit across three AWS accounts",
    "A security engineer's agent audits IAM: the CLI profile moves between accounts; a key's last use disagrees between "
    "the credential report and CloudTrail; the rotation deadline is corrected twice.",
    "You are a cloud-security assistant with read-only IAM access plus a change tool that needs approval.",
    dict(tool="aws_profile", key="aws_account", values=["111122223333", "444455556666", "777788889999"],
         args=lambda v: {"profile": f"audit-{v}"}, result=lambda v, rng: {"aws_account": v, "arn": f"arn:aws:sts::{v}:assumed-role/SecurityAudit/agent"},
         move_text=["Sandbox account is done. Switch the profile to the prod account 444455556666.", "Now the data account, 777788889999."]),
    "Quarterly IAM audit. Never delete a user or key without an approved Jira ticket, and read-only everywhere else. "
    "The audit Jira epic is SEC-2291.", "Never delete a user or key without an approved Jira ticket", ("audit_epic", "SEC-2291"),
    ("Leave the break-glass role alone even if it looks unused.", "break-glass"),
    dict(ask="Get the credential report.", tool="credential_report", args={"format": "json"},
         make=LR(lambda r: {"user": r.choice(["ci-deployer", "backup-bot", "grafana", "jenkins-legacy", "alice.ops", "bob.dev"]) + f"-{r.randint(1, 40)}",
                            "password_enabled": r.choice([True, False]), "access_key_1_active": True,
                            "access_key_1_last_used": ts(r, "2024-05-1" + str(r.randint(0, 3)))}, 22,
                 {"user": "svc-legacy-etl", "password_enabled": False, "access_key_1_active": True, "access_key_1_last_used": "2023-01-04T00:00:00Z",
                  "access_key_1_id": "AKIA4EXAMPLE7LEGACY", "mfa_active": False}, key="users"),
         use_tool="aws_iam_change", use_args={"access_key_id": "AKIA4EXAMPLE7LEGACY"}),
    "Which key hasn't been used for over a year? That's our first finding.",
    dict(key="rotation_deadline", vals=["2024-06-30", "2024-06-14", "2024-06-21"],
         say=["Rotation deadline for stale keys is 2024-06-30.", "Correction: the auditors want it by 2024-06-14.",
              "They gave us one more week: 2024-06-21."]),
    dict(ask="Open the Jira issue for the stale key finding.", tool="ticket_jira", args={"issue_key": "new", "epic": "SEC-2291", "summary": "Stale key svc-legacy-etl"},
         result={"issue": {"key": "SEC-2307", "self": "https://acme.atlassian.net/rest/api/2/issue/80412"}}, use_tool="ticket_jira", use_args={"issue_key": "SEC-2307"}),
    dict(ask="Run the access analyzer scan on prod.", tool="access_analyzer", args={"analyzer": "org-analyzer", "action": "start_scan"},
         error="ThrottlingException / read timeout", sq_result={"scan": {"id": "scan_5512", "scan_state": "COMPLETED", "findings": 7}}),
    dict(ask="List the policies attached to the deploy role.", tool="aws_iam", args={"command": "list-attached-role-policies --role-name deploy-prod"},
         make=LR(lambda r: {"PolicyName": r.choice(["ReadOnlyAccess", "AmazonS3ReadOnlyAccess", "CloudWatchAgentServerPolicy", "AmazonSSMManagedInstanceCore"]) + f"-{r.randint(1, 9)}",
                            "PolicyArn": f"arn:aws:iam::aws:policy/{hexid(r, 6)}"}, 20,
                 {"PolicyName": "AdministratorAccess", "PolicyArn": "arn:aws:iam::aws:policy/AdministratorAccess", "AttachedBy": "terraform-2021"}, key="AttachedPolicies")),
    ("Aside: are IAM Identity Center permission sets worth moving to?", "Yes for humans: short-lived credentials per account, one place to manage access."),
    dict(key="key_last_used", subject="principal=svc-legacy-etl",
         a_ask="When does IAM say svc-legacy-etl's key was last used?",
         a=("aws_iam", {"command": "get-access-key-last-used", "principal": "svc-legacy-etl"}, {"AccessKeyLastUsed": {"key_last_used": "2023-01-04", "ServiceName": "s3"}}),
         b_ask="Check CloudTrail for that principal.",
         b=("cloudtrail_lookup", {"principal": "svc-legacy-etl"}, {"summary": {"key_last_used": "2024-05-09", "event": "GetObject", "source_ip": "10.4.2.18"}}),
         resolve="IAM's field lags for some services; CloudTrail's 2024-05-09 is real. It's still in use.", x="2023-01-04", y="2024-05-09", winner="2024-05-09"),
    dict(id="apr-ia-detach-admin", ask="Detach AdministratorAccess from deploy-prod.", meanwhile="Meanwhile, what would break?",
         grant="Approved under SEC-2307. Detach it.", tool="aws_iam_change", args={"principal": "deploy-prod", "detach": "AdministratorAccess", "ticket": "SEC-2307"},
         result={"change": {"id": "chg_91a2", "change_state": "applied"}}, idem="detach-admin-deploy-prod"),
    dict(ask="List roles in the data account.", tool="aws_iam", args={"command": "list-roles"},
         make=LR(lambda r: {"RoleName": r.choice(["glue-job", "emr-ec2", "athena-query", "lambda-exec"]) + f"-{r.randint(1, 30)}", "LastUsed": ts(r, "2024-05-0" + str(r.randint(1, 9)))}, 22,
                 {"RoleName": "break-glass-admin", "LastUsed": None, "MaxSessionDuration": 3600}, key="Roles")),
    dict(ask="Pull CloudTrail for the data account's root user.", tool="cloudtrail_lookup", args={"principal": "root", "days": 90}),
    "Session resumed the following morning; the audit assistant was restarted.",
    "Good morning. Did the root CloudTrail pull finish?",
    dict(ask="Update SEC-2307 with the CloudTrail finding.", tool="ticket_jira", args={"issue_key": "SEC-2307", "comment": "Key still used 2024-05-09"}, error="Jira 504"),
    dict(id="apr-ia-rotate-key", ask="Prepare the key rotation for svc-legacy-etl; I'll approve once the owner agrees."),
    dict(ask="Write the rotation change as you'd submit it.", tool="aws_iam_change",
         args={"access_key_id": "AKIA4EXAMPLE7LEGACY", "ticket": "SEC-2307", "deadline": "2024-06-21"}),
    "What was the stale access key's id?",
    generic_fillers("aws_iam", {"command": "list-users"}, "Users",
                    lambda r: {"UserName": r.choice(["alice.ops", "bob.dev", "ci-deployer"]) + str(r.randint(1, 9)), "CreateDate": ts(r, "2022-0" + str(r.randint(1, 9)) + "-01")},
                    "access_analyzer", {"analyzer": "org-analyzer"}, "findings",
                    lambda r: {"id": hexid(r, 8), "resourceType": r.choice(["AWS::S3::Bucket", "AWS::KMS::Key"]), "findingStatus": "ARCHIVED"},
                    "cloudtrail_lookup", lambda r: {"principal": r.choice(["alice.ops", "ci-deployer"])}, "Events",
                    lambda r: {"EventName": r.choice(["AssumeRole", "GetObject", "PutObject"]), "EventTime": ts(r)}),
)


# 10. E-commerce catalogue migration
simple(
    "catalogue-migration", "cm", "Migrating a product catalogue between storefront platforms",
    "A merchant's agent migrates products: the selected storefront moves; an import id is reused much later; the ERP and "
    "the new store disagree on a SKU's price; the launch date is corrected twice.",
    "You are an e-commerce operations assistant with the old platform export, the new store API and the ERP.",
    dict(tool="shop_select", key="active_store", values=["oldshop-legacy", "newshop-staging", "newshop-live"],
         args=lambda v: {"store": v}, result=lambda v, rng: {"active_store": v, "api_version": "2024-04"},
         move_text=["Export is done. Select the new staging store.", "Staging checks out. Select the live store."]),
    "We move the catalogue off the legacy platform. Never publish redirects before the import is verified, and keep "
    "every product URL handle unchanged. The staff API passphrase for the new store is orchid-delta-77.",
    "Never publish redirects before the import is verified", ("handle_policy", "unchanged"),
    ("Skip the discontinued 'winter-2022' collection entirely.", "winter-2022"),
    dict(ask="Export the products from the legacy store.", tool="catalog_export", args={"store": "oldshop-legacy", "format": "json"},
         make=LR(lambda r: {"sku": f"TEA-{r.randint(1000, 9999)}", "handle": r.choice(["sencha-green", "earl-grey", "rooibos-vanilla", "oolong-milk"]) + f"-{r.randint(1, 99)}",
                            "price": money(r, 6, 40), "variants": r.randint(1, 4)}, 22,
                 {"sku": "TEA-4471", "handle": "jasmine-pearls-250g", "price": "24.00", "variants": 3, "warning": "duplicate handle with TEA-4470"}, key="products"),
         use_tool="catalog_import", use_args={"sku": "TEA-4471"}),
    "Which SKU has the handle problem? Fix it before import.",
    dict(key="launch_date", vals=["2024-06-03", "2024-06-10", "2024-06-12"],
         say=["Launch date is 2024-06-03.", "Correction: marketing moved the launch to 2024-06-10.", "Final answer from marketing: 2024-06-12."]),
    dict(ask="Start the import into staging.", tool="catalog_import", args={"store": "newshop-staging", "file": "export_0514.json"},
         result={"import": {"id": "imp_7Ta91Q", "state": "queued", "rows": 1840}}, use_tool="import_status", use_args={"import_id": "imp_7Ta91Q"}),
    dict(ask="Sync inventory for the Portland warehouse.", tool="inventory_sync", args={"location_id": "loc_pdx_01"},
         error="gateway timeout", sq_result={"sync": {"id": "syn_221", "sync_state": "completed", "updated": 1712}}),
    dict(ask="Show the import job errors.", tool="import_status", args={"import_id": "imp_7Ta91Q", "errors": True},
         make=LL(lambda r: f"row {r.randint(2, 1840)}: WARN image url redirected ({r.choice(['cdn.oldshop.io', 'img.oldshop.io'])}/{hexid(r, 10)}.jpg)", 34,
                 "row 1207: ERROR handle 'matcha-ceremonial-30g' already exists (product gid://shopify/Product/884120031)", result={"import_state": "completed_with_errors"})),
    ("Unrelated: is it worth adding a tea-subscription product later?", "Probably; subscriptions suit consumables and most new platforms support selling plans natively."),
    dict(key="price", subject="sku=TEA-4471",
         a_ask="What's TEA-4471's price in the ERP?", a=("erp_item", {"sku": "TEA-4471"}, {"item": {"price": "24.00", "cost": "9.10"}}),
         b_ask="And what price does the new store show for TEA-4471?", b=("product_get", {"sku": "TEA-4471"}, {"product": {"price": "26.50", "status": "draft"}}),
         resolve="The ERP is the price master. 24.00 is correct.", x="24.00", y="26.50", winner="24.00"),
    dict(id="apr-cm-redirects", ask="Publish the redirects on staging.", meanwhile="Meanwhile, how many redirects are there?",
         grant="Import is verified. Approved, publish them.", tool="redirects_publish", args={"store": "newshop-staging", "count": 1840},
         result={"publish": {"id": "rdp_0412", "published": 1840}}, idem="redirects-staging-1"),
    dict(ask="Pull the staging product list.", tool="product_get", args={"sku": "*", "store": "newshop-staging"},
         make=LR(lambda r: {"sku": f"TEA-{r.randint(1000, 9999)}", "status": "active", "handle": f"tea-{hexid(r, 5)}"}, 26,
                 {"sku": "TEA-0999", "status": "active", "handle": "winter-2022-spiced-chai"}, key="products")),
    dict(ask="Start the live import.", tool="catalog_import", args={"store": "newshop-live", "file": "export_0514.json"}),
    "Session resumed the next day after the agent was restarted.",
    "Back. Did the live import start?",
    dict(ask="Sync inventory for the Austin warehouse.", tool="inventory_sync", args={"location_id": "loc_aus_02"}, error="gateway timeout"),
    dict(id="apr-cm-live-redirects", ask="Prepare the live redirects; I'll approve after QA."),
    dict(ask="Write the live import check you'd make, with the staging import id and the passphrase.", tool="import_status",
         args={"import_id": "imp_7Ta91Q", "passphrase": "orchid-delta-77", "launch": "2024-06-12"}),
    "Which SKU had the duplicate handle?",
    generic_fillers("product_get", lambda r: {"sku": f"TEA-{r.randint(1000, 9999)}"}, "variants",
                    lambda r: {"title": r.choice(["50g", "100g", "250g"]), "inventory": r.randint(0, 300)},
                    "erp_item", lambda r: {"sku": f"TEA-{r.randint(1000, 9999)}"}, "stock",
                    lambda r: {"warehouse": r.choice(["PDX", "AUS"]), "on_hand": r.randint(0, 500)},
                    "catalog_export", {"store": "oldshop-legacy", "object": "collections"}, "collections",
                    lambda r: {"handle": r.choice(["green", "black", "herbal", "gifts"]), "products": r.randint(5, 90)}, n=24),
)

# 11. Hospital shift roster
simple(
    "hospital-roster", "hr", "Covering a ward's night shifts during a flu outbreak",
    "A nurse manager's agent rebuilds a roster: the selected ward roster moves; an agency request id is reused later; "
    "the timeclock and the staff record disagree on a nurse's hours; the minimum staffing ratio is corrected twice.",
    "You are a rostering assistant for a hospital's nursing office.",
    dict(tool="roster_select", key="active_roster", values=["4West-2024-W20", "4East-2024-W20", "4West-2024-W21"],
         args=lambda v: {"roster": v}, result=lambda v, rng: {"active_roster": v, "version": rng.randint(3, 12)},
         move_text=["4 West is covered. Open the 4 East roster.", "Now next week's 4 West roster."]),
    "Flu outbreak: nights need cover. No nurse may work more than 3 consecutive nights, and every night shift needs "
    "one ALS-certified nurse. The agency framework reference is AGY-FW-3310.",
    "more than 3 consecutive nights", ("max_consecutive_nights", 3),
    ("Do not roster Priya Raman for nights; she is on a day-only occupational health plan.", "day-only"),
    dict(ask="Show the 4 West roster for this week.", tool="roster_view", args={"ward": "4West", "week": "2024-W20"},
         make=LR(lambda r: {"date": f"2024-05-{r.randint(13, 19)}", "shift": r.choice(["D", "E", "N"]), "staff": r.choice(NAMES), "als": r.choice([True, False])}, 24,
                 {"date": "2024-05-16", "shift": "N", "staff": None, "als": False, "gap": "UNFILLED", "slot_id": "SL-4W-0516N-2"}, key="shifts"),
         use_tool="roster_assign", use_args={"slot_id": "SL-4W-0516N-2"}),
    "Which night slot is unfilled? Fill it first.",
    dict(key="min_nurses_per_night", vals=[4, 6, 5],
         say=["Minimum is 4 nurses per night on 4 West.", "Correction: with the outbreak it's 6 per night.",
              "Infection control relaxed it a little: 5 per night."]),
    dict(ask="Request an agency nurse for Thursday night.", tool="agency_request", args={"ward": "4West", "date": "2024-05-16", "shift": "N", "framework": "AGY-FW-3310"},
         result={"request": {"id": "AR-66102", "request_state": "open"}}, use_tool="agency_status", use_args={"request_id": "AR-66102"}),
    dict(ask="Move Sam Okafor to Friday night.", tool="roster_assign", args={"staff_id": "st_okafor_s", "date": "2024-05-17", "shift": "N"},
         error="roster service timeout", sq_result={"assignment": {"id": "as_1120", "assignment_state": "saved"}}),
    dict(ask="Show Sam Okafor's clock records this month.", tool="timeclock", args={"staff_id": "st_okafor_s", "month": "2024-05"},
         make=LL(lambda r: f"{r.choice(['IN ', 'OUT'])}  2024-05-{r.randint(1, 14):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}  badge 4471  {r.choice(['4W', '4E'])}", 36,
                 "ALERT  2024-05-12  3 consecutive nights ending 2024-05-12 (rule: max 3)")),
    ("Side topic: can agency nurses access the medication cabinets?", "Only with a temporary badge issued by pharmacy after the local induction."),
    dict(key="hours_this_week", subject="staff_id=st_okafor_s",
         a_ask="How many hours does Sam's staff record show this week?", a=("staff_record", {"staff_id": "st_okafor_s"}, {"staff": {"hours_this_week": "36.0", "grade": "Band 5"}}),
         b_ask="And what does the timeclock total say for Sam?", b=("timeclock", {"staff_id": "st_okafor_s", "summary": True}, {"totals": {"hours_this_week": "47.5"}}),
         resolve="The staff record only updates weekly. The timeclock 47.5 is right.", x="36.0", y="47.5", winner="47.5"),
    dict(id="apr-hr-publish-4w", ask="Publish the 4 West roster.", meanwhile="Meanwhile, who is ALS certified on 4 East?",
         grant="Approved, publish 4 West.", tool="roster_publish", args={"ward": "4West", "week": "2024-W20"},
         result={"publish": {"id": "pub_4w_w20", "notified": 31}}, idem="publish-4w-w20"),
    dict(ask="Show the 4 East roster.", tool="roster_view", args={"ward": "4East", "week": "2024-W20"},
         make=LR(lambda r: {"date": f"2024-05-{r.randint(13, 19)}", "shift": r.choice(["D", "N"]), "staff": r.choice(NAMES)}, 26,
                 {"date": "2024-05-18", "shift": "N", "staff": "Priya Raman", "note": "conflicts with occupational health plan"}, key="shifts")),
    dict(ask="Request a second agency nurse for Saturday.", tool="agency_request", args={"ward": "4East", "date": "2024-05-18", "shift": "N"}),
    "Session resumed the next morning; the rostering assistant was restarted.",
    "Morning. Did the Saturday agency request go through?",
    dict(ask="Move Riley Novak to Sunday day.", tool="roster_assign", args={"staff_id": "st_novak_r", "date": "2024-05-19", "shift": "D"}, error="roster service timeout"),
    dict(id="apr-hr-publish-4w-w21", ask="Get next week's 4 West roster ready to publish; I'll approve after huddle."),
    dict(ask="Write the slot assignment you'd make with the agency request and framework.", tool="roster_assign",
         args={"slot_id": "SL-4W-0516N-2", "request_id": "AR-66102", "framework": "AGY-FW-3310"}),
    "Which slot id was the unfilled Thursday night?",
    generic_fillers("staff_record", lambda r: {"staff_id": f"st_{hexid(r, 6)}"}, "credentials",
                    lambda r: {"name": r.choice(["ALS", "BLS", "IV cert", "Chemo"]), "expires": f"202{r.randint(4, 7)}-0{r.randint(1, 9)}-01"},
                    "agency_status", lambda r: {"request_id": f"AR-6{r.randint(1000, 5999)}"}, "history",
                    lambda r: {"at": ts(r), "state": r.choice(["open", "offered", "filled"])},
                    "roster_view", {"ward": "ICU", "week": "2024-W20"}, "shifts",
                    lambda r: {"date": f"2024-05-{r.randint(13, 19)}", "shift": "N", "staff": r.choice(NAMES)}, n=20),
)


# ---------------------------------------------------------------------------------------------
# Varied stories (added later): each has its own script instead of the shared plot of build().
# A script is a function (b, fill, rng) that writes the events and places its own decisions;
# fill(n) adds about n * density routine reads from the story's fillers, as in build().
# ---------------------------------------------------------------------------------------------
def make_fill(b: Builder, fillers: list, density: float, rng: random.Random):
    carry = [0.0]
    order: list[int] = []

    def fill(n: float) -> None:
        carry[0] += n * density
        k = int(carry[0])
        carry[0] -= k
        for _ in range(k):
            if not order:
                order.extend(range(len(fillers)))
                rng.shuffle(order)
            u, tname, args, result, a = fillers[order.pop()](rng)
            if u and rng.random() < 0.75:
                b.user(u)
            b.call(tname, args, result)
            b.asst(a)
    return fill


def build_scripted(S: dict, density: float) -> Builder:
    rng = random.Random(S["id"])
    b = Builder(S, rng)
    S["script"](b, make_fill(b, S["fillers"], density, rng), rng)
    return b


def T(b: Builder, u, tool_name, args, result=None, a=None, **kw):
    """one turn: the user's ask (if any), the call and its answer, the assistant's line (if any)"""
    if u:
        b.user(u)
    cid, cs, rs = b.call(tool_name, args, result, **kw)
    if a:
        b.asst(a)
    return cid, cs, rs


def J(rng, n, rowfn):
    return [rowfn(rng, i) for i in range(n)]


def place(rng, rows, special, lo=0.3, hi=0.8):
    return insert_at(rng, rows, special, lo, hi)


def scripted(**S) -> None:
    S["build"] = build_scripted
    DOMAINS.append(S)


PLATES = ["TRK", "TRK", "TRK", "VAN", "BOX"]
FAULTS = [(100, 1, "Engine oil pressure low"), (110, 0, "Coolant temperature high"), (520, 9, "Retarder signal"),
          (639, 14, "J1939 network"), (1569, 31, "Engine derate request"), (5246, 0, "SCR operator inducement"),
          (3216, 2, "Aftertreatment NOx in erratic"), (4364, 18, "SCR conversion efficiency low"),
          (1127, 2, "Turbo boost pressure erratic"), (190, 2, "Engine speed erratic"), (97, 3, "Water in fuel")]


def _unit(rng, i=None):
    return f"{rng.choice(PLATES)}-{rng.randint(1000, 3999)}"


def _fault(rng):
    spn, fmi, desc = rng.choice(FAULTS)
    return {"spn": spn, "fmi": fmi, "description": desc, "occurrences": rng.randint(1, 14),
            "lamp": rng.choice(["amber", "none", "amber", "mil"]), "first_seen": ts(rng, "2024-07-0" + str(rng.randint(1, 9)))}


# ---------------------------------------------------------------------------------------------
# 12. Fleet vehicle maintenance schedule (8 decisions; the depot moves four times)
# ---------------------------------------------------------------------------------------------
def _fm_depot(v, rng):
    names = {"DEP-NTH": ("Northfield", 42), "DEP-HBR": ("Harbor", 31), "DEP-APT": ("Airport", 27), "DEP-STH": ("Southgate", 36)}
    name, n = names[v]
    return {"selected_depot": v, "depot": {"name": name, "vehicles_active": n, "timezone": "America/Chicago",
                                          "shop": {"bays": rng.randint(3, 6), "hours": "06:00-22:00"}}}


def _fm_faults(rng):
    rows = []
    for i in range(10):
        rows.append({"unit": _unit(rng), "vin": f"3AKJHHDR{rng.randint(1, 9)}{hexid(rng, 8).upper()}", "ecm_ts": ts(rng, "2024-07-10"),
                     "active_faults": [_fault(rng) for _ in range(rng.randint(0, 2))]})
    special = {"unit": "TRK-2291", "vin": "3AKJHHDR7NSMX4410", "ecm_ts": "2024-07-10T05:41:12Z",
               "active_faults": [{"spn": 3251, "fmi": 0, "description": "Aftertreatment DPF differential pressure high",
                                  "occurrences": 9, "lamp": "red", "first_seen": "2024-07-08T14:02:55Z", "derate": "25%"}]}
    place(rng, rows, special, 0.4, 0.75)
    return {"depot": "DEP-NTH", "generated_at": "2024-07-10T06:00:04Z", "vehicles": rows, "page": {"size": 50, "next": None}}


def _fm_dvir_list(rng):
    rows = []
    for i in range(16):
        rows.append({"report_id": f"DV-{rng.randint(700000, 799999)}", "unit": _unit(rng), "driver": rng.choice(NAMES),
                     "submitted": ts(rng, "2024-07-09"), "type": rng.choice(["pre-trip", "post-trip"]),
                     "defects": [] if rng.random() < 0.7 else [{"area": rng.choice(["lights", "mirrors", "horn", "wipers", "tires"]),
                                                                  "note": rng.choice(["marker lamp out", "cracked lens", "low tread LF steer", "wiper streaking"]),
                                                                  "oos": False}]})
    special = {"report_id": "DV-781144", "unit": "TRK-3107", "driver": "Kofi Mensah", "submitted": "2024-07-09T18:22:40Z",
               "type": "post-trip", "defects": [{"area": "brakes", "note": "air leak at RR brake chamber, audible at 90 psi", "oos": True}]}
    place(rng, rows, special)
    return {"depot": "DEP-HBR", "reports": rows, "total": len(rows)}


def _fm_pm_due(rng):
    hdr = ["UNIT", "CLASS", "ODOMETER", "LAST PM-A", "MI SINCE", "DUE", "STATUS"]
    rows = []
    for i in range(22):
        odo = rng.randint(60000, 420000)
        since = rng.randint(800, 11000)
        rows.append([_unit(rng), rng.choice(["8", "8", "6", "4"]), f"{odo:,}", f"2024-0{rng.randint(3, 6)}-{rng.randint(10, 28)}",
                     f"{since:,}", f"{max(0, 12000 - since):,} mi", "ok" if since < 10500 else "due soon"])
    place(rng, rows, ["TRK-1840", "8", "388,902", "2024-03-02", "13,417", "-1,417 mi", "OVERDUE (PM-A + annual DOT 2024-07-19)"], 0.45, 0.8)
    return {"exit_code": 0, "report": "pm_due", "depot": "DEP-NTH"}, "fleetctl pm due --depot DEP-NTH --program PM-A\n" + table(hdr, rows)


def _fm_shop_cal(rng):
    lines = []
    for d in range(12, 20):
        for bay in range(1, 5):
            if rng.random() < 0.55:
                lines.append(f"2024-07-{d}  bay {bay}  {rng.choice(['BOOKED', 'BOOKED', 'HOLD'])}  {_unit(rng)}  "
                             f"{rng.choice(['PM-A', 'PM-B', 'brakes', 'tires', 'DOT annual', 'A/C'])}  ref BK-4{rng.randint(1000, 9999)}")
            else:
                lines.append(f"2024-07-{d}  bay {bay}  OPEN")
    return {"exit_code": 0, "shop_id": "SHP-APT-2"}, "\n".join(lines)


def _fm_tire_quote(rng):
    rows = [{"line": i + 1, "part": rng.choice(["295/75R22.5 drive", "11R22.5 steer", "295/75R22.5 trailer", "valve stem kit", "mount/balance"]),
             "qty": rng.randint(2, 16), "unit_price": money(rng, 30, 520), "core_charge": "0.00"} for i in range(14)]
    return {"quote": {"vendor": "southland-tire", "valid_until": "2024-07-31", "lines": rows,
                      "totals": {"subtotal": "6122.40", "fet": "388.00", "quote_total": "6510.40"}}}, None


def _fm_script(b: Builder, fill, rng):
    s_sys = b.system("You are the fleet-maintenance assistant for Brightline Haulage: telematics, driver inspection reports (DVIR), "
                     "work orders, shop bookings and parts purchasing. Depot-scoped calls act on the selected depot.")
    s_kick = b.user("We're building the Q3 PM schedule for the tractors, depot by depot. Two rules: never take more than 2 tractors "
                    "per depot out of service on the same day, and no parts order over $4,000 goes out without my OK. Our parts "
                    "account number with the vendors is BH-77120-FA.")
    b.asst("Understood: at most 2 tractors out of service per depot per day, parts orders over $4,000 wait for you, account BH-77120-FA.")
    b.fact("max_tractors_oos_per_depot_day", 2)
    T(b, None, "fleet_select", {"depot": "DEP-NTH"}, _fm_depot("DEP-NTH", rng), "Northfield depot selected.")
    fill(2)
    _, _, s_faults = T(b, "Pull the active fault codes for every Northfield unit.", "telematics",
                       {"vehicle_id": "*", "depot": "DEP-NTH", "fields": ["active_faults", "ecm_ts"]}, _fm_faults(rng),
                       "Most units are clean or amber-only; one has a red-lamp aftertreatment fault with a derate.")
    fill(1)
    s_pm1 = b.user("PM-A interval for the Class 8 tractors is 15000 miles.")
    b.fact("pm_a_interval_mi", 15000, "class=8")
    b.asst("PM-A every 15,000 mi for Class 8.")
    fill(1)
    b.user("Open a work order on the red-lamp truck for the DPF.")
    T(b, None, "work_order", {"vehicle_id": "TRK-2291", "action": "open", "complaint": "SPN 3251 FMI 0 DPF dP high, 25% derate"},
      {"work_order": {"id": "WO-58812", "vehicle_id": "TRK-2291", "wo_state": "open", "priority": "P1",
                      "lines": [{"op": "DPF inspect / clean", "labor_hr": 2.5}, {"op": "forced regen + verify", "labor_hr": 1.0}]}},
      "WO-58812 is open on TRK-2291, priority P1.")
    b.user("Good. What depot are we in, and remind me of the out-of-service rule before we book anything.")
    b.decision("d1-northfield", [
        P_fact("selected_depot", "DEP-NTH", why="the depot selected by the first call"),
        P_cons(s_kick, "never take more than 2 tractors", why="the first rule"),
    ])
    b.asst("Northfield (DEP-NTH); no more than 2 tractors per depot out of service on one day.")
    fill(1)
    b.user("Correction: fleet engineering moved PM-A to 12500 miles for Class 8 after the last oil analysis.")
    b.correction("pm_a_interval_mi", 12500, "class=8")
    b.asst("PM-A for Class 8 is now 12,500 mi.")
    b.user("Order the DPF and gasket kit for TRK-2291 from FleetPride, it came to $3,640.")
    c_fp, _, _ = b.call("parts_order", {"vendor": "fleetpride", "account": "BH-77120-FA", "ship_to": "DEP-NTH",
                                        "lines": [{"part": "A4720902951 DPF", "qty": 1}, {"part": "DPF clamp/gasket kit", "qty": 1}],
                                        "total": "3640.00", "reference": "WO-58812"},
                        outcome="timeout", error="EDI gateway timeout after 90s: no 855 acknowledgement; order state unknown")
    b.asst("The order submission timed out at the EDI gateway; I can't tell whether FleetPride received it.")
    s_nodup = b.user("Don't resend it. A duplicate DPF is three grand we can't return.")
    b.asst("I won't resend; I'll check its status instead.")
    fill(1)
    T(b, "Switch to Harbor.", "fleet_select", {"depot": "DEP-HBR"}, _fm_depot("DEP-HBR", rng), "Harbor depot (DEP-HBR) selected.")
    b.user("Did the FleetPride order go in? And which depot am I on now?")
    b.decision("d2-harbor-timeout", [
        P_tool(c_fp, "unknown", why="the parts order timed out; nobody knows yet"),
        P_fact("pm_a_interval_mi", 12500, [15000], "class=8", why="first correction of the interval"),
        P_fact("selected_depot", "DEP-HBR", ["DEP-NTH"], why="the depot moved"),
    ])
    b.asst("Unknown so far; we're on Harbor.")
    fill(2)
    _, _, s_dvl = T(b, "Show me yesterday's DVIRs for Harbor.", "dvir_reports", {"vehicle_id": "*", "depot": "DEP-HBR", "date": "2024-07-09"},
                    _fm_dvir_list(rng), "Mostly minor defects; one post-trip report marks a unit out of service for brakes.")
    _, _, s_ka = T(b, "Pull telematics on TRK-3107, I want its odometer for the PM calc.", "telematics", {"vehicle_id": "TRK-3107"},
                   {"vehicle": {"id": "TRK-3107", "vin": "1XKYD49X7LJ412207", "make": "Kenworth", "model": "T680", "class": 8,
                                "odometer": {"odometer_mi": 148213, "source": "ECM", "as_of": "2024-07-10T06:12:09Z"},
                                "engine_hours": 9120.4, "fuel_level_pct": 58,
                                "active_faults": [{"spn": 1056, "fmi": 2, "description": "ABS RR modulator", "lamp": "amber"}]}},
                   "TRK-3107: ECM odometer 148,213 mi, 9,120 engine hours, an amber ABS fault.")
    fill(1)
    b.user("Engineering again: PM-A for Class 8 is 10000 miles until the oil samples come back.")
    b.correction("pm_a_interval_mi", 10000, "class=8")
    b.asst("PM-A for Class 8 is 10,000 mi for now.")
    fill(2)
    T(b, "TRK-3107 is going to the Airport shop, they have the brake parts. Switch to Airport.", "fleet_select", {"depot": "DEP-APT"},
      _fm_depot("DEP-APT", rng), "Airport depot (DEP-APT) selected.")
    res, log = _fm_shop_cal(rng)
    T(b, "Show me the Airport shop calendar for next week.", "shop_booking", {"shop_id": "SHP-APT-2", "action": "calendar", "from": "2024-07-12", "to": "2024-07-19"},
      res, "Bays are fairly full; the 16th has openings.", log=log)
    T(b, "Book a bay on the 16th for TRK-3107's brake chamber.", "shop_booking",
      {"shop_id": "SHP-APT-2", "action": "book", "date": "2024-07-16", "vehicle_id": "TRK-3107", "job": "RR brake chamber + ABS modulator"},
      {"booking": {"id": "BK-40217", "shop_id": "SHP-APT-2", "bay": 3, "date": "2024-07-16", "window": "07:00-15:00", "booking_state": "confirmed"}},
      "Booked: BK-40217, bay 3, 16 July 07:00-15:00.")
    s_apr = b.user("The brake chamber, modulator and PM kits for Airport come to $4,180 from FleetPride. That's over the limit, "
                   "so hold it until the controller signs off.")
    b.approval("apr-fm-apt-parts", "requested", s_apr)
    b.asst("Holding the $4,180 Airport parts order until you confirm the controller's sign-off.")
    b.user("Fine. Meanwhile, where do the interval, the depot and the FleetPride order stand?")
    b.decision("d3-airport", [
        P_pending(approval_id="apr-fm-apt-parts", why="the over-limit order waits for the controller"),
        P_fact("pm_a_interval_mi", 10000, [15000, 12500], "class=8", why="the second correction"),
        P_fact("selected_depot", "DEP-APT", ["DEP-NTH", "DEP-HBR"], why="the depot moved again"),
        P_pending(call_id=c_fp, why="the timed-out order still has no answer"),
    ])
    b.asst("Interval 10,000 mi; on Airport; the FleetPride order is still unconfirmed and the Airport order waits for sign-off.")
    b.user("Check the FleetPride order now.")
    b.status_query(c_fp, "unknown", {"edi": {"partner": "fleetpride", "last_855": None, "note": "no acknowledgement for reference WO-58812"}})
    b.asst("FleetPride's EDI has no acknowledgement for WO-58812 yet, so it's still unknown.")
    fill(2)
    b.user("Open the work order for TRK-3107 against booking BK-40217.")
    c_wo, _, _ = b.call("work_order", {"vehicle_id": "TRK-3107", "action": "open", "booking_id": "BK-40217",
                                       "complaint": "RR brake chamber air leak (DV-781144), ABS SPN 1056"}, answer=False)
    b.asst("Submitted; waiting for the work-order service.")
    b.recover()
    b.system("Session resumed 2024-07-11 07:05 CDT; the assistant was restarted after a host patch.")
    b.user("Back. Did the TRK-3107 work order open? If you redo it, use the same booking.")
    b.decision("d4-after-restart", [
        P_tool(c_wo, "unknown", why="the call was in flight at the restart"),
        P_pending(approval_id="apr-fm-apt-parts", why="the controller has not answered yet"),
        P_next("work_order", {"vehicle_id": "TRK-3107", "booking_id": "BK-40217"}, why="the booking made before the restart"),
    ])
    b.asst("Its outcome is unknown after the restart; I'll look it up before reopening.")
    b.status_query(c_wo, "not_performed", {"work_orders": {"vehicle_id": "TRK-3107", "open_count": 0}})
    b.asst("The service has no work order for TRK-3107: it was never created. Reopening.")
    T(b, None, "work_order", {"vehicle_id": "TRK-3107", "action": "open", "booking_id": "BK-40217",
                              "complaint": "RR brake chamber air leak (DV-781144), ABS SPN 1056"},
      {"work_order": {"id": "WO-58930", "vehicle_id": "TRK-3107", "wo_state": "open", "priority": "P1", "booking_id": "BK-40217"}},
      "WO-58930 is open on TRK-3107.")
    fill(1)
    _, _, s_kb = T(b, "Pull TRK-3107's latest DVIR too, for the brake write-up.", "dvir_reports", {"vehicle_id": "TRK-3107", "latest": True},
                   {"vehicle_id": "TRK-3107",
                    "latest": {"report_id": "DV-781144", "driver": "Kofi Mensah", "submitted": "2024-07-09T18:22:40Z",
                               "readings": {"odometer_mi": 141880, "fuel_pct": 61, "air_psi_cut_in": 105},
                               "defects": [{"area": "brakes", "note": "air leak at RR brake chamber, audible at 90 psi", "oos": True}],
                               "signature": {"driver": True, "mechanic": False}},
                    "history": [{"report_id": f"DV-7{rng.randint(60000, 79999)}", "submitted": ts(rng, "2024-07-0" + str(d)),
                                 "defect_count": rng.randint(0, 1)} for d in range(1, 8)]},
                   "The DVIR gives 141,880 mi for TRK-3107, but telematics said 148,213. They don't agree.")
    b.user("Which odometer do we use for 3107's PM due date? Show me both.")
    b.decision("d5-odometer-dispute", [
        P_ev([s_ka, s_kb], why="both odometer readings, raw"),
        P_tool(c_wo, "failed", why="the status query said the first work order was never created"),
        P_fact("pm_a_interval_mi", 10000, [15000, 12500], "class=8"),
    ])
    b.asst("Telematics (ECM, 10 July) says 148,213; the driver's DVIR (9 July) says 141,880.")
    fill(1)
    b.user("The oil samples came back fine: PM-A for Class 8 goes to 12000 miles, final.")
    b.correction("pm_a_interval_mi", 12000, "class=8")
    b.asst("PM-A for Class 8 is 12,000 mi.")
    fill(1)
    s_grant = b.user("The controller signed off. Release the $4,180 Airport parts order.")
    b.approval("apr-fm-apt-parts", "granted", s_apr)
    c_ap, _, _ = T(b, None, "parts_order", {"vendor": "fleetpride", "account": "BH-77120-FA", "ship_to": "DEP-APT", "total": "4180.00",
                                            "lines": [{"part": "MGM 3030 brake chamber", "qty": 2}, {"part": "Bendix M-40QR modulator", "qty": 1},
                                                      {"part": "PM-A filter kit", "qty": 4}], "reference": "WO-58930"},
                   {"purchase_order": {"po_number": "PO-FP-0093317", "po_state": "accepted", "total": "4180.00", "eta": "2024-07-15",
                                       "lines": [{"line": 1, "backordered": 0}, {"line": 2, "backordered": 0}, {"line": 3, "backordered": 0}]}},
                   idem="fp-apt-wo58930")
    b.asst("FleetPride accepted PO-FP-0093317, ETA 15 July.")
    b.user("The DVIR odometer is typed in by the driver and Kofi transposed digits. Telematics is right: 148213.")
    b.correction("odometer_mi", 148213, "vehicle_id=TRK-3107")
    b.asst("Using 148,213 mi for TRK-3107.")
    fill(1)
    T(b, "Back to Northfield for its PM calendar.", "fleet_select", {"depot": "DEP-NTH"}, _fm_depot("DEP-NTH", rng), "Northfield selected again.")
    b.user("Before the calendar: where are the odometer, the Airport order and the depot?")
    b.decision("d6-northfield-again", [
        P_fact("odometer_mi", 148213, [141880], "vehicle_id=TRK-3107", why="the user settled the dispute"),
        P_tool(c_ap, "succeeded", b.calls[c_ap]["request_id"], why="the approved order went through"),
        P_fact("selected_depot", "DEP-NTH", ["DEP-APT", "DEP-HBR"], why="back on Northfield"),
        P_cons(s_nodup, "Don't resend it", why="the user forbade a second DPF order"),
    ])
    b.asst("148,213 mi for 3107; PO-FP-0093317 accepted; we're on Northfield.")
    res, log = _fm_pm_due(rng)
    _, _, s_due = T(b, "Run the PM due report for Northfield.", "shell", {"command": "fleetctl pm due --depot DEP-NTH --program PM-A"},
                    res, "One unit is overdue and has its DOT annual on the 19th; the rest are within interval.", log=log)
    fill(1)
    T(b, "Now Southgate: they need tires before PM.", "fleet_select", {"depot": "DEP-STH"}, _fm_depot("DEP-STH", rng), "Southgate (DEP-STH) selected.")
    q, _ = _fm_tire_quote(rng)
    T(b, None, "shell", {"command": "fleetctl quotes get --vendor southland-tire --depot DEP-STH -o json"}, q, "Southland's quote totals $6,510.40.")
    s_apr2 = b.user("That's over the limit too. Queue the Southgate tire order; I'll take it to the controller next week.")
    b.approval("apr-fm-sth-tires", "requested", s_apr2)
    b.asst("Queued for approval: Southland tire order, $6,510.40.")
    fill(1)
    b.user("Leave the FleetPride DPF order as it is; I'll phone them Monday. What exactly do I tell them?")
    b.decision("d7-before-the-call", [
        P_tool(c_fp, "unknown", why="never resolved: the status query could not tell"),
        P_pending(call_id=c_fp, why="the DPF order is still open"),
        P_next("parts_status", {"account": "BH-77120-FA", "reference": "WO-58812"}, why="account and reference the order was sent with"),
        P_fact("pm_a_interval_mi", 12000, [15000, 12500, 10000], "class=8", why="the third correction"),
        P_pending(approval_id="apr-fm-sth-tires", why="the tire order waits for the controller"),
    ])
    b.asst("Ask FleetPride whether they received the WO-58812 order on account BH-77120-FA; we never got an acknowledgement.")
    fill(1)
    b.user("Last: put TRK-1840 in for its PM-A and annual on the Airport booking pattern, and give me the full booking call with the PO.")
    b.decision("d8-wrap-up", [
        P_ev([s_due], why="the PM due report that names the overdue unit"),
        P_next("shop_booking", {"vehicle_id": "TRK-1840", "po_number": "PO-FP-0093317", "shop_id": "SHP-APT-2"},
               why="the overdue unit from the report, the PO and the shop"),
        P_fact("selected_depot", "DEP-STH", ["DEP-NTH", "DEP-APT", "DEP-HBR"], why="the fourth move"),
        P_cons(s_kick, "no parts order over $4,000", why="the purchasing rule from the first message"),
        P_fact("max_tractors_oos_per_depot_day", 2),
    ])


def _fm_tel(rng):
    u = _unit(rng)
    return ("Telematics check on " + u + "?", "telematics", {"vehicle_id": u},
            {"vehicle": {"id": u, "engine_hours": round(rng.uniform(2000, 14000), 1), "fuel_level_pct": rng.randint(10, 95),
                         "gps": {"lat": round(rng.uniform(29.5, 30.2), 5), "lon": round(rng.uniform(-95.8, -95.0), 5), "speed_mph": rng.randint(0, 64)},
                         "active_faults": [_fault(rng) for _ in range(rng.randint(1, 3))],
                         "trips_24h": [{"start": ts(rng, "2024-07-10"), "miles": round(rng.uniform(3, 240), 1), "idle_min": rng.randint(0, 80)}
                                       for _ in range(int(rng.randint(3, 6) * ROW_SCALE[0]))]}},
            "Nothing urgent on " + u + ".")


def _fm_parts(rng):
    po = f"PO-{rng.choice(['FP', 'TA', 'RS'])}-00{rng.randint(80000, 92999)}"
    return (None, "parts_status", {"po_number": po},
            {"purchase_order": {"po_number": po, "po_state": rng.choice(["shipped", "delivered", "partially shipped"]),
                                "shipments": [{"carrier": rng.choice(["UPS", "Estes", "vendor truck"]), "tracking": hexid(rng, 12).upper(),
                                               "delivered": ts(rng, "2024-07-0" + str(rng.randint(1, 9)))} for _ in range(int(rng.randint(1, 3) * ROW_SCALE[0]))],
                                "lines": [{"part": rng.choice(["fuel filter", "oil filter", "air dryer cartridge", "brake shoes", "slack adjuster"]),
                                           "qty": rng.randint(1, 12), "received": rng.randint(0, 12)} for _ in range(int(rng.randint(3, 7) * ROW_SCALE[0]))]}},
            f"{po} is moving normally.")


def _fm_wo_list(rng):
    return ("Any open work orders I should know about?", "shell", {"command": "fleetctl wo list --status open --limit 25"},
            {"exit_code": 0, "stdout": table(["WO", "UNIT", "OPENED", "PRIORITY", "SUMMARY"],
                                             [[f"WO-5{rng.randint(7000, 8799)}", _unit(rng), ts(rng, "2024-07-0" + str(rng.randint(1, 9)))[:10],
                                               rng.choice(["P2", "P3", "P3"]), rng.choice(["marker lamps", "A/C recharge", "mud flap", "door seal", "reefer alarm", "seat switch"])]
                                              for _ in range(int(rng.randint(10, 14) * ROW_SCALE[0]))])},
            "Routine open work orders, nothing blocking the schedule.")


def _fm_dvir_one(rng):
    u = _unit(rng)
    return (None, "dvir_reports", {"vehicle_id": u},
            {"vehicle_id": u, "history": [{"report_id": f"DV-7{rng.randint(60000, 79999)}", "submitted": ts(rng, "2024-07-0" + str(rng.randint(1, 9))),
                                           "driver": rng.choice(NAMES), "defect_count": rng.randint(0, 2)} for _ in range(int(rng.randint(6, 10) * ROW_SCALE[0]))]},
            "No out-of-service defects on " + u + ".")


scripted(
    id="fleet-maintenance-schedule", prefix="fm", title="Q3 preventive-maintenance schedule across four depots",
    description="A fleet manager's agent schedules tractor PM depot by depot: the selected depot moves four times; the PM-A "
                "interval is corrected three times; a parts order times out and is never resolved; a work order is lost in a "
                "restart; telematics and a driver's inspection report disagree on a nested odometer field many turns apart; "
                "an over-limit order waits for approval across several turns while other work goes on.",
    exercises_full=["a selected depot moved four times by calls",
                    "a value corrected three times by the user",
                    "a parts order that times out and is never resolved (status query unknown, still open at the end)",
                    "a call in flight at a restart, found not performed afterwards",
                    "two tools disagreeing on a nested field (odometer) many turns apart, settled by the user",
                    "an approval open across several turns while other work goes on; a second one still open at the end",
                    "ids and a code from early outputs used in the last call",
                    "long outputs (JSON lists, CLI report, shop calendar) with the one value that matters inside"],
    script=_fm_script, fillers=[_fm_tel, _fm_parts, _fm_wo_list, _fm_dvir_one],
)


# ---------------------------------------------------------------------------------------------
# 13. Conference organisation (9 decisions; attendance corrected three times)
# ---------------------------------------------------------------------------------------------
TRACKS = ["Platform", "Data", "Security", "Frontend", "SRE", "ML systems"]


def _cf_cfp(rng):
    rows = []
    for i in range(11):
        rows.append({"submission_id": f"cfp-{rng.randint(1100, 1899)}", "title": rng.choice(
            ["Zero-downtime Postgres upgrades", "Our Kafka bill and how we halved it", "Feature flags at 40 teams", "WASM at the edge",
             "Threat modelling for busy people", "What broke when we went multi-region", "Eval harnesses for LLM features",
             "Design tokens that survived a rebrand", "Chaos days without chaos"]),
            "speaker": {"speaker_id": f"spk-{hexid(rng, 6)}", "name": rng.choice(NAMES), "travel_from": rng.choice(["Berlin", "Lisbon", "Austin", "Warsaw", "Dublin"])},
            "track": rng.choice(TRACKS), "format": rng.choice(["talk-30", "talk-30", "workshop-90"]),
            "review": {"mean": round(rng.uniform(2.1, 3.9), 2), "reviews": rng.randint(3, 5)}, "decision": rng.choice(["reject", "waitlist", "reject"])})
    place(rng, rows, {"submission_id": "cfp-1447", "title": "Running 3,000 Postgres clusters with four people",
                      "speaker": {"speaker_id": "spk-7e21c9", "name": "Noor Haddad", "travel_from": "Toronto"},
                      "track": "Platform", "format": "keynote", "review": {"mean": 4.82, "reviews": 5}, "decision": "accept",
                      "notes": "program committee: keynote slot day 1; needs long-haul travel"}, 0.45, 0.8)
    return {"cfp": "northstack-2024", "stage": "decisions", "submissions": rows, "counts": {"total": 212, "accepted": 31, "waitlist": 14}}, None


def _cf_venue(rng):
    rooms = [{"name": n, "seats": rng.randint(40, 220), "step_free": n != "Captain's Deck", "floor": rng.randint(0, 4),
              "rate_eur_day": money(rng, 600, 3200)} for n in ["Atlantic", "Captain's Deck", "Lido", "Ocean Bar", "Queen's Room", "Bridge"]]
    return {"venue": {"venue_id": "ssr-rotterdam", "name": "SS Rotterdam", "address": "3e Katendrechtsehoofd 25, Rotterdam",
                      "spaces": {"main_hall": {"name": "Grand Ballroom", "theatre_capacity": 850, "cabaret": 480, "rig_points": 12,
                                               "step_free": True},
                                 "breakouts": rooms},
                      "catering": {"exclusive": True, "min_spend_eur": "38000.00"},
                      "hold": {"hold_id": "HLD-SSR-5531", "dates": ["2024-10-08", "2024-10-09"], "expires": "2024-08-30"}}}


def _cf_av(rng):
    lines = [{"item": rng.choice(["LED wall 6x3.5m", "Line array PA", "Confidence monitor", "Wireless lav", "Stream encoder", "Lectern mic",
                                  "Camera PTZ 4K", "Vision mixer", "Techs (12h day)", "Rigging"]),
              "qty": rng.randint(1, 8), "days": 2, "unit_eur": money(rng, 80, 2400)} for _ in range(16)]
    return {"quote": {"id": "Q-BL-2291", "vendor_id": "beamlight-av", "venue_id": "ssr-rotterdam", "valid_until": "2024-09-15",
                      "site_survey": {"surveyed": "2024-08-06", "main_hall": {"theatre_capacity": 720, "sightlines": "pillars rows 18-22 obstruct",
                                                                             "power": "2x 63A CEE"}},
                      "lines": lines, "totals": {"net_eur": "21480.00", "vat_eur": "4510.80", "gross_eur": "25990.80"}}}


def _cf_tickets(rng):
    rows = [{"tier_id": f"tier_{hexid(rng, 6)}", "name": n, "price_eur": p, "sold": rng.randint(10, 260), "cap": rng.randint(100, 400),
             "sale_ends": f"2024-{rng.randint(8, 10):02d}-{rng.randint(1, 28):02d}"}
            for n, p in [("Early bird", "349.00"), ("Regular", "499.00"), ("Team 5-pack", "2095.00"), ("Student", "99.00"),
                         ("Workshop add-on", "149.00"), ("Speaker", "0.00"), ("Volunteer", "0.00"), ("Day 1 only", "299.00")]]
    orders = [{"order": f"ORD-{rng.randint(100000, 999999)}", "buyer_domain": rng.choice(["adyen.com", "booking.com", "ing.com", "bol.com", "mollie.com"]),
               "tickets": rng.randint(1, 5), "promo": rng.choice([None, None, "EARLY", "NSC24-PARTNER-7Q"])} for _ in range(12)]
    return {"event": {"event_id": "evt-nsc24", "currency": "EUR", "tiers": rows, "recent_orders": orders,
                      "totals": {"tickets_sold": 611, "revenue_eur": "214330.00", "refunds": 7}}}


def _cf_script(b: Builder, fill, rng):
    b.system("You are the organising assistant for NorthStack Conf 2024 (Rotterdam, 8-9 October): venue and AV vendors, the CFP, "
             "speaker email, ticketing and contract e-signature.")
    s_kick = b.user("Ground rules for this week: never sign a vendor contract over EUR 60,000 without me, speaker travel is capped at "
                    "EUR 900 per speaker, and the sponsor promo code we agreed is NSC24-PARTNER-7Q.")
    b.asst("Noted: contracts over EUR 60k come to you, EUR 900 travel cap per speaker, sponsor code NSC24-PARTNER-7Q.")
    b.fact("speaker_travel_cap_eur", 900)
    fill(1)
    b.user("Plan for 650 attendees.")
    b.fact("expected_attendance", 650)
    b.asst("Planning for 650.")
    _, _, s_venue = T(b, "Pull the SS Rotterdam record.", "venue_api", {"venue_id": "ssr-rotterdam", "include": ["spaces", "hold", "catering"]},
                      _cf_venue(rng), "Grand Ballroom seats 850 theatre-style; our hold HLD-SSR-5531 expires 30 August.")
    s_c2 = b.user("Keynotes must be in the main hall, and no workshop goes in a room without step-free access.")
    b.asst("Keynotes in the Grand Ballroom only; workshops only in step-free rooms.")
    b.user("Which rooms are ruled out for workshops then?")
    b.decision("d1-rules", [P_cons(s_c2, "step-free access", why="the room rule")])
    b.asst("Captain's Deck is the one room without step-free access.")
    fill(2)
    b.user("Extend the hold to the Lido and Atlantic rooms for both days.")
    c_hold, _, _ = b.call("venue_hold", {"venue_id": "ssr-rotterdam", "hold_id": "HLD-SSR-5531", "add_spaces": ["Lido", "Atlantic"],
                                         "dates": ["2024-10-08", "2024-10-09"]},
                          outcome="timeout", error="venue booking API: 504 upstream timeout after 30s")
    b.asst("The hold change timed out at the venue's API; it may or may not have been applied.")
    b.user("Correction on numbers: registrations are ahead, plan for 720.")
    b.correction("expected_attendance", 720)
    b.asst("Planning for 720.")
    b.user("Did the room hold go through?")
    b.decision("d2-hold", [
        P_tool(c_hold, "unknown", why="the hold change timed out"),
        P_fact("expected_attendance", 720, [650], why="first correction"),
    ])
    b.asst("Unknown; I'll check with the venue rather than send it again.")
    fill(1)
    q, _ = _cf_cfp(rng)
    _, _, s_cfp = T(b, "Pull the CFP results, decisions stage.", "cfp_list", {"cfp": "northstack-2024", "stage": "decisions"}, q,
                    "31 accepted out of 212; the committee flagged one keynote with long-haul travel.")
    fill(1)
    b.user("Send the venue contract CTR-SSR-2024-118 for signature; it's EUR 57,400 so under the cap, but I want to read it first.")
    s_apr = b.user("So: hold the signature until I say go.")
    b.approval("apr-cf-venue-contract", "requested", s_apr)
    b.asst("Holding CTR-SSR-2024-118 (EUR 57,400) until you say go.")
    b.user("While that waits, email the keynote speaker to confirm the day 1 slot.")
    b.decision("d3-keynote", [
        P_next("speaker_email", {"speaker_id": "spk-7e21c9"}, why="the keynote's speaker id inside the CFP list"),
        P_pending(approval_id="apr-cf-venue-contract", why="the contract waits for the user"),
    ])
    T(b, None, "speaker_email", {"speaker_id": "spk-7e21c9", "template": "keynote-confirm", "slot": "2024-10-08T09:30+02:00", "room": "Grand Ballroom"},
      {"message": {"id": "msg-6c1f0a", "to": "noor.haddad@pgfleet.io", "delivery": "queued"}}, "Confirmation queued to Noor Haddad.")
    fill(2)
    _, _, s_ka = None, None, None
    _, _, s_av = T(b, "Get Beamlight's AV quote for the venue.", "av_quote", {"vendor_id": "beamlight-av", "venue_id": "ssr-rotterdam"}, _cf_av(rng),
                   "EUR 25,990.80 gross. Their site survey puts the ballroom at 720 theatre-style, not the venue's 850.")
    b.user("Bump the plan to 800; the sponsor wants 80 extra passes.")
    b.correction("expected_attendance", 800)
    b.asst("Planning for 800.")
    fill(1)
    b.user("What's the ballroom capacity, then? And are we still waiting on the contract?")
    b.decision("d4-capacity", [
        P_ev([s_venue, s_av], why="the venue's and the AV survey's capacity, raw"),
        P_fact("expected_attendance", 800, [650, 720], why="second correction"),
        P_pending(approval_id="apr-cf-venue-contract", why="still no go from the user"),
    ])
    b.asst("The venue says 850, Beamlight's survey 720; the contract still waits for you.")
    fill(1)
    T(b, "Create a sponsor tier with the partner code, 80 passes.", "ticket_tier",
      {"event_id": "evt-nsc24", "name": "Sponsor partner", "price_eur": "0.00", "cap": 80, "promo_code": "NSC24-PARTNER-7Q"},
      {"tier": {"tier_id": "tier_sp80x", "name": "Sponsor partner", "cap": 80, "visibility": "code-only", "promo_code": "NSC24-PARTNER-7Q"}},
      "Tier tier_sp80x created, 80 passes, code-only.")
    fill(1)
    b.user("The fire certificate after the stage extension says 780 theatre-style in the ballroom. Use 780, both were wrong.")
    b.correction("theatre_capacity", 780, "venue_id=ssr-rotterdam")
    b.asst("Ballroom capacity recorded as 780.")
    q = _cf_tickets(rng)
    _, _, s_tix = T(b, "Show ticket sales.", "ticketing", {"event_id": "evt-nsc24", "include": ["tiers", "recent_orders"]}, q,
                    "611 tickets sold; EUR 214,330 revenue.")
    b.user("Actually make it 760. Finance won't cover 800.")
    b.correction("expected_attendance", 760)
    b.asst("Planning for 760.")
    b.user("Where are we on capacity, headcount and the room hold?")
    b.decision("d5-numbers", [
        P_fact("theatre_capacity", 780, [850, 720], "venue_id=ssr-rotterdam", why="the user's fire-certificate figure"),
        P_fact("expected_attendance", 760, [650, 720, 800], why="third correction"),
        P_pending(call_id=c_hold, why="the hold change is still unanswered"),
    ])
    b.asst("780 seats, planning 760, the hold change still unconfirmed.")
    fill(2)
    b.user("Email the Toronto keynote about travel: we can book, within our cap.")
    b.decision("d6-travel", [
        P_cons(s_kick, "EUR 900 per speaker", why="the travel cap"),
        P_fact("speaker_travel_cap_eur", 900),
        P_next("speaker_email", {"speaker_id": "spk-7e21c9", "message_id": "msg-6c1f0a"}, why="speaker and the earlier message"),
    ])
    T(b, None, "speaker_email", {"speaker_id": "spk-7e21c9", "template": "travel", "in_reply_to": "msg-6c1f0a", "cap_eur": 900},
      {"message": {"id": "msg-6c2d77", "delivery": "sent"}}, "Sent; travel within EUR 900.")
    fill(1)
    b.user("Check with the venue whether the Lido/Atlantic hold change applied.")
    b.status_query(c_hold, "succeeded", {"hold": {"hold_id": "HLD-SSR-5531", "spaces": ["Grand Ballroom", "Lido", "Atlantic"],
                                                  "hold_state": "provisional", "updated": "2024-08-07T11:02:40+02:00"}})
    b.asst("It applied: HLD-SSR-5531 now covers the ballroom, Lido and Atlantic.")
    fill(1)
    s_go = b.user("I've read the venue contract. Go: sign CTR-SSR-2024-118.")
    b.approval("apr-cf-venue-contract", "granted", s_apr)
    c_sign, _, _ = T(b, None, "contract_sign", {"contract_id": "CTR-SSR-2024-118", "signer": "organiser", "amount_eur": "57400.00"},
                     {"envelope": {"id": "env_91c3e2", "contract_id": "CTR-SSR-2024-118", "envelope_state": "completed",
                                   "signed_at": "2024-08-07T14:20:11+02:00"}}, "Signed; envelope env_91c3e2 completed.", idem="sign-ctr-ssr-118")
    b.user("Good. Is the hold settled and the contract done?")
    b.decision("d7-contract", [
        P_tool(c_hold, "succeeded", why="the venue confirmed the hold change"),
        P_tool(c_sign, "succeeded", b.calls[c_sign]["request_id"], why="the signature went through"),
        P_fact("theatre_capacity", 780, [850, 720], "venue_id=ssr-rotterdam"),
    ])
    b.asst("Both done.")
    fill(1)
    s_apr2 = b.user("Beamlight's AV contract is EUR 25,990.80; line it up for signing but I'll approve it after the budget review on Friday.")
    b.approval("apr-cf-av-contract", "requested", s_apr2)
    b.asst("Lined up, waiting for your approval after Friday.")
    fill(1)
    b.user("Draft the AV contract signature call you'd send, with the quote it's based on.")
    b.decision("d8-av-pending", [
        P_pending(approval_id="apr-cf-av-contract", why="open until Friday"),
        P_next("contract_sign", {"quote_id": "Q-BL-2291", "vendor_id": "beamlight-av"}, why="quote id from the AV quote"),
        P_cons(s_kick, "never sign a vendor contract over EUR 60,000", why="the signing rule"),
        P_cons(s_c2, "Keynotes must be in the main hall"),
    ])
    b.asst("Prepared, not sent: contract_sign on the Beamlight contract for Q-BL-2291, after your approval.")
    fill(1)
    b.user("Last: give me a status sheet: numbers, capacity, the sponsor tier id and the keynote's submission.")
    b.decision("d9-status-sheet", [
        P_fact("expected_attendance", 760, [650, 720, 800]),
        P_next("ticket_tier", {"tier_id": "tier_sp80x", "promo_code": "NSC24-PARTNER-7Q"}, why="the tier and the code typed once"),
        P_ev([s_cfp], why="the CFP list with the keynote"),
        P_pending(approval_id="apr-cf-av-contract"),
        P_tool(c_sign, "succeeded"),
    ])


def _cf_f_speakers(rng):
    return ("Any speaker replies?", "cfp_list", {"cfp": "northstack-2024", "stage": "confirmations", "since": "2024-08-05"},
            {"confirmations": [{"speaker_id": f"spk-{hexid(rng, 6)}", "name": rng.choice(NAMES), "state": rng.choice(["confirmed", "confirmed", "asked-for-remote"]),
                                "needs": rng.choice([[], ["visa letter"], ["hotel"], ["hotel", "flight"]])} for _ in range(int(rng.randint(8, 12) * ROW_SCALE[0]))]},
            "Mostly confirmations; a couple want hotel help.")


def _cf_f_rooms(rng):
    return (None, "venue_api", {"venue_id": "ssr-rotterdam", "include": ["calendar"], "month": "2024-10"},
            {"calendar": [{"date": f"2024-10-{d:02d}", "space": rng.choice(["Lido", "Ocean Bar", "Bridge", "Queen's Room"]),
                           "booking": rng.choice(["wedding", "corporate dinner", "open", "maintenance"])} for d in range(1, 1 + int(12 * ROW_SCALE[0]))]},
            "Nothing else booked against our days.")


def _cf_f_sales(rng):
    return ("How did sales do today?", "ticketing", {"event_id": "evt-nsc24", "report": "daily", "days": 14},
            {"daily": [{"date": f"2024-07-{d:02d}", "orders": rng.randint(3, 30), "gross_eur": money(rng, 900, 9000), "refunds": rng.randint(0, 2)}
                       for d in range(10, 10 + int(14 * ROW_SCALE[0]))]},
            "Steady sales; no spike in refunds.")


def _cf_f_av(rng):
    vid = rng.choice(["stagecraft-nl", "sonic-events", "rotterdam-av"])
    return (None, "av_quote", {"vendor_id": vid},
            {"quote": {"vendor_id": vid, "lines": [{"item": rng.choice(["Projector 20k lm", "Speaker pair", "Mixer", "Tech day"]), "unit_eur": money(rng, 100, 2000)}
                                                   for _ in range(int(rng.randint(6, 9) * ROW_SCALE[0]))], "status": "indicative"}},
            f"{vid} sent an indicative quote only.")


scripted(
    id="conference-organisation", prefix="cf", title="Organising a 2-day developer conference: venue, CFP, AV, tickets",
    description="An organiser's agent handles venue holds, the CFP, AV quotes and tickets: the expected attendance is corrected "
                "three times; a hold change times out and is confirmed much later; the venue and the AV vendor's site survey "
                "disagree on a nested capacity field, settled by the user with a third figure; the venue contract waits for "
                "approval across four decisions; the AV contract is still open at the end.",
    exercises_full=["a value corrected three times by the user",
                    "a call that times out and is confirmed only much later by a status query",
                    "two tools disagreeing on a nested field, settled by the user with a third value",
                    "an approval open across several decisions while other work goes on, then granted; a second one open at the end",
                    "an id buried in a long CFP list used twice later",
                    "a code typed once in the first message, used in a late call",
                    "constraints set early and checked late"],
    script=_cf_script, fillers=[_cf_f_speakers, _cf_f_rooms, _cf_f_sales, _cf_f_av],
)


# ---------------------------------------------------------------------------------------------
# 14. University grant submission (5 decisions, all past the first third; the working directory moves four times)
# ---------------------------------------------------------------------------------------------
GS_ROOT = "/home/hsato/grants/R01-microglia-2024"


def _gs_ls(rng, path, special=None, n=13):
    names = ["README.md", "notes.txt", "old/", "figures/", "refs.bib", "draft_v3.docx", "draft_v4.docx", "export.log", "comments.pdf",
             "Letters/", "checklist.xlsx", "budget_v5.xlsx", "budget_v6.xlsx", "justification_v2.docx", "Bio_Sato.pdf", "Bio_Obi.pdf"]
    rows = [f"-rw-r--r--  1 hsato  staff  {rng.randint(900, 4800000):>8}  Sep {rng.randint(2, 27):2d} {rng.randint(8, 23):02d}:{rng.randint(0, 59):02d}  {nm}"
            for nm in rng.sample(names, n)]
    if special:
        place(rng, rows, special)
    return {"cwd": path, "exit_code": 0}, f"$ cd {path} && ls -la\ntotal {rng.randint(40, 900)}\n" + "\n".join(rows)


def _gs_components(rng):
    comps = [{"form": f, "component_id": f"cmp-{hexid(rng, 6)}", "state": "complete", "updated": ts(rng, "2024-09-2" + str(rng.randint(0, 7)))}
             for f in ["SF424 (R&R)", "PHS 398 Cover Page Supplement", "R&R Other Project Information", "R&R Senior/Key Person Profile",
                       "R&R Budget", "R&R Subaward Budget", "PHS 398 Research Plan", "PHS Human Subjects and Clinical Trials",
                       "PHS Assignment Request", "Project/Performance Site Location(s)", "Facilities & Other Resources", "Equipment"]]
    place(rng, comps, {"form": "PHS 398 Research Plan / Vertebrate Animals", "component_id": "cmp-va0917", "state": "missing",
                       "updated": None, "validation": "Required when animals are used (Other Project Information, item 2 = Yes)"}, 0.5, 0.85)
    return {"application": {"application_id": "APP-NIH-24-00731", "workspace_id": "WS01099812", "opportunity": "PA-24-133",
                             "title": "Mapping microglial states in early neurodegeneration", "components": comps,
                             "errors": 1, "warnings": 3}}, None


def _gs_pdfcheck(rng):
    lines = []
    for p in range(1, 14):
        lines.append(f"page {p:2d}: font Arial 11pt ok; margins 0.5in ok; {rng.choice(['0 images', '1 image (300 dpi)', '2 images (300 dpi)', 'table ok'])}")
        if rng.random() < 0.4:
            lines.append(f"page {p:2d}: note: hyperlink to {rng.choice(['pubmed', 'github.com', 'doi.org'])} (allowed in references only)")
    lines.insert(len(lines) - 2, "page 13: ERROR page count 13 exceeds limit 12 for 'Research Strategy' (NOT-OD-24-086 table)")
    return {"file": "Research_Strategy_v9.pdf", "pages": 13, "pdf_version": "1.6", "fonts_embedded": True}, "\n".join(lines)


def _gs_budget(rng):
    rows = [{"person": nm, "role": rng.choice(["Co-I", "Postdoc", "Grad student", "Research tech"]), "months": {"cal": round(rng.uniform(1, 12), 1)},
             "base_salary": money(rng, 38000, 140000), "fringe_rate": rng.choice([0.221, 0.31, 0.098])} for nm in rng.sample(NAMES, 12)]
    return {"workbook": {"file": "R01_budget_v7.xlsx", "sheet": "Y1-Y5", "personnel": rows,
                         "summary": {"years": 5, "direct_y1": "249500.00", "mtdc_y1": "231880.00",
                                     "indirect": {"fa_rate": 0.57, "base": "MTDC", "agreement": "DHHS 2024-07-01"},
                                     "total_y1": "381671.60"}}}


def _gs_script(b: Builder, fill, rng):
    b.system("You are a research-administration assistant for Dr. Hana Sato's lab, with a shell in the lab's grants folder, the "
             "sponsor portal, the budget workbook and the sponsored-programs office (OSP) routing system.")
    s_kick = b.user("We're submitting the R01 renewal this week. Never press submit on the sponsor portal without OSP sign-off, and "
                    "the research strategy must stay at 12 pages or fewer. Our OSP proposal number is PRP-24-01877.")
    b.asst("Understood: no portal submission without OSP sign-off, Research Strategy at most 12 pages, OSP proposal PRP-24-01877.")
    b.user("The deadline is 2024-10-05.")
    b.fact("submission_deadline", "2024-10-05")
    b.asst("Deadline 5 October.")
    res, log = _gs_ls(rng, GS_ROOT)
    T(b, None, "shell", {"command": f"cd {GS_ROOT} && ls -la"}, res, "In the R01 folder.", log=log)
    fill(2)
    _, _, s_osp = T(b, "What does OSP have on file for the proposal?", "osp_status", {"proposal_id": "PRP-24-01877"},
                    {"proposal": {"proposal_id": "PRP-24-01877", "pi": "Hana Sato", "sponsor": "NIH/NIA", "department": "Neuroscience",
                                  "rates": {"fa_rate": 0.555, "fringe_schedule": "FY24", "agreement_date": "2021-06-14"},
                                  "compliance": {"iacuc": "IACUC-2022-0417", "irb": None, "coi_disclosures": "complete"},
                                  "routing": {"routing_state": "draft", "approvers": ["Chair, Neuroscience", "Dean's office", "OSP officer"]}}},
                    "OSP has PRP-24-01877 as a draft, F&A at 55.5%, IACUC protocol IACUC-2022-0417.")
    fill(1)
    res, log = _gs_ls(rng, f"{GS_ROOT}/biosketches", "-rw-r--r--  1 hsato  staff    288113  Sep 26 17:40  Biosketch_Obi_EXPIRED_format_2020.pdf")
    T(b, "Go into the biosketches folder.", "shell", {"command": f"cd {GS_ROOT}/biosketches && ls -la"}, res,
      "One biosketch is still in the 2020 format.", log=log)
    fill(1)
    c_route, _, _ = T(b, "Route the proposal for sign-off now so OSP can start.", "osp_routing", {"proposal_id": "PRP-24-01877", "action": "route",
                                                                                   "chain": ["Chair, Neuroscience", "Dean's office", "OSP officer"]},
      outcome="timeout", error="routing service: request timed out after 120s (Kuali gateway)",
      a="The routing request timed out at the gateway; I don't know if it started the chain.")
    fill(1)
    res, log = _gs_ls(rng, f"{GS_ROOT}/budget")
    T(b, "Budget folder next.", "shell", {"command": f"cd {GS_ROOT}/budget && ls -la"}, res, "In the budget folder.", log=log)
    b.user("Correction: the 5th is a Saturday, so NIH moves the deadline to Monday 2024-10-07.")
    b.correction("submission_deadline", "2024-10-07")
    b.asst("Deadline 7 October.")
    fill(1)
    q = _gs_budget(rng)
    _, _, s_bud = T(b, "Read the budget summary from v7.", "budget_sheet", {"sheet": "R01_budget_v7.xlsx", "proposal_id": "PRP-24-01877", "range": "Y1-Y5"},
                    q, "v7 uses 57% F&A on MTDC, year 1 direct 249,500.")
    b.user("Hang on, where am I, and did the routing go out? Also check the strategy PDF in the research_strategy folder.")
    b.decision("d1-budget", [
        P_fact("cwd", f"{GS_ROOT}/budget", [GS_ROOT, f"{GS_ROOT}/biosketches"], why="the directory moved twice"),
        P_tool(c_route, "unknown", why="the routing call timed out"),
        P_fact("submission_deadline", "2024-10-07", ["2024-10-05"], why="the user's correction"),
        P_ev([s_osp, s_bud], why="OSP's and the workbook's F&A rate disagree"),
    ])
    b.asst("We're in budget/. Routing is unknown. OSP has 55.5% F&A, the workbook 57%.")
    res, log = _gs_ls(rng, f"{GS_ROOT}/research_strategy", "-rw-r--r--  1 hsato  staff   1902211  Sep 27 22:14  Research_Strategy_v9.pdf")
    T(b, None, "shell", {"command": f"cd {GS_ROOT}/research_strategy && ls -la"}, res, "Moved to research_strategy/.", log=log)
    res, log = _gs_pdfcheck(rng)
    _, _, s_pdf = T(b, None, "pdf_check", {"file": "Research_Strategy_v9.pdf", "rules": "NIH-R01"}, res,
                    "Fonts and margins pass; one page-limit error.", log=log)
    fill(1)
    b.user("The new rate agreement took effect in July; 57% is right and OSP's record is stale.")
    b.correction("fa_rate", 0.57, "proposal_id=PRP-24-01877")
    b.asst("F&A recorded as 57%.")
    q, _ = _gs_components(rng)
    _, _, s_comp = T(b, "Validate the application on the portal.", "grants_portal", {"application_id": "APP-NIH-24-00731", "validate": True}, q,
                     "One error: a required component is missing; three warnings.")
    fill(1)
    b.user("So what's blocking us? List it, don't fix anything yet.")
    b.decision("d2-blockers", [
        P_ev([s_pdf, s_comp], why="the page-limit error and the missing component"),
        P_cons(s_kick, "12 pages or fewer", why="the page limit"),
        P_fact("fa_rate", 0.57, [0.555], "proposal_id=PRP-24-01877", why="the user settled the rate"),
        P_fact("cwd", f"{GS_ROOT}/research_strategy", [f"{GS_ROOT}/budget"], why="the third move"),
        P_pending(call_id=c_route, why="the routing call is still open"),
    ])
    b.asst("Research Strategy v9 runs to 13 pages and the Vertebrate Animals section (cmp-va0917) is missing.")
    fill(1)
    T(b, "Dr. Sato cut a paragraph: check v10.", "pdf_check", {"file": "Research_Strategy_v10.pdf", "rules": "NIH-R01"},
      {"file": "Research_Strategy_v10.pdf", "pages": 12, "pdf_version": "1.6", "fonts_embedded": True, "errors": []}, "v10 is 12 pages and passes.")
    T(b, "Upload v10 as the research strategy.", "grants_upload", {"application_id": "APP-NIH-24-00731", "component": "Research Strategy", "file": "Research_Strategy_v10.pdf"},
      {"upload": {"id": "upl_44d1e0", "component_id": "cmp-rs0912", "scan": "clean", "upload_state": "attached"}}, "Attached as upl_44d1e0.")
    fill(1)
    b.user("Check whether routing went through.")
    b.status_query(c_route, "unknown", {"kuali": {"proposal_id": "PRP-24-01877", "message": "routing queue unavailable (maintenance 18:00-20:00)"}})
    b.asst("OSP's routing queue is down for maintenance; the routing state is still unknown.")
    res, log = _gs_ls(rng, f"{GS_ROOT}/final")
    T(b, "Make a final/ folder and go there for the assembled PDFs.", "shell", {"command": f"mkdir -p {GS_ROOT}/final && cd {GS_ROOT}/final && ls -la"},
      res, "In final/.", log=log)
    s_apr = b.user("Get the portal submission ready. It needs Dr. Sato's and the AOR's approval and OSP sign-off before anyone clicks submit.")
    b.approval("apr-gs-submit", "requested", s_apr)
    b.asst("Submission prepared and waiting for approval; I won't submit.")
    fill(1)
    b.user("Meanwhile, write the Vertebrate Animals section from the IACUC protocol; what protocol number goes in it?")
    b.decision("d3-meanwhile", [
        P_pending(approval_id="apr-gs-submit", why="the submission waits for approval"),
        P_next("grants_upload", {"component_id": "cmp-va0917", "iacuc": "IACUC-2022-0417"}, why="the missing component and the IACUC number"),
        P_tool(c_route, "unknown", why="the status query could not tell"),
        P_fact("cwd", f"{GS_ROOT}/final", [f"{GS_ROOT}/research_strategy", f"{GS_ROOT}/budget"], why="the fourth move"),
    ])
    T(b, None, "grants_upload", {"application_id": "APP-NIH-24-00731", "component_id": "cmp-va0917", "file": "Vertebrate_Animals.pdf",
                                 "iacuc": "IACUC-2022-0417"},
      {"upload": {"id": "upl_44d7b2", "component_id": "cmp-va0917", "scan": "clean", "upload_state": "attached"}}, "Vertebrate Animals attached.")
    fill(2)
    b.user("Is the deadline still Monday, and is the budget rate settled?")
    b.decision("d4-check", [
        P_fact("submission_deadline", "2024-10-07", ["2024-10-05"]),
        P_fact("fa_rate", 0.57, [0.555], "proposal_id=PRP-24-01877"),
        P_pending(approval_id="apr-gs-submit"),
        P_cons(s_kick, "Never press submit on the sponsor portal without OSP sign-off"),
    ])
    b.asst("Monday 7 October; 57% F&A.")
    fill(1)
    b.user("Last: prepare, don't send, the submit call with everything it needs.")
    b.decision("d5-prepare-submit", [
        P_next("grants_submit", {"application_id": "APP-NIH-24-00731", "workspace_id": "WS01099812", "proposal_id": "PRP-24-01877"},
               why="ids from the portal and the first message"),
        P_pending(call_id=c_route, why="routing never resolved, so OSP sign-off is not known"),
        P_pending(approval_id="apr-gs-submit"),
        P_fact("cwd", f"{GS_ROOT}/final"),
        P_tool(c_route, "unknown"),
    ])


def _gs_f_portal(rng):
    return ("Any new portal messages?", "grants_portal", {"application_id": "APP-NIH-24-00731", "view": "messages"},
            {"messages": [{"at": ts(rng, "2024-09-2" + str(rng.randint(0, 9))), "from": rng.choice(["eRA Commons", "Grants.gov", "Workspace"]),
                           "text": rng.choice(["Form updated by collaborator", "Workspace lock released", "Subaward budget imported", "Reminder: deadline approaching"])}
                          for _ in range(int(rng.randint(6, 10) * ROW_SCALE[0]))]},
            "Routine workspace notices.")


def _gs_f_git(rng):
    return (None, "shell", {"command": "git -C ~/grants log --oneline -n 15"},
            {"exit_code": 0, "stdout": "\n".join(f"{hexid(rng, 7)} {rng.choice(['update aims', 'fix refs', 'figure 3 rev', 'budget tweak', 'biosketch Obi', 'typos'])}"
                                                 for _ in range(int(15 * ROW_SCALE[0])))},
            "Recent commits are edits by the lab.")


def _gs_f_osp(rng):
    pid = f"PRP-24-0{rng.randint(1000, 1800)}"
    return ("How busy is OSP?", "osp_status", {"proposal_id": pid},
            {"proposal": {"proposal_id": pid, "pi": rng.choice(NAMES), "routing": {"routing_state": rng.choice(["in review", "approved", "returned"]),
                                                                                   "steps": [{"approver": a, "at": ts(rng, "2024-09-2" + str(rng.randint(0, 9)))}
                                                                                             for a in ["Chair", "Dean", "OSP"][:rng.randint(1, 3)]]}}},
            "That's another lab's proposal; their queue is moving.")


def _gs_f_budget(rng):
    return (None, "budget_sheet", {"sheet": "R01_budget_v7.xlsx", "range": "Equipment"},
            {"rows": [{"item": rng.choice(["Confocal time", "Flow cytometry", "Mouse per diem", "Sequencing lane", "Antibodies"]), "y1": money(rng, 500, 9000),
                       "y2": money(rng, 500, 9000)} for _ in range(int(rng.randint(8, 12) * ROW_SCALE[0]))]},
            "Equipment and services lines look consistent.")


scripted(
    id="university-grant-submission", prefix="gs", title="Assembling and routing an NIH R01 renewal",
    description="A research administrator's agent assembles a grant: the shell's working directory moves four times; OSP's routing "
                "call times out and is never resolved; OSP and the budget workbook disagree on the nested F&A rate, settled by "
                "the user; the deadline is corrected once; the portal submission waits for approval to the end. All five decisions "
                "come after the first third.",
    exercises_full=["a working directory moved four times by shell calls",
                    "a call that times out and is never resolved (status query unknown, pending at the end)",
                    "two tools disagreeing on a nested field (F&A rate) many turns apart, settled by the user",
                    "an approval requested late and still open at the end, across several decisions",
                    "ids from a long validation output and from an early read used in the last calls",
                    "a date corrected once", "constraints set in the first message"],
    script=_gs_script, fillers=[_gs_f_portal, _gs_f_git, _gs_f_osp, _gs_f_budget],
)


# ---------------------------------------------------------------------------------------------
# 15. Film festival submission (6 decisions; a payment lost in a restart, confirmed much later)
# ---------------------------------------------------------------------------------------------
FF_PKG = "SHORTWAVE_SHR-1_F-239_EN-XX_51_2K_20240912_SMPTE_OV"


def _ff_listing(rng):
    fests = []
    for nm in ["Tampere Film Festival", "Go Short Nijmegen", "Interfilm Berlin", "Encounters Bristol", "Vienna Shorts", "Uppsala Short",
               "Curtas Vila do Conde", "Palm Springs ShortFest", "Aspen Shortsfest", "Flickers Rhode Island"]:
        fests.append({"festival_id": nm.lower().replace(" ", "-")[:18] + "-2025", "name": nm, "category": rng.choice(["International competition", "Short fiction"]),
                      "deadlines": {"regular": f"2024-{rng.randint(10, 12)}-{rng.randint(1, 28):02d}", "late": f"2025-01-{rng.randint(5, 28):02d}"},
                      "fee": {"regular_usd": money(rng, 25, 75), "student_waiver": rng.random() < 0.3},
                      "rules": {"max_runtime_min": rng.choice([20, 30, 30, 40]), "premiere": rng.choice(["none", "national", "none"])}})
    place(rng, fests, {"festival_id": "clermont-2025", "name": "Clermont-Ferrand International Short Film Festival", "category": "International competition",
                       "deadlines": {"regular": "2024-10-15", "late": None}, "fee": {"regular_usd": "0.00", "handling_eur": "20.00"},
                       "rules": {"max_runtime_min": 40, "premiere": "French premiere", "screener": "private link with password",
                                 "code": "CF25-INT-8841"}}, 0.4, 0.8)
    return {"search": {"query": "shorts, deadline before 2024-12-31", "results": fests}}


def _ff_dcp(rng, fps, note=None):
    reels = [{"reel": i + 1, "duration_frames": rng.randint(4800, 7400), "picture_hash": hexid(rng, 28), "sound_hash": hexid(rng, 28)} for i in range(3)]
    out = {"package": FF_PKG, "cpl": {"id": f"urn:uuid:{hexid(rng, 8)}-{hexid(rng, 4)}-{hexid(rng, 4)}-{hexid(rng, 12)}",
                                      "content_kind": "short", "picture": {"frame_rate": fps, "resolution": "2048x858", "encoding": "JPEG2000"},
                                      "sound": {"channels": 6, "sampling": "48kHz"}, "reels": reels},
           "pkl": {"assets": 11, "size_gb": 14.2}, "verification": {"hash_check": "pass" if note else "skipped", "errors": 0}}
    if note:
        out["verification"]["note"] = note
    lines = [f"[dcp-inspect] {ts(rng, '2024-09-13')} asset {hexid(rng, 8)} {rng.choice(['MXF ok', 'hash ok', 'KDM not required', 'subtitle track ok'])}" for _ in range(20)]
    return out, "\n".join(lines)


def _ff_script(b: Builder, fill, rng):
    b.system("You are the distribution assistant for the short film SHORTWAVE: festival platform, submissions and fees, the private "
             "screener links and DCP validation.")
    s_kick = b.user("We're submitting SHORTWAVE to festivals. Never pay a fee above $60 without asking me, and never make the screener "
                    "public; only password links. The password for screeners is kestrel-0912.")
    b.asst("Fees over $60 come to you, screeners stay password-protected, password kestrel-0912.")
    b.fact("max_fee_without_asking_usd", 60)
    b.user("Runtime is 14:52 with credits.")
    b.fact("runtime", "14:52")
    b.asst("Runtime 14:52.")
    fill(2)
    q = _ff_listing(rng)
    _, _, s_list = T(b, "Find festivals with deadlines before the end of the year.", "festival_platform", {"festival_id": "*", "deadline_before": "2024-12-31", "type": "short"}, q,
                     "Eleven festivals; Clermont-Ferrand has a code and no fee, only a handling charge.")
    fill(1)
    T(b, "Make a private screener link for the festival cut.", "vimeo_link", {"video_id": "vm-889104221", "privacy": "password", "password": "kestrel-0912"},
      {"video": {"video_id": "vm-889104221", "link": "https://vimeo.com/889104221/7c1e4a2b9d", "privacy": {"view": "password"}, "embed": "private"}},
      "Private link https://vimeo.com/889104221/7c1e4a2b9d, password protected.")
    b.user("Correction: the final conform added the dedication card; runtime is 15:08.")
    b.correction("runtime", "15:08")
    b.asst("Runtime 15:08.")
    b.user("Start the Clermont-Ferrand entry.")
    b.decision("d1-clermont", [
        P_next("submission_create", {"festival_id": "clermont-2025", "code": "CF25-INT-8841"}, why="festival id and code from the listing"),
        P_fact("runtime", "15:08", ["14:52"], why="first correction"),
        P_cons(s_kick, "only password links", why="the screener rule"),
    ])
    T(b, None, "submission_create", {"festival_id": "clermont-2025", "code": "CF25-INT-8841", "screener": "https://vimeo.com/889104221/7c1e4a2b9d",
                                     "runtime": "15:08", "package": FF_PKG},
      {"submission": {"submission_id": "SUB-CF-30771", "festival_id": "clermont-2025", "submission_state": "draft", "handling_fee_eur": "20.00"}},
      "Draft SUB-CF-30771 created; EUR 20 handling fee due.")
    fill(2)
    res, log = _ff_dcp(rng, "25")
    _, _, s_ka = T(b, "Validate the DCP.", "dcp_check", {"package": FF_PKG}, res, "The DCP reads 25 fps, 2K scope, 5.1.", log=log)
    fill(1)
    s_apr = b.user("The producer has to OK the Clermont handling fee before we pay; it's on her card.")
    b.approval("apr-ff-clermont-fee", "requested", s_apr)
    b.asst("Waiting for the producer's OK on the EUR 20 handling fee.")
    T(b, "Meanwhile create the Tampere entry.", "submission_create", {"festival_id": "tampere-film-fest-2025", "screener": "https://vimeo.com/889104221/7c1e4a2b9d", "runtime": "15:08"},
      {"submission": {"submission_id": "SUB-TF-11902", "submission_state": "draft", "fee_usd": "45.00"}}, "Draft SUB-TF-11902, $45.")
    fill(1)
    b.user("One more time on runtime: the distributor trimmed the end crawl, it's 14:59 now.")
    b.correction("runtime", "14:59")
    b.asst("Runtime 14:59.")
    fill(1)
    _, _, s_kb = T(b, "What does the Clermont submission show for tech specs?", "submission_status", {"submission_id": "SUB-CF-30771", "package": FF_PKG},
                   {"submission": {"submission_id": "SUB-CF-30771", "submission_state": "draft",
                                   "tech": {"format": "DCP", "frame_rate": "24", "aspect": "2.39", "sound": "5.1"}, "screener_ok": True}},
                   "The submission lists 24 fps; the DCP check said 25.")
    b.user("Which frame rate is right? And did the producer answer?")
    b.decision("d2-specs", [
        P_ev([s_ka, s_kb], why="both frame-rate readings, raw"),
        P_pending(approval_id="apr-ff-clermont-fee", why="the producer has not answered"),
        P_fact("runtime", "14:59", ["14:52", "15:08"], why="second correction"),
        P_cons(s_kick, "Never pay a fee above $60"),
    ])
    b.asst("They disagree; I'd re-check the DCP with full hash verification. No answer from the producer yet.")
    fill(1)
    s_grant = b.user("Producer says yes. Pay the Clermont handling fee.")
    b.approval("apr-ff-clermont-fee", "granted", s_apr)
    c_pay, _, _ = b.call("submission_pay", {"submission_id": "SUB-CF-30771", "amount": "20.00", "currency": "EUR", "card": "producer-visa-4471"},
                         idem="pay-sub-cf-30771", answer=False)
    b.asst("Payment sent to the platform; waiting for the processor.")
    b.recover()
    b.system("Session resumed the next day; the assistant had been restarted.")
    b.user("Hi again. Did the Clermont fee get paid? Don't pay twice.")
    b.decision("d3-after-restart", [
        P_tool(c_pay, "unknown", why="the payment was in flight at the restart"),
        P_pending(call_id=c_pay, why="no answer yet for the payment"),
        P_next("submission_status", {"submission_id": "SUB-CF-30771"}, why="the submission to look up"),
        P_fact("max_fee_without_asking_usd", 60),
    ])
    b.asst("Unknown after the restart; I won't retry before the platform tells us.")
    fill(1)
    res, log = _ff_dcp(rng, "24", "previous check read a cached CPL from the 2024-09-02 export")
    _, _, s_kc = T(b, "Re-run the DCP check with full hash verification.", "dcp_check", {"package": FF_PKG}, res,
                   "With full verification the DCP is 24 fps; the first check had read a cached CPL.", log=log)
    fill(1)
    s_apr2 = b.user("Sundance late fee is $110. Ask the producer.")
    b.approval("apr-ff-sundance-fee", "requested", s_apr2)
    b.asst("Asked.")
    fill(1)
    b.user("She says no to Sundance this year.")
    b.approval("apr-ff-sundance-fee", "denied", s_apr2)
    b.asst("Sundance dropped.")
    b.user("So what's the frame rate for the cue sheet, and is Clermont paid?")
    b.decision("d4-frame-rate", [
        P_fact("frame_rate", "24", ["25"], f"package={FF_PKG}", why="the verified re-check supersedes the first reading"),
        P_tool(c_pay, "unknown", why="still not looked up"),
        P_cons(s_grant, "Pay the Clermont handling fee"),
    ])
    b.asst("24 fps. The Clermont payment is still unconfirmed.")
    fill(2)
    b.user("Look up the Clermont payment now.")
    b.status_query(c_pay, "succeeded", {"payment": {"id": "pay_cf_7781", "submission_id": "SUB-CF-30771", "charged": "20.00 EUR", "receipt": "R-CF-2025-30771"}})
    b.asst("Paid: receipt R-CF-2025-30771.")
    s_apr3 = b.user("Queue the Tampere fee, $45; I'll confirm once we hear from Clermont.")
    b.approval("apr-ff-tampere-fee", "requested", s_apr3)
    b.asst("Tampere fee queued for your confirmation.")
    fill(1)
    b.user("Where do the payments stand?")
    b.decision("d5-payments", [
        P_tool(c_pay, "succeeded", why="the status query confirmed the payment"),
        P_pending(approval_id="apr-ff-tampere-fee", why="the Tampere fee waits"),
        P_fact("runtime", "14:59", ["14:52", "15:08"]),
        P_next("submission_pay", {"submission_id": "SUB-TF-11902", "amount": "45.00"}, why="the Tampere draft"),
    ])
    b.asst("Clermont paid; Tampere waits for you.")
    fill(1)
    b.user("Last: send Clermont the screener details again, with the password, and list the two drafts.")
    b.decision("d6-wrap-up", [
        P_next("vimeo_link", {"link": "https://vimeo.com/889104221/7c1e4a2b9d", "password": "kestrel-0912"}, why="link and password"),
        P_ev([s_list], why="the listing with the Clermont code"),
        P_fact("frame_rate", "24", ["25"], f"package={FF_PKG}"),
        P_pending(approval_id="apr-ff-tampere-fee"),
        P_cons(s_kick, "only password links"),
    ])


def _ff_f_drive(rng):
    return ("What's in the deliverables folder?", "drive_list", {"folder": "SHORTWAVE/Deliverables", "recursive": True},
            {"files": [{"name": rng.choice(["SHORTWAVE_stereo_mix.wav", "SHORTWAVE_M&E.wav", "stills_", "poster_A4_", "press_kit_", "subs_EN.srt", "subs_FR.srt"]) + hexid(rng, 3),
                        "size_mb": round(rng.uniform(0.2, 4800), 1), "modified": ts(rng, "2024-09-" + str(rng.randint(10, 28)))} for _ in range(int(rng.randint(10, 14) * ROW_SCALE[0]))]},
            "Deliverables are all there.")


def _ff_f_sub(rng):
    sid = f"SUB-{rng.choice(['GS', 'IF', 'EB'])}-{rng.randint(10000, 39999)}"
    return (None, "submission_status", {"submission_id": sid},
            {"submission": {"submission_id": sid, "submission_state": rng.choice(["received", "in review", "not selected"]),
                            "history": [{"at": ts(rng, "2024-0" + str(rng.randint(6, 9)) + "-1" + str(rng.randint(0, 9))), "event": rng.choice(["created", "paid", "screener viewed", "judging"])}
                                        for _ in range(int(rng.randint(4, 7) * ROW_SCALE[0]))]}},
            f"{sid}, an older entry, is moving through review.")


def _ff_f_views(rng):
    return ("Has anyone watched the screener?", "vimeo_link", {"video_id": "vm-889104221", "action": "stats"},
            {"stats": [{"date": f"2024-09-{d}", "plays": rng.randint(0, 9), "finishes": rng.randint(0, 6),
                        "top_referrer": rng.choice(["filmfreeway.com", "direct", "shortfilmdepot.com"])} for d in range(14, 14 + int(10 * ROW_SCALE[0]))]},
            "A few plays, mostly from festival platforms.")


def _ff_f_fest(rng):
    fid = rng.choice(["go-short-2025", "vienna-shorts-2025", "encounters-2025"])
    return (None, "festival_platform", {"festival_id": fid},
            {"festival": {"festival_id": fid, "categories": [{"name": rng.choice(["Fiction", "Documentary", "Animation", "Youth"]), "fee_usd": money(rng, 20, 60)}
                                                             for _ in range(int(rng.randint(4, 6) * ROW_SCALE[0]))], "notification": f"2025-0{rng.randint(2, 5)}-01"}},
            f"{fid}: regular categories, nothing unusual.")


scripted(
    id="film-festival-submission", prefix="ff", title="Submitting a short film to festivals: screeners, DCP, fees",
    description="A filmmaker's agent enters festivals: the runtime is corrected twice; the DCP check and the submission disagree on a "
                "nested frame rate, settled by a verified re-check (no user ruling); a fee payment is in flight at a restart and "
                "confirmed much later by a status query; one approval is granted, one denied and one still open at the end.",
    exercises_full=["a value corrected twice by the user",
                    "two tools disagreeing on a nested field, settled by a third, newer reading of the same tool",
                    "a payment in flight at a restart, confirmed only much later by a status query",
                    "approvals granted, denied and still open",
                    "a code and an id buried in a long festival listing, used early and at the end",
                    "a password typed once in the first message, used in the last call"],
    script=_ff_script, fillers=[_ff_f_drive, _ff_f_sub, _ff_f_views, _ff_f_fest],
)


# ---------------------------------------------------------------------------------------------
# 16. Home renovation with contractor bids (10 short decisions; the open bid moves five times)
# ---------------------------------------------------------------------------------------------
tool("bid_open", "read", [], "open one contractor bid; the following bid calls act on it")
RN_ADDR = "2217 Alder Crest Rd"


def _rn_bid(v, rng):
    who = {"BID-1041": "Oakline Builders", "BID-1058": "Hartwell & Sons", "BID-1063": "Cedar Row Renovation", "BID-1071": "Brightside Kitchens"}[v]
    return {"current_bid": v, "contractor": who, "received": ts(rng, "2024-03-1" + str(rng.randint(0, 9))), "attachments": rng.randint(2, 6)}


def _rn_bids(rng):
    def line(r):
        return {"item": r.choice(["Demo + haul", "Framing", "Electrical rough-in", "Plumbing rough-in", "Drywall", "Cabinets", "Countertops (quartz)",
                                  "Tile backsplash", "LVP flooring", "Paint", "Permit handling", "Cleanup"]), "amount": money(r, 400, 9000)}
    bids = []
    for bid, who in [("BID-1041", "Oakline Builders"), ("BID-1058", "Hartwell & Sons"), ("BID-1063", "Cedar Row Renovation"), ("BID-1071", "Brightside Kitchens")]:
        bids.append({"bid_id": bid, "contractor": who, "valid_days": rng.choice([30, 45, 60]), "lines": [line(rng) for _ in range(12)],
                     "totals": {"subtotal": money(rng, 41000, 62000)}, "start_window": rng.choice(["April", "May", "late May"])})
    bids[2]["exclusions"] = ["structural beam over pantry wall (engineer letter required)", "any asbestos abatement"]
    return {"inbox": {"project": "kitchen + half bath", "address": RN_ADDR, "bids": bids}}


def _rn_permit(rng):
    insp = [{"type": t, "result": rng.choice(["pass", "pass", "not scheduled"]), "date": f"2024-0{rng.randint(4, 6)}-{rng.randint(1, 28):02d}"}
            for t in ["footing", "framing", "electrical rough", "plumbing rough", "insulation", "final"]]
    return {"permit": {"permit_id": "BP-2024-03318", "address": RN_ADDR, "scope": "kitchen remodel, remove non-bearing wall, relocate sink",
                       "permit_state": "issued", "fees_paid": "1184.00", "inspections": insp,
                       "contractor": {"name": "Oakline Builders", "license": {"number": "GC-884120", "license_expires": "2024-06-30", "class": "B"}},
                       "conditions": ["Engineer letter for header at pantry wall", "Hours 07:00-19:00 weekdays"],
                       "review_comments": [{"at": ts(rng, "2024-03-2" + str(rng.randint(0, 9))), "reviewer": rng.choice(["Plans examiner", "Zoning", "Fire"]),
                                            "comment": rng.choice(["Show GFCI locations on sheet E1", "Provide hood CFM and make-up air calc",
                                                                   "Clarify header size at pantry wall", "Smoke/CO detector per R314", "Resubmittal accepted"])}
                                           for _ in range(9)]}}


def _rn_script(b: Builder, fill, rng):
    b.system("You are a homeowner's renovation assistant: contractor bids, the city permit portal, the escrow account for milestone "
             "payments, material orders and crew scheduling.")
    s_kick = b.user(f"We're redoing the kitchen at {RN_ADDR}. Rules: never release escrow money before the matching city inspection "
                    "has passed, and the all-in budget is $58,000. Our escrow PIN is 4471-EQ.")
    b.asst("Escrow only after the matching inspection passes, budget $58,000, escrow PIN 4471-EQ.")
    b.fact("renovation_budget_usd", 58000)
    T(b, None, "bid_open", {"bid_id": "BID-1041"}, _rn_bid("BID-1041", rng), "Opened Oakline's bid.")
    q = _rn_bids(rng)
    _, _, s_bids = T(b, "Show me all four bids side by side.", "bids_inbox", {"project": "kitchen", "include": ["lines", "totals", "exclusions"]}, q,
                     "Four bids between roughly $41k and $62k; Cedar Row's excludes the beam work.")
    b.user("Which bid am I in?")
    b.decision("d01", [P_fact("current_bid", "BID-1041", why="the first bid opened")])
    b.asst("BID-1041, Oakline.")
    fill(1)
    T(b, "Open Hartwell's.", "bid_open", {"bid_id": "BID-1058"}, _rn_bid("BID-1058", rng), "BID-1058 open.")
    b.user("Budget correction: my parents are chipping in, the cap is $64,000.")
    b.correction("renovation_budget_usd", 64000)
    b.asst("Budget $64,000.")
    b.user("Remind me the escrow rule.")
    b.decision("d02", [P_cons(s_kick, "never release escrow money before the matching city inspection"),
                       P_fact("renovation_budget_usd", 64000, [58000])])
    b.asst("No release before the matching inspection passes.")
    fill(1)
    b.user("Order the cabinets from Cabinet Depot now, they take 6 weeks: the Shaker white set, $11,240.")
    c_cab, _, _ = b.call("supplier_order", {"supplier": "cabinet-depot", "sku_set": "SHK-WHT-KIT-22", "amount": "11240.00", "deliver_to": RN_ADDR},
                         outcome="timeout", error="supplier API gateway timeout (30s); order not confirmed")
    b.asst("The cabinet order timed out; I don't know whether Cabinet Depot has it.")
    b.user("Did the cabinet order go in?")
    b.decision("d03", [P_tool(c_cab, "unknown"), P_pending(call_id=c_cab)])
    b.asst("Unknown; I'll check the order status before anything else.")
    fill(2)
    T(b, "Open Cedar Row's bid.", "bid_open", {"bid_id": "BID-1063"}, _rn_bid("BID-1063", rng), "BID-1063 open.")
    _, _, s_ka = T(b, "Pull the permit record, with Oakline's license since they'd pull it.", "permit_portal",
                   {"permit_id": "BP-2024-03318", "contractor": "oakline-builders"}, _rn_permit(rng),
                   "Permit BP-2024-03318 is issued; the framing inspection is listed; Oakline's license shows an expiry of 2024-06-30.")
    fill(1)
    b.user("Oakline it is. Reopen their bid.")
    T(b, None, "bid_open", {"bid_id": "BID-1041"}, _rn_bid("BID-1041", rng), "BID-1041 open again.")
    b.user("What's open now, and what did the first bid list say about Cedar Row's exclusions?")
    b.decision("d04", [P_fact("current_bid", "BID-1041", ["BID-1063", "BID-1058"]), P_ev([s_bids])])
    b.asst("Oakline's BID-1041; Cedar Row excluded the pantry-wall beam and asbestos.")
    fill(1)
    res = {"escrow": {"contract_id": "ESC-7730", "holder": "Alder Title & Escrow", "balance": "54500.00",
                      "milestones": [{"id": m, "desc": d, "amount": a, "release_condition": c, "released": False}
                                     for m, d, a, c in [("M1", "Mobilisation", "6400.00", "framing inspection pass"),
                                                        ("M2", "Rough-in complete", "14200.00", "electrical + plumbing rough pass"),
                                                        ("M3", "Cabinets set", "12800.00", "insulation pass"),
                                                        ("M4", "Counters and tile", "11600.00", "none"),
                                                        ("M5", "Final", "9500.00", "final inspection pass")]],
                      "statement": [{"date": ts(rng, "2024-04-0" + str(rng.randint(1, 9)))[:10], "entry": rng.choice(["deposit", "wire in", "fee", "interest"]),
                                     "amount": money(rng, 1, 9000), "ref": hexid(rng, 10).upper()} for _ in range(14)]}}
    T(b, "Show me the escrow schedule for Oakline's contract.", "escrow_status", {"contract_id": "ESC-7730", "include": ["milestones", "statement"]}, res,
      "Five milestones; M1 ($6,400) releases on the framing inspection pass.")
    s_apr = b.user("Oakline wants the M1 mobilisation payment, $6,400, from escrow contract ESC-7730. Ask me before releasing.")
    b.approval("apr-rn-m1", "requested", s_apr)
    b.asst("Waiting for your go on M1 ($6,400).")
    fill(1)
    b.user("No, wait: the framing inspection isn't passed yet. Deny it.")
    b.approval("apr-rn-m1", "denied", s_apr)
    b.asst("M1 release denied for now.")
    fill(1)
    b.user("Correction on the budget, sorry: the parents' money is for the bath too, so kitchen cap is $61,500.")
    b.correction("renovation_budget_usd", 61500)
    b.asst("Kitchen budget $61,500.")
    b.user("Budget and rule check before I call Oakline.")
    b.decision("d05", [P_fact("renovation_budget_usd", 61500, [58000, 64000]), P_cons(s_kick, "$58,000"),
                       P_pending(call_id=c_cab)])
    b.asst("$61,500; the cabinet order is still unconfirmed.")
    fill(2)
    T(b, "Open Brightside's bid, just the cabinets part.", "bid_open", {"bid_id": "BID-1071"}, _rn_bid("BID-1071", rng), "BID-1071 open.")
    b.user("Check on the Cabinet Depot order from before.")
    b.status_query(c_cab, "not_performed", {"order_lookup": {"supplier": "cabinet-depot", "matches": 0, "note": "no order for SHK-WHT-KIT-22 at this address"}})
    b.asst("Cabinet Depot has no such order: it never went through.")
    c_cab2, _, _ = T(b, "Then place it again, same set.", "supplier_order", {"supplier": "cabinet-depot", "sku_set": "SHK-WHT-KIT-22", "amount": "11240.00", "deliver_to": RN_ADDR},
                     {"order": {"order_ref": "CD-55120-K", "order_state": "confirmed", "eta": "2024-05-27", "deposit": "3372.00"}},
                     "Confirmed: CD-55120-K, ETA 27 May.", idem="cd-shk-wht-2217")
    b.user("So did the first cabinet order fail, and what's the new one?")
    b.decision("d06", [P_tool(c_cab, "failed", why="not performed, per the status query"),
                       P_tool(c_cab2, "succeeded", b.calls[c_cab2]["request_id"]),
                       P_fact("current_bid", "BID-1071", ["BID-1041"])])
    b.asst("The first never happened; CD-55120-K is confirmed.")
    fill(1)
    _, _, s_kb = T(b, "Pull Oakline's bid attachments; I want their license certificate.", "bids_inbox",
                   {"contractor": "oakline-builders", "bid_id": "BID-1041", "include": ["attachments"]},
                   {"bid": {"bid_id": "BID-1041", "attachments": [{"name": "COI_2024.pdf", "pages": 2}, {"name": "license_GC-884120.pdf", "pages": 1},
                                                                  {"name": "references.pdf", "pages": 3}],
                            "contractor": {"name": "Oakline Builders", "license": {"number": "GC-884120", "license_expires": "2026-06-30"},
                                           "insurance": {"carrier": "Westfield", "gl_limit": "2000000"}}}},
                   "Their certificate shows the license expiring 2026-06-30, not 2024-06-30 as the permit record has it.")
    b.user("Which expiry is right?")
    b.decision("d07", [P_ev([s_ka, s_kb]), P_fact("renovation_budget_usd", 61500, [58000, 64000])])
    b.user("I checked the state board: renewed in March, expires 2026-06-30. The city record is stale.")
    b.correction("license_expires", "2026-06-30", "contractor=oakline-builders")
    b.asst("Recorded 2026-06-30.")
    fill(1)
    T(b, "Book Oakline's crew for demo on the 20th.", "schedule_crew", {"contractor": "oakline-builders", "date": "2024-05-20", "job": "demo"},
      {"booking": {"crew_booking": "CRW-4410", "date": "2024-05-20", "lead": "Tomasz Wrona"}}, "Crew booked, CRW-4410.")
    T(b, None, "permit_portal", {"permit_id": "BP-2024-03318", "view": "inspections"},
      {"inspections": {"framing": {"result": "pass", "inspector": "J. Ruiz", "date": "2024-05-29"}}}, "Framing inspection passed on 29 May.")
    s_apr2 = b.user("Framing passed. New request: release M1, $6,400, from ESC-7730.")
    b.approval("apr-rn-m1-b", "requested", s_apr2)
    b.asst("Requested your go on M1 again.")
    b.user("Is M1 waiting on me, and whose license date did we settle?")
    b.decision("d08", [P_pending(approval_id="apr-rn-m1-b"), P_fact("license_expires", "2026-06-30", ["2024-06-30"], "contractor=oakline-builders")])
    b.user("Go, release it.")
    b.approval("apr-rn-m1-b", "granted", s_apr2)
    c_rel, _, _ = T(b, None, "escrow_release", {"contract_id": "ESC-7730", "milestone": "M1", "amount": "6400.00", "pin": "4471-EQ"},
                    {"release": {"id": "rel_90b1", "milestone": "M1", "release_state": "sent", "remaining_balance": "48100.00"}},
                    "M1 released; $48,100 left in escrow.", idem="esc7730-m1")
    fill(1)
    T(b, "Reopen Oakline's bid for the change order.", "bid_open", {"bid_id": "BID-1041"}, _rn_bid("BID-1041", rng), "BID-1041 open.")
    s_apr3 = b.user("Oakline's change order for the pantry header is $2,150 from escrow; hold it until the engineer letter arrives.")
    b.approval("apr-rn-co1", "requested", s_apr3)
    b.asst("Holding the $2,150 change order.")
    fill(1)
    b.user("Status on the money and the bid?")
    b.decision("d09", [P_tool(c_rel, "succeeded", b.calls[c_rel]["request_id"]), P_pending(approval_id="apr-rn-co1"),
                       P_fact("current_bid", "BID-1041", ["BID-1071", "BID-1063", "BID-1058"])])
    b.asst("M1 is out; the change order waits; on BID-1041.")
    fill(1)
    b.user("Last: the cabinet delivery needs the crew there. Write the crew booking with the order ref, and tell me the budget.")
    b.decision("d10", [P_next("schedule_crew", {"order_ref": "CD-55120-K", "crew_booking": "CRW-4410"}),
                       P_fact("renovation_budget_usd", 61500, [58000, 64000]), P_pending(approval_id="apr-rn-co1"),
                       P_cons(s_kick, "Our escrow PIN is 4471-EQ")])


def _rn_f_sup(rng):
    ref = f"{rng.choice(['HD', 'FB', 'LW'])}-{rng.randint(10000, 99999)}"
    return ("Where are the other materials?", "supplier_order_status", {"order_ref": ref},
            {"order": {"order_ref": ref, "order_state": rng.choice(["shipped", "processing", "delivered"]),
                       "items": [{"sku": hexid(rng, 6).upper(), "desc": rng.choice(["LVP carton", "Drywall 1/2in", "Tile adhesive", "Romex 12/2", "PEX 1/2in"]),
                                  "qty": rng.randint(1, 40)} for _ in range(int(rng.randint(9, 13) * ROW_SCALE[0]))]}},
            f"{ref} is on track.")


def _rn_f_escrow(rng):
    return (None, "escrow_status", {"contract_id": "ESC-7730"},
            {"escrow": {"contract_id": "ESC-7730", "ledger": [{"at": ts(rng, "2024-0" + str(rng.randint(4, 5)) + "-1" + str(rng.randint(0, 9))),
                                                               "entry": rng.choice(["deposit", "interest", "fee", "hold"]), "amount": money(rng, 1, 900)}
                                                              for _ in range(int(rng.randint(10, 14) * ROW_SCALE[0]))]}},
            "Escrow ledger is as expected.")


def _rn_f_inbox(rng):
    return ("Any new messages from contractors?", "bids_inbox", {"view": "messages", "unread": True},
            {"messages": [{"from": rng.choice(["Oakline Builders", "Hartwell & Sons", "Cedar Row Renovation", "City of Alder Crest"]),
                           "subject": rng.choice(["Schedule", "Question about outlets", "Invoice", "Inspection reminder", "Follow-up on bid"]),
                           "at": ts(rng, "2024-05-1" + str(rng.randint(0, 9)))} for _ in range(int(rng.randint(10, 14) * ROW_SCALE[0]))]},
            "Nothing that changes the plan.")


scripted(
    id="home-renovation-bids", prefix="rn", title="Kitchen renovation: comparing bids, permit, escrow milestones",
    description="A homeowner's agent compares contractor bids and pays milestones: the open bid moves five times; the budget is "
                "corrected twice; a materials order times out and is found not performed much later; the permit record and the "
                "contractor's attachment disagree on a nested license expiry; an escrow release is denied, asked again and "
                "granted; ten short decisions.",
    exercises_full=["a current record (the open bid) moved five times, back and forth",
                    "a value corrected twice by the user",
                    "a call that times out and is found not performed much later (failed), then redone",
                    "two tools disagreeing on a nested field many turns apart, settled by the user",
                    "an approval denied, a new one granted, a third open at the end",
                    "many small decisions, each with two to four probes"],
    script=_rn_script, fillers=[_rn_f_sup, _rn_f_escrow, _rn_f_inbox],
)


# ---------------------------------------------------------------------------------------------
# 17. Nonprofit donor campaign (4 decisions, all in the second half; an approval open from early to the end)
# ---------------------------------------------------------------------------------------------
def _nd_segment_rows(rng):
    rows = [{"donor_id": f"D-{rng.randint(10000, 19999)}", "name": rng.choice(NAMES), "zip": f"{rng.randint(10000, 99999)}",
             "giving": {"lifetime": money(rng, 50, 9000), "last_gift_date": f"202{rng.randint(2, 4)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"},
             "flags": rng.choice([[], [], ["no-mail"], ["major-donor"], ["monthly"]])} for _ in range(14)]
    place(rng, rows, {"donor_id": "D-10442", "name": "Marta Kowalczyk", "zip": "55410",
                      "giving": {"lifetime": "18250.00", "last_gift_date": "2024-10-03"}, "flags": ["major-donor", "board-referral"],
                      "note": "gift G-88213 pending match from employer pledge PLG-3321"}, 0.45, 0.8)
    return {"query": "lapsed_24mo OR major", "count": 15, "rows": rows}


def _nd_stats(rng):
    lines = []
    for i in range(34):
        lines.append(f"{ts(rng, '2024-11-0' + str(rng.randint(1, 9)))}  {rng.choice(['delivered', 'delivered', 'opened', 'clicked', 'bounced'])}  "
                     f"D-{rng.randint(10000, 19999)}  {rng.choice(['gmail.com', 'yahoo.com', 'outlook.com', 'comcast.net'])}")
    lines.insert(21, "2024-11-05T16:40:12Z  COMPLAINT  D-12207  aol.com  (feedback loop: marked as spam)")
    return {"campaign_id": "CMP-FALL-24", "summary": {"sent": 4180, "delivered": 4093, "opened": 1611, "clicked": 388, "bounced": 87, "complaints": 1}}, "\n".join(lines)


def _nd_script(b: Builder, fill, rng):
    b.system("You are the development assistant for Riverbend Food Shelf: the donor database and CRM, mailing campaigns, the payment "
             "processor and matching-gift pledges.")
    s_kick = b.user("Year-end appeal time. Never mail anyone flagged no-mail, and nothing goes out without the executive director's "
                    "sign-off. The board match code for the appeal is RB-MATCH-2024.")
    b.asst("No-mail donors excluded, nothing sent without the ED's sign-off, match code RB-MATCH-2024.")
    b.user("The board match cap is $25,000.")
    b.fact("match_cap_usd", 25000)
    b.asst("Match cap $25,000.")
    fill(2)
    q = _nd_segment_rows(rng)
    _, _, s_seg = T(b, "Pull lapsed and major donors for the appeal.", "donor_db", {"query": "lapsed_24mo OR major", "exclude_flags": ["deceased"]}, q,
                    "15 donors; one major donor has a gift pending an employer match.")
    T(b, "Make that a segment, minus no-mail.", "donor_segment", {"segment": "YE24-lapsed-major", "from_query": "lapsed_24mo OR major", "exclude_flags": ["no-mail", "deceased"]},
      {"segment": {"segment": "YE24-lapsed-major", "segment_id": "SEG-5521", "members": 13}}, "Segment SEG-5521, 13 members.")
    fill(1)
    T(b, "Create the appeal mailing on that segment.", "mail_campaign", {"campaign_id": "CMP-YE24", "segment_id": "SEG-5521", "template": "ye-appeal-v3",
                                                                         "match_code": "RB-MATCH-2024"},
      {"campaign": {"campaign_id": "CMP-YE24", "campaign_state": "draft", "recipients": 13, "preview_url": "https://mail.riverbend.org/p/CMP-YE24"}},
      "Draft CMP-YE24 for 13 recipients.")
    s_apr = b.user("Send it once the ED signs off; she's travelling, so it may be a few days.")
    b.approval("apr-nd-ye24-send", "requested", s_apr)
    b.asst("CMP-YE24 waits for the ED's sign-off.")
    fill(2)
    b.user("Correction: the board raised the match cap to $30,000.")
    b.correction("match_cap_usd", 30000)
    b.asst("Match cap $30,000.")
    b.user("Rebuild the monthly-donor segment with this week's sign-ups.")
    c_seg, _, _ = b.call("donor_segment", {"segment": "monthly-active", "rebuild": True, "since": "2024-11-01"},
                         outcome="timeout", error="segment rebuild exceeded 60s; job may still be running")
    b.asst("The rebuild timed out; it may still be running.")
    fill(1)
    _, _, s_ka = T(b, "Look up Marta Kowalczyk's pending gift at the processor.", "gift_processor", {"gift_id": "G-88213", "donor_id": "D-10442"},
                   {"charge": {"id": "ch_3Q8x1Rb", "gift_id": "G-88213", "amount": {"gross": "2500.00", "fee": "72.80", "net": "2427.20"},
                               "method": {"type": "card", "brand": "visa", "last4": "4410"}, "captured": True, "created": "2024-10-03T14:11:52Z"}},
                   "The processor has G-88213 at $2,500 gross, captured.")
    fill(2)
    res, log = _nd_stats(rng)
    T(b, "How did the fall newsletter do?", "mail_stats", {"campaign_id": "CMP-FALL-24", "events": True}, res,
      "4,093 delivered, 1,611 opens, one spam complaint.", log=log)
    fill(1)
    T(b, "Pull the employer pledge for Marta's match.", "match_pledge", {"pledge_id": "PLG-3321"},
      {"pledge": {"pledge_id": "PLG-3321", "employer": "Northway Mutual", "ratio": "1:1", "annual_limit": "5000.00",
                  "claims": [{"gift_id": "G-77120", "amount": "1000.00", "claim_state": "paid"}], "claim_form": "https://matching.northway.com/c/PLG-3321"}},
      "Northway Mutual matches 1:1 up to $5,000 a year; one earlier claim paid.")
    b.user("One more change: the cap is $27,500, the board counted a pledge twice.")
    b.correction("match_cap_usd", 27500)
    b.asst("Match cap $27,500.")
    fill(1)
    b.user("Where are we? Has the ED answered, and did the monthly rebuild finish?")
    b.decision("d1-halfway", [
        P_pending(approval_id="apr-nd-ye24-send", why="the ED has not signed off"),
        P_tool(c_seg, "unknown", why="the rebuild timed out"),
        P_fact("match_cap_usd", 27500, [25000, 30000], why="corrected twice"),
        P_cons(s_kick, "Never mail anyone flagged no-mail"),
        P_next("match_pledge", {"pledge_id": "PLG-3321", "gift_id": "G-88213"}, why="the pledge and gift named in the donor listing"),
    ])
    b.asst("No sign-off yet; the rebuild is unknown; cap $27,500.")
    fill(1)
    b.user("Start the match claim for Marta's gift.")
    c_claim, _, _ = b.call("crm_donor", {"donor_id": "D-10442", "action": "match-claim", "pledge_id": "PLG-3321", "gift_id": "G-88213"}, answer=False)
    b.asst("Claim request sent to the CRM; waiting.")
    b.recover()
    b.system("Session resumed after the CRM maintenance restart.")
    fill(1)
    _, _, s_kb = T(b, "Show Marta's CRM profile.", "crm_donor", {"donor_id": "D-10442"},
                   {"donor": {"donor_id": "D-10442", "name": "Marta Kowalczyk", "household": "Kowalczyk-Lindqvist",
                              "last_gift": {"gift_id": "G-88213", "gross": "250.00", "date": "2024-10-03", "fund": "general"},
                              "relationships": [{"type": "board-referral", "with": "Owen Gallagher"}], "preferences": {"mail": True, "email": True}}},
                   "The CRM has G-88213 at $250 gross; the processor had $2,500.")
    b.user("Did the claim go through? And which amount is right for Marta's gift?")
    b.decision("d2-after-restart", [
        P_tool(c_claim, "unknown", why="the claim was in flight at the restart"),
        P_ev([s_ka, s_kb], why="the two gift amounts, raw"),
        P_pending(approval_id="apr-nd-ye24-send"),
        P_pending(call_id=c_seg, why="the rebuild never came back"),
        P_fact("match_cap_usd", 27500, [25000, 30000]),
    ])
    b.asst("The claim is unknown after the restart. The processor says $2,500, the CRM $250.")
    b.user("The processor is the source of truth; the CRM import dropped a zero. It's 2500.00.")
    b.correction("gross", "2500.00", "donor_id=D-10442")
    b.asst("Recording $2,500.00.")
    fill(1)
    b.user("Check the monthly rebuild now.")
    b.status_query(c_seg, "succeeded", {"job": {"segment": "monthly-active", "segment_id": "SEG-5530", "members": 412, "finished": "2024-11-12T10:04:51Z"}})
    b.asst("It finished: SEG-5530, 412 members.")
    fill(2)
    b.user("And the match claim?")
    b.status_query(c_claim, "unknown", {"crm": {"message": "claim queue is being replayed after maintenance; state not yet available"}})
    b.asst("Still unknown; the CRM is replaying its queue.")
    b.user("Status, please: the ED, the rebuild, the claim and Marta's gift.")
    b.decision("d3-status", [
        P_tool(c_seg, "succeeded", why="the status query confirmed the rebuild"),
        P_tool(c_claim, "unknown", why="the status query could not tell"),
        P_fact("gross", "2500.00", ["250.00"], "donor_id=D-10442", why="the user settled it"),
        P_pending(approval_id="apr-nd-ye24-send"),
        P_cons(s_apr, "once the ED signs off"),
    ])
    b.asst("Rebuild done; claim unknown; $2,500; the appeal still waits for the ED.")
    fill(1)
    b.user("Last: write the send call for the appeal exactly as you'd make it after her sign-off, with the match code.")
    b.decision("d4-final", [
        P_next("mail_send", {"campaign_id": "CMP-YE24", "segment_id": "SEG-5521", "match_code": "RB-MATCH-2024"}, why="ids and the code"),
        P_pending(approval_id="apr-nd-ye24-send", why="open from early on to the end"),
        P_fact("match_cap_usd", 27500, [25000, 30000]),
        P_ev([s_seg], why="the donor listing the segment came from"),
        P_cons(s_kick, "nothing goes out without the executive director's sign-off"),
        P_pending(call_id=c_claim),
    ])


def _nd_f_gifts(rng):
    return ("Any gifts overnight?", "donor_db", {"query": "gifts where date >= today-1"},
            {"rows": [{"gift_id": f"G-8{rng.randint(8300, 9999)}", "donor_id": f"D-{rng.randint(10000, 19999)}", "amount": money(rng, 10, 500),
                       "channel": rng.choice(["web", "mail", "event", "monthly"]), "fund": rng.choice(["general", "holiday meals", "capital"])}
                      for _ in range(int(rng.randint(9, 13) * ROW_SCALE[0]))]},
            "Overnight gifts are routine, mostly web.")


def _nd_f_stats(rng):
    cid = rng.choice(["CMP-GIVTUE-24", "CMP-SUMMER-24", "CMP-EVENT-24"])
    return (None, "mail_stats", {"campaign_id": cid},
            {"campaign_id": cid, "by_day": [{"date": f"2024-1{rng.randint(0, 1)}-{rng.randint(1, 28):02d}", "opens": rng.randint(10, 400), "gifts": rng.randint(0, 20)}
                                            for _ in range(int(rng.randint(8, 12) * ROW_SCALE[0]))]},
            f"{cid} is tailing off as expected.")


def _nd_f_donor(rng):
    did = f"D-{rng.randint(11000, 19999)}"
    return ("Who's this donor?", "crm_donor", {"donor_id": did},
            {"donor": {"donor_id": did, "name": rng.choice(NAMES), "interactions": [{"at": ts(rng, "2024-0" + str(rng.randint(1, 9)) + "-1" + str(rng.randint(0, 9))),
                                                                                     "type": rng.choice(["call", "email", "event", "thank-you"])}
                                                                                    for _ in range(int(rng.randint(6, 9) * ROW_SCALE[0]))]}},
            "A regular; nothing to act on.")


scripted(
    id="nonprofit-donor-campaign", prefix="nd", title="Year-end donor appeal with a board match",
    description="A development officer's agent prepares a year-end appeal: the send waits for the director's sign-off from early on "
                "to the end; the match cap is corrected twice; a segment rebuild times out and is confirmed later; a match claim "
                "is in flight at a restart and never resolved; the processor and the CRM disagree on a nested gift amount. Only four "
                "decisions, all in the second half.",
    exercises_full=["an approval open from early in the conversation to the end while other work goes on",
                    "a value corrected twice by the user",
                    "a call that times out and is confirmed later by a status query",
                    "a call in flight at a restart that a later status query still cannot resolve",
                    "two tools disagreeing on a nested field, settled by the user",
                    "few decisions (four), all past the middle, with five or six probes each"],
    script=_nd_script, fillers=[_nd_f_gifts, _nd_f_stats, _nd_f_donor],
)


# ---------------------------------------------------------------------------------------------
# Sizing, writing, checking
# ---------------------------------------------------------------------------------------------
_COUNTER = None


def counter():
    global _COUNTER
    if _COUNTER is None:
        from pgctx.tokens import TokenCounter
        _COUNTER = TokenCounter.for_model("gpt-4o-mini")
    return _COUNTER


def sizes(b: Builder) -> list[int]:
    from pgctx.eventlog import event_tokens
    out = []
    for step in b.steps:
        if step["type"] == "event":
            out.append(event_tokens(step["kind"], step["payload"], counter()) or 0)
        elif step["type"] == "recover" and "_recovery_seq" in step:
            out.append(event_tokens("recovery", {}, counter()) or 0)
    return out


def fits(b: Builder, sz: list[int]) -> bool:
    return (EVENTS_RANGE[0] <= b.seq <= EVENTS_RANGE[1] and TOKENS_AIM[0] <= sum(sz) <= TOKENS_AIM[1]
            and max(sz) <= MAX_EVENT)


def make(S: dict) -> tuple[Builder, list[int]]:
    last = None
    for scale in (1.0, 1.4, 1.8, 2.2, 0.7):
        ROW_SCALE[0] = scale
        for tenth in range(4, 60):
            b = S.get("build", build)(S, tenth / 10)
            sz = sizes(b)
            last = (scale, b.seq, sum(sz), max(sz))
            if fits(b, sz):
                Oracle(S["id"], b.steps).check()
                return b, sz
            if b.seq > EVENTS_RANGE[1] or sum(sz) > TOKENS_AIM[1]:
                break
    raise SystemExit(f"{S['id']}: cannot fit the size ranges (events, tokens, max event at the last try: {last})")


def render(S: dict, b: Builder) -> str:
    header = {"pgctx_trajectory": 1, "id": S["id"], "title": S["title"],
              "exercises": S.get("exercises_full") or STANDARD_EXERCISES + S.get("exercises", []), "description": S["description"],
              "tools": [{"tool": t, "effect": TOOLS[t][0], "identifier_args": TOOLS[t][1], "description": TOOLS[t][2]}
                        for t in sorted(b.used_tools)]}
    lines = [json.dumps(header, ensure_ascii=False)]
    for step in b.steps:
        lines.append(json.dumps({k: v for k, v in step.items() if not k.startswith("_")}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def stats_row(S, b, sz):
    decisions = [s for s in b.steps if s["type"] == "decision"]
    classes = {c: 0 for c in ("fact", "tool_state", "next_call", "pending", "constraint", "evidence")}
    late = 0
    seq = 0
    for s in b.steps:
        if s["type"] == "event":
            seq = s["seq"]
        elif s["type"] == "recover" and "_recovery_seq" in s:
            seq = s["_recovery_seq"]
        elif s["type"] == "decision":
            for p in s["probes"]:
                classes[p["probe"]] += 1
                late += seq > b.seq / 2
    n = sum(classes.values())
    return [S["id"], b.seq, sum(sz), max(sz), sum(1 for x in sz if x >= LONG_OUTPUT), len(decisions), n,
            *classes.values(), late]


STATS_HEADER = ["trajectory", "events", "tokens", "max event", "long outputs", "decisions", "probes", "fact",
                "tool_state", "next_call", "pending", "constraint", "evidence", "late probes"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if a file differs from what would be written")
    ap.add_argument("--stats", action="store_true", help="print the statistics table")
    ap.add_argument("--markdown", action="store_true", help="with --stats: as a Markdown table")
    args = ap.parse_args()
    ids = [S["id"] for S in DOMAINS]
    assert len(ids) == len(set(ids))
    built = {}
    for S in DOMAINS:
        built[S["id"]] = (S, *make(S))
    if args.stats:
        rows = [stats_row(S, b, sz) for S, b, sz in built.values()]
        tot = ["total"] + [sum(r[i] for r in rows) if i != 3 else max(r[3] for r in rows) for i in range(1, len(STATS_HEADER))]
        if args.markdown:
            print("| " + " | ".join(STATS_HEADER) + " |")
            print("|" + "---|" * len(STATS_HEADER))
            for r in rows + [tot]:
                print("| " + " | ".join(str(c) for c in r) + " |")
        else:
            print(table(STATS_HEADER, rows + [tot]))
        return 0
    bad = 0
    for S, b, sz in built.values():
        path = HERE / f"{S['id']}.jsonl"
        text = render(S, b)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"differs: {path.name}")
                bad = 1
        else:
            path.write_text(text, encoding="utf-8")
    if args.check:
        extra = {p.name for p in HERE.glob("*.jsonl")} - {f"{i}.jsonl" for i in ids}
        for name in sorted(extra):
            print(f"not generated: {name}")
            bad = 1
        print("all files are what generate.py writes" if not bad else "files differ")
    return bad


if __name__ == "__main__":
    sys.exit(main())
