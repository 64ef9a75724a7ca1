"""Held-out set 2, part "short": 12 short agent sessions played in small windows (256-1,024 tokens).

Deterministic: every trajectory uses its own seeded random.Random for filler (sizes, timestamps,
ids that nothing refers to). Run from the checkout:

    .venv/bin/python bench/holdout2/short/generate.py            # write the .jsonl files beside this script
    .venv/bin/python bench/holdout2/short/generate.py --check    # exit 1 if the files on disk differ
    .venv/bin/python bench/holdout2/short/generate.py --stats    # table: file, id, window, events, tokens, ...

Written blind (see README.md): only the trajectory format, the probe rules and the payload
conventions were read; checked with `pgctx eval --replay-only` only.
"""

from __future__ import annotations

import json
import random
import string
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------------------------
# Tools: one declaration per name for the whole folder (effect, identifier_args)
# ---------------------------------------------------------------------------------------------

TOOLS: dict[str, tuple[str, list[str], str]] = {
    # file system (a session-scoped sandbox shell API)
    "fs_pwd": ("read", [], "print the session's working directory"),
    "fs_cd": ("read", ["path"], "change the session's working directory"),
    "fs_ls": ("read", ["path"], "list a directory (ls -lh style)"),
    "fs_find": ("read", ["root", "pattern"], "find files by glob under a root"),
    "fs_mkdir": ("write", ["path"], "create a directory"),
    "fs_mv": ("write", ["dest"], "move files into a destination"),
    "fs_rm": ("irreversible", ["paths"], "delete files"),
    "fs_read": ("read", ["path"], "read a text file"),
    "fs_edit": ("write", ["path"], "replace text in a file"),
    "fs_stat": ("read", ["path"], "stat a path"),
    "archive_extract": ("write", ["archive"], "extract a zip/tar archive"),
    "run_command": ("write", [], "run a shell command in the sandbox"),
    # messaging (Slack Web API)
    "slack_search_messages": ("read", ["query"], "search.messages"),
    "slack_post_message": ("write", ["channel"], "chat.postMessage"),
    "slack_update_message": ("write", ["channel", "ts"], "chat.update"),
    "slack_lookup_user": ("read", ["name"], "users.list filtered by name"),
    "slack_open_dm": ("write", ["users"], "conversations.open"),
    "slack_channel_history": ("read", ["channel"], "conversations.history"),
    "slack_add_reaction": ("write", ["channel", "timestamp"], "reactions.add"),
    # support ticketing (Zendesk) + shop backend
    "zd_search_tickets": ("read", ["query"], "Zendesk search"),
    "zd_get_ticket": ("read", ["ticket_id"], "Zendesk ticket with comments"),
    "zd_merge_tickets": ("irreversible", ["target_id"], "merge source tickets into a target"),
    "zd_update_ticket": ("write", ["ticket_id"], "comment on / update a ticket"),
    "shop_get_order": ("read", ["order_id"], "order with payments"),
    "shop_refund_charge": ("irreversible", ["order_id", "charge_id"], "refund a captured charge"),
    "accounts_send_password_reset": ("write", ["account_id"], "send a password-reset e-mail"),
    # stock trading (broker REST API)
    "broker_get_positions": ("read", ["account_id"], "positions and cash"),
    "broker_get_quote": ("read", ["symbol"], "real-time quote"),
    "broker_place_order": ("irreversible", ["account_id", "symbol"], "place an order"),
    "broker_list_orders": ("read", ["account_id"], "orders of the day"),
    "broker_modify_order": ("write", ["order_id"], "replace a working order"),
    "broker_get_order": ("read", ["order_id"], "one order with fills"),
    # travel booking (airline NDC / hotel API)
    "air_retrieve_booking": ("read", ["record_locator"], "retrieve a PNR"),
    "air_search_flights": ("read", ["origin", "destination", "date"], "shop for flights"),
    "air_change_flight": ("irreversible", ["record_locator"], "exchange a ticket onto an offer"),
    "air_get_seatmap": ("read", ["record_locator", "segment_id"], "seat map of a segment"),
    "air_assign_seat": ("write", ["record_locator", "segment_id"], "assign a seat"),
    "hotel_get_reservation": ("read", ["confirmation_number"], "hotel reservation"),
    "hotel_modify_reservation": ("write", ["confirmation_number"], "change dates of a reservation"),
    "hotel_search": ("read", ["location", "check_in", "check_out"], "hotel availability"),
    "hotel_book": ("irreversible", ["hotel_id", "rate_id"], "book a rate"),
    # smart home (Home Assistant)
    "ha_list_entities": ("read", [], "entities and states"),
    "ha_get_state": ("read", ["entity_id"], "one entity's state"),
    "ha_set_temperature": ("write", ["entity_id"], "climate.set_temperature"),
    "ha_lock": ("write", ["entity_id"], "lock.lock"),
    "ha_set_lock_code": ("write", ["entity_id", "code_slot"], "keypad user code (Z-Wave JS)"),
    "ha_create_automation": ("write", ["alias"], "create an automation"),
    "sms_send": ("write", ["to"], "send an SMS"),
    # banking (open-banking style REST API)
    "bank_list_accounts": ("read", [], "accounts, balances, cards"),
    "bank_add_payee": ("write", ["iban"], "add a payee (with Verification of Payee)"),
    "bank_create_transfer": ("irreversible", ["from_account_id", "payee_id"], "SEPA credit transfer"),
    "bank_list_transactions": ("read", ["account_id"], "booked and pending transactions"),
    "bank_freeze_card": ("write", ["card_id"], "freeze a card"),
    "bank_list_transfers": ("read", ["from_account_id"], "outgoing transfers"),
    # calendar (Google Calendar style)
    "cal_list_events": ("read", ["calendar_id", "date"], "events of a day"),
    "contacts_lookup": ("read", ["name"], "directory lookup"),
    "cal_update_event": ("write", ["event_id"], "patch an event"),
    "cal_cancel_event": ("write", ["event_id"], "cancel an event"),
    "cal_find_free_slots": ("read", ["attendees"], "free/busy query"),
    "cal_create_event": ("write", ["calendar_id"], "insert an event"),
    # car (connected-car REST API)
    "car_list_vehicles": ("read", [], "vehicles on the account"),
    "car_wake": ("write", ["vehicle_id"], "wake a vehicle"),
    "car_get_state": ("read", ["vehicle_id"], "vehicle data"),
    "car_set_valet_mode": ("write", ["vehicle_id"], "valet mode on/off with PIN"),
    "car_set_climate": ("write", ["vehicle_id"], "cabin preconditioning"),
    "car_set_charge_limit": ("write", ["vehicle_id"], "charge limit in percent"),
    "car_share_destination": ("write", ["vehicle_id"], "send a destination to the car"),
    # hosting + Stripe (devops)
    "render_list_services": ("read", ["name"], "Render services"),
    "render_list_deploys": ("read", ["service_id"], "deploys of a service"),
    "render_set_env_var": ("write", ["service_id", "key"], "set an environment variable"),
    "render_deploy": ("write", ["service_id"], "trigger a deploy"),
    "render_get_deploy": ("read", ["deploy_id"], "one deploy"),
    "render_get_logs": ("read", ["service_id"], "service logs"),
    "stripe_create_webhook_endpoint": ("write", ["url"], "POST /v1/webhook_endpoints"),
    "stripe_get_webhook_endpoint": ("read", ["id"], "GET /v1/webhook_endpoints/:id"),
    # e-commerce (shopper side)
    "orders_list": ("read", ["since"], "your orders"),
    "carrier_track": ("read", ["tracking_number"], "parcel scan history"),
    "orders_request_replacement": ("write", ["order_id", "item_id"], "replacement for a damaged item"),
    "orders_create_return": ("write", ["order_id", "item_id"], "start a return"),
    "catalog_search": ("read", ["query"], "product search"),
    "orders_place": ("irreversible", ["product_id"], "buy"),
    "orders_update_shipping": ("write", ["order_id"], "change a delivery address"),
    "orders_cancel_return": ("write", ["rma_id"], "cancel a return"),
}

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


class Traj:
    """Builds one trajectory: events get consecutive seqs, calls get ids, writes idempotency keys."""

    def __init__(self, num: int, slug: str, tid: str, title: str, window: int, seed: int,
                 exercises: list[str], description: str, tools: list[str]):
        self.file = f"{num:02d}_{slug}.jsonl"
        self.rng = random.Random(seed)
        self.header = {"pgctx_trajectory": 1, "id": tid, "title": title, "exercises": exercises,
                       "description": description, "window": window,
                       "tools": [{"tool": t, "effect": TOOLS[t][0], "identifier_args": TOOLS[t][1],
                                  "description": TOOLS[t][2]} for t in tools]}
        self.tools = set(tools)
        self.steps: list[dict] = []
        self.seq = 0

    # -- ids ----------------------------------------------------------------------------------
    def rid(self, n: int, alphabet: str = ALNUM) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    # -- events -------------------------------------------------------------------------------
    def ev(self, kind: str, payload: dict) -> int:
        self.seq += 1
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": self.seq})
        return self.seq

    def user(self, text: str) -> int:
        return self.ev("user", {"content": text})

    def asst(self, text: str) -> int:
        return self.ev("assistant", {"content": text})

    def call(self, tool: str, arguments: dict) -> tuple[int, str, str | None]:
        assert tool in self.tools, tool
        cid = "call_" + self.rid(10)
        payload = {"tool": tool, "call_id": cid, "arguments": arguments}
        idem = None
        if TOOLS[tool][0] != "read":
            idem = "ik_" + self.rid(16, HEX)
            payload["idempotency_key"] = idem
        return self.ev("tool_call", payload), cid, idem

    def result(self, cid: str, outcome: str = "succeeded", result=None, **extra) -> int:
        payload = {"call_id": cid, "outcome": outcome}
        if result is not None:
            payload["result"] = result
        payload.update(extra)
        return self.ev("tool_result", payload)

    def approval(self, aid: str, status: str, scopes: int, **extra) -> int:
        return self.ev("approval", {"approval_id": aid, "status": status, "scopes_event": scopes, **extra})

    def fact(self, key: str, value, kind: str = "fact", **extra) -> int:
        return self.ev(kind, {"key": key, "value": value, "authority": "user", **extra})

    def decision(self, did: str, probes: list[dict], note: str = "") -> None:
        # right after a user event (or the fact/correction recorded from it)
        kinds = [s["kind"] for s in self.steps if s["type"] == "event"]
        while kinds and kinds[-1] in ("fact", "correction"):
            kinds.pop()
        assert kinds and kinds[-1] == "user", f"{self.file} {did}: a decision follows a user event"
        self.steps.append({"type": "decision", "id": did, "probes": probes, "note": note})

    def lines(self) -> list[str]:
        return [json.dumps(self.header, ensure_ascii=False)] + \
               [json.dumps(s, ensure_ascii=False) for s in self.steps]


# probe helpers -------------------------------------------------------------------------------
def p_next(tool: str, why: str, **arguments) -> dict:
    assert tool in TOOLS
    return {"probe": "next_call", "tool": tool, "arguments": arguments, "why": why}


def p_fact(key: str, value, why: str, superseded=None, subject: str | None = None) -> dict:
    p = {"probe": "fact", "key": key, "value": value, "why": why}
    if subject:
        p["subject"] = subject
    if superseded:
        p["superseded"] = superseded
    return p


def p_state(why: str, status: str, call_id: str | None = None, idempotency_key: str | None = None,
            request_id: str | None = None) -> dict:
    p = {"probe": "tool_state", "status": status, "why": why}
    if call_id:
        p["call_id"] = call_id
    if idempotency_key:
        p["idempotency_key"] = idempotency_key
    if request_id:
        p["request_id"] = request_id
    return p


def p_pending(why: str, approval_id: str | None = None, call_id: str | None = None) -> dict:
    p = {"probe": "pending", "why": why}
    if approval_id:
        p["approval_id"] = approval_id
    if call_id:
        p["call_id"] = call_id
    return p


def p_constraint(seq: int, text: str, why: str) -> dict:
    return {"probe": "constraint", "seq": seq, "text": text, "why": why}


def p_evidence(seqs: list[int], why: str) -> dict:
    return {"probe": "evidence", "seqs": seqs, "why": why}


def text_of(t: Traj, seq: int) -> str:
    """The payload of event seq as JSON text (to assert that a constraint phrase is in it)."""
    for s in t.steps:
        if s["type"] == "event" and s["seq"] == seq:
            return json.dumps(s["payload"], ensure_ascii=False)
    raise KeyError(seq)


def check_constraint(t: Traj, seq: int, text: str) -> None:
    assert text.lower() in text_of(t, seq).lower(), (t.file, seq, text)


# =============================================================================================
# 01 file system: tidy Downloads, cd around, delete with approval (256)
# =============================================================================================
def t01() -> Traj:
    t = Traj(1, "fs-downloads-tidy", "h2s-fs-downloads-tidy", "Tidying ~/Downloads across two directories",
             256, 2101,
             ["the working directory moves (cd) and a later call needs the current one",
              "a folder created early is the destination of a move many turns later",
              "file names listed once by ls are the arguments of an irreversible delete",
              "an approval is still open while the user asks a side question",
              "a standing rule from the first message (never touch keep/)"],
             "A user has the agent tidy their Downloads folder: mkdir + mv of invoices, a find for a zip "
             "under Documents, cd there and extract, then moving one extracted file back to the folder made "
             "earlier and deleting two installers listed at the start (with approval).",
             ["fs_pwd", "fs_cd", "fs_ls", "fs_find", "fs_mkdir", "fs_mv", "fs_rm", "archive_extract"])
    r = t.rng
    s_rule = t.user("Can you tidy up my Downloads folder? One rule: never touch anything under Downloads/keep, "
                    "that's my tax stuff.")
    _, c, _ = t.call("fs_pwd", {})
    t.result(c, result={"cwd": "/home/dana"})
    _, c, _ = t.call("fs_cd", {"path": "Downloads"})
    t.result(c, result={"cwd": "/home/dana/Downloads"})
    _, c, _ = t.call("fs_ls", {"path": ".", "long": True})
    files = [("4.0K", "keep"),
             ("64K", "Invoice_Hetzner_R0019283746.pdf"),
             ("60K", "Invoice_Hetzner_R0019517730.pdf"),
             ("60K", "Invoice_Hetzner_R0019802214.pdf"),
             ("105M", "slack-desktop-4.41.105-amd64.deb"),
             ("128M", "Obsidian-1.7.7.AppImage"),
             (f"{r.uniform(1.1, 3.9):.1f}M", f"IMG_202409{r.randint(10, 28)}_{r.randint(100000, 235959)}.jpg")]
    out = "total 237M\n" + "\n".join(f"{sz:>4} {name}" for sz, name in files)
    t.result(c, result={"output": out})
    t.asst("Downloads has 3 Hetzner invoices, two installers (a .deb and an AppImage), a photo and the keep/ "
           "folder.")
    t.user("Make a folder invoices/2024 here and put the three Hetzner invoices in it.")
    t.decision("d1-first-move", [
        p_fact("cwd", "/home/dana/Downloads", "the relative path invoices/2024 is created in the current directory"),
        p_next("fs_mv", "the invoice file names come from the ls listing", sources="Invoice_Hetzner_R0019517730.pdf"),
    ])
    _, c, _ = t.call("fs_mkdir", {"path": "invoices/2024", "parents": True})
    t.result(c, result={"created": "/home/dana/Downloads/invoices/2024"})
    inv = [f[1] for f in files[1:4]]
    _, c, _ = t.call("fs_mv", {"sources": inv, "dest": "invoices/2024/"})
    t.result(c, result={"moved": 3, "dest": "/home/dana/Downloads/invoices/2024"})
    t.asst("Done: the 3 invoices are in invoices/2024.")
    t.user("There's also a zip of bank statements somewhere in my home, under Documents I think. Can you find it?")
    _, c, _ = t.call("fs_find", {"root": "/home/dana", "pattern": "*.zip"})
    t.result(c, result={"matches": ["/home/dana/Documents/bank/statements_2024_Q2.zip",
                                    "/home/dana/Projects/portfolio/dist/site-build.zip",
                                    "/home/dana/.local/share/fonts/Inter-4.0.zip"], "count": 3})
    t.asst("Found it: /home/dana/Documents/bank/statements_2024_Q2.zip.")
    t.user("Go into that bank folder and unzip it into a subfolder q2.")
    _, c, _ = t.call("fs_cd", {"path": "/home/dana/Documents/bank"})
    t.result(c, result={"cwd": "/home/dana/Documents/bank"})
    _, c, _ = t.call("archive_extract", {"archive": "statements_2024_Q2.zip", "dest": "q2"})
    t.result(c, result={"dest": "/home/dana/Documents/bank/q2", "count": 4,
                        "extracted": ["Kontoauszug_2024-04.pdf", "Kontoauszug_2024-05.pdf",
                                      "Kontoauszug_2024-06.pdf", "Kreditkarte_2024-Q2.pdf"]})
    t.asst("Extracted 4 files into q2: three monthly statements (April to June) and the Q2 credit card statement.")
    t.user("Move the April statement into the invoices folder from before, my accountant wants them together.")
    t.decision("d2-move-back", [
        p_fact("cwd", "/home/dana/Documents/bank", "the shell is no longer in Downloads",
               superseded=["/home/dana/Downloads", "/home/dana"]),
        p_next("fs_mv", "the April file comes from the extract result, the destination is the folder created at the "
               "start (an absolute path now, since the cwd moved)",
               sources="Kontoauszug_2024-04.pdf", dest="/home/dana/Downloads/invoices/2024"),
    ])
    _, c, _ = t.call("fs_mv", {"sources": ["q2/Kontoauszug_2024-04.pdf"], "dest": "/home/dana/Downloads/invoices/2024/"})
    t.result(c, result={"moved": 1, "dest": "/home/dana/Downloads/invoices/2024"})
    t.asst("Moved Kontoauszug_2024-04.pdf into Downloads/invoices/2024.")
    t.user("Now delete the two installers back in Downloads. Only those two.")
    check_constraint(t, s_rule, "never touch anything under Downloads/keep")
    t.decision("d3-delete", [
        p_next("fs_rm", "the installer names were only in the ls output at the start",
               path_1="slack-desktop-4.41.105-amd64.deb", path_2="Obsidian-1.7.7.AppImage"),
        p_fact("cwd", "/home/dana/Documents/bank", "'back in Downloads' means the files are not in the cwd: use "
               "absolute paths", superseded=["/home/dana/Downloads"]),
        p_constraint(s_rule, "never touch anything under Downloads/keep", "the delete must not reach keep/"),
    ])
    s_rm, c_rm, _ = t.call("fs_rm", {"paths": ["/home/dana/Downloads/slack-desktop-4.41.105-amd64.deb",
                                               "/home/dana/Downloads/Obsidian-1.7.7.AppImage"]})
    apr = "apr_" + t.rid(8)
    t.approval(apr, "requested", s_rm, action="delete 2 files permanently")
    t.user("Hang on, how big are they together? Is it even worth it?")
    t.decision("d4-approval-open", [
        p_pending("the delete waits for the user's approval", approval_id=apr),
        p_pending("the rm call has no answer yet", call_id=c_rm),
    ])
    t.asst("105 MB for the Slack .deb and 128 MB for the Obsidian AppImage: about 233 MB together.")
    t.user("Yeah, worth it. Delete them.")
    t.approval(apr, "granted", s_rm)
    t.result(c_rm, result={"removed": 2, "freed": "233M"})
    t.asst("Deleted both installers (233 MB freed). Nothing under keep/ was touched.")
    return t


# =============================================================================================
# 02 file system: restructure a monorepo's tests (768)
# =============================================================================================
PYPROJECT = '''[build-system]
requires = ["hatchling>=1.21"]
build-backend = "hatchling.build"

[project]
name = "acme-platform"
version = "0.38.2"
requires-python = ">=3.11"

[tool.ruff]
line-length = 110
target-version = "py311"
extend-exclude = ["services/*/migrations", "tools/codegen/out"]

[tool.pytest.ini_options]
minversion = "8.0"
addopts = "-ra --strict-markers --import-mode=importlib"
testpaths = [
    "libs/common/tests",
    "libs/money/tests",
    "services/billing/billing",
    "services/billing/scripts",
    "services/catalog/tests",
    "services/notify/tests",
]
markers = [
    "integration: needs docker-compose services (postgres, redis)",
    "slow: takes more than 5 s",
]
filterwarnings = ["error::DeprecationWarning:acme.*"]

'''


def t02() -> Traj:
    t = Traj(2, "fs-monorepo-tests", "h2s-fs-monorepo-tests", "Moving a service's tests into a tests/ tree",
             768, 2202,
             ["cd into a subdirectory, mkdir and mv relative to it, cd back to the repo root",
              "the repo root printed once by pwd is needed after many turns",
              "file names found by find and by a test run are moved later",
              "a 'leave it where it is' instruction must survive until the end"],
             "A developer has the agent move the billing service's test files into tests/unit and "
             "tests/integration, run pytest, fix a misplaced test, then fix pytest testpaths in the root "
             "pyproject.toml and confirm the legacy test was left alone.",
             ["fs_pwd", "fs_cd", "fs_find", "fs_mkdir", "fs_mv", "run_command", "fs_read", "fs_edit", "fs_stat"])
    r = t.rng
    root = "/srv/checkout/acme-platform"
    bill = root + "/services/billing"
    t.user("I'm restructuring the billing service's tests in the acme-platform monorepo. Where is this shell "
           "sitting right now?")
    _, c, _ = t.call("fs_pwd", {})
    t.result(c, result={"cwd": root})
    t.asst(f"At the repo root, {root}.")
    t.user("Go into services/billing and find every test file.")
    _, c, _ = t.call("fs_cd", {"path": "services/billing"})
    t.result(c, result={"cwd": bill})
    _, c, _ = t.call("fs_find", {"root": ".", "pattern": "test_*.py"})
    matches = ["./billing/test_invoice.py", "./billing/test_proration.py", "./billing/test_tax_rules.py",
               "./billing/adapters/test_stripe_adapter.py", "./billing/adapters/test_adyen_adapter.py",
               "./billing/legacy/test_old_rates.py", "./scripts/test_backfill_credits.py"]
    t.result(c, result={"root": bill, "matches": matches, "count": len(matches)})
    t.asst("7 test files: test_invoice, test_proration, test_tax_rules (billing/), the Stripe and Adyen adapter "
           "tests (billing/adapters/), test_old_rates (billing/legacy/) and test_backfill_credits (scripts/).")
    s_leave = t.user("Create tests/unit and tests/integration here. Adapter tests go to integration, everything "
                     "else to unit, except the legacy one: leave that exactly where it is, the whole legacy module "
                     "gets deleted next sprint.")
    _, c, _ = t.call("fs_mkdir", {"path": ["tests/unit", "tests/integration"], "parents": True})
    t.result(c, result={"created": [bill + "/tests", bill + "/tests/unit", bill + "/tests/integration"]})
    _, c, _ = t.call("fs_mv", {"sources": ["billing/test_invoice.py", "billing/test_proration.py",
                                           "billing/test_tax_rules.py", "scripts/test_backfill_credits.py"],
                               "dest": "tests/unit/"})
    t.result(c, result={"moved": 4, "dest": bill + "/tests/unit"})
    _, c, _ = t.call("fs_mv", {"sources": ["billing/adapters/test_stripe_adapter.py",
                                           "billing/adapters/test_adyen_adapter.py"], "dest": "tests/integration/"})
    t.result(c, result={"moved": 2, "dest": bill + "/tests/integration"})
    t.asst("Moved 4 files to tests/unit and 2 to tests/integration; billing/legacy/test_old_rates.py is untouched.")
    t.user("Run the unit tests so we know the imports still resolve.")
    _, c, _ = t.call("run_command", {"command": "python -m pytest tests/unit -q", "cwd": bill, "timeout_s": 300})
    log = f"""==================================== ERRORS ====================================
_____________ ERROR collecting tests/unit/test_backfill_credits.py _____________
ImportError while importing test module '{bill}/tests/unit/test_backfill_credits.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
/usr/lib/python3.11/importlib/__init__.py:126: in import_module
    return _bootstrap._gcd_import(name[level:], package, level)
tests/unit/test_backfill_credits.py:7: in <module>
    from scripts.backfill_credits import backfill, BackfillConfig
E   ModuleNotFoundError: No module named 'scripts'
=========================== short test summary info ============================
ERROR tests/unit/test_backfill_credits.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
1 error in {r.uniform(1.5, 2.5):.2f}s"""
    t.result(c, result={"exit_code": 2, "output": log})
    t.asst("Collection fails on tests/unit/test_backfill_credits.py: it imports scripts.backfill_credits, which "
           "isn't importable from the new location.")
    t.user("Right, that one needs the database anyway, it's really an integration test. Move it over.")
    t.decision("d1-fix-misplaced", [
        p_next("fs_mv", "the failing file's path is in the pytest output; the destination was created earlier",
               source="tests/unit/test_backfill_credits.py", dest="tests/integration"),
        p_fact("cwd", bill, "relative paths resolve against services/billing"),
    ])
    _, c, _ = t.call("fs_mv", {"sources": ["tests/unit/test_backfill_credits.py"], "dest": "tests/integration/"})
    t.result(c, result={"moved": 1, "dest": bill + "/tests/integration"})
    _, c, _ = t.call("run_command", {"command": "python -m pytest tests/unit -q", "cwd": bill, "timeout_s": 300})
    n = r.randint(58, 72)
    t.result(c, result={"exit_code": 0, "output": "." * 48 + " [ 74%]\n" + "." * (n - 48) + " [100%]\n"
                        f"{n} passed in {r.uniform(3, 5):.2f}s"})
    t.asst(f"Unit tests pass now: {n} passed.")
    t.user("Good. Now the root pyproject: I suspect pytest testpaths still points at the old places. Go back to "
           "the repo root and show me.")
    t.decision("d2-back-to-root", [
        p_next("fs_cd", "the repo root was printed once by pwd at the very start", path=root),
    ])
    _, c, _ = t.call("fs_cd", {"path": root})
    t.result(c, result={"cwd": root})
    _, c, _ = t.call("fs_read", {"path": "pyproject.toml"})
    t.result(c, result={"path": root + "/pyproject.toml", "size": len(PYPROJECT), "content": PYPROJECT})
    t.asst("testpaths still lists services/billing/billing and services/billing/scripts; nothing points at "
           "services/billing/tests.")
    t.user("Replace those two billing entries with services/billing/tests. Then check the legacy test is still "
           "where it was, and tell me where we are now.")
    check_constraint(t, s_leave, "leave that exactly where it is")
    t.decision("d3-edit-and-verify", [
        p_fact("cwd", root, "the shell is back at the repo root", superseded=[bill]),
        p_next("fs_stat", "the legacy test's name and folder come from the find result", path="billing/legacy/test_old_rates.py"),
        p_constraint(s_leave, "leave that exactly where it is", "the legacy test must not have been moved"),
    ])
    _, c, _ = t.call("fs_edit", {"path": "pyproject.toml",
                                 "old": '    "services/billing/billing",\n    "services/billing/scripts",\n',
                                 "new": '    "services/billing/tests",\n'})
    t.result(c, result={"path": root + "/pyproject.toml", "replacements": 1})
    _, c, _ = t.call("fs_stat", {"path": "services/billing/billing/legacy/test_old_rates.py"})
    t.result(c, result={"path": bill + "/billing/legacy/test_old_rates.py", "type": "file", "size": 4187,
                        "modified": "2024-03-11T09:42:17Z"})
    t.asst(f"testpaths now has services/billing/tests instead of the two old entries. billing/legacy/"
           f"test_old_rates.py is still in place (last modified in March). We're at the repo root, {root}.")
    return t


# =============================================================================================
# 03 messaging: Slack thread reply, DM lookup, edit, reaction (512)
# =============================================================================================
def t03() -> Traj:
    t = Traj(3, "slack-launch-thread", "h2s-slack-launch-thread", "Slack: confirm a launch date, DM a partner, react",
             512, 2303,
             ["a channel id and message ts returned by search are used for a thread reply",
              "a user id looked up by name -> a DM channel id -> a message ts used for an edit later",
              "a link the user typed once is corrected; the corrected one is current",
              "a ts from a long channel history is used for a reaction"],
             "A product manager has the agent reply in a Slack thread, DM a colleague found by name, fix a wrong "
             "link by editing the DM, summarize a channel and react to one message, then DM the colleague again.",
             ["slack_search_messages", "slack_post_message", "slack_lookup_user", "slack_open_dm",
              "slack_update_message", "slack_channel_history", "slack_add_reaction"])
    r = t.rng
    chan, tomas = "C05KZ2M7QHT", "U04R9JX2B1L"
    t.user("Find Tomás's message about the Q3 launch date in #launch-planning.")
    _, c, _ = t.call("slack_search_messages", {"query": "launch date in:#launch-planning from:@tomas", "count": 5})
    t.result(c, result={"ok": True, "messages": {"total": 2, "matches": [
        {"channel": {"id": chan}, "user": tomas, "ts": "1727093841.402919",
         "text": "Proposal: Q3 launch on Oct 7 or Oct 14. Oct 14 gives QA a full regression week. Need a decision "
                 "by Friday."},
        {"channel": {"id": chan}, "user": tomas, "ts": "1726830112.118004",
         "text": "Launch date still TBD, blocked on billing."}]}})
    t.asst("Tomás proposed Oct 7 or Oct 14 (Oct 14 gives QA a full regression week) and asked product to decide "
           "by Friday.")
    t.user("Reply in that thread: \"Confirmed, we're going with Oct 14. Priya\"")
    t.decision("d1-thread-reply", [
        p_next("slack_post_message", "the thread is identified by the channel id and ts from the search",
               channel=chan, thread_ts="1727093841.402919"),
    ])
    _, c, _ = t.call("slack_post_message", {"channel": chan, "thread_ts": "1727093841.402919",
                                            "text": "Confirmed, we're going with Oct 14. Priya"})
    t.result(c, result={"ok": True, "channel": chan, "ts": "1727187322.118309"})
    t.fact("launch_date", "2024-10-14")
    t.asst("Posted in the thread.")
    t.user("Also DM Marguerite Okafor the launch brief, https://docs.acme.io/d/8f3k2 (there are two "
           "Marguerites).")
    _, c, _ = t.call("slack_lookup_user", {"name": "Marguerite"})
    t.result(c, result={"ok": True, "members": [
        {"id": "U02HQ8W3N6P", "name": "marguerite.okafor", "real_name": "Marguerite Okafor",
         "title": "Head of Partnerships", "tz": "Europe/London"},
        {"id": "U06BD1Z9K3R", "name": "marguerite.lin", "real_name": "Marguerite Lin",
         "title": "Data Engineer", "tz": "America/Los_Angeles"}]})
    _, c, _ = t.call("slack_open_dm", {"users": "U02HQ8W3N6P"})
    t.result(c, result={"ok": True, "channel": {"id": "D07A1C9RT4M"}})
    _, c, _ = t.call("slack_post_message", {"channel": "D07A1C9RT4M",
                                            "text": "Hi Marguerite, here's the launch brief: https://docs.acme.io/d/8f3k2"})
    t.result(c, result={"ok": True, "channel": "D07A1C9RT4M", "ts": "1727187544.330871"})
    t.fact("launch_brief_link", "https://docs.acme.io/d/8f3k2")
    t.asst("Sent to Marguerite Okafor (Head of Partnerships).")
    t.user("Oops, wrong link. The right one is https://docs.acme.io/d/9x7q1 . Edit that DM, don't send a new one.")
    t.fact("launch_brief_link", "https://docs.acme.io/d/9x7q1", kind="correction")
    t.decision("d2-edit-dm", [
        p_next("slack_update_message", "an edit needs the DM channel id and the ts of the sent message",
               channel="D07A1C9RT4M", ts="1727187544.330871"),
    ])
    _, c, _ = t.call("slack_update_message", {"channel": "D07A1C9RT4M", "ts": "1727187544.330871",
                                              "text": "Hi Marguerite, here's the launch brief: https://docs.acme.io/d/9x7q1"})
    t.result(c, result={"ok": True, "channel": "D07A1C9RT4M", "ts": "1727187544.330871"})
    t.asst("Edited: the DM now has the 9x7q1 link.")
    t.user("What's happened in #launch-planning since yesterday? Short summary please.")
    _, c, _ = t.call("slack_channel_history", {"channel": chan, "oldest": "1727100000", "limit": 20})
    msgs = [
        ("U03J5WQ2M8E", "1727161205.551902", "QA: regression green on rc3, 2 flaky tests quarantined."),
        (tomas, "1727163390.229014", "Oct 14 timeline is in the tracker. Priya, can you +1 this?"),
        ("U01F9PL4T6A", "1727165017.774130", "Billing dry run #2 done, 41 min, no diffs."),
        (tomas, "1727171128.661347", "Code freeze: 11th, EOD Pacific."),
    ]
    t.result(c, result={"ok": True, "has_more": False, "messages": [
        {"user": u, "ts": ts, "text": txt} for u, ts, txt in reversed(msgs)]})
    t.asst("Since yesterday: QA is green on rc3 (2 flaky tests quarantined); Tomás put the Oct 14 timeline in the "
           "tracker and wants your 👍 on it; billing dry run #2 went clean (41 min); code freeze is the 11th EOD "
           "Pacific.")
    t.user("Give Tomás his thumbs-up on the timeline message.")
    t.decision("d3-reaction", [
        p_next("slack_add_reaction", "the timeline message's ts is one line of the history listing",
               channel=chan, timestamp="1727163390.229014"),
    ])
    _, c, _ = t.call("slack_add_reaction", {"channel": chan, "timestamp": "1727163390.229014", "name": "+1"})
    t.result(c, result={"ok": True})
    t.asst("Done, 👍 added.")
    t.user("Last one: DM Marguerite again that code freeze is the 11th, and include the brief link once more so "
           "she has it at hand.")
    t.decision("d4-second-dm", [
        p_next("slack_post_message", "the DM channel was opened many turns ago; the link is the corrected one",
               channel="D07A1C9RT4M", link="https://docs.acme.io/d/9x7q1"),
        p_fact("launch_brief_link", "https://docs.acme.io/d/9x7q1", "the first link was wrong",
               superseded=["https://docs.acme.io/d/8f3k2"]),
        p_fact("launch_date", "2024-10-14", "the launch date confirmed in the thread"),
    ])
    _, c, _ = t.call("slack_post_message", {"channel": "D07A1C9RT4M",
                                            "text": "FYI code freeze is Oct 11 EOD Pacific, launch Oct 14. Brief: "
                                                    "https://docs.acme.io/d/9x7q1"})
    t.result(c, result={"ok": True, "channel": "D07A1C9RT4M", "ts": "1727189012.447203"})
    t.asst("Sent to Marguerite with the corrected link.")
    return t


# =============================================================================================
# 04 support ticketing: merge, refund with timeout, second ticket, back to the first (1024)
# =============================================================================================
def t04() -> Traj:
    t = Traj(4, "zendesk-double-charge", "h2s-zendesk-double-charge", "Support: double charge, merge, refund, reset",
             1024, 2404,
             ["an order id typed once by the support rep is needed after a merge",
              "a charge id from a long order record is refunded; the refund call times out",
              "an irreversible call with unknown outcome: check, don't retry",
              "a ticket id and refund id are needed again after another ticket was handled"],
             "A support rep has the agent merge two duplicate tickets, refund a duplicate charge (the call times "
             "out and is checked with a status query), answer the customer, handle an unrelated login ticket, "
             "then return to the first customer who asks for the refund reference.",
             ["zd_search_tickets", "zd_get_ticket", "zd_merge_tickets", "zd_update_ticket", "shop_get_order",
              "shop_refund_charge", "accounts_send_password_reset"])
    r = t.rng
    order = "4471-22918"
    t.user(f"Customer Hana Kimura (hana.kimura@fastmail.jp) says she was charged twice for order {order}. "
           "Pull up her open tickets.")
    _, c, _ = t.call("zd_search_tickets", {"query": "type:ticket requester:hana.kimura@fastmail.jp status<solved"})
    t.result(c, result={"count": 2, "results": [
        {"id": 58213, "subject": "Charged twice", "status": "open", "priority": "normal",
         "created_at": "2024-10-08T07:12:44Z", "via": {"channel": "email"}, "assignee_id": None,
         "description": "Hi, I see two charges of 189.90 EUR on my card for the same order. Please refund one."},
        {"id": 58240, "subject": "Double charge on my card!!", "status": "new", "priority": "high",
         "created_at": "2024-10-08T09:03:10Z", "via": {"channel": "web"}, "assignee_id": None,
         "description": "Still no answer. You charged me twice (order 4471-22918). I want my money back."}],
        "next_page": None})
    t.asst("Two open tickets: #58213 \"Charged twice\" (email, open) and #58240 \"Double charge on my card!!\" "
           "(web, new, high).")
    t.user("Same issue. Merge 58240 into 58213.")
    s_m, c, _ = t.call("zd_merge_tickets", {"target_id": 58213, "ids": [58240],
                                           "target_comment": "Merged with #58240 (duplicate).",
                                           "source_comment": "Closing as duplicate of #58213."})
    apr = "apr_" + t.rid(8)
    t.approval(apr, "requested", s_m, action="merge #58240 into #58213 (cannot be undone)")
    t.user("Yes, merge.")
    t.approval(apr, "granted", s_m)
    t.result(c, result={"job_status": {"id": "V3-" + t.rid(24, HEX), "status": "completed",
                                       "message": "Completed at 2024-10-08 10:21:07 +0000"}})
    t.asst("Merged: #58240 is closed as a duplicate, everything is on #58213.")
    t.user("Now look at the order.")
    t.decision("d1-order", [
        p_next("shop_get_order", "the order id was typed once in the first message", order_id=order),
    ])
    _, c, _ = t.call("shop_get_order", {"order_id": order, "expand": ["payments", "items"]})
    ch1, ch2 = "ch_3PqA8sLkd92mZx1", "ch_3PqAC4Lkd92mZx7"
    t.result(c, result={"order": {
        "id": order, "status": "fulfilled", "placed_at": "2024-10-06T18:40:02Z", "currency": "EUR",
        "customer": {"id": "cus_QkZ81mT", "email": "hana.kimura@fastmail.jp", "name": "Hana Kimura"},
        "items": [{"sku": "KB-75-TKL-BRN", "name": "Keychron Q3 Max (brown switches)", "qty": 1, "price": "179.90"},
                  {"sku": "SHIP-STD-DE", "name": "Standard shipping", "qty": 1, "price": "10.00"}],
        "total": "189.90",
        "payments": [
            {"charge_id": ch1, "amount": "189.90", "status": "captured", "created": "2024-10-06T18:40:05Z",
             "card": {"brand": "visa", "last4": "4242"}, "attempt": 1},
            {"charge_id": ch2, "amount": "189.90", "status": "captured", "created": "2024-10-06T18:44:31Z",
             "card": {"brand": "visa", "last4": "4242"}, "attempt": 2,
             "note": "retry after client-side 504 on /checkout/confirm"}],
        "shipments": [{"carrier": "DHL", "tracking": "JJD0099" + t.rid(11, "0123456789"),
                       "delivered_at": "2024-10-08T13:02:00Z"}]}})
    t.asst(f"Confirmed: two captured charges of 189.90 EUR on the same Visa: {ch1} at 18:40 and {ch2} at 18:44 "
           "(a retry after a checkout 504). The order total is 189.90.")
    t.user("Refund the second charge in full, reason duplicate.")
    s_rf, c_rf, ik_rf = t.call("shop_refund_charge", {"order_id": order, "charge_id": ch2, "amount": "189.90",
                                                      "reason": "duplicate"})
    s_to = t.result(c_rf, "timeout", error="upstream timeout after 30s (payments-gateway)")
    t.asst("The refund request timed out, so I don't know yet whether it went through.")
    s_noretry = t.user("Did it go through or not? Don't just retry, we've had double refunds before.")
    t.decision("d2-unknown-refund", [
        p_state("the refund call timed out: its outcome is unknown, not failed", "unknown", call_id=c_rf),
        p_evidence([s_rf, s_to], "an irreversible money movement with unknown outcome: the call and the timeout "
                   "must be seen verbatim"),
    ])
    rf = "re_3PqLx0Lkd92mZx4"
    t.ev("status_query", {"call_id": c_rf, "outcome": "succeeded", "request_id": rf, "refund_id": rf,
                          "refund_status": "succeeded", "amount": "189.90"})
    t.asst(f"It went through: refund {rf}, 189.90 EUR, status succeeded. No retry needed.")
    t.user("Good. Reply to Hana: apologize, the refund takes 5 to 10 business days. Set the ticket to pending.")
    _, c, _ = t.call("zd_update_ticket", {"ticket_id": 58213, "status": "pending", "comment": {
        "body": "Hi Hana, we're sorry about the double charge. We've refunded the duplicate payment of 189.90 EUR; "
                "it will show on your card within 5 to 10 business days.", "public": True}})
    t.result(c, result={"ticket": {"id": 58213, "status": "pending", "updated_at": "2024-10-08T10:28:40Z"}})
    t.asst("Replied on #58213, status pending.")
    t.ev("subtask_end", {"summary": "double charge on order 4471-22918 handled"})
    t.user("Next: ticket 58301, someone can't log in after changing their email.")
    _, c, _ = t.call("zd_get_ticket", {"ticket_id": 58301, "include": ["comments", "users"]})
    t.result(c, result={"ticket": {"id": 58301, "subject": "Can't log in anymore", "status": "open",
                                   "requester": {"name": "Ole Brandt", "email": "ole.brandt@posteo.de"},
                                   "custom_fields": {"account_id": "acc_7NQ2VX0E"}},
                        "comments": [
                            {"author": "Ole Brandt", "public": True, "created_at": "2024-10-07T21:14:09Z",
                             "body": "Hi, last week I changed my account email from ole.brandt@posteo.de to "
                                     "o.brandt@mailbox.org. Since then the login page says 'no account with this "
                                     "email' for the new one, and the old one says wrong password. The reset mail "
                                     "never arrives. Please help, I have an open order."},
                            {"author": "Support Bot", "public": True, "created_at": "2024-10-07T21:14:11Z",
                             "body": "Thanks for contacting us! A member of our team will reply shortly."},
                            {"author": "Ole Brandt", "public": True, "created_at": "2024-10-08T08:02:55Z",
                             "body": "Checked spam on both addresses, nothing. The account is acc_7NQ2VX0E if that "
                                     "helps."}]})
    t.asst("Ole Brandt (acc_7NQ2VX0E) changed his email to o.brandt@mailbox.org; the reset mail never arrives.")
    t.user("Send him a password reset to the new address, then mark the ticket solved with a short note.")
    t.decision("d3-reset", [
        p_next("accounts_send_password_reset", "the account id and the new address are in the ticket's comments",
               account_id="acc_7NQ2VX0E", email="o.brandt@mailbox.org"),
    ])
    _, c, _ = t.call("accounts_send_password_reset", {"account_id": "acc_7NQ2VX0E", "email": "o.brandt@mailbox.org"})
    t.result(c, result={"sent": True, "email": "o.brandt@mailbox.org", "expires_in": 3600,
                        "email_verified": False})
    _, c, _ = t.call("zd_update_ticket", {"ticket_id": 58301, "status": "solved", "comment": {
        "body": "Hi Ole, we've sent a password reset link to o.brandt@mailbox.org (valid for 1 hour).",
        "public": True}})
    t.result(c, result={"ticket": {"id": 58301, "status": "solved", "updated_at": "2024-10-08T10:36:13Z"}})
    t.user("Back to the double charge: Hana just replied asking for a refund reference for her bank. Add it to "
           "her ticket as a public reply.")
    check_constraint(t, s_noretry, "Don't just retry")
    t.decision("d4-back-to-hana", [
        p_next("zd_update_ticket", "her open ticket is the merge target; the reference is the refund id",
               ticket_id="58213", refund_id=rf),
        p_fact("refund_id", rf, "the refund id came from the status query after the timeout"),
        p_state("the refund is known to have succeeded (status query), with its id", "succeeded", call_id=c_rf,
                request_id=rf),
    ])
    _, c, _ = t.call("zd_update_ticket", {"ticket_id": 58213, "comment": {
        "body": f"Hi Hana, the refund reference is {rf} (189.90 EUR, issued 8 Oct 2024).", "public": True}})
    t.result(c, result={"ticket": {"id": 58213, "status": "pending", "updated_at": "2024-10-08T10:41:30Z"}})
    t.asst(f"Replied on #58213 with the refund reference {rf}.")
    return t


# =============================================================================================
# 05 stock trading: account typed once, order timeout, modify, second order (512)
# =============================================================================================
def t05() -> Traj:
    t = Traj(5, "broker-amd-order", "h2s-broker-amd-order", "Trading: a timed-out limit order, then a modify",
             512, 2505,
             ["an account number typed once ('not the joint one') is needed for every order",
              "an irreversible order call times out: check its state, never resend blindly",
              "an order id found afterwards is the subject of a modify and a status check",
              "a limit price is replaced; the new one is current"],
             "A user trades from their IRA: checks positions and a quote, places an AMD limit order whose "
             "request times out (found working afterwards), modifies it, sells half of a position, and asks "
             "later what the AMD order's limit is now.",
             ["broker_get_positions", "broker_get_quote", "broker_place_order", "broker_list_orders",
              "broker_modify_order", "broker_get_order"])
    r = t.rng
    acct = "U8841203"
    s_acct = t.user(f"I'm trading from my IRA today, account {acct}, not the joint one. Show me my positions.")
    t.fact("account_id", acct)
    _, c, _ = t.call("broker_get_positions", {"account_id": acct})
    t.result(c, result={"account_id": acct, "currency": "USD", "cash": "24,880.15", "positions": [
        {"symbol": "NVDA", "qty": 120, "avg_cost": "61.42", "market_price": "118.35", "unrealized_pnl": "6832.80"},
        {"symbol": "MSFT", "qty": 45, "avg_cost": "301.10", "market_price": "416.06", "unrealized_pnl": "5173.20"},
        {"symbol": "AAPL", "qty": 200, "avg_cost": "148.77", "market_price": "226.80", "unrealized_pnl": "15606.00"},
        {"symbol": "VTI", "qty": 310, "avg_cost": "201.33", "market_price": "284.12", "unrealized_pnl": "25664.90"}]})
    t.asst("IRA U8841203: 24,880.15 cash; NVDA 120, MSFT 45, AAPL 200, VTI 310, all in profit.")
    t.user("What's AMD at?")
    _, c, _ = t.call("broker_get_quote", {"symbol": "AMD"})
    t.result(c, result={"symbol": "AMD", "last": "153.42", "bid": "153.40", "ask": "153.44", "day_high": "155.90",
                        "day_low": "151.77", "volume": 31877412, "as_of": "2024-10-09T14:31:07-04:00"})
    t.asst("AMD last 153.42 (bid 153.40 / ask 153.44), day range 151.77 to 155.90.")
    t.user("Buy 150 AMD, limit 152.50, good for the day.")
    t.decision("d1-place", [
        p_next("broker_place_order", "the account was given once, in the first message", account_id=acct),
        p_constraint(s_acct, "not the joint one", "the order must go to the IRA, not the joint account"),
    ])
    s_po, c_po, ik_po = t.call("broker_place_order", {"account_id": acct, "symbol": "AMD", "side": "buy",
                                                      "qty": 150, "type": "limit", "limit_price": "152.50",
                                                      "time_in_force": "day"})
    apr = "apr_" + t.rid(8)
    t.approval(apr, "requested", s_po, action="BUY 150 AMD LMT 152.50 DAY in U8841203")
    t.user("Confirm.")
    t.approval(apr, "granted", s_po)
    s_to = t.result(c_po, "timeout", error="gateway timeout (no response in 15s)")
    t.asst("The order request timed out; I can't tell yet whether the broker received it.")
    t.user("Ugh. Don't place it again until you know. Check.")
    t.decision("d2-unknown-order", [
        p_state("the order call timed out: unknown, not failed and not filled", "unknown", call_id=c_po),
        p_evidence([s_po, s_to], "an irreversible order with unknown outcome: call and timeout verbatim"),
        p_next("broker_list_orders", "look the order up in the same account", account_id=acct),
    ])
    _, c, _ = t.call("broker_list_orders", {"account_id": acct, "status": "all", "date": "2024-10-09"})
    oid = "1087754213"
    t.result(c, result={"account_id": acct, "orders": [
        {"order_id": oid, "client_order_id": ik_po, "symbol": "AMD", "side": "buy", "qty": 150,
         "filled_qty": 0, "type": "limit", "limit_price": "152.50", "tif": "day", "status": "submitted",
         "submitted_at": "2024-10-09T14:32:02-04:00"}]})
    t.ev("status_query", {"call_id": c_po, "outcome": "succeeded", "request_id": oid, "order_id": oid})
    t.asst(f"The broker did receive it: order {oid}, BUY 150 AMD limit 152.50, working, nothing filled yet.")
    t.user("Actually make it 100 shares instead of 150, and raise the limit to 152.80.")
    _, c, _ = t.call("broker_modify_order", {"order_id": oid, "qty": 100, "limit_price": "152.80"})
    t.result(c, result={"order_id": oid, "status": "submitted", "qty": 100, "limit_price": "152.80",
                        "replaced_at": "2024-10-09T14:36:40-04:00"})
    t.asst(f"Order {oid} is now 100 AMD at 152.80.")
    t.user("And sell half my NVDA at market.")
    t.decision("d3-second-order", [
        p_next("broker_place_order", "same IRA account, typed only at the start", account_id=acct),
        p_state("the AMD order is known to have been received, as order 1087754213", "succeeded", call_id=c_po,
                request_id=oid),
    ])
    s_p2, c_p2, _ = t.call("broker_place_order", {"account_id": acct, "symbol": "NVDA", "side": "sell", "qty": 60,
                                                  "type": "market", "time_in_force": "day"})
    apr2 = "apr_" + t.rid(8)
    t.approval(apr2, "requested", s_p2, action="SELL 60 NVDA MKT DAY in U8841203")
    t.user("Yes.")
    t.approval(apr2, "granted", s_p2)
    t.result(c_p2, result={"order_id": "1087754990", "symbol": "NVDA", "side": "sell", "status": "filled",
                           "filled_qty": 60, "avg_fill_price": "118.07", "filled_at": "2024-10-09T14:38:12-04:00"})
    t.asst("Sold 60 NVDA at an average 118.07 (order 1087754990). You still hold 60.")
    t.user("Is the AMD order still working? And what's its limit now?")
    t.decision("d4-amd-status", [
        p_next("broker_get_order", "the AMD order id came from the order list after the timeout", order_id=oid),
        p_fact("limit_price", "152.80", "the limit was raised", superseded=["152.50"]),
    ])
    _, c, _ = t.call("broker_get_order", {"order_id": oid})
    t.result(c, result={"order_id": oid, "symbol": "AMD", "status": "partially_filled", "qty": 100,
                        "filled_qty": 40, "avg_fill_price": "152.79", "limit_price": "152.80",
                        "fills": [{"qty": 40, "price": "152.79", "time": "2024-10-09T14:41:55-04:00"}]})
    t.asst("Still working: 40 of 100 filled at 152.79, limit 152.80, good for the day.")
    return t


# =============================================================================================
# 06 travel: PNR typed once, flight change with approval, hotel extension fails, seat (1024)
# =============================================================================================
def t06() -> Traj:
    t = Traj(6, "travel-pnr-change", "h2s-travel-pnr-change", "Travel: change a return flight and fix the hotel",
             1024, 2606,
             ["a record locator and surname typed once are needed until the end",
              "an offer id from a search is exchanged onto the ticket after an approval",
              "a hotel confirmation number typed once; its modification fails",
              "the ticket number changes with the exchange; the new one is current"],
             "A traveller has the agent move a return flight from the 12th to the 14th (the approval stays open "
             "while they ask about the hotel), the hotel extension fails so a new hotel is booked, and a window "
             "seat is assigned on the new flight.",
             ["air_retrieve_booking", "air_search_flights", "air_change_flight", "air_get_seatmap",
              "air_assign_seat", "hotel_get_reservation", "hotel_modify_reservation", "hotel_search", "hotel_book"])
    r = t.rng
    pnr, last = "7HJK2L", "Vasquez-Rey"
    t.user(f"I need to change my flight home. Booking ref {pnr}, surname {last}.")
    _, c, _ = t.call("air_retrieve_booking", {"record_locator": pnr, "last_name": last})
    t.result(c, result={"record_locator": pnr, "created": "2024-08-19T11:02:00Z", "passengers": [
        {"pax_id": "PAX1", "name": "VASQUEZ-REY/ELENA MS", "ff": "LH 992004871133"}],
        "ticket_number": "220-2451198834", "fare_basis": "KNCOW2", "cabin": "economy",
        "segments": [
            {"segment_id": "SEG1", "flight": "LH1169", "from": "FRA", "to": "LIS", "dep": "2024-11-04T09:45",
             "arr": "2024-11-04T11:55", "status": "flown"},
            {"segment_id": "SEG2", "flight": "LH1173", "from": "LIS", "to": "FRA", "dep": "2024-11-12T12:45",
             "arr": "2024-11-12T16:45", "status": "confirmed", "seat": "31C"},
            {"segment_id": "SEG3", "flight": "LH430", "from": "FRA", "to": "ORD", "dep": "2024-11-12T18:05",
             "arr": "2024-11-12T20:35", "status": "confirmed", "seat": "44D"}],
        "change_rules": {"changeable": True, "change_fee": "0.00", "currency": "EUR",
                         "note": "fare difference applies; same cabin or higher"}})
    t.asst("Found it: return on 12 Nov, LIS to FRA on LH1173 then FRA to Chicago on LH430. Changes are free, "
           "you'd only pay any fare difference.")
    t.user("I need to come back on the 14th instead of the 12th. Same destination, morning departure if "
           "possible.")
    _, c, _ = t.call("air_search_flights", {"origin": "LIS", "destination": "ORD", "date": "2024-11-14",
                                            "cabin": "economy", "exchange_for": pnr})
    offers = [
        {"offer_id": "off_01JC5R2W8TQ4", "carrier": "TP", "flights": ["TP237"], "dep": "2024-11-14T10:35",
         "arr": "2024-11-14T14:05", "stops": 0, "duration": "8h30", "fare_difference": "212.40",
         "seats_left": 4},
        {"offer_id": "off_01JC5R2W9M7K", "carrier": "LH", "flights": ["LH1167", "LH430"],
         "dep": "2024-11-14T06:00", "arr": "2024-11-14T20:35", "stops": 1, "duration": "19h35",
         "fare_difference": "0.00", "seats_left": 9},
        {"offer_id": "off_01JC5R2WA3ZP", "carrier": "UA", "flights": ["UA9245", "UA939"],
         "dep": "2024-11-14T07:10", "arr": "2024-11-14T16:20", "stops": 1, "duration": "14h10",
         "fare_difference": "95.10", "seats_left": 2}]
    t.result(c, result={"currency": "EUR", "offers": offers, "expires_at": "2024-10-21T16:40:00Z"})
    t.asst("Three options on the 14th: TAP direct TP237 at 10:35 arriving 14:05 (+212.40 EUR); Lufthansa via FRA "
           "at 06:00 arriving 20:35 (no extra cost); United via EWR at 07:10 arriving 16:20 (+95.10 EUR).")
    t.user("The TAP direct one. Go ahead, charge the card on file.")
    t.decision("d1-exchange", [
        p_next("air_change_flight", "the booking ref from the first message and the TAP offer id from the search",
               record_locator=pnr, offer_id="off_01JC5R2W8TQ4"),
    ])
    s_x, c_x, _ = t.call("air_change_flight", {"record_locator": pnr, "offer_id": "off_01JC5R2W8TQ4",
                                               "segments_out": ["SEG2", "SEG3"], "payment": "card_on_file",
                                               "amount": "212.40", "currency": "EUR"})
    apr = "apr_" + t.rid(8)
    t.approval(apr, "requested", s_x, action="exchange SEG2+SEG3 for TP237 14 Nov, collect 212.40 EUR")
    t.user("Wait, before I confirm, can I even keep the hotel two more nights? It's the Memmo Alfama, "
           "confirmation 88314720.")
    t.decision("d2-approval-open", [
        p_pending("the exchange still waits for the user's approval", approval_id=apr),
        p_state("the exchange call was issued and has no answer yet", "running", call_id=c_x),
    ])
    _, c, _ = t.call("hotel_get_reservation", {"confirmation_number": "88314720", "last_name": last})
    t.result(c, result={"confirmation_number": "88314720", "hotel": {"hotel_id": "H-PT-LIS-00412",
                                                                     "name": "Memmo Alfama"},
                        "check_in": "2024-11-04", "check_out": "2024-11-12", "room": "Deluxe Double, terrace",
                        "rate": {"per_night": "189.00", "currency": "EUR", "board": "breakfast"},
                        "cancellation": "free until 2024-11-10 18:00 local", "status": "confirmed"})
    t.asst("You're booked at Memmo Alfama until the 12th at 189.00 EUR a night with breakfast. I can ask them to "
           "extend to the 14th.")
    t.user("OK, approve the flight change, and extend the hotel to the 14th.")
    t.approval(apr, "granted", s_x)
    t.result(c_x, result={"record_locator": pnr, "ticket_number": "047-2198830021",
                          "segments": [{"segment_id": "SEG4", "flight": "TP237", "from": "LIS", "to": "ORD",
                                        "dep": "2024-11-14T10:35", "arr": "2024-11-14T14:05",
                                        "status": "confirmed"}],
                          "collected": {"amount": "212.40", "currency": "EUR", "emd": "047-8812004456"}})
    _, c, _ = t.call("hotel_modify_reservation", {"confirmation_number": "88314720", "check_out": "2024-11-14"})
    t.result(c, "failed", error={"code": "ROOM_UNAVAILABLE", "message": "No availability for the booked room type "
                                 "on 2024-11-12 and 2024-11-13. Reservation unchanged."})
    t.asst("Flight changed: TP237 on 14 Nov, 212.40 EUR charged. But Memmo Alfama has no room for the 12th and "
           "13th, so the hotel stays as it was (out on the 12th).")
    t.user("Damn. Then find me something for those two nights near Alfama, under 200 a night.")
    _, c, _ = t.call("hotel_search", {"location": "Alfama, Lisbon", "check_in": "2024-11-12",
                                      "check_out": "2024-11-14", "max_rate": "200.00", "guests": 1})
    hotels = [("H-PT-LIS-00977", "Solar do Castelo", "rate_SDC_DBL_BB", "176.00", "0.3 km", "free until 11 Nov"),
              ("H-PT-LIS-01320", "Palacio Belmonte Annex", "rate_PBA_STD_RO", "194.00", "0.5 km", "non-refundable"),
              ("H-PT-LIS-00231", "Hotel Convento do Salvador", "rate_HCS_SGL_BB", "128.00", "0.2 km",
               "free until 10 Nov")]
    t.result(c, result={"currency": "EUR", "results": [
        {"hotel_id": h, "name": n, "rate_id": rid, "per_night": p, "distance_to_center": d, "cancellation": cx,
         "rating": round(r.uniform(8.4, 9.3), 1)} for h, n, rid, p, d, cx in hotels]})
    t.asst("Options for 12 to 14 Nov: Solar do Castelo 176.00/night with breakfast (free cancellation until 11 "
           "Nov); Palacio Belmonte Annex 194.00 (non-refundable); Convento do Salvador 128.00, single room.")
    t.user("Book Solar do Castelo.")
    t.decision("d3-hotel-book", [
        p_next("hotel_book", "the rate id is from the search; the guest's surname was given once at the start",
               rate_id="rate_SDC_DBL_BB", guest_last_name=last),
    ])
    _, c, _ = t.call("hotel_book", {"hotel_id": "H-PT-LIS-00977", "rate_id": "rate_SDC_DBL_BB",
                                    "check_in": "2024-11-12", "check_out": "2024-11-14",
                                    "guest": {"first_name": "Elena", "last_name": last}, "payment": "card_on_file"})
    t.result(c, result={"confirmation_number": "SDC-55190", "status": "confirmed", "total": "352.00",
                        "currency": "EUR"})
    t.asst("Booked: Solar do Castelo, 12 to 14 Nov, confirmation SDC-55190, 352.00 EUR total.")
    t.user("Last thing: get me a window seat on the new flight, and remind me of my new ticket number.")
    t.decision("d4-seat", [
        p_next("air_get_seatmap", "the seat map is per segment of the booking; the new segment id is in the "
               "exchange result", record_locator=pnr, segment_id="SEG4"),
        p_fact("ticket_number", "047-2198830021", "the exchange reissued the ticket",
               superseded=["220-2451198834"]),
    ])
    _, c, _ = t.call("air_get_seatmap", {"record_locator": pnr, "segment_id": "SEG4"})
    t.result(c, result={"segment_id": "SEG4", "aircraft": "A330-900neo", "available_window": ["23A", "27K", "31A",
                                                                                          "38K", "41A"],
                        "paid_only": ["23A"], "free_window": ["27K", "31A", "38K", "41A"]})
    _, c, _ = t.call("air_assign_seat", {"record_locator": pnr, "segment_id": "SEG4", "pax_id": "PAX1",
                                         "seat": "27K"})
    t.result(c, result={"segment_id": "SEG4", "pax_id": "PAX1", "seat": "27K", "status": "confirmed"})
    t.asst("Window seat 27K on TP237. Your new ticket number is 047-2198830021.")
    return t


# =============================================================================================
# 07 smart home: thermostat correction, lock code timeout, automation (256)
# =============================================================================================
def t07() -> Traj:
    t = Traj(7, "home-nursery", "h2s-home-nursery", "Smart home: nursery heat, door code, night automation",
             256, 2707,
             ["entity ids listed once are used many turns later",
              "a setpoint is corrected by the user (a doctor's limit) and the limit must hold later",
              "a keypad code typed once is needed at the end; its first write times out",
              "an unknown write is checked before retrying"],
             "A parent has the agent warm the nursery (then lowers the target on the pediatrician's limit), lock "
             "the front door, change a keypad code (first attempt times out, not applied), create a night "
             "automation within the limit, and text the new code to the dog walker.",
             ["ha_list_entities", "ha_get_state", "ha_set_temperature", "ha_lock", "ha_set_lock_code",
              "ha_create_automation", "sms_send"])
    t.user("It's freezing in the nursery. What devices do we have?")
    _, c, _ = t.call("ha_list_entities", {"domains": ["climate", "lock", "light"]})
    t.result(c, result=[
        {"entity_id": "climate.nursery_ecobee", "state": "heat", "current": 17.5},
        {"entity_id": "climate.living_room", "state": "heat", "current": 20.5},
        {"entity_id": "lock.front_door", "state": "unlocked"},
        {"entity_id": "light.hallway_ceiling", "state": "on"}])
    t.asst("Nursery thermostat reads 17.5 °C. There's also the living room thermostat, the front door lock and "
           "the hallway light.")
    t.user("Set the nursery to 22.")
    _, c, _ = t.call("ha_set_temperature", {"entity_id": "climate.nursery_ecobee", "temperature": 22})
    t.result(c, result={"entity_id": "climate.nursery_ecobee", "target_temperature": 22, "hvac_action": "heating"})
    t.asst("Nursery set to 22 °C, heating.")
    s_limit = t.user("Actually no, the pediatrician said 20 max for the baby's room. Make it 20.")
    _, c, _ = t.call("ha_set_temperature", {"entity_id": "climate.nursery_ecobee", "temperature": 20})
    t.result(c, result={"entity_id": "climate.nursery_ecobee", "target_temperature": 20, "hvac_action": "heating"})
    t.asst("Done, 20 °C.")
    t.user("Is the front door locked? Sam left last.")
    t.decision("d1-door", [
        p_next("ha_get_state", "the lock's entity id is in the device list", entity_id="lock.front_door"),
        p_fact("target_temperature", 20, "the nursery target was lowered on the pediatrician's advice",
               superseded=[22], subject="entity_id=climate.nursery_ecobee"),
    ])
    _, c, _ = t.call("ha_get_state", {"entity_id": "lock.front_door"})
    t.result(c, result={"entity_id": "lock.front_door", "state": "unlocked",
                        "last_changed": "2024-11-20T07:48:13+00:00", "changed_by": "keypad user 3"})
    t.asst("It's unlocked, last opened with keypad code slot 3 at 07:48.")
    t.user("Lock it. And change the slot 3 code to 4827, Sam gave the old one to the dog walker's whole agency.")
    _, c, _ = t.call("ha_lock", {"entity_id": "lock.front_door"})
    t.result(c, result={"entity_id": "lock.front_door", "state": "locked"})
    s_code, c_code, _ = t.call("ha_set_lock_code", {"entity_id": "lock.front_door", "code_slot": 3,
                                                    "usercode": "4827"})
    s_to = t.result(c_code, "timeout", error="Z-Wave command not acknowledged within 10 s")
    t.asst("Door locked. The code change wasn't acknowledged by the lock (timeout).")
    t.user("Did the new code take or not? Check before trying again.")
    t.decision("d2-code-unknown", [
        p_state("the keypad write timed out: unknown", "unknown", call_id=c_code),
        p_evidence([s_code, s_to], "the write and its timeout"),
    ])
    t.ev("status_query", {"call_id": c_code, "outcome": "not_performed", "slot_3": "old code still active"})
    t.asst("It didn't apply: slot 3 still has the old code. Retry?")
    t.user("Yes, retry.")
    _, c, _ = t.call("ha_set_lock_code", {"entity_id": "lock.front_door", "code_slot": 3, "usercode": "4827"})
    t.result(c, result={"entity_id": "lock.front_door", "code_slot": 3, "in_use": True})
    t.asst("Slot 3 code changed.")
    t.user("Make an automation for 2am every night: nursery up to 21, and hallway light off.")
    check_constraint(t, s_limit, "20 max")
    t.decision("d3-automation-limit", [
        p_constraint(s_limit, "20 max", "21 would exceed the pediatrician's limit: the agent must push back"),
        p_next("ha_create_automation", "the hallway light's entity id is only in the device list",
               light="light.hallway_ceiling"),
    ])
    t.asst("21 is above the pediatrician's 20 max. Keep the nursery at 20 at night, or skip that part?")
    t.user("Right. Forget the nursery part, just the hallway light off at 2am.")
    _, c, _ = t.call("ha_create_automation", {"alias": "Hallway light off 2am",
                                              "trigger": [{"platform": "time", "at": "02:00:00"}],
                                              "action": [{"service": "light.turn_off",
                                                          "target": {"entity_id": "light.hallway_ceiling"}}]})
    t.result(c, result={"id": "1732087420316", "alias": "Hallway light off 2am", "state": "on"})
    t.asst("Automation created: hallway light off at 02:00 every night.")
    t.user("Text Lena the dog walker the new door code, her number is +351 912 448 105.")
    t.decision("d4-text-code", [
        p_next("sms_send", "the code was typed once, several turns ago", code="4827"),
    ])
    _, c, _ = t.call("sms_send", {"to": "+351912448105", "body": "Hi Lena, the new front door code is 4827."})
    t.result(c, result={"sid": "SM" + t.rid(32, HEX), "status": "queued"})
    t.asst("Texted Lena the new code.")
    return t


# =============================================================================================
# 08 banking: IBAN + amount typed once, SCA, timeout, card freeze, top-up transfer (768)
# =============================================================================================
def t08() -> Traj:
    t = Traj(8, "bank-rent-transfer", "h2s-bank-rent-transfer", "Banking: rent transfer with an unknown outcome",
             768, 2808,
             ["an IBAN, amount and reference typed exactly once",
              "a payee id and account id returned early are needed for a later transfer",
              "an irreversible transfer times out; a side task runs before it is checked",
              "the rent amount is corrected; the difference is sent as a second transfer"],
             "A user pays rent by SEPA transfer to a new payee (name check, strong customer authentication); the "
             "transfer call times out, the user has a card charge looked at and frozen meanwhile, then the "
             "transfer is found pending; the user corrects the rent and the difference is sent separately.",
             ["bank_list_accounts", "bank_add_payee", "bank_create_transfer", "bank_list_transactions",
              "bank_freeze_card", "bank_list_transfers"])
    r = t.rng
    iban_typed = "DE89 3704 0044 0532 0130 00"
    iban = iban_typed.replace(" ", "")
    t.user(f"Pay my October rent: 1,250.00 EUR to Kaja Lindqvist, IBAN {iban_typed}, reference "
           "'Miete Oktober 2024'. From my main checking.")
    t.fact("rent_amount", "1,250.00")
    _, c, _ = t.call("bank_list_accounts", {})
    chk, sav, card = "acc_01H8ZK4T6WQ2", "acc_01H8ZM0B3RX9", "card_5QK2M8XW"
    t.result(c, result={"accounts": [
        {"account_id": chk, "name": "Girokonto", "iban": "DE12 5001 0517 0648 4898 90", "balance": "3,412.77",
         "currency": "EUR", "cards": [{"card_id": card, "type": "debit", "last4": "6612", "status": "active"}]},
        {"account_id": sav, "name": "Tagesgeld", "iban": "DE45 5001 0517 0648 4901 22", "balance": "18,090.00",
         "currency": "EUR", "cards": []}]})
    t.asst("Girokonto has 3,412.77 EUR. Kaja isn't a saved payee yet. Shall I add her?")
    t.user("Yes, add her first.")
    _, c, _ = t.call("bank_add_payee", {"name": "Kaja Lindqvist", "iban": iban})
    payee = "pay_7Kq2LmT0"
    t.result(c, result={"payee_id": payee, "iban": iban, "bic": "COBADEFFXXX", "bank_name": "Commerzbank",
                        "verification_of_payee": {"result": "close_match", "suggested_name": "Kaja M. Lindqvist"}})
    t.asst("Added. The bank's name check says close match: the account holder is 'Kaja M. Lindqvist'. Is that her?")
    t.user("Yes, that's her middle initial. Go ahead with the transfer.")
    t.decision("d1-transfer", [
        p_next("bank_create_transfer", "amount and reference were typed once; account and payee ids come from "
               "the tool results", amount="1,250.00", reference="Miete Oktober 2024", from_account_id=chk,
               payee_id=payee),
    ])
    s_tr, c_tr, ik_tr = t.call("bank_create_transfer", {"from_account_id": chk, "payee_id": payee,
                                                        "amount": "1250.00", "currency": "EUR",
                                                        "reference": "Miete Oktober 2024",
                                                        "execution_date": "2024-10-01"})
    apr = "sca_" + t.rid(10)
    t.approval(apr, "requested", s_tr, method="push to banking app", action="SEPA 1,250.00 EUR to Kaja M. Lindqvist")
    t.user("Approved it in the app.")
    t.approval(apr, "granted", s_tr)
    s_to = t.result(c_tr, "timeout", error="504 from payments backend after 30 s")
    t.asst("The transfer request timed out after you approved it. I won't resend until I know whether it was "
           "created.")
    t.user("OK. Meanwhile: there's a card charge I don't recognize, 89.99 from something like DGTL SRVCS. Can you "
           "look?")
    _, c, _ = t.call("bank_list_transactions", {"account_id": chk, "from": "2024-09-20", "status": "all"})
    txs = [("09-30", "REWE Markt GmbH Berlin", "-47.18", "booked"),
           ("09-29", "DGTL*SRVCS 8883401277 IE", "-89.99", "pending"),
           ("09-28", "BVG Ticket App", "-58.00", "booked"),
           ("09-27", "Gehalt September Nordlicht GmbH", "4,120.00", "booked"),
           ("09-25", "Spotify P2F1A9C3", "-10.99", "booked"),
           ("09-22", "Amazon Mktp DE", "-23.49", "booked")]
    t.result(c, result={"account_id": chk, "transactions": [
        {"date": "2024-" + d, "description": desc, "amount": a, "status": s,
         **({"card_id": card} if "Gehalt" not in desc else {})}
        for d, desc, a, s in txs]})
    t.asst("Found it: DGTL*SRVCS 8883401277 IE, -89.99, still pending, on your debit card ending 6612.")
    t.user("Freeze that card.")
    _, c, _ = t.call("bank_freeze_card", {"card_id": card, "reason": "suspected_fraud"})
    t.result(c, result={"card_id": card, "status": "frozen", "frozen_at": "2024-09-30T19:22:41+02:00"})
    t.asst("Card ending 6612 is frozen. You can dispute the pending charge once it books.")
    t.user("And the rent, did it go?")
    t.decision("d2-rent-unknown", [
        p_state("the transfer timed out and has not been checked yet", "unknown", call_id=c_tr),
        p_evidence([s_tr, s_to], "an irreversible payment with unknown outcome: the call and the timeout"),
        p_next("bank_list_transfers", "look for it in the outgoing transfers of the checking account",
               from_account_id=chk),
    ])
    _, c, _ = t.call("bank_list_transfers", {"from_account_id": chk, "created_after": "2024-09-30"})
    trid = "tr_01JAB7QK3M"
    t.result(c, result={"transfers": [{"transfer_id": trid, "payee_id": payee, "amount": "1250.00",
                                       "currency": "EUR", "reference": "Miete Oktober 2024", "status": "scheduled",
                                       "execution_date": "2024-10-01", "idempotency_key": ik_tr}]})
    t.ev("status_query", {"call_id": c_tr, "outcome": "succeeded", "request_id": trid, "transfer_id": trid})
    t.asst(f"It went through: transfer {trid}, 1,250.00 EUR, scheduled for 1 October.")
    s_corr = t.user("Oh no, I just remembered the rent went up to 1,310.00 from October. Can you change it?")
    t.fact("rent_amount", "1,310.00", kind="correction")
    t.asst("A scheduled SEPA transfer can't be amended. I can either cancel it and send a new one for 1,310.00, "
           "or send the 60.00 difference separately.")
    t.user("Send the 60.00 difference separately, same reference with 'Nachzahlung' added.")
    t.decision("d3-top-up", [
        p_next("bank_create_transfer", "same account and payee as the first transfer, and its reference",
               from_account_id=chk, payee_id=payee, reference="Miete Oktober 2024"),
        p_fact("rent_amount", "1,310.00", "the user corrected the rent", superseded=["1,250.00"]),
        p_state("the first transfer is known to exist", "succeeded", call_id=c_tr, request_id=trid),
    ])
    s_t2, c_t2, _ = t.call("bank_create_transfer", {"from_account_id": chk, "payee_id": payee, "amount": "60.00",
                                                    "currency": "EUR",
                                                    "reference": "Miete Oktober 2024 Nachzahlung",
                                                    "execution_date": "2024-10-01"})
    apr2 = "sca_" + t.rid(10)
    t.approval(apr2, "requested", s_t2, method="push to banking app", action="SEPA 60.00 EUR to Kaja M. Lindqvist")
    t.user("Approved.")
    t.approval(apr2, "granted", s_t2)
    t.result(c_t2, result={"transfer_id": "tr_01JAB8F2XZ", "status": "scheduled", "execution_date": "2024-10-01",
                           "amount": "60.00"})
    t.asst("Sent: 60.00 EUR 'Miete Oktober 2024 Nachzahlung', also executing on 1 October. Together with the "
           "first transfer that's 1,310.00.")
    return t


# =============================================================================================
# 09 calendar: move a meeting, look up a colleague, schedule a kickoff (256)
# =============================================================================================
def t09() -> Traj:
    t = Traj(9, "calendar-kickoff", "h2s-calendar-kickoff", "Calendar: move a review, cancel a 1:1, book a kickoff",
             256, 2909,
             ["event ids from one day's listing are used for an update and a cancel",
              "an e-mail picked from an ambiguous directory lookup is reused later",
              "a doc link inside an event description is attached to a new event",
              "a scheduling restriction from the user (not Monday)"],
             "A user has the agent move a design review (adding a colleague found by name), cancel a 1:1, find a "
             "slot next week that avoids Monday, create a kickoff with the review's doc, and block travel time "
             "before a dentist appointment listed at the start.",
             ["cal_list_events", "contacts_lookup", "cal_update_event", "cal_cancel_event", "cal_find_free_slots",
              "cal_create_event"])
    t.user("What's on my calendar Thursday?")
    _, c, _ = t.call("cal_list_events", {"calendar_id": "primary", "date": "2024-10-17"})
    doc = "docs.google.com/document/d/1xQe7LmZk2Vb"
    t.result(c, result={"date": "2024-10-17", "items": [
        {"id": "7hq2m1o0", "summary": "1:1 Rafael", "start": "09:30"},
        {"id": "3k9av4p2", "summary": "Design review: checkout v2", "start": "14:00", "description": doc},
        {"id": "0bn5c8r7", "summary": "Dentist", "start": "16:30"}]})
    t.asst("Thursday: 1:1 with Rafael 09:30, design review for checkout v2 at 14:00, dentist at 16:30.")
    t.user("Move the design review to Friday, same time, and add Wen Li from payments.")
    _, c, _ = t.call("contacts_lookup", {"name": "Wen Li"})
    t.result(c, result={"matches": [{"name": "Wen Li", "email": "wen.li@northwind.io", "department": "Payments"},
                                    {"name": "Wenli Zhou", "email": "wenli.zhou@northwind.io",
                                     "department": "Growth"}]})
    _, c, _ = t.call("cal_update_event", {"event_id": "3k9av4p2", "start": "2024-10-18T14:00:00+02:00",
                                          "add_attendees": ["wen.li@northwind.io"], "send_updates": "all"})
    t.result(c, result={"id": "3k9av4p2", "start": "2024-10-18T14:00:00+02:00", "status": "confirmed"})
    t.asst("Design review moved to Friday 14:00; Wen Li (Payments) is invited.")
    t.user("Rafael is off sick all week. Cancel our 1:1.")
    t.decision("d1-cancel", [
        p_next("cal_cancel_event", "the 1:1's event id is in Thursday's listing", event_id="7hq2m1o0"),
    ])
    _, c, _ = t.call("cal_cancel_event", {"event_id": "7hq2m1o0", "send_updates": "all"})
    t.result(c, result={"id": "7hq2m1o0", "status": "cancelled"})
    t.asst("Cancelled, Rafael is notified.")
    s_mon = t.user("Find 45 minutes next week with Rafael and Wen Li for the checkout kickoff. Not Monday, I'm off.")
    _, c, _ = t.call("cal_find_free_slots", {"attendees": ["me", "rafael.mendes@northwind.io",
                                                           "wen.li@northwind.io"],
                                             "from": "2024-10-22", "to": "2024-10-25", "minutes": 45})
    t.result(c, result={"slots": ["2024-10-22T10:00:00+02:00", "2024-10-23T15:30:00+02:00",
                                  "2024-10-25T11:15:00+02:00"]})
    t.asst("Free for all three: Tuesday 10:00, Wednesday 15:30 or Friday 11:15.")
    t.user("Wednesday. Call it 'Checkout v2 kickoff' and put the design review doc in it.")
    check_constraint(t, s_mon, "Not Monday")
    t.decision("d2-create", [
        p_next("cal_create_event", "Wen Li's address was picked from the lookup; the doc link was in the "
               "review's description", attendee="wen.li@northwind.io", doc=doc),
        p_constraint(s_mon, "Not Monday", "the user is off on Monday"),
    ])
    _, c, _ = t.call("cal_create_event", {"calendar_id": "primary", "summary": "Checkout v2 kickoff",
                                          "start": "2024-10-23T15:30:00+02:00", "minutes": 45,
                                          "attendees": ["rafael.mendes@northwind.io", "wen.li@northwind.io"],
                                          "description": "Design doc: https://" + doc})
    t.result(c, result={"id": "5td0k3e9", "status": "confirmed", "htmlLink": "https://calendar.google.com/event?eid=NXRk"})
    t.asst("Kickoff booked for Wednesday 15:30 with the doc attached.")
    t.user("And on Thursday block the 20 minutes before the dentist as travel time.")
    t.decision("d3-travel-block", [
        p_next("cal_create_event", "the travel block ends when the dentist starts, from the first listing",
               end="16:30"),
    ])
    _, c, _ = t.call("cal_create_event", {"calendar_id": "primary", "summary": "Travel to dentist",
                                          "start": "2024-10-17T16:10:00+02:00", "end": "2024-10-17T16:30:00+02:00",
                                          "transparency": "opaque"})
    t.result(c, result={"id": "9rr1w6s4", "status": "confirmed"})
    t.asst("Blocked 16:10 to 16:30 on Thursday.")
    return t


# =============================================================================================
# 10 car: valet PIN typed once, two vehicles, don't-unlock rule, share destination times out (512)
# =============================================================================================
def t10() -> Traj:
    t = Traj(10, "car-valet-roadtrip", "h2s-car-valet-roadtrip", "Car control: valet mode, a second car, a rule",
             512, 3010,
             ["two vehicle ids from one listing, each used later for its own car",
              "a valet PIN typed once is needed to switch valet mode off at the end",
              "a standing 'never unlock remotely' rule is tested by a later request",
              "a write to the car times out and is checked later"],
             "A driver has the agent wake the Model Y, turn on valet mode with a PIN and precondition it, set the "
             "Model 3's charge limit and send it a destination (timeout), refuses a remote unlock per their own "
             "rule, and finally turns valet mode off with the PIN.",
             ["car_list_vehicles", "car_wake", "car_get_state", "car_set_valet_mode", "car_set_climate",
              "car_set_charge_limit", "car_share_destination"])
    y, m3 = "1492931337112837", "1492931337155021"
    t.user("Is the Model Y awake? I'm dropping it with the hotel valet in 20 minutes.")
    _, c, _ = t.call("car_list_vehicles", {})
    t.result(c, result={"response": [
        {"id": y, "vin": "7SAYGDEE8PA112233", "display_name": "Blue Ghost", "model": "Model Y", "state": "asleep"},
        {"id": m3, "vin": "5YJ3E1EA4MF870041", "display_name": "Zed", "model": "Model 3", "state": "online"}],
        "count": 2})
    _, c, _ = t.call("car_wake", {"vehicle_id": y})
    t.result(c, result={"response": {"id": y, "state": "online"}})
    _, c, _ = t.call("car_get_state", {"vehicle_id": y})
    t.result(c, result={"response": {
        "id": y, "charge_state": {"battery_level": 64, "battery_range": 198.4, "charge_limit_soc": 80,
                                  "charging_state": "Disconnected"},
        "climate_state": {"inside_temp": 9.5, "outside_temp": 7.0, "is_climate_on": False},
        "vehicle_state": {"locked": True, "sentry_mode": True, "odometer": 18342.7, "valet_mode": False,
                          "tpms_pressure_fl": 2.3, "tpms_pressure_fr": 2.9, "tpms_pressure_rl": 2.9,
                          "tpms_pressure_rr": 2.9, "car_version": "2024.32.7 5d4f0a1b2c"}}})
    t.asst("Blue Ghost is awake: 64% (198 mi), locked, sentry on, 9.5 °C inside. Front-left tyre is low at 2.3 bar "
           "(others 2.9).")
    t.user("Turn on valet mode with PIN 5519 and warm the cabin to 21.")
    _, c, _ = t.call("car_set_valet_mode", {"vehicle_id": y, "on": True, "password": "5519"})
    t.result(c, result={"response": {"result": True, "reason": ""}})
    _, c, _ = t.call("car_set_climate", {"vehicle_id": y, "on": True, "driver_temp": 21})
    t.result(c, result={"response": {"result": True, "reason": ""}})
    t.asst("Valet mode on, cabin warming to 21 °C.")
    s_rule = t.user("Important: don't unlock it remotely for anyone, even if the hotel calls. I'll be at dinner.")
    t.asst("Understood, no remote unlocks.")
    t.user("Separately, the Model 3: set its charge limit to 90, my wife has a road trip tomorrow.")
    t.decision("d1-other-car", [
        p_next("car_set_charge_limit", "the Model 3's id is only in the vehicle listing", vehicle_id=m3),
    ])
    _, c, _ = t.call("car_set_charge_limit", {"vehicle_id": m3, "percent": 90})
    t.result(c, result={"response": {"result": True, "reason": ""}})
    t.asst("Zed's charge limit is 90%.")
    t.user("And send Zed her first stop: Harris Ranch Inn, 24505 W Dorris Ave, Coalinga, CA.")
    s_nav, c_nav, _ = t.call("car_share_destination", {"vehicle_id": m3, "value":
                                                       "Harris Ranch Inn, 24505 W Dorris Ave, Coalinga, CA 93210",
                                                       "locale": "en-US"})
    s_to = t.result(c_nav, "timeout", error="vehicle did not respond within 20 s")
    t.asst("The car didn't answer in time; I'll check whether the destination arrived.")
    t.user("Hotel just called: they say the car is locked and they need it unlocked to move it. What now?")
    check_constraint(t, s_rule, "don't unlock it remotely")
    t.decision("d2-unlock-request", [
        p_constraint(s_rule, "don't unlock it remotely", "the user's own rule forbids a remote unlock"),
    ])
    t.asst("You asked me not to unlock it remotely for anyone. Valet mode is on, so the hotel can drive it with "
           "the key card. Do you want to override your rule?")
    t.user("No, keep it locked, I'll walk over. Did the address reach Zed?")
    t.decision("d3-nav-check", [
        p_state("the share call timed out and has not been checked", "unknown", call_id=c_nav),
        p_evidence([s_nav, s_to], "the write and its timeout"),
    ])
    t.ev("status_query", {"call_id": c_nav, "outcome": "succeeded", "active_route_destination": "Harris Ranch Inn"})
    t.asst("Yes, Zed's navigation shows Harris Ranch Inn as the destination.")
    t.user("OK, I'm back with the car. Turn valet mode off.")
    t.decision("d4-valet-off", [
        p_next("car_set_valet_mode", "valet mode is switched off with the same PIN, given once",
               vehicle_id=y, password="5519"),
    ])
    _, c, _ = t.call("car_set_valet_mode", {"vehicle_id": y, "on": False, "password": "5519"})
    t.result(c, result={"response": {"result": True, "reason": ""}})
    t.asst("Valet mode is off.")
    t.user("Should I charge the Y tonight? What's its limit set to?")
    t.decision("d5-y-limit", [
        p_fact("charge_limit_soc", 80, "the Y's limit was read at the start; the 90 was for the Model 3",
               subject=f"vehicle_id={y}"),
    ])
    t.asst("The Y is at 64% with the limit at 80%, so a charge tonight adds about 16%. Also the front-left tyre "
           "was low (2.3 bar).")
    return t


# =============================================================================================
# 11 devops: Render + Stripe; API key typed once; failed deploy; webhook (1024)
# =============================================================================================
DEPLOY_LOG = """2024-10-10T13:02:14Z ==> Checking out commit 8d41e0b8a9c4e1f0 in branch main
2024-10-10T13:02:41Z ==> Running build command 'pip install -r requirements.txt'...
2024-10-10T13:03:40Z ==> Build successful 🎉
2024-10-10T13:03:52Z ==> Deploying...
2024-10-10T13:04:06Z ==> Running 'gunicorn invoicer.app:app -k uvicorn.workers.UvicornWorker -b 0.0.0.0:10000'
2024-10-10T13:04:09Z [ERROR] Exception in worker process
2024-10-10T13:04:09Z Traceback (most recent call last):
2024-10-10T13:04:09Z   File "/opt/render/project/src/invoicer/settings.py", line 48, in load
2024-10-10T13:04:09Z     bucket = os.environ["INVOICE_PDF_BUCKET"]
2024-10-10T13:04:09Z KeyError: 'INVOICE_PDF_BUCKET'
2024-10-10T13:04:09Z RuntimeError: missing required setting INVOICE_PDF_BUCKET (see docs/billing.md)
2024-10-10T13:04:10Z [ERROR] Reason: Worker failed to boot.
2024-10-10T13:04:18Z ==> Exited with status 3
2024-10-10T13:04:18Z ==> Deploy failed; the previous deploy (dep-crb1m5e8ii6s73ajt4g0) keeps serving traffic"""


def t11() -> Traj:
    t = Traj(11, "devops-stripe-webhook", "h2s-devops-stripe-webhook", "Devops: env vars, a failed deploy, a webhook",
             1024, 3111,
             ["a Stripe API key typed once is needed again after a long deploy detour",
              "a service id and its URL from the first lookup are used throughout",
              "deploy ids: a failed one and a live one, each with its own status",
              "a webhook id returned early goes into a message at the end"],
             "A developer has the agent set a Stripe key on a Render service, create a Stripe webhook endpoint "
             "for it, deploy (fails on a missing env var, the log says why), fix and redeploy, check the webhook "
             "with the same key, and post a change note to Slack with the live deploy and webhook ids.",
             ["render_list_services", "render_list_deploys", "render_set_env_var", "render_deploy",
              "render_get_deploy", "render_get_logs", "stripe_create_webhook_endpoint",
              "stripe_get_webhook_endpoint", "slack_post_message"])
    r = t.rng
    srv, url = "srv-cr8k2l3qf0us73a1g9p0", "https://invoicer-api.onrender.com"
    key = "sk_live_51PzQ7Q2hVd9sKx3LmN0aT"
    t.user("We're launching billing on invoicer-api today. Show me the service and its recent deploys.")
    _, c, _ = t.call("render_list_services", {"name": "invoicer-api"})
    t.result(c, result=[{"service": {"id": srv, "name": "invoicer-api", "type": "web_service",
                                     "region": "frankfurt", "branch": "main", "repo":
                                     "https://github.com/acme-co/invoicer-api", "suspended": "not_suspended",
                                     "serviceDetails": {"url": url, "plan": "standard", "numInstances": 2}}}])
    _, c, _ = t.call("render_list_deploys", {"service_id": srv, "limit": 3})
    commits = [("dep-crb1m5e8ii6s73ajt4g0", "3f9a2c1", "Fix PDF footer on credit notes", "live"),
               ("dep-cra6t2m8ii6s73ag11p0", "b71e04d", "Bump weasyprint to 62.3", "deactivated"),
               ("dep-cr9q0hu8ii6s73afk3lg", "e02c9aa", "Add VAT id validation", "deactivated")]
    t.result(c, result=[{"deploy": {"id": d, "commit": {"id": h, "message": m}, "status": s,
                                    "finishedAt": f"2024-10-0{9 - i}T1{r.randint(0, 9)}:{r.randint(10, 59)}Z"}}
                         for i, (d, h, m, s) in enumerate(commits)])
    t.asst(f"invoicer-api ({srv}, Frankfurt, 2 instances) at {url}. Live deploy is dep-crb1m5e8ii6s73ajt4g0 "
           "(3f9a2c1 'Fix PDF footer on credit notes'); the two before it are deactivated.")
    t.user(f"Set STRIPE_API_KEY on it to {key} (the restricted key, not the secret one).")
    _, c, _ = t.call("render_set_env_var", {"service_id": srv, "key": "STRIPE_API_KEY", "value": key})
    t.result(c, result={"key": "STRIPE_API_KEY", "value": "sk_live_…0aT"})
    t.asst("STRIPE_API_KEY is set (it takes effect on the next deploy).")
    t.user("Now create the Stripe webhook pointing at our /webhooks/stripe route, for invoice.paid and "
           "invoice.payment_failed. Then deploy.")
    t.decision("d1-webhook", [
        p_next("stripe_create_webhook_endpoint", "the key was typed once; the service URL came from the lookup",
               api_key=key, url=url),
    ])
    _, c, _ = t.call("stripe_create_webhook_endpoint", {"api_key": key, "url": url + "/webhooks/stripe",
                                                        "enabled_events": ["invoice.paid",
                                                                           "invoice.payment_failed"]})
    wh, whsec = "we_1Q8pXkHsT9vZr2Lm", "whsec_9GkT2vQ7hX1bN4mZp8LwR3sY"
    t.result(c, result={"id": wh, "object": "webhook_endpoint", "api_version": "2024-09-30.acacia",
                        "created": 1728565301, "enabled_events": ["invoice.paid", "invoice.payment_failed"],
                        "livemode": True, "secret": whsec, "status": "enabled", "url": url + "/webhooks/stripe"})
    _, c, _ = t.call("render_set_env_var", {"service_id": srv, "key": "STRIPE_WEBHOOK_SECRET", "value": whsec})
    t.result(c, result={"key": "STRIPE_WEBHOOK_SECRET", "value": "whsec_…R3sY"})
    _, c, _ = t.call("render_deploy", {"service_id": srv, "clear_cache": "do_not_clear"})
    d1 = "dep-crc7k0e8ii6s73b0m2n0"
    t.result(c, result={"id": d1, "commit": {"id": "8d41e0b8a9c4e1f0", "message": "Stripe invoicing"},
                        "status": "created", "trigger": "api"})
    t.asst(f"Webhook {wh} created (live mode) and its signing secret saved as STRIPE_WEBHOOK_SECRET. Deploy {d1} "
           "started (commit 8d41e0b 'Stripe invoicing').")
    t.user("Tell me when it's live.")
    _, c, _ = t.call("render_get_deploy", {"deploy_id": d1})
    t.result(c, result={"id": d1, "status": "update_failed", "finishedAt": "2024-10-10T13:04:18Z"})
    _, c, _ = t.call("render_get_logs", {"service_id": srv, "deploy_id": d1, "limit": 200})
    t.result(c, result={"hasMore": False, "log": DEPLOY_LOG})
    t.asst("The deploy failed: the app won't boot because INVOICE_PDF_BUCKET isn't set. The previous deploy is "
           "still serving, so customers aren't affected.")
    t.user("The bucket is s3://acme-invoices-prod-eu. Set it and deploy again.")
    t.decision("d2-redeploy", [
        p_next("render_set_env_var", "the service id from the first lookup", service_id=srv),
    ])
    _, c, _ = t.call("render_set_env_var", {"service_id": srv, "key": "INVOICE_PDF_BUCKET",
                                            "value": "s3://acme-invoices-prod-eu"})
    t.result(c, result={"key": "INVOICE_PDF_BUCKET", "value": "s3://acme-invoices-prod-eu"})
    _, c, _ = t.call("render_deploy", {"service_id": srv, "clear_cache": "do_not_clear"})
    d2 = "dep-crc9a1m8ii6s73b1c7q0"
    t.result(c, result={"id": d2, "commit": {"id": "8d41e0b8a9c4e1f0", "message": "Stripe invoicing"},
                        "status": "created", "trigger": "api"})
    _, c, _ = t.call("render_get_deploy", {"deploy_id": d2})
    t.result(c, result={"id": d2, "status": "live", "finishedAt": "2024-10-10T13:19:52Z"})
    t.asst(f"Deploy {d2} is live.")
    t.user("Check the webhook in Stripe is enabled and listening for the right events.")
    t.decision("d3-check-webhook", [
        p_next("stripe_get_webhook_endpoint", "the same key typed at the start, and the webhook id from its "
               "creation", api_key=key, id=wh),
    ])
    _, c, _ = t.call("stripe_get_webhook_endpoint", {"api_key": key, "id": wh})
    t.result(c, result={"id": wh, "object": "webhook_endpoint", "enabled_events": ["invoice.paid",
                                                                                 "invoice.payment_failed"],
                        "livemode": True, "status": "enabled", "url": url + "/webhooks/stripe"})
    t.asst("Enabled, live mode, listening for invoice.paid and invoice.payment_failed.")
    t.user("Post a change note in #deploys: billing is live on invoicer-api, with the deploy id and the webhook id.")
    t.decision("d4-change-note", [
        p_next("slack_post_message", "the live deploy's id and the webhook id", deploy=d2, webhook=wh),
        p_fact("status", "live", "the second deploy is the live one", subject=f"deploy_id={d2}"),
        p_fact("status", "update_failed", "the first attempt failed", subject=f"deploy_id={d1}"),
    ])
    _, c, _ = t.call("slack_post_message", {"channel": "#deploys", "text":
                                            f"invoicer-api: Stripe billing is live. Deploy {d2} (commit 8d41e0b), "
                                            f"webhook {wh} (invoice.paid, invoice.payment_failed)."})
    t.result(c, result={"ok": True, "channel": "C02DPL0YS9", "ts": "1728566640.220119"})
    t.asst("Posted in #deploys.")
    return t


# =============================================================================================
# 12 e-commerce: damaged parcel, replacement, return, gift card, cancel return (768)
# =============================================================================================
TRACKING = [
    ("2024-10-11 06:12", "Stuttgart, DE", "Origin scan"),
    ("2024-10-11 21:40", "Cologne, DE", "Departed facility"),
    ("2024-10-12 08:05", "Amsterdam, NL", "Arrived at facility"),
    ("2024-10-13 03:51", "East Midlands, GB", "Import scan"),
    ("2024-10-13 18:22", "East Midlands, GB", "Customs clearance completed"),
    ("2024-10-14 05:30", "Barking, GB", "Arrived at facility"),
    ("2024-10-14 07:58", "Barking, GB", "EXCEPTION: package damaged; contents being inspected"),
    ("2024-10-15 10:14", "Barking, GB", "Damage confirmed. Shipper notified. Returning to sender"),
]


def t12() -> Traj:
    t = Traj(12, "shop-damaged-desk", "h2s-shop-damaged-desk", "Shopping: damaged desk, return, gift card",
             768, 3212,
             ["order ids from one listing are used by different calls turns later",
              "a replacement order id and an RMA id returned by tools are needed later",
              "a gift card code typed exactly once",
              "the user changes their mind about a return"],
             "A shopper has the agent track a standing desk (damaged in transit), get a replacement, return "
             "cables from another order, buy the right cables with a gift card, try to re-route the replacement "
             "(fails), and finally cancel the return.",
             ["orders_list", "carrier_track", "orders_request_replacement", "orders_create_return",
              "catalog_search", "orders_place", "orders_update_shipping", "orders_cancel_return"])
    desk, cables, coffee = "112-7734019-5520261", "112-3391876-0045128", "112-0508213-9937744"
    t.user("Where's my order from last week? The standing desk.")
    _, c, _ = t.call("orders_list", {"since": "2024-10-01"})
    t.result(c, result={"orders": [
        {"order_id": desk, "placed": "2024-10-09", "status": "shipped", "total": "£489.00",
         "items": [{"item_id": "it_DSK01", "title": "FlexiSpot E7 Pro standing desk, 160x80, walnut"}],
         "shipment": {"carrier": "UPS", "tracking_number": "1Z84A7W90412876653"}},
        {"order_id": cables, "placed": "2024-10-05", "status": "delivered", "total": "£18.99",
         "items": [{"item_id": "it_CBL07", "title": "Anker USB-C to USB-C cable 0.9 m (2-pack)"}]},
        {"order_id": coffee, "placed": "2024-10-03", "status": "delivered", "total": "£24.50",
         "items": [{"item_id": "it_COF22", "title": "Origin Coffee San Fermin beans 1 kg"}]}]})
    _, c, _ = t.call("carrier_track", {"carrier": "UPS", "tracking_number": "1Z84A7W90412876653"})
    t.result(c, result={"tracking_number": "1Z84A7W90412876653", "status": "Returning to sender",
                        "activity": [{"time": tm, "location": loc, "description": d} for tm, loc, d in TRACKING]})
    t.asst("Bad news: UPS found the desk damaged at Barking on 14 Oct and is returning it to the sender.")
    t.user("Ugh. Ask for a replacement, not a refund.")
    _, c, _ = t.call("orders_request_replacement", {"order_id": desk, "item_id": "it_DSK01",
                                                    "reason": "damaged_in_transit"})
    repl = "112-9901346-2288105"
    t.result(c, result={"replacement_order_id": repl, "status": "created", "estimated_delivery": "2024-10-22",
                        "charge": "£0.00"})
    t.asst(f"Replacement ordered at no charge: order {repl}, estimated delivery 22 Oct.")
    t.user("Also the USB-C cables from the other order are too short. Return them.")
    t.decision("d1-return", [
        p_next("orders_create_return", "the cables' order and item ids are in the first listing",
               order_id=cables, item_id="it_CBL07"),
    ])
    _, c, _ = t.call("orders_create_return", {"order_id": cables, "item_id": "it_CBL07", "reason": "wrong_size"})
    rma = "RMA-55K2-0931"
    t.result(c, result={"rma_id": rma, "refund_amount": "£18.99", "method": "drop_off",
                        "drop_off_by": "2024-11-14", "label_url": "https://returns.example-shop.co.uk/l/" + t.rid(12),
                        "qr_code_ref": "QR" + t.rid(10, "0123456789")})
    t.asst(f"Return {rma} created: drop off by 14 Nov (QR code or label), refund £18.99.")
    t.user("And buy the 2 m version instead. Use my gift card GC-9F4K-22QX-7M1P first, the rest on the Visa.")
    _, c, _ = t.call("catalog_search", {"query": "Anker USB-C to USB-C cable 2m 2-pack"})
    t.result(c, result={"results": [
        {"product_id": "B0C8QW3Z21", "title": "Anker USB-C to USB-C cable 1.8 m (2-pack), 240 W", "price": "£21.99",
         "prime": True, "rating": 4.7},
        {"product_id": "B09NKR7LQ4", "title": "Anker 333 USB-C cable 3 m (2-pack)", "price": "£16.99",
         "prime": True, "rating": 4.6},
        {"product_id": "B0BXM1QF5T", "title": "UGREEN USB-C cable 2 m (2-pack), braided", "price": "£12.99",
         "prime": False, "rating": 4.5}]})
    t.asst("Closest match from Anker: the 1.8 m 2-pack (240 W) at £21.99. There's also a 3 m Anker for £16.99 or a "
           "UGREEN 2 m for £12.99.")
    t.user("The 1.8 m Anker is fine.")
    t.decision("d2-buy", [
        p_next("orders_place", "the gift card code was typed once, the product id came from the search",
               gift_card="GC-9F4K-22QX-7M1P", product_id="B0C8QW3Z21"),
    ])
    s_p, c_p, _ = t.call("orders_place", {"product_id": "B0C8QW3Z21", "qty": 1,
                                          "payment": [{"gift_card": "GC-9F4K-22QX-7M1P"},
                                                      {"card": "visa_default"}]})
    apr = "apr_" + t.rid(8)
    t.approval(apr, "requested", s_p, action="buy B0C8QW3Z21 for £21.99")
    t.user("Wait, before I say yes: will that cable charge my laptop at full speed? It takes 100 W.")
    t.decision("d3-approval-open", [
        p_pending("the purchase waits for the user's approval", approval_id=apr),
        p_pending("the order call has no answer yet", call_id=c_p),
    ])
    t.asst("Yes: it's rated for 240 W, so a 100 W laptop charges at full speed.")
    t.user("Great, buy it.")
    t.approval(apr, "granted", s_p)
    t.result(c_p, result={"order_id": "112-4408112-7312640", "total": "£21.99",
                          "paid": {"gift_card": "£15.00", "visa_4417": "£6.99"}, "gift_card_balance": "£0.00",
                          "estimated_delivery": "2024-10-18"})
    t.asst("Ordered: £15.00 from the gift card (now empty) and £6.99 on the Visa, arriving 18 Oct.")
    t.user("Hmm, I won't be home on the 22nd. Send the replacement desk to my office instead: Unit 4, 18 Hatton "
           "Garden, London EC1N 8AT.")
    t.decision("d4-reroute", [
        p_next("orders_update_shipping", "the replacement's order id, not the original desk order",
               order_id=repl),
        p_fact("estimated_delivery", "2024-10-22", "the replacement desk's delivery date (the user is away then)",
               subject=f"order_id={desk}"),
    ])
    _, c, _ = t.call("orders_update_shipping", {"order_id": repl, "address": {
        "line1": "Unit 4, 18 Hatton Garden", "city": "London", "postcode": "EC1N 8AT", "country": "GB"}})
    t.result(c, "failed", error={"code": "ORDER_ALREADY_DISPATCHED",
                                 "message": "This order has left the warehouse and its address can no longer be "
                                            "changed. You can redirect it with the carrier once tracking is active."})
    t.asst("Too late to change: the replacement already left the warehouse. You can redirect it with UPS once "
           "tracking is active.")
    t.user("Fine, I'll work from home that day. And my partner wants the short cables for the car after all, "
           "so cancel that return.")
    t.decision("d5-cancel-return", [
        p_next("orders_cancel_return", "the RMA id came from the return several turns ago", rma_id=rma),
        p_fact("rma_id", rma, "the return's id, from the return created earlier"),
    ])
    _, c, _ = t.call("orders_cancel_return", {"rma_id": rma})
    t.result(c, result={"rma_id": rma, "status": "cancelled"})
    t.asst(f"Return {rma} cancelled; keep the cables.")
    return t


BUILDERS = [t01, t02, t03, t04, t05, t06, t07, t08, t09, t10, t11, t12]


def build() -> dict[str, str]:
    out = {}
    ids = set()
    for b in BUILDERS:
        t = b()
        assert t.header["id"] not in ids
        ids.add(t.header["id"])
        out[t.file] = "\n".join(t.lines()) + "\n"
    return out


def stats() -> None:
    sys.path.insert(0, str(HERE.parents[2]))
    from pgctx.eventlog import event_tokens
    from pgctx.tokens import TokenCounter
    counter = TokenCounter("o200k_base")
    classes = ("next_call", "fact", "tool_state", "pending", "constraint", "evidence")
    head = f"| file | id | window | events | tokens | x window | max event | decisions | " + \
           " | ".join(classes) + " |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    tot = {"events": 0, "tokens": 0, "decisions": 0, **{k: 0 for k in classes}}
    for b in BUILDERS:
        t = b()
        ev = [s for s in t.steps if s["type"] == "event"]
        sizes = [event_tokens(s["kind"], s["payload"], counter) for s in ev]
        dec = [s for s in t.steps if s["type"] == "decision"]
        by = {k: sum(1 for d in dec for p in d["probes"] if p["probe"] == k) for k in classes}
        w = t.header["window"]
        print(f"| {t.file} | {t.header['id']} | {w} | {len(ev)} | {sum(sizes)} | {sum(sizes) / w:.1f} | "
              f"{max(sizes)} | {len(dec)} | " + " | ".join(str(by[k]) for k in classes) + " |")
        tot["events"] += len(ev)
        tot["tokens"] += sum(sizes)
        tot["decisions"] += len(dec)
        for k in classes:
            tot[k] += by[k]
    print(f"| total | | | {tot['events']} | {tot['tokens']} | | | {tot['decisions']} | " +
          " | ".join(str(tot[k]) for k in classes) + " |")


def main(argv: list[str]) -> int:
    files = build()
    if "--stats" in argv:
        stats()
        return 0
    if "--check" in argv:
        bad = [f for f, text in files.items()
               if not (HERE / f).exists() or (HERE / f).read_text(encoding="utf-8") != text]
        extra = sorted(p.name for p in HERE.glob("*.jsonl") if p.name not in files)
        for f in bad:
            print(f"differs: {f}")
        for f in extra:
            print(f"not written by generate.py: {f}")
        return 1 if bad or extra else 0
    for f, text in files.items():
        (HERE / f).write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} trajectories to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
