#!/usr/bin/env python3
"""Held-out set 3 for pgctx eval: 16 blind trajectories, reserved for the NEXT round.

Run from the checkout:  cd /work/main && .venv/bin/python bench/holdout3/generate.py
  (no flag)   write the NN_name.jsonl files beside this script
  --check     exit 1 if the files on disk differ from what would be written
  --stats     print the table: file, id, window, events, tokens, decisions, probes by class

Every trajectory is built by one function below with its own seeded random.Random (the
trajectory id is the seed), so the output is byte-for-byte deterministic.

Each file is also checked here, before it is written, against an *oracle*: the probe rules of
docs/eval.md ("Probes and how each is judged") applied to the whole raw history up to the
decision (what a context that kept everything would show). That only proves each probe is
answerable and correctly written (right seq, key not shadowed by a later field of the same name,
call still open when a pending probe says so); it says nothing about how pgctx scores, and no
score was ever computed or seen while writing this set.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------------------------
# Tools: one declaration per name for the whole folder (effect, identifier_args, description).
# ---------------------------------------------------------------------------------------------

TOOLS: dict[str, tuple[str, list[str], str]] = {}


def tool(name: str, effect: str, ids: list[str], description: str) -> None:
    assert name not in TOOLS, name
    TOOLS[name] = (effect, ids, description)


# pharmacy
tool("rx_lookup", "read", ["rx_number"], "Look up a prescription at the pharmacy (refills, prescriber, store).")
tool("rx_list_stores", "read", ["zip"], "Pharmacy locations near a ZIP code.")
tool("rx_request_refill", "write", ["rx_number"], "Submit a refill request for pickup at a store.")
tool("rx_request_renewal", "write", ["rx_number"], "Ask the prescriber to renew a prescription with no refills left.")
tool("rx_cancel_renewal", "write", ["renewal_id"], "Withdraw a pending renewal request.")
tool("rx_set_notification", "write", ["order_id"], "Text/e-mail alert when an order is ready.")
tool("rx_patient_profile", "read", ["patient_id"], "Patient profile: active prescriptions, allergies, insurance.")
tool("rx_transfer_in", "write", ["rx_number"], "Transfer a prescription in from another pharmacy.")
tool("rx_insurance_check", "read", ["rx_number"], "Adjudicate a claim against the patient's plan (price, PA need).")
tool("rx_prior_auth_submit", "write", ["rx_number"], "Submit a prior-authorization request to the plan.")
tool("rx_pa_status", "read", ["pa_case_id"], "Status of a prior-authorization case at the plan.")
tool("rx_sync_schedule", "write", ["patient_id"], "Medication synchronization: align refill dates.")
tool("rx_pay_order", "irreversible", ["order_id"], "Charge the card on file for a ready order (copay).")
tool("rx_message_prescriber", "write", ["prescriber_npi"], "Send a fax/e-message to the prescriber's office.")
# restaurants
tool("resto_find_venue", "read", ["query"], "Find a restaurant by name and city.")
tool("resto_check_availability", "read", ["venue_id"], "Open slots for a date and party size.")
tool("resto_create_reservation", "write", ["venue_id"], "Create a reservation hold.")
tool("resto_pay_deposit", "irreversible", ["reservation_id"], "Charge the deposit for a reservation.")
tool("resto_modify_reservation", "write", ["reservation_id"], "Change notes, time or party size of a reservation.")
# file system / shell
tool("shell", "write", ["cwd"], "Run a shell command in a working directory; returns exit code, stdout, stderr, cwd.")
tool("fs_delete", "irreversible", ["path"], "Permanently delete a file or directory (no trash).")
tool("fs_read_file", "read", ["path"], "Read a text file (optionally a line range).")
tool("fs_write_file", "write", ["path"], "Write a text file (whole content).")
# chat / messaging
tool("chat_find_channel", "read", ["query"], "Find a channel by name.")
tool("chat_lookup_user", "read", ["query"], "Find a workspace member by name or e-mail.")
tool("chat_post_message", "write", ["channel_id"], "Post a message to a channel or DM.")
tool("chat_schedule_message", "write", ["channel_id"], "Schedule a message for later.")
tool("chat_delete_scheduled", "write", ["scheduled_message_id"], "Delete a scheduled message.")
tool("chat_history", "read", ["channel_id"], "Recent messages of a channel or thread.")
tool("chat_update_message", "write", ["channel_id"], "Edit a message the bot posted.")
# parking permits
tool("permit_lookup_account", "read", ["account_id"], "Residential parking account: permits, vehicles, address.")
tool("permit_update_vehicle", "write", ["permit_id"], "Change the vehicle on a permit (checked against DMV).")
tool("permit_renew", "write", ["permit_id"], "Renew a permit; returns an invoice.")
tool("payment_charge", "irreversible", ["invoice_id"], "Charge a payment method for an invoice.")
# registrar
tool("reg_get_schedule", "read", ["student_id"], "A student's registered sections for a term.")
tool("reg_search_sections", "read", ["course"], "Sections of a course in a term, with seats and waitlist.")
tool("reg_check_holds", "read", ["student_id"], "Holds on a student's record.")
tool("reg_swap_section", "write", ["student_id"], "Atomic drop/add of two sections.")
tool("reg_waitlist_add", "write", ["crn"], "Put a student on a section's waitlist.")
tool("reg_waitlist_drop", "write", ["crn"], "Remove a student from a section's waitlist.")
tool("reg_degree_audit", "read", ["student_id"], "Degree audit: requirements met and outstanding.")
tool("reg_transcript", "read", ["student_id"], "Unofficial transcript.")
tool("reg_request_official_transcript", "irreversible", ["student_id"], "Order an official transcript (fee charged, sent to recipient).")
tool("reg_withdraw_section", "irreversible", ["crn"], "Withdraw from a section after the drop deadline (W grade).")
tool("reg_petition_submit", "write", ["student_id"], "Submit a petition (course substitution, late add, ...).")
tool("reg_add_section", "write", ["crn"], "Register for a section.")
# dns / domains
tool("dns_export_zone", "read", ["domain"], "Export a zone from the current DNS host (BIND format).")
tool("dns_lookup", "read", ["domain"], "Query a public resolver (like dig).")
tool("registrar_get_domain", "read", ["domain"], "Registrar record: nameservers, lock, expiry, DNS service.")
tool("registrar_get_dnssec", "read", ["domain"], "DNSSEC state and DS records at the registrar.")
tool("registrar_set_nameservers", "write", ["domain"], "Change the delegated nameservers at the registrar.")
tool("registrar_remove_ds", "write", ["domain"], "Remove DS records (DNSSEC) at the registrar.")
tool("registrar_unlock", "write", ["domain"], "Remove the transfer lock and e-mail the auth code.")
tool("cf_create_zone", "write", ["name"], "Create a zone on the new DNS provider.")
tool("cf_import_records", "write", ["zone_id"], "Import a BIND file into a zone.")
tool("cf_list_records", "read", ["zone_id"], "List a zone's DNS records.")
tool("cf_update_record", "write", ["zone_id", "record_id"], "Change one DNS record.")
tool("cf_zone_details", "read", ["zone_id"], "Zone status (pending/active), nameservers, settings.")
tool("cf_registrar_check", "read", ["domain"], "Can the domain transfer in; price.")
tool("cf_registrar_transfer", "irreversible", ["domain"], "Start an inbound registrar transfer (charged, adds a year).")
tool("olddns_delete_zone", "irreversible", ["domain"], "Delete the zone at the old DNS host.")
# home insurance
tool("ins_get_policy", "read", ["policy_number"], "Policy record: coverages, deductibles, premium, renewal terms.")
tool("ins_get_billing", "read", ["policy_number"], "Billing account: schedule, amounts due, payment methods.")
tool("ins_quote_renewal", "write", ["policy_number"], "Re-rate the renewal with changed coverages; returns a quote.")
tool("ins_update_property", "write", ["policy_number"], "Update property characteristics (roof year, alarms...).")
tool("ins_claims_history", "read", ["policy_number"], "CLUE-style claims history on the policy and property.")
tool("ins_bind_renewal", "irreversible", ["policy_number"], "Accept (bind) a renewal quote.")
tool("ins_make_payment", "irreversible", ["policy_number"], "Pay an amount on the policy's billing account.")
tool("ins_add_interest", "write", ["policy_number"], "Add/replace a mortgagee or additional interest.")
tool("ins_send_documents", "write", ["policy_number"], "E-mail policy documents to a recipient.")
tool("ins_upload_document", "write", ["policy_number"], "Attach a document (inspection, receipts) to the policy file.")
# warehouse robots
tool("fleet_list_robots", "read", ["site"], "Fleet manager: robots at a site with state and battery.")
tool("fleet_robot_telemetry", "read", ["robot_id"], "Live telemetry straight from one robot.")
tool("fleet_robot_detail", "read", ["robot_id"], "Fleet manager record for one robot.")
tool("fleet_dispatch_mission", "write", ["robot_id"], "Send a robot on a mission (pick, move, charge).")
tool("fleet_cancel_mission", "write", ["mission_id"], "Cancel a mission.")
tool("fleet_mission_status", "read", ["mission_id"], "Mission progress.")
tool("fleet_set_zone", "write", ["zone_id"], "Open/close a floor zone to robot traffic.")
tool("fleet_firmware_update", "irreversible", ["robot_id"], "Flash firmware on a robot (no rollback on this model).")
tool("fleet_error_log", "read", ["robot_id"], "Recent error log of a robot.")
tool("fleet_create_ticket", "write", ["robot_id"], "Open a maintenance ticket.")
tool("wms_order_lines", "read", ["wave_id"], "Warehouse management: order lines of a pick wave.")
# tax filing
tool("tax_get_return", "read", ["return_id"], "Tax return in progress: sections, status, totals.")
tool("tax_import_document", "write", ["return_id"], "Import a tax form (W-2, 1099, 1098) into the return.")
tool("tax_update_field", "write", ["return_id"], "Set one field on the return.")
tool("tax_add_dependent", "write", ["return_id"], "Add a dependent.")
tool("tax_calculate", "read", ["return_id"], "Recompute the return; refund or amount owed, forms.")
tool("tax_diagnostics", "read", ["return_id"], "Errors and warnings that block e-file.")
tool("tax_efile_submit", "irreversible", ["return_id"], "Transmit the return to the IRS / state.")
tool("tax_efile_status", "read", ["submission_id"], "Acknowledgement status of a transmitted return.")
tool("tax_schedule_payment", "irreversible", ["return_id"], "Schedule a direct-debit payment to the IRS/state.")
tool("tax_bank_verify", "read", ["routing_number"], "Check a routing number against the ABA directory.")
# podcast
tool("pod_list_episodes", "read", ["show_id"], "Episodes of a show on the hosting platform.")
tool("pod_upload_audio", "write", ["episode_id"], "Upload a master audio file to an episode draft.")
tool("pod_transcode", "write", ["episode_id"], "Start the loudness/encoding job for an episode.")
tool("pod_job_status", "read", ["job_id"], "Status and log of a processing job.")
tool("pod_update_episode", "write", ["episode_id"], "Edit title, notes, chapters, artwork.")
tool("pod_publish", "irreversible", ["episode_id"], "Publish (or schedule) an episode to the public feed.")
tool("pod_validate_feed", "read", ["show_id"], "Validate the show's RSS feed.")
tool("pod_transcribe", "write", ["episode_id"], "Start automatic transcription.")
tool("pod_insert_ad", "write", ["episode_id"], "Place a dynamic ad insertion marker / campaign.")
tool("fs_stat", "read", ["path"], "File metadata and audio probe (like ffprobe).")
# photo library
tool("photos_list_albums", "read", ["library_id"], "Albums in a photo library.")
tool("photos_find_duplicates", "read", ["library_id"], "Scan for duplicate / near-duplicate groups.")
tool("photos_get_asset", "read", ["asset_id"], "One asset: EXIF, size, albums, edits.")
tool("photos_move_to_album", "write", ["album_id"], "Add assets to an album (and optionally remove from others).")
tool("photos_trash", "write", ["library_id"], "Move assets to Recently Deleted (recoverable 30 days).")
tool("photos_purge_trash", "irreversible", ["library_id"], "Permanently empty Recently Deleted.")
tool("photos_export", "write", ["album_id"], "Export originals of an album to a folder.")
tool("photos_storage_usage", "read", ["library_id"], "Storage usage of the library and cloud quota.")
tool("photos_create_album", "write", ["library_id"], "Create an album.")
# lab instruments
tool("lab_list_instruments", "read", ["facility"], "Instruments of a core facility with status.")
tool("lab_calendar", "read", ["instrument_id"], "Bookings of an instrument for a date range.")
tool("lab_book", "write", ["instrument_id"], "Book an instrument slot.")
tool("lab_cancel_booking", "write", ["booking_id"], "Cancel a booking (fees may apply).")
tool("lab_instrument_log", "read", ["instrument_id"], "Service / calibration log of an instrument.")
tool("lab_submit_samples", "write", ["booking_id"], "Register a sample manifest for a booking.")
tool("lab_training_status", "read", ["user_id"], "Which instruments a user is trained/authorized on.")
tool("lab_request_assisted", "write", ["instrument_id"], "Request a staff-assisted run.")
tool("lab_charge_account", "read", ["chartfield"], "Check a grant chartfield's validity and balance.")
# incident response
tool("ops_get_incident", "read", ["incident_id"], "Incident record: severity, commander, timeline.")
tool("ops_update_incident", "write", ["incident_id"], "Change severity, status, or add a timeline note.")
tool("ops_metrics_query", "read", ["service"], "Query the metrics backend for a service.")
tool("ops_log_search", "read", ["service"], "Search logs of a service.")
tool("ops_synthetic_check", "read", ["service"], "Results of external synthetic probes for a service.")
tool("ops_rollback_deploy", "irreversible", ["service"], "Roll a service back to an earlier release (runs migrations down).")
tool("ops_deploy_status", "read", ["deploy_id"], "Status of a deploy or rollback.")
tool("ops_page_oncall", "write", ["schedule_id"], "Page the on-call of a schedule.")
tool("statuspage_publish", "irreversible", ["page_id"], "Publish a public status page incident update (e-mails subscribers).")
tool("ops_feature_flag", "write", ["flag_key"], "Change a feature flag's rollout.")


# ---------------------------------------------------------------------------------------------
# The builder
# ---------------------------------------------------------------------------------------------

class T:
    """One trajectory under construction; every event carries the seq it must get on replay."""

    def __init__(self, num: int, slug: str, tid: str, title: str, exercises: list[str], description: str,
                 window: int | None = None):
        self.num, self.slug, self.id = num, slug, tid
        self.header = {"pgctx_trajectory": 1, "id": tid, "title": title, "exercises": exercises,
                       "description": description}
        if window is not None:
            self.header["window"] = window
        self.rng = random.Random(tid)
        self.steps: list[dict] = []
        self.seq = 0
        self.events: dict[int, tuple[str, dict]] = {}
        self.calls: dict[str, dict] = {}       # call_id -> {"seq", "tool", "arguments", "idem"}
        self.answered: dict[str, list[int]] = {}
        self.running_since_recover: set[str] = set()
        self.used_tools: list[str] = []

    # --- ids ---
    def hexid(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def alnum(self, n: int, alphabet: str = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789") -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    # --- events ---
    def ev(self, kind: str, payload: dict) -> int:
        self.seq += 1
        self.steps.append({"type": "event", "kind": kind, "payload": payload, "seq": self.seq})
        self.events[self.seq] = (kind, payload)
        return self.seq

    def user(self, text: str) -> int:
        return self.ev("user", {"content": text})

    def asst(self, text: str) -> int:
        return self.ev("assistant", {"content": text})

    def system(self, text: str) -> int:
        return self.ev("system", {"content": text})

    def call(self, name: str, arguments: dict, idem: str | None = None, call_id: str | None = None) -> str:
        effect = TOOLS[name][0]
        if name not in self.used_tools:
            self.used_tools.append(name)
        cid = call_id or f"call_{self.hexid(12)}"
        assert cid not in self.calls, cid
        if effect != "read" and idem is None:
            idem = f"{self.id[:10]}-{self.hexid(8)}"
        payload = {"tool": name, "call_id": cid, "arguments": arguments}
        if idem is not None:
            payload["idempotency_key"] = idem
        payload["effect"] = effect
        s = self.ev("tool_call", payload)
        self.calls[cid] = {"seq": s, "tool": name, "arguments": arguments, "idem": idem}
        self.running_since_recover.add(cid)
        return cid

    def idem(self, cid: str) -> str:
        return self.calls[cid]["idem"]

    def cseq(self, cid: str) -> int:
        return self.calls[cid]["seq"]

    def result(self, cid: str, outcome: str = "succeeded", result=None, request_id: str | None = None,
               error: str | None = None, **extra) -> int:
        assert cid in self.calls, cid
        payload: dict = {"call_id": cid, "outcome": outcome}
        if request_id is not None:
            payload["request_id"] = request_id
        if error is not None:
            payload["error"] = error
        if result is not None:
            payload["result"] = result
        payload.update(extra)
        self.running_since_recover.discard(cid)
        s = self.ev("tool_result", payload)
        self.answered.setdefault(cid, []).append(s)
        return s

    def timeout(self, cid: str, error: str) -> int:
        return self.result(cid, "timeout", error=error)

    def status_query(self, cid: str, outcome: str, request_id: str | None = None, **extra) -> int:
        payload: dict = {"call_id": cid, "outcome": outcome}
        if request_id is not None:
            payload["request_id"] = request_id
        payload.update(extra)
        return self.ev("status_query", payload)

    def approval(self, aid: str, status: str, scopes_event: int, **extra) -> int:
        payload = {"approval_id": aid, "status": status, "scopes_event": scopes_event}
        payload.update(extra)
        return self.ev("approval", payload)

    def fact(self, key: str, value, subject: dict | None = None, authority: str = "user",
             confidence: str = "stated", **extra) -> int:
        payload = {"key": key, "value": value, "authority": authority, "confidence": confidence}
        if subject:
            payload["subject"] = subject
        payload.update(extra)
        return self.ev("fact", payload)

    def correction(self, key: str, value, supersedes: int | None = None, subject: dict | None = None,
                   authority: str = "user", **extra) -> int:
        payload = {"key": key, "value": value, "authority": authority, "confidence": "stated"}
        if subject:
            payload["subject"] = subject
        if supersedes is not None:
            payload["supersedes"] = supersedes
        payload.update(extra)
        return self.ev("correction", payload)

    def subtask_end(self, name: str, summary: str) -> int:
        return self.ev("subtask_end", {"subtask": name, "summary": summary})

    def topic_switch(self, frm: str, to: str) -> int:
        return self.ev("topic_switch", {"from": frm, "to": to})

    def recover(self) -> int | None:
        self.steps.append({"type": "recover"})
        if self.running_since_recover:
            self.seq += 1
            self.events[self.seq] = ("recovery", {})
            self.running_since_recover = set()
            return self.seq
        return None

    def decision(self, did: str, probes: list[dict], note: str = "") -> None:
        step = {"type": "decision", "id": did, "probes": probes}
        if note:
            step["note"] = note
        self.steps.append(step)

    # --- output ---
    def lines(self) -> list[str]:
        header = dict(self.header)
        header["tools"] = [{"tool": n, "effect": TOOLS[n][0], "identifier_args": TOOLS[n][1],
                            "description": TOOLS[n][2]} for n in self.used_tools]
        if "window" in header:  # keep the window last for readability
            header["window"] = header.pop("window")
        return [json.dumps(header, ensure_ascii=False)] + [json.dumps(s, ensure_ascii=False) for s in self.steps]

    @property
    def filename(self) -> str:
        return f"{self.num:02d}_{self.slug}.jsonl"


# --- probe constructors ---

def P_fact(key: str, value, why: str, superseded: list | None = None, subject: str | None = None) -> dict:
    p = {"probe": "fact", "key": key, "value": value}
    if subject:
        p["subject"] = subject
    if superseded:
        p["superseded"] = superseded
    p["why"] = why
    return p


def P_state(status: str, why: str, call_id: str | None = None, idempotency_key: str | None = None,
            request_id: str | None = None) -> dict:
    p: dict = {"probe": "tool_state"}
    if call_id:
        p["call_id"] = call_id
    if idempotency_key:
        p["idempotency_key"] = idempotency_key
    p["status"] = status
    if request_id:
        p["request_id"] = request_id
    p["why"] = why
    return p


def P_next(tool_name: str, arguments: dict, why: str) -> dict:
    return {"probe": "next_call", "tool": tool_name, "arguments": arguments, "why": why}


def P_pending(why: str, approval_id: str | None = None, call_id: str | None = None) -> dict:
    p: dict = {"probe": "pending"}
    if approval_id:
        p["approval_id"] = approval_id
    if call_id:
        p["call_id"] = call_id
    p["why"] = why
    return p


def P_constraint(seq: int, text: str, why: str) -> dict:
    return {"probe": "constraint", "seq": seq, "text": text, "why": why}


def P_evidence(seqs: list[int], why: str) -> dict:
    return {"probe": "evidence", "seqs": seqs, "why": why}


# ---------------------------------------------------------------------------------------------
# Oracle: the documented probe rules over the whole raw history up to the decision
# ---------------------------------------------------------------------------------------------

_NOT_FACT_FIELDS = {"call_id", "outcome", "request_id", "error", "idempotency_key", "authority"}


def _flatten(obj, prefix: str = ""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(obj, list):
        if all(not isinstance(v, (dict, list)) for v in obj):
            yield prefix, obj
        for i, v in enumerate(obj):  # conservative: items of lists count as fields too
            if isinstance(v, (dict, list)):
                yield from _flatten(v, f"{prefix}.{i}")
            else:
                yield f"{prefix}.{i}", v
    else:
        yield prefix, obj


def _subject_pairs(subject: str | None) -> list[tuple[str, str]]:
    if not subject:
        return []
    return [tuple(part.split("=", 1)) for part in subject.split(",")]  # type: ignore[misc]


class OracleError(Exception):
    pass


def oracle(t: T) -> None:
    """Raise OracleError if a probe could not pass even with the whole history raw."""
    events: list[tuple[int, str, dict]] = []
    calls: dict[str, tuple[int, dict]] = {}
    seq = 0
    pending_recovery = set()
    for step in t.steps:
        if step["type"] == "event":
            seq = step["seq"]
            kind, payload = step["kind"], step["payload"]
            events.append((seq, kind, payload))
            if kind == "tool_call":
                calls[payload["call_id"]] = (seq, payload)
                pending_recovery.add(payload["call_id"])
            elif kind == "tool_result":
                pending_recovery.discard(payload["call_id"])
        elif step["type"] == "recover":
            if pending_recovery:
                seq += 1
                events.append((seq, "recovery", {}))
                pending_recovery = set()
        elif step["type"] == "decision":
            i = t.steps.index(step) - 1
            while t.steps[i]["type"] == "event" and t.steps[i]["kind"] in ("fact", "correction", "topic_switch"):
                i -= 1  # what the agent recorded from the user's message
            prev = t.steps[i]
            if not (prev["type"] == "event" and prev["kind"] == "user"):
                raise OracleError(f"{t.id}/{step['id']}: a decision must follow a user event")
            for probe in step["probes"]:
                err = _judge(probe, events, calls)
                if err:
                    raise OracleError(f"{t.id}/{step['id']}: {probe['probe']} {err}")


def _statements(key: str, subject: str | None, events, calls):
    pairs = _subject_pairs(subject)
    out = []  # (seq, value)
    for seq, kind, p in events:
        if kind in ("fact", "correction"):
            if p.get("key") != key or p.get("authority") == "model" or p.get("confidence") in ("inferred", "unknown"):
                continue
            subj = p.get("subject") or {}
            if all(str(subj.get(n)) == v for n, v in pairs):
                out.append((seq, p.get("value")))
        elif kind in ("tool_result", "status_query") and p.get("outcome") == "succeeded":
            if pairs:
                call = calls.get(p["call_id"])
                if not call or not all(str(call[1]["arguments"].get(n)) == v for n, v in pairs):
                    continue
            fields = {k: v for k, v in p.items() if k not in _NOT_FACT_FIELDS}
            for name, value in _flatten(fields):
                if isinstance(value, str) and len(value) > 200:
                    continue
                if name == key or name.rsplit(".", 1)[-1] == key:
                    out.append((seq, value))
    return out


def _status_of_answer(kind: str, outcome: str) -> str:
    if kind == "tool_result":
        return outcome if outcome in ("succeeded", "failed", "cancelled") else "unknown"
    return {"succeeded": "succeeded", "failed": "failed", "not_performed": "failed"}.get(outcome, "unknown")


def _judge(probe: dict, events, calls) -> str | None:
    kind = probe["probe"]
    seqs = {s for s, _, _ in events}
    if kind == "fact":
        st = _statements(probe["key"], probe.get("subject"), events, calls)
        if not st:
            return f"{probe['key']}: no statement"
        newest = max(s for s, _ in st)
        values = [v for s, v in st if s == newest]
        if len({json.dumps(v) for v in values}) > 1:
            return f"{probe['key']}: ambiguous newest statement at seq {newest}: {values}"
        if values[0] != probe["value"]:
            return f"{probe['key']}: newest (seq {newest}) is {values[0]!r}, probe says {probe['value']!r}"
        if probe["value"] in probe.get("superseded", []):
            return "value listed as superseded"
        older = {json.dumps(v) for s, v in st if s != newest}
        for old in probe.get("superseded", []):
            if json.dumps(old) not in older:
                return f"{probe['key']}: superseded value {old!r} was never stated"
        return None
    if kind in ("tool_state", "pending") and probe.get("call_id") is None and probe.get("idempotency_key"):
        ids = [c for c, (_, p) in calls.items() if p.get("idempotency_key") == probe["idempotency_key"]]
        if len(ids) != 1:
            return f"idempotency key {probe['idempotency_key']} names {len(ids)} calls"
        cid = ids[0]
    else:
        cid = probe.get("call_id")
    if kind == "tool_state":
        if cid not in calls:
            return f"no call {cid}"
        call_seq = calls[cid][0]
        answers = [(s, k, p) for s, k, p in events if k in ("tool_result", "status_query") and p.get("call_id") == cid]
        if answers:
            s, k, p = max(answers, key=lambda a: a[0])
            status = _status_of_answer(k, p["outcome"])
            rid = p.get("request_id")
        else:
            rec = any(k == "recovery" and s > call_seq for s, k, _ in events)
            status, rid = ("unknown" if rec else "running"), None
        if status != probe["status"]:
            return f"{cid}: status is {status}, probe says {probe['status']}"
        if probe.get("request_id") and probe["request_id"] != rid:
            return f"{cid}: request id is {rid}"
        return None
    if kind == "pending":
        if probe.get("approval_id"):
            aid = probe["approval_id"]
            req = [s for s, k, p in events if k == "approval" and p.get("approval_id") == aid and p.get("status") == "requested"]
            done = [s for s, k, p in events if k == "approval" and p.get("approval_id") == aid and p.get("status") in ("granted", "denied")]
            if not req or done:
                return f"approval {aid} is not open"
            return None
        if cid not in calls:
            return f"no call {cid}"
        for s, k, p in events:
            if k == "tool_result" and p.get("call_id") == cid and p["outcome"] in ("succeeded", "failed", "cancelled"):
                return f"{cid} has a definitive result"
            if k == "status_query" and p.get("call_id") == cid and p["outcome"] in ("succeeded", "failed", "not_performed"):
                return f"{cid} has a definitive status"
        return None
    if kind == "next_call":
        if probe["tool"] not in TOOLS:
            return f"unknown tool {probe['tool']}"
        last_user = max(s for s, k, _ in events if k == "user")
        before = " ".join(json.dumps(p, ensure_ascii=False).lower() for s, _, p in events if s < last_user)
        for name, value in probe["arguments"].items():
            if str(value).lower() not in before:
                return f"argument {name}={value!r} was not said or returned before the decision's own user message"
        return None
    if kind == "constraint":
        if probe["seq"] not in seqs:
            return f"no event {probe['seq']}"
        payload = next(p for s, _, p in events if s == probe["seq"])
        if probe["text"].lower() not in json.dumps(payload, ensure_ascii=False).lower():
            return f"text {probe['text']!r} is not in event {probe['seq']}"
        return None
    if kind == "evidence":
        missing = [s for s in probe["seqs"] if s not in seqs]
        return f"no events {missing}" if missing else None
    return "unknown probe class"


# ---------------------------------------------------------------------------------------------
# Small realistic-text helpers
# ---------------------------------------------------------------------------------------------

def lines_to_text(rows: list[str]) -> str:
    return "\n".join(rows)


def uuid_like(t: T) -> str:
    h = t.hexid(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


TRAJECTORIES = []


def trajectory(fn):
    TRAJECTORIES.append(fn)
    return fn


# === trajectories ===

@trajectory
def t01_pharmacy_refill() -> T:
    t = T(1, "pharmacy-refill", "h3-pharmacy-refill",
          "Pharmacy refill after a move: new store, new insurance, a timed-out refill request",
          ["an Rx number typed once is needed several turns later",
           "a store id returned by one tool is used by another",
           "a user correction (new insurance member id) supersedes the one on file",
           "a write that timed out is resolved by status_query before anyone retries",
           "a constraint (90-day supply only) carried to a later request"],
          "A patient refills lisinopril after moving, asks about a second prescription, and asks for a "
          "ready text; the refill request times out and is later confirmed by a status query.",
          window=512)
    t.user("Hi, I need to refill my lisinopril. The Rx number on the bottle is 7741-20938.")
    c1 = t.call("rx_lookup", {"rx_number": "7741-20938"})
    t.result(c1, result={
        "rx_number": "7741-20938", "drug": "Lisinopril 20 mg tablet", "quantity": 90, "refills_remaining": 2, "last_fill": "2024-12-02",
        "next_eligible": "2025-02-24", "prescriber": "Anita Rao, MD",
        "store_id": "BW-0312", "store_name": "Elm St, Somerville",
        "insurance_member_id": "BCX-77310-01"})
    t.asst("Found it: lisinopril 20 mg, 90 tablets, 2 refills left, eligible since Feb 24. It's set up for "
           "pickup at the Elm St store in Somerville. Pick up there again?")
    t.user("No, I moved. Send it to a store near my new place, zip 02139.")
    c2 = t.call("rx_list_stores", {"zip": "02139", "radius_miles": 2})
    t.result(c2, result={"stores": [
        {"store_id": "BW-0877", "name": "Massachusetts Ave", "miles": 0.4, "hours": "8a-9p"},
        {"store_id": "BW-0902", "name": "Kendall Square", "miles": 0.9, "hours": "9a-6p"},
        {"store_id": "BW-0655", "name": "Central Sq", "miles": 1.3, "hours": "24h"}]})
    t.asst("Three nearby: Mass Ave (0.4 mi, 8a-9p), Kendall Square (0.9 mi, 9a-6p) and Central Square "
           "(1.3 mi, open 24h). Which one?")
    t.user("Kendall. Oh, and my insurance changed in January. New member ID is QHP-55120-04; the old BCX one is cancelled.")
    t.correction("insurance_member_id", "QHP-55120-04", supersedes=None)
    t.decision("d1-submit-refill", [
        P_next("rx_request_refill", {"rx_number": "7741-20938", "store_id": "BW-0902"},
               "the Rx number was typed in the first message and Kendall's store id came from the store list"),
        P_fact("insurance_member_id", "QHP-55120-04",
               "the refill must be billed to the new plan, not the cancelled one on file", superseded=["BCX-77310-01"]),
    ])
    c3 = t.call("rx_request_refill", {"rx_number": "7741-20938", "store_id": "BW-0902",
                                      "insurance_member_id": "QHP-55120-04", "quantity": 90})
    t.timeout(c3, "pharmacy host did not answer within 20 s (gateway timeout)")
    t.asst("The refill request timed out on the pharmacy's side, so I can't tell yet whether it was accepted. "
           "I'll check its status before resubmitting so you don't get a duplicate fill.")
    t.user("OK. Meanwhile, does my atorvastatin have refills? That's Rx 7741-31177.")
    c4 = t.call("rx_lookup", {"rx_number": "7741-31177"})
    t.result(c4, result={
        "rx_number": "7741-31177", "drug": "Atorvastatin 40 mg tablet", "quantity": 90, "days_supply": 90,
        "refills_remaining": 0, "last_fill_date": "2024-11-18", "prescriber": "Anita Rao, MD",
        "prescriber_npi": "1689043275", "renewal_eligible": True})
    t.asst("Atorvastatin has no refills left. I can send a renewal request to Dr. Rao's office. Want me to?")
    s_c = t.user("Yes, send the renewal. But only ask for the 90-day supply, nothing else, no 30-day bridge.")
    t.decision("d2-renewal", [
        P_next("rx_request_renewal", {"rx_number": "7741-31177", "prescriber_npi": "1689043275"},
               "the Rx number came two turns earlier and the prescriber NPI from the lookup"),
        P_state("unknown", "the refill request timed out and nothing has confirmed it yet", call_id=c3),
        P_pending("the timed-out refill is still open: it must not be resubmitted blindly", call_id=c3),
    ])
    c5 = t.call("rx_request_renewal", {"rx_number": "7741-31177", "prescriber_npi": "1689043275", "days_supply": 90,
                                       "quantity": 90})
    t.result(c5, request_id="rnw-20250226-77a1c", result={"renewal_id": "RN-448120", "status": "sent_to_prescriber",
                                                          "sent_via": "surescripts", "expected_response": "1-2 business days"})
    t.status_query(c3, "succeeded", request_id="rf-20250226-0b93e", order_id="RF-2291734", store_id="BW-0902",
                   ready_by="2025-02-27 14:00", billed_to="QHP-55120-04", copay="10.00")
    t.asst("Renewal RN-448120 went to Dr. Rao (90-day only). And good news: the lisinopril refill did go through "
           "after all, order RF-2291734 at Kendall, ready tomorrow after 2 PM, $10.00 copay on the new plan. "
           "I won't resubmit it.")
    t.user("Great. Can you text me when it's ready? 617-555-0148.")
    t.decision("d3-notify", [
        P_next("rx_set_notification", {"order_id": "RF-2291734"},
               "the order id came back in the status query, not in the user's message"),
        P_state("succeeded", "the timed-out refill was confirmed; its request id is what support would ask for",
                call_id=c3, request_id="rf-20250226-0b93e"),
    ])
    c6 = t.call("rx_set_notification", {"order_id": "RF-2291734", "channel": "sms", "phone": "617-555-0148"})
    t.result(c6, result={"subscription_id": "ntf_5c01e7", "channel": "sms", "status": "active"})
    t.asst("Done, you'll get a text at 617-555-0148 when RF-2291734 is ready.")
    t.user("Actually, cancel the atorvastatin renewal. My cardiologist is taking over that prescription. "
           "Is there anything else I should ask her for?")
    t.decision("d4-cancel-renewal", [
        P_next("rx_cancel_renewal", {"renewal_id": "RN-448120"},
               "the renewal id was returned several turns ago"),
        P_constraint(s_c, "90-day supply",
                     "if a new prescription is suggested, the user's 90-day-only preference still holds"),
    ])
    c7 = t.call("rx_cancel_renewal", {"renewal_id": "RN-448120", "reason": "patient_request"})
    t.result(c7, result={"renewal_id": "RN-448120", "status": "withdrawn"})
    t.asst("Renewal RN-448120 is withdrawn. Ask the cardiologist for a new atorvastatin prescription for a 90-day "
           "supply with refills, sent to Brightwell Kendall Square.")
    return t


@trajectory
def t02_restaurant_group() -> T:
    t = T(2, "restaurant-group", "h3-restaurant-group",
          "Team dinner: venue search, party size correction, deposit with approval",
          ["a venue id returned early is needed for a later call",
           "a corrected party size supersedes the first one",
           "an approval for a non-refundable deposit stays open while the user asks a question",
           "a payment constraint (which card) typed once"],
          "A user books a team dinner in a tiny window; short turns.",
          window=256)
    t.user("Book team dinner at Osteria Lupa in Chicago, Fri Mar 14, 7:30pm, 12 people, under Priya Natarajan.")
    c1 = t.call("resto_find_venue", {"query": "Osteria Lupa", "city": "Chicago"})
    t.result(c1, result={"venue_id": "lupa-chi-0412", "name": "Osteria Lupa", "neighborhood": "West Loop"})
    s_party = t.fact("party_size", 12)
    c2 = t.call("resto_check_availability", {"venue_id": "lupa-chi-0412", "date": "2025-03-14", "party_size": 12})
    t.result(c2, result={"slots": ["19:00", "19:45"], "private_room": True, "deposit_per_guest": "20.00"})
    t.asst("7:30 is taken; 7:00 or 7:45 are open, private room possible. $20/guest deposit.")
    t.user("7:45 then. And it's 14 people now, two more joined.")
    t.correction("party_size", 14, supersedes=s_party)
    t.decision("d1-hold", [
        P_next("resto_create_reservation", {"venue_id": "lupa-chi-0412", "name": "Priya Natarajan"},
               "venue id from the search and the booking name from the first message"),
        P_fact("party_size", 14, "the hold must be for the corrected size", superseded=[12]),
    ])
    c3 = t.call("resto_create_reservation", {"venue_id": "lupa-chi-0412", "date": "2025-03-14", "time": "19:45",
                                             "party_size": 14, "name": "Priya Natarajan"})
    t.result(c3, result={"reservation_id": "RSV-88213", "status": "held", "deposit_due": "280.00",
                         "refundable_until": "2025-03-12T19:45"})
    t.asst("Held: RSV-88213, 7:45pm, 14 guests. Deposit $280.00 due to confirm.")
    s_card = t.user("Pay with the company card ending 9022. Never my personal card ending 4410.")
    c4 = t.call("resto_pay_deposit", {"reservation_id": "RSV-88213", "amount": "280.00", "card_last4": "9022"})
    s4 = t.cseq(c4)
    t.approval("apr-lupa-dep", "requested", s4)
    t.asst("Charge $280.00 to card ending 9022 for RSV-88213? Approve?")
    t.user("Wait, is it refundable if we cancel next week?")
    t.decision("d2-question", [
        P_pending("the deposit approval is still unanswered", approval_id="apr-lupa-dep"),
        P_fact("refundable_until", "2025-03-12T19:45", "the answer is in the hold's result"),
        P_constraint(s_card, "ending 9022", "the card choice must survive to the charge"),
    ])
    t.asst("Yes, fully refundable until Mar 12, 7:45pm.")
    t.user("OK, approve it.")
    t.approval("apr-lupa-dep", "granted", s4)
    t.result(c4, request_id="ch_3Qx81Lupa9022", result={"payment_id": "PAY-5531", "status": "confirmed"})
    t.asst("Paid. RSV-88213 is confirmed.")
    t.user("Add a note: one guest is celiac. No high chair needed.")
    t.decision("d3-note", [
        P_next("resto_modify_reservation", {"reservation_id": "RSV-88213"}, "reservation id from the hold"),
        P_state("succeeded", "the deposit went through", call_id=c4, request_id="ch_3Qx81Lupa9022"),
    ])
    c5 = t.call("resto_modify_reservation", {"reservation_id": "RSV-88213", "notes": "1 guest celiac (strict GF)"})
    t.result(c5, result={"reservation_id": "RSV-88213", "notes": "1 guest celiac (strict GF)"})
    t.asst("Note added.")
    return t


@trajectory
def t03_disk_cleanup() -> T:
    t = T(3, "disk-cleanup", "h3-disk-cleanup",
          "Disk cleanup in a shell: the working directory moves, deletions need approval",
          ["the working directory changes between commands and the next command must run in the right one",
           "a 'do not touch' constraint stated once guards later deletions",
           "irreversible deletes are approved one by one",
           "long command outputs (du, ls) in the shell's own format"],
          "A user frees disk space: Downloads, then a thesis project, then back to Downloads.",
          window=1024)
    home = "/home/maya"
    t.user("My disk is almost full. Start in ~/Downloads and show me what's taking the space.")
    c = t.call("shell", {"command": "du -sh -- * 2>/dev/null | sort -rh | head -15", "cwd": f"{home}/Downloads"})
    du = ["4.7G\tubuntu-24.04.1-desktop-amd64.iso", "2.3G\tFedora-Workstation-Live-x86_64-41-1.4.iso",
          "1.1G\tzoom_recordings_2024", "612M\tDaVinci_Resolve_19.0_Linux.zip", "388M\tdataset_v3.parquet",
          "201M\tIMG_4410-4480.zip", "96M\tthesis_backup_oct.tar.gz", "54M\tslack-desktop-4.41.97-amd64.deb",
          "41M\tpaper_reviews.pdf", "23M\tinvoice_scans", "12M\tfonts-ibm-plex.zip", "7.9M\tscreenshot-2025-01-30.png",
          "3.2M\tbank_statement_2024Q4.pdf", "1.4M\tresume_maya_v7.docx", "640K\ttaxes_notes.txt"]
    t.result(c, result={"exit_code": 0, "stdout": "\n".join(du) + "\n", "stderr": "", "cwd": f"{home}/Downloads"})
    t.asst("The two ISOs are the biggest (4.7G + 2.3G), then zoom_recordings_2024 (1.1G) and the DaVinci Resolve "
           "zip (612M).")
    t.user("What's in zoom_recordings_2024?")
    c = t.call("shell", {"command": "ls -lh zoom_recordings_2024", "cwd": f"{home}/Downloads"})
    zoom = ["total 1.1G"]
    for i, (mon, day) in enumerate([("Jan", 11), ("Feb", 2), ("Mar", 14), ("Apr", 5), ("May", 23)]):
        size = t.rng.choice(["84M", "97M", "112M", "131M", "76M", "143M"])
        zoom.append(f"-rw-r--r-- 1 maya maya {size:>4} {mon} {day:2} 2024 GMT2024{['01','02','03','04','05','06','08','09','10','11'][i]}"
                    f"{day:02d}-1{t.rng.randint(4, 7)}0000_Recording_1920x1080.mp4")
    t.result(c, result={"exit_code": 0, "stdout": "\n".join(zoom) + "\n", "stderr": "", "cwd": f"{home}/Downloads"})
    t.asst("Five meeting recordings from Jan to May 2024, 76-143M each. I'll leave them unless you say otherwise.")
    t.user("Move both ISOs to /mnt/archive/isos. Then go to ~/projects/thesis and check how big build and the cache are.")
    c = t.call("shell", {"command": "mv -v ubuntu-24.04.1-desktop-amd64.iso Fedora-Workstation-Live-x86_64-41-1.4.iso "
                                    "/mnt/archive/isos/", "cwd": f"{home}/Downloads"})
    t.result(c, result={"exit_code": 0, "stdout": "renamed 'ubuntu-24.04.1-desktop-amd64.iso' -> "
                        "'/mnt/archive/isos/ubuntu-24.04.1-desktop-amd64.iso'\nrenamed "
                        "'Fedora-Workstation-Live-x86_64-41-1.4.iso' -> "
                        "'/mnt/archive/isos/Fedora-Workstation-Live-x86_64-41-1.4.iso'\n", "stderr": "",
                        "cwd": f"{home}/Downloads"})
    c = t.call("shell", {"command": "cd ~/projects/thesis && du -sh build .latexcache figures chapters data",
                         "cwd": f"{home}/Downloads"})
    t.result(c, result={"exit_code": 0, "stdout": "3.1G\tbuild\n870M\t.latexcache\n1.9G\tfigures\n14M\tchapters\n"
                        "2.2G\tdata\n", "stderr": "", "cwd": f"{home}/projects/thesis"})
    t.asst("ISOs moved. In ~/projects/thesis: build 3.1G, .latexcache 870M, figures 1.9G, data 2.2G, chapters 14M.")
    s_keep = t.user("Delete build entirely. Do NOT touch figures or data, those are originals I can't regenerate.")
    c_del = t.call("fs_delete", {"path": f"{home}/projects/thesis/build", "recursive": True})
    s = t.cseq(c_del)
    t.approval("apr-rm-build", "requested", s)
    t.asst("This permanently deletes /home/maya/projects/thesis/build (3.1G, no trash). Approve?")
    t.user("yes")
    t.approval("apr-rm-build", "granted", s)
    t.result(c_del, request_id="rm-7f31a2", result={"deleted": f"{home}/projects/thesis/build", "files": 18422,
                                                     "freed_bytes": 3328599654})
    t.asst("build is gone, 3.1G freed.")
    t.user("Show me what's left in this folder, with sizes.")
    t.decision("d1-list", [
        P_next("shell", {"cwd": "/home/maya/projects/thesis"},
               "the shell is now in the thesis folder, not Downloads where the session started"),
        P_state("succeeded", "the build deletion completed", call_id=c_del, request_id="rm-7f31a2"),
        P_fact("cwd", "/home/maya/projects/thesis", "the shell's reported directory after the cd",
               superseded=["/home/maya/Downloads"]),
    ])
    c = t.call("shell", {"command": "du -sh \"$PWD\"/* \"$PWD\"/.[!.]* | sort -rh", "cwd": f"{home}/projects/thesis"})
    base = f"{home}/projects/thesis"
    rows = [("2.2G", "data"), ("1.9G", "figures"), ("870M", ".latexcache"), ("88M", "thesis-draft.pdf"),
            ("61M", "thesis-draft-jan.pdf"), ("14M", "chapters"), ("9.4M", ".git"), ("44K", "refs.bib"),
            ("12K", "main.tex"), ("4.0K", "Makefile"), ("4.0K", ".gitignore")]
    t.result(c, result={"exit_code": 0, "stdout": "".join(f"{a}\t{base}/{b}\n" for a, b in rows), "stderr": "",
                        "cwd": base})
    t.asst("Left: .latexcache (870M), data (2.2G), figures (1.9G), two draft PDFs (88M and 61M), sources.")
    t.user("The cache can go, and the January draft PDF too.")
    t.decision("d2-delete-more", [
        P_next("fs_delete", {"path": "/home/maya/projects/thesis/.latexcache"},
               "the full path comes from the folder the shell moved to, not from the user's words"),
        P_constraint(s_keep, "do not touch figures", "the protected folders must stay out of any deletion"),
    ])
    c_d2 = t.call("fs_delete", {"path": f"{home}/projects/thesis/.latexcache", "recursive": True})
    c_d3 = t.call("fs_delete", {"path": f"{home}/projects/thesis/thesis-draft-jan.pdf", "recursive": False})
    s2, s3 = t.cseq(c_d2), t.cseq(c_d3)
    t.approval("apr-rm-cache", "requested", s2)
    t.approval("apr-rm-jan", "requested", s3)
    t.asst("Two permanent deletes: .latexcache (870M) and thesis-draft-jan.pdf (61M). Approve both?")
    t.user("Approve the cache. Hold off on the PDF, let me check something first.")
    t.approval("apr-rm-cache", "granted", s2)
    t.result(c_d2, request_id="rm-80c4d9", result={"deleted": f"{home}/projects/thesis/.latexcache", "files": 2301,
                                                   "freed_bytes": 912261120})
    t.asst("Cache deleted (870M). The PDF deletion is waiting for your OK.")
    t.user("Go back to Downloads and tell me how much free space I have now.")
    t.decision("d3-free-space", [
        P_next("shell", {"cwd": "/home/maya/Downloads"}, "Downloads was the first folder, many commands ago"),
        P_fact("cwd", "/home/maya/projects/thesis", "the shell is still in the thesis folder until the next cd"),
        P_pending("the January PDF deletion was neither approved nor denied", approval_id="apr-rm-jan"),
    ])
    c = t.call("shell", {"command": "cd ~/Downloads && df -h --output=source,size,used,avail,pcent /home",
                         "cwd": f"{home}/projects/thesis"})
    t.result(c, result={"exit_code": 0, "stdout": "Filesystem      Size  Used Avail Use%\n/dev/nvme0n1p3  476G  437G   "
                        "39G  92%\n", "stderr": "", "cwd": f"{home}/Downloads"})
    t.asst("You're back in ~/Downloads: 39G free on /home (92% used). The January PDF is still waiting for your decision.")
    return t


@trajectory
def t04_chat_schedule() -> T:
    t = T(4, "chat-schedule", "h3-chat-schedule",
          "Scheduling an announcement, rescheduling it, and a DM whose delivery stays unknown",
          ["a channel id and a scheduled-message id returned early are needed to reschedule",
           "a new scheduled id supersedes the deleted one",
           "a timed-out DM stays unknown after a status query that cannot tell",
           "a formatting constraint (no @channel) typed once"],
          "A user schedules a maintenance announcement in a chat workspace, DMs a colleague, and moves the "
          "announcement; the DM's delivery is never confirmed.",
          window=256)
    text1 = "Postgres maintenance Wed 22:00-23:00 UTC. Expect brief write pauses."
    s_rule = t.user(f"Schedule a post in #platform-announce for Tue 9:00 ET: '{text1}' No @channel, please.")
    c = t.call("chat_find_channel", {"query": "platform-announce"})
    t.result(c, result={"ok": True, "channel": {"id": "C04QK7T9B2L", "name": "platform-announce", "num_members": 214}})
    c_s1 = t.call("chat_schedule_message", {"channel_id": "C04QK7T9B2L", "post_at": 1741093200, "text": text1})
    t.result(c_s1, result={"ok": True, "scheduled_message_id": "Q08B3NZ1M5X", "post_at": 1741093200})
    t.asst("Scheduled for Tue Mar 4, 9:00 ET in #platform-announce.")
    t.user("Also DM Kofi Mensah that it's scheduled.")
    c = t.call("chat_lookup_user", {"query": "Kofi Mensah"})
    t.result(c, result={"ok": True, "user": {"id": "U02LRT6PZ9K", "real_name": "Kofi Mensah", "tz": "America/New_York"}})
    c_dm = t.call("chat_post_message", {"channel_id": "U02LRT6PZ9K",
                                        "text": "FYI the Postgres maintenance notice is scheduled for Tue 9:00 ET."})
    t.timeout(c_dm, "chat.postMessage: no response in 15 s")
    t.asst("The DM to Kofi timed out, so I don't know if it was delivered.")
    t.user("Don't resend yet. Move the announcement to Tue 10:00 ET instead.")
    t.decision("d1-reschedule", [
        P_next("chat_delete_scheduled", {"scheduled_message_id": "Q08B3NZ1M5X", "channel_id": "C04QK7T9B2L"},
               "both ids came back from earlier calls"),
        P_state("unknown", "the DM may or may not have gone out", call_id=c_dm),
        P_constraint(s_rule, "No @channel", "the re-scheduled post must still avoid @channel"),
    ])
    c = t.call("chat_delete_scheduled", {"scheduled_message_id": "Q08B3NZ1M5X", "channel_id": "C04QK7T9B2L"})
    t.result(c, result={"ok": True})
    c_s2 = t.call("chat_schedule_message", {"channel_id": "C04QK7T9B2L", "post_at": 1741096800, "text": text1})
    t.result(c_s2, result={"ok": True, "scheduled_message_id": "Q08B41TQ7FD", "post_at": 1741096800})
    t.asst("Moved: the 9:00 post is deleted and a new one is set for Tue 10:00 ET.")
    t.user("Did Kofi get the DM?")
    t.decision("d2-dm", [
        P_pending("the DM call has no definitive answer", call_id=c_dm),
        P_next("chat_history", {"channel_id": "U02LRT6PZ9K"}, "checking the DM needs Kofi's id from the lookup"),
    ])
    c = t.call("chat_history", {"channel_id": "U02LRT6PZ9K", "limit": 5})
    t.result(c, result={"ok": True, "messages": [], "has_more": False, "warning": "history_unavailable_for_app_dm"})
    t.status_query(c_dm, "unknown", detail="no ts recorded for this client_msg_id; gateway still retrying")
    t.asst("I still can't confirm it: the history is empty for the app and the gateway is still retrying.")
    t.user("Leave it. What's the scheduled id now, in case I cancel it myself?")
    t.decision("d3-which-id", [
        P_fact("scheduled_message_id", "Q08B41TQ7FD", "the first scheduled message was deleted",
               superseded=["Q08B3NZ1M5X"]),
        P_state("unknown", "the status query could not tell either", call_id=c_dm),
    ])
    t.asst("It's Q08B41TQ7FD in C04QK7T9B2L (Tue 10:00 ET).")
    return t


@trajectory
def t05_parking_permit() -> T:
    t = T(5, "parking-permit", "h3-parking-permit",
          "Residential parking permit renewal: a plate typo corrected, a payment that times out",
          ["an account number typed once is needed at the end",
           "a corrected licence plate supersedes the typo",
           "an approved irreversible charge times out and is resolved by status_query",
           "the call and its timeout must stay visible until the status is known",
           "a constraint (no visitor-pass add-on) typed once"],
          "A resident renews a zone permit for a new car and pays for it.",
          window=512)
    t.user("I need to renew my residential parking permit. Account number RP-300-58821.")
    c = t.call("permit_lookup_account", {"account_id": "RP-300-58821"})
    t.result(c, result={"account_id": "RP-300-58821", "holder": "J. Okafor", "address": "41 Linden Ave, Apt 2",
                        "permits": [{"permit_id": "ZP4-2024-11873", "zone": 4, "expires": "2025-03-31",
                                     "plate": "7RBN559"}],
                        "card_on_file": {"payment_method_id": "pm_card_3381", "brand": "visa", "last4": "3381"}})
    t.asst("Permit ZP4-2024-11873 (zone 4) expires Mar 31 and is for plate 7RBN559. Renew it as is?")
    t.user("I sold that car. The new plate is 8KXM214, a 2021 Mazda CX-5.")
    s_plate = t.fact("plate", "8KXM214", subject={"permit_id": "ZP4-2024-11873"})
    c = t.call("permit_update_vehicle", {"permit_id": "ZP4-2024-11873", "plate": "8KXM214", "state": "CA",
                                         "vehicle": "2021 Mazda CX-5"})
    t.result(c, result={"permit_id": "ZP4-2024-11873", "verification": "failed",
                        "message": "Plate 8KXM214 is not registered to 41 Linden Ave in DMV records."})
    t.asst("The DMV check failed: 8KXM214 isn't registered to your address. Could the plate be different?")
    t.user("Oops, typo. It's 8KXM241.")
    t.correction("plate", "8KXM241", supersedes=s_plate, subject={"permit_id": "ZP4-2024-11873"})
    t.decision("d1-fix-plate", [
        P_fact("plate", "8KXM241", "the typo must not be sent again", superseded=["8KXM214"]),
        P_next("permit_update_vehicle", {"permit_id": "ZP4-2024-11873"}, "the permit id came from the account lookup"),
    ])
    c = t.call("permit_update_vehicle", {"permit_id": "ZP4-2024-11873", "plate": "8KXM241", "state": "CA",
                                         "vehicle": "2021 Mazda CX-5"})
    t.result(c, result={"permit_id": "ZP4-2024-11873", "verification": "passed", "dmv_match": True})
    c = t.call("permit_renew", {"permit_id": "ZP4-2024-11873", "term_months": 12})
    t.result(c, result={"invoice_id": "INV-7730142", "amount_due": "95.00", "line_items": [
        {"item": "Zone 4 residential permit, 12 months", "amount": "95.00"}],
        "optional_add_ons": [{"item": "Visitor pass booklet (20 days)", "amount": "30.00"}]})
    t.asst("Plate verified. Renewal invoice INV-7730142: $95.00. A visitor-pass booklet ($30) is optional. "
           "Pay with the Visa ending 3381?")
    s_no = t.user("Yes, the card on file. Don't add the visitor pass booklet.")
    c_pay = t.call("payment_charge", {"invoice_id": "INV-7730142", "amount": "95.00",
                                      "payment_method_id": "pm_card_3381"})
    sp = t.cseq(c_pay)
    t.approval("apr-permit-pay", "requested", sp)
    t.asst("Charging $95.00 to Visa ending 3381 is final. Approve?")
    t.user("Approved.")
    t.approval("apr-permit-pay", "granted", sp)
    s_to = t.timeout(c_pay, "payment gateway: read timeout after 30 s")
    t.asst("The charge timed out. I'll check with the city's payment system before trying again, so you "
           "aren't charged twice.")
    t.user("Please make sure I'm not charged twice.")
    t.decision("d2-check-charge", [
        P_state("unknown", "a timeout says nothing about whether the card was charged", call_id=c_pay),
        P_pending("the charge has no definitive answer yet", call_id=c_pay),
        P_evidence([sp, s_to], "the exact call and its timeout are what the status check is about"),
        P_constraint(s_no, "visitor pass", "a retry, if one is needed, must still leave out the add-on"),
    ])
    t.status_query(c_pay, "succeeded", request_id="pay-2025-02-26-4471", receipt_id="RCPT-88410327",
                   amount_charged="95.00")
    t.asst("Good: the charge went through once, receipt RCPT-88410327 for $95.00. No retry needed.")
    t.user("When does the new permit expire, and will the sticker go to the same address?")
    t.decision("d3-confirm", [
        P_next("permit_lookup_account", {"account_id": "RP-300-58821"}, "the account number was typed only at the start"),
        P_state("succeeded", "the charge is confirmed by the status query", call_id=c_pay,
                request_id="pay-2025-02-26-4471"),
    ])
    c = t.call("permit_lookup_account", {"account_id": "RP-300-58821"})
    t.result(c, result={"account_id": "RP-300-58821", "address": "41 Linden Ave, Apt 2",
                        "permits": [{"permit_id": "ZP4-2025-02517", "zone": 4, "starts": "2025-04-01",
                                     "expires": "2026-03-31", "plate": "8KXM241", "sticker": "mailing"}]})
    t.asst("New permit ZP4-2025-02517 runs Apr 1, 2025 to Mar 31, 2026 for 8KXM241; the sticker is being "
           "mailed to 41 Linden Ave, Apt 2.")
    return t


@trajectory
def t06_section_swap() -> T:
    t = T(6, "section-swap", "h3-section-swap",
          "Registrar: swapping a chemistry section during add/drop; the swap never confirms",
          ["a student id typed once is needed for later calls",
           "CRNs returned by a section search are used by the swap and waitlist calls",
           "a timed-out swap stays unknown through a status query that cannot tell",
           "a schedule constraint (nothing before 10am) typed once",
           "the user changes their mind about a backup waitlist"],
          "A student swaps a lecture section because of a job conflict; the registration system is overloaded.",
          window=1024)
    t.user("Hi, student ID 903-441-276. I need to switch my CHEM 2110 section. I got a job as a lab tech in the "
           "medical school and the shifts are Tue/Thu mornings, which clashes with my current lecture. Add/drop "
           "closes Friday so I'd like to sort it out today.")
    c = t.call("reg_get_schedule", {"student_id": "903-441-276", "term": "202502"})
    t.result(c, result={"student_id": "903-441-276", "term": "Spring 2025", "credits": 15, "sections": [
        {"crn": "21847", "course": "CHEM 2110-A", "days": "TR", "time": "09:30-10:45"},
        {"crn": "21903", "course": "CHEM 2111-L04", "days": "F", "time": "13:00-15:50"},
        {"crn": "30412", "course": "MATH 2250-002", "days": "MWF", "time": "11:00-11:50"},
        {"crn": "33781", "course": "HIST 1120-010", "days": "TR", "time": "12:30-13:45"},
        {"crn": "35560", "course": "PSYC 1010-005", "days": "W", "time": "17:30-20:15"}]})
    t.asst("You're in CHEM 2110-A (CRN 21847), Tue/Thu 9:30-10:45. Want me to look for other sections?")
    s_rule = t.user("Yes. Nothing before 10am on any day, please.")
    c = t.call("reg_search_sections", {"course": "CHEM 2110", "term": "202502"})
    t.result(c, result={"course": "CHEM 2110", "sections": [
        {"crn": "21847", "section": "A", "days": "TR", "time": "09:30-10:45", "open": 0, "waitlist": 0},
        {"crn": "21848", "section": "B", "days": "MWF", "time": "08:00-08:50", "open": 6, "waitlist": 0},
        {"crn": "21851", "section": "C", "days": "TR", "time": "14:00-15:15", "open": 0, "waitlist": 4},
        {"crn": "21855", "section": "D", "days": "MW", "time": "15:30-16:45", "open": 3, "waitlist": 0},
        {"crn": "21860", "section": "E", "days": "online", "time": "async", "open": 0, "waitlist": 11}]})
    t.asst("Two sections start after 10am: D (CRN 21855, Mon/Wed 3:30-4:45, 3 seats open) and C (CRN 21851, "
           "Tue/Thu 2:00-3:15, full with 4 on the waitlist). B meets at 8am and E is online but full with 11 waiting, "
           "so neither fits. D doesn't overlap your Friday lab, Linear Algebra (MWF 11-11:50) or Psychology "
           "(Wed evening).")
    t.user("D works. Do I have any holds that would block it?")
    c = t.call("reg_check_holds", {"student_id": "903-441-276"})
    t.result(c, result={"holds": [{"code": "ADV", "description": "Advising hold (cleared 2025-01-08)",
                                   "active": False}], "registration_blocked": False})
    t.asst("No active holds; the advising hold was cleared in January.")
    t.user("Wait, does section D still count for my biochem major the same way? Check my audit.")
    c = t.call("reg_degree_audit", {"student_id": "903-441-276", "program": "BS-BCHM"})
    t.result(c, result={"program": "BS Biochemistry", "catalog_year": "2023", "advisor": "Dr. Lena Marsh",
                        "requirements": [
                            {"area": "Organic sequence", "rule": "CHEM 2110 + 2111 + 2120 + 2121, any section",
                             "status": "in_progress"},
                            {"area": "Math", "rule": "MATH 1210, 1220, 2250", "status": "in_progress"},
                            {"area": "Gen ed: history", "rule": "one of HIST 1110/1120", "status": "in_progress"},
                            {"area": "Upper-division lab", "rule": "two of BCHM 4xxx lab", "status": "not_started"}],
                        "credits_earned": 47, "credits_required": 120})
    t.asst("Yes: the audit takes CHEM 2110 in any section for the organic sequence, so D counts the same. "
           "Your advisor on record is Dr. Lena Marsh.")
    t.user("OK, do the swap to D.")
    t.decision("d1-swap", [
        P_next("reg_swap_section", {"student_id": "903-441-276", "drop_crn": "21847", "add_crn": "21855"},
               "the student id was typed in the first message and both CRNs came from tool results"),
        P_constraint(s_rule, "before 10am", "the chosen section must respect the time rule"),
    ])
    c_sw = t.call("reg_swap_section", {"student_id": "903-441-276", "term": "202502", "drop_crn": "21847",
                                       "add_crn": "21855"})
    s_sw = t.cseq(c_sw)
    s_to = t.timeout(c_sw, "Banner registration service busy (add/drop peak); transaction not confirmed")
    t.asst("The swap request timed out. The registration system is overloaded during add/drop, so I can't tell "
           "whether it went through. A swap is all-or-nothing, so you're in either A or D, not both and not neither. "
           "I won't resend it until I know, because a second request could fail and look like a drop.")
    t.user("Ugh. Put me on the waitlist for section C as a backup, in case D didn't work.")
    t.decision("d2-backup", [
        P_next("reg_waitlist_add", {"crn": "21851", "student_id": "903-441-276"},
               "section C's CRN came from the search results"),
        P_state("unknown", "the swap may or may not have happened", call_id=c_sw),
    ])
    c_wl = t.call("reg_waitlist_add", {"crn": "21851", "student_id": "903-441-276", "term": "202502"})
    t.result(c_wl, result={"crn": "21851", "waitlist_position": 5, "notify": "email"})
    t.asst("Done: you're #5 on the waitlist for section C (CRN 21851). If a seat opens you'll get an e-mail and "
           "have 24 hours to claim it. Note that if the swap to D did go through, a waitlist offer for C would mean "
           "choosing between them again.")
    t.user("Actually take me off the C waitlist. My manager moved my shift, so Tue/Thu afternoons won't work anymore.")
    c = t.call("reg_waitlist_drop", {"crn": "21851", "student_id": "903-441-276", "term": "202502"})
    t.result(c, result={"crn": "21851", "removed": True})
    t.status_query(c_sw, "unknown", detail="transaction TX-5518820 still queued behind 1,204 requests")
    t.asst("Removed from the C waitlist. The swap is still queued at the registrar, so I can't say yet.")
    t.user("So which class do I go to tomorrow, A or D?")
    t.decision("d3-which-class", [
        P_state("unknown", "the status query could not confirm the swap", call_id=c_sw),
        P_pending("the swap still has no definitive answer", call_id=c_sw),
        P_evidence([s_sw, s_to], "the swap call and its timeout explain why the schedule may be stale"),
    ])
    c = t.call("reg_get_schedule", {"student_id": "903-441-276", "term": "202502"})
    t.result(c, result={"student_id": "903-441-276", "term": "Spring 2025", "credits": 15,
                        "sections_note": "CHEM 2110: CRN 21847 (A) registered; pending transaction TX-5518820"})
    t.asst("Your schedule still shows section A (CRN 21847) with the swap pending. Go to A tomorrow; I'll check "
           "again later.")
    t.user("Check the swap one more time before I log off?")
    t.status_query(c_sw, "unknown", detail="transaction TX-5518820 still queued (312 ahead); no result yet")
    t.asst("Still queued, 312 requests ahead of yours. No result yet, so nothing has changed: section A stands for now.")
    t.user("Fine. If it's still stuck tonight should I email my advisor or the registrar?")
    t.asst("The registrar: the swap is their transaction (TX-5518820). Dr. Marsh can't push it through, but she "
           "can sign a late-add form if D fills up before it processes.")
    return t




def _b64(t: T, n: int) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    return "".join(t.rng.choice(alphabet) for _ in range(n))


@trajectory
def t07_dns_migration() -> T:
    t = T(7, "dns-migration", "h3-dns-migration",
          "DNS migration and registrar transfer: stale export, DNSSEC, nameserver switch, transfer in",
          ["an account id and an auth code typed once are needed many turns later",
           "a zone id and record ids returned early are used by later calls",
           "two exports of the same zone disagree with a live lookup (cross-tool contradiction)",
           "the registrar and a public resolver disagree about the nameservers after the switch",
           "write timeouts resolved by status_query; the transfer's stays unknown",
           "an approval denied, a second one granted, a third open while the user asks questions",
           "a side topic (blog record) and the return to the migration",
           "constraints (TTL 300, skip staging, do not delete the old zone) typed once"],
          "A shop owner moves DNS for larkspur-ceramics.com from the old host to a new DNS provider, then "
          "transfers the registration; the session spans a night.")
    D = "larkspur-ceramics.com"
    ACCT = "9b1f4c0e27d84a5c8e61d3a2f0b7c915"
    ZONE = "5f2c8e19a0b34d7e9c61f08d2b4a7e33"
    AUTH = "Xq7#Lm2v!Rp9Tz"
    NS_NEW = ["dana.ns.cloudflare.com", "walt.ns.cloudflare.com"]
    NS_OLD = ["ns1.hostwell-dns.net", "ns2.hostwell-dns.net"]

    t.system("You are an operations assistant with access to the old DNS host/registrar (Hostwell), the new DNS "
             "provider's API and a public DNS lookup tool. Ask before any change that affects the whole domain.")
    t.user(f"We're moving {D} off Hostwell DNS to Cloudflare, and after that transferring the registration to "
           f"Cloudflare too. Our Cloudflare account ID is {ACCT}. The shop is on Shopify, the blog on Ghost, and we "
           "launch the spring collection on Thursday, so nothing can be down for long, and please tell me before "
           "anything that could affect mail. Start by exporting the current zone from Hostwell.")
    t.fact("cf_account_id", ACCT)
    c = t.call("dns_export_zone", {"domain": D})
    dkim_fm = _b64(t, 40)
    std = [f"; Hostwell DNS export - {D} - standard zone", f"$ORIGIN {D}.", "$TTL 3600",
           f"@\t3600\tIN\tSOA\tns1.hostwell-dns.net. hostmaster.hostwell.net. 2023062201 7200 3600 1209600 3600",
           "@\t86400\tIN\tNS\tns1.hostwell-dns.net.", "@\t86400\tIN\tNS\tns2.hostwell-dns.net.",
           "@\t3600\tIN\tA\t23.227.38.65", "www\t3600\tIN\tCNAME\tshops.myshopify.com.",
           "shop\t3600\tIN\tCNAME\tshops.myshopify.com.", "blog\t3600\tIN\tCNAME\tlarkspur.ghost.io.",
           "@\t3600\tIN\tMX\t10 in1-smtp.messagingengine.com.", "@\t3600\tIN\tMX\t20 in2-smtp.messagingengine.com.",
           "@\t3600\tIN\tTXT\t\"v=spf1 include:spf.messagingengine.com include:shops.shopify.com ~all\"",
           "fm1._domainkey\t3600\tIN\tCNAME\tfm1.larkspur-ceramics.com.dkim.fmhosted.com.",
           "fm2._domainkey\t3600\tIN\tCNAME\tfm2.larkspur-ceramics.com.dkim.fmhosted.com.",
           "fm3._domainkey\t3600\tIN\tCNAME\tfm3.larkspur-ceramics.com.dkim.fmhosted.com.",
           "_dmarc\t3600\tIN\tTXT\t\"v=DMARC1; p=none; rua=mailto:dmarc@larkspur-ceramics.com\"",
           f"@\t3600\tIN\tTXT\t\"shopify-verification-code={dkim_fm}\"",
           "staging\t3600\tIN\tA\t198.51.100.23", "staging-api\t3600\tIN\tA\t198.51.100.24",
           "files\t3600\tIN\tCNAME\tlarkspur-files.s3-website-us-east-1.amazonaws.com.",
           "booking\t3600\tIN\tCNAME\tlarkspur.youcanbook.me.",
           "_submission._tcp\t3600\tIN\tSRV\t0 1 587 smtp.fastmail.com.",
           "_imaps._tcp\t3600\tIN\tSRV\t0 1 993 imap.fastmail.com.",
           "_carddavs._tcp\t3600\tIN\tSRV\t0 1 443 carddav.fastmail.com.",
           "_caldavs._tcp\t3600\tIN\tSRV\t0 1 443 caldav.fastmail.com.",
           "mail\t3600\tIN\tCNAME\tmail.fastmail.com.", "@\t3600\tIN\tCAA\t0 issue \"letsencrypt.org\""]
    t.result(c, result={"domain": D, "source": "standard", "serial": 2023062201, "record_count": len(std) - 3,
                        "exported_at": "2025-02-25T16:02:11Z", "format": "bind", "zone_file": "\n".join(std) + "\n"})
    t.asst("Here's the Hostwell export (standard zone, serial 2023062201, 25 records): apex A 23.227.38.65 and "
           "www/shop CNAMEs to Shopify, blog CNAME to larkspur.ghost.io, mail MX to Fastmail "
           "(in1/in2-smtp.messagingengine.com) with Fastmail DKIM and SRV records, DMARC p=none, two staging A "
           "records, files (S3) and booking (YouCanBook.me).")
    t.user("Fastmail? We moved mail to Google Workspace last spring. Check what resolvers actually see right now.")
    c = t.call("dns_lookup", {"domain": D, "type": "MX", "resolver": "1.1.1.1"})
    s_mx_live = t.result(c, result={
        "question": f"{D}. IN MX", "status": "NOERROR", "flags": "qr rd ra", "resolver": "1.1.1.1#53",
        "query_time_ms": 18, "answer": [
            f"{D}.\t2871\tIN\tMX\t1 aspmx.l.google.com.", f"{D}.\t2871\tIN\tMX\t5 alt1.aspmx.l.google.com.",
            f"{D}.\t2871\tIN\tMX\t5 alt2.aspmx.l.google.com.", f"{D}.\t2871\tIN\tMX\t10 alt3.aspmx.l.google.com.",
            f"{D}.\t2871\tIN\tMX\t10 alt4.aspmx.l.google.com."]})
    c = t.call("dns_lookup", {"domain": D, "type": "NS", "resolver": "1.1.1.1"})
    t.result(c, result={"question": f"{D}. IN NS", "status": "NOERROR", "resolver": "1.1.1.1#53", "query_time_ms": 22,
                        "answer": [f"{D}.\t86400\tIN\tNS\tns1.hostwell-dns.net.",
                                   f"{D}.\t86400\tIN\tNS\tns2.hostwell-dns.net."]})
    t.asst("You're right: the live MX (via 1.1.1.1) is Google Workspace (aspmx.l.google.com and the alt1-4 "
           "hosts), while the Hostwell export says Fastmail. The nameservers are still Hostwell's, so Hostwell is "
           "serving some other copy than the one it exported. I'd check which zone Hostwell actually serves before "
           "copying anything.")
    t.user("Ask Hostwell what it has for the domain.")
    c = t.call("registrar_get_domain", {"domain": D})
    t.result(c, result={
        "domain": D, "registrar": "Hostwell Inc.", "registrar_iana_id": 1471, "created": "2016-08-19",
        "expires": "2025-08-19", "auto_renew": True, "status": ["clientTransferProhibited"],
        "nameservers": NS_OLD, "registrant": {"name": "REDACTED FOR PRIVACY", "org": "Larkspur Ceramics LLC",
                                               "country": "US"},
        "privacy": "enabled", "dns_service": {"plan": "Premium DNS", "serving_zone": "premium",
                                              "standard_zone": "present, inactive since 2024-04-02"},
        "contacts_verified": True})
    t.asst("That explains it: Hostwell has been serving a Premium DNS zone since April 2024, and the export tool read "
           "the old inactive standard zone. The domain is locked (clientTransferProhibited), expires 2025-08-19, "
           "auto-renew on. I can export the premium zone instead.")
    t.user("Yes, export the premium one.")
    c = t.call("dns_export_zone", {"domain": D, "source": "premium"})
    dkim_g = _b64(t, 392)
    dkim_mg = _b64(t, 216)
    prem = [f"; Hostwell DNS export - {D} - premium zone", f"$ORIGIN {D}.", "$TTL 3600",
            "@\t3600\tIN\tSOA\tpdns1.hostwell-dns.net. hostmaster.hostwell.net. 2025021804 7200 3600 1209600 3600",
            "@\t86400\tIN\tNS\tns1.hostwell-dns.net.", "@\t86400\tIN\tNS\tns2.hostwell-dns.net.",
            "@\t3600\tIN\tA\t23.227.38.65", "www\t3600\tIN\tCNAME\tshops.myshopify.com.",
            "shop\t3600\tIN\tCNAME\tshops.myshopify.com.", "blog\t3600\tIN\tCNAME\tlarkspur.ghost.io.",
            "@\t3600\tIN\tMX\t1 aspmx.l.google.com.", "@\t3600\tIN\tMX\t5 alt1.aspmx.l.google.com.",
            "@\t3600\tIN\tMX\t5 alt2.aspmx.l.google.com.", "@\t3600\tIN\tMX\t10 alt3.aspmx.l.google.com.",
            "@\t3600\tIN\tMX\t10 alt4.aspmx.l.google.com.",
            "@\t3600\tIN\tTXT\t\"v=spf1 include:_spf.google.com include:shops.shopify.com include:mailgun.org ~all\"",
            f"google._domainkey\t3600\tIN\tTXT\t\"v=DKIM1; k=rsa; p={dkim_g}\"",
            "_dmarc\t3600\tIN\tTXT\t\"v=DMARC1; p=quarantine; pct=100; rua=mailto:dmarc@larkspur-ceramics.com\"",
            f"@\t3600\tIN\tTXT\t\"google-site-verification={_b64(t, 43)}\"",
            f"@\t3600\tIN\tTXT\t\"shopify-verification-code={dkim_fm}\"",
            "mg\t3600\tIN\tMX\t10 mxa.mailgun.org.", "mg\t3600\tIN\tMX\t10 mxb.mailgun.org.",
            "mg\t3600\tIN\tTXT\t\"v=spf1 include:mailgun.org ~all\"",
            f"k1._domainkey.mg\t3600\tIN\tTXT\t\"k=rsa; p={dkim_mg}\"",
            "email.mg\t3600\tIN\tCNAME\tmailgun.org.",
            "calendar\t3600\tIN\tCNAME\tghs.googlehosted.com.",
            "staging\t3600\tIN\tA\t198.51.100.23", "staging-api\t3600\tIN\tA\t198.51.100.24",
            "files\t3600\tIN\tCNAME\tlarkspur-files.s3-website-us-east-1.amazonaws.com.",
            "booking\t3600\tIN\tCNAME\tlarkspur.youcanbook.me.",
            "@\t3600\tIN\tCAA\t0 issue \"letsencrypt.org\"", "@\t3600\tIN\tCAA\t0 issue \"pki.goog\"",
            "@\t3600\tIN\tCAA\t0 iodef \"mailto:ops@larkspur-ceramics.com\""]
    s_prem = t.result(c, result={"domain": D, "source": "premium", "serial": 2025021804, "record_count": len(prem) - 3,
                                 "exported_at": "2025-02-25T16:09:40Z", "format": "bind",
                                 "zone_file": "\n".join(prem) + "\n"})
    t.asst("Premium zone exported: serial 2025021804, 30 records. It has the Google Workspace MX set, Google DKIM, "
           "DMARC p=quarantine, Mailgun on mg.larkspur-ceramics.com (MX, SPF, DKIM, tracking CNAME), "
           "calendar -> ghs.googlehosted.com, three CAA records, plus the same Shopify, blog, files, booking and "
           "staging records as before.")
    s_rules = t.user("Good. Create the zone in Cloudflare and import that premium file. Keep every TTL at 300 during "
                     "the migration, we'll raise them afterwards. And skip the staging records, staging is dead.")
    t.decision("d1-create-zone", [
        P_next("cf_create_zone", {"account_id": ACCT, "name": D},
               "the account id was typed once in the first message"),
        P_evidence([s_mx_live, s_prem], "the live MX reading and the export that agrees with it are why the premium "
                                        "file is the one to import"),
    ], note="early: everything still fits")
    c = t.call("cf_create_zone", {"account_id": ACCT, "name": D, "type": "full", "jump_start": False})
    t.result(c, request_id="cf-ray-8f7a21c0de9b4e11-IAD", result={
        "success": True, "errors": [], "messages": [],
        "result": {"id": ZONE, "name": D, "status": "pending", "paused": False, "type": "full",
                   "development_mode": 0, "name_servers": NS_NEW,
                   "original_name_servers": NS_OLD, "original_registrar": "hostwell inc. (id: 1471)",
                   "original_dnshost": "Hostwell", "modified_on": "2025-02-25T16:12:03.118442Z",
                   "created_on": "2025-02-25T16:12:03.118442Z", "activated_on": None,
                   "meta": {"step": 2, "custom_certificate_quota": 0, "page_rule_quota": 3,
                            "phishing_detected": False},
                   "owner": {"id": None, "type": "user", "email": None},
                   "account": {"id": ACCT, "name": "Larkspur Ceramics"},
                   "tenant": {"id": None, "name": None}, "tenant_unit": {"id": None},
                   "permissions": ["#dns_records:edit", "#dns_records:read", "#zone:read", "#zone:edit"],
                   "plan": {"id": "0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee", "name": "Free Website", "price": 0,
                            "currency": "USD", "frequency": "", "is_subscribed": False, "can_subscribe": False,
                            "legacy_id": "free", "legacy_discount": False, "externally_managed": False}}})
    c_imp = t.call("cf_import_records", {"zone_id": ZONE, "file": "premium export serial 2025021804",
                                         "ttl_override": 300, "exclude_names": ["staging", "staging-api"],
                                         "proxied": False})
    s_imp = t.cseq(c_imp)
    t.timeout(c_imp, "POST /zones/{zone_id}/dns_records/import: upstream timeout after 60 s")
    t.asst(f"Zone created: id {ZONE}, status pending, assigned nameservers dana.ns.cloudflare.com and "
           "walt.ns.cloudflare.com. The record import timed out after 60 s, though. I won't re-run it blind, "
           "because a second import could create duplicates; I'll check what landed first.")
    t.user("OK, check it.")
    t.decision("d2-import-check", [
        P_state("unknown", "the import timed out; nothing says yet whether it ran", call_id=c_imp),
        P_pending("the import has no definitive answer", call_id=c_imp),
        P_next("cf_list_records", {"zone_id": ZONE}, "the zone id came back from the create call"),
    ])
    t.status_query(c_imp, "succeeded", request_id="cf-ray-8f7a2b9e01c34d72-IAD",
                   result={"recs_added": 25, "total_records_parsed": 30,
                           "skipped": [{"name": f"staging.{D}", "reason": "excluded"},
                                       {"name": f"staging-api.{D}", "reason": "excluded"}]},
                   note="apex SOA and NS records (3) are managed by the provider and were not imported")
    ids = {}

    def rec(name, rtype, content, ttl=300, proxied=False, prio=None):
        rid = t.hexid(32)
        ids[(name, rtype, content)] = rid
        r = {"id": rid, "name": name, "type": rtype, "content": content,
             "proxiable": rtype in ("A", "CNAME"), "proxied": proxied, "ttl": ttl}
        if prio is not None:
            r["priority"] = prio
        stamp = "2025-02-25T16:13:51." + str(t.rng.randint(100000, 999999)) + "Z"
        r.update({"comment": None, "tags": [], "created_on": stamp, "modified_on": stamp})
        return r
    recs1 = [rec(D, "A", "23.227.38.65"), rec(f"www.{D}", "CNAME", "shops.myshopify.com"),
             rec(f"shop.{D}", "CNAME", "shops.myshopify.com"), rec(f"blog.{D}", "CNAME", "larkspur.ghost.io"),
             rec(D, "MX", "aspmx.l.google.com", prio=1), rec(D, "MX", "alt1.aspmx.l.google.com", prio=5),
             rec(D, "MX", "alt2.aspmx.l.google.com", prio=5), rec(D, "MX", "alt3.aspmx.l.google.com", prio=10),
             rec(D, "MX", "alt4.aspmx.l.google.com", prio=10),
             rec(D, "TXT", "\"v=spf1 include:_spf.google.com include:shops.shopify.com include:mailgun.org ~all\""),
             rec(f"_dmarc.{D}", "TXT", "\"v=DMARC1; p=quarantine; pct=100; rua=mailto:dmarc@larkspur-ceramics.com\""),
             rec(f"calendar.{D}", "CNAME", "ghs.googlehosted.com"),
             rec(f"files.{D}", "CNAME", "larkspur-files.s3-website-us-east-1.amazonaws.com"),
             rec(f"booking.{D}", "CNAME", "larkspur.youcanbook.me")]
    blog_id = ids[(f"blog.{D}", "CNAME", "larkspur.ghost.io")]
    allrecs = recs1
    recs2 = [rec(f"google._domainkey.{D}", "TXT", "\"v=DKIM1; k=rsa; p=" + dkim_g[:60] + "...\""),
             rec(D, "TXT", "\"google-site-verification=...\""), rec(D, "TXT", "\"shopify-verification-code=...\""),
             rec(f"mg.{D}", "MX", "mxa.mailgun.org", prio=10), rec(f"mg.{D}", "MX", "mxb.mailgun.org", prio=10),
             rec(f"mg.{D}", "TXT", "\"v=spf1 include:mailgun.org ~all\""),
             rec(f"k1._domainkey.mg.{D}", "TXT", "\"k=rsa; p=" + dkim_mg[:40] + "...\""),
             rec(f"email.mg.{D}", "CNAME", "mailgun.org"),
             rec(D, "CAA", "0 issue \"letsencrypt.org\""), rec(D, "CAA", "0 issue \"pki.goog\""),
             rec(D, "CAA", "0 iodef \"mailto:ops@larkspur-ceramics.com\"")]
    allrecs += recs2
    for page in (1, 2, 3):
        chunk = allrecs[(page - 1) * 9:page * 9]
        c = t.call("cf_list_records", {"zone_id": ZONE, "per_page": 9, "page": page})
        t.result(c, result={"success": True, "errors": [], "messages": [], "result": chunk,
                            "result_info": {"page": page, "per_page": 9, "count": len(chunk), "total_count": 25,
                                            "total_pages": 3}})
    t.asst("The import did run, exactly once: 25 records added, the two staging records skipped as you asked, and "
           "the apex SOA/NS left to Cloudflare. The listing (three pages) shows all 25: every record DNS-only (not "
           "proxied) with TTL 300, the Google MX set, Mailgun, DKIM, DMARC and the three CAA records.")
    t.user("Fine. Side question while I remember: Ghost keeps e-mailing me that blog.larkspur-ceramics.com failed "
           "verification. Their dashboard now says the CNAME target has to be larkspur-ceramics.ghost.io.")
    t.topic_switch("zone import", "ghost blog record")
    c = t.call("dns_lookup", {"domain": f"blog.{D}", "type": "CNAME", "resolver": "1.1.1.1"})
    t.result(c, result={"question": f"blog.{D}. IN CNAME", "status": "NOERROR", "resolver": "1.1.1.1#53",
                        "query_time_ms": 31, "answer": [f"blog.{D}.\t3412\tIN\tCNAME\tlarkspur.ghost.io."]})
    t.asst("Right now the blog CNAME points to larkspur.ghost.io at Hostwell, and the copy we just imported into "
           "Cloudflare has the same target. Ghost wants larkspur-ceramics.ghost.io. I can fix it in the new zone; "
           "it takes effect once the nameservers switch.")
    t.user("Just fix it in Cloudflare, Hostwell is going away in a day anyway.")
    t.decision("d3-fix-blog", [
        P_next("cf_update_record", {"zone_id": ZONE, "record_id": blog_id},
               "the blog record's id is only in the record listing several turns back"),
        P_constraint(s_rules, "TTL at 300", "the edited record must keep the migration TTL"),
        P_fact("recs_added", 25, "the import's confirmed count from the status query"),
    ])
    c = t.call("cf_update_record", {"zone_id": ZONE, "record_id": blog_id, "type": "CNAME", "name": f"blog.{D}",
                                    "content": "larkspur-ceramics.ghost.io", "ttl": 300, "proxied": False})
    t.result(c, request_id="cf-ray-8f7a3302aa7e4b19-IAD", result={
        "success": True, "errors": [], "messages": [],
        "result": {"id": blog_id, "zone_id": ZONE, "name": f"blog.{D}", "type": "CNAME",
                   "content": "larkspur-ceramics.ghost.io", "proxiable": True, "proxied": False, "ttl": 300,
                   "modified_on": "2025-02-25T16:31:09.774120Z"}})
    t.asst("Updated: blog.larkspur-ceramics.com is now a CNAME to larkspur-ceramics.ghost.io in Cloudflare "
           "(DNS only, TTL 300). Ghost's check should pass once the nameservers point to Cloudflare.")
    t.subtask_end("ghost blog record", "blog CNAME changed to larkspur-ceramics.ghost.io in the new zone")
    t.user("Thanks. Back to the migration: switch the nameservers at Hostwell to the Cloudflare ones.")
    t.topic_switch("ghost blog record", "nameserver switch")
    c_ns1 = t.call("registrar_set_nameservers", {"domain": D, "nameservers": NS_NEW})
    s_ns1 = t.cseq(c_ns1)
    t.approval("apr-ns-1", "requested", s_ns1)
    t.asst("This changes the delegation of the whole domain (web, shop, mail) to dana.ns.cloudflare.com and "
           "walt.ns.cloudflare.com. Approve?")
    t.user("Wait. Isn't DNSSEC on at Hostwell? I think I turned it on when I bought Premium DNS. Won't the switch "
           "break things?")
    t.decision("d4-dnssec", [
        P_pending("the nameserver approval is still unanswered", approval_id="apr-ns-1"),
        P_pending("the nameserver call waits on that approval", call_id=c_ns1),
    ])
    c = t.call("registrar_get_dnssec", {"domain": D})
    t.result(c, result={"domain": D, "dnssec": "enabled", "signing": "hostwell-managed",
                        "ds_records": [{"key_tag": 2371, "algorithm": 13, "digest_type": 2,
                                        "digest": "9F1C0B7E2A5D44C8B1E06F3A7D92C5E18B40A6D3F7C21E95B8A04D6C3E1F7A20"}],
                        "parent_ds_ttl": 86400})
    t.asst("Good catch: DNSSEC is on, with a DS record at the .com registry (key tag 2371, algorithm 13) signed by "
           "Hostwell. If we delegate to Cloudflare while that DS is published, validating resolvers (Google, "
           "Cloudflare, most ISPs) will reject every answer for the domain and the shop and mail go dark. The safe "
           "order is: remove the DS, wait out its TTL (1 day at the parent), then switch nameservers, then turn "
           "DNSSEC on at Cloudflare.")
    t.user("Then deny that nameserver change for now and remove the DS record first.")
    t.approval("apr-ns-1", "denied", s_ns1)
    t.result(c_ns1, "cancelled", error="approval denied by user")
    c = t.call("registrar_remove_ds", {"domain": D, "key_tag": 2371})
    t.result(c, request_id="hw-5d81f0c2", result={"domain": D, "ds_records": [], "dnssec": "disabled",
                                                 "submitted_to_registry": "2025-02-25T16:40:12Z",
                                                 "parent_ds_ttl": 86400})
    t.asst("Nameserver change cancelled. The DS record is removed at the registry (16:40 UTC). Resolvers may keep "
           "the old DS cached for up to 24 hours, so the nameserver switch should wait until tomorrow ~16:40 UTC.")
    t.user("Ugh, ok. Let's pick this up tomorrow. Is anything half-done right now that could bite us tonight?")
    t.asst("No. Hostwell is still authoritative and serves the same premium zone as before; only the DS record "
           "is gone, which just means resolvers stop validating signatures for the domain. The Cloudflare zone "
           "exists but isn't delegated, so it's inert. Tomorrow: confirm the DS is gone from the big resolvers, "
           "switch the nameservers, and wait for Cloudflare to activate the zone.")
    t.system("Session resumed 2025-02-26 17:05 UTC.")
    t.user("Hi again, it's been more than 24 hours. Is the DS gone everywhere?")
    for resolver in ("1.1.1.1", "8.8.8.8", "9.9.9.9"):
        c = t.call("dns_lookup", {"domain": D, "type": "DS", "resolver": resolver})
        t.result(c, result={"question": f"{D}. IN DS", "status": "NOERROR", "resolver": f"{resolver}#53",
                            "answer": [], "authority": [
                                "com.\t900\tIN\tSOA\ta.gtld-servers.net. nstld.verisign-grs.com. "
                                f"17405{t.rng.randint(10000, 99999)} 1800 900 604800 86400"]})
    t.asst("Yes: 1.1.1.1, 8.8.8.8 and 9.9.9.9 all return no DS record for the domain now.")
    t.user("Then go ahead with the nameserver change now.")
    t.decision("d5-ns-switch", [
        P_next("registrar_set_nameservers", {"nameservers[0]": NS_NEW[0], "nameservers[1]": NS_NEW[1]},
               "the assigned nameservers came back from the zone creation yesterday"),
        P_state("cancelled", "the first nameserver call was cancelled when the approval was denied", call_id=c_ns1),
        P_fact("dnssec", "disabled", "the DS removal is what makes the switch safe", superseded=["enabled"]),
    ])
    c_ns2 = t.call("registrar_set_nameservers", {"domain": D, "nameservers": NS_NEW})
    s_ns2 = t.cseq(c_ns2)
    t.approval("apr-ns-2", "requested", s_ns2)
    t.asst("Ready to set the nameservers to dana.ns.cloudflare.com and walt.ns.cloudflare.com. Approve?")
    t.user("Approved.")
    t.approval("apr-ns-2", "granted", s_ns2)
    t.timeout(c_ns2, "Hostwell API: 504 Gateway Timeout after 45 s")
    t.asst("The Hostwell API timed out on the nameserver update. I'll check whether it was applied before "
           "trying again.")
    t.status_query(c_ns2, "succeeded", request_id="hw-6a0e93d7", nameservers=NS_NEW,
                   updated_at="2025-02-26T17:09:55Z", registry_status="ok")
    c = t.call("registrar_get_domain", {"domain": D})
    s_reg_ns = t.result(c, result={
        "domain": D, "registrar": "Hostwell Inc.", "expires": "2025-08-19", "auto_renew": True,
        "status": ["clientTransferProhibited"], "nameservers": NS_NEW, "privacy": "enabled",
        "dns_service": {"plan": "Premium DNS", "serving_zone": "premium (no longer delegated)"},
        "last_updated": "2025-02-26T17:09:55Z"})
    c = t.call("dns_lookup", {"domain": D, "type": "NS", "resolver": "8.8.8.8"})
    s_g_ns = t.result(c, result={"question": f"{D}. IN NS", "status": "NOERROR", "resolver": "8.8.8.8#53",
                                 "answer": [f"{D}.\t79113\tIN\tNS\tns1.hostwell-dns.net.",
                                            f"{D}.\t79113\tIN\tNS\tns2.hostwell-dns.net."]})
    c = t.call("cf_zone_details", {"zone_id": ZONE})
    t.result(c, result={"success": True, "errors": [], "messages": [], "result": {
        "id": ZONE, "name": D, "status": "pending", "name_servers": NS_NEW,
        "original_name_servers": NS_OLD, "activated_on": None,
        "verification_key": None, "meta": {"step": 3, "next_activation_check": "2025-02-26T20:10:00Z"},
        "modified_on": "2025-02-26T17:10:31.002514Z"}})
    c = t.call("dns_lookup", {"domain": D, "type": "NS", "trace": True})
    roots = "abcdefghijklm"
    trace = [f"; <<>> DiG 9.18.28 <<>> +trace {D} NS", ";; global options: +cmd"]
    trace += [f".\t{t.rng.randint(300000, 518400)}\tIN\tNS\t{r}.root-servers.net." for r in roots]
    trace.append(f";; Received 525 bytes from 127.0.0.53#53(127.0.0.53) in {t.rng.randint(1, 9)} ms")
    trace += [f"com.\t172800\tIN\tNS\t{g}.gtld-servers.net." for g in roots]
    trace.append("com.\t86400\tIN\tDS\t19718 13 2 8ACBB0CD28F41250A80A491389424D341522D946B0DA0C0291F2D3D7 71D7805A")
    trace.append(f";; Received 1174 bytes from 198.41.0.4#53(a.root-servers.net) in {t.rng.randint(10, 30)} ms")
    trace += [f"{D}.\t172800\tIN\tNS\t{ns}." for ns in NS_NEW]
    trace.append(f"CK0POJMG874LJREF7EFN8430QVIT8BSM.com. 900 IN NSEC3 1 1 0 - CK0Q3UDG8CEKKAE7RUKPGCT1DVSSH8LL NS SOA RRSIG DNSKEY NSEC3PARAM")
    trace.append(f";; Received 312 bytes from 192.12.94.30#53(e.gtld-servers.net) in {t.rng.randint(20, 40)} ms")
    trace += [f"{D}.\t86400\tIN\tNS\t{ns}." for ns in NS_NEW]
    trace.append(f";; Received 95 bytes from 108.162.192.97#53(dana.ns.cloudflare.com) in {t.rng.randint(8, 20)} ms")
    t.result(c, result={"mode": "trace", "output": "\n".join(trace) + "\n"})
    t.asst("The update did go through (confirmed on Hostwell's side at 17:09:55 UTC). The registrar now lists "
           "dana/walt, and a trace from the root shows the .com servers already delegating to them, with no DS. "
           "But Google's resolver (8.8.8.8) still answers with the Hostwell nameservers, cached for "
           "another ~22 hours, and Cloudflare still shows the zone as pending; its next activation check is at "
           "20:10 UTC.")
    t.user("So which is it? Is the switch done or not? I'm about to announce the new shop launch.")
    t.decision("d6-which-is-it", [
        P_evidence([s_reg_ns, s_g_ns], "the registrar and the public resolver disagree: both readings must be "
                                       "in front of the agent to explain the caching"),
        P_state("succeeded", "the timed-out nameserver update was confirmed by the status query", call_id=c_ns2,
                request_id="hw-6a0e93d7"),
        P_fact("status", "pending", "the new provider has not activated the zone yet", subject=f"zone_id={ZONE}"),
    ])
    t.asst("Both are true at once. The delegation change is done at the registry: the .com servers hand out "
           "dana/walt now, and the registrar shows it. Resolvers that cached the old NS set before the change (Google "
           "has ~22h left on its copy) keep asking Hostwell until that expires. Since Hostwell still serves the same "
           "records (except the blog fix), visitors see the same shop either way. So the launch is fine to announce. "
           "Only the blog fix waits for the caches, and Cloudflare will mark the zone active on its next check.")
    t.user("OK. While we wait, start the registrar transfer to Cloudflare. Hostwell e-mailed me the auth code "
           f"yesterday: {AUTH}")
    c = t.call("cf_registrar_check", {"domain": D, "account_id": ACCT})
    t.result(c, result={"success": True, "result": {"name": D, "transferable": False, "price": "10.44",
                                                     "currency": "USD", "adds_years": 1,
                                                     "blockers": ["zone_not_active",
                                                                  "clientTransferProhibited set at current registrar"]}})
    c_unl = t.call("registrar_unlock", {"domain": D})
    t.result(c_unl, request_id="hw-7c2d11e8", result={"domain": D, "status": [], "transfer_lock": False,
                                                 "auth_code_emailed_to": "o****@larkspur-ceramics.com"})
    t.asst("Two things block the transfer. The domain was still transfer-locked at Hostwell: I've unlocked it "
           "now. And Cloudflare only accepts transfers for zones that are active there, so it has to wait until "
           "the zone activates. The price will be $10.44 and it adds one year to the registration.")
    t.user("Fine. I'll check back after dinner.")
    t.asst("OK. Cloudflare re-checks the nameservers on its own; I'll look at the zone status when you're back.")
    t.system("Session resumed 2025-02-26 21:40 UTC.")
    t.user("Back. Is the zone active yet?")
    c = t.call("cf_zone_details", {"zone_id": ZONE})
    t.result(c, result={"success": True, "errors": [], "messages": [], "result": {
        "id": ZONE, "name": D, "status": "active", "name_servers": NS_NEW, "original_name_servers": NS_OLD,
        "activated_on": "2025-02-26T20:10:44.512003Z", "paused": False, "type": "full", "development_mode": 0,
        "meta": {"step": 4, "custom_certificate_quota": 0, "page_rule_quota": 3, "phishing_detected": False},
        "account": {"id": ACCT, "name": "Larkspur Ceramics"},
        "plan": {"id": "0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee", "name": "Free Website", "price": 0, "currency": "USD",
                 "legacy_id": "free", "is_subscribed": False, "can_subscribe": False},
        "modified_on": "2025-02-26T20:10:44.512003Z"}})
    c = t.call("dns_lookup", {"domain": f"blog.{D}", "type": "CNAME", "resolver": "1.1.1.1"})
    t.result(c, result={"question": f"blog.{D}. IN CNAME", "status": "NOERROR", "resolver": "1.1.1.1#53",
                        "answer": [f"blog.{D}.\t300\tIN\tCNAME\tlarkspur-ceramics.ghost.io."]})
    t.asst("Yes: the zone went active at 20:10 UTC, and 1.1.1.1 already returns the new blog target "
           "(larkspur-ceramics.ghost.io, TTL 300).")
    t.user("Before the transfer, check mail please. Last time someone touched DNS our DKIM broke and invoices "
           "went to spam for a week.")
    c = t.call("dns_lookup", {"domain": f"google._domainkey.{D}", "type": "TXT", "resolver": "8.8.8.8"})
    half = len(dkim_g) // 2
    t.result(c, result={"question": f"google._domainkey.{D}. IN TXT", "status": "NOERROR", "resolver": "8.8.8.8#53",
                        "query_time_ms": 41, "answer": [
                            f"google._domainkey.{D}.\t300\tIN\tTXT\t\"v=DKIM1; k=rsa; p={dkim_g[:half]}\" "
                            f"\"{dkim_g[half:]}\""]})
    c = t.call("dns_lookup", {"domain": D, "type": "TXT", "resolver": "1.1.1.1"})
    t.result(c, result={"question": f"{D}. IN TXT", "status": "NOERROR", "resolver": "1.1.1.1#53",
                        "query_time_ms": 12, "answer": [
                            f"{D}.\t300\tIN\tTXT\t\"v=spf1 include:_spf.google.com include:shops.shopify.com "
                            "include:mailgun.org ~all\"",
                            f"{D}.\t300\tIN\tTXT\t\"google-site-verification=...\"",
                            f"{D}.\t300\tIN\tTXT\t\"shopify-verification-code={dkim_fm}\""]})
    c = t.call("dns_lookup", {"domain": D, "type": "MX", "resolver": "9.9.9.9"})
    t.result(c, result={"question": f"{D}. IN MX", "status": "NOERROR", "resolver": "9.9.9.9#53",
                        "query_time_ms": 27, "answer": [
                            f"{D}.\t300\tIN\tMX\t1 aspmx.l.google.com.",
                            f"{D}.\t300\tIN\tMX\t5 alt1.aspmx.l.google.com.",
                            f"{D}.\t300\tIN\tMX\t5 alt2.aspmx.l.google.com.",
                            f"{D}.\t300\tIN\tMX\t10 alt3.aspmx.l.google.com.",
                            f"{D}.\t300\tIN\tMX\t10 alt4.aspmx.l.google.com."]})
    c = t.call("dns_lookup", {"domain": f"_dmarc.{D}", "type": "TXT", "resolver": "8.8.8.8"})
    t.result(c, result={"question": f"_dmarc.{D}. IN TXT", "status": "NOERROR", "resolver": "8.8.8.8#53",
                        "answer": [f"_dmarc.{D}.\t300\tIN\tTXT\t\"v=DMARC1; p=quarantine; pct=100; "
                                   "rua=mailto:dmarc@larkspur-ceramics.com\""]})
    t.asst("Mail looks right from three different resolvers, all now served by Cloudflare (TTL 300): the Google "
           "DKIM key at google._domainkey is the full 2048-bit key, byte-for-byte the one in the premium export; "
           "SPF still includes Google, Shopify and Mailgun; MX is the five Google hosts; DMARC is p=quarantine. "
           "Nothing from the old Fastmail setup came across.")
    t.user("Great. Then start the transfer now, with the auth code I gave you earlier.")
    t.decision("d7-transfer", [
        P_next("cf_registrar_transfer", {"domain": D, "auth_code": AUTH, "account_id": ACCT},
               "the auth code was typed once, hours and many turns earlier; the account id at the very start"),
        P_fact("price", "10.44", "the transfer price the user will be asked to approve (the zone's plan also has "
               "a price field, hence the subject)", subject=f"domain={D}"),
        P_fact("status", "active", "the zone is active now, so the transfer can start", superseded=["pending"],
               subject=f"zone_id={ZONE}"),
        P_state("succeeded", "the unlock must be known to have succeeded before a transfer", call_id=c_unl,
                request_id="hw-7c2d11e8"),
    ])
    c = t.call("cf_registrar_check", {"domain": D, "account_id": ACCT})
    t.result(c, result={"success": True, "result": {"name": D, "transferable": True, "price": "10.44",
                                                     "currency": "USD", "adds_years": 1, "blockers": [],
                                                     "new_expiry_estimate": "2026-08-19"}})
    c_x = t.call("cf_registrar_transfer", {"domain": D, "auth_code": AUTH, "account_id": ACCT, "years": 1,
                                           "price": "10.44", "currency": "USD"})
    s_x = t.cseq(c_x)
    t.approval("apr-xfer", "requested", s_x)
    t.asst("The transfer is now possible: $10.44, adds a year (new expiry about 2026-08-19). It can't be undone "
           "once the registry processes it (Hostwell may auto-approve after 5 days). Approve the charge and "
           "the transfer?")
    t.user("Does the WHOIS privacy carry over? I don't want my home address public.")
    t.asst("Yes, the new registrar redacts registrant data by default for free; nothing becomes public.")
    t.user("Then approved.")
    t.approval("apr-xfer", "granted", s_x)
    s_xto = t.timeout(c_x, "POST /accounts/{account_id}/registrar/domains/transfer: timeout after 60 s")
    t.status_query(c_x, "unknown", detail="no transfer order found yet for this domain; the registry request "
                                          "may still be in flight")
    t.asst("The transfer call timed out, and the status check can't find an order yet. It may still be in "
           "flight. I won't resubmit tonight: a second request could charge twice.")
    s_keep = t.user("OK. Can I delete the zone at Hostwell now to stop paying for Premium DNS? Actually no, don't. "
                    "Keep the old zone until the transfer has definitely completed.")
    t.asst("Understood: the Hostwell zone stays until the transfer is confirmed.")
    t.user("Give me the list of what's still open and what I should check tomorrow.")
    t.decision("d8-wrapup", [
        P_state("unknown", "the transfer's outcome is still not known", call_id=c_x),
        P_pending("the transfer call has no definitive answer", call_id=c_x),
        P_evidence([s_x, s_xto], "the irreversible call and its timeout must be visible to decide on a retry"),
        P_constraint(s_keep, "Keep the old zone", "deleting the Hostwell zone is forbidden until the transfer "
                                                  "completes"),
        P_constraint(s_rules, "raise them afterwards", "the TTLs are still at 300 and were meant to go up after "
                                                       "the migration"),
        P_fact("ttl", 300, "every record is still at the migration TTL"),
        P_fact("dnssec", "disabled", "DNSSEC is off since the DS removal and must be re-enabled after the transfer",
               superseded=["enabled"]),
    ])
    t.asst("Still open: (1) the registrar transfer, status unknown after a timeout. Check tomorrow whether an "
           "order exists before any retry. (2) The Hostwell zone stays until the transfer completes. (3) TTLs are "
           "all 300; raise them once the migration is done. (4) Turn DNSSEC on at Cloudflare and add the new DS "
           "once the transfer finishes.")
    t.user("Thanks. What TTLs would you pick once it's all done? Don't change anything yet.")
    t.asst("When the transfer is done I'd suggest: apex A, www and shop at 3600 (Shopify rarely changes its IPs, "
           "and an hour is a quick enough rollback); blog, calendar, files and booking at 3600; MX, SPF, DKIM and "
           "DMARC at 3600 too, since mail providers cache aggressively anyway; the mg.* Mailgun records at 3600; CAA "
           "at 86400. Keep anything you expect to change in the next few weeks at 300 until it has settled. I "
           "haven't changed anything: all records stay at 300 as you asked.")
    return t


# --- t08 start ---
def _ins_worksheet(t: T, qid: str, roof: int, ded: str, water: str, total: str) -> str:
    """A rating worksheet as the rating engine prints it."""
    roof_age = 2025 - roof
    rows = [f"RATING WORKSHEET {qid}  HO-3  ID territory 041 (Ada County)  rate version ID-HO-2025.02",
            "STEP  FACTOR                                   VALUE        RUNNING",
            "01    base premium (territory 041, AOI 431,000)               1,604.00",
            "02    amount of insurance relativity             1.072        1,719.49",
            "03    construction (frame) / protection class 3  1.000        1,719.49",
            f"04    roof age {roof_age} yrs asphalt                    {1.00 + 0.01 * roof_age:.3f}",
            "05    year built 1961 (updated systems credit)   0.985",
            f"06    AOP deductible {ded}                        {'0.881' if ded == '2500' else '0.913'}",
            "07    protective devices central B+F             0.930",
            "08    claims surcharge (1 chargeable, 36 mo)     1.120",
            "09    insurance score tier C2                    0.962",
            "10    state base rate change 2025                1.035",
            "11    policy fee                                             25.00",
            f"12    HO 04 95 water back-up limit {water}                {'118.00' if water == '10000' else '177.00'}",
            "13    HO 04 61 scheduled jewelry 6,800                        61.00",
            "14    HO 04 77 ordinance or law 10%                            0.00",
            "15    minimum premium check (ID HO-3: 450.00)                 pass",
            f"TOTAL ANNUAL PREMIUM                                            {total}"]
    return "\n".join(rows)


@trajectory
def t08_home_insurance() -> T:
    t = T(8, "home-insurance", "h3-home-insurance",
          "Home-insurance renewal: re-rating with a corrected roof year, a new lender, bind and pay",
          ["a policy number, a lender's loan number and e-mail addresses typed once are needed late",
           "quote ids returned by re-rating are used by the bind call many turns later",
           "the roof year is corrected twice; the newest value must win",
           "the policy record and the billing account disagree about the premium after the bind",
           "an add-interest call times out and the status query says it was not performed; it is retried",
           "a payment times out and is confirmed by status_query",
           "constraints typed once: keep the water-backup endorsement, pay only from checking",
           "a side topic (an old claim) and the return to the renewal"],
          "A homeowner works through a renewal whose premium jumped; the agent re-rates, binds, pays and "
          "updates the mortgagee.")
    POL = "HO3-8841-20577"
    t.system("You are a service assistant for Cobalt Mutual policyholders. Binding coverage and taking payments "
             "require the customer's explicit approval.")
    t.user(f"My homeowners renewal came in and the premium went from $1,842 to $2,610. That's insane. Policy "
           f"number {POL}. Can you tell me why and what I can do about it?")
    c = t.call("ins_get_policy", {"policy_number": POL, "include": ["renewal_offer", "rating_factors"]})
    t.result(c, result={
        "policy_number": POL, "form": "HO-3", "named_insured": "Marisol Vega", "second_insured": "Daniel Vega",
        "property": {"address": "418 Alder Creek Rd, Boise, ID 83706", "year_built": 1961, "sq_ft": 2140,
                     "construction": "frame", "stories": 2, "roof": {"material": "asphalt shingle",
                                                                     "year_on_file": 2004}},
        "current_term": {"effective": "2024-04-01", "expiration": "2025-04-01", "annual_premium": "1842.00"},
        "renewal_offer": {
            "term": {"effective": "2025-04-01", "expiration": "2026-04-01"}, "renewal_premium": "2610.00",
            "coverages": {"A_dwelling": "431000", "B_other_structures": "43100", "C_personal_property": "215500",
                          "D_loss_of_use": "86200", "E_liability": "300000", "F_medical": "5000"},
            "deductibles": {"all_other_perils": "1000", "wind_hail": "2% of A"},
            "endorsements": [{"form": "HO 04 95", "name": "Water back-up and sump discharge", "limit": "10000",
                              "premium": "118.00"},
                             {"form": "HO 04 61", "name": "Scheduled personal property (ring)", "limit": "6800",
                              "premium": "61.00"},
                             {"form": "HO 04 77", "name": "Ordinance or law 10%", "premium": "0.00"}]},
        "rating_factors": [
            {"factor": "inflation guard (A +4.6%)", "effect": "+72.00"},
            {"factor": "roof age 21 yrs (asphalt)", "effect": "+431.00"},
            {"factor": "claims surcharge (1 paid claim in 36 mo)", "effect": "+204.00"},
            {"factor": "state base rate change ID 2025", "effect": "+61.00"},
            {"factor": "protective devices: none on file", "effect": "0.00"}],
        "mortgagee": {"name": "Westline Home Loans ISAOA/ATIMA", "loan_number": "3310098455", "rank": 1},
        "premium_history": [{"term": "2020-21", "annual": "1212.00"}, {"term": "2021-22", "annual": "1288.00"},
                            {"term": "2022-23", "annual": "1401.00"}, {"term": "2023-24", "annual": "1537.00"},
                            {"term": "2024-25", "annual": "1842.00"}],
        "forms_schedule": ["HO 00 03 05 11", "HO 01 11 (Idaho special provisions)", "HO 04 95 10 00",
                           "HO 04 61 05 11", "HO 04 77 10 00", "HO 04 96 04 91", "CM-HO 210 (roof surfacing "
                           "payment schedule: not applicable)", "CM-IL 017 (privacy notice)"],
        "agent_of_record": "direct"})
    t.asst("Here's what drives the jump to $2,610: the biggest piece is a roof-age surcharge (+$431), because "
           "our file says your asphalt roof is from 2004 (21 years old). Then a claims surcharge (+$204) for one "
           "paid claim in the last 3 years, the inflation guard raising dwelling coverage to $431,000 (+$72), and "
           "a state rate change (+$61). Things that could bring it down: if the roof is newer than 2004, a "
           "higher all-perils deductible (now $1,000), and a monitored alarm discount (none on file).")
    t.user("The letter also said something about an inspection. Can you pull up the renewal notice? I threw it out.")
    c = t.call("ins_get_policy", {"policy_number": POL, "include": ["renewal_notice", "underwriting_inspection"]})
    notice = "\n".join([
        "COBALT MUTUAL INSURANCE COMPANY   P.O. Box 7700, Boise, ID 83707   1-800-555-0134",
        "NOTICE OF RENEWAL AND PREMIUM CHANGE                                  Mailed: 01/30/2025",
        f"Marisol Vega, Daniel Vega - 418 Alder Creek Rd, Boise, ID 83706 - Policy {POL}",
        "",
        "Your homeowners policy will renew on 04/01/2025 for a 12-month term. Your renewal premium is $2,610.00,",
        "an increase of $768.00 (41.7%) over your current premium of $1,842.00. Idaho law requires us to tell you",
        "the principal reasons for an increase of more than 10%:",
        "  1. The age of your roof, as shown in our records (installed 2004), increased your premium.",
        "  2. A chargeable claim in the past 36 months (date of loss 07/14/2023) increased your premium.",
        "  3. Your dwelling limit was adjusted for increased construction costs (inflation guard, +4.6%).",
        "  4. A statewide rate revision approved by the Idaho Department of Insurance (filing COBM-HO-24-117).",
        "If any information we used is incorrect, contact us before your renewal date so we can re-rate your",
        "policy. You may ask us for the specific rating factors used.",
        "",
        "INSPECTION: A routine exterior inspection of the property was completed on 01/17/2025. One item",
        "requires action (see the attached findings). Please complete it by 05/15/2025 and send us a photo.",
        "If the condition is not corrected, we may not be able to continue your coverage at the next renewal.",
        "",
        "Your renewal bill will be sent separately. If you pay by EFT, the first draft will occur on 04/01/2025.",
        "Questions about your coverage? Call us or visit cobaltmutual.com/policy. Idaho Department of",
        "Insurance consumer line: 1-800-721-3272."])
    insp = "\n".join([
        "EXTERIOR INSPECTION FINDINGS - order INS-2025-011742 - inspector: Treasure Valley Risk Services",
        "Date: 01/17/2025   Weather: clear, 28F   Access: exterior only, occupant not home",
        "Dwelling: 2-story frame, fiber-cement lap siding, good condition; no visible rot or damage",
        "Roof: architectural asphalt shingle, appears 3-5 years old; no missing/curled shingles; flashing OK",
        "  (inspector note: conflicts with carrier record 2004 - recommend verifying roof year with insured)",
        "Gutters/downspouts: clean, extensions present; sump discharge line visible at rear, OK",
        "Trees/vegetation: HAZARD - silver maple at NE corner, limbs overhanging roof by ~8 ft, one dead limb",
        "  approx. 6 in. diameter above the garage. REQUIRED: trim overhanging limbs and remove dead limb.",
        "Steps/walkways: front steps with handrail; no trip hazards noted",
        "Decks: composite, railings secure",
        "Pool/trampoline/dog: none observed",
        "Wood stove / outbuildings: none",
        "Photos: 14 on file (IMG 001-014)",
        "Required action due: 05/15/2025 - provide photo evidence of tree trimming"])
    t.result(c, result={"policy_number": POL, "renewal_notice": {"mailed": "2025-01-30", "text": notice},
                        "underwriting_inspection": {"order": "INS-2025-011742", "completed": "2025-01-17",
                                                    "required_actions": 1, "action_due": "2025-05-15",
                                                    "findings_text": insp}})
    t.asst("The notice (mailed Jan 30) lists the same four reasons for the increase. The inspection on Jan 17 "
           "found one required item: a silver maple at the northeast corner overhangs the roof by about 8 feet, "
           "with a dead limb above the garage. They want the overhanging limbs trimmed and the dead limb removed "
           "by May 15, 2025, with a photo as proof, or they may not renew next year. Interesting detail: the "
           "inspector also noted the roof looks 3-5 years old, which contradicts the 2004 on file.")
    t.user("We'll get the tree guy out in April. Why did the dwelling coverage go up to $431,000? Can I just lower it back to $412,000 to save money?")
    c = t.call("ins_get_policy", {"policy_number": POL, "include": ["replacement_cost_estimate"]})
    rce = "\n".join([
        "RECONSTRUCTION COST ESTIMATE - valuation date 2025-01-06 - estimator: Verisk 360Value (v25.1)",
        "Property: 418 Alder Creek Rd, Boise ID 83706   Occupancy: owner, single family   Year built: 1961",
        "Living area: 2,140 sq ft (1st floor 1,180 / 2nd floor 960)   Basement: 1,180 sq ft, 60% finished",
        "Quality grade: standard+ (2.5)   Construction: wood frame, lap siding (fiber cement, 2016)",
        "Foundation: poured concrete   Roof: gable, asphalt architectural shingle, 26 squares",
        "Garage: attached, 2 car (480 sq ft)   Heating: forced air gas; central A/C   Fireplace: 1 masonry",
        "Kitchen: 1 (custom-semi, remodeled 2019)   Baths: 2 full, 1 half   Deck: composite 320 sq ft",
        "",
        "COMPONENT                                          ESTIMATE",
        "Site preparation / debris removal                    $14,820",
        "Foundation and basement (incl. finish)               $52,310",
        "Framing, exterior walls, siding                      $71,980",
        "Roofing (tear-off not included)                      $19,640",
        "Windows and exterior doors                           $24,115",
        "Interior finishes, drywall, trim, paint              $63,270",
        "Flooring                                             $21,905",
        "Kitchen (cabinets, counters, appliances built-in)    $38,450",
        "Bathrooms (2.5)                                      $29,880",
        "Plumbing                                             $17,240",
        "Electrical                                           $19,935",
        "HVAC                                                 $16,780",
        "Garage                                               $18,210",
        "Deck, porch                                          $10,165",
        "Architect, permits, overhead and profit              $ incl. above",
        "-----------------------------------------------------------",
        "TOTAL ESTIMATED RECONSTRUCTION COST                 $418,700",
        "Regional labor/material index change (Boise MSA, 12 mo): +4.6%",
        "Carrier minimum Coverage A: 100% of estimate ($418,700). Current renewal Coverage A: $431,000 (103%).",
        "Note: estimate excludes land value, landscaping and code upgrades (see Ordinance or Law endorsement)."])
    t.result(c, result={"policy_number": POL, "estimate_id": "RCE-360V-8842017", "estimated_cost": "418700",
                        "minimum_coverage_a": "418700", "report_text": rce})
    t.asst("The renewal raised Coverage A by the inflation guard: building costs in the Boise area went up 4.6%. "
           "The latest reconstruction estimate for your house is $418,700, and that's the minimum Cobalt "
           "allows for Coverage A. So $412,000 isn't possible. You could go down to $418,700, but that saves only "
           "about $20 a year, and then you'd be insured at exactly the estimate with no margin if rebuilding costs "
           "more. I'd leave it, but it's your call.")
    t.user("Leave it then. The bigger thing: the roof is NOT from 2004, we replaced it in 2022 after the hail. And "
           "we've had an ADT monitored alarm since last summer.")
    s_roof1 = t.fact("roof_year", 2022, subject={"policy_number": POL})
    t.fact("monitored_alarm", True, subject={"policy_number": POL})
    t.decision("d1-update-roof", [
        P_next("ins_update_property", {"policy_number": POL},
               "the policy number was typed only in the first message"),
        P_fact("roof_year", 2022, "the user's statement replaces the year on file"),
    ], note="early: everything still fits")
    c = t.call("ins_update_property", {"policy_number": POL, "roof_year": 2022, "roof_material": "asphalt shingle",
                                       "protective_devices": ["central_station_burglar", "central_station_fire"]})
    t.result(c, request_id="cm-upd-551f20", result={
        "policy_number": POL, "pending_verification": ["roof_year", "protective_devices"],
        "verification_docs": {"roof_year": "contractor invoice or permit", "protective_devices":
                              "alarm certificate from the monitoring company"},
        "message": "Changes apply to the renewal rating; discounts are removed at audit if documents are not "
                   "received within 30 days."})
    t.asst("Updated the roof year to 2022 and added central-station burglar/fire monitoring to the property "
           "record. Both changes apply to the renewal rating right away, but both need proof within 30 days, or "
           "the discounts are taken back at audit: a roofing invoice or building permit for the roof, and an "
           "alarm certificate from ADT showing central-station monitoring for burglary and fire. Want me to "
           "re-quote the renewal with these changes now?")
    s_water = t.user("I'll send those. Also quote me a $2,500 deductible. But do NOT drop the water backup "
                     "endorsement, our basement flooded in 2023 and I'm not going through that uninsured.")
    c = t.call("ins_quote_renewal", {"policy_number": POL, "deductible_aop": "2500", "keep_endorsements":
                                     ["HO 04 95", "HO 04 61", "HO 04 77"]})
    t.result(c, result={"quote_id": "RQ-20577-01", "valid_until": "2025-03-25", "premium": "2104.00",
                        "deductible_aop": "2500", "roof_year_used": 2022, "changes": [
                            {"factor": "roof age 3 yrs", "effect": "-398.00"},
                            {"factor": "deductible 2500 credit", "effect": "-182.00"},
                            {"factor": "protective devices (central station B+F)", "effect": "-126.00"},
                            {"factor": "discount interaction adj", "effect": "+200.00"}],
                        "endorsements_included": ["HO 04 95", "HO 04 61", "HO 04 77"],
                        "worksheet": _ins_worksheet(t, "RQ-20577-01", 2022, "2500", "10000", "2104.00")})
    t.asst("Quote RQ-20577-01: $2,104.00 a year with a $2,500 all-perils deductible, the roof rated as 2022 and "
           "the central-station alarm discount, and the water backup endorsement kept as you asked. That's $506 "
           "less than the $2,610 renewal offer. The roof is the biggest piece (-$398), then the deductible "
           "(-$182) and the alarm (-$126); the rating engine adds back $200 because discounts can't stack past "
           "a cap. The quote is valid until March 25.")
    t.user("Better. While we're here: we refinanced in January. The new lender is Beacon Federal Credit Union, "
           "ISAOA/ATIMA, PO Box 9118, Syracuse NY 13220, loan number 7700418823. Westline is paid off.")
    t.fact("mortgagee_loan_number", "7700418823", subject={"policy_number": POL})
    t.asst("Got it: I'll replace Westline Home Loans with Beacon Federal Credit Union ISAOA/ATIMA (PO Box 9118, "
           "Syracuse NY 13220, loan 7700418823) as the first mortgagee. That matters: if the house were damaged, "
           "the claim check would be made out to you and the listed lender, and Westline no longer has an "
           "interest. Do you want me to do that now or after we settle the renewal?")
    t.user("After. Wait, one thing: I just found the roofing invoice. It's dated October 2021, not 2022. Does "
           "that matter?")
    s_roof2 = t.correction("roof_year", 2021, supersedes=s_roof1, subject={"policy_number": POL})
    t.decision("d2-roof-correction", [
        P_fact("roof_year", 2021, "the invoice corrects the year the user first gave", superseded=[2022]),
        P_next("ins_update_property", {"policy_number": POL, "roof_material": "asphalt shingle"},
               "the property record must be corrected before any re-quote"),
        P_constraint(s_water, "do NOT drop the water backup", "any new quote must keep HO 04 95"),
    ])
    c = t.call("ins_update_property", {"policy_number": POL, "roof_year": 2021, "roof_material": "asphalt shingle"})
    t.result(c, request_id="cm-upd-5520a7", result={"policy_number": POL, "pending_verification": ["roof_year",
                                                                                                  "protective_devices"]})
    c = t.call("ins_quote_renewal", {"policy_number": POL, "deductible_aop": "2500", "keep_endorsements":
                                     ["HO 04 95", "HO 04 61", "HO 04 77"]})
    t.result(c, result={"quote_id": "RQ-20577-02", "valid_until": "2025-03-25", "premium": "2131.00",
                        "deductible_aop": "2500", "roof_year_used": 2021,
                        "endorsements_included": ["HO 04 95", "HO 04 61", "HO 04 77"],
                        "supersedes_quote": "RQ-20577-01",
                        "worksheet": _ins_worksheet(t, "RQ-20577-02", 2021, "2500", "10000", "2131.00")})
    t.asst("It matters a little. I corrected the roof year to 2021 on the property record and re-quoted: a roof "
           "from 2021 is 4 years old at renewal instead of 3, so the new quote RQ-20577-02 is $2,131.00 (vs "
           "$2,104 with 2022), same $2,500 deductible, water backup kept. The old quote RQ-20577-01 is void now "
           "since it used the wrong year, and binding it would have been a misrepresentation on the application.")
    t.user("Fine. What would a $2,000 deductible be instead? $2,500 feels like a lot if something happens.")
    c = t.call("ins_quote_renewal", {"policy_number": POL, "deductible_aop": "2000", "keep_endorsements":
                                     ["HO 04 95", "HO 04 61", "HO 04 77"]})
    t.result(c, result={"quote_id": "RQ-20577-03", "valid_until": "2025-03-25", "premium": "2188.00",
                        "deductible_aop": "2000", "roof_year_used": 2021,
                        "endorsements_included": ["HO 04 95", "HO 04 61", "HO 04 77"],
                        "worksheet": _ins_worksheet(t, "RQ-20577-03", 2021, "2000", "10000", "2188.00")})
    t.asst("With $2,000: RQ-20577-03 at $2,188.00, i.e. $57 a year more than the $2,500 deductible.")
    t.user("Are there any other discounts I'm missing?")
    c = t.call("ins_get_policy", {"policy_number": POL, "include": ["discount_eligibility"]})
    t.result(c, result={"policy_number": POL, "discounts": [
        {"code": "MPD", "name": "Multi-policy (auto with Cobalt)", "status": "not_applied",
         "note": "no Cobalt auto policy in household"},
        {"code": "PRT", "name": "Protective devices", "status": "applied_pending_docs"},
        {"code": "NRF", "name": "New/updated roof (<10 yrs)", "status": "applied_pending_docs"},
        {"code": "CLF", "name": "Claim-free (5 yrs)", "status": "ineligible", "note": "chargeable claim 2023"},
        {"code": "PPL", "name": "Paperless", "status": "applied", "amount": "-15.00"},
        {"code": "EFT", "name": "Automatic payments", "status": "applied", "amount": "-20.00"},
        {"code": "PIF", "name": "Paid in full", "status": "not_offered_in_state"},
        {"code": "SMH", "name": "Smart water shutoff valve", "status": "eligible_not_applied",
         "note": "Flo by Moen / Phyn / LeakBot installed and monitored; 6% of base"},
        {"code": "LOY", "name": "Loyalty (8+ yrs)", "status": "applied", "years": 9},
        {"code": "SEN", "name": "Mature homeowner (55+)", "status": "ineligible"},
        {"code": "HMB", "name": "Home buyer (purchased < 12 mo)", "status": "ineligible"},
        {"code": "FRT", "name": "Fortified roof (IBHS)", "status": "ineligible", "note": "no certificate"}]})
    t.asst("You already get paperless, automatic payments and loyalty (9 years), and the roof and alarm "
           "discounts are on, pending documents. Not available: multi-policy (no Cobalt auto), claim-free (the "
           "2023 claim), and paid-in-full isn't offered in Idaho. One you could add: a smart water shutoff valve "
           "(Flo, Phyn or LeakBot) takes 6% off the base premium, which given your basement history might be "
           "worth it anyway.")
    t.user("Good to know, maybe later. Before I pick: the claims surcharge. Is that the basement flood? I thought water backup claims "
           "didn't count against you.")
    t.topic_switch("renewal quotes", "claims history")
    c = t.call("ins_claims_history", {"policy_number": POL, "years": 7})
    claims_text = "\n".join([
        "CLAIMS HISTORY REPORT - Cobalt Mutual Insurance Co. - generated 2025-02-27 10:14 MST",
        f"Policy: {POL}   Insured: VEGA, MARISOL / VEGA, DANIEL   Risk: 418 ALDER CREEK RD BOISE ID 83706",
        "Sources: Cobalt claim system; industry loss exchange (property), lookback 7 years",
        "-" * 78,
        "DATE OF LOSS  CLAIM NO.         CAUSE OF LOSS                 STATUS        PAID        CHARGEABLE",
        "2023-07-14    CLM-23-0917741    Water back-up / sump          Closed-paid   $7,412.18   Yes (1)",
        "              Coverage: HO 04 95 ($5,000 sublimit then), A - Dwelling (tear-out)",
        "              Adjuster: R. Kimura  Notes: sump pump failure during storm; limit exhausted; excess",
        "              tear-out and drywall paid under Coverage A. Subrogation: none.",
        "2021-06-02    CLM-21-0388120    Hail - roof                   Closed-paid   $14,980.00  No (2)",
        "              Coverage: A - Dwelling  Notes: full roof replacement, contractor Summit Roofing,",
        "              final invoice 2021-10-19. Depreciation holdback released 2021-11-03.",
        "2019-03-28    CLM-19-0102277    Theft - bicycle (garage)      Closed-no pay $0.00       No",
        "              Notes: loss below deductible.",
        "-" * 78,
        "(1) Chargeable: paid non-weather claim within 36 months of the renewal effective date.",
        "(2) Weather/catastrophe claims are not chargeable in Idaho under the current rating plan.",
        "Industry loss exchange: no other losses reported for this risk or these insureds.",
        "Surcharge applied at renewal 2025-04-01: 12% of base (claim CLM-23-0917741), expires 2026-07-14."])
    t.result(c, result={"policy_number": POL, "report_id": "CH-77120-3342", "chargeable_claims": 1,
                        "surcharge_expires": "2026-07-14", "report_text": claims_text})
    t.asst("Yes, it's the July 2023 basement claim (CLM-23-0917741, $7,412.18 paid). Water backup counts as a "
           "non-weather claim, so it's chargeable for 36 months: a 12% surcharge that drops off after July 14, "
           "2026. The 2021 hail claim (the roof) doesn't count, weather claims aren't chargeable in Idaho. And the "
           "report confirms the roof: Summit Roofing's final invoice is dated 2021-10-19, which matches your "
           "correction.")
    t.user("Why was part of the basement claim paid under the dwelling coverage and not the water endorsement?")
    c = t.call("ins_claims_history", {"policy_number": POL, "claim_number": "CLM-23-0917741", "detail": "payments"})
    ledger = "\n".join([
        "CLAIM CLM-23-0917741 - PAYMENT LEDGER - date of loss 07/14/2023 - reported 07/15/2023 08:12",
        "Loss description: sump pump failed during storm (power on); ~4 in. water in finished basement",
        "Adjuster: Ryo Kimura (desk + field 07/18/2023)   Mitigation vendor: ServPro of SE Boise",
        "DATE        PAYEE                          COVERAGE            AMOUNT     NOTE",
        "07/21/2023  ServPro of SE Boise            HO 04 95            $3,118.40  water extraction, drying",
        "08/09/2023  Vega, Marisol & Daniel         HO 04 95            $1,881.60  contents (limit reached)",
        "08/09/2023  -                              HO 04 95            $0.00      limit $5,000 exhausted",
        "08/30/2023  Vega, Marisol & Daniel         A - Dwelling        $2,412.18  drywall, baseboard, paint:",
        "                                                                          ensuing damage from hidden",
        "                                                                          wall leak found during tear-out",
        "                                                                          (separate cause, covered)",
        "            less deductible applied (1)                       ($1,000.00) applied to HO 04 95 payment",
        "TOTAL PAID                                                    $7,412.18",
        "(1) One deductible applied per occurrence.",
        "Subrogation review: sump pump manufacturer - closed, no defect found (09/2023)",
        "Claim closed 09/12/2023. Chargeable: yes (non-weather water)."])
    t.result(c, result={"claim_number": "CLM-23-0917741", "total_paid": "7412.18", "ledger_text": ledger})
    t.asst("The ledger explains it: the water endorsement paid $5,000 (ServPro's extraction and drying, then "
           "contents) and ran out. The $2,412.18 under Coverage A was for a different cause the adjuster found "
           "during tear-out, a hidden leak inside a wall, which the base policy covers. So the endorsement "
           "really was exhausted.")
    t.user("Wait, so the water backup limit ran out last time? What's the limit now and what exactly does it "
           "cover?")
    c = t.call("ins_get_policy", {"policy_number": POL, "include": ["form:HO 04 95"]})
    form = "\n".join([
        "HO 04 95 10 00  WATER BACK-UP AND SUMP DISCHARGE OR OVERFLOW (as amended for Idaho)",
        "THIS ENDORSEMENT CHANGES THE POLICY. PLEASE READ IT CAREFULLY.",
        "SCHEDULE*  Limit of insurance: $10,000  (* entries may be shown in the Declarations)",
        "A. Coverage. We will pay up to the limit shown in the Schedule for direct physical loss, not caused by",
        "   the negligence of an insured, to property covered under Section I caused by water, or waterborne",
        "   material, which: 1. Originates from within the dwelling where you reside and backs up through sewers",
        "   or drains; or 2. Overflows or is discharged from a: a. Sump, sump pump; or b. Related equipment;",
        "   even if such overflow or discharge results from mechanical breakdown of the sump pump or its",
        "   related equipment. This coverage does not apply to direct physical loss of the sump pump, or",
        "   related equipment, which is caused by mechanical breakdown.",
        "B. Section I - Property Coverages, Additional Coverages: the Limit of Liability shown in the Schedule",
        "   is the most we will pay in any one loss for all property covered, including debris removal and",
        "   tear-out necessary to repair the system; it does not increase the Coverage A, B, C or D limits.",
        "C. Section I - Perils Insured Against, the Water exclusion does not apply to this coverage except as",
        "   to water which backs up through sewers or drains or overflows from a sump as a result of flood,",
        "   surface water, waves or overflow of a body of water, from any source.",
        "D. Special deductible: a deductible of $1,000 or the policy's all other perils deductible, whichever",
        "   is greater, applies to each loss under this endorsement.",
        "E. All other provisions of this policy apply.",
        "Available limits (Idaho, HO-3): $5,000 / $10,000 / $15,000 / $25,000 / $50,000.",
        "Copyright, Insurance Services Office, Inc., 1999 (with Cobalt Mutual Idaho amendments 2023)"])
    t.result(c, result={"policy_number": POL, "form": "HO 04 95", "current_limit": "10000",
                        "limits_available": ["5000", "10000", "15000", "25000", "50000"], "form_text": form})
    t.asst("It was $5,000 at the time of the 2023 claim; after that it was raised to $10,000, which is what the "
           "renewal carries. It covers water backing up through sewers or drains and sump overflow or discharge, "
           "including a failed sump pump (but not the pump itself), up to the limit per loss, tear-out included. "
           "Flood and surface water are never covered by it. Note the deductible for these claims is your "
           "all-perils deductible, so $2,000 or $2,500 depending on your choice. Limits go up to $25,000 or $50,000.")
    t.user("Quote the $2,000 deductible with water backup at $25,000.")
    c = t.call("ins_quote_renewal", {"policy_number": POL, "deductible_aop": "2000", "keep_endorsements":
                                     ["HO 04 95", "HO 04 61", "HO 04 77"], "endorsement_limits": {"HO 04 95": "25000"}})
    t.result(c, result={"quote_id": "RQ-20577-04", "valid_until": "2025-03-25", "premium": "2247.00",
                        "deductible_aop": "2000", "roof_year_used": 2021,
                        "endorsements_included": ["HO 04 95", "HO 04 61", "HO 04 77"],
                        "worksheet": _ins_worksheet(t, "RQ-20577-04", 2021, "2000", "25000", "2247.00")})
    t.asst("RQ-20577-04: $2,247.00 a year, with a $2,000 deductible and $25,000 water backup. That's $59 more than "
           "RQ-20577-03 with the $10,000 limit.")
    t.user("Worth it after last time. Back to the renewal: go with that last one. Bind it.")
    t.topic_switch("claims history", "renewal quotes")
    t.decision("d3-bind", [
        P_next("ins_bind_renewal", {"policy_number": POL, "quote_id": "RQ-20577-04"},
               "the chosen quote's id came back during the side topic"),
        P_fact("premium", "2247.00", "the premium of the chosen quote is the newest quote premium",
               superseded=["2104.00", "2131.00", "2188.00"]),
        P_fact("roof_year", 2021, "the bound quote must use the corrected roof year", superseded=[2022]),
        P_constraint(s_water, "water backup", "the bound quote must keep the endorsement"),
    ])
    c_b = t.call("ins_bind_renewal", {"policy_number": POL, "quote_id": "RQ-20577-04", "effective": "2025-04-01"})
    s_b = t.cseq(c_b)
    t.approval("apr-bind", "requested", s_b)
    t.asst("Binding RQ-20577-04 makes it your renewal term 2025-04-01 to 2026-04-01 at $2,247.00, $2,000 "
           "deductible, water backup raised to $25,000. Once bound it can only be changed by endorsement. Approve?")
    t.user("Before I say yes: does binding change what my lender gets billed? We pay through escrow, right?")
    t.decision("d4-question", [
        P_pending("the bind approval is still open", approval_id="apr-bind"),
        P_fact("loan_number", "3310098455", "the policy still names the old lender's loan", subject=f"policy_number={POL}"),
    ])
    c = t.call("ins_get_billing", {"policy_number": POL})
    t.result(c, result={
        "policy_number": POL, "billing_account": "BA-20577-1", "payor": "insured", "pay_plan": "monthly_eft",
        "payment_methods": [{"id": "pm_eft_6620", "type": "checking", "bank": "Idaho Central CU", "last4": "6620",
                             "default": True},
                            {"id": "pm_card_1187", "type": "card", "brand": "visa", "last4": "1187"}],
        "current_term": {"total": "1842.00", "paid": "1688.50", "remaining": "153.50",
                         "next_draft": {"date": "2025-03-01", "amount": "153.50"}},
        "escrow": False,
        "history": [{"date": f"2024-{m:02d}-01", "amount": "153.50", "method": "checking ...6620",
                     "status": "cleared", "confirmation": f"EFT-{t.rng.randint(10000000, 99999999)}"}
                    for m in range(4, 13)] + [{"date": f"2025-{m:02d}-01", "amount": "153.50",
                                               "method": "checking ...6620", "status": "cleared",
                                               "confirmation": f"EFT-{t.rng.randint(10000000, 99999999)}"}
                                              for m in (1, 2)],
        "renewal_schedule": {"status": "projected", "total": "2610.00", "installments": 12,
                             "installment_amount": "217.50", "first_due": "2025-04-01"}})
    t.asst("Actually no: your billing account says you pay directly, monthly by EFT from checking ending 6620, "
           "not through escrow. So the lender isn't billed at all. You've paid every installment on time this term "
           "(11 drafts of $153.50, all cleared), and the last one is due March 1. Binding changes your own renewal "
           "schedule only; the lender just gets a copy of the declarations as proof of coverage. "
           "(The schedule still shows the old projected $2,610 total; it re-bills after the bind.)")
    s_pay = t.user("Oh right, I switched off escrow when we refinanced. OK, approved, bind it. And I'll pay the "
                   "whole year at once, from checking. Never the credit card.")
    t.approval("apr-bind", "granted", s_b)
    t.result(c_b, request_id="cm-bind-9a03e6", result={
        "policy_number": POL, "renewal_status": "bound", "bound_quote": "RQ-20577-04", "term_premium": "2247.00",
        "effective": "2025-04-01", "declarations_id": "DEC-20577-2025", "binder_number": "BND-5538120",
        "changes_from_offer": [
            {"item": "roof year", "from": "2004", "to": "2021 (verification pending)"},
            {"item": "protective devices", "from": "none", "to": "central station burglar + fire"},
            {"item": "AOP deductible", "from": "1000", "to": "2000"},
            {"item": "HO 04 95 limit", "from": "10000", "to": "25000"},
            {"item": "premium", "from": "2610.00", "to": "2247.00"}],
        "documents_to_follow": ["declarations", "policy jacket", "HO 04 95 endorsement schedule"]})
    t.asst("Bound: binder BND-5538120. Your 2025-26 renewal is $2,247.00 effective April 1, which is $363 less "
           "than the offer. Changes from the offer: roof year 2021, central-station alarm, $2,000 deductible, "
           "water backup raised to $25,000. The new declarations (DEC-20577-2025) are issued. Next is the "
           "full-year payment from checking ending 6620.")
    t.user("Wait, first do the lender change I gave you before. I don't want to forget.")
    t.decision("d5-mortgagee", [
        P_next("ins_add_interest", {"policy_number": POL, "loan_number": "7700418823",
                                    "name": "Beacon Federal Credit Union", "address": "PO Box 9118"},
               "the lender's details were typed once, many turns earlier"),
        P_state("succeeded", "the bind is done, with its request id", call_id=c_b, request_id="cm-bind-9a03e6"),
    ])
    c_m1 = t.call("ins_add_interest", {"policy_number": POL, "interest_type": "mortgagee", "rank": 1,
                                       "name": "Beacon Federal Credit Union ISAOA/ATIMA",
                                       "address": "PO Box 9118, Syracuse, NY 13220", "loan_number": "7700418823",
                                       "replace": "Westline Home Loans ISAOA/ATIMA"})
    t.timeout(c_m1, "policy admin service: timeout after 30 s")
    t.status_query(c_m1, "not_performed", detail="no endorsement transaction found for this idempotency key")
    t.asst("The mortgagee change timed out, and the policy system says it was not performed. I'll retry it with "
           "the same request key so it can't be applied twice.")
    c_m2 = t.call("ins_add_interest", {"policy_number": POL, "interest_type": "mortgagee", "rank": 1,
                                       "name": "Beacon Federal Credit Union ISAOA/ATIMA",
                                       "address": "PO Box 9118, Syracuse, NY 13220", "loan_number": "7700418823",
                                       "replace": "Westline Home Loans ISAOA/ATIMA"}, idem=t.idem(c_m1))
    t.result(c_m2, request_id="cm-end-61c7b0", result={
        "policy_number": POL, "endorsement": "END-20577-0007", "mortgagee": {
            "name": "Beacon Federal Credit Union ISAOA/ATIMA", "loan_number": "7700418823", "rank": 1},
        "removed": "Westline Home Loans ISAOA/ATIMA", "notice_to_lender": "queued (e-mail + mail)",
        "evidence_of_insurance": "\n".join([
            "EVIDENCE OF PROPERTY INSURANCE (ACORD 28 equivalent)      DATE: 02/27/2025",
            "INSURER: Cobalt Mutual Insurance Company, NAIC 24117    AGENCY: direct, 1-800-555-0134",
            f"POLICY NUMBER: {POL}   EFFECTIVE 04/01/2025   EXPIRATION 04/01/2026   CONTINUED UNTIL TERMINATED",
            "NAMED INSURED AND ADDRESS: Marisol Vega; Daniel Vega, 418 Alder Creek Rd, Boise, ID 83706",
            "PROPERTY INFORMATION: location as above; 1-family dwelling",
            "COVERAGE INFORMATION: PERILS INSURED: SPECIAL (HO-3)",
            "  Coverage A Dwelling $431,000 (replacement cost)   DEDUCTIBLE: $2,000 AOP; 2% wind/hail",
            "  Ordinance or law 10%; water back-up $25,000",
            "REMARKS: Mortgagee clause per standard mortgage clause (ISO HO 04 ...)",
            "ADDITIONAL INTEREST: MORTGAGEE - Beacon Federal Credit Union ISAOA/ATIMA, PO Box 9118, Syracuse,",
            "  NY 13220; LOAN NUMBER 7700418823",
            "CANCELLATION: Should the above policy be cancelled before the expiration date, notice will be",
            "  delivered in accordance with the policy provisions (10 days non-payment / 30 days other).",
            "AUTHORIZED REPRESENTATIVE: Cobalt Mutual policy services (electronic)"])})
    t.asst("Done on the second try: endorsement END-20577-0007 makes Beacon Federal Credit Union the first "
           "mortgagee (loan 7700418823) and removes Westline. Beacon gets a notice automatically.")
    t.user("Great. Let me upload the roof invoice and the ADT certificate now, I have the PDFs: "
           "summit_roofing_invoice_2021.pdf and ADT_monitoring_cert_2025.pdf.")
    for doc, kind in (("summit_roofing_invoice_2021.pdf", "roof_invoice"), ("ADT_monitoring_cert_2025.pdf",
                                                                             "alarm_certificate")):
        c = t.call("ins_upload_document", {"policy_number": POL, "doc_type": kind, "file": doc})
        t.result(c, result={"policy_number": POL, "document_id": f"DOC-{t.rng.randint(100000, 999999)}",
                            "doc_type": kind, "review": "queued", "pages": t.rng.randint(1, 3)})
    t.asst("Both documents are attached and queued for review, which keeps the roof and alarm discounts from "
           "being removed at audit.")
    t.user("How long does the review take? Can you see if they've read them yet?")
    c = t.call("ins_get_policy", {"policy_number": POL, "include": ["document_review"]})
    ocr = "\n".join([
        "SUMMIT ROOFING & EXTERIORS LLC   2290 W Franklin Rd, Meridian ID 83642   ID RCE-41877",
        "INVOICE #SR-21-4471       DATE: 10/19/2021       TERMS: due on receipt / insurance",
        "BILL TO: Marisol Vega, 418 Alder Creek Rd, Boise ID 83706   CLAIM: Cobalt Mutual CLM-21-0388120",
        "SCOPE: tear-off 2 layers, ice & water shield eaves/valleys, synthetic underlayment, GAF Timberline",
        "HDZ (Charcoal) 26 sq, ridge vent, new drip edge, pipe boots, flashing; haul-away; permit",
        "Permit: City of Boise BLD21-08812 (final inspection passed 10/15/2021)",
        "LINE ITEMS: roofing system $12,640.00; tear-off/disposal $1,480.00; permit $310.00; gutters",
        "reset $550.00     SUBTOTAL $14,980.00   TAX $0.00   TOTAL $14,980.00   PAID IN FULL 11/03/2021",
        "WARRANTY: GAF System Plus 50-yr non-prorated material, 10-yr workmanship"])
    t.result(c, result={"policy_number": POL, "documents": [
        {"doc_type": "roof_invoice", "status": "auto_verified", "extracted": {"roof_year": 2021,
                                                                            "permit": "BLD21-08812"},
         "ocr_excerpt": ocr},
        {"doc_type": "alarm_certificate", "status": "in_review", "sla_business_days": 5}]})
    t.asst("The roof invoice was already verified automatically: Summit Roofing, invoice dated 10/19/2021, with "
           "the city permit BLD21-08812, so 2021 is confirmed and the roof discount is locked in. The ADT "
           "certificate is in manual review, usually within 5 business days.")
    t.user("Now pay the full year.")
    c = t.call("ins_get_billing", {"policy_number": POL})
    s_bill2 = t.result(c, result={
        "policy_number": POL, "billing_account": "BA-20577-1", "pay_plan": "monthly_eft",
        "renewal_schedule": {"status": "billed", "total": "2610.00", "installments": 12,
                             "installment_amount": "217.50", "first_due": "2025-04-01",
                             "pay_in_full_amount": "2610.00"},
        "last_rebill": "2025-02-20T03:00:00Z"})
    c = t.call("ins_get_policy", {"policy_number": POL, "include": ["renewal_offer"]})
    s_pol2 = t.result(c, result={
        "policy_number": POL, "renewal_offer": {"status": "bound", "bound_quote": "RQ-20577-04",
                                                "renewal_premium": "2247.00",
                                                "deductibles": {"all_other_perils": "2000", "wind_hail": "2% of A"}},
        "mortgagee": {"name": "Beacon Federal Credit Union ISAOA/ATIMA", "loan_number": "7700418823", "rank": 1},
        "last_transaction": "END-20577-0007"})
    t.asst("Careful: billing still wants $2,610.00 for a pay-in-full (its last re-bill ran Feb 20, before the "
           "bind), while the policy shows the bound renewal at $2,247.00. Paying $2,610 would overpay by $363. "
           "I suggest paying the bound $2,247.00; billing will re-bill overnight. Pay $2,247.00?")
    t.user("Yes, pay what I actually owe.")
    t.decision("d6-pay", [
        P_evidence([s_bill2, s_pol2], "the two systems disagree about the amount; both readings must be seen"),
        P_next("ins_make_payment", {"policy_number": POL, "amount": "2247.00", "payment_method_id": "pm_eft_6620"},
               "the bound premium and the checking account's id come from earlier results"),
        P_constraint(s_pay, "Never the credit card", "the card ending 1187 must not be used"),
        P_fact("loan_number", "7700418823", "the lender changed by the retried endorsement",
               superseded=["3310098455"], subject=f"policy_number={POL}"),
    ])
    c_p = t.call("ins_make_payment", {"policy_number": POL, "amount": "2247.00", "payment_method_id": "pm_eft_6620",
                                      "apply_to": "renewal_2025", "pay_plan_change": "full"})
    s_p = t.cseq(c_p)
    t.approval("apr-pay", "requested", s_p)
    t.asst("Approve a one-time EFT of $2,247.00 from checking ending 6620 for the 2025-26 term?")
    t.user("Approved.")
    t.approval("apr-pay", "granted", s_p)
    s_pto = t.timeout(c_p, "payments gateway: no response within 45 s")
    t.asst("The payment request timed out. I'm checking with billing before anything else, so you aren't "
           "debited twice.")
    t.user("Please tell me it didn't go through twice.")
    t.decision("d7-payment-unknown", [
        P_state("unknown", "the timeout leaves the debit's outcome open", call_id=c_p),
        P_pending("the payment has no definitive answer yet", call_id=c_p),
        P_evidence([s_p, s_pto], "the irreversible call and its timeout must both be visible"),
    ])
    t.status_query(c_p, "succeeded", request_id="cm-pay-c41e2a", confirmation="PMT-88015522",
                   amount="2247.00", posted="2025-02-27T10:41:07-07:00")
    c = t.call("ins_get_billing", {"policy_number": POL})
    t.result(c, result={"policy_number": POL, "billing_account": "BA-20577-1", "pay_plan": "annual",
                        "renewal_schedule": {"status": "paid_in_full", "total": "2247.00", "balance": "0.00",
                                             "payments": [{"confirmation": "PMT-88015522", "amount": "2247.00",
                                                           "method": "checking ...6620"}]},
                        "statement_text": "\n".join([
                            "COBALT MUTUAL - BILLING STATEMENT - account BA-20577-1 - 02/27/2025",
                            f"Policy {POL} (HO-3) - Marisol & Daniel Vega",
                            "CURRENT TERM 04/01/2024-04/01/2025   total $1,842.00   paid $1,688.50   remaining $153.50",
                            "  next EFT draft 03/01/2025  $153.50  checking ...6620 (final installment)",
                            "RENEWAL TERM 04/01/2025-04/01/2026   pay plan: annual (changed 02/27/2025)",
                            "  02/20/2025  renewal billed (projected, pre-bind)           $2,610.00",
                            "  02/27/2025  re-bill after bind BND-5538120                 -$363.00",
                            "  02/27/2025  payment PMT-88015522 EFT checking ...6620     -$2,247.00",
                            "  BALANCE RENEWAL TERM                                        $0.00",
                            "Monthly EFT for the renewal term has been cancelled; the 03/01/2025 draft for the",
                            "current term will still occur. Questions: 1-800-555-0134."])})
    t.asst("It went through exactly once: confirmation PMT-88015522, $2,247.00 from checking ending 6620. "
           "Billing has re-billed after the bind: the 2025-26 term is paid in full, balance $0.00, and the "
           "monthly EFT for the new term is cancelled. One heads-up: the last $153.50 installment of the current "
           "term will still be drafted on March 1, as normal.")
    t.user("Perfect, thank you for catching the $2,610 thing, that would have been a pain to get refunded. Last "
           "thing: e-mail the new declarations page to me and my husband.")
    t.asst("Which addresses should I use? I don't have them in this conversation yet.")
    t.user("marisol.vega@fastmail.com and dvega.builds@gmail.com")
    c_d = t.call("ins_send_documents", {"policy_number": POL, "document": "DEC-20577-2025",
                                        "recipients": ["marisol.vega@fastmail.com", "dvega.builds@gmail.com"]})
    dec = "\n".join([
        "COBALT MUTUAL INSURANCE COMPANY - HOMEOWNERS POLICY DECLARATIONS (RENEWAL)",
        f"Policy number: {POL}   Form: HO-3 Special Form   Declarations: DEC-20577-2025",
        "Policy period: 04/01/2025 to 04/01/2026, 12:01 a.m. standard time at the residence premises",
        "Named insured: Marisol Vega and Daniel Vega, 418 Alder Creek Rd, Boise, ID 83706",
        "Residence premises: same. Year built 1961; frame; 2 stories; 2,140 sq ft; roof: asphalt shingle (2021)",
        "",
        "SECTION I COVERAGES                                   LIMIT         PREMIUM",
        "A  Dwelling                                         $431,000",
        "B  Other structures                                  $43,100",
        "C  Personal property                                $215,500",
        "D  Loss of use                                       $86,200",
        "SECTION II COVERAGES",
        "E  Personal liability (each occurrence)             $300,000",
        "F  Medical payments to others (each person)           $5,000",
        "",
        "DEDUCTIBLES: All other perils $2,000; Windstorm or hail 2% of Coverage A ($8,620)",
        "",
        "ENDORSEMENTS",
        "HO 04 95  Water back-up and sump discharge or overflow, limit $25,000           $177.00",
        "HO 04 61  Scheduled personal property: jewelry (1 item, ring), $6,800             $61.00",
        "HO 04 77  Ordinance or law, 10% of Coverage A                                      incl.",
        "HO 04 96  No coverage for home day care business                                   incl.",
        "",
        "DISCOUNTS AND SURCHARGES: protective devices (central station burglar + fire) pending verification;",
        "roof age 4 yrs; claims surcharge 12% (CLM-23-0917741) until 07/14/2026",
        "",
        "MORTGAGEE 1: Beacon Federal Credit Union ISAOA/ATIMA, PO Box 9118, Syracuse, NY 13220, loan 7700418823",
        "",
        "TOTAL ANNUAL PREMIUM: $2,247.00     Billing: paid in full (PMT-88015522)",
        "Countersigned: Cobalt Mutual Insurance Company, Boise branch. This declarations page with the policy",
        "form and endorsements listed completes the policy."])
    t.result(c_d, result={"policy_number": POL, "sent": True, "message_id": "<dec-20577-2025.7f1a@cobaltmutual.com>",
                          "recipients": ["marisol.vega@fastmail.com", "dvega.builds@gmail.com"],
                          "attachment": {"name": "DEC-20577-2025.pdf", "pages": 3}, "preview_text": dec})
    t.asst("Sent DEC-20577-2025 to both addresses. It shows the $2,000 deductible, water backup at $25,000, "
           "Beacon Federal as mortgagee, and $2,247.00 paid in full.")
    t.user("Thanks! Daniel is asking: is his detached workshop in the back yard covered, and for how much? It has "
           "about $12,000 of tools in it.")
    c = t.call("ins_get_policy", {"policy_number": POL, "include": ["form:HO 00 03 section I coverage B+C"]})
    excerpt = "\n".join([
        "HO 00 03 05 11 - SECTION I - PROPERTY COVERAGES (excerpt)",
        "B. Coverage B - Other Structures",
        "1. We cover other structures on the \"residence premises\" set apart from the dwelling by clear space.",
        "   This includes structures connected to the dwelling by only a fence, utility line, or similar",
        "   connection.",
        "2. We do not cover: a. Land, including land on which the other structures are located; b. Other",
        "   structures rented or held for rental to any person not a tenant of the dwelling, unless used solely",
        "   as a private garage; c. Other structures from which any \"business\" is conducted; or d. Other",
        "   structures used to store \"business\" property. However, we do cover a structure that contains",
        "   \"business\" property solely owned by an \"insured\" or a tenant of the dwelling, provided that",
        "   \"business\" property does not include gaseous or liquid fuel, other than fuel in a permanently",
        "   installed fuel tank of a vehicle or craft parked or stored in the structure.",
        "3. The limit of liability for this coverage will not be more than 10% of the limit of liability that",
        "   applies to Coverage A. Use of this coverage does not reduce the Coverage A limit of liability.",
        "C. Coverage C - Personal Property",
        "1. Covered Property. We cover personal property owned or used by an \"insured\" while it is anywhere",
        "   in the world. ...",
        "3. Special Limits Of Liability. The special limit for each category shown below is the total limit",
        "   for each loss for all property in that category. ...",
        "   h. $2,500 on property, on the \"residence premises\", used primarily for \"business\" purposes.",
        "   i. $1,500 on property, away from the \"residence premises\", used primarily for \"business\"",
        "      purposes. ...",
        "   k. $1,500 for loss of electronic apparatus and accessories, while in or upon a \"motor vehicle\".",
        "SECTION I - PERILS INSURED AGAINST, B. Coverage C: named perils 1-16 (fire, windstorm or hail,",
        "explosion, riot, aircraft, vehicles, smoke, vandalism, theft, falling objects, weight of ice/snow,",
        "accidental discharge of water or steam, ... ). Theft from a structure on the premises is covered."])
    t.result(c, result={"policy_number": POL, "coverage_b_limit": "43100", "coverage_c_limit": "215500",
                        "form_text": excerpt})
    t.asst("Yes on both, with one caveat. The workshop itself is an 'other structure', covered up to $43,100 "
           "(10% of the dwelling limit) on top of the house coverage, as long as no business is run from it. "
           "The tools are personal property, covered up to your $215,500 contents limit for named perils "
           "including theft and fire. The caveat: if Daniel uses the tools mainly for paid work, business property "
           "on the premises is capped at $2,500, and running a business from the workshop could exclude the "
           "building from Coverage B. If that's the case, an in-home business endorsement would fix it.")
    t.user("He does some paid jobs on weekends, I'll have him call about that. Thank you! Is there anything "
           "still pending on my side?")
    t.decision("d8-wrapup", [
        P_state("succeeded", "the timed-out payment was confirmed, with its request id", call_id=c_p,
                request_id="cm-pay-c41e2a"),
        P_state("failed", "the first mortgagee attempt was not performed (its retry succeeded)", call_id=c_m1),
        P_state("succeeded", "the retried mortgagee change went through", call_id=c_m2, request_id="cm-end-61c7b0"),
        P_fact("surcharge_expires", "2026-07-14", "when the claims surcharge ends, from the side topic"),
        P_fact("roof_year", 2021, "the discount hinges on the corrected year being verified", superseded=[2022]),
    ])
    t.asst("Three things on your side. First, document review: the roof invoice and ADT certificate are queued, "
           "and the discounts stay as long as they are accepted within 30 days. Second, the tree: the inspection "
           "requires the overhanging maple limbs trimmed and the dead limb removed by May 15, 2025, with a photo "
           "sent to us. Third, Daniel's call about the in-home business endorsement for his weekend jobs. Everything else is done: renewal bound at $2,247.00, paid in full "
           "(PMT-88015522), Beacon Federal on the policy with loan 7700418823, and the declarations e-mailed to you "
           "both. The claims surcharge falls off after July 14, 2026, so expect a lower premium at the 2026 "
           "renewal, especially if you add the smart water shutoff valve.")
    return t
# --- t08 end ---


# --- t09 start ---
def _fleet_rows(t: T, robots: list[str], overrides: dict) -> list[dict]:
    zones = ["A02", "A05", "A07", "A11", "B01", "B04", "B09", "C03", "C08", "C12", "C15", "D02", "D06"]
    rows = []
    for rid in robots:
        state = t.rng.choice(["picking", "picking", "picking", "traveling", "traveling", "idle", "charging"])
        row = {"robot_id": rid, "state": state, "battery_pct": t.rng.randint(38, 97),
               "location": t.rng.choice(zones) + "-" + str(t.rng.randint(1, 40)).zfill(2),
               "mission_id": (f"M-{t.rng.randint(5500000, 5531999)}" if state in ("picking", "traveling") else None),
               "fw": t.rng.choice(["4.12.1", "4.12.1", "4.12.2"])}
        row.update(overrides.get(rid, {}))
        rows.append(row)
    return rows


@trajectory
def t09_warehouse_robots() -> T:
    t = T(9, "warehouse-robots", "h3-warehouse-robots",
          "Night shift with a warehouse robot fleet: a spill, a robot that reports two states, firmware",
          ["the fleet manager and the robot's own telemetry contradict each other",
           "a zone closed 'until the crew confirms' must not be reopened early",
           "mission ids returned by dispatches are needed to cancel or check them later",
           "a dispatch times out and is confirmed by status_query; another stays unknown",
           "a corrected dock number supersedes the first one",
           "an irreversible firmware flash is approved for one robot only",
           "a ticket id returned mid-shift is referenced at handover",
           "a side topic (wave order lines) and the return"],
          "A night-shift supervisor at fulfilment centre RNO2 works with the fleet assistant for a few hours.")
    SITE = "RNO2"
    robots = [f"AMR-{n}" for n in range(101, 137)]
    t.system("You are the fleet assistant for site RNO2 (36 LX-4 autonomous mobile robots). You can read the "
             "fleet manager, robot telemetry and WMS, dispatch and cancel missions, open/close zones, open "
             "maintenance tickets and flash firmware. Firmware flashing on LX-4 cannot be rolled back.")
    t.user("Evening. Wave W-0227-N3 is running behind and the pack stations are starving. Give me the fleet "
           "picture.")
    c = t.call("fleet_list_robots", {"site": SITE, "page": 1, "page_size": 18, "include": ["zones", "docks"]})
    over = {"AMR-117": {"state": "idle", "battery_pct": 82, "location": "C15-22", "mission_id": None, "fw": "4.12.1"},
            "AMR-104": {"state": "idle", "battery_pct": 91, "location": "B04-03", "mission_id": None},
            "AMR-109": {"state": "picking", "location": "C15-31", "mission_id": "M-5531207"},
            "AMR-122": {"state": "error", "battery_pct": 64, "location": "D06-11", "mission_id": None,
                        "fault": "LOC_DRIFT"},
            "AMR-126": {"state": "traveling", "battery_pct": 58, "location": "B04-17", "mission_id": "M-5530884"},
            "AMR-131": {"state": "idle", "battery_pct": 77, "location": "A11-08", "mission_id": None}}
    rows = _fleet_rows(t, robots, over)
    s_list = t.result(c, result={
        "site": SITE, "as_of": "2025-02-27T22:04:16-08:00", "page": 1, "pages": 2, "robots": rows[:18],
        "zones": [{"zone_id": "RNO2-Z-A1", "aisles": "A01-A12", "state": "open"},
                  {"zone_id": "RNO2-Z-B1", "aisles": "B01-B10", "state": "open"},
                  {"zone_id": "RNO2-Z-C1", "aisles": "C01-C13", "state": "open"},
                  {"zone_id": "RNO2-Z-C2", "aisles": "C14-C18", "state": "open"},
                  {"zone_id": "RNO2-Z-D1", "aisles": "D01-D08", "state": "open"}],
        "docks": [{"dock": f"DK-{n:02d}", "state": "ok" if n != 6 else "fault", "occupied_by":
                   t.rng.choice([None, None, "AMR-1" + str(t.rng.randint(10, 36))])} for n in range(1, 13)]})
    c = t.call("fleet_list_robots", {"site": SITE, "page": 2, "page_size": 18})
    t.result(c, result={"site": SITE, "as_of": "2025-02-27T22:04:17-08:00", "page": 2, "pages": 2,
                        "robots": rows[18:]})
    busy = sum(1 for r in rows if r["state"] in ("picking", "traveling"))
    t.asst(f"{busy} of 36 robots are on missions right now. AMR-104 (91%), AMR-117 (82%) and AMR-131 (77%) show "
           "idle, a few are charging, and AMR-122 is in error with a localization drift fault (LOC_DRIFT) in "
           "D06. All five zones are open. Dock DK-06 reports a fault.")
    s_spill = t.user("OK. First: there's a spill in C, aisles 14 to 18. Close that to robots, and don't reopen it "
                     "until Dana from the cleaning crew tells me it's dry. I'll tell you.")
    t.decision("d1-close-zone", [
        P_next("fleet_set_zone", {"zone_id": "RNO2-Z-C2"}, "the zone id for aisles C14-C18 is only in the fleet "
                                                          "listing"),
    ], note="early: everything still fits")
    c = t.call("fleet_set_zone", {"zone_id": "RNO2-Z-C2", "state": "closed", "reason": "spill",
                                  "reroute_active_missions": True})
    t.result(c, request_id="fm-zone-3c1a9e", result={
        "zone_id": "RNO2-Z-C2", "state": "closed", "closed_at": "2025-02-27T22:06:02-08:00",
        "affected_missions": [{"mission_id": "M-5531207", "robot_id": "AMR-109", "action": "paused_in_zone"}],
        "rerouted": 4})
    t.asst("Zone RNO2-Z-C2 (C14-C18) is closed. Four missions were rerouted around it. AMR-109 was inside the "
           "zone on mission M-5531207 and is paused there. I'll keep the zone closed until you tell me Dana "
           "confirmed it's dry.")
    t.user("Why is 117 idle at 82%? Put it on the wave.")
    c = t.call("fleet_robot_detail", {"robot_id": "AMR-117"})
    s_det = t.result(c, result={"robot_id": "AMR-117", "model": "LX-4", "serial": "LX4-2208-0117",
                                "state": "idle", "battery_pct": 82, "estop": False, "fw": "4.12.1",
                                "location": "C15-22", "last_mission": "M-5529980", "last_heartbeat":
                                "2025-02-27T21:31:40-08:00", "assignable": True})
    c = t.call("fleet_robot_telemetry", {"robot_id": "AMR-117", "fields": ["battery", "safety", "drive", "loc"]})
    s_tel = t.result(c, result={"robot_id": "AMR-117", "ts": "2025-02-27T22:07:12.442-08:00", "battery_pct": 31,
                                "battery_v": 46.1, "estop": True, "estop_source": "bumper_front_left",
                                "drive": {"state": "inhibited", "motor_temp_c": [34.2, 35.0]},
                                "loc": {"map": "RNO2-v57", "x": 118.42, "y": 40.07, "confidence": 0.93},
                                "uptime_s": 48211})
    t.asst("The two sources disagree. The fleet manager says AMR-117 is idle at 82%, no e-stop, assignable, but "
           "its last heartbeat was 21:31, 35 minutes ago. The robot's own telemetry right now says battery 31% and "
           "the e-stop is engaged from the front-left bumper, drive inhibited. So the fleet manager's record is "
           "stale, and the robot can't take a mission. It's also standing in C15, inside the closed spill zone.")
    t.user("Figures. Open a maintenance ticket for the bumper then, and use 104 and 131 for the wave instead.")
    t.decision("d2-ticket-and-dispatch", [
        P_evidence([s_det, s_tel], "the two contradicting readings of AMR-117 must both be in view"),
        P_next("fleet_create_ticket", {"robot_id": "AMR-117", "estop_source": "bumper_front_left"},
               "the fault source is only in the telemetry"),
        P_constraint(s_spill, "don't reopen", "nothing may send robots through the closed zone"),
    ])
    c = t.call("fleet_create_ticket", {"robot_id": "AMR-117", "category": "safety_hardware", "priority": "P2",
                                       "summary": "Front-left bumper e-stop latched; fleet manager heartbeat stale "
                                                  "since 21:31", "estop_source": "bumper_front_left"})
    t.result(c, result={"ticket_id": "MT-40877", "robot_id": "AMR-117", "status": "open", "queue": "RNO2-maint",
                        "sla": "next shift"})
    c = t.call("wms_order_lines", {"wave_id": "W-0227-N3", "status": "unassigned", "limit": 20})
    lines = []
    for i in range(20):
        sku = f"SKU-{t.rng.randint(100000, 999999)}"
        lines.append({"line_id": f"W3L-{4100 + i}", "order_id": f"SO-{t.rng.randint(2600000, 2699999)}",
                      "sku": sku, "qty": t.rng.choice([1, 1, 1, 2, 3]),
                      "bin": t.rng.choice(["A", "B", "D"]) + str(t.rng.randint(1, 12)).zfill(2) + "-" +
                      str(t.rng.randint(1, 40)).zfill(2) + t.rng.choice("ABCDE"),
                      "carrier_cutoff": t.rng.choice(["23:30", "23:30", "01:15", "03:00"])})
    t.result(c, result={"wave_id": "W-0227-N3", "unassigned_lines": 212, "returned": 20, "lines": lines,
                        "cutoff_summary": {"23:30": 88, "01:15": 71, "03:00": 53}})
    c_104 = t.call("fleet_dispatch_mission", {"robot_id": "AMR-104", "type": "pick", "wave_id": "W-0227-N3",
                                              "batch": "cutoff-23:30", "avoid_zones": ["RNO2-Z-C2"]})
    t.result(c_104, request_id="fm-disp-77a210", result={"mission_id": "M-5532410", "robot_id": "AMR-104",
                                                         "lines": 14, "eta_first_pick_s": 95})
    c_131 = t.call("fleet_dispatch_mission", {"robot_id": "AMR-131", "type": "pick", "wave_id": "W-0227-N3",
                                              "batch": "cutoff-23:30", "avoid_zones": ["RNO2-Z-C2"]})
    s_131 = t.cseq(c_131)
    s_131to = t.timeout(c_131, "fleet manager: dispatch RPC deadline exceeded (10 s)")
    t.asst("Ticket MT-40877 is open for AMR-117's bumper (P2, next shift). The wave has 212 unassigned lines, "
           "88 of them for the 23:30 carrier cutoff. AMR-104 took 14 of those lines (mission M-5532410). The "
           "dispatch for AMR-131 timed out, so I don't know yet whether it got a mission. Both were told to avoid "
           "the closed zone.")
    t.user("Check on 131. And send the two charging-low ones to dock 7 after their missions. Wait, no, dock 7 "
           "is the one that's been flaky. Use dock 9.")
    s_dock = t.fact("charge_dock", "DK-09")
    t.decision("d3-131-and-docks", [
        P_state("unknown", "the AMR-131 dispatch timed out", call_id=c_131),
        P_pending("its outcome has not been established", call_id=c_131),
        P_fact("charge_dock", "DK-09", "the user changed the dock within the same message"),
    ])
    t.status_query(c_131, "unknown", detail="dispatch queue unreachable (fleet-manager pod restarting)")
    low = sorted((r for r in rows if r["state"] in ("picking", "traveling")), key=lambda r: r["battery_pct"])[:2]
    low_ids = [r["robot_id"] for r in low]
    for r in low:
        c = t.call("fleet_dispatch_mission", {"robot_id": r["robot_id"], "type": "charge", "dock": "DK-09",
                                              "after": "current_mission"})
        t.result(c, result={"mission_id": f"M-{t.rng.randint(5532500, 5532999)}", "robot_id": r["robot_id"],
                            "queued_after": r["mission_id"], "dock": "DK-09"})
    t.asst(f"The status check for AMR-131 couldn't reach the dispatch queue (the fleet-manager pod is restarting), "
           f"so it's still unknown. {low_ids[0]} ({low[0]['battery_pct']}%) and {low_ids[1]} "
           f"({low[1]['battery_pct']}%) will go to DK-09 after their current missions.")
    t.user("How is 104 doing on its batch?")
    c = t.call("fleet_mission_status", {"mission_id": "M-5532410"})
    t.result(c, result={"mission_id": "M-5532410", "robot_id": "AMR-104", "state": "picking", "lines_done": 5,
                        "lines_total": 14, "current_location": "A07-19", "eta_done_s": 610,
                        "events": [{"t": "22:10:41", "e": "started"}, {"t": "22:12:16", "e": "pick A02-11C"},
                                   {"t": "22:13:02", "e": "pick A02-30A"}, {"t": "22:14:47", "e": "pick A05-04E"},
                                   {"t": "22:16:10", "e": "pick A05-22B"}, {"t": "22:17:33", "e": "pick A07-02D"}]})
    t.asst("AMR-104 is 5 of 14 lines into M-5532410, now in A07, about 10 minutes from done. Pace is roughly one "
           "pick every 80 seconds.")
    t.user("Let me see 122's error log. That LOC_DRIFT thing keeps coming back.")
    c = t.call("fleet_error_log", {"robot_id": "AMR-122", "since": "2025-02-27T18:00:00-08:00", "limit": 30})
    log = []
    minute = 0
    for i in range(30):
        minute += t.rng.randint(3, 9)
        hh, mm = 18 + minute // 60, minute % 60
        ev = t.rng.choice(["LOC_DRIFT conf=0.{c} map=RNO2-v57 pose_jump={j}cm", "LOC_RECOVER scan_match ok "
                           "conf=0.{c}", "NAV_REPLAN reason=loc_uncertain", "LOC_DRIFT conf=0.{c} map=RNO2-v57 "
                           "pose_jump={j}cm", "LIDAR_FRAME_DROP n={n}", "MISSION_ABORT code=E_LOC"])
        log.append(f"2025-02-27T{hh:02d}:{mm:02d}:{t.rng.randint(0, 59):02d}-08:00 AMR-122 "
                   + ev.format(c=t.rng.randint(41, 69), j=t.rng.randint(18, 95), n=t.rng.randint(3, 40)))
    log.append("2025-02-27T22:01:47-08:00 AMR-122 FAULT LOC_DRIFT latched; operator reset required")
    t.result(c, result={"robot_id": "AMR-122", "fw": "4.12.1", "entries": len(log), "log": "\n".join(log)})
    t.asst("AMR-122's log since 18:00 is mostly LOC_DRIFT events: localization confidence dropping to 0.4-0.7 "
           "on map RNO2-v57, pose jumps of 20-95 cm, then replans and mission aborts (E_LOC), plus some lidar frame "
           "drops. It latched the fault at 22:01 and needs an operator reset. It's on firmware 4.12.1.")
    t.user("Is there a firmware fix for that? Maintenance said something about 4.12.3.")
    c = t.call("fleet_robot_detail", {"robot_id": "AMR-122", "include": ["available_firmware"]})
    notes = "\n".join([
        "LX-4 FIRMWARE 4.12.3 - RELEASE NOTES (2025-02-18)",
        "Applies to: LX-4 rev C/D controllers. Upgrade path: 4.12.1 or 4.12.2 -> 4.12.3. Downgrade: NOT SUPPORTED",
        "(bootloader and safety-controller images are updated together; the safety controller refuses older",
        "application images after the upgrade).",
        "",
        "FIXES",
        "- LOC-2291: localization drift after long uptime (>12 h) on maps with repetitive racking; scan matcher",
        "  now rejects low-feature frames and re-seeds from the reflector layer. Symptom: LOC_DRIFT with",
        "  pose_jump 20-100 cm, E_LOC mission aborts.",
        "- NAV-1877: replanning storm when a zone is closed while a robot is inside it.",
        "- PWR-640: battery percentage reported to the fleet manager could freeze when the heartbeat channel",
        "  reconnects (fleet manager shows last known value).",
        "- SAF-311: bumper e-stop latch not reported to the fleet manager until the next heartbeat.",
        "",
        "KNOWN ISSUES",
        "- First boot after flashing takes ~6 min (safety controller re-keys); robot must be docked and at",
        "  >= 40% battery. Flashing off-dock or below 40% is refused.",
        "- Maps older than v55 must be re-exported.",
        "",
        "PROCEDURE: put robot in maintenance mode -> dock -> flash -> verify checksum -> remove from",
        "maintenance mode. Expected downtime 12-15 min per robot."])
    t.result(c, result={"robot_id": "AMR-122", "fw": "4.12.1", "available_firmware": [
        {"version": "4.12.3", "released": "2025-02-18", "rollback": False, "requires": {"docked": True,
                                                                                         "min_battery_pct": 40}}],
        "battery_pct": 64, "docked": False, "release_notes": notes})
    t.asst("Yes: 4.12.3 (Feb 18) fixes exactly this (LOC-2291: drift after long uptime on repetitive racking). "
           "It also fixes the fleet manager showing a frozen battery value and bumper e-stops not being reported "
           "until the next heartbeat, which is what we saw with AMR-117. Caveats: it can't be rolled back, the "
           "robot must be docked with at least 40% battery, and it's 12-15 minutes of downtime.")
    t.user("Flash 122 only. Not the whole fleet, not tonight. Dock it first.")
    s_only = t.seq
    c = t.call("fleet_dispatch_mission", {"robot_id": "AMR-122", "type": "dock", "dock": "DK-09",
                                          "operator_reset": True})
    t.result(c, result={"mission_id": "M-5532901", "robot_id": "AMR-122", "dock": "DK-09", "status": "completed",
                        "docked": True, "battery_pct": 63})
    c_fw = t.call("fleet_firmware_update", {"robot_id": "AMR-122", "version": "4.12.3", "maintenance_mode": True})
    s_fw = t.cseq(c_fw)
    t.approval("apr-fw-122", "requested", s_fw)
    t.asst("AMR-122 is reset and docked at DK-09 (63%). Flashing 4.12.3 is permanent for this robot. Approve the "
           "flash for AMR-122 only?")
    t.user("Hold on, before that: has 131 shown up with a mission yet?")
    t.decision("d4-before-flash", [
        P_pending("the firmware approval is open", approval_id="apr-fw-122"),
        P_state("unknown", "the AMR-131 dispatch is still unresolved", call_id=c_131),
        P_constraint(s_only, "Flash 122 only", "the approval covers one robot, not the fleet"),
        P_next("fleet_robot_detail", {"robot_id": "AMR-131"}, "checking on 131 from the fleet side"),
        P_fact("battery_pct", 63, "the flash needs the robot docked with at least 40%", subject="robot_id=AMR-122"),
    ])
    c = t.call("fleet_robot_detail", {"robot_id": "AMR-131"})
    t.result(c, result={"robot_id": "AMR-131", "state": "idle", "battery_pct": 76, "fw": "4.12.2",
                        "location": "A11-08", "mission_id": None, "last_heartbeat": "2025-02-27T22:19:55-08:00",
                        "note": "fleet manager restarted 22:12; missions created in the last 10 min are being "
                                "re-synced"})
    t.asst("Not yet: the fleet manager shows AMR-131 idle at A11-08 with no mission, but it restarted at 22:12 "
           "and is still re-syncing missions created just before, which includes our timed-out dispatch. So I "
           "can't tell yet whether it will get one; dispatching again now could double-assign the same lines.")
    t.user("Fine, leave it. Go ahead and flash 122.")
    t.approval("apr-fw-122", "granted", s_fw)
    t.result(c_fw, request_id="fm-fw-5f0b2c", result={
        "robot_id": "AMR-122", "from": "4.12.1", "to": "4.12.3", "checksum": "sha256:9c1e...d07a verified",
        "first_boot": "in_progress", "maintenance_mode": True})
    t.asst("Flashed AMR-122 to 4.12.3, checksum verified. It's on its first boot now (about 6 minutes), still in "
           "maintenance mode.")
    t.user("Totally different thing: how are we on the 23:30 cutoff? Which orders are at risk?")
    t.topic_switch("fleet faults", "carrier cutoff")
    c = t.call("wms_order_lines", {"wave_id": "W-0227-N3", "cutoff": "23:30", "status": "open", "limit": 30})
    risk = []
    for i in range(30):
        risk.append({"order_id": f"SO-{t.rng.randint(2600000, 2699999)}", "lines_open": t.rng.randint(1, 4),
                     "priority": t.rng.choice(["standard", "standard", "expedited", "next_day"]),
                     "zone": t.rng.choice(["A", "B", "C", "D"]) + str(t.rng.randint(1, 18)).zfill(2),
                     "projected_pack": f"23:{t.rng.randint(5, 59):02d}"})
    risk[3].update({"zone": "C16", "priority": "next_day"})
    risk[11].update({"zone": "C14", "priority": "next_day"})
    t.result(c, result={"wave_id": "W-0227-N3", "cutoff": "23:30", "open_orders": 61, "returned": 30,
                        "at_risk": 17, "orders": risk,
                        "blocked_by_zone": [{"zone_id": "RNO2-Z-C2", "orders": 9, "next_day": 4}]})
    t.asst("61 orders are still open for 23:30, 17 of them projected to pack after the cutoff. Nine are blocked "
           "by the closed C14-C18 zone, including 4 next-day orders. Everything else is moving.")
    t.user("Nine in the spill zone... Don't touch the zone. Can we pull those orders' lines from somewhere else?")
    t.asst("Only if the same SKUs have stock in another location; the WMS would have to re-slot the picks. "
           "That's a WMS supervisor action, and I can't do it from the fleet side. I'd ask inventory control.")
    t.user("OK, I'll call them. Back to the robots: 126 is stuck behind a pallet somebody left in B04. Cancel "
           "its mission and re-send its lines so it goes around.")
    t.topic_switch("carrier cutoff", "fleet faults")
    t.decision("d5-stuck-126", [
        P_next("fleet_cancel_mission", {"mission_id": "M-5530884"}, "126's mission id is only in the first fleet "
                                                                   "listing, long ago"),
        P_state("succeeded", "the firmware flash went through", call_id=c_fw, request_id="fm-fw-5f0b2c"),
        P_state("unknown", "the 131 dispatch has never been resolved", call_id=c_131),
        P_fact("ticket_id", "MT-40877", "the bumper ticket from earlier"),
        P_constraint(s_spill, "Dana", "the zone stays closed until Dana's confirmation"),
        P_fact("state", "closed", "the spill zone is still closed", subject="zone_id=RNO2-Z-C2"),
    ])
    c = t.call("fleet_cancel_mission", {"mission_id": "M-5530884", "reason": "path blocked (pallet in B04)",
                                        "requeue_lines": True})
    t.result(c, request_id="fm-cxl-2e4f18", result={"mission_id": "M-5530884", "state": "cancelled",
                                                   "robot_id": "AMR-126", "lines_requeued": 9})
    c = t.call("fleet_dispatch_mission", {"robot_id": "AMR-126", "type": "pick", "wave_id": "W-0227-N3",
                                          "batch": "requeued:M-5530884", "avoid_zones": ["RNO2-Z-C2"],
                                          "avoid_aisles": ["B04"]})
    t.result(c, request_id="fm-disp-7b0c55", result={"mission_id": "M-5533012", "robot_id": "AMR-126",
                                                     "lines": 9, "eta_first_pick_s": 75})
    t.asst("Cancelled M-5530884 (9 lines re-queued) and re-dispatched AMR-126 on M-5533012 with the same lines, "
           "avoiding aisle B04 and the closed zone. Someone should still move that pallet.")
    t.user("Yeah I'll send someone. What's still open from tonight?")
    t.asst("Open items: (1) AMR-131's dispatch from 22:09 is still unknown while the fleet manager re-syncs. "
           "(2) Zone C14-C18 stays closed until Dana confirms it's dry. (3) AMR-109 is paused inside that zone on "
           "M-5531207. (4) AMR-117 is e-stopped with ticket MT-40877. (5) AMR-122 is on first boot after the "
           "flash. (6) The pallet in B04.")
    t.user("Correction on the docks, by the way: dock 9 is fine but dock 7 is fine too, it was dock 6 that was "
           "flaky. Whatever, keep 9.")
    t.asst("Noted: DK-06 is the flaky one (it also reported a fault in the listing). The low-battery robots stay "
           "routed to DK-09. AMR-122 should be done with its first boot by now; I'll check.")
    c = t.call("fleet_robot_telemetry", {"robot_id": "AMR-122", "fields": ["fw", "loc", "battery", "safety"]})
    t.result(c, result={"robot_id": "AMR-122", "ts": "2025-02-27T22:41:03.118-08:00", "fw": "4.12.3",
                        "boot": "complete", "battery_pct": 66, "estop": False,
                        "loc": {"map": "RNO2-v57", "confidence": 0.98}, "maintenance_mode": True})
    t.user("Is 122 back? If it is, take it out of maintenance and give it the 23:30 orders.")
    t.decision("d6-122-back", [
        P_next("fleet_dispatch_mission", {"robot_id": "AMR-122", "wave_id": "W-0227-N3", "avoid_zones": "RNO2-Z-C2"},
               "the wave id and the closed zone's id came from much earlier"),
        P_fact("fw", "4.12.3", "the new firmware is confirmed by telemetry", subject="robot_id=AMR-122",
               superseded=["4.12.1"]),
    ])
    c_122 = t.call("fleet_dispatch_mission", {"robot_id": "AMR-122", "type": "pick", "wave_id": "W-0227-N3",
                                              "batch": "cutoff-23:30", "avoid_zones": ["RNO2-Z-C2"],
                                              "exit_maintenance": True})
    t.result(c_122, request_id="fm-disp-7a9931", result={"mission_id": "M-5533046", "robot_id": "AMR-122",
                                                         "lines": 12, "eta_first_pick_s": 140})
    t.asst("AMR-122 is back: boot complete on 4.12.3, localization confidence 0.98. It's out of maintenance and on "
           "mission M-5533046 with 12 lines for the 23:30 cutoff, avoiding the closed zone.")
    t.user("Dana just radioed: C is dry. Reopen it, and get 109 moving again.")
    t.decision("d7-reopen", [
        P_next("fleet_set_zone", {"zone_id": "RNO2-Z-C2"}, "the zone id from the beginning of the shift"),
        P_next("fleet_mission_status", {"mission_id": "M-5531207"}, "109's paused mission id came back from the "
                                                                   "zone closure"),
        P_constraint(s_spill, "until Dana", "the condition for reopening is now met"),
        P_fact("state", "closed", "the zone is closed until this reopening", subject="zone_id=RNO2-Z-C2"),
    ])
    c = t.call("fleet_set_zone", {"zone_id": "RNO2-Z-C2", "state": "open", "reason": "spill cleaned (Dana)"})
    t.result(c, request_id="fm-zone-3d77b0", result={"zone_id": "RNO2-Z-C2", "state": "open",
                                                    "resumed_missions": ["M-5531207"]})
    c = t.call("fleet_mission_status", {"mission_id": "M-5531207"})
    t.result(c, result={"mission_id": "M-5531207", "robot_id": "AMR-109", "state": "resumed", "lines_done": 6,
                        "lines_total": 11, "eta_done_s": 420})
    t.asst("Zone C14-C18 is open again. AMR-109 resumed M-5531207 (6 of 11 lines done, about 7 minutes left). "
           "AMR-117 is still standing in C15 with its e-stop latched, so maintenance can reach it now.")
    t.user("The maintenance tech is at 117 now. What does its log say about the bumper?")
    c = t.call("fleet_error_log", {"robot_id": "AMR-117", "since": "2025-02-27T21:00:00-08:00", "limit": 25})
    log117 = []
    minute = 0
    for i in range(18):
        minute += t.rng.randint(1, 3)
        ev = t.rng.choice(["PICK_OK bin={b}", "NAV_GOAL reached {b}", "HEARTBEAT ok rtt={r}ms",
                           "BATT {p}% {v}V", "HEARTBEAT ok rtt={r}ms"])
        log117.append(f"2025-02-27T21:{minute:02d}:{t.rng.randint(0, 59):02d}-08:00 AMR-117 " + ev.format(
            b="C1" + str(t.rng.randint(4, 6)) + "-" + str(t.rng.randint(1, 40)).zfill(2), r=t.rng.randint(8, 40),
            p=t.rng.randint(31, 36), v=round(46 + t.rng.random(), 1)))
    log117 += ["2025-02-27T21:31:40-08:00 AMR-117 HEARTBEAT ok rtt=22ms",
               "2025-02-27T21:31:52-08:00 AMR-117 SAFETY bumper_front_left contact force=212N",
               "2025-02-27T21:31:52-08:00 AMR-117 ESTOP latched source=bumper_front_left",
               "2025-02-27T21:31:53-08:00 AMR-117 DRIVE inhibited",
               "2025-02-27T21:31:58-08:00 AMR-117 HEARTBEAT send failed (channel reset) - retrying",
               "2025-02-27T21:32:30-08:00 AMR-117 HEARTBEAT channel reconnect; fm_sync=skipped (known issue PWR-640)",
               "2025-02-27T21:45:00-08:00 AMR-117 BATT 32% 46.1V (drive inhibited, idle draw)",
               "2025-02-27T22:00:00-08:00 AMR-117 BATT 31% 46.1V"]
    t.result(c, result={"robot_id": "AMR-117", "fw": "4.12.1", "entries": len(log117), "log": "\n".join(log117)})
    t.asst("At 21:31:52 the front-left bumper registered a contact of 212 N (a real hit, not a glitch), the "
           "e-stop latched and the drive was inhibited. Six seconds later its heartbeat channel reset and "
           "reconnected without re-syncing (the PWR-640 bug), which is why the fleet manager kept showing idle at "
           "82%. Battery has drained to 31% standing still since then. The tech should check what it hit in C15.")
    t.user("He says there was a tote on the floor, it's moved. He reset the bumper. Is 117 healthy now? If so, "
           "send it to charge.")
    c = t.call("fleet_robot_telemetry", {"robot_id": "AMR-117", "fields": ["battery", "safety", "drive"]})
    t.result(c, result={"robot_id": "AMR-117", "ts": "2025-02-27T23:02:40.905-08:00", "battery_pct": 29,
                        "battery_v": 45.9, "estop": False, "drive": {"state": "ready"}})
    c = t.call("fleet_dispatch_mission", {"robot_id": "AMR-117", "type": "charge", "dock": "DK-09"})
    t.result(c, result={"mission_id": "M-5533190", "robot_id": "AMR-117", "dock": "DK-09", "eta_s": 160})
    t.asst("AMR-117 is healthy: e-stop cleared, drive ready, battery 29%. It's on its way to DK-09 to charge "
           "(M-5533190). I'd leave ticket MT-40877 open so maintenance can check why the latch didn't reach the "
           "fleet manager; 4.12.3 fixes that reporting.")
    t.user("How did we end up on the 23:30 cutoff?")
    c = t.call("wms_order_lines", {"wave_id": "W-0227-N3", "cutoff": "23:30", "status": "any", "summary": True})
    t.result(c, result={"wave_id": "W-0227-N3", "cutoff": "23:30", "orders_total": 212, "shipped_on_time": 203,
                        "missed": 9, "missed_orders": [{"order_id": f"SO-{t.rng.randint(2600000, 2699999)}",
                                                        "reason": "zone_closed", "rolled_to": "01:15"}
                                                       for _ in range(6)] +
                        [{"order_id": f"SO-{t.rng.randint(2600000, 2699999)}", "reason": "short_pick",
                          "rolled_to": "01:15"} for _ in range(3)]})
    t.asst("203 of 212 orders made the 23:30 truck. 9 rolled to the 01:15 cutoff: 6 because of the closed zone "
           "and 3 short picks.")
    t.user("Give me a fresh fleet snapshot for the handover.")
    c = t.call("fleet_list_robots", {"site": SITE, "page": 1, "page_size": 18})
    over2 = {"AMR-104": {"state": "idle", "battery_pct": 62, "location": "PS-3", "mission_id": None},
             "AMR-109": {"state": "idle", "battery_pct": 55, "location": "PS-5", "mission_id": None},
             "AMR-117": {"state": "charging", "battery_pct": 36, "location": "DK-09", "mission_id": None,
                         "fw": "4.12.1"},
             "AMR-122": {"state": "picking", "battery_pct": 51, "location": "B09-14", "mission_id": "M-5533046",
                         "fw": "4.12.3"},
             "AMR-126": {"state": "picking", "battery_pct": 47, "location": "B01-33", "mission_id": "M-5533012"},
             "AMR-131": {"state": "idle", "battery_pct": 74, "location": "A11-08", "mission_id": None}}
    rows2 = _fleet_rows(t, robots, over2)
    t.result(c, result={"site": SITE, "as_of": "2025-02-27T23:41:09-08:00", "page": 1, "pages": 2,
                        "robots": rows2[:18]})
    c = t.call("fleet_list_robots", {"site": SITE, "page": 2, "page_size": 18})
    t.result(c, result={"site": SITE, "as_of": "2025-02-27T23:41:10-08:00", "page": 2, "pages": 2,
                        "robots": rows2[18:]})
    busy2 = sum(1 for r in rows2 if r["state"] in ("picking", "traveling"))
    t.asst(f"Snapshot at 23:41: {busy2} robots on missions, AMR-117 charging at DK-09 (36%), AMR-122 picking on "
           "4.12.3, AMR-126 picking on its re-sent lines, AMR-104 and AMR-109 idle at pack stations, AMR-131 still "
           "idle at A11-08 with no mission.")
    t.user("Good. Last thing before handover: did 131 ever get that mission? And write me the handover note.")
    t.decision("d8-handover", [
        P_state("unknown", "even after the re-sync, the outcome cannot be established", call_id=c_131),
        P_evidence([s_131, s_131to], "the lost dispatch and its timeout belong in the handover"),
        P_fact("ticket_id", "MT-40877", "the ticket the next shift must pick up"),
        P_constraint(s_only, "Not the whole fleet", "the handover must say only one robot was flashed"),
        P_fact("charge_dock", "DK-09", "the dock the low-battery robots were routed to"),
        P_fact("state", "open", "the zone was reopened after Dana's confirmation", subject="zone_id=RNO2-Z-C2",
               superseded=["closed"]),
    ])
    t.status_query(c_131, "unknown", detail="re-sync finished; no mission for AMR-131 with this request key, but "
                                            "the dispatch log for 22:09-22:12 was lost in the restart")
    t.asst("Handover, RNO2 night shift, 2025-02-27:\n- Spill C14-C18: closed 22:06, reopened after Dana "
           "confirmed dry. AMR-109 resumed M-5531207.\n- AMR-117: front-left bumper e-stop latched, fleet manager "
           "showed stale idle/82% (real battery 31%). Ticket MT-40877 (P2).\n- AMR-122: LOC_DRIFT, flashed to "
           "4.12.3 (irreversible), back on M-5533046. Rest of fleet NOT flashed.\n- AMR-131: dispatch at 22:09 "
           "timed out during the fleet-manager restart; status still unknown, no mission found after re-sync. "
           "Check the WMS for double-assigned lines before re-dispatching.\n- Charging: low-battery robots "
           "routed to DK-09; DK-06 is the faulty dock.\n- Wave W-0227-N3: 9 orders were blocked by the spill; "
           "inventory control was called about re-slotting.")
    return t
# --- t09 end ---


# --- t10 start ---
@trajectory
def t10_tax_filing() -> T:
    t = T(10, "tax-filing", "h3-tax-filing",
          "Tax season: documents in, a wage typo, a dependent's birth year corrected, e-file and a state payment",
          ["an IP PIN, a prior-year AGI and bank numbers typed once are needed at e-file time",
           "the W-2 import and the return disagree about wages (cross-tool contradiction)",
           "a dependent's corrected birth year changes the credit and must supersede the first one",
           "a dependent id returned by one call is used by a later update",
           "the federal e-file times out and is confirmed by status_query; the state one stays unknown",
           "approvals for transmitting the return and for a scheduled debit",
           "constraints typed once: refund by direct deposit only, do not apply it to next year",
           "a side topic (2025 estimated tax) and the return"],
          "A head-of-household filer prepares and e-files a 2024 federal and Colorado return with the assistant.")
    RET = "RET-2024-7F3K9Q"
    t.system("You are a tax preparation assistant working on the user's return in the filing software. "
             "Transmitting a return or scheduling a payment requires the user's explicit approval.")
    t.user("Hi! Let's do my 2024 taxes. I filed with you last year, so my info should be there.")
    c = t.call("tax_get_return", {"return_id": RET})
    t.result(c, result={
        "return_id": RET, "tax_year": 2024, "status": "in_progress", "created": "2025-02-28",
        "taxpayer": {"name": "Tomas Reyes", "ssn_last4": "4417", "dob": "1983-05-19", "occupation":
                     "mechanical engineer"},
        "filing_status": "head_of_household", "address": "2750 W 34th Ave, Denver, CO 80211",
        "dependents": [], "states": ["CO"],
        "carried_forward": {"prior_year_agi": None, "capital_loss_carryover": "0.00", "bank_on_file": None,
                            "note": "2023 return was filed on paper after e-file rejection; AGI not imported"},
        "documents_expected": ["W-2 (Halvorsen Dynamics Inc)", "1099-INT (Alpine Credit Union)",
                               "1099 composite (Fidelity)", "1098 (Mr. Cooper)"]})
    t.asst("Your 2024 return is started (RET-2024-7F3K9Q), head of household, Colorado as your state. Last year's "
           "return was filed on paper, so I don't have your 2023 AGI, which the IRS uses to verify your e-file "
           "signature. Expected documents: W-2 from Halvorsen Dynamics, a 1099-INT from Alpine Credit Union, the "
           "Fidelity composite 1099, and the 1098 from Mr. Cooper. Do you have those? You can upload them as PDFs "
           "or phone photos; I'll read them in and flag anything that doesn't line up. If anything changed in "
           "your household in 2024 (a move, a new dependent, marriage), tell me too, since it can change your "
           "filing status or credits.")
    t.user("Yes, I have all four, nothing changed in the household. Uploading the W-2 first (halvorsen_w2_2024.pdf). My 2023 AGI was $96,412. Oh, and the IRS sent "
           "me an Identity Protection PIN this year: 482913.")
    t.fact("prior_year_agi", "96412")
    t.fact("ip_pin", "482913")
    t.decision("d1-import-w2", [
        P_next("tax_import_document", {"return_id": RET}, "the return id came back from the first lookup"),
    ], note="early: everything still fits")
    c_w2 = t.call("tax_import_document", {"return_id": RET, "form": "W-2", "file": "halvorsen_w2_2024.pdf"})
    s_w2 = t.result(c_w2, result={
        "document_id": "DOC-W2-001", "form": "W-2", "ocr_confidence": 0.97,
        "employer": {"name": "Halvorsen Dynamics Inc", "ein": "84-2213907",
                     "address": "1400 Wazee St, Denver CO 80202"},
        "employee": {"name": "TOMAS REYES", "ssn_last4": "4417"},
        "boxes": {"1": "118450.00", "2": "15870.00", "3": "127450.00", "4": "7901.90", "5": "127450.00",
                  "6": "1848.03", "12a": "D 9000.00", "12b": "DD 11206.44", "12c": "W 1200.00",
                  "13": {"statutory": False, "retirement_plan": True, "third_party_sick": False},
                  "14": "CO FAMLI 509.80", "15": "CO 84-2213907", "16": "118450.00", "17": "4029.50"},
        "warnings": [],
        "ocr_text": "\n".join([
            "Form W-2 Wage and Tax Statement 2024  Copy B - To Be Filed With Employee's FEDERAL Tax Return",
            "a Employee's social security number XXX-XX-4417      OMB No. 1545-0008",
            "b Employer identification number (EIN) 84-2213907",
            "c Employer's name, address, and ZIP code  HALVORSEN DYNAMICS INC  1400 WAZEE ST  DENVER CO 80202",
            "d Control number 00412-HD-2024",
            "e/f Employee's name, address  TOMAS REYES  2750 W 34TH AVE  DENVER CO 80211",
            "1 Wages, tips, other compensation 118450.00      2 Federal income tax withheld 15870.00",
            "3 Social security wages 127450.00                4 Social security tax withheld 7901.90",
            "5 Medicare wages and tips 127450.00              6 Medicare tax withheld 1848.03",
            "7 Social security tips                           8 Allocated tips",
            "9                                                10 Dependent care benefits",
            "11 Nonqualified plans                            12a D 9000.00   12b DD 11206.44   12c W 1200.00",
            "13 Statutory employee [ ]  Retirement plan [X]  Third-party sick pay [ ]",
            "14 Other  CO FAMLI 509.80",
            "15 State CO  Employer's state ID 84-2213907   16 State wages 118450.00   17 State income tax 4029.50",
            "18 Local wages   19 Local income tax   20 Locality name",
            "Department of the Treasury - Internal Revenue Service"])})
    c = t.call("tax_get_return", {"return_id": RET, "section": "income"})
    s_inc = t.result(c, result={"return_id": RET, "income": {
        "wages": {"total": "118540.00", "sources": [{"document_id": "DOC-W2-001", "employer": "Halvorsen Dynamics Inc",
                                                    "box1": "118540.00", "box2": "15870.00"}]},
        "interest": "0.00", "dividends": "0.00", "capital_gains": "0.00"},
        "last_modified": "2025-02-28T19:22:51Z"})
    t.asst("The W-2 is in: federal withholding $15,870.00, Colorado wages and withholding $4,029.50, 401(k) "
           "deferral $9,000 (code D), HSA $1,200 (code W). But there's a mismatch: the import read box 1 wages as "
           "$118,450.00, while the return's income section shows $118,540.00 for the same W-2. One of those has "
           "transposed digits. Can you check box 1 on your paper W-2?")
    t.user("Box 1 says 118,450.00.")
    t.decision("d2-fix-wages", [
        P_evidence([s_w2, s_inc], "the two readings of box 1 must both be visible to fix the right one"),
        P_next("tax_update_field", {"return_id": RET, "document_id": "DOC-W2-001", "value": "118450.00"},
               "the W-2's document id came from the import"),
    ])
    c = t.call("tax_update_field", {"return_id": RET, "document_id": "DOC-W2-001", "field": "box1",
                                    "value": "118450.00"})
    t.result(c, result={"return_id": RET, "field": "w2[DOC-W2-001].box1", "old": "118540.00", "new": "118450.00",
                        "recalculated": True})
    t.asst("Fixed: box 1 is now $118,450.00 on the return, matching your paper W-2 and box 16 (Colorado "
           "wages). Next the 1099s and the 1098.")
    t.user("Quick one: what are the DD and the FAMLI lines on the W-2? Do I need to do anything with them?")
    t.asst("Neither changes your tax. Box 12 code DD ($11,206.44) is the total cost of your employer health "
           "plan, reported for information only. Box 14 'CO FAMLI $509.80' is your share of Colorado's paid "
           "family and medical leave premium; it isn't deductible on the federal or Colorado return, so it's "
           "informational too. The ones that matter are code D (your $9,000 401(k) deferral, already left out of "
           "box 1) and code W (HSA), which I'll come back to if the return needs Form 8889.")
    t.user("Here: alpine_1099int.pdf, fidelity_1099_composite_2024.pdf and mrcooper_1098.pdf.")
    c = t.call("tax_import_document", {"return_id": RET, "form": "1099-INT", "file": "alpine_1099int.pdf"})
    t.result(c, result={"document_id": "DOC-INT-001", "form": "1099-INT", "payer": "Alpine Credit Union",
                        "boxes": {"1": "412.33", "3": "0.00", "4": "0.00"}, "warnings": [],
                        "ocr_text": "\n".join([
                            "Form 1099-INT Interest Income 2024   PAYER: ALPINE CREDIT UNION, 1510 BLAKE ST, DENVER CO",
                            "80202   PAYER'S TIN 84-0412260   RECIPIENT: TOMAS REYES ...4417   Account ...7012 (savings)",
                            "1 Interest income $412.33   2 Early withdrawal penalty $0.00",
                            "3 Interest on U.S. Savings Bonds and Treasury obligations $0.00",
                            "4 Federal income tax withheld $0.00   8 Tax-exempt interest $0.00",
                            "Dividends on share accounts are reported as interest for credit unions."])})
    c = t.call("tax_import_document", {"return_id": RET, "form": "1099-B/DIV/INT composite",
                                       "file": "fidelity_1099_composite_2024.pdf"})
    sales = []
    total_lt = total_st = 0.0
    for i in range(14):
        long_term = i % 3 != 0
        proceeds = round(t.rng.uniform(800, 6000), 2)
        gain = round(t.rng.uniform(-300, 900) if long_term else t.rng.uniform(-400, 150), 2)
        if i == 13:
            gain = round(4380.10 - total_lt, 2) if long_term else round(-475.88 - total_st, 2)
        if long_term:
            total_lt += gain
        else:
            total_st += gain
        sym = t.rng.choice(["VTI", "VXUS", "FXAIX", "AAPL", "MSFT", "FZROX", "BND", "NVDA", "COST"])
        sales.append({"description": f"{t.rng.randint(3, 60)}.000 SH {sym}", "acquired":
                      f"20{t.rng.randint(18, 23) if long_term else 24}-{t.rng.randint(1, 12):02d}-{t.rng.randint(1, 28):02d}",
                      "sold": f"2024-{t.rng.randint(1, 12):02d}-{t.rng.randint(1, 28):02d}",
                      "proceeds": f"{proceeds:.2f}", "cost_basis": f"{proceeds - gain:.2f}",
                      "gain_loss": f"{gain:.2f}", "term": "long" if long_term else "short",
                      "basis_reported": True})
    st_fix = round(-475.88 - total_st, 2)
    if abs(st_fix) > 0.004:  # keep the totals exact: adjust the first short-term sale
        first_st = next(s for s in sales if s["term"] == "short")
        g = round(float(first_st["gain_loss"]) + st_fix, 2)
        first_st["gain_loss"] = f"{g:.2f}"
        first_st["cost_basis"] = f"{float(first_st['proceeds']) - g:.2f}"
    t.result(c, result={"document_id": "DOC-FID-001", "form": "1099 composite", "payer": "Fidelity Brokerage Services LLC",
                        "account_last4": "8830",
                        "1099-DIV": {"1a": "1286.40", "1b": "1102.15", "2a": "0.00", "7": "38.12",
                                     "7_country": "various"},
                        "1099-INT": {"1": "0.00"},
                        "1099-B": {"transactions": sales, "summary": {"short_term_gain": "-475.88",
                                                                      "long_term_gain": "4380.10",
                                                                      "net": "3904.22"}},
                        "warnings": ["foreign tax paid $38.12: claimed as credit without Form 1116 (under $300)"],
                        "supplemental": {"margin_interest_paid": "0.00", "advisory_fees": "0.00",
                                         "nondividend_distributions": "0.00", "section_199a_dividends": "0.00",
                                         "exempt_interest_dividends": "0.00",
                                         "note": "Supplemental information is not reported to the IRS."}})
    c = t.call("tax_import_document", {"return_id": RET, "form": "1098", "file": "mrcooper_1098.pdf"})
    t.result(c, result={"document_id": "DOC-1098-001", "form": "1098", "lender": "Mr. Cooper",
                        "boxes": {"1": "9812.44", "2": "312400.00", "3": "2019-06-14", "10": "property tax 3104.22"},
                        "warnings": [],
                        "ocr_text": "\n".join([
                            "Form 1098 Mortgage Interest Statement 2024   RECIPIENT/LENDER: MR. COOPER, PO BOX 619098,",
                            "DALLAS TX 75261-9741   RECIPIENT'S TIN 75-2921540   PAYER/BORROWER: TOMAS REYES",
                            "1 Mortgage interest received from payer(s)/borrower(s) $9,812.44",
                            "2 Outstanding mortgage principal $312,400.00   3 Mortgage origination date 06/14/2019",
                            "4 Refund of overpaid interest $0.00   5 Mortgage insurance premiums $0.00",
                            "6 Points paid on purchase of principal residence $0.00",
                            "7 [X] Address of property securing mortgage is the same as PAYER'S address",
                            "9 Number of properties securing the mortgage 1",
                            "10 Other: 2024 COUNTY PROPERTY TAX PAID FROM ESCROW $3,104.22   HAZARD INS $1,618.00",
                            "11 Mortgage acquisition date"])})
    t.asst("All three are in, and none needed manual fixes. Interest $412.33 from Alpine; Fidelity: ordinary dividends $1,286.40 ($1,102.15 "
           "qualified), $38.12 foreign tax, and 14 sales netting $3,904.22 (a $475.88 short-term loss, $4,380.10 "
           "long-term gain); mortgage interest $9,812.44 and property tax $3,104.22 from the 1098. Next: your "
           "dependent. Is your daughter still living with you?")
    t.user("Can you show me the capital gains detail? I thought I lost money on the NVDA sale.")
    c = t.call("tax_calculate", {"return_id": RET, "detail": "form_8949"})
    rows8949 = [f"{s_['description']:<22} {s_['acquired']}  {s_['sold']}  {s_['proceeds']:>9}  "
                f"{s_['cost_basis']:>9}  {s_['gain_loss']:>8}  {'A' if s_['term'] == 'short' else 'D'}"
                for s_ in sales]
    f8949 = "\n".join(["FORM 8949 (2024) - Sales and Other Dispositions of Capital Assets - Fidelity ...8830",
                        "Box A: short-term, basis reported to IRS | Box D: long-term, basis reported to IRS",
                        "(a) Description          (b) Acquired (c) Sold      (d) Proceeds (e) Basis  (h) Gain  Box"]
                       + rows8949 +
                       ["Totals Part I (short-term, box A)                                  -475.88",
                        "Totals Part II (long-term, box D)                                 4,380.10",
                        "Schedule D line 16: 3,904.22 net gain. No wash sales reported (box 1g = 0.00)."])
    t.result(c, result={"return_id": RET, "short_term": "-475.88", "long_term": "4380.10",
                        "form_8949_preview": f8949})
    nv = [s_ for s_ in sales if "NVDA" in s_["description"]]
    if nv:
        t.asst(f"Here's the 8949 detail. The NVDA sale on {nv[0]['sold']} shows {nv[0]['gain_loss']} "
               f"({nv[0]['term']}-term). Overall: short-term sales lost $475.88 and long-term sales gained "
               "$4,380.10, net $3,904.22. Fidelity reported the basis for all of them and no wash sales.")
    else:
        t.asst("Here's the 8949 detail. There's no NVDA sale in the 2024 composite, so whatever you sold must "
               "have been in another year or account. Overall: short-term sales lost $475.88 and long-term "
               "sales gained $4,380.10, net $3,904.22, all with basis reported and no wash sales.")
    t.user("Yes, Lucia Reyes, my daughter, born March 2008, lives with me full time. SSN ends 2290.")
    s_by1 = t.fact("birth_year", 2008, subject={"dependent": "Lucia Reyes"})
    c = t.call("tax_add_dependent", {"return_id": RET, "name": "Lucia Reyes", "relationship": "daughter",
                                     "dob": "2008-03-11", "ssn_last4": "2290", "months_lived_with": 12})
    t.result(c, result={"dependent_id": "DEP-01", "name": "Lucia Reyes", "age_end_of_year": 16,
                        "qualifies_for": ["child_tax_credit", "head_of_household"], "credit_amount": "2000.00"})
    c = t.call("tax_calculate", {"return_id": RET})
    t.result(c, result={"return_id": RET, "agi": "124052.95", "deduction": {"type": "standard",
                                                                            "amount": "21900.00",
                                                                            "itemized_would_be": "12916.66"},
                        "taxable_income": "102153.00", "total_tax": "15482.30", "credits": "2038.12",
                        "withholding": "15870.00", "refund": "2425.82", "amount_owed": "0.00"})
    t.asst("Lucia is added as your daughter who lived with you all 12 months (age 16 at the end of 2024), so you "
           "get the $2,000 child tax credit and keep head of "
           "household. First calculation: AGI $124,052.95, standard deduction $21,900 (itemizing would only be "
           "$12,916.66), taxable income $102,153, tax $15,482.30, credits $2,038.12 (child credit plus the foreign "
           "tax), withholding $15,870.00: federal refund $2,425.82.")
    t.user("Are you sure the standard deduction is better? I pay a lot of mortgage interest.")
    c = t.call("tax_calculate", {"return_id": RET, "detail": "schedule_a_comparison"})
    sch_a = "\n".join([
        "SCHEDULE A (2024) - COMPARISON ONLY - not elected",
        "Medical and dental expenses (above 7.5% of AGI: 9,303.97)                      0.00",
        "5a State and local income taxes (W-2 box 17 + 2023 CO balance paid 2024)   4,029.50",
        "5b State and local real estate taxes (Form 1098 box 10)                     3,104.22",
        "5c Personal property taxes (vehicle ownership tax, Denver)                    418.00",
        "5e Total SALT, limited to 10,000                                           7,551.72",
        "8a Home mortgage interest (Form 1098)                                      9,812.44",
        "11 Gifts by cash or check (none entered)                                       0.00",
        "12 Other than cash or check                                                    0.00",
        "17 TOTAL ITEMIZED DEDUCTIONS                                              17,364.16",
        "Standard deduction, head of household 2024                               21,900.00",
        "Difference in favour of the standard deduction                            4,535.84",
        "To make itemizing worthwhile you would need about $4,536 more in deductible expenses",
        "(for example charitable gifts); the SALT cap does not bind at your level."])
    t.result(c, result={"return_id": RET, "itemized_total": "17364.16", "standard": "21900.00",
                        "better": "standard", "schedule_a_preview": sch_a})
    t.asst("Yes. Itemized, you'd have $9,812.44 mortgage interest plus $7,551.72 of state and local taxes "
           "(income tax withheld, property tax and the vehicle ownership tax), $17,364.16 in total. The head of "
           "household standard deduction is $21,900, about $4,536 more. (My first number, $12,916.66, counted "
           "only the mortgage interest and property tax; this one is complete.) Standard stays.")
    s_dd = t.user("Nice. Refund by direct deposit please, never a paper check, and don't apply any of it to next "
                  "year's taxes. Routing 102001017, checking account 4471190028.")
    c = t.call("tax_bank_verify", {"routing_number": "102001017"})
    t.result(c, result={"routing_number": "102001017", "valid": True, "bank": "ALPINE CREDIT UNION",
                        "city": "DENVER, CO", "ach": True})
    c = t.call("tax_update_field", {"return_id": RET, "field": "refund.direct_deposit",
                                    "value": {"routing": "102001017", "account": "4471190028", "type": "checking",
                                              "apply_to_2025_es": "0.00"}})
    t.result(c, result={"return_id": RET, "field": "refund.direct_deposit", "new": "checking ...0028 at ALPINE "
                                                                                    "CREDIT UNION", "recalculated": False})
    t.asst("Direct deposit is set: routing 102001017 is Alpine Credit Union in Denver (ACH-capable), checking "
           "ending 0028, and $0 applied to 2025 estimated tax. The name on the account has to match yours, or the "
           "IRS mails a paper check instead, so make sure it isn't a joint account in someone else's name only.")
    t.user("Oh no, wait. I just looked at her passport. Lucia was born in March 2007, not 2008. Sorry!")
    t.correction("birth_year", 2007, supersedes=s_by1, subject={"dependent": "Lucia Reyes"})
    t.decision("d3-birth-year", [
        P_fact("birth_year", 2007, "the passport corrects the year the user first gave", superseded=[2008]),
        P_next("tax_update_field", {"return_id": RET, "dependent_id": "DEP-01"},
               "the dependent's id came back from the add call"),
    ])
    c = t.call("tax_update_field", {"return_id": RET, "dependent_id": "DEP-01", "field": "dob",
                                    "value": "2007-03-11"})
    t.result(c, result={"return_id": RET, "field": "dependents[DEP-01].dob", "old": "2008-03-11",
                        "new": "2007-03-11", "recalculated": True,
                        "effects": [{"item": "age_end_of_year", "from": 16, "to": 17},
                                    {"item": "child_tax_credit", "from": "2000.00", "to": "0.00"},
                                    {"item": "credit_for_other_dependents", "from": "0.00", "to": "500.00"},
                                    {"item": "head_of_household", "from": "qualifies", "to": "qualifies"}]})
    c = t.call("tax_calculate", {"return_id": RET, "detail": "form_1040"})
    f1040 = "\n".join([
        "FORM 1040 (2024) - PREVIEW - Reyes, Tomas - head of household - 1 dependent (other dependent)",
        "1a   Wages (W-2 box 1)                                       118,450.00",
        "1z   Total wages                                             118,450.00",
        "2a   Tax-exempt interest                        0.00",
        "2b   Taxable interest                                            412.33",
        "3a   Qualified dividends                    1,102.15",
        "3b   Ordinary dividends                                        1,286.40",
        "7    Capital gain (Schedule D)                                 3,904.22",
        "9    Total income                                            124,052.95",
        "10   Adjustments (Schedule 1)                                      0.00",
        "11   Adjusted gross income                                   124,052.95",
        "12   Standard deduction (head of household)                   21,900.00",
        "13   Qualified business income deduction                           0.00",
        "15   Taxable income                                          102,153.00",
        "16   Tax (Qualified Dividends and Capital Gain Tax Worksheet)  15,482.30",
        "19   Child tax credit / credit for other dependents (Sch 8812)    500.00",
        "20   Schedule 3, line 8 (foreign tax credit)                      38.12",
        "22   Tax after credits                                        14,944.18",
        "24   Total tax                                                14,944.18",
        "25a  Federal income tax withheld (W-2)                        15,870.00",
        "33   Total payments                                           15,870.00",
        "34   Overpaid                                                    925.82",
        "35a  Refunded to you (direct deposit, checking ...0028)          925.82",
        "36   Applied to 2025 estimated tax                                 0.00",
        "37   Amount you owe                                                0.00",
        "Schedule D: ST (box A) -475.88; LT (box D) 4,380.10; line 16 3,904.22; no carryover",
        "Schedule B: Part I Alpine Credit Union 412.33; Part II Fidelity 1,286.40; Part III foreign accounts: No",
        "Schedule 8812: line 4 (qualifying children under 17) 0; line 6 (other dependents) 1 x 500 = 500"])
    t.result(c, result={"return_id": RET, "agi": "124052.95", "taxable_income": "102153.00",
                        "total_tax": "14944.18", "withholding": "15870.00", "refund": "925.82",
                        "amount_owed": "0.00", "form_1040_preview": f1040})
    t.asst("That changes things: Lucia turned 17 in 2024, so she no longer counts for the $2,000 child tax credit. "
           "You get the $500 credit for other dependents instead, and you still qualify as head of household. "
           "The federal refund drops from $2,425.82 to $925.82. Here's the updated 1040 preview: total tax "
           "$14,944.18 after credits, withholding $15,870.00, refund $925.82 to checking ...0028.")
    t.user("That's a lot less than last year. What else changed compared to 2023?")
    c = t.call("tax_get_return", {"return_id": RET, "section": "prior_year_comparison"})
    cmp_ = "\n".join([
        "YEAR-OVER-YEAR COMPARISON (2023 figures entered from the paper return copy)",
        "LINE                                   2023           2024        CHANGE",
        "Wages                               109,870.00     118,450.00     +8,580.00",
        "Interest                                 96.10         412.33       +316.23",
        "Dividends (ordinary)                    904.77       1,286.40       +381.63",
        "Capital gain (loss)                  -1,420.00       3,904.22     +5,324.22",
        "AGI                                  96,412.00     124,052.95    +27,640.95",
        "Standard deduction (HOH)             20,800.00      21,900.00     +1,100.00",
        "Taxable income                       75,612.00     102,153.00    +26,541.00",
        "Tax before credits                   10,171.00      15,482.30     +5,311.30",
        "Child tax credit / ODC                2,000.00         500.00     -1,500.00",
        "Total tax                             8,171.00      14,944.18     +6,773.18",
        "Withholding                          11,905.00      15,870.00     +3,965.00",
        "Refund                                3,734.00         925.82     -2,808.18",
        "Main drivers: higher wages and investment income (+$27.6k AGI pushes more income into the 22%",
        "bracket), a capital gain instead of a loss, and the child tax credit ending at age 17."])
    t.result(c, result={"return_id": RET, "comparison_text": cmp_, "refund_2023": "3734.00"})
    t.asst("Compared with 2023 (AGI $96,412, refund $3,734), three things moved: your income rose by about "
           "$27,600 (a raise of $8,580, more interest and dividends, and a $3,904 capital gain after last year's "
           "$1,420 loss), which puts more of it in the 22% bracket; the child tax credit fell from $2,000 to $500 "
           "because Lucia turned 17; and your withholding went up by less than your tax did.")
    t.user("Do I still count as head of household if she's 17?")
    c = t.call("tax_get_return", {"return_id": RET, "section": "filing_status_interview"})
    hoh = "\n".join([
        "FILING STATUS CHECK - HEAD OF HOUSEHOLD (2024) - answers on file",
        "1. Unmarried or considered unmarried on 12/31/2024 .............................. YES (single)",
        "2. Paid more than half the cost of keeping up a home for the year ................ YES",
        "   Home costs entered: mortgage interest 9,812.44; property tax 3,104.22; insurance 1,618.00;",
        "   utilities 3,420.00; repairs 1,150.00; food eaten in the home 7,800.00. Taxpayer share: 100%",
        "3. A qualifying person lived with you for more than half the year .................. YES",
        "   Qualifying person: Lucia Reyes (daughter), DOB 2007-03-11, age 17 at 12/31/2024",
        "   Test: qualifying child (relationship: daughter; age: under 19 at year end; residency: 12 months;",
        "   support: did not provide over half of own support; joint return: no) ................... PASS",
        "4. Qualifying person is not claimed as a dependent by anyone else .................. YES (asserted)",
        "RESULT: Head of household - QUALIFIES",
        "Note: the child tax credit requires the child to be under 17 at year end; a 17-year-old",
        "qualifying child still qualifies you for head of household and for the $500 credit for other",
        "dependents (Schedule 8812 line 6). Lucia will remain a qualifying child for HOH through the year",
        "she turns 18 (2025), and through age 23 if she is a full-time student."])
    t.result(c, result={"return_id": RET, "filing_status": "head_of_household", "qualifies": True,
                        "interview_text": hoh})
    t.asst("Yes. Head of household needs a qualifying person who lived with you over half the year, and a "
           "qualifying child for that test can be up to 18 (or 23 if a full-time student). The 'under 17' limit "
           "only applies to the child tax credit. The software re-ran the check with her 2007 birth date and you "
           "pass: single, paid all of the home's costs, Lucia lived with you all 12 months. For 2025 she still "
           "counts for head of household.")
    t.user("Ugh, okay. Side question before we finish: I started doing freelance design work in January. Do I "
           "need to pay estimated taxes for 2025?")
    t.topic_switch("2024 return", "2025 estimated tax")
    c = t.call("tax_calculate", {"return_id": RET, "scenario": "2025_estimates",
                                 "assumptions": {"self_employment_net": "18000.00", "wages": "122000.00"}})
    es = "\n".join([
        "2025 ESTIMATED TAX WORKSHEET (Form 1040-ES) - scenario, not filed",
        "Assumptions: wages $122,000 (W-2 withholding at 2024 rate ~$16,350); SE net profit $18,000",
        "1  Adjusted gross income expected (after 1/2 SE tax deduction)     139,728.00",
        "2  Standard deduction (HOH 2025)                                    22,500.00",
        "3  QBI deduction (20% of qualified business income, est.)            3,345.00",
        "4  Taxable income                                                   113,883.00",
        "6  Tax                                                               17,910.00",
        "7  Credits (other dependents)                                          500.00",
        "9  Self-employment tax (15.3% x 92.35% x 18,000)                     2,543.32",
        "11 Total 2025 tax (estimate)                                        19,953.32",
        "12a 90% of line 11                                                   17,957.99",
        "12b 100% of 2024 tax (AGI <= 150,000)                                14,944.18",
        "12c Required annual payment (smaller of 12a/12b)                    14,944.18",
        "13 Withholding expected                                             16,350.00",
        "14 Balance (12c - 13)                                                    0.00",
        "Result: withholding alone meets the safe harbor (100% of 2024 tax). No estimated payments are",
        "required to avoid the underpayment penalty, but about $3,600 would be due at filing in April 2026."])
    t.result(c, result={"scenario": "2025_estimates", "required_estimated_payments": "0.00",
                        "projected_balance_due_2026": "3603.32", "worksheet": es})
    t.asst("Short answer: you don't have to. Your expected 2025 withholding (~$16,350) already covers 100% of "
           "your 2024 tax ($14,944.18), which is the safe harbor, so there's no underpayment penalty. But with "
           "$18,000 of freelance profit you'd owe about $3,600 when you file next April (income tax plus ~$2,543 "
           "of self-employment tax). Paying quarterly or raising your W-4 withholding would spread that out.")
    t.user("How much extra per paycheck should I put on the W-4 to cover that? I'm paid every two weeks.")
    c = t.call("tax_calculate", {"return_id": RET, "scenario": "w4_2025",
                                 "assumptions": {"pay_periods": 26, "target_balance": "0.00",
                                                 "self_employment_net": "18000.00"}})
    w4 = "\n".join([
        "2025 FORM W-4 ESTIMATOR - scenario",
        "Current withholding per period (from 2024 W-2, box 2 / 26):              610.38",
        "Projected 2025 withholding at current W-4:                            16,350.00",
        "Projected 2025 total tax (income tax + SE tax):                       19,953.32",
        "Gap to cover:                                                           3,603.32",
        "Pay periods remaining after 2025-03-14:                                        20",
        "Step 4(c) extra withholding per period (3,603.32 / 20, rounded up):        181.00",
        "Alternative: Step 4(a) other income $18,000 (W-4 computes ~ $179/period)",
        "Alternative: quarterly 1040-ES payments of $901 (Jun 16, Sep 15, Jan 15; first due Apr 15: $901)",
        "Colorado: add ~ $38/period to DR 0004 line 3 to cover 4.25% on the freelance profit."])
    t.result(c, result={"scenario": "w4_2025", "step_4c_per_period": "181.00", "worksheet": w4})
    t.asst("About $181 extra per paycheck on line 4(c) of your W-4, if the change takes effect in mid-March (20 "
           "paychecks left). For Colorado, add about $38 per paycheck on the DR 0004. Alternatively, pay roughly "
           "$901 a quarter with 1040-ES vouchers. The W-4 route is simpler and withholding counts as paid evenly "
           "through the year, even if you only raise it in March. Keep your freelance invoices and expenses "
           "together for Schedule C next year.")
    t.user("Good to know, I'll bump my W-4 by $181 and the Colorado one by $38 on Monday. Back to 2024: let's "
           "look at Colorado. I want to make sure I'm not leaving anything on the table there, last year I owed "
           "them a bit too.")
    t.topic_switch("2025 estimated tax", "2024 return")
    c = t.call("tax_calculate", {"return_id": RET, "jurisdiction": "CO", "detail": "dr0104"})
    co = "\n".join([
        "COLORADO DR 0104 (2024) - PREVIEW - Reyes, Tomas",
        "1   Federal taxable income                                  102,153",
        "2   State addback (none)                                          0",
        "10  Subtractions (DR 0104AD): Colorado 529 contributions         0",
        "11  Colorado taxable income                                 102,153",
        "3   Subtotal                                                102,153",
        "4   State income tax refund (none)                                0",
        "5   U.S. government interest (none)                               0",
        "6   Pension/annuity subtraction (none)                            0",
        "12  Colorado tax (4.25%)                                      4,341.50",
        "13  Alternative minimum tax                                       0.00",
        "14  Recapture of prior-year credits                               0.00",
        "15  Nonrefundable credits (DR 0104CR)                             0.00",
        "16  Net Colorado tax                                          4,341.50",
        "20  Colorado income tax withheld (W-2 box 17)                  4,029.50",
        "33  TABOR refund (sales tax refund, cash)                          0.00 (claimed via 2024 TABOR 6-tier?)",
        "36  Amount you owe                                              312.00",
        "Note: Colorado FAMLI premium (W-2 box 14 $509.80) is not deductible."])
    t.result(c, result={"jurisdiction": "CO", "co_taxable_income": "102153", "co_tax": "4341.50",
                        "co_withholding": "4029.50", "amount_owed": "312.00", "dr0104_preview": co})
    c = t.call("tax_diagnostics", {"return_id": RET})
    t.result(c, result={"return_id": RET, "errors": [
        {"code": "FED-E-8889", "message": "W-2 box 12 code W (HSA contributions 1,200.00) requires Form 8889. "
                                          "Enter any HSA distributions (Form 1099-SA) or confirm none.",
         "blocks_efile": True}], "warnings": [], "ready_to_file": False})
    t.asst("Colorado: taxable income $102,153 at 4.25% is $4,341.50, withholding $4,029.50, so you owe $312.00 "
           "by April 15. But diagnostics found one blocking error: your W-2 shows $1,200 of HSA contributions, "
           "so the return needs Form 8889, including any money you took out of the HSA in 2024. Did you use the "
           "HSA last year? If so you should have a 1099-SA from the HSA custodian.")
    t.user("Yes, I paid $640 for Lucia's orthodontist from it. Here's the 1099-SA: hsa_bank_1099sa_2024.pdf.")
    c = t.call("tax_import_document", {"return_id": RET, "form": "1099-SA", "file": "hsa_bank_1099sa_2024.pdf"})
    t.result(c, result={"document_id": "DOC-SA-001", "form": "1099-SA", "payer": "HSA Bank",
                        "boxes": {"1": "640.00", "2": "0.00", "3": "1", "5": "HSA"}, "warnings": [],
                        "form_8889_preview": "\n".join([
                            "FORM 8889 (2024) Health Savings Accounts - Tomas Reyes",
                            "1  Coverage type: family (HDHP with dependent)                        [X] family",
                            "2  HSA contributions you made (not through employer)                  0.00",
                            "3  Contribution limit (family, 2024)                              8,300.00",
                            "9  Employer contributions (W-2 box 12 code W)                     1,200.00",
                            "13 HSA deduction                                                      0.00",
                            "14a Total distributions (1099-SA box 1)                             640.00",
                            "15 Qualified medical expenses paid (orthodontia, dependent)         640.00",
                            "16 Taxable HSA distributions                                        0.00",
                            "17b Additional 20% tax                                              0.00",
                            "Part III: no testing-period failures."])})
    c = t.call("tax_diagnostics", {"return_id": RET})
    t.result(c, result={"return_id": RET, "errors": [], "warnings": [
        {"code": "FED-W-1116", "message": "Foreign tax credit claimed without Form 1116 (election under $300)",
         "action": "none"},
        {"code": "FED-W-ESIG", "message": "E-signature: prior-year AGI or prior-year PIN required",
         "action": "enter at transmission", "explanation": "Use the AGI from your original 2023 return (Form "
                                                           "1040 line 11). If the 2023 return was processed late, "
                                                           "the IRS may expect 0 instead; a mismatch rejects "
                                                           "with IND-031-04."},
        {"code": "FED-W-IPPIN", "message": "IRS records show an Identity Protection PIN for the primary "
                                           "taxpayer; the return will reject without it (IND-181-01)",
         "action": "enter at transmission", "explanation": "A new IP PIN is issued every January; use the "
                                                           "one from the 2025 letter (CP01A) or your IRS online "
                                                           "account. Dependents with their own IP PIN need it "
                                                           "entered on the dependent screen."},
        {"code": "CO-W-TABOR", "message": "Check TABOR sales tax refund eligibility (DR 0104CR)",
         "action": "review", "explanation": "Full-year residents 18+ receive the TABOR sales tax refund on "
                                            "the return; the amount depends on AGI tier. Part-year residents "
                                            "and dependents must claim it on DR 0104CR. Confirm no one claims you "
                                            "as a dependent and you lived in Colorado all of 2024."},
        {"code": "FED-I-8812", "message": "Schedule 8812: dependent is 17 at year end; child tax credit not "
                                          "allowed, credit for other dependents applied", "action": "none"},
        {"code": "FED-I-DD", "message": "Direct deposit: account verified by routing lookup; name on account "
                                        "must match the return or the refund is mailed as a check",
         "action": "confirm"},
        {"code": "CO-I-BAL", "message": "Colorado balance due 312.00; pay by 2025-04-15 to avoid interest",
         "action": "schedule payment"}],
        "ready_to_file": True})
    t.asst("Form 8889 is complete: $1,200 employer contributions, $640 distributed and all of it used for "
           "qualified medical expenses, so nothing is taxable. Diagnostics now show no errors. Warnings: the e-signature needs your prior-year AGI, the IRS "
           "requires your IP PIN or the return rejects (IND-181-01), the foreign-tax election is fine, and the "
           "Colorado TABOR refund needs a look: full-year residents get the TABOR sales tax refund "
           "automatically on the return, and only part-year residents or people claimed as someone's dependent "
           "have to file the separate DR 0104CR. The return is ready to transmit.")
    t.user("Wait, I put $2,500 into Lucia's CollegeInvest 529 last year. Doesn't Colorado let you deduct that? "
           "It shows zero.")
    c = t.call("tax_update_field", {"return_id": RET, "jurisdiction": "CO", "field": "dr0104ad.529_contributions",
                                    "value": "2500.00"})
    t.result(c, result={"return_id": RET, "field": "CO.dr0104ad.line_15", "old": "0.00", "new": "2500.00",
                        "recalculated": True, "limit_check": "within 2024 cap of 25,400 per beneficiary"})
    c = t.call("tax_calculate", {"return_id": RET, "jurisdiction": "CO", "detail": "dr0104"})
    co2 = "\n".join([
        "COLORADO DR 0104 (2024) - PREVIEW - Reyes, Tomas (recalculated)",
        "1   Federal taxable income                                  102,153",
        "10  Subtractions (DR 0104AD line 15: CollegeInvest 529)       2,500",
        "11  Colorado taxable income                                  99,653",
        "12  Colorado tax (4.25%)                                      4,235.25",
        "16  Net Colorado tax                                          4,235.25",
        "20  Colorado income tax withheld (W-2 box 17)                  4,029.50",
        "36  Amount you owe                                              205.75"])
    t.result(c, result={"jurisdiction": "CO", "co_taxable_income": "99653", "co_tax": "4235.25",
                        "co_withholding": "4029.50", "amount_owed": "205.75", "dr0104_preview": co2})
    t.asst("It does: Colorado lets you subtract 529 contributions (up to $25,400 per beneficiary for 2024). With "
           "the $2,500 subtraction your Colorado taxable income is $99,653, tax $4,235.25, so you owe $205.75 "
           "instead of $312.00.")
    t.user("The TABOR thing: I got the regular TABOR refund on my 2023 return, nothing special. Leave it. Give "
           "me a one-page summary of everything before I file.")
    c = t.call("tax_get_return", {"return_id": RET, "section": "summary"})
    summ = "\n".join([
        f"RETURN SUMMARY {RET} - tax year 2024 - prepared 2025-02-28",
        "Taxpayer: Tomas Reyes (SSN ...4417)  Filing status: head of household  Address: Denver CO 80211",
        "Dependent: Lucia Reyes (daughter, ...2290), born 2007-03-11, 12 months - other dependent ($500)",
        "INCOME: wages 118,450.00 (Halvorsen Dynamics Inc, W-2 box 1 corrected from 118,540.00)",
        "        interest 412.33 (Alpine CU) | dividends 1,286.40 ordinary / 1,102.15 qualified (Fidelity)",
        "        capital gain 3,904.22 (14 sales, Fidelity ...8830) | total income 124,052.95",
        "ADJUSTMENTS: none. AGI 124,052.95",
        "DEDUCTION: standard 21,900.00 (itemized 17,364.16). Taxable income 102,153.00",
        "TAX: 15,482.30 | credits: other dependents 500.00, foreign tax 38.12 | total tax 14,944.18",
        "PAYMENTS: federal withholding 15,870.00 | REFUND 925.82 -> direct deposit checking ...0028",
        "          (routing 102001017 ALPINE CREDIT UNION); applied to 2025: 0.00",
        "COLORADO: taxable 99,653 (529 subtraction 2,500) | tax 4,235.25 | withheld 4,029.50 | OWED 205.75",
        "E-FILE: federal and CO ready. Signature: self-select PIN with 2023 AGI; IRS IP PIN required.",
        "DOCUMENTS: DOC-W2-001, DOC-INT-001, DOC-FID-001, DOC-1098-001, DOC-SA-001 (all expected received)",
        "FORMS: 1040, Sch 1, Sch 3, Sch B, Sch D, 8949 (x2), 8812, 8889; CO DR 0104, DR 0104AD",
        "OPEN WARNINGS: CO-W-TABOR (reviewed by taxpayer: no special TABOR claim)"])
    t.result(c, result={"return_id": RET, "refund": "925.82", "co_amount_owed": "205.75", "summary_text": summ})
    t.asst("Here's the summary: AGI $124,052.95, standard deduction, taxable income $102,153, total federal tax "
           "$14,944.18 after the $500 other-dependent credit and $38.12 foreign tax credit. Federal refund $925.82 "
           "by direct deposit to checking ...0028, nothing applied to 2025. Colorado owes $205.75 after the 529 "
           "subtraction. All four documents are in and the W-2 wage typo is fixed.")
    t.user("Looks right. The only thing I wasn't sure about was the foreign tax, but $38 is nothing. File the "
           "federal now, then we'll do Colorado.")
    t.decision("d4-efile-federal", [
        P_next("tax_efile_submit", {"return_id": RET, "ip_pin": "482913", "prior_year_agi": "96412"},
               "both identity values were typed once, near the start of the session"),
        P_fact("refund", "925.82", "the refund after the birth-year correction is what the user is filing for",
               superseded=["2425.82"]),
        P_constraint(s_dd, "never a paper check", "the refund must go by direct deposit"),
        P_fact("birth_year", 2007, "the return being filed must carry the corrected year", superseded=[2008]),
    ])
    c_fed = t.call("tax_efile_submit", {"return_id": RET, "jurisdiction": "federal", "ip_pin": "482913",
                                        "prior_year_agi": "96412", "signature": "self_select_pin",
                                        "refund": {"method": "direct_deposit", "amount": "925.82"}})
    s_fed = t.cseq(c_fed)
    t.approval("apr-efile-fed", "requested", s_fed)
    t.asst("Ready to transmit the federal return: refund $925.82 by direct deposit to checking ...0028, signed "
           "with your 2023 AGI and IP PIN. Once transmitted it can't be recalled; changes would need an amended "
           "return. Approve?")
    t.user("Approved.")
    t.approval("apr-efile-fed", "granted", s_fed)
    s_fedto = t.timeout(c_fed, "transmission gateway: no acknowledgement of receipt within 60 s")
    t.asst("The transmission timed out before the gateway confirmed it received the return. That doesn't mean it "
           "failed: the return may have reached the IRS gateway and the confirmation got lost on the way back. "
           "I'll check before anything else, because sending it twice gets the second copy rejected as a "
           "duplicate (IND-510), and that rejection can confuse the acknowledgement of the first one.")
    t.user("Did it go through or not?")
    t.decision("d5-efile-unknown", [
        P_state("unknown", "the transmission's outcome is not known after the timeout", call_id=c_fed),
        P_pending("the federal transmission has no definitive answer yet", call_id=c_fed),
        P_evidence([s_fed, s_fedto], "the irreversible call and its timeout must both be visible"),
    ])
    t.status_query(c_fed, "succeeded", request_id="tx-fed-9d02b7", submission_id="84471220250597k3m2qx",
                   received_at="2025-02-28T20:41:13Z", ack_status="pending",
                   manifest={"forms": ["1040", "Schedule 1", "Schedule 3", "Schedule B", "Schedule D", "8949",
                                       "8949", "8812", "8889"], "binary_attachments": 0, "size_bytes": 48211})
    t.asst("It went through once: the IRS gateway received it at 20:41 UTC, submission ID 84471220250597k3m2qx, "
           "with all nine forms (1040, Schedules 1, 3, B, D, two 8949s, 8812 and 8889). The electronic postmark "
           "counts as your filing date. The IRS acknowledgement (accepted or rejected) usually takes 24-48 "
           "hours; I'll check it tomorrow.")
    t.user("Now Colorado, and schedule its payment for April 15 from the same checking account.")
    t.decision("d6-state-and-payment", [
        P_next("tax_schedule_payment", {"return_id": RET, "amount": "205.75", "routing_number": "102001017",
                                        "account_number": "4471190028"},
               "the bank numbers were typed once, much earlier; the amount is the one after the 529 subtraction"),
        P_fact("amount_owed", "205.75", "the Colorado balance after the 529 subtraction", superseded=["312.00"],
               subject="jurisdiction=CO"),
        P_state("succeeded", "the federal transmission is confirmed", call_id=c_fed, request_id="tx-fed-9d02b7"),
        P_fact("submission_id", "84471220250597k3m2qx", "the federal submission id for the acknowledgement check"),
    ])
    c_st = t.call("tax_efile_submit", {"return_id": RET, "jurisdiction": "CO", "signature": "self_select_pin",
                                       "payment": "scheduled_separately"})
    s_st = t.cseq(c_st)
    t.approval("apr-efile-co", "requested", s_st)
    c_pay = t.call("tax_schedule_payment", {"return_id": RET, "jurisdiction": "CO", "amount": "205.75",
                                            "date": "2025-04-15", "routing_number": "102001017",
                                            "account_number": "4471190028", "account_type": "checking"})
    s_pay = t.cseq(c_pay)
    t.approval("apr-co-pay", "requested", s_pay)
    t.asst("Two approvals: (1) transmit the Colorado return; (2) a $205.75 debit from checking ...0028 on April "
           "15, 2025 to the Colorado Department of Revenue (scheduled debits can be cancelled until 2 business "
           "days before). Approve both?")
    s_ask = t.user("Both approved. And please don't let it resend on its own if something times out again, ask me "
                   "first.")
    t.approval("apr-efile-co", "granted", s_st)
    t.approval("apr-co-pay", "granted", s_pay)
    t.result(c_pay, request_id="tx-pay-co-51e0", result={"payment_id": "COPAY-7731904", "amount": "205.75",
                                                         "debit_date": "2025-04-15", "status": "scheduled"})
    s_stto = t.timeout(c_st, "Colorado DOR gateway: connection reset after request sent")
    t.status_query(c_st, "unknown", detail="state gateway has no record yet; Colorado receipts can lag up to 2 hours")
    t.asst("The $205.75 payment is scheduled for April 15 (COPAY-7731904); you can cancel it until two business "
           "days before if you decide to pay another way. The Colorado transmission, though, "
           "failed mid-request after it was sent, and the state gateway has no record of it yet. Colorado "
           "receipts can lag up to 2 hours. I'll hold off on resending.")
    t.user("OK, I'll check back tomorrow morning. Thanks for catching the 529 thing and the HSA form.")
    t.asst("Sounds good. Tomorrow I'll look for the IRS acknowledgement and whether Colorado received the return.")
    t.system("Session resumed 2025-03-01 09:10 MST.")
    t.user("Morning! Did the IRS accept it?")
    c = t.call("tax_efile_status", {"submission_id": "84471220250597k3m2qx"})
    t.result(c, result={"submission_id": "84471220250597k3m2qx", "jurisdiction": "federal", "ack_status": "accepted",
                        "accepted_at": "2025-03-01T06:12:40Z", "refund_expected": "925.82",
                        "refund_method": "direct_deposit", "irs_messages": [],
                        "ack_detail": "Return accepted. Where's My Refund updates within 24 hours of acceptance; "
                                      "most e-filed refunds with direct deposit are issued in under 21 days.",
                        "ack_record": {"efin": "844712", "submission_category": "IND", "tax_period": "202412",
                                       "electronic_postmark": "2025-02-28T13:41:10-07:00",
                                       "forms": ["1040", "Schedule 1", "Schedule 3", "Schedule B", "Schedule D",
                                                 "Form 8949 (2)", "Schedule 8812", "Form 8889"],
                                       "ip_pin_validated": True, "signature_validated": "prior-year AGI match",
                                       "dependent_checks": [{"ssn_last4": "2290", "result": "pass"}],
                                       "refund_offset_indicator": False}})
    t.asst("Yes: accepted at 06:12 UTC today. The IRS validated your IP PIN and matched your 2023 AGI for the "
           "signature, and Lucia's SSN check passed. Your $925.82 refund goes to checking ...0028; direct-deposit "
           "refunds usually arrive within 21 days, and 'Where's My Refund' on irs.gov should show it from "
           "tomorrow. No offset indicator, so nothing will be taken for other debts.")
    t.user("Great! And Colorado? Anything else still open?")
    t.decision("d7-wrapup", [
        P_state("unknown", "the Colorado transmission has never been confirmed", call_id=c_st),
        P_pending("it has no definitive answer", call_id=c_st),
        P_fact("ack_status", "accepted", "the IRS acknowledgement replaced the pending status",
               superseded=["pending"]),
        P_state("succeeded", "the Colorado payment is scheduled", call_id=c_pay, request_id="tx-pay-co-51e0"),
        P_evidence([s_st, s_stto], "the state call and its connection reset decide whether to resend"),
        P_constraint(s_ask, "ask me", "no automatic resend of the state return without asking"),
    ])
    c = t.call("tax_get_return", {"return_id": RET, "section": "filing"})
    t.result(c, result={"return_id": RET, "filing": {
        "federal": {"submission_id": "84471220250597k3m2qx", "ack": "accepted"},
        "CO": {"submission_id": None, "transmissions": [{"sent": "2025-02-28T20:55:02Z",
                                                          "result": "no_ack_received"}]},
        "payments": [{"payment_id": "COPAY-7731904", "jurisdiction": "CO", "amount": "205.75",
                      "debit_date": "2025-04-15"}]}})
    t.asst("The IRS accepted your federal return overnight (06:12 UTC): $925.82 to checking ...0028, usually "
           "within 21 days. Colorado is still unknown: the software recorded one transmission but never got a "
           "submission ID or acknowledgement back, and the state gateway has no record. Before resending, I'd "
           "check Colorado's Revenue Online 'Where's my return' later today, since a second transmission could be "
           "rejected as a duplicate. The $205.75 payment is scheduled for April 15 either way.")
    t.user("OK, I'll look at Revenue Online tonight. How long should I keep all these documents?")
    t.asst("Keep the return and everything behind it for at least three years from the filing date (the normal "
           "IRS audit window), so until spring 2028: the W-2, 1099-INT, the Fidelity composite, the 1098, the "
           "1099-SA with the orthodontist receipts for the $640, the CollegeInvest 529 contribution statement for "
           "Colorado, and this year's acknowledgement. Keep the Fidelity cost-basis records for any shares you "
           "still own for as long as you own them plus three years, and home improvement "
           "records until you sell the house, since they add to its basis. If you resend the Colorado return "
           "after checking tonight, keep that confirmation too.")
    return t
# --- t10 end ---


# --- t11 start ---
@trajectory
def t11_podcast_pipeline() -> T:
    t = T(11, "podcast-pipeline", "h3-podcast-pipeline",
          "Podcast publishing: upload, loudness job that trims too much, transcript chapters, ads, scheduled publish",
          ["a file path, an episode id and a campaign id are needed many turns after they appear",
           "the file probe and the processing job disagree about the duration (cross-tool contradiction)",
           "a transcription job times out and is confirmed by status_query; an ad-insertion call stays unknown",
           "a guest's surname is corrected and must supersede the first spelling",
           "an ad-placement constraint (no mid-roll in the first 10 minutes) typed once",
           "an irreversible publish is approved after a question",
           "a side topic (last month's downloads) and the return"],
          "A producer takes an interview episode from master WAV to a scheduled public release.")
    SHOW = "shw_4QK2M9"
    EP = "ep_8Z1TQ4"
    MASTER = "/Volumes/Studio/FNG/ep87/FNG087_master_v3.wav"
    t.system("You are the publishing assistant for the podcast 'Field Notes from the Grid' on the hosting platform. "
             "Publishing to the public feed cannot be undone (directories cache episodes within minutes).")
    t.user("Hey, episode 87 is done. It's the interview with Dr. Imani Okoro about the transformer shortage, we "
           "recorded it over two sessions and Priya finished the edit last night. I want it out Tuesday morning "
           "with chapters, a transcript and the Voltline sponsorship. Can you check the show's episode list "
           "first, I think I made a draft for it already.")
    s_name = t.fact("guest_name", "Dr. Imani Okoro")
    c = t.call("pod_list_episodes", {"show_id": SHOW, "limit": 20, "order": "desc"})
    eps = [{"episode_id": EP, "number": 87, "title": "Draft: Okoro interview", "status": "draft",
            "audio": None, "created_at": "2025-02-24T16:20:11Z"}]
    topics = ["Heat pumps in cold climates", "Inside a grid control room", "Interconnection queues explained",
              "Who pays for wildfire risk?", "The battery recycling gap", "Transmission lines and NIMBYs",
              "Virtual power plants", "Nuclear restarts", "What a blackout costs", "Hydrogen hype check",
              "Rate cases for normal people", "Data centers and the grid", "Geothermal's second act",
              "Storm hardening in Florida", "EV charging deserts", "Line workers' stories",
              "Demand response in Texas", "Offshore wind setbacks", "The substation nobody wanted"]
    ids_by_number = {}
    for i, title in enumerate(topics):
        n = 86 - i
        ids_by_number[n] = f"ep_{t.alnum(6)}"
        eps.append({"episode_id": ids_by_number[n], "number": n, "title": title, "status": "published",
                    "published_at": f"2025-{max(1, 2 - i // 4):02d}-{28 - (i * 7) % 27:02d}T10:00:00Z",
                    "duration": f"{t.rng.randint(38, 66)}:{t.rng.randint(0, 59):02d}",
                    "downloads_30d": t.rng.randint(1800, 9400)})
    t.result(c, result={"show_id": SHOW, "show_title": "Field Notes from the Grid", "episodes": eps,
                        "next_cursor": "c_" + t.alnum(10)})
    t.asst(f"Yes, there's a draft for #87 ({EP}, 'Draft: Okoro interview', created Feb 24, no audio yet). The "
           "last published one is #86, 'Heat pumps in cold climates'.")
    t.user(f"Great. The master is at {MASTER}. Check it before uploading, I exported it in a hurry.")
    c = t.call("fs_stat", {"path": MASTER, "probe": True})
    s_probe = t.result(c, result={
        "path": MASTER, "size_bytes": 1317734400, "modified": "2025-02-27T23:48:02-05:00",
        "probe": {"format": "wav", "codec": "pcm_s24le", "sample_rate": 48000, "channels": 2,
                  "bit_depth": 24, "duration": "01:02:13.41", "bitrate_kbps": 2304,
                  "loudness": {"integrated_lufs": -19.2, "true_peak_dbtp": -0.4, "lra_lu": 7.8},
                  "silence": [{"start": "00:00:00.00", "end": "00:00:02.10"},
                              {"start": "00:03:41.80", "end": "00:03:46.35", "note": "pause before cold open ends"},
                              {"start": "01:02:10.90", "end": "01:02:13.41"}]},
        "ffprobe_text": "\n".join([
            "Input #0, wav, from 'FNG087_master_v3.wav':",
            "  Metadata:",
            "    encoded_by      : Pro Tools",
            "    originator_reference: aaOs7M4jT0Vk",
            "    date            : 2025-02-27",
            "    creation_time   : 23:47:51",
            "    time_reference  : 172800000",
            "    coding_history  : A=PCM,F=48000,W=24,M=stereo,T=Avid Pro Tools",
            "  Duration: 01:02:13.41, bitrate: 2304 kb/s",
            "  Stream #0:0: Audio: pcm_s24le ([1][0][0][0] / 0x0001), 48000 Hz, 2 channels, s32 (24 bit), 2304 kb/s",
            "[Parsed_ebur128_0] Summary:",
            "  Integrated loudness:",
            "    I:         -19.2 LUFS",
            "    Threshold: -29.4 LUFS",
            "  Loudness range:",
            "    LRA:         7.8 LU",
            "    Threshold: -39.3 LUFS",
            "    LRA low:   -24.1 LUFS",
            "    LRA high:  -16.3 LUFS",
            "  True peak:",
            "    Peak:       -0.4 dBFS",
            "[silencedetect] silence_start: 0 | silence_end: 2.1 | silence_duration: 2.1",
            "[silencedetect] silence_start: 221.8 | silence_end: 226.35 | silence_duration: 4.55",
            "[silencedetect] silence_start: 3730.9 | silence_end: 3733.41 | silence_duration: 2.51"])})
    t.asst("The master looks fine: 24-bit/48 kHz stereo WAV, 1:02:13, integrated loudness -19.2 LUFS with a true "
           "peak of -0.4 dBTP. That's quieter than the usual -16 LUFS for podcasts, and the peak is too hot for "
           "MP3 encoding, so the platform's loudness job should normalize it. There's a deliberate-looking 4.5 s "
           "pause at 3:41, after the cold open.")
    t.user("Yes the pause is on purpose. Upload it to the draft.")
    t.decision("d1-upload", [
        P_next("pod_upload_audio", {"episode_id": EP, "file": MASTER},
               "the draft's id came from the episode list and the path from the user's earlier message"),
    ], note="early: everything still fits")
    c = t.call("pod_upload_audio", {"episode_id": EP, "file": MASTER})
    t.result(c, request_id="up-31f09c", result={"episode_id": EP, "audio_id": "aud_M87RAW01", "bytes": 1317734400,
                                                "checksum_md5": t.hexid(32), "status": "stored"})
    c_tc1 = t.call("pod_transcode", {"episode_id": EP, "audio_id": "aud_M87RAW01", "preset": "podcast_stereo_128",
                                     "loudness_target_lufs": -16, "true_peak_dbtp": -1.0, "trim_silence": True})
    t.result(c_tc1, result={"job_id": "job_TC_5521", "episode_id": EP, "state": "queued"})
    t.asst("Uploaded (aud_M87RAW01, 1.32 GB, checksum verified) and started the loudness/encoding job "
           "job_TC_5521 with the show's usual preset: stereo MP3 at 128 kb/s, -16 LUFS integrated, -1 dBTP "
           "ceiling, with the preset's default silence trim. It usually takes about four minutes for an hour of "
           "audio.")
    t.user("Let me know when it's done.")
    c = t.call("pod_job_status", {"job_id": "job_TC_5521", "include_log": True})
    log = ["[00:00:00] job job_TC_5521 started on worker enc-7 (ffmpeg 6.1.1)",
           "[00:00:00] input aud_M87RAW01: wav pcm_s24le 48000 Hz stereo 01:02:13.41",
           "[00:00:01] pass 1/2 loudnorm analysis: I=-16:TP=-1.0:LRA=11",
           "[00:01:52] pass 1 measured: input_i=-19.21 input_tp=-0.41 input_lra=7.80 input_thresh=-29.42",
           "[00:01:52] pass 1 target_offset=+0.18",
           "[00:01:53] silenceremove: stop_periods=-1 stop_duration=1.5 stop_threshold=-50dB (preset default)"]
    clock = 113
    for i in range(1, 14):
        clock += t.rng.randint(6, 11)
        log.append(f"[00:{clock // 60:02d}:{clock % 60:02d}] pass 2 encode progress {i * 7}% speed="
                   f"{t.rng.uniform(38, 44):.1f}x size={i * 4.4:.1f}MB")
    log += ["[00:03:41] silenceremove removed 212.6 s in 31 segments (longest 48.2 s at 00:41:07)",
            "[00:03:42] pass 2 output: mp3 128 kb/s 44100 Hz stereo, duration 00:58:41.08",
            "[00:03:42] output measured: I=-16.02 TP=-1.03 LRA=6.9",
            "[00:03:43] ID3v2.4 tags written (title, artist, album, TRCK=87, APIC 3000x3000)",
            "[00:03:44] stored aud_M87ENC01 (56.4 MB); job complete"]
    s_job = t.result(c, result={"job_id": "job_TC_5521", "state": "completed", "output_audio_id": "aud_M87ENC01",
                                "output_duration": "00:58:41.08", "log": "\n".join(log)})
    t.asst("Done, but the output is only 58:41, while your master is 1:02:13. The silence trim removed 212.6 s in "
           "31 places; the longest cut was 48 s at 41:07.")
    t.user("What? There's no 48 seconds of silence at 41 minutes, that's when Imani reads the inspection report "
           "really quietly. Why is it shorter?")
    t.decision("d2-too-short", [
        P_evidence([s_probe, s_job], "the probe's duration and the job's output duration are the contradiction"),
        P_next("pod_transcode", {"episode_id": EP, "audio_id": "aud_M87RAW01"},
               "a redo must start from the raw upload's id, not the trimmed output"),
    ])
    t.asst("It's the preset's silence trim. It removes anything below -50 dB lasting more than 1.5 s, and her "
           "quiet reading at 41:07 sits right around that level, so the job treated 48 s of speech as silence. "
           "It also cut 30 other pauses, very likely including your deliberate one at 3:41, and those pauses add "
           "up to the other 2.7 minutes. The file probe of your master shows only three real silences (2.1 s at "
           "the start, 4.5 s at 3:41 and 2.5 s at the end). The fix is to re-run the job from the raw upload "
           "(aud_M87RAW01) with trimming off; loudness normalization alone keeps the full 1:02:13.")
    t.user("Yes, redo it without trimming. Never trim silence on this show.")
    s_notrim = t.seq
    c = t.call("pod_transcode", {"episode_id": EP, "audio_id": "aud_M87RAW01", "preset": "podcast_stereo_128",
                                 "loudness_target_lufs": -16, "true_peak_dbtp": -1.0, "trim_silence": False})
    t.result(c, result={"job_id": "job_TC_5522", "episode_id": EP, "state": "queued"})
    c = t.call("pod_job_status", {"job_id": "job_TC_5522", "include_log": True})
    log2 = ["[00:00:00] job job_TC_5522 started on worker enc-3 (ffmpeg 6.1.1)",
            "[00:00:00] input aud_M87RAW01: wav pcm_s24le 48000 Hz stereo 01:02:13.41",
            "[00:00:01] pass 1/2 loudnorm analysis: I=-16:TP=-1.0:LRA=11",
            "[00:01:49] pass 1 measured: input_i=-19.21 input_tp=-0.41 input_lra=7.80 input_thresh=-29.42",
            "[00:01:50] silenceremove: disabled"]
    clock = 110
    for i in range(1, 14):
        clock += t.rng.randint(6, 11)
        log2.append(f"[00:{clock // 60:02d}:{clock % 60:02d}] pass 2 encode progress {i * 7}% speed="
                    f"{t.rng.uniform(38, 44):.1f}x")
    log2 += ["[00:03:51] pass 2 output: mp3 128 kb/s 44100 Hz stereo, duration 01:02:13.39",
             "[00:03:51] output measured: I=-16.01 TP=-1.02 LRA=7.6",
             "[00:03:52] ID3v2.4 tags written", "[00:03:52] stored aud_M87ENC02 (59.8 MB); job complete"]
    t.result(c, result={"job_id": "job_TC_5522", "state": "completed", "output_audio_id": "aud_M87ENC02",
                        "output_duration": "01:02:13.39", "log": "\n".join(log2)})
    t.asst("Redone without trimming: job_TC_5522 produced aud_M87ENC02, 1:02:13 (the 0.02 s difference is the MP3 "
           "frame padding), -16.0 LUFS integrated, -1.0 dBTP, loudness range 7.6 LU, so her quiet passages keep "
           "their dynamics. Nothing was removed, your pause at 3:41 included. I'll never enable silence trimming "
           "for this show, and the earlier trimmed file aud_M87ENC01 won't be used anywhere.")
    t.user("Good. Now get a transcript going, I want chapters from it.")
    c_tr = t.call("pod_transcribe", {"episode_id": EP, "audio_id": "aud_M87ENC02", "language": "en",
                                     "speakers": 2, "vocabulary": ["Okoro", "NERC", "FERC", "kVA", "GSU"]})
    s_tr = t.cseq(c_tr)
    t.timeout(c_tr, "POST /v2/episodes/{id}/transcripts: 504 after 30 s")
    t.asst("The transcription request timed out. Jobs like this are idempotent on the platform, so I'll check "
           "whether it was created before starting another.")
    t.status_query(c_tr, "succeeded", request_id="tr-7c33d1", job_id="job_TR_8840", transcript_id="trn_87A",
                   state="completed", words=9412)
    c = t.call("pod_job_status", {"job_id": "job_TR_8840", "include": ["transcript_excerpt"],
                                  "range": "00:00:00-00:31:00"})
    segs = [("00:00:02", "HOST", "This is Field Notes from the Grid. I'm Sam Adeyemi."),
            ("00:00:31", "HOST", "Cold open: a substation in Kansas waited 4 years for one transformer."),
            ("00:03:46", "HOST", "My guest is Dr. Imani Okoro, who studies power equipment supply chains."),
            ("00:05:12", "GUEST", "Large power transformers are built to order, mostly overseas, and lead times "
                                  "went from about a year to three or four."),
            ("00:09:40", "GUEST", "Grain-oriented electrical steel is the bottleneck. There's one domestic "
                                  "producer."),
            ("00:14:02", "HOST", "Let's talk about distribution transformers, the ones on poles."),
            ("00:16:55", "GUEST", "Utilities are hoarding, which makes the shortage worse for small co-ops."),
            ("00:21:30", "HOST", "What did the DOE efficiency rule change?"),
            ("00:24:10", "GUEST", "The final rule let manufacturers keep using GOES for most units..."),
            ("00:27:48", "HOST", "Is refurbishment a real option?"),
            ("00:30:15", "GUEST", "For some units, yes. Rewinding a GSU takes months but beats waiting years.")]
    excerpt = "\n".join(f"[{ts}] {sp}: {tx} " + " ".join(t.rng.choice(
        ["you know,", "so", "and", "right,", "the", "I mean", "basically", "which is", "on the", "of"])
        for _ in range(28)) for ts, sp, tx in segs)
    t.result(c, result={"job_id": "job_TR_8840", "transcript_id": "trn_87A", "range": "00:00:00-00:31:00",
                        "excerpt": excerpt})
    c = t.call("pod_job_status", {"job_id": "job_TR_8840", "include": ["transcript_excerpt"],
                                  "range": "00:31:00-01:02:13"})
    segs2 = [("00:33:20", "HOST", "Who's actually building new factories?"),
             ("00:36:05", "GUEST", "Three announced US plants, but they won't ship before 2027."),
             ("00:41:07", "GUEST", "(reading quietly) 'Unit T3, core ground test failed, oil DGA shows acetylene'..."),
             ("00:45:30", "HOST", "What does that inspection report mean for a utility?"),
             ("00:49:12", "GUEST", "Spare sharing programs like STEP are underused."),
             ("00:53:40", "HOST", "Listener question: should I worry about my neighborhood?"),
             ("00:57:02", "GUEST", "Mostly no, but storm recovery can be slower now."),
             ("01:00:31", "HOST", "Dr. Okoro, thank you. Next week: grid batteries. Thanks for listening.")]
    excerpt2 = "\n".join(f"[{ts}] {sp}: {tx} " + " ".join(t.rng.choice(
        ["you know,", "so", "and", "right,", "the", "I mean", "basically", "which is", "on the", "of"])
        for _ in range(28)) for ts, sp, tx in segs2)
    t.result(c, result={"job_id": "job_TR_8840", "transcript_id": "trn_87A", "range": "00:31:00-01:02:13",
                        "excerpt": excerpt2})
    t.asst("The transcription did go through after all (job_TR_8840, transcript trn_87A, 9,412 words). I read "
           "both halves; natural chapter points: 0:00 cold open, 3:46 introducing Dr. Okoro, 5:12 why lead times "
           "exploded, 9:40 electrical steel, 14:02 pole transformers, 21:30 the DOE rule, 27:48 refurbishing, "
           "33:20 new factories, 41:07 the inspection report, 49:12 spare sharing, 53:40 listener question, "
           "1:00:31 outro.")
    t.user("Perfect, use those. Title: 'Why you can't buy a transformer'. Put the chapters and a short description "
           "on the episode.")
    t.decision("d3-chapters", [
        P_state("succeeded", "the timed-out transcription was confirmed by the status query", call_id=c_tr,
                request_id="tr-7c33d1"),
        P_next("pod_update_episode", {"episode_id": EP, "audio_id": "aud_M87ENC02"},
               "the untrimmed encode's id must be the episode's audio"),
        P_constraint(s_notrim, "Never trim silence", "no processing step may trim again"),
        P_fact("output_duration", "01:02:13.39", "the untrimmed encode keeps the full length",
               subject="job_id=job_TC_5522"),
    ])
    chapters = [("00:00:00", "Cold open"), ("00:03:46", "Meet Dr. Imani Okoro"),
                ("00:05:12", "Why lead times exploded"), ("00:09:40", "The electrical steel bottleneck"),
                ("00:14:02", "Pole transformers and hoarding"), ("00:21:30", "The DOE efficiency rule"),
                ("00:27:48", "Refurbish or wait?"), ("00:33:20", "New factories"),
                ("00:41:07", "Reading an inspection report"), ("00:49:12", "Spare sharing"),
                ("00:53:40", "Listener question"), ("01:00:31", "Outro")]
    desc = ("Utilities are waiting up to four years for new power transformers. Dr. Imani Okoro explains why "
            "lead times exploded, why electrical steel is the choke point, and what refurbishment and spare "
            "sharing can do in the meantime.")
    c = t.call("pod_update_episode", {"episode_id": EP, "title": "Why you can't buy a transformer",
                                      "audio_id": "aud_M87ENC02", "description": desc,
                                      "chapters": [{"start": a, "title": b} for a, b in chapters],
                                      "guest": "Dr. Imani Okoro"})
    t.result(c, result={"episode_id": EP, "title": "Why you can't buy a transformer", "audio_id": "aud_M87ENC02",
                        "duration": "01:02:13", "chapters": [{"index": i + 1, "start": a, "title": b}
                                                             for i, (a, b) in enumerate(chapters)],
                        "guest": "Dr. Imani Okoro", "status": "draft", "updated_at": "2025-02-28T15:02:19Z"})
    t.asst("Updated the draft: title, description, 12 chapters, guest Dr. Imani Okoro, audio aud_M87ENC02 "
           "(1:02:13).")
    notes = "\n".join([
        "Links and sources from this episode:",
        "- DOE final rule on distribution transformer efficiency (April 2024): https://www.energy.gov/eere/buildings/"
        "distribution-transformers",
        "- NREL, 'Major Drivers of Long-Term Distribution Transformer Demand' (2024): https://www.nrel.gov/docs/"
        "fy24osti/87653.pdf",
        "- Wood Mackenzie, 'Supply shortages and an inflexible market give rise to high power transformer lead "
        "times' (2024)",
        "- NERC Spare Equipment Database and the STEP program: https://www.nerc.com/pa/RAPA/Pages/SpareEquipmentDatabase.aspx",
        "- APPA statement on transformer supply (2023)",
        "- Our episode #70, 'Storm hardening in Florida', for the restoration side of this story",
        "",
        "Corrections policy: if we got something wrong, write to corrections@fieldnotesgrid.fm.",
        "Field Notes from the Grid is listener-supported: https://fieldnotesgrid.fm/support",
        "Produced and hosted by Sam Adeyemi. Editing by Priya Lal. Music: 'Ohm Sweet Ohm' by Dot Matrix.",
        "Transcript: available on the episode page."])
    t.user("Add the show notes too, here they are:\n" + notes)
    c = t.call("pod_update_episode", {"episode_id": EP, "show_notes": notes, "show_notes_format": "markdown"})
    t.result(c, result={"episode_id": EP, "show_notes_chars": len(notes), "links_detected": 4,
                        "link_check": [{"url": "https://www.energy.gov/eere/buildings/distribution-transformers",
                                        "status": 200},
                                       {"url": "https://www.nrel.gov/docs/fy24osti/87653.pdf", "status": 200},
                                       {"url": "https://www.nerc.com/pa/RAPA/Pages/SpareEquipmentDatabase.aspx",
                                        "status": 301, "redirect": "https://www.nerc.com/pa/RAPA/Pages/default.aspx"},
                                       {"url": "https://fieldnotesgrid.fm/support", "status": 200}]})
    t.asst("Show notes added. Link check: three resolve fine; the NERC Spare Equipment Database link now "
           "redirects to the general RAPA page, so you may want a more specific link there.")
    t.user("Leave it. Artwork: I made a custom square for this one, /Volumes/Studio/FNG/ep87/art_87.png.")
    c = t.call("fs_stat", {"path": "/Volumes/Studio/FNG/ep87/art_87.png", "probe": True})
    t.result(c, result={"path": "/Volumes/Studio/FNG/ep87/art_87.png", "size_bytes": 9123840,
                        "probe": {"format": "png", "width": 4000, "height": 4000, "color": "rgba", "bit_depth": 16,
                                  "icc_profile": "Display P3", "has_alpha": True}})
    t.asst("The artwork is 4000x4000, a 16-bit RGBA PNG in Display P3, 9.1 MB. Apple wants 1400-3000 px, RGB "
           "(no transparency), sRGB, under 512 KB ideally. The platform can convert it: 3000x3000 sRGB JPEG at "
           "about 90% quality. Should I?")
    t.user("Yes, convert it and attach.")
    c = t.call("pod_update_episode", {"episode_id": EP, "artwork": {"source": "/Volumes/Studio/FNG/ep87/art_87.png",
                                                                    "convert": {"format": "jpeg", "size": 3000,
                                                                                "colorspace": "srgb",
                                                                                "flatten_alpha": "#ffffff",
                                                                                "quality": 90}}})
    t.result(c, result={"episode_id": EP, "artwork": {"url": "https://cdn.example-host.fm/art/ep_8Z1TQ4_3000.jpg",
                                                      "width": 3000, "height": 3000, "bytes": 486112,
                                                      "format": "jpeg", "colorspace": "srgb"}})
    t.asst("Attached: 3000x3000 sRGB JPEG, 486 KB, transparency flattened onto white.")
    t.user("Before the ads: in the listener question part, did she say 2027 or 2028 for the new factories? I want "
           "the notes to be right.")
    c = t.call("pod_job_status", {"job_id": "job_TR_8840", "include": ["transcript_excerpt"],
                                  "range": "00:35:50-00:37:30"})
    fine = "\n".join([
        "[00:35:52] HOST: So if a co-op orders today, when does it actually get one?",
        "[00:36:05] GUEST: Three announced US plants, but they won't ship before 2027. Two are expansions of "
        "existing lines, one is greenfield in Virginia, and the greenfield one says 2028 for full output.",
        "[00:36:31] HOST: So 2027 for the first units, 2028 before it really helps.",
        "[00:36:38] GUEST: Right. And that's for distribution units. For large power transformers, the big "
        "substation ones, you're still mostly importing, from Korea, Mexico, Germany.",
        "[00:37:02] HOST: What does a co-op do in the meantime?",
        "[00:37:09] GUEST: Honestly? Call their neighbors. Spare sharing, refurbishment, buying used units with a "
        "proper test report. And planning further ahead than anyone ever had to."])
    t.result(c, result={"job_id": "job_TR_8840", "transcript_id": "trn_87A", "range": "00:35:50-00:37:30",
                        "excerpt": fine})
    t.asst("Both, in a way: at 36:05 she says the new US plants won't ship before 2027, and the greenfield plant in "
           "Virginia expects full output in 2028. You summarize it at 36:31 as '2027 for the first units, 2028 "
           "before it really helps'. So '2027 for first shipments' is accurate.")
    t.user("Good. Also make a 60-second clip from the inspection report reading for social.")
    c = t.call("pod_transcode", {"episode_id": EP, "audio_id": "aud_M87RAW01", "preset": "social_clip_audiogram",
                                 "clip": {"start": "00:41:07", "duration_s": 60}, "trim_silence": False,
                                 "loudness_target_lufs": -14})
    t.result(c, result={"job_id": "job_CL_0193", "episode_id": EP, "state": "queued"})
    c = t.call("pod_job_status", {"job_id": "job_CL_0193", "include_log": True})
    clog = ["[00:00:00] job job_CL_0193 started on worker enc-5 (ffmpeg 6.1.1, audiogram renderer 2.4)",
            "[00:00:00] input aud_M87RAW01 seek 00:41:07.000 duration 60.000 s",
            "[00:00:01] silenceremove: disabled",
            "[00:00:01] loudnorm single pass I=-14 TP=-1.0 (clip preset)",
            "[00:00:03] measured clip input_i=-27.80 (quiet passage) gain +13.8 dB, limiter engaged 14 times",
            "[00:00:04] waveform render 1080x1920 @30fps, captions from trn_87A (speaker GUEST)",
            "[00:00:21] caption burn-in: 11 lines, font Inter SemiBold 54px",
            "[00:00:38] encode h264 high 4.1 crf 20 + aac 160k",
            "[00:00:41] stored vid_CL0193 (9.7 MB) 1080x1920 60.0 s; job complete",
            "[00:00:41] warning: high gain applied to quiet source; check for noise floor on headphones"]
    t.result(c, result={"job_id": "job_CL_0193", "state": "completed", "output_video_id": "vid_CL0193",
                        "log": "\n".join(clog)})
    t.asst("Clip done: vid_CL0193, 60 s vertical 1080x1920 audiogram with captions, cut from the raw master so "
           "nothing was trimmed. The passage is very quiet, so the job raised it by 13.8 dB; give it a listen on "
           "headphones for background hiss.")
    t.user("Just listened. Yeah, there's hiss. Can you run noise reduction on the clip only?")
    c = t.call("pod_transcode", {"episode_id": EP, "audio_id": "aud_M87RAW01", "preset": "social_clip_audiogram",
                                 "clip": {"start": "00:41:07", "duration_s": 60}, "trim_silence": False,
                                 "loudness_target_lufs": -14, "denoise": {"model": "rnnoise", "mix": 0.8}})
    t.result(c, result={"job_id": "job_CL_0194", "episode_id": EP, "state": "queued"})
    c = t.call("pod_job_status", {"job_id": "job_CL_0194", "include_log": True})
    t.result(c, result={"job_id": "job_CL_0194", "state": "completed", "output_video_id": "vid_CL0194",
                        "log": "\n".join([
                            "[00:00:00] job job_CL_0194 started on worker enc-5",
                            "[00:00:00] input aud_M87RAW01 seek 00:41:07.000 duration 60.000 s",
                            "[00:00:01] silenceremove: disabled",
                            "[00:00:01] arnndn model=rnnoise mix=0.80 (noise floor before: -58.1 dBFS)",
                            "[00:00:02] noise floor after denoise: -71.4 dBFS",
                            "[00:00:03] loudnorm single pass I=-14 TP=-1.0; gain +13.6 dB",
                            "[00:00:22] waveform render 1080x1920 @30fps, captions from trn_87A",
                            "[00:00:40] stored vid_CL0194 (9.6 MB); job complete"])})
    t.asst("New clip vid_CL0194: noise reduction on the clip only (the episode audio is untouched), noise floor "
           "down from -58 to -71 dBFS before the gain, so the hiss should be gone. Use vid_CL0194 instead of "
           "vid_CL0193.")
    s_ads = t.user("Now the sponsor. Voltline's campaign is cmp_77Q1VL. Pre-roll, plus one mid-roll. No mid-roll "
                   "in the first 10 minutes though, and never in the middle of her answers.")
    t.asst("Got it. A mid-roll at 21:30, at the start of your DOE question (a host turn, 21 minutes in), would fit. "
           "OK?")
    t.user("Hmm, let me think about where. Quick side thing first: how did last month's episodes do?")
    t.topic_switch("episode 87", "download stats")
    c = t.call("pod_list_episodes", {"show_id": SHOW, "published_after": "2025-01-01", "include": ["stats"]})
    stats_rows = []
    for i, title in enumerate(topics[:8]):
        stats_rows.append({"number": 86 - i, "title": title, "downloads_7d": t.rng.randint(900, 4200),
                           "downloads_30d": t.rng.randint(2600, 9400), "completion_rate": round(
                               t.rng.uniform(0.48, 0.81), 2), "top_apps": {"apple": round(t.rng.uniform(0.41, 0.55), 2),
                                                                           "spotify": round(t.rng.uniform(0.25, 0.38), 2),
                                                                           "overcast": round(t.rng.uniform(0.04, 0.09), 2)},
                           "avg_listen_min": t.rng.randint(24, 44)})
    t.result(c, result={"show_id": SHOW, "period": "2025-01-01..2025-02-28", "episodes": stats_rows,
                        "show_totals": {"downloads_30d": 38112, "unique_listeners_30d": 14880,
                                        "subscribers_est": 11200},
                        "geo_30d": [{"country": "US", "share": 0.71}, {"country": "CA", "share": 0.08},
                                    {"country": "GB", "share": 0.06}, {"country": "AU", "share": 0.03},
                                    {"country": "DE", "share": 0.02}, {"country": "other", "share": 0.10}],
                        "referrers_30d": [{"source": "apple_podcasts", "share": 0.47},
                                          {"source": "spotify", "share": 0.31}, {"source": "overcast", "share": 0.06},
                                          {"source": "pocket_casts", "share": 0.05}, {"source": "web_player",
                                                                                      "share": 0.04},
                                          {"source": "other", "share": 0.07}],
                        "note": "IAB 2.2 certified counting; bot traffic filtered"})
    best = max(stats_rows, key=lambda r: r["downloads_30d"])
    t.asst(f"Since January: 38,112 downloads in the last 30 days across the show, about 14,900 unique listeners. "
           f"The best performer is #{best['number']} '{best['title']}' with {best['downloads_30d']:,} downloads in 30 "
           "days; completion rates range from about 50% to 80%, and listeners average half an hour.")
    t.user("Should we start putting it on YouTube too? People keep asking.")
    t.asst("Probably worth trying. YouTube is now one of the biggest podcast platforms, and your audience skews "
           "Apple/Spotify, so it would mostly be new listeners. The cheap version is a static-artwork video with "
           "chapters as YouTube timestamps; the audiogram clips work as Shorts. The main cost is a separate upload "
           "and description per episode, and YouTube downloads aren't counted in your IAB stats. I can't publish "
           "to YouTube from here, though.")
    t.user("Nice. OK back to 87. Actually, big correction: her name is Okonjo, not Okoro. She e-mailed me, I had "
           "it wrong in my notes. Fix it everywhere.")
    t.topic_switch("download stats", "episode 87")
    t.correction("guest_name", "Dr. Imani Okonjo", supersedes=s_name)
    t.decision("d4-name", [
        P_fact("guest_name", "Dr. Imani Okonjo", "the corrected spelling replaces the one on the episode",
               superseded=["Dr. Imani Okoro"]),
        P_next("pod_update_episode", {"episode_id": EP}, "the draft's id from the start of the session"),
    ])
    desc2 = desc.replace("Okoro", "Okonjo")
    c = t.call("pod_update_episode", {"episode_id": EP, "guest": "Dr. Imani Okonjo", "description": desc2,
                                      "chapters": [{"start": a, "title": b.replace("Okoro", "Okonjo")}
                                                   for a, b in chapters]})
    t.result(c, result={"episode_id": EP, "guest": "Dr. Imani Okonjo", "chapters": 12, "status": "draft",
                        "updated_at": "2025-02-28T15:20:44Z"})
    c = t.call("pod_update_episode", {"episode_id": EP, "transcript_id": "trn_87A",
                                      "transcript_replace": {"Okoro": "Okonjo"}})
    spots = ["00:03:46", "00:21:28", "00:41:02", "00:53:38", "01:00:31", "01:00:44"]
    t.result(c, result={"episode_id": EP, "transcript_id": "trn_87A", "replacements": 6, "changes": [
        {"at": ts, "before": f"...{ctx} Dr. Okoro{tail}", "after": f"...{ctx} Dr. Okonjo{tail}"}
        for ts, ctx, tail in zip(spots, ["My guest is", "Let me ask you,", "Reading from the report,",
                                         "Here's a question for", "So thank you,", "That was"],
                                 [", who studies power equipment supply chains.", ", about the DOE rule.",
                                  " reads the report aloud.", " from a listener in Ohio.", ", this was great.",
                                  " on Field Notes from the Grid."])]})
    t.asst("Fixed everywhere: guest name, description, chapter 2 ('Meet Dr. Imani Okonjo') and 6 places in the "
           "transcript. The audio itself says 'Okoro' three times, of course; that would need a re-record.")
    t.user("She said the audio is fine, she's used to it. OK, put the ads in: pre-roll and the mid-roll at 21:30 "
           "like you said.")
    t.decision("d5-ads", [
        P_next("pod_insert_ad", {"episode_id": EP, "campaign_id": "cmp_77Q1VL", "position": "00:21:30"},
               "the campaign id was typed once, before the side topic"),
        P_constraint(s_ads, "No mid-roll in the first 10 minutes", "the mid-roll must respect the user's rule"),
    ])
    c_ad = t.call("pod_insert_ad", {"episode_id": EP, "campaign_id": "cmp_77Q1VL",
                                    "markers": [{"type": "pre-roll"}, {"type": "mid-roll", "position": "00:21:30"}]})
    s_ad = t.cseq(c_ad)
    s_adto = t.timeout(c_ad, "ad server: request timed out after 20 s")
    t.status_query(c_ad, "unknown", detail="ad decisioning service is degraded; marker writes may be delayed "
                                           "(status.adserver.example: partial outage)")
    t.asst("The ad insertion timed out and the ad service is in a partial outage, so I can't confirm the markers "
           "were written. I won't send them again until I can see whether they landed.")
    t.user("Annoying. Let's validate the feed in the meantime.")
    c = t.call("pod_validate_feed", {"show_id": SHOW, "include_drafts": True})
    report = "\n".join([
        "Feed validation - https://feeds.example-host.fm/fieldnotesgrid (RSS 2.0, Podcasting 2.0 namespace)",
        "Checked: 2025-02-28T15:31:02Z   Items: 86 published + 1 draft (preview)",
        "ERRORS (0)",
        "WARNINGS (5)",
        "  W101 channel/itunes:image is 3000x3000 JPEG 812 KB - OK (limit 512 KB recommended for some apps)",
        "  W204 item #85 'Interconnection queues explained' missing itunes:explicit (defaults to false)",
        "  W311 item #72 enclosure length 0 (hosted before 2023 migration) - some apps show no file size",
        "  W402 podcast:transcript missing on items #61-#79 (optional)",
        "  W518 draft #87 preview: podcast:chapters present (12), podcast:person role=guest 'Dr. Imani Okonjo'",
        "INFO",
        "  podcast:guid 7c1f0e9a-5b1d-5a4e-9e53-1f0b6a3c2d41 stable",
        "  podcast:locked yes (owner e-mail verified)",
        "  podcast:funding https://fieldnotesgrid.fm/support",
        "  channel/itunes:category Technology > Science; Business",
        "  Apple Podcasts: last crawl 2025-02-28T14:55Z OK; Spotify: last ingest 2025-02-28T14:40Z OK",
        "  Draft #87 preview enclosure: aud_M87ENC02 59.8 MB audio/mpeg duration 3733 s",
        "  Draft #87 ad markers: none readable yet (ad server unreachable)",
        "ITEM CHECKS (latest 10)",
        "  #86 enclosure 200 OK 57.1 MB, duration 3512 s, chapters 10, transcript vtt OK",
        "  #85 enclosure 200 OK 52.0 MB, duration 3204 s, chapters 9, transcript vtt OK, explicit MISSING",
        "  #84 enclosure 200 OK 61.4 MB, duration 3775 s, chapters 11, transcript vtt OK",
        "  #83 enclosure 200 OK 48.9 MB, duration 3011 s, chapters 8, transcript vtt OK",
        "  #82 enclosure 200 OK 55.3 MB, duration 3402 s, chapters 10, transcript srt OK",
        "  #81 enclosure 200 OK 50.2 MB, duration 3090 s, chapters 0, transcript vtt OK",
        "  #80 enclosure 200 OK 63.8 MB, duration 3921 s, chapters 12, transcript vtt OK",
        "  #79 enclosure 200 OK 46.1 MB, duration 2840 s, chapters 7, transcript missing (W402)",
        "  #78 enclosure 200 OK 58.7 MB, duration 3610 s, chapters 10, transcript missing (W402)",
        "  #77 enclosure 200 OK 49.9 MB, duration 3067 s, chapters 9, transcript missing (W402)"])
    t.result(c, result={"show_id": SHOW, "errors": 0, "warnings": 5, "report": report})
    t.asst("Feed is valid: no errors, 5 warnings, none blocking (an explicit tag missing on #85, old enclosures "
           "without a size, missing transcripts on older episodes). The #87 preview has the 12 chapters, "
           "Dr. Imani Okonjo as guest and the 1:02:13 audio. Its ad markers aren't readable because the ad server is "
           "unreachable.")
    t.user("Fix the missing explicit tag on 85, it's a clean episode. And schedule 87 for Tuesday 5am Eastern. "
           "The ads can be added later if they didn't stick, dynamic insertion works after publishing anyway.")
    t.decision("d6-publish", [
        P_next("pod_publish", {"episode_id": EP, "audio_id": "aud_M87ENC02"},
               "the right audio is the untrimmed encode from the second job"),
        P_next("pod_update_episode", {"episode_id": ids_by_number[85]},
               "episode 85's id is only in the episode list from the very beginning"),
        P_state("unknown", "the ad insertion's outcome is still unknown", call_id=c_ad),
        P_pending("the ad call has no definitive answer", call_id=c_ad),
        P_fact("guest", "Dr. Imani Okonjo", "the episode record shows the corrected guest",
               superseded=["Dr. Imani Okoro"]),
        P_fact("audio_id", "aud_M87ENC02", "the episode's audio is the untrimmed encode"),
    ])
    c = t.call("pod_update_episode", {"episode_id": ids_by_number[85], "itunes_explicit": False})
    t.result(c, result={"episode_id": ids_by_number[85], "number": 85, "itunes_explicit": False,
                        "updated_at": "2025-02-28T15:40:12Z"})
    c_pub = t.call("pod_publish", {"episode_id": EP, "audio_id": "aud_M87ENC02", "publish_at":
                                   "2025-03-04T10:00:00Z", "visibility": "public"})
    s_pub = t.cseq(c_pub)
    t.approval("apr-pub-87", "requested", s_pub)
    t.asst("Episode 85 now has explicit=false. Scheduling #87 'Why you can't buy a transformer' for Tue Mar 4, 05:00 ET (10:00 UTC), with the "
           "untrimmed audio. At that time it goes to Apple, Spotify and every RSS reader and can't be pulled back "
           "from their caches. Approve?")
    t.user("Wait, is the chapter title for her still the old spelling anywhere? I don't want the wrong name going "
           "out to Apple.")
    t.decision("d7-approval-question", [
        P_pending("the publish approval is unanswered", approval_id="apr-pub-87"),
        P_pending("the publish call waits on it", call_id=c_pub),
    ])
    c = t.call("pod_validate_feed", {"show_id": SHOW, "item_preview": EP})
    item = "\n".join([
        "<item>",
        "  <title>Why you can't buy a transformer</title>",
        "  <itunes:episode>87</itunes:episode>",
        "  <itunes:episodeType>full</itunes:episodeType>",
        "  <itunes:explicit>false</itunes:explicit>",
        "  <description><![CDATA[" + desc.replace("Okoro", "Okonjo") + "]]></description>",
        "  <enclosure url=\"https://media.example-host.fm/fng/aud_M87ENC02.mp3\" length=\"62705664\" "
        "type=\"audio/mpeg\"/>",
        "  <itunes:duration>3733</itunes:duration>",
        "  <itunes:image href=\"https://cdn.example-host.fm/art/ep_8Z1TQ4_3000.jpg\"/>",
        "  <podcast:person role=\"guest\" href=\"https://fieldnotesgrid.fm/guests/okonjo\">Dr. Imani Okonjo"
        "</podcast:person>",
        "  <podcast:person role=\"host\">Sam Adeyemi</podcast:person>",
        "  <podcast:chapters url=\"https://cdn.example-host.fm/ch/ep_8Z1TQ4.json\" type=\"application/json+chapters\"/>",
        "  <podcast:transcript url=\"https://cdn.example-host.fm/tr/trn_87A.vtt\" type=\"text/vtt\"/>",
        "  <guid isPermaLink=\"false\">(assigned at publish)</guid>",
        "  <pubDate>(scheduled)</pubDate>",
        "</item>",
        "chapters.json[1] = {\"startTime\": 226, \"title\": \"Meet Dr. Imani Okonjo\"}"])
    t.result(c, result={"show_id": SHOW, "item_preview": item, "errors": 0})
    t.asst("No. The feed item preview shows podcast:person 'Dr. Imani Okonjo', chapter 2 is 'Meet Dr. Imani "
           "Okonjo', and the description and transcript are fixed. Only the spoken audio says Okoro.")
    t.user("OK. Approved.")
    t.approval("apr-pub-87", "granted", s_pub)
    t.result(c_pub, request_id="pub-0b4d92", result={"episode_id": EP, "status": "scheduled",
                                                     "publish_at": "2025-03-04T10:00:00Z",
                                                     "public_url": "https://fieldnotesgrid.fm/87",
                                                     "guid": uuid_like(t)})
    t.asst("Scheduled: #87 goes public Tue Mar 4 at 05:00 ET (https://fieldnotesgrid.fm/87).")
    t.user("Write me a short social post for Tuesday morning to go with the clip.")
    t.asst("Draft: 'A Kansas substation waited four years for one transformer. Why? On #87 of Field Notes from "
           "the Grid, Dr. Imani Okonjo explains the electrical-steel bottleneck, why utilities are hoarding, and "
           "what a failed inspection report actually says (listen to her read one). New factories won't ship "
           "before 2027. Until then: spare sharing, refurbishing, and planning years ahead. Listen: "
           "fieldnotesgrid.fm/87 #energy #grid #podcast'. It's about 420 characters, so it fits everywhere except "
           "as a single post on X; for X I'd cut the middle sentence. Attach vid_CL0194 (the denoised clip).")
    t.user("Thanks. Can you check whether the ad server is back?")
    t.status_query(c_ad, "unknown", detail="ad decisioning service still degraded; marker lookups return 503")
    t.asst("Still degraded: marker lookups return 503, so I can't tell whether the Voltline markers exist.")
    t.user("OK. What's still hanging before Tuesday? I'm off tomorrow and Priya is covering, so make it something "
           "she can follow without asking me.")
    t.decision("d8-wrapup", [
        P_state("succeeded", "the publish was scheduled", call_id=c_pub, request_id="pub-0b4d92"),
        P_state("unknown", "the ad markers have never been confirmed", call_id=c_ad),
        P_evidence([s_ad, s_adto], "the ad call and its timeout must be seen to decide on a retry"),
        P_constraint(s_ads, "never in the middle of her answers", "any ad retry must keep the placement rules"),
        P_fact("guest_name", "Dr. Imani Okonjo", "the corrected name for any follow-up (social posts)",
               superseded=["Dr. Imani Okoro"]),
    ])
    t.asst("One thing: the Voltline ads (cmp_77Q1VL, pre-roll + mid-roll at 21:30) were never confirmed because "
           "the ad server was down, and it still is. When it's back I'll check whether the markers exist before adding them, so "
           "they don't end up doubled, and I'll keep the mid-roll at 21:30, a host question, well after the first "
           "10 minutes. Everything else is done: untrimmed audio (aud_M87ENC02), 12 chapters, show notes and "
           "links, new artwork, Okonjo spelled right in the notes, chapters and transcript, #85's explicit tag "
           "fixed, feed valid, and the publish scheduled for Tuesday 05:00 ET. On your side: post the social copy "
           "with vid_CL0194 on Tuesday, and maybe swap the NERC link in the notes.")
    return t
# --- t11 end ---


# --- t12 start ---
@trajectory
def t12_photo_library() -> T:
    t = T(12, "photo-library", "h3-photo-library",
          "Photo library cleanup: duplicates, an export to the NAS, a protected album, purge with approval",
          ["asset and album ids from long listings are needed many turns later",
           "the duplicate scanner and the asset record disagree about two 'identical' photos",
           "a protected album ('never delete from Mormor') typed once guards later deletions",
           "the export times out and is confirmed by status_query; an album move stays unknown",
           "the NAS path is corrected (capital P) and the shell's working directory moves",
           "a purge approval is denied and replaced by a narrower one",
           "a side topic (storage of videos) and the return"],
          "A user frees space in a family photo library, exports a trip to a NAS and empties the trash.")
    LIB = "lib_FAM01"
    t.system("You manage the user's cloud photo library and have a shell on their NAS (mounted at /mnt/nas). "
             "Moving to Recently Deleted is recoverable for 30 days; purging is permanent.")
    t.user("My photo storage is almost full again, 197 of 200 GB. Can you see where the space goes?")
    c = t.call("photos_storage_usage", {"library_id": LIB, "breakdown": ["type", "year", "largest"]})
    largest = []
    for i in range(15):
        kind = t.rng.choice(["video", "video", "video", "photo"])
        largest.append({"asset_id": f"as_{t.alnum(10)}", "type": kind,
                        "filename": (f"IMG_{t.rng.randint(1000, 9999)}.MOV" if kind == "video"
                                     else f"DSC{t.rng.randint(10000, 99999)}.NEF"),
                        "size_mb": round(t.rng.uniform(600, 4200) if kind == "video" else t.rng.uniform(55, 90), 1),
                        "taken": f"20{t.rng.randint(16, 24)}-{t.rng.randint(1, 12):02d}-{t.rng.randint(1, 28):02d}"})
    largest.sort(key=lambda a: -a["size_mb"])
    t.result(c, result={"library_id": LIB, "quota_gb": 200, "used_gb": 197.3, "assets": 48211,
                        "by_type": {"photos_gb": 88.4, "live_photo_motion_gb": 21.7, "videos_gb": 79.6,
                                    "raw_gb": 6.1, "screenshots_gb": 1.5},
                        "recently_deleted": {"assets": 212, "gb": 4.8, "oldest_deleted": "2025-02-03"},
                        "by_year_gb": {str(y): round(t.rng.uniform(6, 24), 1) for y in range(2014, 2026)},
                        "largest": largest})
    t.asst("197.3 of 200 GB used by 48,211 items: photos 88.4 GB, videos 79.6 GB, the motion part of Live Photos "
           "21.7 GB, RAW files 6.1 GB, screenshots 1.5 GB. Recently Deleted already holds 212 items (4.8 GB) that "
           "still count against the quota. The 15 largest single items are mostly videos of 0.6-4.2 GB each.")
    s_mormor = t.user("Let's find duplicates first. But one rule: never delete anything in the 'Mormor' album. Those "
                      "are my grandmother's scans, some look like duplicates but they're different prints.")
    c = t.call("photos_list_albums", {"library_id": LIB})
    names = ["Favorites", "Mormor", "Norway 2023", "Lisbon 2022", "Kids 2024", "Kids 2023", "Garden", "Recipes",
             "Screenshots", "Documents", "Wedding - Sara & Tom", "Ski trip 2024", "Cabin", "Birthday 40",
             "Bikes", "Concerts", "Dog - Loki", "Christmas 2023", "Christmas 2024", "Work events", "House reno",
             "Car", "Hiking Jotunheimen", "Berlin 2019", "School plays", "Receipts", "Sunsets", "Cats of Lisbon",
             "Print queue", "Shared: Family"]
    albums = {}
    rows = []
    for n in names:
        aid = f"alb_{t.alnum(8)}"
        albums[n] = aid
        rows.append({"album_id": aid, "title": n, "count": t.rng.randint(12, 2400),
                     "shared": n.startswith("Shared"), "updated": f"202{t.rng.randint(3, 5)}-"
                                                                  f"{t.rng.randint(1, 12):02d}-{t.rng.randint(1, 28):02d}"})
    rows[1]["count"] = 318
    rows[2]["count"] = 1274
    t.result(c, result={"library_id": LIB, "albums": rows, "smart_albums": ["Videos", "Selfies", "Live Photos",
                                                                             "Panoramas", "Bursts", "RAW"]})
    c = t.call("photos_find_duplicates", {"library_id": LIB, "mode": "exact_and_near", "limit": 16})
    groups = []
    mormor_ids = []
    for i in range(16):
        a, b = f"as_{t.alnum(10)}", f"as_{t.alnum(10)}"
        album = t.rng.choice(["Norway 2023", "Lisbon 2022", "Kids 2024", "Garden", "Christmas 2023", "Dog - Loki",
                              "Ski trip 2024"])
        kind = "exact" if i % 3 else "near"
        if i in (4, 13):
            album, kind = "Mormor", "near"
            mormor_ids.append(b)
        size = round(t.rng.uniform(2.1, 9.8), 1)
        groups.append({"group_id": f"dg_{i + 1:03d}", "match": kind,
                       "similarity": 1.0 if kind == "exact" else round(t.rng.uniform(0.95, 0.99), 3),
                       "keep": {"asset_id": a}, "remove": [{"asset_id": b, "size_mb": size, "albums": [album]}]})
    g7 = groups[6]
    g7["match"], g7["similarity"] = "exact", 1.0
    g7["remove"][0]["albums"] = ["Norway 2023"]
    pair = (g7["keep"]["asset_id"], g7["remove"][0]["asset_id"])
    s_dups = t.result(c, result={"library_id": LIB, "groups_total": 412, "reclaimable_gb": 9.4, "returned": 16,
                                 "groups": groups, "method": "perceptual hash + SHA-256 on originals"})
    t.asst("The scanner found 412 duplicate groups, about 9.4 GB reclaimable. I'm showing the first 16. Two of "
           "them (dg_005 and dg_014) are near-matches inside Mormor, so they're off-limits. Mormor is album "
           f"{albums['Mormor']} with 318 items. Want me to check a couple of the others before trashing anything?")
    t.user("Out of curiosity, what does it think is duplicated in Mormor? Check dg_005.")
    c = t.call("photos_get_asset", {"asset_id": mormor_ids[0]})
    t.result(c, result={"asset_id": mormor_ids[0], "filename": "Scan_1961_07_confirmation_b.tif",
                        "taken": None, "digitized": "2024-12-22T14:10:31+01:00", "size_mb": 62.4,
                        "dimensions": "6800x4700", "edits": None, "albums": ["Mormor"],
                        "scanner": "Epson Perfection V600 (1200 dpi, 48-bit)",
                        "caption": "Konfirmasjon, Bergen juli 1961 - second print (from aunt Solveig)",
                        "sha256": "9ab4…12fe"})
    t.asst("dg_005 is a 1961 confirmation photo from Bergen: the 'duplicate' is a second print from your aunt "
           "Solveig, scanned separately (62 MB TIFF, different hash). The scanner sees the same picture; it's a "
           "different physical print, exactly what you described. It stays.")
    t.user(f"Yes. Now check dg_007, those look like my Norway fjord shot.")
    c = t.call("photos_get_asset", {"asset_id": pair[0]})
    t.result(c, result={"asset_id": pair[0], "filename": "IMG_4471.HEIC", "taken": "2023-07-14T19:42:08+02:00",
                        "size_mb": 4.6, "dimensions": "4032x3024", "edits": None, "albums": ["Norway 2023"],
                        "camera": "iPhone 14 Pro", "sha256": "5d0f…a41c"})
    c = t.call("photos_get_asset", {"asset_id": pair[1]})
    s_asset = t.result(c, result={"asset_id": pair[1], "filename": "IMG_4471 (edited).HEIC",
                                  "taken": "2023-07-14T19:42:08+02:00", "size_mb": 3.9, "dimensions": "3402x2551",
                                  "edits": {"crop": "16:12", "exposure": 0.4, "app": "Lightroom Mobile",
                                            "saved_as_copy": True}, "albums": ["Norway 2023", "Print queue"],
                                  "camera": "iPhone 14 Pro", "sha256": "c81e…07b2"})
    t.asst("The scanner calls dg_007 an exact match (similarity 1.0, same hash), but the asset records disagree: the "
           "second one is a Lightroom-edited copy, cropped to 3402x2551 with +0.4 exposure, with a different hash, "
           "and it's in your Print queue album. So it's not a duplicate of the original; deleting it would lose the "
           "edit.")
    t.user("Right, that's the one I'm printing. Keep both. Skip any group where the 'duplicate' is edited or in "
           "Print queue, and obviously the Mormor ones. Trash the rest of the 16.")
    t.decision("d1-trash", [
        P_evidence([s_dups, s_asset], "the scanner's 'exact' and the asset record's edit are the contradiction"),
        P_constraint(s_mormor, "never delete anything in the 'Mormor' album", "Mormor items must stay out of the "
                                                                              "trash call"),
        P_next("photos_trash", {"library_id": LIB, "exclude": mormor_ids[0]},
               "the excluded Mormor asset ids are in the scan result"),
    ])
    remove = [g["remove"][0]["asset_id"] for g in groups if g["group_id"] not in ("dg_005", "dg_007", "dg_014")]
    c_t1 = t.call("photos_trash", {"library_id": LIB, "asset_ids": remove,
                                   "exclude": mormor_ids + [pair[1]]})
    freed = round(sum(g["remove"][0]["size_mb"] for g in groups if g["remove"][0]["asset_id"] in remove) / 1024, 2)
    t.result(c_t1, request_id="ph-trash-6c1d0e", result={"library_id": LIB, "trashed": len(remove),
                                                        "recoverable_until": "2025-03-30", "freed_gb_after_purge": freed})
    t.asst(f"Moved {len(remove)} duplicates to Recently Deleted (recoverable until March 30). Skipped dg_005 and "
           "dg_014 (Mormor) and dg_007 (your edited print). The space only comes back once the trash is purged.")
    t.user("Before we purge anything: I want the Norway trip backed up on the NAS first. Export the originals of "
           "the Norway album to /mnt/nas/photos/2023/norway.")
    s_path1 = t.fact("nas_export_path", "/mnt/nas/photos/2023/norway")
    c = t.call("shell", {"command": "ls -la /mnt/nas/photos/2023/", "cwd": "/home/ingrid"})
    t.result(c, result={"exit_code": 2, "stdout": "", "stderr": "ls: cannot access '/mnt/nas/photos/2023/': "
                                                                "No such file or directory\n", "cwd": "/home/ingrid"})
    c = t.call("shell", {"command": "ls -la /mnt/nas/", "cwd": "/home/ingrid"})
    t.result(c, result={"exit_code": 0, "stdout": "\n".join([
        "total 40", "drwxr-xr-x  9 ingrid users 4096 Jan 19 10:02 .", "drwxr-xr-x  4 root   root  4096 Mar  2  2024 ..",
        "drwxrwxr-x  5 ingrid users 4096 Nov 30 18:11 Backups", "drwxrwxr-x 14 ingrid users 4096 Feb  9 21:40 Photos",
        "drwxrwxr-x  3 ingrid users 4096 Oct  1 08:55 Media", "drwxrwxr-x  2 ingrid users 4096 Dec 24 11:12 Scans",
        "drwxrwxr-x  6 ingrid users 4096 Jan 19 10:02 Documents", "-rw-r--r--  1 ingrid users  412 Mar  2  2024 README.txt",
        "drwx------  2 root   root  4096 Mar  2  2024 lost+found"]) + "\n", "stderr": "", "cwd": "/home/ingrid"})
    t.asst("There's no /mnt/nas/photos; the share has a 'Photos' folder with a capital P. Did you mean "
           "/mnt/nas/Photos/2023/norway?")
    t.user("Yes, capital P. /mnt/nas/Photos/2023/norway. Create the norway folder if it's not there.")
    t.correction("nas_export_path", "/mnt/nas/Photos/2023/norway", supersedes=s_path1)
    t.decision("d2-export", [
        P_fact("nas_export_path", "/mnt/nas/Photos/2023/norway", "the corrected path replaces the one that failed",
               superseded=["/mnt/nas/photos/2023/norway"]),
        P_next("photos_export", {"album_id": albums["Norway 2023"]}, "the Norway album's id is in the album list"),
    ])
    c = t.call("shell", {"command": "mkdir -p /mnt/nas/Photos/2023/norway && cd /mnt/nas/Photos/2023 && ls -la",
                         "cwd": "/home/ingrid"})
    t.result(c, result={"exit_code": 0, "stdout": "\n".join([
        "total 28", "drwxrwxr-x  7 ingrid users 4096 Feb 28 16:40 .", "drwxrwxr-x 14 ingrid users 4096 Feb  9 21:40 ..",
        "drwxrwxr-x  2 ingrid users 4096 Jun  3  2023 easter", "drwxrwxr-x  2 ingrid users 4096 Sep 11  2023 garden",
        "drwxrwxr-x  2 ingrid users 4096 Dec 27  2023 christmas", "drwxrwxr-x  2 ingrid users 4096 Aug  2  2023 midsummer",
        "drwxrwxr-x  2 ingrid users 4096 Feb 28 16:40 norway"]) + "\n", "stderr": "", "cwd": "/mnt/nas/Photos/2023"})
    c_exp = t.call("photos_export", {"album_id": albums["Norway 2023"], "destination": "/mnt/nas/Photos/2023/norway",
                                     "originals": True, "include_edits": "as_separate_files", "sidecars": "xmp"})
    s_exp = t.cseq(c_exp)
    t.timeout(c_exp, "export service: request accepted? no response after 120 s")
    t.asst("Created /mnt/nas/Photos/2023/norway (next to easter, garden, christmas and midsummer). The export "
           "request for Norway 2023 timed out after 2 minutes, so I don't know yet whether it started. I'll check "
           "before starting another one, to avoid writing the album twice.")
    t.user("OK check it.")
    t.status_query(c_exp, "succeeded", request_id="ph-exp-91f4a2", export_id="exp_N23_0042", state="completed",
                   files_written=1388, bytes_written=14092211012,
                   note="1,274 originals + 114 edited versions; 1,274 XMP sidecars")
    c = t.call("shell", {"command": "cd norway && ls | wc -l && du -sh . && ls | head -40", "cwd": "/mnt/nas/Photos/2023"})
    files = []
    for i in range(40):
        files.append(t.rng.choice(["IMG_", "IMG_", "DSC0"]) + str(4400 + i * 3 + t.rng.randint(0, 2)) +
                     t.rng.choice([".HEIC", ".HEIC", ".MOV", ".NEF", ".HEIC"]))
    t.result(c, result={"exit_code": 0, "stdout": "2662\n14G\t.\n" + "\n".join(sorted(files)) + "\n", "stderr": "",
                        "cwd": "/mnt/nas/Photos/2023/norway"})
    t.asst("The export did run once: exp_N23_0042 wrote 1,388 files (1,274 originals plus 114 edited versions) and "
           "1,274 XMP sidecars, 14 GB. The folder listing agrees: 2,662 entries (1,388 + 1,274 sidecars), 14G. The "
           "shell is now in /mnt/nas/Photos/2023/norway.")
    t.user("Side question: how much of the video space is Live Photo motion? Could I turn those into stills?")
    t.topic_switch("cleanup", "live photos")
    c = t.call("photos_storage_usage", {"library_id": LIB, "breakdown": ["live_photos"]})
    t.result(c, result={"library_id": LIB, "live_photos": {"count": 17230, "motion_gb": 21.7, "still_gb": 44.9,
                                                          "by_year_gb": {"2019": 1.2, "2020": 2.0, "2021": 3.4,
                                                                         "2022": 4.1, "2023": 5.6, "2024": 4.9,
                                                                         "2025": 0.5}},
                        "note": "Converting to still keeps the key photo and deletes the motion clip permanently."})
    t.asst("17,230 Live Photos: 21.7 GB of motion clips on top of 44.9 GB of stills. Turning them all into stills "
           "would free about 21.7 GB, but that deletes every motion clip permanently. A middle way: convert only "
           "older years, or only ones not in albums.")
    t.user("Not now, I like the motion on the kid ones. Back to the cleanup: is the Norway export safe? Then empty "
           "the trash.")
    t.topic_switch("live photos", "cleanup")
    t.decision("d3-purge", [
        P_state("succeeded", "the timed-out export was confirmed, with its request id", call_id=c_exp,
                request_id="ph-exp-91f4a2"),
        P_fact("files_written", 1388, "the export's file count is what makes it 'safe'"),
        P_state("succeeded", "the duplicates are in the trash", call_id=c_t1, request_id="ph-trash-6c1d0e"),
    ])
    c_p1 = t.call("photos_purge_trash", {"library_id": LIB, "scope": "all"})
    s_p1 = t.cseq(c_p1)
    t.approval("apr-purge-all", "requested", s_p1)
    t.asst(f"The Norway export is complete and verified on the NAS. Emptying Recently Deleted permanently removes "
           f"everything in it: the {len(remove)} duplicates from today plus the 212 items (4.8 GB) that were "
           "already there. Approve?")
    t.user("Wait, what are the 212 that were already there? I deleted some videos last week by accident maybe.")
    t.decision("d4-what-is-in-trash", [
        P_pending("the purge approval is open", approval_id="apr-purge-all"),
        P_pending("the purge call waits on it", call_id=c_p1),
        P_fact("oldest_deleted", "2025-02-03", "the pre-existing trash dates from early February"),
    ])
    c = t.call("photos_storage_usage", {"library_id": LIB, "breakdown": ["recently_deleted"]})
    old_items = []
    for i in range(12):
        kind = t.rng.choice(["video", "photo", "photo", "screenshot"])
        old_items.append({"asset_id": f"as_{t.alnum(10)}", "type": kind,
                          "deleted": f"2025-02-{t.rng.randint(3, 26):02d}",
                          "size_mb": round(t.rng.uniform(300, 2100) if kind == "video" else t.rng.uniform(0.4, 6), 1),
                          "from_album": t.rng.choice([None, "Kids 2024", None, "Garden", "Kids 2023"])})
    old_items[2].update({"type": "video", "from_album": "Kids 2024", "size_mb": 1840.2, "deleted": "2025-02-21"})
    old_items[7].update({"type": "video", "from_album": "Kids 2024", "size_mb": 1312.7, "deleted": "2025-02-21"})
    t.result(c, result={"library_id": LIB, "recently_deleted": {"assets": 212 + len(remove), "before_today": 212,
                                                               "sample_before_today": old_items}})
    t.asst("Among the 212 older items there are two videos from Kids 2024, deleted on Feb 21 (1.8 GB and 1.3 GB), "
           "which could be the accident. The rest are mostly screenshots and photos from early February.")
    t.user("Yes those are the school play videos! Don't purge everything. Deny that, restore those two, and purge "
           "only what we trashed today.")
    t.approval("apr-purge-all", "denied", s_p1)
    t.result(c_p1, "cancelled", error="approval denied by user")
    c_mv = t.call("photos_move_to_album", {"album_id": albums["Kids 2024"],
                                           "asset_ids": [old_items[2]["asset_id"], old_items[7]["asset_id"]],
                                           "restore_from_trash": True})
    s_mv = t.cseq(c_mv)
    s_mvto = t.timeout(c_mv, "library service: timeout after 30 s (restore is asynchronous)")
    t.status_query(c_mv, "unknown", detail="restore job queued; no completion event yet")
    t.asst("Denied the full purge, so nothing was permanently deleted. I asked the library to restore the two "
           "school-play videos into Kids 2024; the request timed out and the restore is queued, not confirmed. "
           "Until it's confirmed I'll treat them as still in the trash and keep them out of any purge, whatever "
           "the purge scope is.")
    t.user("Fine. Now purge just today's batch.")
    t.decision("d5-narrow-purge", [
        P_state("cancelled", "the full purge was cancelled after the denial", call_id=c_p1),
        P_state("unknown", "the restore has not completed", call_id=c_mv),
        P_next("photos_purge_trash", {"library_id": LIB, "asset_ids": remove[0]},
               "today's trashed ids are only in the trash call many turns back"),
        P_constraint(s_mormor, "Mormor", "the purge must not touch Mormor"),
    ])
    c_p2 = t.call("photos_purge_trash", {"library_id": LIB, "scope": "assets", "asset_ids": remove})
    s_p2 = t.cseq(c_p2)
    t.approval("apr-purge-today", "requested", s_p2)
    t.asst(f"This permanently deletes only today's {len(remove)} duplicates (none from Mormor, not the edited print, "
           "not the school-play videos). Approve?")
    t.user("Approved.")
    t.approval("apr-purge-today", "granted", s_p2)
    t.result(c_p2, request_id="ph-purge-2a7d55", result={"library_id": LIB, "purged": len(remove),
                                                        "freed_gb": freed, "used_gb": round(197.3 - freed, 2)})
    t.asst(f"Purged {len(remove)} items, {freed} GB back. That's small; the big win would be the other 396 duplicate "
           "groups (about 9 GB) and the videos.")
    t.user("Let's do the next duplicates then, same rules. Go.")
    c = t.call("photos_find_duplicates", {"library_id": LIB, "mode": "exact_and_near", "limit": 20,
                                          "cursor": "dg_017"})
    groups2 = []
    for i in range(20):
        album = t.rng.choice(["Christmas 2024", "Kids 2023", "Garden", "Cabin", "Mormor", "Dog - Loki", "Receipts"])
        edited = i in (3, 11)
        groups2.append({"group_id": f"dg_{i + 17:03d}", "match": "exact" if i % 4 else "near",
                        "keep": {"asset_id": f"as_{t.alnum(10)}"},
                        "remove": [{"asset_id": f"as_{t.alnum(10)}", "size_mb": round(t.rng.uniform(2, 30), 1),
                                    "albums": [album], "edited": edited}]})
    t.result(c, result={"library_id": LIB, "groups_total": 396, "returned": 20, "groups": groups2})
    ok2 = [g["remove"][0]["asset_id"] for g in groups2
           if "Mormor" not in g["remove"][0]["albums"] and not g["remove"][0]["edited"]
           and "Print queue" not in g["remove"][0]["albums"]]
    skipped = 20 - len(ok2)
    c_t2 = t.call("photos_trash", {"library_id": LIB, "asset_ids": ok2})
    t.result(c_t2, request_id="ph-trash-6d3391", result={"library_id": LIB, "trashed": len(ok2),
                                                        "recoverable_until": "2025-03-30"})
    t.asst(f"Next 20 groups: trashed {len(ok2)}, skipped {skipped} (Mormor items and edited copies). They're in "
           "Recently Deleted; tell me when you want those purged too.")
    t.user("Later. What about the big videos? Show me everything over 1 GB.")
    c = t.call("photos_storage_usage", {"library_id": LIB, "breakdown": ["largest"], "type": "video",
                                        "min_size_mb": 1024})
    vids = []
    for i in range(22):
        year = t.rng.choice([2019, 2019, 2020, 2021, 2021, 2022, 2023, 2024])
        vids.append({"asset_id": f"as_{t.alnum(10)}", "filename": f"IMG_{t.rng.randint(1000, 9999)}.MOV",
                     "taken": f"{year}-{t.rng.randint(1, 12):02d}-{t.rng.randint(1, 28):02d}",
                     "duration_s": t.rng.randint(180, 1500), "size_mb": round(t.rng.uniform(1030, 4200), 1),
                     "albums": t.rng.choice([[], [], ["Kids 2023"], ["Cabin"], ["Concerts"], ["Birthday 40"]])})
    old_vids = [v for v in vids if v["taken"] < "2022"]
    old_gb = round(sum(v["size_mb"] for v in old_vids) / 1024, 1)
    t.result(c, result={"library_id": LIB, "videos_over_1gb": len(vids), "total_gb": round(
        sum(v["size_mb"] for v in vids) / 1024, 1), "items": vids})
    t.asst(f"{len(vids)} videos over 1 GB. {len(old_vids)} of them are from 2019-2021, {old_gb} GB together; the "
           "rest are 2022-2024.")
    t.user("What's the biggest one?")
    big = max(vids, key=lambda v: v["size_mb"])
    c = t.call("photos_get_asset", {"asset_id": big["asset_id"]})
    t.result(c, result={"asset_id": big["asset_id"], "filename": big["filename"], "taken": big["taken"] + "T15:22:40",
                        "type": "video", "size_mb": big["size_mb"], "duration_s": big["duration_s"],
                        "codec": "hevc (main 10)", "resolution": "3840x2160", "fps": 59.94, "hdr": "Dolby Vision 8.4",
                        "audio": "aac 48 kHz stereo", "albums": big["albums"], "location": "approximate: Oslo, NO",
                        "camera": "iPhone 12 Pro", "edits": None})
    t.asst(f"{big['filename']} from {big['taken']}: {big['size_mb']:.0f} MB, {big['duration_s'] // 60} minutes of "
           "4K at 60 fps in Dolby Vision HDR, shot on an iPhone 12 Pro around Oslo. 4K60 HDR is what makes these "
           "so big: roughly 400 MB per minute.")
    t.user("Archive the 2019-2021 ones to the NAS, Media/video-archive, then trash them from the library. Put "
           "them in an album first so I can see what went.")
    c = t.call("photos_create_album", {"library_id": LIB, "title": "Archived to NAS 2025-02"})
    t.result(c, result={"album_id": "alb_ARCH0225", "title": "Archived to NAS 2025-02", "count": 0})
    c = t.call("photos_move_to_album", {"album_id": "alb_ARCH0225", "asset_ids": [v["asset_id"] for v in old_vids],
                                        "keep_in_other_albums": True})
    t.result(c, result={"album_id": "alb_ARCH0225", "added": len(old_vids), "count": len(old_vids)})
    c = t.call("shell", {"command": "mkdir -p /mnt/nas/Media/video-archive && cd /mnt/nas/Media/video-archive && "
                                    "df -h .", "cwd": "/mnt/nas/Photos/2023/norway"})
    t.result(c, result={"exit_code": 0, "stdout": "Filesystem      Size  Used Avail Use% Mounted on\n"
                                                  "//nas.local/share  7.3T  4.1T  3.2T  57% /mnt/nas\n",
                        "stderr": "", "cwd": "/mnt/nas/Media/video-archive"})
    c_exp2 = t.call("photos_export", {"album_id": "alb_ARCH0225", "destination": "/mnt/nas/Media/video-archive",
                                      "originals": True})
    t.result(c_exp2, request_id="ph-exp-93a0c7", result={"export_id": "exp_ARCH_0043", "state": "completed",
                                                         "files_written": len(old_vids),
                                                         "bytes_written": int(old_gb * 1024 ** 3)})
    c = t.call("shell", {"command": "ls -l --block-size=M | head -20 && ls | wc -l", "cwd": "/mnt/nas/Media/video-archive"})
    t.result(c, result={"exit_code": 0, "stdout": "total " + str(int(old_gb * 1024)) + "M\n" + "\n".join(
        f"-rw-rw-r-- 1 ingrid users {int(v['size_mb']):>5}M Feb 28 17:4{i % 10} {v['filename']}"
        for i, v in enumerate(old_vids)) + f"\n{len(old_vids)}\n", "stderr": "", "cwd": "/mnt/nas/Media/video-archive"})
    c_t3 = t.call("photos_trash", {"library_id": LIB, "asset_ids": [v["asset_id"] for v in old_vids]})
    t.result(c_t3, request_id="ph-trash-6e02b4", result={"library_id": LIB, "trashed": len(old_vids),
                                                        "recoverable_until": "2025-03-30"})
    t.asst(f"Done: created the album 'Archived to NAS 2025-02' with the {len(old_vids)} videos, exported their "
           f"originals to /mnt/nas/Media/video-archive (exp_ARCH_0043, {old_gb} GB; the NAS has 3.2 TB free), "
           "checked the files are there, and moved them to Recently Deleted. The album stays as a record.")
    t.user("Now make a checksum list of the Norway export, in its folder, so I can verify it next year.")
    t.decision("d6-checksums", [
        P_next("shell", {"path": "/mnt/nas/Photos/2023/norway"},
               "the export folder, not the shell's current directory (it moved to the video archive)"),
        P_fact("nas_export_path", "/mnt/nas/Photos/2023/norway", "the export lives at the corrected path",
               superseded=["/mnt/nas/photos/2023/norway"]),
        P_fact("cwd", "/mnt/nas/Media/video-archive", "where the shell is now, so the command must cd first",
               superseded=["/mnt/nas/Photos/2023/norway"]),
    ])
    c = t.call("shell", {"command": "cd /mnt/nas/Photos/2023/norway && find . -type f ! -name 'SHA256SUMS' -print0 "
                                    "| sort -z | xargs -0 sha256sum > SHA256SUMS && wc -l SHA256SUMS && tail -5 "
                                    "SHA256SUMS", "cwd": "/mnt/nas/Media/video-archive"})
    tail = "\n".join(f"{t.hexid(64)}  ./{f}" for f in sorted(files)[-5:])
    t.result(c, result={"exit_code": 0, "stdout": "2662 SHA256SUMS\n" + tail + "\n", "stderr": "",
                        "cwd": "/mnt/nas/Photos/2023/norway"})
    t.asst("Back in /mnt/nas/Photos/2023/norway: I wrote SHA256SUMS there with 2,662 entries (every file "
           "of the export). Next year, `sha256sum -c SHA256SUMS` in that folder verifies them all.")
    t.user("Did the school play videos come back?")
    t.decision("d7-restore", [
        P_pending("the restore has no definitive answer", call_id=c_mv),
        P_evidence([s_mv, s_mvto], "the restore call and its timeout are what is known"),
        P_next("photos_move_to_album", {"album_id": albums["Kids 2024"]}, "the Kids 2024 album id from the list"),
    ])
    c = t.call("photos_list_albums", {"library_id": LIB, "album_id": albums["Kids 2024"], "include": ["recent"]})
    t.result(c, result={"album_id": albums["Kids 2024"], "title": "Kids 2024", "count": rows[4]["count"],
                        "recent": [], "pending_operations": [{"type": "restore", "state": "queued",
                                                              "queued_at": "2025-02-28T17:02:11Z"}]})
    t.asst("Not yet: Kids 2024 shows a restore still queued since 17:02, and the two videos aren't in the album "
           "yet. They're still safe in Recently Deleted until March 23 at the earliest (30 days after Feb 21), and "
           "I won't purge anything that could include them. Restores of large videos can sit in the queue for a "
           "while when the library is busy re-indexing after big deletions like today's.")
    t.user("OK. Summarize what we did today and what's still pending, I'll paste it into my notes.")
    t.decision("d8-summary", [
        P_state("succeeded", "the narrow purge went through", call_id=c_p2, request_id="ph-purge-2a7d55"),
        P_state("unknown", "the restore of the two videos is still not confirmed", call_id=c_mv),
        P_constraint(s_mormor, "different prints", "the summary must say Mormor was never touched"),
        P_fact("export_id", "exp_N23_0042", "the Norway export the checksum file belongs to (the video archive "
               "had its own export later)", subject=f"album_id={albums['Norway 2023']}"),
    ])
    t.asst(f"Done: {len(remove)} + {len(ok2)} duplicates trashed, the first {len(remove)} purged (about {freed} GB "
           "back); Mormor never touched; the edited Norway print (dg_007) kept; Norway 2023 exported to "
           "/mnt/nas/Photos/2023/norway (exp_N23_0042, 1,388 files, 14 GB) with a SHA256SUMS file. Pending: the "
           "restore of the two school-play videos to Kids 2024 (queued, unconfirmed), the second batch in "
           "Recently Deleted (not purged), the 2019-2021 videos archived and trashed (not purged), and 376 more "
           "duplicate groups.")
    t.user("Thanks. If that restore never finishes, how do I get the two videos back myself?")
    t.asst("Open Recently Deleted in the Photos app (or on the web: Library > Recently Deleted), sort by date "
           "deleted, and look for the two videos deleted on Feb 21 (1.8 GB and 1.3 GB, both from Kids 2024). "
           "Select them and choose Recover; they go back to the library and to Kids 2024. Do it before March 23, "
           "when the 30 days run out for those two. If the queued restore does finish in the meantime, recovering "
           "them again does nothing harmful. And don't use 'Delete All' in Recently Deleted until they're back, "
           "because that would purge them along with everything else in there.")
    return t
# --- t12 end ---


# --- t13 start ---
@trajectory
def t13_server_debugging() -> T:
    t = T(13, "server-debugging", "h3-server-debugging",
          "Shell session on a server: a failing deploy, config drift, migrations, a backfill lost in a restart",
          ["the working directory moves between repo, logs, config and releases",
           "the config file and the running process disagree about the port (cross-tool contradiction)",
           "a branch name, a port and a ticket number typed once are needed much later; the ticket is corrected",
           "a migration command times out and is confirmed by status_query",
           "the agent restarts while a backfill runs: the call becomes unknown and stays unknown",
           "irreversible deletion of old releases, approved, under a 'keep the last 3' constraint",
           "long shell outputs (git log, pytest, journalctl, config files)",
           "a side topic (a cron job) and the return"],
          "An engineer and the agent debug a billing API that fails after a deploy, on the production host.")
    REPO = "/srv/app/billing-api"
    t.system("You are a coding agent with a shell on host bill-prod-2 (user deploy). Commands run in the given "
             "working directory; the result reports the directory after the command. Ask before deleting "
             "anything or restarting services.")
    t.user("billing-api on bill-prod-2 started throwing 502s after this morning's deploy. The code is in "
           f"{REPO}. Start by telling me what got deployed.")
    c = t.call("shell", {"command": "git log --oneline --decorate -15 && git status -sb", "cwd": REPO})
    msgs = ["Merge pull request #412 from fix/invoice-rounding", "Round line totals half-even before summing (BILL-2219)",
            "Bump psycopg to 3.2.4", "Add TLS listener option (PORT_TLS)", "Move health check to /healthz",
            "Refactor tax rate lookup into TaxTable", "Fix flaky test_refund_partial", "Add invoice PDF cache headers",
            "Log request ids in access log", "Upgrade gunicorn to 23.0.0", "CI: pin Python 3.12.8",
            "Drop unused stripe_v1 client", "Add migration 0047_invoice_rounding_mode", "Docs: runbook for backfills",
            "Release 2025.02.19"]
    log = []
    for i, m in enumerate(msgs):
        sha = t.hexid(7)
        deco = " (HEAD -> main, tag: release-2025.02.28, origin/main)" if i == 0 else (
            " (tag: release-2025.02.19)" if m.startswith("Release") else "")
        log.append(f"{sha}{deco} {m}")
    t.result(c, result={"exit_code": 0, "stdout": "\n".join(log) + "\n## main...origin/main\n?? .env.local\n",
                        "stderr": "", "cwd": REPO})
    t.asst("HEAD is release-2025.02.28, the merge of #412 (fix/invoice-rounding: half-even rounding of line totals, "
           "BILL-2219). Since the previous release (2025.02.19) there's also a TLS listener option (PORT_TLS), the "
           "health check moved to /healthz, a gunicorn upgrade to 23.0.0, and migration 0047_invoice_rounding_mode. "
           "The working tree is clean except an untracked .env.local.")
    t.user("What state is the service in right now?")
    c = t.call("shell", {"command": "systemctl status billing-api --no-pager -n 8", "cwd": REPO})
    t.result(c, result={"exit_code": 3, "stdout": "\n".join([
        "● billing-api.service - Billing API (gunicorn)",
        "     Loaded: loaded (/etc/systemd/system/billing-api.service; enabled; preset: enabled)",
        "    Drop-In: /etc/systemd/system/billing-api.service.d",
        "             └─override.conf",
        "     Active: activating (auto-restart) (Result: exit-code) since Fri 2025-02-28 08:41:07 UTC; 3s ago",
        "    Process: 51790 ExecStart=/srv/app/billing-api/.venv/bin/gunicorn -c /srv/app/billing-api/gunicorn.conf.py "
        "billing.app:create_app() (code=exited, status=3)",
        "   Main PID: 51790 (code=exited, status=3)",
        "        CPU: 2.114s",
        "Feb 28 08:41:04 bill-prod-2 gunicorn[51790]: [INFO] Starting gunicorn 23.0.0",
        "Feb 28 08:41:04 bill-prod-2 gunicorn[51790]: [INFO] Listening at: http://0.0.0.0:8080 (51790)",
        "Feb 28 08:41:04 bill-prod-2 gunicorn[51790]: [INFO] Using worker: gthread",
        "Feb 28 08:41:05 bill-prod-2 gunicorn[51801]: [INFO] Booting worker with pid: 51801",
        "Feb 28 08:41:06 bill-prod-2 gunicorn[51801]: [ERROR] Exception in worker process",
        "Feb 28 08:41:06 bill-prod-2 gunicorn[51790]: [ERROR] Worker (pid:51801) exited with code 3",
        "Feb 28 08:41:07 bill-prod-2 gunicorn[51790]: [ERROR] Shutting down: Master",
        "Feb 28 08:41:07 bill-prod-2 systemd[1]: billing-api.service: Main process exited, code=exited, "
        "status=3/NOTRUNNING"]) + "\n", "stderr": "", "cwd": REPO})
    t.asst("It's in a crash loop: systemd restarts it, a worker dies during boot with exit code 3 and the master "
           "shuts down. Restart counter keeps climbing.")
    t.user("Look at the service logs.")
    c = t.call("shell", {"command": "sudo journalctl -u billing-api --since '2025-02-28 07:00' --no-pager | tail -40",
                         "cwd": REPO})
    jl = []
    for i in range(30):
        ts = f"Feb 28 07:{12 + i // 3:02d}:{(i * 17) % 60:02d}"
        jl.append(t.rng.choice([
            f"{ts} bill-prod-2 gunicorn[{41200 + i}]: [INFO] Booting worker with pid: {41200 + i}",
            f"{ts} bill-prod-2 gunicorn[41187]: [ERROR] Worker (pid:{41200 + i}) exited with code 3",
            f"{ts} bill-prod-2 gunicorn[{41200 + i}]: psycopg.errors.UndefinedColumn: column invoices.rounding_mode "
            "does not exist",
            f"{ts} bill-prod-2 gunicorn[{41200 + i}]: LINE 1: ...total_cents, invoices.currency, invoices.rounding_mode "
            "FROM invoices...",
            f"{ts} bill-prod-2 systemd[1]: billing-api.service: Main process exited, code=exited, status=1/FAILURE",
            f"{ts} bill-prod-2 systemd[1]: billing-api.service: Scheduled restart job, restart counter is at {i // 4}."]))
    jl.append("Feb 28 07:24:51 bill-prod-2 gunicorn[41290]: [INFO] Listening at: http://0.0.0.0:8080 (41290)")
    jl.append("Feb 28 07:24:52 bill-prod-2 gunicorn[41301]: [ERROR] Exception in worker process: "
              "psycopg.errors.UndefinedColumn: column invoices.rounding_mode does not exist")
    s_journal = t.result(c, result={"exit_code": 0, "stdout": "\n".join(jl) + "\n", "stderr": "", "cwd": REPO})
    t.asst("Workers keep crashing on `psycopg.errors.UndefinedColumn: column invoices.rounding_mode does not "
           "exist`. The code expects migration 0047 (rounding_mode) but the database doesn't have it, so the "
           "migration probably never ran during the deploy. Also note gunicorn says it's listening on "
           "http://0.0.0.0:8080.")
    t.user("What does nginx say?")
    c = t.call("shell", {"command": "sudo tail -12 /var/log/nginx/error.log", "cwd": REPO})
    ng = []
    for i in range(12):
        ng.append(f"2025/02/28 08:{30 + i:02d}:{t.rng.randint(0, 59):02d} [error] {t.rng.randint(1020, 1030)}#0: "
                  f"*{t.rng.randint(100000, 999999)} connect() failed (111: Connection refused) while connecting to "
                  f"upstream, client: 10.0.3.{t.rng.randint(2, 40)}, server: billing.example.internal, request: "
                  f"\"{t.rng.choice(['GET', 'GET', 'POST'])} /v1/invoices{t.rng.choice(['', '/inv_' + t.alnum(8), '?customer=cus_' + t.alnum(8)])} "
                  "HTTP/1.1\", upstream: \"http://127.0.0.1:8443/v1/invoices\", host: \"billing.example.internal\"")
    t.result(c, result={"exit_code": 0, "stdout": "\n".join(ng) + "\n", "stderr": "", "cwd": REPO})
    t.asst("nginx can't even connect: every request fails with 'connect() failed (111: Connection refused)' to "
           "upstream http://127.0.0.1:8443. So there are two separate problems: nothing is listening on 8443, and "
           "the workers that do start crash on the missing column.")
    s_port = t.user("The migration step was skipped, yes, the deploy script had a bug. But 8080 is wrong, nginx "
                    "proxies to 8443 on this box. Check the config in /etc/billing-api.")
    t.fact("upstream_port", 8443)
    c = t.call("fs_read_file", {"path": "/etc/billing-api/billing.env"})
    envf = "\n".join([
        "# /etc/billing-api/billing.env - managed by ansible (role billing_api) - DO NOT EDIT BY HAND",
        "# last rendered 2025-02-19T06:10:44Z from inventory prod/bill-prod-2",
        "APP_ENV=production", "PORT=8443", "PORT_TLS=", "BIND=0.0.0.0", "WORKERS=6", "WORKER_CLASS=gthread",
        "THREADS=4", "TIMEOUT=30", "GRACEFUL_TIMEOUT=20", "KEEPALIVE=5",
        "DATABASE_URL=postgresql://billing@db-prod-1.internal:5432/billing?sslmode=verify-full",
        "DB_POOL_MIN=2", "DB_POOL_MAX=12", "REDIS_URL=redis://cache-prod-1.internal:6379/4",
        "STRIPE_API_BASE=https://api.stripe.com", "STRIPE_KEY_FILE=/etc/billing-api/secrets/stripe.key",
        "PDF_CACHE_DIR=/var/cache/billing-api/pdf", "PDF_CACHE_MAX_MB=2048",
        "LOG_LEVEL=info", "LOG_FORMAT=json", "ACCESS_LOG=/var/log/billing-api/access.log",
        "ERROR_LOG=/var/log/billing-api/error.log", "SENTRY_DSN_FILE=/etc/billing-api/secrets/sentry.dsn",
        "TAX_TABLE_PATH=/srv/app/billing-api/data/tax_rates_2025.csv", "ROUNDING_MODE_DEFAULT=half_even",
        "FEATURE_INVOICE_PDF_V2=true", "FEATURE_PARTIAL_REFUNDS=true", "HEALTHCHECK_PATH=/healthz"])
    s_env = t.result(c, result={"path": "/etc/billing-api/billing.env", "size": len(envf), "content": envf})
    c = t.call("shell", {"command": "sudo ss -ltnp | grep -E ':(80|443|8080|8443)\\b' ; "
                                    "systemctl cat billing-api | grep -E 'ExecStart|EnvironmentFile'",
                         "cwd": "/etc/billing-api"})
    s_ss = t.result(c, result={"exit_code": 0, "stdout": "\n".join([
        "LISTEN 0      511          0.0.0.0:80         0.0.0.0:*    users:((\"nginx\",pid=1022,fd=6))",
        "LISTEN 0      511          0.0.0.0:443        0.0.0.0:*    users:((\"nginx\",pid=1022,fd=7))",
        "LISTEN 0      2048         0.0.0.0:8080       0.0.0.0:*    users:((\"gunicorn\",pid=41290,fd=5))",
        "ExecStart=/srv/app/billing-api/.venv/bin/gunicorn -c /srv/app/billing-api/gunicorn.conf.py "
        "billing.app:create_app()",
        "EnvironmentFile=/etc/billing-api/billing.env"]) + "\n", "stderr": "", "cwd": "/etc/billing-api"})
    t.asst("They disagree. /etc/billing-api/billing.env says PORT=8443 (rendered by ansible on Feb 19), and the "
           "unit loads that file, but the running gunicorn listens on 8080 and nothing listens on 8443, so nginx "
           "gets connection refused, hence 502s even for requests that wouldn't touch the database. Since the env "
           "file is right, something in the new code must ignore PORT. I'd check gunicorn.conf.py in the repo.")
    t.user("Yeah check it.")
    t.decision("d1-gunicorn-conf", [
        P_evidence([s_env, s_ss], "the config's port and the listening socket are the contradiction"),
        P_next("fs_read_file", {"path": "/srv/app/billing-api/gunicorn.conf.py"},
               "the repo path from the first message, not the current directory (/etc/billing-api)"),
        P_fact("upstream_port", 8443, "nginx proxies to 8443, as the user said"),
    ])
    c = t.call("fs_read_file", {"path": f"{REPO}/gunicorn.conf.py"})
    conf = "\n".join([
        "import multiprocessing", "import os", "",
        "# TLS listener (PR #398): if PORT_TLS is set we bind TLS there and plain HTTP on PORT",
        "port_tls = os.environ.get(\"PORT_TLS\")",
        "if port_tls:",
        "    bind = [f\"0.0.0.0:{port_tls}\", f\"0.0.0.0:{os.environ.get('PORT', '8080')}\"]",
        "    certfile = \"/etc/billing-api/tls/server.crt\"",
        "    keyfile = \"/etc/billing-api/tls/server.key\"",
        "else:",
        "    bind = \"0.0.0.0:8080\"  # TODO read PORT",
        "",
        "workers = int(os.environ.get(\"WORKERS\", multiprocessing.cpu_count() * 2 + 1))",
        "worker_class = os.environ.get(\"WORKER_CLASS\", \"gthread\")",
        "threads = int(os.environ.get(\"THREADS\", 4))",
        "timeout = int(os.environ.get(\"TIMEOUT\", 30))",
        "graceful_timeout = int(os.environ.get(\"GRACEFUL_TIMEOUT\", 20))",
        "keepalive = int(os.environ.get(\"KEEPALIVE\", 5))",
        "accesslog = os.environ.get(\"ACCESS_LOG\", \"-\")",
        "errorlog = os.environ.get(\"ERROR_LOG\", \"-\")",
        "loglevel = os.environ.get(\"LOG_LEVEL\", \"info\")",
        "access_log_format = '%(h)s %(l)s %(u)s %(t)s \"%(r)s\" %(s)s %(b)s %(L)s %({x-request-id}i)s'",
        "preload_app = True", "max_requests = 2000", "max_requests_jitter = 200"])
    t.result(c, result={"path": f"{REPO}/gunicorn.conf.py", "size": len(conf), "content": conf})
    c = t.call("shell", {"command": "git log -1 --format='%h %an %ad %s' -S'TODO read PORT' -- gunicorn.conf.py && "
                                    "git show --stat --format= HEAD~11 -- gunicorn.conf.py && git diff "
                                    "release-2025.02.19 HEAD -- gunicorn.conf.py", "cwd": REPO})
    t.result(c, result={"exit_code": 0, "stdout": "\n".join([
        "3f9c2d1 Lena Park Thu Feb 20 16:02:33 2025 +0000 Add TLS listener option (PORT_TLS)",
        " gunicorn.conf.py | 12 ++++++++----", " 1 file changed, 8 insertions(+), 4 deletions(-)",
        "diff --git a/gunicorn.conf.py b/gunicorn.conf.py", "index 5b0e1a2..c7d93f4 100644",
        "--- a/gunicorn.conf.py", "+++ b/gunicorn.conf.py", "@@ -1,7 +1,15 @@",
        " import multiprocessing", " import os", " ",
        "-bind = f\"{os.environ.get('BIND', '0.0.0.0')}:{os.environ.get('PORT', '8443')}\"",
        "+# TLS listener (PR #398): if PORT_TLS is set we bind TLS there and plain HTTP on PORT",
        "+port_tls = os.environ.get(\"PORT_TLS\")", "+if port_tls:",
        "+    bind = [f\"0.0.0.0:{port_tls}\", f\"0.0.0.0:{os.environ.get('PORT', '8080')}\"]",
        "+    certfile = \"/etc/billing-api/tls/server.crt\"", "+    keyfile = \"/etc/billing-api/tls/server.key\"",
        "+else:", "+    bind = \"0.0.0.0:8080\"  # TODO read PORT", " ",
        " workers = int(os.environ.get(\"WORKERS\", multiprocessing.cpu_count() * 2 + 1))",
        " worker_class = os.environ.get(\"WORKER_CLASS\", \"gthread\")"]) + "\n", "stderr": "", "cwd": REPO})
    t.asst("Found it. PR #398 (3f9c2d1, Feb 20, 'Add TLS listener option') rewrote the bind logic: before, it was "
           "`bind = BIND:PORT` with 8443 as the default; now, with PORT_TLS empty (as in your env file) it falls into the "
           "else branch, which hard-codes `bind = \"0.0.0.0:8080\"  # TODO read PORT`. Before that PR it read PORT. "
           "Two problems to fix: the bind, and the missing migration 0047.")
    t.user("Make a branch for the fix, call it hotfix/bind-port, and make the else branch use PORT with 8443 as "
           "the default. Then run the tests.")
    c = t.call("shell", {"command": "git switch -c hotfix/bind-port", "cwd": REPO})
    t.result(c, result={"exit_code": 0, "stdout": "", "stderr": "Switched to a new branch 'hotfix/bind-port'\n",
                        "cwd": REPO})
    new_conf = conf.replace("    bind = \"0.0.0.0:8080\"  # TODO read PORT",
                            "    bind = f\"0.0.0.0:{os.environ.get('PORT', '8443')}\"")
    c = t.call("fs_write_file", {"path": f"{REPO}/gunicorn.conf.py", "content": new_conf})
    t.result(c, result={"path": f"{REPO}/gunicorn.conf.py", "bytes_written": len(new_conf)})
    c = t.call("shell", {"command": "git diff", "cwd": REPO})
    t.result(c, result={"exit_code": 0, "stdout": "\n".join([
        "diff --git a/gunicorn.conf.py b/gunicorn.conf.py", "index c7d93f4..e21b0a9 100644",
        "--- a/gunicorn.conf.py", "+++ b/gunicorn.conf.py", "@@ -8,7 +8,7 @@ if port_tls:",
        "     certfile = \"/etc/billing-api/tls/server.crt\"", "     keyfile = \"/etc/billing-api/tls/server.key\"",
        " else:", "-    bind = \"0.0.0.0:8080\"  # TODO read PORT",
        "+    bind = f\"0.0.0.0:{os.environ.get('PORT', '8443')}\"", " "]) + "\n", "stderr": "", "cwd": REPO})
    c = t.call("shell", {"command": ".venv/bin/pytest -q -x --timeout 60 2>&1 | tail -30", "cwd": REPO})
    tests = [f"tests/{m}.py " + "".join(t.rng.choice("......") for _ in range(t.rng.randint(8, 40))) +
             f" [{p:3d}%]" for m, p in zip(["test_app", "test_auth", "test_customers", "test_invoices",
                                           "test_invoice_pdf", "test_payments", "test_refunds", "test_rounding",
                                           "test_tax", "test_webhooks", "test_healthz", "test_gunicorn_conf"],
                                          [8, 15, 24, 41, 50, 62, 71, 80, 88, 95, 97, 100])]
    t.result(c, result={"exit_code": 0, "stdout": "\n".join(tests) + "\n" + "\n".join([
        "=============================== warnings summary ===============================",
        "tests/test_invoice_pdf.py::test_cache_headers",
        "  /srv/app/billing-api/.venv/lib/python3.12/site-packages/weasyprint/__init__.py:37: UserWarning: ",
        "  fontconfig cache is stale", "",
        "-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html",
        "412 passed, 3 skipped, 1 warning in 48.31s"]) + "\n", "stderr": "", "cwd": REPO})
    t.asst("On branch hotfix/bind-port: the else branch now binds 0.0.0.0:${PORT:-8443}, so with your env file "
           "(PORT=8443, PORT_TLS empty) it listens where nginx expects. The diff is that one line. Tests: 412 "
           "passed, 3 skipped, one harmless fontconfig warning from weasyprint. Note the suite doesn't exercise "
           "gunicorn.conf.py's bind at all, so the real check is after the restart.")
    t.user("Good. Now run the missing migration. Use the make target, it takes a backup first.")
    c_mig = t.call("shell", {"command": "make db-migrate ENV=production", "cwd": REPO, "timeout_s": 120})
    s_mig = t.cseq(c_mig)
    t.timeout(c_mig, "command still running after 120 s; detached as background job 7 (pid 51877)")
    t.asst("`make db-migrate` is still running after the tool's 120 s limit (the backup of the invoices table "
           "takes a while). It's detached as background job 7. I'll check on it rather than start it again: a "
           "second run would take a second backup and could race the first.")
    t.user("While it runs, totally unrelated: the nightly cron that cleans the PDF cache, is it even running? "
           "Check its log.")
    t.topic_switch("deploy fix", "pdf cache cron")
    c = t.call("shell", {"command": "crontab -l; ls -la /var/log/billing-api/; tail -15 "
                                    "/var/log/billing-api/pdf-cache-clean.log", "cwd": "/var/log/billing-api"})
    cronlog = [f"2025-02-{d:02d}T03:15:0{t.rng.randint(0, 9)}Z pdf-cache-clean: removed {t.rng.randint(200, 1900)} "
               f"files ({t.rng.randint(150, 900)} MB), cache now {t.rng.randint(600, 1900)} MB" for d in range(14, 26)]
    cronlog += ["2025-02-26T03:15:02Z pdf-cache-clean: ERROR PermissionError: [Errno 13] Permission denied: "
                "'/var/cache/billing-api/pdf/2025-02-25'",
                "2025-02-27T03:15:01Z pdf-cache-clean: ERROR PermissionError: [Errno 13] Permission denied: "
                "'/var/cache/billing-api/pdf/2025-02-26'",
                "2025-02-28T03:15:03Z pdf-cache-clean: ERROR PermissionError: [Errno 13] Permission denied: "
                "'/var/cache/billing-api/pdf/2025-02-27'"]
    t.result(c, result={"exit_code": 0, "stdout": "\n".join([
        "# m h dom mon dow command", "15 3 * * * /srv/app/billing-api/scripts/pdf_cache_clean.sh >> "
        "/var/log/billing-api/pdf-cache-clean.log 2>&1", "0 * * * * /usr/local/bin/logrotate-billing",
        "total 220484", "drwxr-x--- 2 deploy adm      4096 Feb 28 07:00 .",
        "-rw-r----- 1 deploy adm 181220311 Feb 28 08:41 access.log",
        "-rw-r----- 1 deploy adm  23101442 Feb 28 08:41 error.log",
        "-rw-r----- 1 deploy adm     48112 Feb 28 03:15 pdf-cache-clean.log"] + cronlog) + "\n",
        "stderr": "", "cwd": "/var/log/billing-api"})
    t.asst("It runs every night at 03:15 but has failed the last three nights with PermissionError on the day "
           "folders under /var/cache/billing-api/pdf, starting Feb 26. Before that it removed a few hundred MB a "
           "night. Likely the new PDF v2 code creates the day folders as another user or with 0700.")
    t.user("Show me the permissions on those folders.")
    c = t.call("shell", {"command": "ls -la /var/cache/billing-api/pdf/ | tail -14; id deploy; ps -o user= -p "
                                    "$(pgrep -f 'gunicorn.*billing' | head -1)", "cwd": "/var/log/billing-api"})
    perm = ["total 64", "drwxr-xr-x 16 deploy deploy 4096 Feb 28 07:12 ."]
    for d in range(16, 29):
        owner = "deploy deploy" if d < 25 else "billing billing"
        mode = "drwxr-xr-x" if d < 25 else "drwx------"
        perm.append(f"{mode}  2 {owner} {t.rng.randint(4096, 90112):>5} Feb {d} 23:59 2025-02-{d:02d}")
    t.result(c, result={"exit_code": 0, "stdout": "\n".join(perm) + "\nuid=1001(deploy) gid=1001(deploy) "
                                                             "groups=1001(deploy),4(adm)\nbilling\n",
                        "stderr": "", "cwd": "/var/log/billing-api"})
    t.asst("That's it: since Feb 25 the day folders belong to a 'billing' user with mode 0700, while the cron job "
           "runs as deploy. The running gunicorn workers run as 'billing', so the PDF v2 code creates the folders "
           "with a private umask. Fix options: a group-writable umask in the app, or run the cron as billing.")
    t.user("OK, ticket that for later, not now. Back to the migration, did it finish?")
    t.topic_switch("pdf cache cron", "deploy fix")
    t.decision("d2-migration", [
        P_state("unknown", "the migration timed out in the tool and has not been confirmed", call_id=c_mig),
        P_pending("it has no definitive answer yet", call_id=c_mig),
        P_next("shell", {"cwd": "/srv/app/billing-api"}, "the shell is in /var/log/billing-api now; migration "
                                                         "checks run from the repo"),
    ])
    t.status_query(c_mig, "succeeded", request_id="job-7-exit-0", exit_code=0, stdout_tail="\n".join([
        "pg_dump: dumping contents of table \"public.invoices\" (2,913,442 rows)",
        "backup written: /var/backups/billing/pre-0047-20250228T084012Z.dump (1.9 GB)",
        "Running migrations:", "  Applying billing.0047_invoice_rounding_mode... OK (38.2s)",
        "Migrations complete: 1 applied"]))
    c = t.call("shell", {"command": ".venv/bin/python -m billing.manage showmigrations billing | tail -6",
                         "cwd": REPO})
    t.result(c, result={"exit_code": 0, "stdout": " [X] 0042_refund_reason\n [X] 0043_customer_tax_ids\n"
                                                  " [X] 0044_invoice_pdf_cache\n [X] 0045_webhook_retry\n"
                                                  " [X] 0046_taxtable_ref\n [X] 0047_invoice_rounding_mode\n",
                        "stderr": "", "cwd": REPO})
    c = t.call("shell", {"command": "psql \"$DATABASE_URL\" -c '\\d invoices' | head -40", "cwd": REPO})
    cols = [("id", "bigint", "not null", "nextval('invoices_id_seq'::regclass)"), ("public_id", "text", "not null", ""),
            ("customer_id", "bigint", "not null", ""), ("status", "text", "not null", "'draft'::text"),
            ("currency", "character(3)", "not null", ""), ("subtotal_cents", "bigint", "not null", "0"),
            ("tax_cents", "bigint", "not null", "0"), ("total_cents", "bigint", "not null", "0"),
            ("rounding_mode", "text", "", "'half_even'::text"), ("issued_at", "timestamp with time zone", "", ""),
            ("due_at", "timestamp with time zone", "", ""), ("paid_at", "timestamp with time zone", "", ""),
            ("pdf_cache_key", "text", "", ""), ("created_at", "timestamp with time zone", "not null", "now()"),
            ("updated_at", "timestamp with time zone", "not null", "now()")]
    table = ["                          Table \"public.invoices\"",
             "     Column      |           Type           | Collation | Nullable |              Default",
             "-----------------+--------------------------+-----------+----------+-----------------------------------"]
    table += [f" {a:<15} | {b:<24} |           | {c:<8} | {d}" for a, b, c, d in cols]
    table += ["Indexes:", "    \"invoices_pkey\" PRIMARY KEY, btree (id)",
              "    \"invoices_public_id_key\" UNIQUE CONSTRAINT, btree (public_id)",
              "    \"invoices_customer_id_issued_at_idx\" btree (customer_id, issued_at DESC)",
              "Check constraints:", "    \"invoices_rounding_mode_check\" CHECK (rounding_mode = ANY "
              "(ARRAY['half_up'::text, 'half_even'::text]))",
              "Foreign-key constraints:", "    \"invoices_customer_id_fkey\" FOREIGN KEY (customer_id) REFERENCES "
              "customers(id)"]
    t.result(c, result={"exit_code": 0, "stdout": "\n".join(table) + "\n", "stderr": "", "cwd": REPO})
    t.asst("The migration finished: backup /var/backups/billing/pre-0047-20250228T084012Z.dump (1.9 GB), then "
           "0047_invoice_rounding_mode applied in 38 s. showmigrations confirms 0047, and the invoices table now "
           "has rounding_mode (text, default 'half_even', with a check constraint for half_up/half_even). "
           "Existing rows got NULL, though, not the default; that's what the backfill script is for.")
    t.user("Restart the service so it picks up the hotfix. Make sure it comes up on the right port.")
    t.decision("d3-restart", [
        P_state("succeeded", "the migration is confirmed", call_id=c_mig, request_id="job-7-exit-0"),
        P_constraint(s_port, "8443", "the service must come up where nginx proxies to"),
    ])
    c_rs = t.call("shell", {"command": "sudo systemctl restart billing-api && sleep 5 && systemctl is-active "
                                       "billing-api && sudo ss -ltnp | grep gunicorn && curl -sS -o /dev/null -w "
                                       "'%{http_code}\\n' http://127.0.0.1:8443/healthz", "cwd": REPO})
    s_rs = t.cseq(c_rs)
    t.approval("apr-restart", "requested", s_rs)
    t.asst("Restarting billing-api (about 5 s of downtime, it's already failing anyway) and checking it listens "
           "on 8443 with /healthz. Approve?")
    t.user("Go. It can't get worse than a crash loop. If it doesn't come up on 8443 within a few seconds, tell "
           "me immediately and don't try anything else on your own.")
    t.approval("apr-restart", "granted", s_rs)
    t.result(c_rs, result={"exit_code": 0, "stdout": "active\nLISTEN 0 2048 0.0.0.0:8443 0.0.0.0:* "
                                                     "users:((\"gunicorn\",pid=52110,fd=5))\n200\n",
                           "stderr": "", "cwd": REPO})
    c = t.call("shell", {"command": "tail -15 /var/log/billing-api/access.log", "cwd": REPO})
    t.result(c, result={"exit_code": 0, "stdout": "\n".join(
        f"10.0.3.{t.rng.randint(2, 40)} - - [28/Feb/2025:08:4{7 + i // 8}:{t.rng.randint(10, 59)} +0000] "
        f"\"{t.rng.choice(['GET', 'GET', 'GET', 'POST'])} /v1/"
        f"{t.rng.choice(['invoices/inv_' + t.alnum(8), 'customers/cus_' + t.alnum(8), 'invoices?status=open', 'refunds'])} "
        f"HTTP/1.1\" {t.rng.choice([200, 200, 200, 201, 404])} {t.rng.randint(200, 4000)} 0.0{t.rng.randint(10, 90)} "
        f"req_{t.hexid(12)}" for i in range(15)) + "\n", "stderr": "", "cwd": REPO})
    c = t.call("shell", {"command": "tail -6 /var/log/billing-api/error.log", "cwd": REPO})
    t.result(c, result={"exit_code": 0, "stdout": "\n".join([
        "{\"ts\": \"2025-02-28T08:47:02Z\", \"level\": \"info\", \"msg\": \"Starting gunicorn 23.0.0\"}",
        "{\"ts\": \"2025-02-28T08:47:02Z\", \"level\": \"info\", \"msg\": \"Listening at: "
        "http://0.0.0.0:8443 (52110)\"}",
        "{\"ts\": \"2025-02-28T08:47:02Z\", \"level\": \"info\", \"msg\": \"Using worker: gthread\"}"] + [
        f"{{\"ts\": \"2025-02-28T08:47:0{3 + i}Z\", \"level\": \"info\", \"msg\": \"Booting worker with "
        f"pid: {52111 + i}\"}}" for i in range(3)]) + "\n", "stderr": "", "cwd": REPO})
    t.asst("Back up: active, gunicorn listening on 0.0.0.0:8443, /healthz 200, workers booting without errors, "
           "and the access log shows real invoice requests returning 200 again.")
    s_tix = t.user("Great. Now the invoices created while it was broken: there's a backfill script. Run it for "
                   "everything since this morning's deploy, 07:10 UTC. Reference ticket BILL-2291 in the log "
                   "message.")
    t.fact("ticket", "BILL-2291")
    c_bf = t.call("shell", {"command": "./scripts/backfill_invoices.sh --since 2025-02-28T07:10:00Z "
                                       "--reason 'BILL-2291 rounding_mode backfill' --batch 500", "cwd": REPO,
                            "timeout_s": 120})
    s_bf = t.cseq(c_bf)
    t.asst("Backfill started for invoices since 07:10 UTC, in batches of 500, with 'BILL-2291 rounding_mode "
           "backfill' as the reason. It logs to /var/log/billing-api/backfill.log.")
    t.recover()
    t.system("Agent process restarted (SSH connection to bill-prod-2 dropped). Re-attached to the session.")
    t.user("Hey, I saw you dropped off. Did the backfill finish? And sorry, the ticket is BILL-2219, not 2291, same "
           "as the rounding fix.")
    t.correction("ticket", "BILL-2219")
    t.decision("d4-after-restart", [
        P_state("unknown", "the backfill was running when the agent restarted", call_id=c_bf),
        P_pending("the backfill has no answer", call_id=c_bf),
        P_fact("ticket", "BILL-2219", "the corrected ticket number", superseded=["BILL-2291"]),
        P_evidence([s_bf], "the exact backfill command (its --since and batch) is what must be checked"),
    ])
    t.status_query(c_bf, "unknown", detail="no process found for the previous session; the script writes no "
                                           "pid file; last log line unknown")
    c = t.call("shell", {"command": "ps aux | grep -c [b]ackfill_invoices; tail -8 /var/log/billing-api/backfill.log",
                         "cwd": REPO})
    bfl = [f"2025-02-28T08:5{i // 2}:{t.rng.randint(10, 59)}Z backfill: batch {i + 1} invoices {i * 500 + 1}-"
           f"{(i + 1) * 500} rounding_mode=half_even OK" for i in range(6)]
    bfl.append("2025-02-28T08:53:41Z backfill: batch 7 invoices 3001-3500 started")
    t.result(c, result={"exit_code": 0, "stdout": "0\n" + "\n".join(bfl) + "\n", "stderr": "", "cwd": REPO})
    c = t.call("shell", {"command": "psql \"$DATABASE_URL\" -tAc \"select count(*) filter (where rounding_mode is "
                                    "null), count(*) from invoices where created_at >= '2025-02-28T07:10:00Z'\"",
                         "cwd": REPO})
    t.result(c, result={"exit_code": 0, "stdout": "902|3688\n", "stderr": "", "cwd": REPO})
    t.asst("I can't tell whether it finished. The database still has 902 of the 3,688 invoices since 07:10 with "
           "no rounding_mode. The process is gone (it died with the SSH session), and the log "
           "stops at 'batch 7 invoices 3001-3500 started' at 08:53:41. Batches 1-6 are logged OK. Batch 7 may have "
           "been half-written; the script doesn't say whether a batch is transactional. Noted BILL-2219.")
    t.user("The script is idempotent per invoice, so just re-run it from batch 7 with the right ticket. And this "
           "time run it under nohup so it survives.")
    t.decision("d5-rerun", [
        P_next("shell", {"since": "2025-02-28T07:10:00Z", "reason": "BILL-2219", "cwd": "/srv/app/billing-api"},
               "the original --since and the corrected ticket"),
        P_state("unknown", "the first backfill's outcome stays unknown", call_id=c_bf),
    ])
    c_bf2 = t.call("shell", {"command": "nohup ./scripts/backfill_invoices.sh --since 2025-02-28T07:10:00Z "
                                        "--reason 'BILL-2219 rounding_mode backfill' --batch 500 --start-batch 7 "
                                        "> /var/log/billing-api/backfill-2.log 2>&1 & echo $!", "cwd": REPO})
    t.result(c_bf2, result={"exit_code": 0, "stdout": "53310\n", "stderr": "", "cwd": REPO})
    c = t.call("shell", {"command": "sleep 60; tail -4 /var/log/billing-api/backfill-2.log", "cwd": REPO})
    t.result(c, result={"exit_code": 0, "stdout": "\n".join([
        "2025-02-28T09:04:11Z backfill: connecting to db-prod-1.internal:5432/billing (pool 2)",
        "2025-02-28T09:04:11Z backfill: scope created_at >= 2025-02-28T07:10:00Z, 3688 invoices, batch size 500",
        "2025-02-28T09:04:12Z backfill: --start-batch 7: skipping batches 1-6 (3000 invoices)",
        "2025-02-28T09:04:12Z backfill: resuming at batch 7", "2025-02-28T09:04:40Z backfill: batch 7 invoices "
        "3001-3500 rounding_mode=half_even OK (214 already set, skipped)", "2025-02-28T09:05:02Z backfill: batch 8 "
        "invoices 3501-3688 rounding_mode=half_even OK", "2025-02-28T09:05:02Z backfill: done, 3688 invoices, "
        "reason='BILL-2219 rounding_mode backfill'"]) + "\n", "stderr": "", "cwd": REPO})
    t.asst("Re-run (pid 53310, under nohup) resumed at batch 7: 214 invoices in batch 7 were already set (so the "
           "first run got partway through it), and batches 7-8 finished. Total 3,688 invoices, logged with "
           "BILL-2219.")
    s_keep = t.user("Good. Last thing: /srv/app/releases is filling the disk. Delete old release directories but "
                    "keep the last 3.")
    c = t.call("shell", {"command": "cd /srv/app/releases && ls -1dt */ | head -20 && df -h /srv", "cwd": REPO})
    rels = ["2025.02.28", "2025.02.19", "2025.02.11", "2025.02.04", "2025.01.28", "2025.01.21", "2025.01.14",
            "2025.01.07", "2024.12.17", "2024.12.10", "2024.12.03", "2024.11.26"]
    t.result(c, result={"exit_code": 0, "stdout": "\n".join(r + "/" for r in rels) + "\n"
                        "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme1n1p1   50G   46G  4.0G  92% /srv\n",
                        "stderr": "", "cwd": "/srv/app/releases"})
    t.asst("12 release directories in /srv/app/releases; the newest three are 2025.02.28 (current), 2025.02.19 "
           "and 2025.02.11. The other nine go, 2025.02.04 back to 2024.11.26. /srv is at 92%.")
    t.user("Yes, delete those nine.")
    t.decision("d6-delete-releases", [
        P_next("fs_delete", {"dir": "/srv/app/releases", "first_to_delete": "2025.02.04"},
               "the directory and the release names come from the listing"),
        P_constraint(s_keep, "keep the last 3", "2025.02.28, 2025.02.19 and 2025.02.11 must survive"),
        P_next("shell", {"cwd": "/srv/app/releases"}, "the shell moved to the releases directory"),
        P_fact("cwd", "/srv/app/releases", "the shell's reported directory", superseded=["/srv/app/billing-api"]),
    ])
    c_del = t.call("fs_delete", {"path": "/srv/app/releases", "targets": [f"/srv/app/releases/{r}" for r in rels[3:]],
                                 "recursive": True})
    s_del = t.cseq(c_del)
    t.approval("apr-rm-releases", "requested", s_del)
    t.asst("Permanently deleting 9 directories: /srv/app/releases/2025.02.04 through 2024.11.26. Keeping "
           "2025.02.28, 2025.02.19, 2025.02.11. Approve?")
    t.user("Approved.")
    t.approval("apr-rm-releases", "granted", s_del)
    t.result(c_del, request_id="rm-rel-0f8e21", result={"deleted": [f"/srv/app/releases/{r}" for r in rels[3:]],
                                                        "freed_bytes": 19864436736})
    c = t.call("shell", {"command": "ls -1 && df -h /srv", "cwd": "/srv/app/releases"})
    t.result(c, result={"exit_code": 0, "stdout": "2025.02.11\n2025.02.19\n2025.02.28\nFilesystem      Size  Used "
                                                  "Avail Use% Mounted on\n/dev/nvme1n1p1   50G   27G   24G  53% /srv\n",
                        "stderr": "", "cwd": "/srv/app/releases"})
    c = t.call("shell", {"command": "du -sh /srv/app/* /srv/app/releases/* 2>/dev/null | sort -rh", "cwd": "/srv/app/releases"})
    t.result(c, result={"exit_code": 0, "stdout": "\n".join([
        "6.8G\t/srv/app/releases", "4.1G\t/srv/app/billing-api", "2.3G\t/srv/app/releases/2025.02.28",
        "2.3G\t/srv/app/releases/2025.02.19", "2.2G\t/srv/app/releases/2025.02.11", "1.1G\t/srv/app/reports-worker",
        "412M\t/srv/app/ops-scripts", "96M\t/srv/app/tls-bootstrap"]) + "\n", "stderr": "", "cwd": "/srv/app/releases"})
    t.asst("Deleted the nine old releases (18.5 GiB). Remaining: 2025.02.11, 2025.02.19, 2025.02.28. /srv is at "
           "53% now.")
    t.user("Show me the bug in the deploy script so I can put it in the follow-up ticket. It's deploy/deploy.sh "
           "in the repo.")
    c = t.call("fs_read_file", {"path": f"{REPO}/deploy/deploy.sh"})
    dep = "\n".join([
        "#!/usr/bin/env bash", "# deploy.sh - invoked by CI on tag push: deploy.sh <release>", "set -euo pipefail",
        "RELEASE=\"$1\"", "APP=/srv/app/billing-api", "RELEASES=/srv/app/releases", "",
        "log() { echo \"[deploy $(date -u +%FT%TZ)] $*\"; }", "",
        "log \"fetching $RELEASE\"", "git -C \"$APP\" fetch --tags origin",
        "git -C \"$APP\" checkout -q \"release-$RELEASE\"", "",
        "log \"snapshot to $RELEASES/$RELEASE\"", "rsync -a --delete --exclude .venv \"$APP/\" \"$RELEASES/$RELEASE/\"", "",
        "log \"installing dependencies\"", "\"$APP/.venv/bin/pip\" install -q -r \"$APP/requirements.lock\"", "",
        "# run migrations only when the migrations directory changed",
        "if git -C \"$APP\" diff --quiet \"$PREVIOUS_RELEASE\" HEAD -- billing/migrations; then",
        "  log \"no migration changes\"", "else", "  make -C \"$APP\" db-migrate ENV=production", "fi", "",
        "log \"restarting\"", "sudo systemctl restart billing-api", "log \"done\""])
    t.result(c, result={"path": f"{REPO}/deploy/deploy.sh", "size": len(dep), "content": dep})
    t.asst("The bug: the migration step compares `$PREVIOUS_RELEASE` to HEAD, but the script never sets "
           "PREVIOUS_RELEASE. With `set -u` that should abort... except CI exports PREVIOUS_RELEASE as an empty "
           "string, so `git diff --quiet \"\" HEAD` diffs the working tree against HEAD, finds no changes in "
           "billing/migrations, and logs 'no migration changes'. Fix: set PREVIOUS_RELEASE from the previous tag "
           "(or always run migrate; Django-style migrations are idempotent).")
    t.user("Perfect. Push the hotfix branch and give me a summary for the incident channel. Keep it short, "
           "people only read the first five lines. Mention the backfill and what's still open, and that the "
           "hotfix was applied by hand so nobody redeploys the broken tag over it.")
    t.decision("d7-summary", [
        P_next("shell", {"branch": "hotfix/bind-port", "cwd": "/srv/app/billing-api"},
               "the branch name and the repo path from much earlier; the shell is in the releases directory"),
        P_state("succeeded", "the deletion went through", call_id=c_del, request_id="rm-rel-0f8e21"),
        P_fact("ticket", "BILL-2219", "the summary must cite the corrected ticket", superseded=["BILL-2291"]),
        P_fact("cwd", "/srv/app/releases", "the push must cd back to the repo first"),
        P_state("unknown", "the first backfill run is still formally unknown (superseded by the re-run)",
                call_id=c_bf),
    ])
    c = t.call("shell", {"command": "cd /srv/app/billing-api && git add gunicorn.conf.py && git commit -m "
                                    "'Bind PORT (default 8443) when PORT_TLS is unset (BILL-2219)' && git push -u "
                                    "origin hotfix/bind-port", "cwd": "/srv/app/releases"})
    t.result(c, result={"exit_code": 0, "stdout": "[hotfix/bind-port 7c41e0a] Bind PORT (default 8443) when PORT_TLS "
                                                  "is unset (BILL-2219)\n 1 file changed, 1 insertion(+), 1 "
                                                  "deletion(-)\n", "stderr": "remote: Create a pull request for "
                                                  "'hotfix/bind-port':\nremote:   https://git.example.internal/"
                                                  "billing/billing-api/pull/new/hotfix/bind-port\nTo "
                                                  "git.example.internal:billing/billing-api.git\n * [new branch]      "
                                                  "hotfix/bind-port -> hotfix/bind-port\n", "cwd": "/srv/app/billing-api"})
    t.asst("Pushed hotfix/bind-port (7c41e0a). Summary for the channel:\n*billing-api 502s, 2025-02-28 07:10-08:47 "
           "UTC (BILL-2219)*\n- Cause 1: deploy skipped migration 0047; workers crashed on missing "
           "invoices.rounding_mode. Ran `make db-migrate` (backup pre-0047-20250228T084012Z.dump).\n- Cause 2: "
           "gunicorn.conf.py from PR #398 hard-coded 8080 when PORT_TLS is unset; nginx proxies to 8443. Hotfix on "
           "branch hotfix/bind-port, deployed by hand; PR pending.\n- Backfilled 3,688 invoices created during the "
           "outage (first run died with the SSH session mid-batch 7; re-run under nohup completed).\n- Cleanup: "
           "deleted 9 old releases, /srv 92% -> 53%.\n- Follow-up: nightly PDF cache clean failing since Feb 26 "
           "(PermissionError, day folders owned by billing with 0700), not yet ticketed; deploy.sh compares "
           "against an empty PREVIOUS_RELEASE, so migrations are skipped.\n- Do NOT redeploy release-2025.02.28 "
           "until hotfix/bind-port is merged and tagged.")
    return t
# --- t13 end ---


# --- t14 start ---
@trajectory
def t14_lab_core() -> T:
    t = T(14, "lab-core-booking", "h3-lab-core-booking",
          "Core facility: a staff-assisted mass-spec run, a sample manifest with a correction, confocal bookings",
          ["a grant chartfield and a user id typed once are needed for later bookings",
           "the instrument calendar shows a free slot the service log says is out of service (contradiction)",
           "an assisted-run request times out and is confirmed by status_query; a booking stays unknown",
           "a sample volume is corrected and the manifest re-submitted",
           "a cancellation fee is approved; a funding constraint (not after March 31) typed once",
           "booking ids returned early are needed to cancel and to attach samples",
           "a side topic (cryostat training) and the return"],
          "A postdoc books instrument time at a proteomics and imaging core with the facility's assistant.")
    FAC = "CORE-PIC"
    ME = "wzhao3"
    CF = "5521-R01GM148812-60410"
    t.system("You are the booking assistant of the Proteomics & Imaging Core (CORE-PIC). Bookings are charged to "
             "the chartfield given; cancellations within 48 h incur the facility's late fee.")
    t.user(f"Hi, this is Wen Zhao ({ME}). I need mass spec time for 24 TMT-labelled samples next week, and a "
           f"confocal session. Charge everything to {CF}.")
    t.fact("chartfield", CF)
    s_lab = t.fact("labeling", "TMT")
    c = t.call("lab_list_instruments", {"facility": FAC})
    inst = [("INS-OE480", "Orbitrap Exploris 480 + Vanquish Neo", "mass_spec", "operational", "assisted_only", 95),
            ("INS-QE-HFX", "Q Exactive HF-X", "mass_spec", "operational", "assisted_only", 80),
            ("INS-TIMSTOF", "timsTOF Pro 2", "mass_spec", "maintenance", "assisted_only", 110),
            ("INS-LSM980", "Zeiss LSM 980 Airyscan 2", "confocal", "operational", "self_service", 42),
            ("INS-SP8", "Leica SP8 STED", "confocal", "operational", "self_service", 55),
            ("INS-SDISK", "Nikon CSU-W1 spinning disk", "confocal", "operational", "self_service", 38),
            ("INS-LS7", "Zeiss Lightsheet 7", "lightsheet", "operational", "trained_users", 48),
            ("INS-FACS", "BD FACSymphony S6", "cytometry", "operational", "assisted_only", 120),
            ("INS-AURORA", "Cytek Aurora 5L", "cytometry", "operational", "self_service", 60),
            ("INS-CRYO", "Leica CM3050 S cryostat", "histology", "operational", "trained_users", 12),
            ("INS-TEM", "JEOL JEM-1400Flash", "em", "operational", "assisted_only", 90),
            ("INS-PLATE", "Tecan Spark plate reader", "plate_reader", "operational", "self_service", 10),
            ("INS-QPCR", "QuantStudio 7 Pro", "qpcr", "operational", "self_service", 15),
            ("INS-NANO", "NanoDrop One", "spectro", "operational", "walk_up", 0)]
    t.result(c, result={"facility": FAC, "instruments": [
        {"instrument_id": a, "name": b, "category": k, "status": st, "access": ac, "rate_per_hour_internal": f"{r:.2f}",
         "rate_per_hour_external": f"{r * 1.6:.2f}",
         "location": f"BSB {t.rng.choice(['B112', 'B114', 'B120', '2.204', '2.210'])}",
         "staff_contact": t.rng.choice(["J. Brennan", "R. Osei", "K. Frey", "M. Idowu"])}
        for a, b, k, st, ac, r in inst], "hours": "Mon-Fri 08:00-20:00; assisted runs Mon-Thu",
        "policies_url": "https://cores.example.edu/pic/policies"})
    t.asst("For TMT samples the core has the Orbitrap Exploris 480 (INS-OE480, $95/h) and the Q Exactive HF-X "
           "(INS-QE-HFX, $80/h); both are staff-assisted only. For confocal: the Zeiss LSM 980 Airyscan "
           "(INS-LSM980, $42/h), Leica SP8 STED and a Nikon spinning disk, self-service. Let me check your "
           "training.")
    c = t.call("lab_training_status", {"user_id": ME})
    t.result(c, result={"user_id": ME, "name": "Wen Zhao", "pi": "M. Okafor", "trainings": [
        {"instrument_id": "INS-LSM980", "level": "independent", "expires": "2026-01-15"},
        {"instrument_id": "INS-SDISK", "level": "independent", "expires": "2025-09-30"},
        {"instrument_id": "INS-CRYO", "level": "none"},
        {"instrument_id": "INS-OE480", "level": "sample_submission_only"}],
        "safety": {"biosafety_bsl2": "current", "laser_safety": "current", "chemical_hygiene": "current"}})
    t.asst("You're independent on the LSM 980 (until Jan 2026) and the spinning disk; for the Exploris you can "
           "submit samples for an assisted run. All safety trainings are current.")
    t.user("Exploris please, my PI wants the 480. What's open next week?")
    c = t.call("lab_calendar", {"instrument_id": "INS-OE480", "from": "2025-03-03", "to": "2025-03-07"})
    cal = []
    for d, day in zip(range(3, 8), ["Mon", "Tue", "Wed", "Thu", "Fri"]):
        for slot in ("08:00-14:00", "14:00-20:00", "20:00-08:00"):
            if (d, slot) in ((3, "14:00-20:00"), (4, "20:00-08:00")):
                cal.append({"date": f"2025-03-{d:02d}", "day": day, "slot": slot, "status": "open"})
            else:
                cal.append({"date": f"2025-03-{d:02d}", "day": day, "slot": slot, "status": "booked",
                            "group": t.rng.choice(["Okafor", "Lindqvist", "Mahmoud", "Reyes-Torres", "QC",
                                                   "Becker", "Sato"]),
                            "booking_id": f"BK-{t.rng.randint(40000, 49999)}"})
    s_cal = t.result(c, result={"instrument_id": "INS-OE480", "slots": cal,
                                "method_note": "TMT 16-plex, 2 h gradient: ~1 fraction per 2.3 h"})
    t.asst("The Exploris is busy next week. Two open slots: Mon Mar 3, 14:00-20:00, and the overnight Tue Mar 4 20:00 to "
           "Wed 08:00. For 24 fractions at ~2.3 h each you'd need about 55 h, so neither fits the whole set. Were you "
           "planning to fractionate, or are these 24 single-shot samples?")
    t.user("24 single shots, 2h gradients. So ~50h? Hmm. Check the service log first, someone told me it was "
           "acting up.")
    c = t.call("lab_instrument_log", {"instrument_id": "INS-OE480", "since": "2025-02-17"})
    ilog = []
    for i in range(14):
        d = 17 + i
        if d > 28:
            break
        ilog.append(f"2025-02-{d:02d} {t.rng.randint(7, 9):02d}:{t.rng.randint(0, 59):02d} "
                    + t.rng.choice(["QC HeLa 200 ng: 6,412 proteins, mass accuracy 1.1 ppm - PASS",
                                    "QC HeLa 200 ng: 6,377 proteins, mass accuracy 1.4 ppm - PASS",
                                    "Vanquish Neo: column swap (PepMap Neo 75um x 50cm)", "Ion transfer tube cleaned",
                                    "QC HeLa 200 ng: 6,502 proteins, mass accuracy 0.9 ppm - PASS"]))
    ilog += ["2025-02-27 16:40 QC HeLa 200 ng: 4,118 proteins, mass accuracy 4.8 ppm - FAIL (drift)",
             "2025-02-27 17:05 Recalibration (FlexMix) - FAIL: calibrant intensity low, RF lens voltage unstable",
             "2025-02-28 09:12 Thermo FSE visit scheduled: 2025-03-03 09:00-17:00 (RF board replacement)",
             "2025-02-28 09:15 STATUS: out of service 2025-03-03 08:00 through 2025-03-04 20:00 pending "
             "repair and QC; calendar block requested"]
    s_ilog = t.result(c, result={"instrument_id": "INS-OE480", "entries": ilog,
                                 "current_status": "out_of_service_scheduled"})
    t.asst("Good that you asked: the calendar shows Monday 14:00-20:00 as open, but the service log says the "
           "Exploris failed QC on Feb 27 (mass accuracy 4.8 ppm, recalibration failed) and is out of service from "
           "Mon Mar 3 08:00 to Tue Mar 4 20:00 for an RF board replacement. The block hasn't reached the calendar "
           "yet. So Monday's slot isn't real; the overnight from Tue Mar 4 20:00 would be the first run after the "
           "repair.")
    t.user("Is the HF-X any better next week? Just so I can tell my PI.")
    c = t.call("lab_calendar", {"instrument_id": "INS-QE-HFX", "from": "2025-03-03", "to": "2025-03-07"})
    hfx = []
    for d, day in zip(range(3, 8), ["Mon", "Tue", "Wed", "Thu", "Fri"]):
        for slot in ("08:00-14:00", "14:00-20:00", "20:00-08:00"):
            free = (d, slot) in ((3, "08:00-14:00"), (3, "14:00-20:00"), (3, "20:00-08:00"), (4, "08:00-14:00"),
                                 (6, "20:00-08:00"))
            row = {"date": f"2025-03-{d:02d}", "day": day, "slot": slot, "status": "open" if free else "booked"}
            if not free:
                row.update({"group": t.rng.choice(["Lindqvist", "Mahmoud", "QC", "Sato", "Ferreira"]),
                            "booking_id": f"BK-{t.rng.randint(40000, 49999)}"})
            hfx.append(row)
    t.result(c, result={"instrument_id": "INS-QE-HFX", "slots": hfx,
                        "method_note": "LFQ-DIA-120 available; ~15% fewer protein IDs than the Exploris 480 on HeLa"})
    t.asst("The HF-X has Monday fully open (day, afternoon and night) plus Tuesday morning and Thursday night, so "
           "it could start three days earlier. The catch: on the same DIA method it identifies about 15% fewer "
           "proteins than the Exploris 480. If your PI wants the 480, the first realistic start is Tuesday night.")
    t.user("Ugh. OK, request an assisted run starting Tuesday night, and ask them to continue into the next open "
           "slots. 24 samples, 2 h gradient, TMT... actually no, label-free, I mixed it up with the other project.")
    t.correction("labeling", "label-free", supersedes=s_lab)
    t.decision("d1-request-assisted", [
        P_evidence([s_cal, s_ilog], "the calendar's free slot and the service log's outage are the contradiction"),
        P_next("lab_request_assisted", {"instrument_id": "INS-OE480", "chartfield": CF, "user_id": ME},
               "the chartfield and the user id were typed in the first message"),
    ])
    c_as = t.call("lab_request_assisted", {"instrument_id": "INS-OE480", "user_id": ME, "chartfield": CF,
                                           "start_after": "2025-03-04T20:00", "samples": 24, "gradient_min": 120,
                                           "labeling": "label-free", "continue_into_open_slots": True})
    s_as = t.cseq(c_as)
    t.timeout(c_as, "core scheduling service: 504 Gateway Timeout")
    t.asst("The request timed out at the core's scheduling service. I'll check whether it was registered before "
           "re-sending, so you don't end up with two requests in the queue.")
    t.status_query(c_as, "succeeded", request_id="asr-77f120", assisted_request_id="AR-2025-0318",
                   booking_id="BK-50122", slots=["2025-03-04 20:00-08:00", "2025-03-05 20:00-08:00",
                                                 "2025-03-06 14:00-20:00", "2025-03-06 20:00-08:00"],
                   staff="J. Brennan", estimated_hours=52)
    t.asst("It was registered: assisted request AR-2025-0318, booking BK-50122 with J. Brennan, 52 h estimated "
           "across four slots (Tue and Wed nights, Thu afternoon and Thu night). Next: the sample manifest.")
    t.user("What method will they run? My PI will ask.")
    c = t.call("lab_instrument_log", {"instrument_id": "INS-OE480", "include": ["method:LFQ-DIA-120"]})
    meth = "\n".join([
        "METHOD SHEET LFQ-DIA-120 (core standard, rev 7, 2025-01-20) - Orbitrap Exploris 480 + Vanquish Neo",
        "LC: trap-and-elute; trap PepMap Neo 5um C18 300um x 5mm; column PepMap Neo 75um x 50cm, 2um, 50 C",
        "Flow 250 nL/min. Solvent A 0.1% FA in water; B 0.1% FA in 80% ACN.",
        "Gradient: 0 min 2% B | 2 min 4% B | 92 min 28% B | 110 min 40% B | 112 min 95% B | 118 min 95% B |",
        "          120 min 2% B; column re-equilibration 8 min (total cycle ~2 h 12 min incl. loading)",
        "Injection: 2 uL (target 500 ng peptide); needle wash 50% MeOH; autosampler 7 C",
        "Source: EASY-Spray 2.0 kV, ion transfer tube 275 C, FAIMS off",
        "MS1: resolution 120,000; scan range m/z 380-985; AGC target 300%; max IT 45 ms",
        "DIA: 40 variable windows (m/z 380-985, 1 m/z overlap); resolution 30,000; HCD NCE 28%;",
        "     AGC 1000%; max IT auto; loop control: all",
        "QC: HeLa 200 ng standard at start, every 8 injections and at the end; blanks between conditions",
        "Expected depth (HeLa 200 ng): 6,000-6,800 protein groups at 1% FDR (DIA-NN library-free)",
        "Output: .raw per injection, run log, QC summary (protein IDs, mass error, RT shift, TIC)",
        "Notes: label-free only; TMT requires method LFQ-DDA-TMT-SPS (MS3) on request."])
    t.result(c, result={"instrument_id": "INS-OE480", "method_id": "LFQ-DIA-120", "method_text": meth})
    t.asst("They'll run the core's standard LFQ-DIA-120 method: a 2 h gradient on a 50 cm PepMap Neo column at "
           "250 nL/min, 2 uL injections (about 500 ng), MS1 at 120k resolution and 40 variable DIA windows at 30k, "
           "HCD 28%. A HeLa QC standard runs at the start, every 8 injections and at the end, with blanks between "
           "conditions; expected depth on HeLa is 6,000-6,800 protein groups. It's a label-free method, which "
           "matches your correction; TMT would need a different (MS3) method.")
    t.user("Before I send the manifest: what do they need from me for sample prep?")
    c = t.call("lab_instrument_log", {"instrument_id": "INS-OE480", "include": ["sample_guidelines"]})
    guide = "\n".join([
        "SAMPLE SUBMISSION GUIDELINES - LC-MS/MS (Exploris 480, Q Exactive HF-X) - rev 2024-11",
        "1. Submit peptides, not proteins: reduced (DTT/TCEP), alkylated (IAA/CAA), digested (trypsin or",
        "   trypsin/Lys-C), desalted (C18 StageTip, SPE or S-Trap). We do not accept samples containing",
        "   detergents (SDS, Triton, NP-40, CHAPS), PEG, glycerol, or >1% DMSO.",
        "2. Dry down and reconstitute in 0.1% formic acid (optionally with 2% ACN). Final volume >= 8 uL",
        "   per injection planned (autosampler dead volume 6 uL); 1 ug/uL max.",
        "3. Vials: Thermo 300 uL polypropylene screw-top (#C4000-11) or 96-well PCR plates sealed with",
        "   pierceable foil. Label vial lid and side with the sample_id exactly as in the manifest.",
        "4. Manifest: CSV with sample_id, condition, replicate, protein_ug, volume_ul, buffer; max 96 rows",
        "   per booking. Include blanks/QC only if you want extra ones; the core adds its standard QC.",
        "5. Biosafety: inactivated material only. Human samples need the IRB number in the booking notes.",
        "6. Drop-off: BSB B112, fridge 3, by 16:00 the day before the run; the core confirms receipt by e-mail.",
        "7. Storage after the run: leftover samples kept 30 days at -20 C, then discarded unless collected.",
        "8. Data: raw files retained 1 year; processed results 90 days on the portal.",
        "Questions: ms-core@cores.example.edu"])
    t.result(c, result={"instrument_id": "INS-OE480", "guidelines_text": guide})
    t.asst("In short: peptides, not proteins (reduced, alkylated, digested, desalted), no detergents, PEG or "
           "glycerol; reconstituted in 0.1% formic acid with at least 8 uL per planned injection; Thermo 300 uL "
           "vials labelled exactly like the manifest; inactivated material only; drop-off by 16:00 the day before. "
           "Leftovers are kept 30 days at -20 C.")
    t.user(f"Here's the manifest:\n" + "\n".join(
        ["sample_id,condition,replicate,protein_ug,volume_ul,buffer"] +
        [f"WZ-{i:02d},{['ctrl', 'KO-A', 'KO-B', 'rescue'][(i - 1) // 6]},{(i - 1) % 6 + 1},"
         f"{t.rng.choice(['1.0', '1.0', '0.9', '1.1'])},{'4' if i == 17 else t.rng.choice(['10', '12', '10', '15'])},"
         "0.1% FA" for i in range(1, 25)]))
    c_m1 = t.call("lab_submit_samples", {"booking_id": "BK-50122", "format": "csv", "rows": 24})
    t.result(c_m1, result={"booking_id": "BK-50122", "manifest_id": "MAN-88213", "accepted": 23, "rejected": [
        {"sample_id": "WZ-17", "reason": "volume 4 uL below autosampler minimum 8 uL for 2 uL injections with "
                                         "dead volume"}], "status": "incomplete"})
    t.asst("The manifest went in as MAN-88213: 23 samples accepted, WZ-17 rejected, its volume (4 uL) is below the "
           "autosampler minimum of 8 uL. Can you top it up, or should it be dropped?")
    t.user("Typo. WZ-17 is 14 uL, not 4.")
    s_v = t.correction("volume_ul", 14, subject={"sample_id": "WZ-17"})
    t.decision("d2-fix-manifest", [
        P_next("lab_submit_samples", {"booking_id": "BK-50122", "manifest_id": "MAN-88213"},
               "the booking and manifest ids came back from earlier calls"),
        P_state("succeeded", "the timed-out request was confirmed", call_id=c_as, request_id="asr-77f120"),
        P_fact("volume_ul", 14, "the corrected volume for WZ-17", subject="sample_id=WZ-17"),
    ])
    c = t.call("lab_submit_samples", {"booking_id": "BK-50122", "manifest_id": "MAN-88213",
                                      "update": [{"sample_id": "WZ-17", "volume_ul": 14}]})
    t.result(c, result={"booking_id": "BK-50122", "manifest_id": "MAN-88213", "accepted": 24, "rejected": [],
                        "status": "complete", "dropoff": "BSB B112 fridge 3, shelf 2, by 2025-03-04 16:00"})
    t.asst("Manifest complete: all 24 accepted. Drop the samples at BSB B112, fridge 3, shelf 2, by Tue Mar 4 "
           "16:00.")
    t.user("Now confocal. LSM 980, Wednesday afternoon, 3 hours.")
    c = t.call("lab_charge_account", {"chartfield": CF})
    t.result(c, result={"chartfield": CF, "valid": True, "pi": "M. Okafor", "sponsor": "NIH NIGMS",
                        "end_date": "2025-03-31", "balance": "18422.70", "pending_charges": "4940.00",
                        "restrictions": ["no equipment purchases", "F&A 58%"],
                        "warning": "award ends 2025-03-31; charges after the end date will be rejected"})
    s_fund = t.user("Oh right, the R01 ends March 31. Don't put anything after March 31 on it. From April on use "
                    "our startup fund, 1188-STARTUP-OKAFOR.")
    t.asst("Understood: the R01 chartfield only up to March 31, and 1188-STARTUP-OKAFOR from April. The mass spec "
           "(ending Mar 7) and Wednesday's confocal are both before that.")
    c = t.call("lab_calendar", {"instrument_id": "INS-LSM980", "from": "2025-03-05", "to": "2025-03-06"})
    lsm = []
    for d in (5, 6):
        for h in range(8, 20):
            st = "open" if (d, h) in ((5, 13), (5, 14), (5, 15), (5, 16), (6, 9), (6, 10), (6, 11), (6, 17), (6, 18)) \
                else "booked"
            row = {"date": f"2025-03-{d:02d}", "hour": f"{h:02d}:00", "status": st}
            if st == "booked":
                row["user"] = t.rng.choice(["mkhan2", "lbecker", "asato", "jrivera9", "tnguyen4"])
            lsm.append(row)
    t.result(c, result={"instrument_id": "INS-LSM980", "hours": lsm})
    c_b1 = t.call("lab_book", {"instrument_id": "INS-LSM980", "user_id": ME, "chartfield": CF,
                               "start": "2025-03-05T13:00", "end": "2025-03-05T16:00"})
    t.result(c_b1, request_id="bk-19c2e0", result={"booking_id": "BK-50140", "instrument_id": "INS-LSM980",
                                                  "start": "2025-03-05T13:00", "end": "2025-03-05T16:00",
                                                  "estimated_charge": "126.00", "cancellation": "free until "
                                                  "2025-03-03T13:00, then $45 late fee"})
    t.asst("Booked the LSM 980 Wed Mar 5, 13:00-16:00 (BK-50140), about $126 on the R01. Free cancellation until "
           "Mon 13:00, then a $45 late fee.")
    t.user("Unrelated: when is the next cryostat training? My student needs it.")
    t.topic_switch("bookings", "cryostat training")
    c = t.call("lab_instrument_log", {"instrument_id": "INS-CRYO", "include": ["training_sessions"]})
    t.result(c, result={"instrument_id": "INS-CRYO", "training_sessions": [
        {"date": "2025-03-11", "time": "10:00-12:00", "trainer": "R. Osei", "seats_left": 1},
        {"date": "2025-03-25", "time": "14:00-16:00", "trainer": "R. Osei", "seats_left": 4},
        {"date": "2025-04-08", "time": "10:00-12:00", "trainer": "K. Frey", "seats_left": 6}],
        "prerequisites": ["chemical hygiene", "bloodborne pathogens (if human tissue)"],
        "fee": "60.00 per trainee",
        "course_text": "\n".join([
            "CRYOSTAT (Leica CM3050 S) USER TRAINING - 2 h hands-on, max 4 trainees",
            "Part 1 (30 min): hazards - blade handling (the #1 injury in the core), anti-roll plate, cold burns,",
            "  disinfection after unfixed tissue, OCT handling; locking the handwheel before any hand work.",
            "Part 2 (60 min): trimming and sectioning 10-20 um on practice blocks (mouse brain/liver in OCT);",
            "  chamber vs specimen temperature (-20/-22 C typical), section pickup on Superfrost Plus slides.",
            "Part 3 (30 min): cleaning, defrost log, booking rules. Trainees section supervised on their own",
            "  tissue at a second session before independent sign-off.",
            "Bring: lab coat, your own tissue blocks (optional, second session), cut-resistant glove provided."]),
        "entries": [
            "2025-02-10 blade holder replaced", "2025-02-21 chamber defrost and disinfection",
            "2025-02-26 specimen head temperature sensor recalibrated"]})
    t.asst("Next cryostat trainings: Mar 11 10:00-12:00 (1 seat left), Mar 25 14:00-16:00 (4 seats), Apr 8 "
           "(6 seats). $60 per trainee; prerequisites are chemical hygiene and, for human tissue, bloodborne "
           "pathogens. Mar 11 would go on the R01, Apr 8 on the startup fund.")
    t.user("I'll tell her to sign up herself. Back to my stuff: move the confocal to Thursday morning instead, "
           "9 to 12, and cancel the Wednesday one.")
    t.topic_switch("cryostat training", "bookings")
    t.decision("d3-move-confocal", [
        P_next("lab_cancel_booking", {"booking_id": "BK-50140"}, "Wednesday's booking id from before the side topic"),
        P_next("lab_book", {"instrument_id": "INS-LSM980", "chartfield": CF},
               "the instrument and the chartfield from earlier turns"),
        P_constraint(s_fund, "Don't put anything after March 31", "Thursday is before March 31, so the R01 is fine"),
    ])
    c_b2 = t.call("lab_book", {"instrument_id": "INS-LSM980", "user_id": ME, "chartfield": CF,
                               "start": "2025-03-06T09:00", "end": "2025-03-06T12:00"})
    s_b2 = t.cseq(c_b2)
    s_b2to = t.timeout(c_b2, "booking service: timeout after 20 s")
    t.status_query(c_b2, "unknown", detail="booking service returned 503 for the lookup; try again later")
    t.asst("The Thursday booking timed out and the booking service can't tell me yet whether it was created. I "
           "haven't cancelled Wednesday, so you don't end up with no session at all.")
    t.user("Smart. What's the cancellation policy exactly? I don't want surprises.")
    c = t.call("lab_list_instruments", {"facility": FAC, "include": ["policies"]})
    pol = "\n".join([
        "CORE-PIC BOOKING AND CANCELLATION POLICY (effective 2024-07-01)",
        "1. Self-service bookings: minimum 1 h, maximum 8 h per day per user on confocal systems during",
        "   prime time (Mon-Fri 08:00-18:00); nights and weekends unlimited for independent users.",
        "2. Cancellation: free up to 48 h before the start. Within 48 h: flat late fee of $45 per booking.",
        "   Within 2 h or no-show: charged for the full booked time at the internal rate.",
        "3. Assisted runs: cancellable free until samples are received; afterwards, instrument time used",
        "   plus staff time (minimum 1 h) is charged.",
        "4. Overruns: sessions running over are billed per started 15 minutes; if the next user is waiting",
        "   you must yield at the end of your slot.",
        "5. Instrument faults: time lost to an instrument fault is not charged; report faults immediately.",
        "6. Chartfields must be valid on the date of use; charges after an award's end date are rejected",
        "   and the PI is billed to a default departmental account with a 10% processing surcharge.",
        "7. Training: independent use requires training on that instrument within the last 24 months.",
        "8. Disputes: e-mail the core manager within 30 days of the invoice."])
    t.result(c, result={"facility": FAC, "policies_text": pol})
    t.asst("Cancellations are free up to 48 h before the start; inside 48 h there's a flat $45 late fee, and "
           "within 2 h or a no-show you pay the full booked time. Time lost to instrument faults isn't charged. And "
           "rule 6 matters for you: charges after an award's end date are rejected and re-billed to the department "
           "with a 10% surcharge, which is another reason to keep April off the R01.")
    t.user("Cancel Wednesday anyway, I can't make it. I'll take the risk on Thursday.")
    c_cx = t.call("lab_cancel_booking", {"booking_id": "BK-50140", "reason": "schedule change"})
    s_cx = t.cseq(c_cx)
    t.approval("apr-cxl-fee", "requested", s_cx)
    t.asst("Cancelling BK-50140 now is free (the late fee starts Mon 13:00). Wait, it's Friday Feb 28, so it's "
           "still free. Approve the cancellation?")
    t.user("Yes.")
    t.approval("apr-cxl-fee", "granted", s_cx)
    t.result(c_cx, request_id="cx-6a11d4", result={"booking_id": "BK-50140", "status": "cancelled", "fee": "0.00"})
    t.asst("Cancelled BK-50140, no fee.")
    t.user("Did the Thursday one go through now?")
    t.decision("d4-thursday", [
        P_state("unknown", "the Thursday booking has not been confirmed", call_id=c_b2),
        P_pending("it has no definitive answer", call_id=c_b2),
        P_state("succeeded", "Wednesday's cancellation went through", call_id=c_cx, request_id="cx-6a11d4"),
    ])
    c = t.call("lab_calendar", {"instrument_id": "INS-LSM980", "from": "2025-03-06", "to": "2025-03-06"})
    t.result(c, result={"instrument_id": "INS-LSM980", "hours": [
        {"date": "2025-03-06", "hour": "09:00", "status": "held", "user": ME, "note": "pending confirmation"},
        {"date": "2025-03-06", "hour": "10:00", "status": "held", "user": ME, "note": "pending confirmation"},
        {"date": "2025-03-06", "hour": "11:00", "status": "held", "user": ME, "note": "pending confirmation"}]})
    t.asst("The calendar shows 09:00-12:00 Thursday as 'held' for you, pending confirmation: the booking service "
           "has it, but it never confirmed, and I have no booking id. I won't book again (it would collide with "
           "your own hold).")
    t.user("OK. Also book me the spinning disk in April for the live imaging, April 8 from 1 to 5pm.")
    t.decision("d5-april", [
        P_constraint(s_fund, "1188-STARTUP-OKAFOR", "April must go on the startup fund"),
        P_next("lab_book", {"instrument_id": "INS-SDISK", "chartfield": "1188-STARTUP-OKAFOR", "user_id": ME},
               "the spinning disk's id from the instrument list and the startup fund from the user"),
    ])
    c_b3 = t.call("lab_book", {"instrument_id": "INS-SDISK", "user_id": ME, "chartfield": "1188-STARTUP-OKAFOR",
                               "start": "2025-04-08T13:00", "end": "2025-04-08T17:00"})
    t.result(c_b3, request_id="bk-1a0f77", result={"booking_id": "BK-50163", "instrument_id": "INS-SDISK",
                                                  "start": "2025-04-08T13:00", "end": "2025-04-08T17:00",
                                                  "estimated_charge": "152.00", "chartfield": "1188-STARTUP-OKAFOR"})
    t.asst("Booked the spinning disk Tue Apr 8, 13:00-17:00 (BK-50163), about $152 on 1188-STARTUP-OKAFOR.")
    t.user("Thanks. One more: can the mass spec data go to our lab's share when it's done?")
    c = t.call("lab_instrument_log", {"instrument_id": "INS-OE480", "include": ["data_delivery_options"]})
    t.result(c, result={"instrument_id": "INS-OE480", "data_delivery_options": [
        {"method": "globus", "endpoint": "core-pic#ms-data", "default": True},
        {"method": "smb", "path": "\\\\research-fs\\labs\\<lab>\\incoming\\core-pic", "requires": "lab share ACL"},
        {"method": "download_portal", "retention_days": 90}], "raw_formats": [".raw", ".mzML (on request)"],
        "processing": ["DIA-NN 1.9", "FragPipe 22", "none"]})
    t.asst("Yes: the default is Globus (endpoint core-pic#ms-data); they can also drop the .raw files on your "
           "lab's share under \\\\research-fs\\labs\\<lab>\\incoming\\core-pic if your share grants the core access, "
           "or you download from the portal (kept 90 days). They can also run DIA-NN or FragPipe.")
    t.user("How do I set up Globus for it? I've never used it.")
    c = t.call("lab_instrument_log", {"instrument_id": "INS-OE480", "include": ["globus_instructions"]})
    t.result(c, result={"instrument_id": "INS-OE480", "instructions_text": "\n".join([
        "RECEIVING MS DATA VIA GLOBUS",
        "1. Log in at https://app.globus.org with your university credentials (single sign-on).",
        "2. Install Globus Connect Personal on the computer that should receive the data, or ask your lab's",
        "   IT for the lab's Globus collection (most labs have one on research-fs).",
        "3. Send your Globus identity (shown under Account) to ms-core@cores.example.edu with your booking id.",
        "4. The core shares a folder on collection core-pic#ms-data named <booking_id>_<user_id> with you.",
        "5. When the run ends you get an e-mail; open File Manager, pick core-pic#ms-data on the left and your",
        "   own collection on the right, select the folder and click Start. Transfers resume automatically.",
        "6. Raw files are 1-2 GB per 2 h injection; 24 injections plus QC is about 40 GB.",
        "7. Shared folders expire after 90 days; raw files stay on the core's archive for 1 year."])})
    t.asst("Log in at app.globus.org with your university account, then either install Globus Connect Personal "
           "on the receiving computer or use your lab's collection on research-fs. Send your Globus identity and "
           "BK-50122 to ms-core@cores.example.edu; they share a folder (BK-50122_wzhao3) with you on "
           "core-pic#ms-data, and when the run ends you transfer it from the File Manager. Expect about 40 GB; the "
           "share expires after 90 days.")
    t.user("OK, I'll ask our IT for the lab collection. We had one for the sequencing data last year, I think "
           "it's called okafor-lab#research-fs, but I'm not sure it still works after the storage migration.")
    t.asst("If it's still there, that's the easiest: share your Globus identity with the core, and pick "
           "okafor-lab#research-fs on the right-hand side when the transfer e-mail comes. If it doesn't work after "
           "the storage migration, Globus Connect Personal on your workstation works as a fallback; 40 GB fits "
           "on most lab machines.")
    t.user("Globus is fine. Summarize my bookings and what's open.")
    t.decision("d6-summary", [
        P_state("unknown", "the Thursday confocal booking is still unconfirmed", call_id=c_b2),
        P_evidence([s_b2, s_b2to], "the unconfirmed booking call and its timeout"),
        P_fact("assisted_request_id", "AR-2025-0318", "the mass spec request from the status query"),
        P_fact("volume_ul", 14, "WZ-17's corrected volume", subject="sample_id=WZ-17"),
        P_constraint(s_fund, "March 31", "the funding split must appear in the summary"),
    ])
    t.asst("Your bookings:\n- Exploris 480, assisted (AR-2025-0318 / BK-50122, J. Brennan): 24 label-free samples, "
           "2 h gradients, starting Tue Mar 4 20:00 after the repair, ~52 h over four slots, R01. Manifest MAN-88213 "
           "complete (WZ-17 fixed to 14 uL). Drop-off by Tue 16:00 at BSB B112, fridge 3. Data via Globus.\n- LSM 980 "
           "Thu Mar 6 09:00-12:00: held but NOT confirmed (the booking timed out, no booking id yet). Wednesday's "
           "BK-50140 cancelled, no fee.\n- Spinning disk Tue Apr 8 13:00-17:00 (BK-50163) on 1188-STARTUP-OKAFOR.\n"
           "Open: confirm the Thursday confocal; nothing after Mar 31 goes on the R01.")
    t.system("Session resumed 2025-03-05 08:20.")
    t.user("Morning. Did the Exploris come back OK after the repair, and how did last night's run go?")
    c = t.call("lab_instrument_log", {"instrument_id": "INS-OE480", "since": "2025-03-03"})
    t.result(c, result={"instrument_id": "INS-OE480", "current_status": "operational", "entries": [
        "2025-03-03 09:10 Thermo FSE on site (case 7004418821)",
        "2025-03-03 13:42 RF board replaced; vacuum 1.4e-10 Torr after pump-down",
        "2025-03-04 08:30 FlexMix calibration PASS (positive mode, all masses < 1 ppm)",
        "2025-03-04 10:05 QC HeLa 200 ng: 6,588 proteins, mass accuracy 0.8 ppm, RT shift 0.2 min - PASS",
        "2025-03-04 11:30 STATUS: returned to service",
        "2025-03-04 20:12 AR-2025-0318 started (operator J. Brennan)",
        "2025-03-05 06:31 AR-2025-0318: injection WZ-05 aborted - autosampler pressure fault (air in sample "
        "loop); queue continued"]})
    c = t.call("lab_calendar", {"instrument_id": "INS-OE480", "from": "2025-03-04", "to": "2025-03-05",
                                "include": ["run_queue"]})
    queue = [{"pos": 1, "sample": "QC-HeLa-01", "status": "done", "proteins": 6571, "mass_err_ppm": 0.9}]
    pos = 2
    for i in range(1, 25):
        if i > 9:
            st = "queued"
        elif i == 5:
            st = "aborted"
        else:
            st = "done"
        row = {"pos": pos, "sample": f"WZ-{i:02d}", "status": st}
        if st == "done":
            row.update({"proteins": t.rng.randint(5200, 6100), "precursors": t.rng.randint(52000, 68000),
                        "tic": f"{t.rng.uniform(2.1, 4.4):.2f}e10", "rt_shift_min": round(t.rng.uniform(0.0, 0.4), 2)})
        if st == "aborted":
            row["error"] = "autosampler pressure fault"
        queue.append(row)
        pos += 1
        if i in (6, 12, 18):
            queue.append({"pos": pos, "sample": "blank", "status": "done" if i == 6 else "queued"})
            pos += 1
        if i == 8:
            queue.append({"pos": pos, "sample": "QC-HeLa-02", "status": "done", "proteins": 6490,
                          "mass_err_ppm": 1.0})
            pos += 1
    t.result(c, result={"instrument_id": "INS-OE480", "booking_id": "BK-50122", "run_queue": queue})
    c = t.call("lab_instrument_log", {"instrument_id": "INS-OE480", "include": ["qc_report:AR-2025-0318"]})
    qc_lines = ["RUN QC REPORT - AR-2025-0318 - night 1 (2025-03-04 20:12 to 2025-03-05 08:00) - DIA-NN 1.9 quick search",
                "sample      inj_time  protein_groups  precursors  median_CV  mass_err_ppm  RT_shift_min  TIC"]
    for row in queue:
        if row.get("status") == "done" and row["sample"].startswith("WZ"):
            qc_lines.append(f"{row['sample']:<11} 2h12m     {row['proteins']:>6}          {row['precursors']:>6}      "
                            f"{t.rng.uniform(6.5, 11.0):.1f}%      {t.rng.uniform(0.6, 1.4):.1f}          "
                            f"{row['rt_shift_min']:.2f}          {row['tic']}")
    qc_lines += ["QC-HeLa-01  2h12m       6571           71204      5.9%      0.9           0.00          3.91e10",
                 "QC-HeLa-02  2h12m       6490           70112      6.2%      1.0           0.11          3.72e10",
                 "WZ-05       ABORTED at 00:03 (autosampler: loop pressure 0 bar, air detected); no data",
                 "Carry-over check (blank after WZ-06): 38 protein groups (<1%) - OK",
                 "Verdict: night 1 acceptable; continue queue. Operator: J. Brennan"]
    t.result(c, result={"instrument_id": "INS-OE480", "report_text": "\n".join(qc_lines)})
    t.asst("The Exploris passed QC after the RF board replacement (6,588 proteins, 0.8 ppm) and is back in service. "
           "Last night's run: WZ-01 to WZ-09 are done except WZ-05, which was aborted by an autosampler pressure "
           "fault (air in the sample loop), and the queue continued. The finished samples look healthy, 5,200-6,100 "
           "proteins each, and the mid-run HeLa QC gave 6,490. WZ-10 to WZ-24 are queued for tonight and Thursday.")
    t.user("Re-queue WZ-05 at the end. There should be enough left in the vial.")
    t.decision("d7-requeue", [
        P_next("lab_submit_samples", {"booking_id": "BK-50122", "manifest_id": "MAN-88213", "sample_id": "WZ-05"},
               "the booking and manifest ids are from the manifest submission days earlier"),
        P_fact("labeling", "label-free", "the run is label-free, not TMT", superseded=["TMT"]),
        P_fact("current_status", "operational", "the instrument is back in service",
               superseded=["out_of_service_scheduled"]),
    ])
    c = t.call("lab_submit_samples", {"booking_id": "BK-50122", "manifest_id": "MAN-88213",
                                      "requeue": [{"sample_id": "WZ-05", "position": "end", "reason":
                                                   "autosampler pressure fault"}]})
    t.result(c, request_id="man-5d22a1", result={"booking_id": "BK-50122", "manifest_id": "MAN-88213",
                                                "requeued": ["WZ-05"], "queue_length": 20,
                                                "estimated_finish": "2025-03-07T05:40"})
    t.asst("WZ-05 is re-queued at the end of the queue, after the final HeLa QC, so it will run Thursday night; "
           "the whole run should finish around Fri 05:40. If the vial has air in it again the autosampler will "
           "abort the same way, so it's worth a quick spin-down of the vial if you're in the building today. The "
           "re-injection is billed; the aborted attempt isn't.")
    t.user("Also, what has been charged to the R01 so far?")
    c = t.call("lab_charge_account", {"chartfield": CF, "include": ["pending_charges"]})
    t.result(c, result={"chartfield": CF, "end_date": "2025-03-31", "balance": "18422.70", "pending_charges": [
        {"booking_id": "BK-50122", "item": "Exploris 480 assisted, est. 52 h x 95.00", "amount": "4940.00",
         "status": "in_progress"},
        {"booking_id": "BK-50140", "item": "LSM 980 3 h (cancelled, no fee)", "amount": "0.00",
         "status": "void"}], "pending_total": "4940.00"})
    t.asst("On the R01 so far: the Exploris run, estimated at $4,940 (52 h x $95) and still in progress; the "
           "cancelled Wednesday confocal is $0. The April spinning-disk session will go on the startup fund.")
    t.user("And what will the rest of the run cost, roughly? My PI wants a number.")
    c = t.call("lab_charge_account", {"chartfield": CF, "estimate_for": "BK-50122"})
    t.result(c, result={"chartfield": CF, "booking_id": "BK-50122", "estimate_text": "\n".join([
        "ESTIMATE - BK-50122 / AR-2025-0318 - Orbitrap Exploris 480 assisted (internal rate)",
        "Instrument time: 24 samples x 2 h 12 min + 4 QC x 2 h 12 min + 3 blanks x 45 min   = 63.9 h",
        "  less time lost to instrument fault (WZ-05 abort, 0.1 h)                           = -0.1 h",
        "  re-injection WZ-05 (2 h 12 min)                                                   = +2.2 h",
        "  billable instrument hours 66.0 h x $95.00                                         = $6,270.00",
        "Staff time (setup, method, QC review): 3.0 h x $65.00                               = $195.00",
        "Data processing: none requested                                                     = $0.00",
        "ESTIMATED TOTAL                                                                      $6,465.00",
        "Note: the booking estimate of 52 h did not include the core's QC standards and blanks."]),
        "estimated_total": "6465.00", "balance_after": "11957.70"})
    t.asst("About $6,465: 66 billable instrument hours at $95 (24 samples, the core's 4 HeLa QCs and 3 blanks, "
           "plus WZ-05's re-injection; the aborted attempt isn't charged) and 3 h of staff time at $65. That's more "
           "than the 52 h in the original estimate, which left out the QC standards and blanks. The R01 would "
           "have about $11,958 left afterwards.")
    t.user("Hm, OK, that's fine. Now: is the Thursday confocal confirmed yet?")
    t.status_query(c_b2, "unknown", detail="booking record exists in 'held' state; confirmation step never ran "
                                           "(ticket SCHED-2291 opened with the core)")
    t.asst("Still not confirmed: the booking exists as 'held', but the confirmation step never ran, and the core "
           "opened ticket SCHED-2291 about it. So there's still no booking id for Thursday.")
    t.user("OK, thanks. Anything I need to do before Friday?")
    t.decision("d8-before-friday", [
        P_state("unknown", "the Thursday booking is still only held", call_id=c_b2),
        P_pending("it still has no definitive answer", call_id=c_b2),
        P_constraint(s_fund, "startup fund", "the April booking is on the startup fund"),
        P_next("lab_book", {"instrument_id": "INS-LSM980", "user_id": ME, "chartfield": CF},
               "if the hold is not confirmed, re-booking Thursday needs these earlier values"),
    ])
    t.asst("Two things: (1) Thursday's LSM 980 session is only held, not confirmed (SCHED-2291). If it isn't "
           "confirmed by this afternoon, call the core or I can try to book it again once they've cleared the "
           "hold, so it doesn't collide. (2) Nothing else: samples are in, WZ-05 re-queued, data comes via Globus "
           "after the run ends Friday morning, once your lab's Globus collection is set up.")
    return t
# --- t14 end ---


# --- t15 start ---
@trajectory
def t15_incident_response() -> T:
    t = T(15, "incident-response", "h3-incident-response",
          "Incident response: checkout errors, contradictory monitors, a denied rollback, a status page update",
          ["ids from the incident record and the chat workspace are needed many turns later (schedule, channel, ts)",
           "synthetic checks say green while metrics show 5xx (cross-tool contradiction)",
           "an irreversible rollback is requested and then denied; a feature flag is used instead",
           "a public status page update (irreversible) times out and is confirmed by status_query",
           "the ETA typed by the user is corrected; a wording constraint (never name the vendor) typed once",
           "a severity change times out and stays unknown",
           "a side topic (an unrelated alert) and the return"],
          "The incident commander runs a checkout outage with the ops assistant: metrics, logs, flags, comms.")
    INC = "INC-4471"
    SVC = "checkout-api"
    t.system("You are the incident assistant. You can read incidents, metrics, logs and synthetic checks, change "
             "feature flags, roll back deploys, page on-call schedules, post in chat and publish status page "
             "updates. Rollbacks and public status page updates need the incident commander's approval.")
    t.user(f"I'm IC for {INC}, I just got pulled in from a planning meeting and haven't seen anything yet. "
           "Catch me up: what's broken, since when, who's on it, and has anything been said publicly?")
    c = t.call("ops_get_incident", {"incident_id": INC})
    t.result(c, result={
        "incident_id": INC, "title": "Elevated 5xx on checkout", "severity": "SEV2", "status": "investigating",
        "commander": "dvolkov", "opened_at": "2025-02-28T14:19:05Z", "source": "alert: checkout-api 5xx > 2% (5m)",
        "services": [SVC, "payments-proxy"], "chat_channel": "#inc-4471-checkout",
        "escalation": [{"team": "checkout", "schedule_id": "PSCHK01", "oncall": "mlee"},
                       {"team": "payments", "schedule_id": "PPAY7Q2", "oncall": "unassigned (handover at 15:00)"},
                       {"team": "sre", "schedule_id": "PSRE003", "oncall": "akoval"}],
        "timeline": [
            {"at": "2025-02-28T14:02:11Z", "event": "deploy d-8841 checkout-api v2025.02.28.3 completed"},
            {"at": "2025-02-28T14:19:05Z", "event": "alert fired: 5xx 2.4%"},
            {"at": "2025-02-28T14:21:40Z", "event": "mlee acked"},
            {"at": "2025-02-28T14:33:02Z", "event": "severity SEV3 -> SEV2 (5xx 6.8%)"},
            {"at": "2025-02-28T14:35:18Z", "event": "dvolkov assigned commander"}],
        "statuspage": {"page_id": "sp_acme_main", "component": "Checkout", "public_incident": None},
        "related_alerts": [
            {"alert": "checkout-api 5xx > 2% (5m)", "state": "firing", "since": "2025-02-28T14:19:05Z"},
            {"alert": "checkout-api p99 > 2s (10m)", "state": "firing", "since": "2025-02-28T14:24:00Z"},
            {"alert": "payments-proxy upstream timeouts > 1%", "state": "firing", "since": "2025-02-28T14:11:30Z"},
            {"alert": "checkout-api db pool waiting > 20", "state": "firing", "since": "2025-02-28T14:16:45Z"},
            {"alert": "synthetic checkout health", "state": "ok", "since": "2025-02-21T09:00:00Z"}],
        "customer_impact": "unknown"})
    t.asst(f"{INC}: SEV2, elevated 5xx on checkout since the alert at 14:19 UTC (2.4%, up to 6.8% by 14:33). "
           "It started 17 minutes after deploy d-8841 (checkout-api v2025.02.28.3, 14:02). mlee (checkout on-call) "
           "acked; payments on-call is unassigned until the 15:00 handover. No public status page incident yet. "
           "Channel #inc-4471-checkout.")
    t.user("What do the metrics and the synthetics say?")
    c = t.call("ops_metrics_query", {"service": SVC, "query": "http_5xx_ratio,p99_latency_ms,rps",
                                     "from": "2025-02-28T13:50:00Z", "to": "2025-02-28T14:40:00Z", "step": "5m"})
    series = []
    for i in range(11):
        minute = 50 + i * 5
        hh, mm = 13 + minute // 60, minute % 60
        after = i >= 3
        series.append({"t": f"2025-02-28T{hh:02d}:{mm:02d}:00Z",
                       "http_5xx_ratio": round(t.rng.uniform(0.02, 0.06) if not after else
                                               min(0.09, 0.01 + 0.011 * i + t.rng.uniform(0, 0.01)), 3),
                       "p99_latency_ms": t.rng.randint(380, 460) if not after else t.rng.randint(2800, 9100),
                       "rps": t.rng.randint(410, 520)})
    s_metrics = t.result(c, result={"service": SVC, "series": series, "unit": {"http_5xx_ratio": "percent"},
                                    "by_route_14_35": [{"route": "POST /v1/checkout/confirm", "5xx_pct": 18.2},
                                                       {"route": "POST /v1/checkout/cart", "5xx_pct": 0.3},
                                                       {"route": "GET /v1/checkout/session", "5xx_pct": 0.1},
                                                       {"route": "GET /health", "5xx_pct": 0.0}]})
    c = t.call("ops_synthetic_check", {"service": SVC, "window": "30m"})
    s_syn = t.result(c, result={"service": SVC, "checks": [
        {"check_id": f"syn-{r}", "region": r, "target": "GET https://api.example-shop.com/v1/checkout/health",
         "status": "passing", "success_rate": 1.0, "p95_ms": t.rng.randint(80, 190)}
        for r in ("us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-2", "sa-east-1")],
        "overall": "green"})
    t.asst("They contradict each other. Metrics: 5xx went from under 0.1% to about 8% after 14:05, p99 latency from "
           "~400 ms to 3-9 s, traffic unchanged. It's concentrated on POST /v1/checkout/confirm (18.2% 5xx). The "
           "synthetic checks are all green in six regions, but they only hit GET /v1/checkout/health, which never "
           "touches payments. So the synthetics miss this failure.")
    s_vendor = t.user("Right. Legal reminder before anything goes public: we never name the payment vendor in "
                      "customer-facing text. Say 'a payment partner'. Now what do the logs say?")
    c = t.call("ops_log_search", {"service": SVC, "query": "level:error", "from": "2025-02-28T14:00:00Z",
                                  "limit": 20})
    errs = []
    for i in range(20):
        sec = 130 + i * 67
        ts = f"2025-02-28T14:{sec // 60 % 60:02d}:{sec % 60:02d}.{t.rng.randint(100, 999)}Z"
        pod = f"checkout-api-7d9f{t.alnum(4, 'abcdefghijklmnopqrstuvwxyz0123456789')}"
        errs.append(t.rng.choice([
            f"{ts} {pod} ERROR payments.client PaymentGatewayTimeout: POST payments-proxy/v2/charges timed out "
            f"after 3000ms (attempt {t.rng.randint(2, 5)}/5, backoff {t.rng.choice([400, 800, 1600])}ms) "
            f"order=ord_{t.alnum(8)}",
            f"{ts} {pod} ERROR db.pool PoolTimeout: couldn't get a connection after 5.0 sec (pool size 20, "
            f"in use 20, waiting {t.rng.randint(30, 140)})",
            f"{ts} {pod} ERROR http 500 POST /v1/checkout/confirm {t.rng.randint(5000, 9900)}ms "
            f"req_{t.hexid(10)}: RetryBudgetExceeded"]))
    s_logs = t.result(c, result={"service": SVC, "matched": 18244, "returned": 20, "lines": errs,
                                 "top_messages": [{"message": "PaymentGatewayTimeout", "count": 11021},
                                                  {"message": "PoolTimeout", "count": 5873},
                                                  {"message": "RetryBudgetExceeded", "count": 1350}]})
    c = t.call("ops_deploy_status", {"deploy_id": "d-8841"})
    t.result(c, result={"deploy_id": "d-8841", "service": SVC, "version": "v2025.02.28.3",
                        "previous": "v2025.02.27.1", "completed_at": "2025-02-28T14:02:11Z", "changes": [
                            "PR #2210 payments: retry charges up to 5x with exponential backoff (flag "
                            "checkout.new_retry_policy, 100%)",
                            "PR #2214 db: pool size 40 -> 20 per pod (cost)",
                            "PR #2199 migration 0312: drop column orders.legacy_promo_code",
                            "PR #2205 copy: new confirmation page text"],
                        "rollback": {"target": "v2025.02.27.1", "runs_migrations_down": ["0312"],
                                     "warning": "0312 down re-creates legacy_promo_code empty; data dropped in "
                                                "0312 up cannot be restored"}})
    t.asst("Logs since 14:00: 18,244 errors. Top: PaymentGatewayTimeout to payments-proxy (11,021), with retries up "
           "to 5 attempts and backoff; PoolTimeout on the DB pool (5,873, pool 20 of 20 in use with up to 140 "
           "waiting); RetryBudgetExceeded (1,350). Deploy d-8841 made two relevant changes: PR #2210 retries "
           "charges up to 5x behind flag checkout.new_retry_policy (at 100%), and PR #2214 halved the DB pool from "
           "40 to 20 per pod. Likely: payment calls got slow, the new retries hold DB connections longer, and the "
           "smaller pool runs dry.")
    t.user("Show me what PR 2210 actually changed in the retry code.")
    c = t.call("ops_deploy_status", {"deploy_id": "d-8841", "include": ["diff:PR-2210"]})
    diff = "\n".join([
        "diff --git a/checkout/payments/client.py b/checkout/payments/client.py",
        "@@ -41,22 +41,41 @@ class PaymentsClient:",
        "-    def charge(self, order, amount_cents, idempotency_key):",
        "-        return self._post('/v2/charges', json={...}, timeout=3.0)",
        "+    def charge(self, order, amount_cents, idempotency_key):",
        "+        if not flags.enabled('checkout.new_retry_policy', order.customer_id):",
        "+            return self._post('/v2/charges', json={...}, timeout=3.0)",
        "+        attempt, delay = 0, 0.4",
        "+        while True:",
        "+            attempt += 1",
        "+            try:",
        "+                with db.transaction():          # holds the order row lock during the call",
        "+                    order.lock_for_update()",
        "+                    return self._post('/v2/charges', json={...}, timeout=3.0,",
        "+                                      headers={'Idempotency-Key': idempotency_key})",
        "+            except (Timeout, ConnectionError) as exc:",
        "+                if attempt >= 5 or budget.exhausted():",
        "+                    raise RetryBudgetExceeded() from exc",
        "+                time.sleep(delay + random.uniform(0, delay / 2))",
        "+                delay *= 2",
        "diff --git a/checkout/settings/prod.py b/checkout/settings/prod.py",
        "-DB_POOL_SIZE = 40",
        "+DB_POOL_SIZE = 20  # PR #2214: cost reduction, p95 usage was 14",
        "diff --git a/tests/payments/test_client.py b/tests/payments/test_client.py",
        "+def test_charge_retries_on_timeout(fake_gateway): ...",
        "+def test_charge_reuses_idempotency_key(fake_gateway): ..."])
    t.result(c, result={"deploy_id": "d-8841", "pr": 2210, "diff": diff})
    t.asst("The retry loop wraps each attempt in a DB transaction that locks the order row for the whole payment "
           "call, up to 5 attempts with backoff (0.4, 0.8, 1.6, 3.2 s plus jitter). With the partner slow, one "
           "checkout can hold a DB connection for 15-20 s, and the pool was halved to 20 in the same deploy. The "
           "good news: every attempt reuses the same Idempotency-Key, so retries shouldn't double-charge.")
    t.user("Roll it back.")
    t.decision("d1-rollback", [
        P_evidence([s_metrics, s_syn], "the metrics and the synthetic checks disagree; both must be seen"),
        P_next("ops_rollback_deploy", {"service": SVC, "target": "v2025.02.27.1"},
               "the rollback target is in the deploy record"),
    ])
    c_rb = t.call("ops_rollback_deploy", {"service": SVC, "deploy_id": "d-8841", "target": "v2025.02.27.1"})
    s_rb = t.cseq(c_rb)
    t.approval("apr-rollback", "requested", s_rb)
    t.asst("Rolling back to v2025.02.27.1 undoes all four PRs, including migration 0312: going down re-creates "
           "orders.legacy_promo_code, but empty, because the data dropped on the way up can't be restored. Anything "
           "still reading legacy promo codes (old order pages, the promo report) would then see blanks. It also "
           "restores the 40-connection pool and removes the retry code. The rollback takes about 8 minutes. "
           "Approve the rollback?")
    t.user("Hmm, wait. What else could we do without touching the migration?")
    t.decision("d2-alternatives", [
        P_pending("the rollback approval is open", approval_id="apr-rollback"),
        P_pending("the rollback call waits on it", call_id=c_rb),
        P_fact("previous", "v2025.02.27.1", "the version a rollback would return to, from the deploy record"),
    ])
    t.asst("Two levers that don't touch the schema: (1) set flag checkout.new_retry_policy to 0%, which returns "
           "to single attempts and stops each checkout holding a locked order row and a DB connection through up "
           "to 5 retries; (2) raise the DB pool back to 40 per pod, but that's a settings change and needs a "
           "deploy. The flag is instant, reversible, and hits the main cause of the pool exhaustion. It won't fix "
           "the slow payment calls themselves; that needs payments.")
    t.user("Deny the rollback. Kill the flag.")
    t.approval("apr-rollback", "denied", s_rb)
    t.result(c_rb, "cancelled", error="approval denied by commander")
    c_ff = t.call("ops_feature_flag", {"flag_key": "checkout.new_retry_policy", "rollout_pct": 0,
                                       "reason": f"{INC} mitigation"})
    t.result(c_ff, request_id="ff-8a21c3", result={"flag_key": "checkout.new_retry_policy", "previous_pct": 100,
                                                   "rollout_pct": 0, "propagated_at": "2025-02-28T14:47:31Z"})
    t.asst("Rollback denied and cancelled. checkout.new_retry_policy is at 0% (was 100%), propagated at 14:47:31.")
    t.user("Page payments, we need them even before the handover. And post in the incident channel that the "
           "flag is off.")
    t.decision("d3-page-and-post", [
        P_next("ops_page_oncall", {"schedule_id": "PPAY7Q2"}, "the payments schedule id is in the incident record"),
        P_next("chat_find_channel", {"query": "inc-4471-checkout"}, "the channel name is in the incident record"),
        P_state("cancelled", "the rollback was cancelled after the denial", call_id=c_rb),
    ])
    c = t.call("ops_page_oncall", {"schedule_id": "PPAY7Q2", "incident_id": INC, "urgency": "high",
                                   "message": "checkout-api 5xx from payments-proxy timeouts; need payments eng"})
    t.result(c, result={"page_id": "PG-99102", "schedule_id": "PPAY7Q2", "paged": ["rkhan (override)"],
                        "status": "triggered"})
    c = t.call("chat_find_channel", {"query": "inc-4471-checkout"})
    t.result(c, result={"ok": True, "channel": {"id": "C08INC4471", "name": "inc-4471-checkout", "num_members": 23}})
    c = t.call("chat_post_message", {"channel_id": "C08INC4471", "text": ":rotating_light: Update 14:48 UTC: flag "
                                     "checkout.new_retry_policy set to 0% (was 100%). Rollback of d-8841 NOT done "
                                     "(migration 0312 would lose data). Payments paged (rkhan). Watching 5xx."})
    t.result(c, result={"ok": True, "channel": "C08INC4471", "ts": "1740754093.118429"})
    t.asst("Paged payments: PG-99102 went to rkhan (an override). Posted the update in #inc-4471-checkout "
           "(message 1740754093.118429).")
    t.user("Different thing, someone in #sre is asking about a search-api disk alert. Is that related?")
    t.topic_switch(INC, "search-api alert")
    c = t.call("ops_metrics_query", {"service": "search-api", "query": "disk_used_pct,http_5xx_ratio",
                                     "from": "2025-02-28T13:00:00Z", "to": "2025-02-28T14:50:00Z", "step": "10m"})
    t.result(c, result={"service": "search-api", "series": [
        {"t": f"2025-02-28T{13 + i // 6:02d}:{(i % 6) * 10:02d}:00Z", "disk_used_pct": 81 + i,
         "http_5xx_ratio": 0.0} for i in range(12)],
        "alert": {"name": "search-api disk > 90%", "state": "firing", "since": "2025-02-28T14:40:00Z",
                  "node": "search-data-3"}})
    t.asst("Not related: search-api's data node search-data-3 has been filling steadily (81% to 92% over two hours) "
           "and crossed 90% at 14:40, but search-api has zero 5xx and no dependency on payments. It's a separate "
           "capacity issue for SRE. I'd tell them it's unrelated so they don't wait on the incident; at this rate "
           "the node reaches 100% in roughly 80 minutes.")
    t.user("OK, let SRE handle it, I'll tell akoval in #sre. Back to checkout: did the flag help? It's been "
           "about fifteen minutes since we turned it off.")
    t.topic_switch("search-api alert", INC)
    c = t.call("ops_metrics_query", {"service": SVC, "query": "http_5xx_ratio,p99_latency_ms,db_pool_waiting",
                                     "from": "2025-02-28T14:40:00Z", "to": "2025-02-28T15:05:00Z", "step": "5m"})
    t.result(c, result={"service": SVC, "series": [
        {"t": "2025-02-28T14:40:00Z", "http_5xx_ratio": 0.081, "p99_latency_ms": 8720, "db_pool_waiting": 131},
        {"t": "2025-02-28T14:45:00Z", "http_5xx_ratio": 0.079, "p99_latency_ms": 8410, "db_pool_waiting": 122},
        {"t": "2025-02-28T14:50:00Z", "http_5xx_ratio": 0.034, "p99_latency_ms": 3950, "db_pool_waiting": 41},
        {"t": "2025-02-28T14:55:00Z", "http_5xx_ratio": 0.028, "p99_latency_ms": 3610, "db_pool_waiting": 18},
        {"t": "2025-02-28T15:00:00Z", "http_5xx_ratio": 0.026, "p99_latency_ms": 3400, "db_pool_waiting": 9},
        {"t": "2025-02-28T15:05:00Z", "http_5xx_ratio": 0.025, "p99_latency_ms": 3380, "db_pool_waiting": 7}]})
    t.asst("Partly: 5xx dropped from 8% to about 2.5% within 10 minutes and the DB pool queue from ~130 waiting to "
           "7. But 2.5% is still high and p99 is 3.4 s, so payments-proxy itself is still slow. That's the part "
           "payments needs to look at.")
    t.user("Is the DB pool still saturated on every pod, or only some?")
    c = t.call("ops_metrics_query", {"service": SVC, "query": "db_pool_in_use,db_pool_waiting,cpu_pct",
                                     "group_by": "pod", "at": "2025-02-28T15:05:00Z"})
    pods = []
    for i in range(12):
        pods.append({"pod": f"checkout-api-7d9f{t.alnum(4, 'abcdefghijklmnopqrstuvwxyz0123456789')}",
                     "node": f"ip-10-0-{t.rng.randint(10, 60)}-{t.rng.randint(2, 250)}",
                     "zone": t.rng.choice(["us-east-1a", "us-east-1b", "us-east-1c"]),
                     "db_pool_in_use": t.rng.randint(9, 20), "db_pool_size": 20,
                     "db_pool_waiting": t.rng.choice([0, 0, 0, 1, 2, 3]),
                     "cpu_pct": t.rng.randint(18, 46), "restarts_1h": t.rng.choice([0, 0, 1])})
    t.result(c, result={"service": SVC, "at": "2025-02-28T15:05:00Z", "pods": pods,
                        "db_server": {"host": "db-checkout-1", "connections": 214, "max_connections": 500,
                                      "cpu_pct": 31, "lock_waits": 3}})
    t.asst("Not anymore: across the 12 pods the pool uses 9-20 of 20 connections with at most 3 waiting, CPU "
           "18-46%, and the database itself is relaxed (214 of 500 connections, 3 lock waits). The remaining "
           "errors come from the slow payment calls, not the pool.")
    t.user("Show me payments-proxy then.")
    c = t.call("ops_metrics_query", {"service": "payments-proxy", "query": "upstream_latency_p99_ms,upstream_error_ratio",
                                     "group_by": "upstream_region", "from": "2025-02-28T13:50:00Z",
                                     "to": "2025-02-28T15:05:00Z", "step": "15m"})
    pp = []
    for i in range(6):
        minute = 50 + i * 15
        ts = f"2025-02-28T{13 + minute // 60:02d}:{minute % 60:02d}:00Z"
        for region in ("us-east", "us-west", "eu-central"):
            bad = region == "us-east" and i >= 1
            pp.append({"t": ts, "upstream_region": region,
                       "upstream_latency_p99_ms": t.rng.randint(2600, 3000) if bad else t.rng.randint(180, 420),
                       "upstream_error_ratio": round(t.rng.uniform(0.05, 0.12), 3) if bad else
                       round(t.rng.uniform(0.0, 0.004), 3), "share_of_traffic": 0.62 if region == "us-east" else
                       (0.23 if region == "us-west" else 0.15)})
    t.result(c, result={"service": "payments-proxy", "series": pp,
                        "note": "client timeout 3000 ms; upstream = external payment partner API"})
    c = t.call("ops_log_search", {"service": "payments-proxy", "query": "level:warn OR level:error",
                                  "from": "2025-02-28T14:00:00Z", "limit": 15})
    pl = []
    for i in range(15):
        sec = 200 + i * 173
        pl.append(f"2025-02-28T14:{sec // 60 % 60:02d}:{sec % 60:02d}Z payments-proxy-{t.rng.randint(1, 6)} "
                  + t.rng.choice([
                      "WARN upstream us-east slow: 2874ms POST /v1/payment_intents/confirm (timeout budget 3000ms)",
                      "ERROR upstream us-east 504 Gateway Timeout after 3000ms",
                      "WARN circuit us-east half-open: 42% failures in last 60s",
                      "ERROR upstream us-east connection reset by peer",
                      "WARN retry storm detected: 4.7x request amplification from checkout-api"]))
    t.result(c, result={"service": "payments-proxy", "matched": 9120, "returned": 15, "lines": pl})
    t.asst("payments-proxy shows it clearly: only the us-east upstream region of the payment partner is bad since "
           "about 14:05, with p99 near the 3 s client timeout and 5-12% errors, while us-west and eu-central are "
           "healthy. us-east carries 62% of traffic. The logs also flagged a 'retry storm: 4.7x request "
           "amplification from checkout-api' before the flag went off, which is what made it worse for us.")
    t.user("Support will ask: did anyone get charged twice, or charged for an order that shows as failed?")
    c = t.call("ops_log_search", {"service": SVC, "query": "payments.reconcile OR idempotent_replay",
                                  "from": "2025-02-28T14:00:00Z", "limit": 12})
    rl = []
    for i in range(12):
        sec = 300 + i * 211
        rl.append(f"2025-02-28T14:{sec // 60 % 60:02d}:{sec % 60:02d}Z checkout-api "
                  + t.rng.choice([
                      f"INFO payments.client idempotent_replay key=ik_{t.alnum(10)} attempt=3 -> same charge "
                      f"ch_{t.alnum(12)} returned",
                      f"WARN payments.reconcile order=ord_{t.alnum(8)} charge=ch_{t.alnum(12)} status=succeeded "
                      "but checkout returned 500 (RetryBudgetExceeded)",
                      f"INFO payments.client idempotent_replay key=ik_{t.alnum(10)} attempt=2 -> same charge"]))
    t.result(c, result={"service": SVC, "matched": 1391, "returned": 12, "lines": rl, "aggregates": {
        "idempotent_replays": 1354, "duplicate_charges": 0, "charged_but_failed_orders": 37}})
    t.asst("No double charges: 1,354 retries were replays with the same idempotency key, and the partner returned "
           "the original charge each time (0 duplicates). But 37 orders were charged successfully while checkout "
           "returned a 500 to the customer, so those people think the order failed. Support should contact them, "
           "or the orders can be completed from the reconcile log.")
    t.user("Put the 37 in the channel for support. They'll want to reach those customers before they order "
           "again and get charged a second time for real.")
    c = t.call("chat_post_message", {"channel_id": "C08INC4471", "text": "Support: 37 orders were charged but "
                                     "shown as failed (RetryBudgetExceeded). No double charges (1,354 idempotent "
                                     "replays). List: logs query payments.reconcile status=succeeded 14:00-now."})
    t.result(c, result={"ok": True, "channel": "C08INC4471", "ts": "1740755231.771904"})
    t.asst("Posted for support in #inc-4471-checkout, with the log query to pull the 37 order ids. If they "
           "want, those orders can also be completed automatically from the reconcile log once checkout is "
           "healthy, so nobody has to re-order.")
    s_eta = t.user("rkhan says the payment partner has a regional problem, they're failing over. Post a public "
                   "status page update: degraded checkout, ETA 16:30 UTC.")
    s_eta_fact = t.fact("eta", "16:30 UTC")
    t.asst("Draft for the status page (component Checkout, degraded performance): 'Some customers are seeing "
           "errors when completing checkout. The issue is caused by a payment partner; we have mitigated part of "
           "the impact and are working with the partner on a fix. Next update by 16:30 UTC.' Publish?")
    t.user("Actually make the ETA 17:00 UTC, rkhan says failover takes longer. Then publish.")
    t.correction("eta", "17:00 UTC", supersedes=s_eta_fact)
    t.decision("d4-statuspage", [
        P_next("statuspage_publish", {"page_id": "sp_acme_main", "component": "Checkout"},
               "the status page id and component are in the incident record from the start"),
        P_fact("eta", "17:00 UTC", "the corrected ETA", superseded=["16:30 UTC"]),
        P_constraint(s_vendor, "never name the payment vendor", "the public text must say 'a payment partner'"),
    ])
    text = ("Some customers are seeing errors when completing checkout. The issue is caused by a payment partner; "
            "we have mitigated part of the impact and are working with the partner on a fix. Next update by "
            "17:00 UTC.")
    c_sp = t.call("statuspage_publish", {"page_id": "sp_acme_main", "component": "Checkout",
                                         "status": "degraded_performance", "incident_name": "Checkout errors",
                                         "body": text, "notify_subscribers": True})
    s_sp = t.cseq(c_sp)
    t.approval("apr-statuspage", "requested", s_sp)
    t.asst("This publishes publicly and e-mails about 41,000 subscribers. Approve?")
    t.user("Approved. I read it twice, no vendor name. Go.")
    t.approval("apr-statuspage", "granted", s_sp)
    s_spto = t.timeout(c_sp, "status page API: timeout after 30 s")
    t.asst("The status page API timed out. I won't re-publish blindly: a duplicate would e-mail 41,000 people twice. "
           "Checking whether it went out.")
    t.user("Check.")
    t.decision("d5-statuspage-check", [
        P_state("unknown", "the publish timed out; its outcome is open", call_id=c_sp),
        P_evidence([s_sp, s_spto], "the irreversible public post and its timeout"),
        P_pending("the publish has no definitive answer", call_id=c_sp),
    ])
    t.status_query(c_sp, "succeeded", request_id="sp-req-51d0a8", public_incident_id="spi_9QZ41",
                   url="https://status.example-shop.com/incidents/spi_9QZ41", subscribers_notified=41217)
    t.asst("It went out once: public incident spi_9QZ41 (status.example-shop.com/incidents/spi_9QZ41), 41,217 "
           "subscribers notified.")
    t.user("Good. Edit my earlier channel post to add the status page link, and downgrade the incident to SEV3.")
    t.decision("d6-edit-and-downgrade", [
        P_next("chat_update_message", {"channel_id": "C08INC4471", "ts": "1740754093.118429"},
               "the channel id and the message ts came back from the earlier post"),
        P_next("ops_update_incident", {"incident_id": INC}, "the incident id from the start"),
        P_state("succeeded", "the public post is confirmed", call_id=c_sp, request_id="sp-req-51d0a8"),
    ])
    c = t.call("chat_update_message", {"channel_id": "C08INC4471", "ts": "1740754093.118429", "text":
                                       ":rotating_light: Update 14:48 UTC: flag checkout.new_retry_policy set to 0% "
                                       "(was 100%). Rollback of d-8841 NOT done (migration 0312 would lose data). "
                                       "Payments paged (rkhan). Watching 5xx.\nStatus page: "
                                       "https://status.example-shop.com/incidents/spi_9QZ41"})
    t.result(c, result={"ok": True, "channel": "C08INC4471", "ts": "1740754093.118429", "edited": True})
    c_sev = t.call("ops_update_incident", {"incident_id": INC, "severity": "SEV3",
                                           "note": "5xx ~2.5% after flag off; vendor failover in progress"})
    s_sev = t.cseq(c_sev)
    s_sevto = t.timeout(c_sev, "incident service: timeout after 15 s")
    t.status_query(c_sev, "unknown", detail="incident service degraded; write may be queued")
    t.asst("Edited the channel post with the status page link. The severity change to SEV3 timed out and the "
           "incident service can't confirm it (possibly queued). I'll not resend it yet.")
    t.user("Whatever, it's cosmetic for now, the review will set the final severity anyway. Let me see the "
           "channel, what are people saying? I've been heads-down in here and I'm sure I missed things.")
    c = t.call("chat_history", {"channel_id": "C08INC4471", "limit": 15})
    people = ["mlee", "rkhan", "akoval", "jsato", "support-bot", "tpark"]
    msgs = [{"user": "rkhan", "ts": "1740755880.002211", "text": "partner confirms regional degradation in us-east, "
                                                               "failing over to us-west, ETA ~45 min"},
            {"user": "support-bot", "ts": "1740755952.113408", "text": "Zendesk: 214 tickets tagged checkout in the "
                                                                       "last hour"}]
    for i in range(11):
        msgs.append({"user": t.rng.choice(people), "ts": f"17407{56000 + i * 97}.{t.rng.randint(100000, 999999)}",
                     "text": t.rng.choice(["confirm 5xx still ~2.5% on confirm", "pool waiting near 0 now",
                                           "should we bump pool back to 40?", "customers in EU fine per support",
                                           "+1 to leaving rollback off", "payments-proxy p99 still 3s",
                                           "who owns the post-mortem?", "support macro updated",
                                           "retry flag stays off until PIR"])})
    t.result(c, result={"ok": True, "channel": "C08INC4471", "messages": msgs, "has_more": True})
    t.asst("Highlights: rkhan says the partner confirmed a regional degradation in us-east and is failing over to "
           "us-west, ETA about 45 minutes. Support has 214 checkout tickets in the last hour; EU customers look "
           "fine. People agree to keep the rollback off and the retry flag off until the post-incident review, and "
           "someone suggests restoring the DB pool to 40.")
    t.user("Do the pool bump? No wait, that's a deploy, leave it. Where are we on everything?")
    t.decision("d7-where-are-we", [
        P_state("unknown", "the severity change was never confirmed", call_id=c_sev),
        P_pending("it has no definitive answer", call_id=c_sev),
        P_state("succeeded", "the flag change is in effect", call_id=c_ff, request_id="ff-8a21c3"),
        P_fact("public_incident_id", "spi_9QZ41", "the public incident for later updates"),
        P_fact("rollout_pct", 0, "the retry flag stays off"),
    ])
    t.asst(f"{INC} now:\n- Mitigation: flag checkout.new_retry_policy off since 14:47 (5xx 8% -> 2.5%, pool "
           "queue gone). Rollback of d-8841 denied (migration 0312 would lose data).\n- Cause: the payment "
           "partner's us-east region is degraded; rkhan (payments, paged) says they're failing over to us-west, "
           "ETA ~45 min.\n- Customers: no double charges; 37 charged-but-failed orders posted for support.\n- "
           "Comms: public status page spi_9QZ41 (degraded), next update promised by 17:00 UTC; channel post "
           "edited with the link.\n- Open: the severity change to SEV3 is unconfirmed; the DB pool bump is not "
           "done (needs a deploy); the search-api disk alert is with SRE.")
    t.user("Post the next public update at 17:00 if it's fixed. For now draft it for me: resolved, no vendor name.")
    t.asst("Draft (not published): 'Resolved: Checkout is operating normally. Between 14:05 and [time] UTC some "
           "customers saw errors when completing checkout, caused by a problem at a payment partner combined with "
           "a change on our side that we have reverted. Orders that failed were not charged. We're sorry for the "
           "trouble.' I'll publish it to the existing public incident once you confirm it's fixed.")
    t.user("Good. Ping me when rkhan says failover is done.")
    t.asst("Will do. I'll watch the channel.")
    t.system("16:41 UTC: 3 new messages in #inc-4471-checkout.")
    c = t.call("chat_history", {"channel_id": "C08INC4471", "limit": 5, "oldest": "1740758400.000000"})
    t.result(c, result={"ok": True, "channel": "C08INC4471", "messages": [
        {"user": "rkhan", "ts": "1740760511.300912", "text": "partner: failover to us-west complete 16:34 UTC, "
                                                            "us-east drained"},
        {"user": "mlee", "ts": "1740760623.441207", "text": "checkout 5xx back to 0.05%, p99 410ms"},
        {"user": "akoval", "ts": "1740760701.002811", "text": "search-data-3 disk fixed separately, unrelated"}],
        "has_more": False})
    t.asst("rkhan just posted: the partner's failover to us-west completed at 16:34 UTC. mlee reports checkout 5xx "
           "back to 0.05% and p99 410 ms.")
    t.user("Verify the numbers yourself, and if they hold, publish the resolved update now.")
    t.decision("d8-resolve", [
        P_constraint(s_vendor, "never name the payment vendor", "the resolved text must say 'a payment partner'"),
        P_next("statuspage_publish", {"page_id": "sp_acme_main", "public_incident_id": "spi_9QZ41"},
               "the follow-up goes to the existing public incident created an hour earlier"),
        P_state("unknown", "the severity change is still unconfirmed", call_id=c_sev),
        P_evidence([s_sev, s_sevto], "the unconfirmed severity write must stay visible until it is resolved"),
        P_fact("severity", "SEV2", "the record still says SEV2: the SEV3 change never confirmed"),
    ])
    c = t.call("ops_metrics_query", {"service": SVC, "query": "http_5xx_ratio,p99_latency_ms,rps",
                                     "from": "2025-02-28T16:00:00Z", "to": "2025-02-28T16:45:00Z", "step": "5m"})
    rec = []
    for i in range(10):
        minute = i * 5
        good = minute >= 35
        rec.append({"t": f"2025-02-28T16:{minute:02d}:00Z",
                    "http_5xx_ratio": round(t.rng.uniform(0.0003, 0.0008), 4) if good else round(t.rng.uniform(0.02, 0.027), 3),
                    "p99_latency_ms": t.rng.randint(390, 440) if good else t.rng.randint(3100, 3500),
                    "rps": t.rng.randint(430, 520)})
    t.result(c, result={"service": SVC, "series": rec})
    text2 = ("Resolved: Checkout is operating normally. Between 14:05 and 16:35 UTC some customers saw errors when "
             "completing checkout, caused by a problem at a payment partner combined with a change on our side "
             "that we have reverted. Orders that failed were not charged. We're sorry for the trouble.")
    c_sp2 = t.call("statuspage_publish", {"page_id": "sp_acme_main", "public_incident_id": "spi_9QZ41",
                                          "component": "Checkout", "status": "operational",
                                          "incident_status": "resolved", "body": text2, "notify_subscribers": True})
    s_sp2 = t.cseq(c_sp2)
    t.approval("apr-statuspage-2", "requested", s_sp2)
    t.asst("Confirmed from metrics: 5xx under 0.1% and p99 ~410 ms since 16:35. Ready to post the resolved update "
           "to spi_9QZ41 (no vendor named, window 14:05-16:35 UTC) and notify subscribers. Approve?")
    t.user("Approved.")
    t.approval("apr-statuspage-2", "granted", s_sp2)
    t.result(c_sp2, request_id="sp-req-52e7f1", result={"public_incident_id": "spi_9QZ41", "status": "resolved",
                                                       "subscribers_notified": 41230})
    c = t.call("ops_get_incident", {"incident_id": INC, "include": ["timeline", "pending_changes"]})
    tl = [("14:02:11", "deploy d-8841 checkout-api v2025.02.28.3 completed"), ("14:19:05", "alert fired: 5xx 2.4%"),
          ("14:21:40", "mlee acked"), ("14:33:02", "severity SEV3 -> SEV2 (5xx 6.8%)"),
          ("14:35:18", "dvolkov assigned commander"), ("14:44:50", "rollback of d-8841 requested, denied by IC"),
          ("14:47:31", "flag checkout.new_retry_policy 100% -> 0%"), ("14:48:12", "payments paged (PG-99102, rkhan)"),
          ("15:06:00", "5xx 2.5%: partial mitigation"), ("15:21:40", "status page spi_9QZ41 published (degraded)"),
          ("16:34:00", "partner failover to us-west complete"), ("16:35:00", "5xx < 0.1%"),
          ("16:47:22", "status page spi_9QZ41 resolved")]
    t.result(c, result={"incident_id": INC, "severity": "SEV2", "status": "monitoring",
                        "pending_changes": [{"field": "severity", "value": "SEV3", "state": "queued",
                                             "submitted_at": "2025-02-28T15:24:10Z"}],
                        "timeline": [{"at": f"2025-02-28T{a}Z", "event": b} for a, b in tl]})
    t.asst("Published: spi_9QZ41 is resolved, 41,230 subscribers notified, with the 14:05-16:35 UTC window and "
           "'a payment partner' as the cause, no vendor named. The incident record still says SEV2 "
           "with the SEV3 change queued since 15:24 and never applied, so that write is still in limbo. Timeline "
           "so far: deploy 14:02, alert 14:19, SEV2 at 14:33, rollback denied 14:44, flag off 14:47, payments "
           "paged 14:48, partial mitigation by 15:06, status page 15:21, partner failover 16:34, recovered 16:35, "
           "resolved publicly 16:47.")
    t.user("Leave the severity, we'll close it in the review. Write the three-line summary for the exec channel, "
           "plain language, they don't know what a connection pool is.")
    t.asst(f"*{INC} (checkout, SEV2), 14:05-16:35 UTC*: up to 8% of checkout confirmations failed. Cause: a "
           "payment partner's us-east region degraded, amplified by our new retry policy (5 retries, shipped 14:02) "
           "and a halved DB pool. Mitigation: retry flag off at 14:47 (8% -> 2.5%), partner failover completed "
           "16:34; no rollback (it would have lost data). Follow-ups: PIR, keep the retry flag off, restore the DB "
           "pool via deploy, synthetic check for POST /checkout/confirm, contact the 37 customers charged for "
           "orders that showed as failed, and move the payment call out of the DB transaction in the retry code.")
    return t
# --- t15 end ---


# --- t16 start ---
@trajectory
def t16_caregiver_pharmacy() -> T:
    t = T(16, "caregiver-pharmacy", "h3-caregiver-pharmacy",
          "Caregiver moves a parent's prescriptions: transfers, a prior authorization, med sync, copays",
          ["a Part D member id, a date of birth and a store choice typed once are needed much later",
           "the pharmacy profile and the transferred record disagree about the allergy (cross-tool contradiction)",
           "the allergy is corrected by the caregiver and must supersede the profile",
           "a prior-authorization submission times out and is confirmed by status_query; a transfer stays unknown",
           "a brand-only constraint (no generic for Synthroid) typed once",
           "Rx numbers and a PA case id returned by tools are used many turns later",
           "an irreversible copay payment is approved after a question",
           "a side topic (a vaccine question) and the return"],
          "An adult daughter, with caregiver access, moves her father's medications to a new pharmacy.")
    PT = "PT-448120"
    MEMBER = "9XK2PT77Q"
    t.system("You are the pharmacy's patient-care assistant. The user is a verified caregiver (HIPAA proxy on "
             "file) for patient Anton Hale. Payments require the caregiver's explicit approval.")
    t.user("Hi, I'm Renata, I manage my dad Anton Hale's medications. His date of birth is 1941-09-03. He moved in "
           "with me so we're moving everything from CareRite pharmacy (store 2211) to you. Can you pull up his "
           "profile?")
    c = t.call("rx_patient_profile", {"patient_id": PT, "verify_dob": "1941-09-03"})
    s_prof = t.result(c, result={
        "patient_id": PT, "name": "Anton J. Hale", "dob": "1941-09-03", "proxy": {"name": "Renata Hale-Ortiz",
                                                                                 "relationship": "daughter",
                                                                                 "scope": "full"},
        "address": "3318 SE Taylor St, Portland, OR 97214", "phone": "(503) 555-0142",
        "allergies": [{"allergen": "penicillin", "reaction": "rash", "source": "intake 2019 (Hawthorne)",
                       "verified": False}],
        "conditions": ["hypothyroidism", "atrial fibrillation", "hypertension", "type 2 diabetes"],
        "insurance": [{"type": "medicare_part_d", "plan": "Cascade Rx Plus (PDP)", "member_id": "4JR8TK21M",
                       "bin": "610014", "pcn": "MEDDPRIME", "group": "RXCASC", "effective": "2024-01-01",
                       "status": "termed 2024-12-31"}],
        "active_rx_here": [], "preferred_store": None,
        "history_note": "Profile created 2019 for a flu shot at Hawthorne; no fills since."})
    t.asst("Found his profile (created in 2019 for a flu shot). No active prescriptions here yet. Two things to "
           "update: the only insurance on file is a Cascade Rx Plus Part D plan that ended Dec 31, 2024, and it "
           "lists a penicillin allergy (rash), unverified, from that 2019 intake. What's his current Part D plan?")
    t.user(f"It's Evergreen Senior Rx now since January. Member ID {MEMBER}, RxBIN 004336, PCN MEDDADV, group RX4410.")
    t.fact("part_d_member_id", MEMBER)
    c = t.call("rx_insurance_check", {"rx_number": "eligibility", "patient_id": PT, "member_id": MEMBER,
                                      "bin": "004336", "pcn": "MEDDADV", "group": "RX4410"})
    t.result(c, result={"eligible": True, "plan": "Evergreen Senior Rx (PDP) S5601-022", "member_id": MEMBER,
                        "effective": "2025-01-01", "benefit_stage": "deductible", "deductible_remaining": "590.00",
                        "deductible_applies_to": "tiers 3-5", "out_of_pocket_ytd": "0.00",
                        "out_of_pocket_cap": "2000.00", "preferred_network": True,
                        "tier_table_preferred_90ds": [
                            {"tier": 1, "name": "preferred generic", "deductible": False, "cost": "$0"},
                            {"tier": 2, "name": "generic", "deductible": False, "cost": "$0"},
                            {"tier": 3, "name": "preferred brand", "deductible": True, "cost": "25% (max $47/30ds "
                                                                                               "for some)"},
                            {"tier": 4, "name": "non-preferred drug", "deductible": True, "cost": "40%"},
                            {"tier": 5, "name": "specialty", "deductible": True, "cost": "25%, 30 ds only"}],
                        "insulin_cap": "35.00/month", "vaccines_acip": "$0",
                        "medicare_prescription_payment_plan": "available (spread costs monthly)"})
    t.asst("Evergreen Senior Rx is active since Jan 1 and we're a preferred pharmacy. He hasn't met the $590 "
           "deductible yet (it applies to tier 3-5 drugs), and the 2025 out-of-pocket cap is $2,000.")
    t.user("Can you see what he's been filling? I want to make sure CareRite has everything.")
    c = t.call("rx_patient_profile", {"patient_id": PT, "include": ["claims_history_12m"], "member_id": MEMBER})
    hist = []
    meds = [("SYNTHROID 88MCG TAB", 90, "CareRite #2211", "Moreau"), ("ELIQUIS 5MG TAB", 60, "CareRite #2211", "Okoye"),
            ("METOPROLOL SUCC ER 50MG TAB", 90, "CareRite #2211", "Moreau"),
            ("METFORMIN HCL ER 500MG TAB", 180, "CareRite #2211", "Moreau"),
            ("LISINOPRIL 10MG TAB", 90, "CareRite #2211", "Moreau"),
            ("AMOXICILLIN 500MG CAP", 21, "Rite Aid #5540 (Bend)", "urgent care"),
            ("ATORVASTATIN 20MG TAB", 90, "CareRite #2211", "Moreau")]
    for month in range(3, 15):
        y, m = (2024, month) if month <= 12 else (2025, month - 12)
        for drug, qty, ph, doc in meds:
            if drug.startswith("AMOX") and (y, m) != (2024, 6):
                continue
            if drug.startswith("ATORVA") and (y, m) > (2024, 8):
                continue
            if qty in (90, 180) and m % 3 != 1:
                continue
            hist.append(f"{y}-{m:02d}-{t.rng.randint(5, 25):02d} | {drug} | qty {qty} | {ph} | {doc}")
    t.result(c, result={"patient_id": PT, "source": "Part D claims (Cascade Rx Plus 2024, Evergreen 2025)",
                        "claims_text": "date | drug | qty | pharmacy | prescriber\n" + "\n".join(hist)})
    t.asst("Over the last 12 months his claims show the five you mentioned, all at CareRite #2211: Synthroid, "
           "Eliquis, metoprolol ER, metformin ER and lisinopril. Two others: atorvastatin 20 mg, last filled in "
           "summer 2024 and not since, and a course of amoxicillin from an urgent care in Bend in June 2024. That "
           "amoxicillin is worth noting: he took a penicillin-type antibiotic without a problem. Was the "
           "atorvastatin stopped on purpose?")
    t.user("Yes, Dr. Moreau stopped the atorvastatin in August, muscle pain. And good point about the amoxicillin.")
    t.asst("Noted: atorvastatin was discontinued by Dr. Moreau in August 2024 for muscle pain, so I won't transfer "
           "it. I'll keep the amoxicillin course in mind when we sort out the allergy list.")
    s_store = t.user("Good. Pickups only at your Hawthorne store please, it's two blocks away and he can't drive. "
                     "He has five prescriptions at CareRite. Start the transfers.")
    t.decision("d1-transfers", [
        P_next("rx_transfer_in", {"patient_id": PT, "from_store": "2211"},
               "the patient id came from the profile and CareRite's store number from the first message"),
        P_constraint(s_store, "Pickups only at your Hawthorne store", "every fill must route to Hawthorne"),
    ], note="early: everything still fits")
    c = t.call("rx_list_stores", {"zip": "97214", "radius_miles": 1})
    t.result(c, result={"stores": [{"store_id": "BW-1140", "name": "Hawthorne Blvd", "miles": 0.2,
                                    "address": "3520 SE Hawthorne Blvd", "hours": "9a-9p, Sat-Sun 10a-6p",
                                    "drive_thru": False, "services": ["med sync", "blister packaging",
                                                                      "vaccines", "delivery (2-mile radius)"],
                                    "pharmacist_in_charge": "A. Brandt, PharmD", "phone": "(503) 555-0130"},
                                   {"store_id": "BW-1187", "name": "Belmont", "miles": 0.8,
                                    "address": "3400 SE Belmont St", "hours": "8a-10p", "drive_thru": True,
                                    "services": ["med sync", "vaccines"], "phone": "(503) 555-0166"}]})
    drugs = [("Synthroid 88 mcg tablet", "levothyroxine", "1 tab daily before breakfast", 90, 3, "DAW 1"),
             ("Eliquis 5 mg tablet", "apixaban", "1 tab twice daily", 60, 5, None),
             ("Metoprolol succinate ER 50 mg", "metoprolol", "1 tab daily", 90, 2, None),
             ("Metformin ER 500 mg", "metformin", "2 tabs with dinner", 180, 4, None),
             ("Lisinopril 10 mg tablet", "lisinopril", "1 tab daily", 90, 1, None)]
    rx_new = {}
    transfer_calls = {}
    allergy_seq = None
    for i, (name, generic, sig, qty, refills, daw) in enumerate(drugs):
        c = t.call("rx_transfer_in", {"rx_number": f"CR-2211-{70410 + i * 7}", "patient_id": PT,
                                      "from_pharmacy": "CareRite", "from_store": "2211", "store_id": "BW-1140"})
        transfer_calls[generic] = c
        if i == 4:
            continue
        rx = f"77{t.rng.randint(10, 99)}-{t.rng.randint(10000, 99999)}"
        rx_new[generic] = rx
        res = {"rx_number": rx, "transferred_from": f"CareRite #2211 Rx CR-2211-{70410 + i * 7}", "drug": name,
               "sig": sig, "quantity": qty, "refills_remaining": refills, "prescriber": (
                   "Dr. Lila Moreau, MD (NPI 1730215568)" if generic != "apixaban" else
                   "Dr. Samuel Okoye, MD, cardiology (NPI 1467738219)"),
               "last_filled_at_source": f"2025-0{1 + i % 2}-{10 + i * 3:02d}", "store_id": "BW-1140",
               "original_written": f"2024-{t.rng.randint(3, 11):02d}-{t.rng.randint(1, 28):02d}",
               "expires": f"2025-{t.rng.randint(3, 11):02d}-{t.rng.randint(1, 28):02d}",
               "transfer_record": {"from_pharmacist": "K. Nguyen, RPh (CareRite #2211, (503) 555-0199)",
                                   "to_pharmacist": "A. Brandt, PharmD (Hawthorne BW-1140)",
                                   "fills_at_source": [f"2024-{m:02d}-{t.rng.randint(5, 25):02d}"
                                                       for m in range(4, 13, 3 if qty >= 90 else 1)][:6],
                                   "source_rx_inactivated": True, "controlled": False}}
        if daw:
            res["daw"] = "1 (brand medically necessary)"
        if i == 0:
            res["source_record"] = {"allergies": [{"allergen": "sulfonamide antibiotics", "reaction": "hives",
                                                   "recorded": "2016-05-02"}],
                                    "allergy_note": "NKA to penicillin per patient 2021-03-09"}
        s = t.result(c, result=res)
        if i == 0:
            allergy_seq = s
    c_t5 = transfer_calls["lisinopril"]
    s_t5 = t.cseq(c_t5)
    s_t5to = t.timeout(c_t5, "transfer gateway: CareRite #2211 did not respond within 45 s")
    t.asst("Four of five transferred to Hawthorne: Synthroid 88 mcg (brand only, DAW 1, 3 refills), Eliquis 5 mg "
           "(from Dr. Okoye, cardiology, 5 refills), metoprolol ER 50 mg (2 refills) and metformin ER 500 mg (4 "
           "refills), each with its new Rx number; CareRite inactivated their copies. Dr. Moreau is the prescriber "
           "for everything except Eliquis. The lisinopril transfer timed out waiting "
           "for CareRite. And there's a conflict: CareRite's record lists an allergy to sulfonamide antibiotics "
           "(hives) and explicitly says no known allergy to penicillin, while our old profile says penicillin "
           "(rash). Which is right?")
    t.user("Sulfa! He's allergic to sulfa drugs, hives. The penicillin thing was my mom, somebody mixed them up in "
           "2019. Please fix it.")
    t.correction("allergy", "sulfonamide antibiotics (hives); no penicillin allergy", subject={"patient_id": PT})
    t.decision("d2-allergy", [
        P_evidence([s_prof, allergy_seq], "the two allergy records that contradict each other"),
        P_state("unknown", "the lisinopril transfer timed out", call_id=c_t5),
        P_next("rx_patient_profile", {"patient_id": PT}, "the profile update needs the patient id"),
    ])
    c = t.call("rx_patient_profile", {"patient_id": PT, "update": {"allergies": [
        {"allergen": "sulfonamide antibiotics", "reaction": "hives", "source": "caregiver 2025-02-28; CareRite",
         "verified": True}], "remove_allergies": ["penicillin"]}})
    t.result(c, request_id="pp-upd-4e0a17", result={"patient_id": PT, "allergies": [
        {"allergen": "sulfonamide antibiotics", "reaction": "hives", "verified": True}],
        "removed": ["penicillin"], "dur_rescreen": "queued for active prescriptions"})
    t.asst("Fixed: allergy is now sulfonamide antibiotics (hives), verified by you and CareRite's record; "
           "penicillin is removed, which also fits the amoxicillin course he tolerated last June. All his active "
           "prescriptions will be re-screened against the corrected allergy, and the change goes on the note to "
           "his doctors so their charts match.")
    t.user("Does the re-screen flag anything? He also takes ibuprofen for his knee, over the counter, a couple of "
           "times a week.")
    c = t.call("rx_patient_profile", {"patient_id": PT, "add_otc": [{"drug": "ibuprofen 200 mg", "use":
                                                                      "2 tabs as needed, ~2x/week"}],
                                      "run": "dur_screen"})
    dur = "\n".join([
        "DRUG UTILIZATION REVIEW - Hale, Anton J. (83 y) - screened 2025-02-28 15:03 - First Databank 2025.02",
        "ALLERGY: sulfonamide antibiotics - no conflicts with active medications.",
        "  (Note: furosemide/HCTZ cross-sensitivity is low; none active.)",
        "INTERACTIONS:",
        "  MAJOR  apixaban + ibuprofen (OTC): increased bleeding risk (additive antiplatelet/anticoagulant",
        "         effect; GI bleeding). Avoid routine NSAID use; prefer acetaminophen <= 3 g/day in elderly.",
        "  MODERATE  lisinopril + ibuprofen: reduced antihypertensive effect; risk of acute kidney injury in",
        "         elderly (\"triple whammy\" if a diuretic is added). Monitor BP and renal function.",
        "  MINOR  metformin + lisinopril: possible additive hypoglycemia; no action.",
        "DOSE CHECKS:",
        "  apixaban 5 mg BID: age >= 80 (1 criterion). Dose reduction to 2.5 mg BID if also weight <= 60 kg",
        "         or SCr >= 1.5 mg/dL. Weight/SCr not on file - request from prescriber.",
        "  metformin ER 1000 mg/day: check eGFR (contraindicated < 30, do not start 30-45).",
        "DUPLICATE THERAPY: none.",
        "GERIATRIC (Beers 2023): NSAIDs - avoid chronic use; especially with anticoagulants.",
        "Pharmacist review: required before dispensing apixaban (MAJOR interaction) - A. Brandt"])
    t.result(c, result={"patient_id": PT, "dur_text": dur, "major_interactions": 1, "pharmacist_review": "required"})
    t.asst("Yes, one major flag: ibuprofen with Eliquis raises the bleeding risk, especially GI bleeding at his "
           "age. The pharmacist will want to talk about it before dispensing Eliquis; the usual advice is "
           "acetaminophen (Tylenol) instead, up to 3 g a day. Ibuprofen also blunts the lisinopril and can strain "
           "the kidneys. And the screen wants his weight and a recent creatinine to confirm the 5 mg Eliquis dose "
           "at 83. The sulfa allergy doesn't conflict with anything he takes.")
    t.user("Ugh, OK, I'll switch him to Tylenol. He weighs about 74 kg, I don't know the creatinine.")
    t.asst("74 kg is above the 60 kg threshold, so only the age criterion applies and 5 mg twice daily stays the "
           "labeled dose unless his creatinine is 1.5 or higher. Dr. Okoye's office will have a recent value.")
    s_brand = t.user("Thanks. Important: never let anyone switch his Synthroid to generic levothyroxine. His "
                     "endocrinologist insists, he had trouble with generics. Now, what will these cost him?")
    checks = {}
    for generic, rx in rx_new.items():
        c = t.call("rx_insurance_check", {"rx_number": rx, "patient_id": PT, "member_id": MEMBER})
        checks[generic] = c
    t.result(checks["levothyroxine"], result={"rx_number": rx_new["levothyroxine"], "paid": True, "tier": 3,
                                              "note": "brand Synthroid, DAW 1 accepted", "patient_pay": "47.00",
                                              "days_supply": 90, "stage": "deductible",
                                              "deductible_applied": "47.00"})
    s_eli = t.result(checks["apixaban"], result={
        "rx_number": rx_new["apixaban"], "paid": False, "reject_codes": ["75"],
        "reject_text": "75 - Prior authorization required (plan criteria: AF with CHA2DS2-VASc >= 2; trial/"
                       "contraindication of warfarin not required for 2025)", "tier": 3,
                       "estimated_patient_pay_after_pa": "47.00 (30 ds, deductible stage)"})
    t.result(checks["metoprolol"], result={"rx_number": rx_new["metoprolol"], "paid": True, "tier": 1,
                                           "patient_pay": "0.00", "days_supply": 90})
    t.result(checks["metformin"], result={"rx_number": rx_new["metformin"], "paid": True, "tier": 1,
                                          "patient_pay": "0.00", "days_supply": 90})
    t.asst("Metoprolol and metformin are $0 (tier 1). Synthroid brand is covered as DAW 1 but costs $47.00 for 90 "
           "days while he's in the deductible. Eliquis was rejected: the new plan needs a prior authorization "
           "(code 75). The criteria are simple for atrial fibrillation, so his cardiologist, Dr. Okoye, can send "
           "it, or we can start it from here.")
    t.user("Why is Synthroid tier 3 and $47? At CareRite it was $12.")
    c = t.call("rx_insurance_check", {"rx_number": rx_new["levothyroxine"], "member_id": MEMBER,
                                      "include": ["formulary_detail"]})
    t.result(c, result={"rx_number": rx_new["levothyroxine"], "formulary_detail": {
        "plan_year": 2025, "drug": "Synthroid 88 mcg", "tier": 3, "tier_name": "preferred brand",
        "generic_alternative": {"drug": "levothyroxine 88 mcg", "tier": 1, "patient_pay_90ds": "0.00"},
        "deductible_applies": True, "stage_costs_90ds": {"deductible": "47.00 (negotiated price cap)",
                                                          "initial_coverage": "47.00 (25% coinsurance)",
                                                          "catastrophic": "0.00"},
        "prior_year_plan": "Cascade Rx Plus: tier 2, $12 copay (2024)",
        "daw_penalty": "none for DAW 1 when prescriber indicates medical necessity",
        "exception_process": "tiering exception possible if the generic is not tolerated (prescriber letter)"}})
    t.asst("It's the new plan: Evergreen puts Synthroid on tier 3 (preferred brand) with the deductible applying, "
           "while last year's Cascade plan had it on tier 2 at $12. The generic would be $0, but that's off the "
           "table. What could help: a tiering exception. Since he didn't tolerate the generic, his "
           "endocrinologist can write a letter asking Evergreen to cover Synthroid at the generic tier.")
    t.user("What will his drugs cost over the whole year with this plan? Eliquis was expensive last year.")
    c = t.call("rx_insurance_check", {"rx_number": rx_new["apixaban"], "member_id": MEMBER,
                                      "include": ["annual_cost_projection"],
                                      "regimen": ["Synthroid 88 mcg 90ds", "Eliquis 5 mg 30ds", "metoprolol ER 50 90ds",
                                                  "metformin ER 500 x2 90ds", "lisinopril 10 90ds"]})
    proj = ["2025 COST PROJECTION - Evergreen Senior Rx - preferred pharmacy - assumes PA approval for apixaban",
            "month  fills                              plan_stage            patient_pay   cumulative_oop"]
    cum = 0.0
    for m, name in enumerate(["Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"], start=3):
        pay = 47.0 + (47.0 if m in (3, 6, 9, 12) else 0.0)
        stage = "deductible" if cum < 590 else ("initial coverage" if cum < 2000 else "catastrophic")
        if cum >= 2000:
            pay = 0.0
        cum += pay
        fills = "Eliquis" + (", Synthroid, generics" if m in (3, 6, 9, 12) else "")
        proj.append(f"{name:<6} {fills:<34} {stage:<21} {pay:>8.2f}      {cum:>9.2f}")
    proj += ["Jan-Feb 2025 fills at CareRite were billed to Evergreen and are already counted in the deductible "
             "accumulator (0.00 applied: tiers 1-3 transition claims)",
             f"PROJECTED 2025 TOTAL (Mar-Dec): {cum:.2f}   Out-of-pocket cap: 2,000.00 (not reached)",
             "Generic tiers 1-2: $0 all year. Eliquis list price ~559.37/30 ds; plan pays the rest."]
    t.result(c, result={"projection_text": "\n".join(proj), "projected_oop_2025": f"{cum:.2f}",
                        "cap_reached": False})
    t.asst(f"About ${cum:,.0f} for March to December: Eliquis is $47 a month in every stage here, Synthroid $47 per "
           "90 days, and the three generics are free. He won't hit the $2,000 cap. Last year's Eliquis cost was "
           "higher because the old plan's coverage gap doesn't exist anymore in 2025.")
    t.user("Can that be spread out? Some months he also has other bills.")
    c = t.call("rx_insurance_check", {"rx_number": "plan", "member_id": MEMBER, "include": ["mppp"]})
    t.result(c, result={"member_id": MEMBER, "medicare_prescription_payment_plan": {
        "available": True, "how": "opt in with the plan (phone or online); the pharmacy then charges $0 at the "
                                  "counter and the plan bills monthly",
        "best_for": "members with high costs early in the year (>= $600 in one fill)",
        "example_text": "\n".join([
            "MEDICARE PRESCRIPTION PAYMENT PLAN - how your bill would look (illustration)",
            "Your monthly bill = remaining out-of-pocket costs for the year / months left in the year.",
            "If you opt in on 03/01 with about $600 projected for the rest of 2025, each monthly bill is",
            "roughly $60, and it can change as new prescriptions are filled.",
            "You still pay the same total; this only spreads the timing. No interest or fees.",
            "If you miss a payment you may be removed from the program but keep your drug coverage."])}})
    t.asst("Yes, through the Medicare Prescription Payment Plan: he'd opt in with Evergreen (phone or online), "
           "pay $0 at our counter, and get a monthly bill from the plan instead, roughly $60 a month for the rest "
           "of 2025 in his case. Same total, no interest or fees. It helps most when costs are bunched up early.")
    t.user("I'll ask the endocrinologist about the letter. Start the PA from here for the Eliquis. He needs it, he "
           "has maybe 6 days left.")
    t.decision("d3-prior-auth", [
        P_next("rx_prior_auth_submit", {"rx_number": rx_new["apixaban"], "member_id": MEMBER,
                                        "prescriber_npi": "1467738219"},
               "the Eliquis Rx number, the member id and the cardiologist's NPI all came from earlier results"),
        P_constraint(s_brand, "never let anyone switch his Synthroid", "the brand-only rule must hold for any change"),
    ])
    c_pa = t.call("rx_prior_auth_submit", {"rx_number": rx_new["apixaban"], "patient_id": PT, "member_id": MEMBER,
                                           "prescriber_npi": "1467738219", "diagnosis": "I48.91 atrial fibrillation",
                                           "urgency": "expedited", "days_remaining": 6})
    s_pa = t.cseq(c_pa)
    t.timeout(c_pa, "ePA hub: no response within 60 s")
    t.asst("The prior-authorization request timed out at the ePA hub. I'll check whether it was created before "
           "re-sending, so the plan doesn't get two cases.")
    t.status_query(c_pa, "succeeded", request_id="epa-9f13c2", pa_case_id="PA-S5601-2250918",
                   state="sent_to_prescriber", questions=4)
    t.asst("It was created: case PA-S5601-2250918, sent to Dr. Okoye's office with 4 questions to answer. As "
           "expedited it should be decided within 24 hours of their reply.")
    t.user("Is there anything I can do to speed that up? And can he get a few days of Eliquis meanwhile?")
    c = t.call("rx_pa_status", {"pa_case_id": "PA-S5601-2250918", "include": ["questions", "criteria"]})
    pa_text = "\n".join([
        "EVERGREEN SENIOR RX - COVERAGE DETERMINATION REQUEST - case PA-S5601-2250918 (expedited)",
        "Drug: apixaban (Eliquis) 5 mg tablet, 60 per 30 days. Member: HALE, ANTON J. DOB 09/03/1941",
        "Prescriber questions (to be answered by the prescriber's office):",
        "Q1. Diagnosis: non-valvular atrial fibrillation or atrial flutter? [Yes/No] ICD-10: ____",
        "Q2. CHA2DS2-VASc score (must be >= 2 for stroke prevention): ____",
        "Q3. Does the patient have a mechanical prosthetic heart valve? [Yes/No] (if Yes: not covered)",
        "Q4. Dose justification: 5 mg BID requires fewer than two of: age >= 80, weight <= 60 kg, serum",
        "    creatinine >= 1.5 mg/dL. If two or more apply, 2.5 mg BID is the labeled dose. Provide age,",
        "    weight and most recent creatinine with date.",
        "Criteria met -> approval 12 months. Expedited requests: decision within 24 h of complete information.",
        "Transition fill: new members in the first 90 days of the plan year may receive a one-time 30-day",
        "transition supply of a non-formulary or PA drug (through 2025-03-31).",
        "Fax (prescriber): 1-888-555-0170   Portal: covermymeds key BX7QK2"])
    t.result(c, result={"pa_case_id": "PA-S5601-2250918", "state": "sent_to_prescriber", "submitted":
                        "2025-02-28T15:12:40Z", "text": pa_text, "transition_fill_eligible": True,
                        "transition_policy": "New enrollees and members whose drugs changed coverage receive a "
                                             "temporary supply of up to 30 days of a Part D drug requiring prior "
                                             "authorization during the first 90 days of membership, at a network "
                                             "pharmacy, once per drug. A written notice is sent within 3 business "
                                             "days explaining how to request an exception or switch drugs."})
    t.asst("Two things help. First, calling Dr. Okoye's office: they need to answer 4 questions (AF diagnosis, "
           "CHA2DS2-VASc score, no mechanical valve, and a dose check). Note the dose question: at 83 he meets one "
           "of the criteria for the lower 2.5 mg dose, so if he also weighs 60 kg or less or has a creatinine of "
           "1.5 or more, they'll need to confirm 5 mg is still right. Second: as a new member in the first 90 "
           "days of the plan year he's eligible for a one-time 30-day transition fill, so we can fill Eliquis now "
           "without waiting for the PA.")
    t.user("Oh great, do the transition fill. Quick unrelated question while I think of it: can he get the new "
           "RSV vaccine at Hawthorne, and does Medicare cover it?")
    t.topic_switch("prescriptions", "vaccines")
    c = t.call("rx_patient_profile", {"patient_id": PT, "include": ["immunizations"]})
    t.result(c, result={"patient_id": PT, "immunizations": [
        {"vaccine": "influenza (high-dose)", "date": "2024-10-04", "site": "CareRite #2211"},
        {"vaccine": "COVID-19 (2024-25 formula)", "date": "2024-10-04", "site": "CareRite #2211"},
        {"vaccine": "pneumococcal PCV20", "date": "2023-11-15", "site": "Dr. Moreau's office"},
        {"vaccine": "Tdap", "date": "2019-02-11", "site": "Brightwell Hawthorne"},
        {"vaccine": "zoster recombinant (Shingrix) dose 1", "date": "2022-09-30", "site": "CareRite #2211"},
        {"vaccine": "zoster recombinant (Shingrix) dose 2", "date": None, "status": "overdue"}],
        "source": "Oregon ALERT IIS + pharmacy records", "rsv": "no record"})
    t.asst("His state immunization record shows no RSV vaccine yet, so he's due. "
           "Also, his second Shingrix dose was never given (the first was Sept 2022); it can still be completed, "
           "no need to restart.\n" "Yes: Hawthorne gives RSV vaccines (Arexvy and Abrysvo) on a walk-in basis or by appointment. Adults 75 "
           "and older are recommended a single dose, and under Part D vaccines recommended by ACIP have no cost "
           "share, so it would be $0 with Evergreen. I'd just not schedule it the same day as a new medication "
           "start so any side effects are easy to tell apart.")
    t.user("Can he do the RSV and the second Shingrix on the same day?")
    t.asst("Yes, they can be given at the same visit, in different arms; that's standard and doesn't reduce how "
           "well either works. The catch is that both can cause a sore arm, tiredness or a low fever for a day or "
           "two, and Shingrix is known for it, so some people prefer to space them a week or two apart so he "
           "isn't hit by both at once. Since he's starting on a new routine with the blister packs, I'd pick a "
           "quiet week, not the days around the colonoscopy.")
    t.user("Good, I'll book that separately. OK back to the meds. Transition fill for the Eliquis, and can you put "
           "everything on one pickup day?")
    t.topic_switch("vaccines", "prescriptions")
    t.decision("d4-transition-and-sync", [
        P_next("rx_request_refill", {"rx_number": rx_new["apixaban"], "store_id": "BW-1140"},
               "the Eliquis Rx number and the Hawthorne store id from earlier results"),
        P_next("rx_sync_schedule", {"patient_id": PT}, "med sync needs the patient id"),
        P_state("succeeded", "the PA case exists", call_id=c_pa, request_id="epa-9f13c2"),
        P_fact("allergy", "sulfonamide antibiotics (hives); no penicillin allergy",
               "the corrected allergy must drive any DUR check on new fills"),
    ])
    c_tf = t.call("rx_request_refill", {"rx_number": rx_new["apixaban"], "store_id": "BW-1140", "quantity": 60,
                                        "override": "transition_fill", "member_id": MEMBER})
    t.result(c_tf, request_id="rf-tf-3d2a91", result={"order_id": "RF-3392051", "rx_number": rx_new["apixaban"],
                                                     "claim": "paid (transition fill, 30 ds)", "patient_pay": "47.00",
                                                     "ready_by": "2025-02-28T18:00",
                                                     "pharmacist_review": {
                                                         "by": "A. Brandt, PharmD", "result": "approved to dispense",
                                                         "note": "DUR major apixaban+ibuprofen resolved: caregiver "
                                                                 "stopping OTC ibuprofen, switching to acetaminophen. "
                                                                 "Dose 5 mg BID appropriate (age 83, wt 74 kg; SCr "
                                                                 "pending from prescriber). Counsel at pickup."},
                                                     "transition_notice": "CMS transition notice mailed to member "
                                                                          "within 3 business days"})
    c = t.call("rx_sync_schedule", {"patient_id": PT, "store_id": "BW-1140", "target_day": "earliest_common"})
    sync = "\n".join([
        "MED SYNC PROPOSAL - Hale, Anton J. - Hawthorne Blvd (BW-1140) - anchor date 2025-03-14",
        "Rx                         last fill    days left  short fill to anchor   then every",
        f"{rx_new['levothyroxine']}  Synthroid 88 mcg   2025-01-10   ~41        none (fill 90 ds on 3/14)   90 days",
        f"{rx_new['apixaban']}  Eliquis 5 mg       2025-02-28   30         14 ds on 3/14? no: next full 3/30    30 days",
        f"{rx_new['metoprolol']}  metoprolol ER 50   2025-01-16   ~47        32 ds short fill 2/28       90 days",
        f"{rx_new['metformin']}  metformin ER 500   2025-02-13   ~75        none until 4/29              90 days",
        "lisinopril 10 mg (transfer pending)            -          -          add when transfer completes",
        "Proposed common pickup: every 30 days from 2025-03-30 for Eliquis; 90-day items aligned to 2025-06-28.",
        "Short fills are prorated by the plan (no extra copay beyond the prorated amount).",
        "Caregiver reminder: call 3 days before each sync date to confirm changes (doses, hospital stays)."])
    t.result(c, result={"patient_id": PT, "sync_anchor": "2025-03-30", "proposal_text": sync,
                        "status": "proposed", "sync_id": "SYNC-77140"})
    t.asst("Transition fill done: Eliquis order RF-3392051, 30 days, $47.00, ready at Hawthorne today after 6 pm. "
           "For one pickup day, the sync proposal (SYNC-77140) lines everything up on March 30, then monthly for "
           "Eliquis, with the 90-day drugs aligned to June 28. Short fills are prorated. Lisinopril joins once its "
           "transfer comes through.")
    t.user("What should he do if he misses an Eliquis dose? He's a bit forgetful.")
    c = t.call("rx_lookup", {"rx_number": rx_new["apixaban"], "include": ["counseling"]})
    couns = "\n".join([
        "PATIENT COUNSELING - ELIQUIS (apixaban) 5 mg tablet - take 1 tablet by mouth twice daily",
        "MISSED DOSE: take it as soon as you remember on the same day, then resume the usual twice-daily schedule.",
        "  Do not take two doses at the same time to make up for a missed dose.",
        "DO NOT STOP taking Eliquis without talking to the prescriber; stopping raises the risk of stroke.",
        "BLEEDING: call the doctor for unusual bruising, pink/brown urine, red or black stools, coughing up",
        "  blood, vomiting blood or 'coffee grounds', nosebleeds that don't stop, unusually heavy bleeding.",
        "  Seek emergency care for a fall or head injury, even if you feel fine.",
        "OTHER MEDICINES: avoid aspirin and NSAIDs (ibuprofen, naproxen) unless the prescriber says otherwise.",
        "  Tell every doctor and dentist you take Eliquis; it may need to be paused before procedures.",
        "STORAGE: room temperature. Tablets may be crushed and mixed with water, apple juice or applesauce.",
        "AIDS: a weekly AM/PM pill organizer and phone alarms help with twice-daily dosing."])
    t.result(c, result={"rx_number": rx_new["apixaban"], "drug": "Eliquis 5 mg tablet", "counseling_text": couns})
    t.asst("If he misses a dose, he takes it as soon as someone notices on the same day, then goes back to the "
           "normal twice-daily times; never two at once to catch up. He shouldn't stop it without the doctor, "
           "because that raises his stroke risk. Watch for unusual bruising, dark or bloody stools or urine, and "
           "any fall with a head bump means the ER even if he seems fine. A weekly AM/PM pill organizer helps a "
           "lot; we can pre-fill blister packs at Hawthorne if you'd like.")
    t.user("He has a colonoscopy on March 20. What does he do with the Eliquis around that?")
    c = t.call("rx_lookup", {"rx_number": rx_new["apixaban"], "include": ["periprocedural"]})
    peri = "\n".join([
        "APIXABAN - PERIPROCEDURAL GUIDANCE (pharmacy reference; the prescriber/proceduralist decides)",
        "Low/moderate bleeding-risk procedures (e.g. colonoscopy with possible polypectomy):",
        "  CrCl > 50 mL/min: last dose 2 days before the procedure (skip 4 doses); no bridging with heparin.",
        "  CrCl 30-50 mL/min: same as above in most protocols; some hold 3 days.",
        "  Diagnostic colonoscopy without planned polypectomy: some centers hold only 1 day.",
        "Resume: 24 h after low-risk procedures, 48-72 h after high-risk, once hemostasis is secure.",
        "Do not stop without instructions from the prescriber (Dr. Okoye) and the GI clinic; they coordinate.",
        "Bowel prep: metformin - hold on the prep day if not eating; resume with meals. Keep Synthroid.",
        "Patient CrCl estimate (Cockcroft-Gault, 83 y, 74 kg, SCr unknown): request SCr."])
    t.result(c, result={"rx_number": rx_new["apixaban"], "guidance_text": peri})
    t.asst("He'll need specific instructions from Dr. Okoye and the GI clinic; don't stop it on your own. For a "
           "colonoscopy the usual pattern is the last Eliquis dose 2 days before (so the morning of March 18), "
           "no heparin bridge, and restarting about 24 hours after if no large polyp was removed. On the prep day "
           "he may need to skip metformin if he isn't eating; Synthroid continues. I can include the question in "
           "the note to Dr. Okoye's office if you like.")
    t.user("Yes, put it in the note. Also, he has trouble swallowing the big metformin tablets. Can I crush them?")
    c = t.call("rx_lookup", {"rx_number": rx_new["metformin"], "include": ["counseling", "alternatives"]})
    t.result(c, result={"rx_number": rx_new["metformin"], "drug": "Metformin ER 500 mg tablet",
                        "counseling_text": "\n".join([
                            "METFORMIN ER (extended-release) 500 mg - take 2 tablets with the evening meal",
                            "SWALLOW WHOLE. Do not crush, chew or split: this releases the whole dose at once and",
                            "  increases stomach upset and the risk of low blood sugar with other drugs.",
                            "You may see the empty tablet shell in your stool; this is normal.",
                            "Side effects: nausea, diarrhea (usually improve); rarely lactic acidosis - seek care",
                            "  for unusual muscle pain, trouble breathing, severe drowsiness.",
                            "Kidney function (eGFR) should be checked at least yearly at age 80+.",
                            "Contrast dye (CT scans): the prescriber may hold metformin for 48 h."]),
                        "alternatives": [
                            {"option": "metformin ER 500 mg (different manufacturer, smaller oval tablet)",
                             "size_mm": "17 x 8", "current_size_mm": "20 x 10", "tier": 1},
                            {"option": "metformin immediate-release 500 mg (can be split), 1 tab twice daily",
                             "tier": 1, "needs_new_rx": True},
                            {"option": "metformin oral solution 500 mg/5 mL (Riomet)", "tier": 4, "needs_new_rx": True}]})
    t.asst("No, please don't crush the ER tablets: that dumps the whole dose at once and makes stomach upset and "
           "low sugars more likely. Easiest fix: we can dispense a different manufacturer's ER 500 mg that's a "
           "smaller oval tablet (17 x 8 mm instead of 20 x 10), same tier 1, no new prescription needed. Otherwise "
           "Dr. Moreau could switch him to the immediate-release form, which can be split, or a liquid (but that's "
           "tier 4).")
    t.user("The smaller tablet please, he'll be much happier. And blister packs would be amazing, he keeps "
           "forgetting whether he took the evening ones. Can you set that up with the sync?")
    c = t.call("rx_sync_schedule", {"patient_id": PT, "sync_id": "SYNC-77140", "packaging": "multi_dose_blister",
                                    "slots": ["morning", "evening"]})
    t.result(c, result={"sync_id": "SYNC-77140", "packaging": {"type": "multi-dose blister card, 7 days x 4",
                                                                "slots": {"morning (before breakfast)": ["Synthroid 88 mcg"],
                                                                          "morning (with breakfast)": ["Eliquis 5 mg",
                                                                                                       "metoprolol ER 50 mg",
                                                                                                       "lisinopril 10 mg (when transferred)"],
                                                                          "evening (with dinner)": ["Eliquis 5 mg",
                                                                                                    "metformin ER 500 mg x2"]},
                                                                "fee": "0.00 (Medicare adherence packaging, med sync)",
                                                                "first_cards": "2025-03-30",
                                                                "note": "Synthroid gets its own slot 30-60 min before "
                                                                        "breakfast"},
                        "status": "proposed"})
    t.asst("Set up with the sync, no fee: weekly blister cards starting March 30, with a before-breakfast slot for "
           "Synthroid alone, a breakfast slot for Eliquis, metoprolol and (once it arrives) lisinopril, and a "
           "dinner slot for Eliquis and the two metformin tablets. Until then he uses the bottles from today.")
    t.user("Fine, accept the sync. Did the lisinopril transfer ever come through?")
    c = t.call("rx_sync_schedule", {"patient_id": PT, "sync_id": "SYNC-77140", "accept": True})
    t.result(c, result={"sync_id": "SYNC-77140", "status": "active", "next_sync_date": "2025-03-30"})
    t.status_query(c_t5, "unknown", detail="CareRite #2211 has not answered the transfer request; store-to-store "
                                           "transfers can take up to 1 business day")
    t.asst("Sync is active with blister packs, first common pickup March 30, then every 30 days. The lisinopril "
           "transfer is still unanswered by CareRite #2211; store-to-store transfers can take up to a business "
           "day, and I can't see anything on their side. How long will his current lisinopril last? If it's "
           "short, Dr. Moreau could send a fresh prescription to us instead.")
    t.user("About two weeks, so no panic. Let's pay for today's stuff, I'll pick it up on my way home from work. "
           "What's the total?")
    t.decision("d5-pay", [
        P_state("unknown", "the lisinopril transfer is still open", call_id=c_t5),
        P_pending("it has no definitive answer", call_id=c_t5),
        P_next("rx_pay_order", {"order_id": "RF-3392051"}, "the Eliquis order id from the transition fill"),
        P_evidence([s_t5, s_t5to], "the lisinopril transfer call and its timeout"),
        P_fact("pa_case_id", "PA-S5601-2250918", "the prior-authorization case still pending"),
    ])
    c = t.call("rx_lookup", {"rx_number": rx_new["levothyroxine"], "include": ["label", "product"]})
    t.result(c, result={"rx_number": rx_new["levothyroxine"], "product": {"name": "Synthroid 88 mcg tablet",
                                                                          "manufacturer": "AbbVie", "ndc": "0074-6594-90",
                                                                          "brand": True, "substitution_allowed": False},
                        "label_text": "\n".join([
                            f"RX {rx_new['levothyroxine']}   HALE, ANTON J   DOB 09/03/1941",
                            "SYNTHROID 88 MCG TABLET (BRAND - DO NOT SUBSTITUTE)",
                            "TAKE 1 TABLET BY MOUTH EVERY MORNING ON AN EMPTY STOMACH 30-60 MINUTES BEFORE "
                            "BREAKFAST",
                            "QTY 90   REFILLS 3   DR. LILA MOREAU   DAW 1",
                            "AUX: TAKE 4 HOURS APART FROM CALCIUM, IRON OR ANTACIDS. DO NOT STOP WITHOUT TALKING "
                            "TO YOUR DOCTOR.", "BRIGHTWELL PHARMACY #1140  (503) 555-0130"])})
    c = t.call("rx_request_refill", {"rx_number": rx_new["levothyroxine"], "store_id": "BW-1140", "quantity": 90,
                                     "daw": "1", "member_id": MEMBER})
    t.result(c, request_id="rf-3d2b07", result={"order_id": "RF-3392068", "rx_number": rx_new["levothyroxine"],
                                               "drug": "Synthroid 88 mcg (brand, DAW 1)", "patient_pay": "47.00",
                                               "ready_by": "2025-02-28T18:00"})
    c_pay = t.call("rx_pay_order", {"order_id": "RF-3392051", "additional_orders": ["RF-3392068"],
                                    "amount": "94.00", "payment_method": "card_on_file_proxy_visa_8841"})
    s_pay = t.cseq(c_pay)
    t.approval("apr-copay", "requested", s_pay)
    t.asst("Today: Eliquis transition fill $47.00 and Synthroid brand 90 days $47.00 (I started that fill too, "
           "since he has about six weeks left and it's cheaper now than after a price change). Total $94.00 on "
           "your Visa ending 8841. Approve?")
    t.user("Wait, the Synthroid, that's definitely the brand, not the generic? $47 seems cheap.")
    t.decision("d6-question", [
        P_pending("the copay approval is open", approval_id="apr-copay"),
        P_constraint(s_brand, "generic levothyroxine", "the answer must confirm brand, per the user's rule"),
        P_fact("daw", "1 (brand medically necessary)", "the transferred Rx carries DAW 1"),
    ])
    t.asst("Yes, it's brand Synthroid: the prescription carries DAW 1 (brand medically necessary), and the plan "
           "accepted it as brand. It's $47 because it's tier 3 and the plan caps his deductible-stage share for "
           "that claim; once the deductible is met it would be about the same.")
    t.user("OK. Approved.")
    t.approval("apr-copay", "granted", s_pay)
    t.result(c_pay, request_id="pay-rx-91c5e2", result={"receipt": "RCPT-BW-5530018", "amount": "94.00",
                                                       "orders": ["RF-3392051", "RF-3392068"],
                                                       "receipt_text": "\n".join([
        "BRIGHTWELL PHARMACY #1140 HAWTHORNE BLVD  PORTLAND OR  (503) 555-0130",
        "02/28/2025 15:31  RCPT-BW-5530018  Patient: HALE, ANTON J  Paid by: R. HALE-ORTIZ (proxy)",
        f"RX {rx_new['apixaban']}  ELIQUIS 5MG TAB  QTY 60  DS 30  TRANSITION FILL",
        "   Plan: EVERGREEN SENIOR RX S5601-022  Plan paid 512.37  Patient pay 47.00 (deductible)",
        f"RX {rx_new['levothyroxine']}  SYNTHROID 88MCG TAB  QTY 90  DS 90  DAW 1",
        "   Plan: EVERGREEN SENIOR RX S5601-022  Plan paid 148.20  Patient pay 47.00 (deductible)",
        "SUBTOTAL 94.00   TAX 0.00   TOTAL 94.00   VISA ****8841 APPROVED 044871",
        "Deductible met to date: 94.00 of 590.00   Out-of-pocket to date: 94.00 of 2,000.00",
        "You saved 660.57 with your plan. Keep this receipt for your records (FSA/HSA eligible)."])})
    t.asst("Paid $94.00 (receipt RCPT-BW-5530018). Both will be ready at Hawthorne after 6 pm today. That also "
           "counts $94 toward his $590 deductible. When you pick up, the pharmacist will go over the Eliquis "
           "(the ibuprofen interaction and the missed-dose rule) for a few minutes.")
    t.user("Can you text me when they're ready? Use my number, 971-555-0187, not his. He doesn't read texts and "
           "it just confuses him when his phone buzzes.")
    t.decision("d7-notify", [
        P_next("rx_set_notification", {"order_id": "RF-3392068"}, "the Synthroid order id from the fill"),
        P_state("succeeded", "the payment went through", call_id=c_pay, request_id="pay-rx-91c5e2"),
    ])
    for oid in ("RF-3392051", "RF-3392068"):
        c = t.call("rx_set_notification", {"order_id": oid, "channel": "sms", "phone": "971-555-0187"})
        t.result(c, result={"order_id": oid, "subscription": f"ntf_{t.alnum(6)}", "status": "active"})
    t.asst("Done, both orders will text 971-555-0187 when ready, and only your number is on them. I can also "
           "switch his future sync reminders to your phone so he never gets pharmacy texts; they're set to his "
           "landline today, which only gets automated calls.")
    t.user("Yes, move all of it to my phone please, the landline calls scare him.")
    c = t.call("rx_patient_profile", {"patient_id": PT, "update": {"contact_preferences": {
        "sms": "971-555-0187 (proxy)", "voice": None, "reminders": "proxy_only"}}})
    t.result(c, result={"patient_id": PT, "contact_preferences": {"sms": "971-555-0187 (proxy)", "voice": None,
                                                                  "reminders": "proxy_only"}})
    t.asst("All pharmacy reminders and ready-texts for your dad now go only to your phone; his landline will get "
           "no more automated calls from us.")
    t.user("Last: send a note to Dr. Okoye's office about the PA so they answer fast, and tell me what's left.")
    t.decision("d8-wrapup", [
        P_next("rx_message_prescriber", {"prescriber_npi": "1467738219", "pa_case_id": "PA-S5601-2250918"},
               "the NPI and the PA case id came from much earlier results"),
        P_state("unknown", "the lisinopril transfer remains unresolved", call_id=c_t5),
        P_fact("part_d_member_id", MEMBER, "the plan's member id the office will need"),
        P_constraint(s_store, "Hawthorne", "any future fill goes to Hawthorne"),
        P_fact("next_sync_date", "2025-03-30", "the next common pickup, part of what's left"),
    ])
    c = t.call("rx_message_prescriber", {"prescriber_npi": "1467738219", "pa_case_id": "PA-S5601-2250918",
                                         "patient": "Anton J. Hale, DOB 1941-09-03", "channel": "fax",
                                         "message": "Expedited PA for apixaban 5 mg BID pending your answers (4 "
                                                    "questions, CoverMyMeds key BX7QK2). Patient on a 30-day "
                                                    "transition fill. Member ID " + MEMBER + ". Allergy update: "
                                                    "sulfonamide antibiotics (hives), no penicillin allergy. "
                                                    "Question: apixaban hold/resume plan for colonoscopy on "
                                                    "2025-03-20. OTC ibuprofen stopped (DUR major interaction)."})
    t.result(c, result={"message_id": "FAX-2025022815-7731", "status": "delivered", "pages": 2,
                        "to": "Cascade Heart Associates, attn. Dr. Samuel Okoye, fax (503) 555-0171",
                        "preview_text": "\n".join([
                            "BRIGHTWELL PHARMACY #1140 - PRESCRIBER COMMUNICATION - 02/28/2025 15:44",
                            "TO: Dr. Samuel Okoye (NPI 1467738219)  FROM: A. Brandt, PharmD, (503) 555-0130",
                            "RE: HALE, ANTON J  DOB 09/03/1941  Evergreen Senior Rx member " + MEMBER,
                            "1. Expedited prior authorization pending your answers: apixaban 5 mg BID, case",
                            "   PA-S5601-2250918, CoverMyMeds key BX7QK2 (4 questions incl. weight/SCr for dosing).",
                            "2. Patient received a one-time 30-day transition fill today.",
                            "3. Allergy list corrected per caregiver and prior pharmacy: SULFONAMIDE ANTIBIOTICS",
                            "   (hives). NO penicillin allergy (tolerated amoxicillin 06/2024).",
                            "4. OTC ibuprofen discontinued (major interaction with apixaban); acetaminophen advised.",
                            "5. Colonoscopy scheduled 03/20/2025: please advise apixaban hold/resume plan.",
                            "Please reply by fax or call. Thank you."])})
    t.asst("Faxed Dr. Okoye's office (delivered): the expedited PA with the CoverMyMeds key, his member ID, the "
           "transition fill, the corrected sulfa allergy, the ibuprofen stop, and the colonoscopy question. What's left: (1) the PA decision, expected within "
           "24 h of the office's answers; (2) the lisinopril transfer from CareRite, still unanswered, so call "
           "them if it isn't here by Monday, he has about two weeks; (3) pickup tonight at Hawthorne, you'll get "
           "texts; (4) next sync pickup March 30.")
    t.user("Can you give me an up-to-date med list for his fridge door?")
    c = t.call("rx_patient_profile", {"patient_id": PT, "include": ["medication_list"]})
    t.result(c, result={"patient_id": PT, "medication_list_text": "\n".join([
        "MEDICATION LIST - ANTON J. HALE (DOB 09/03/1941) - Brightwell Hawthorne (503) 555-0130 - 02/28/2025",
        "ALLERGY: SULFA ANTIBIOTICS (hives). No penicillin allergy.",
        "MORNING, 30-60 min BEFORE breakfast: Synthroid 88 mcg (BRAND ONLY) - thyroid",
        "MORNING, with breakfast: Eliquis 5 mg - blood thinner (atrial fibrillation)",
        "                         Metoprolol succinate ER 50 mg - heart rate / blood pressure",
        "                         Lisinopril 10 mg - blood pressure (transfer pending)",
        "EVENING, with dinner: Eliquis 5 mg - blood thinner",
        "                      Metformin ER 500 mg, 2 tablets - diabetes",
        "AS NEEDED: acetaminophen (Tylenol) 500 mg, up to 6 tablets/day - knee pain. NO ibuprofen/naproxen.",
        "STOPPED: atorvastatin 20 mg (08/2024, muscle pain); ibuprofen (02/2025, interaction with Eliquis)",
        "Doctors: Dr. Lila Moreau (primary care); Dr. Samuel Okoye (cardiology)",
        "Emergency contact: Renata Hale-Ortiz 971-555-0187"])})
    t.asst("Here it is, ready to print and current as of today, including the Tylenol instead of ibuprofen: allergy (sulfa, not penicillin) at the top; Synthroid alone before "
           "breakfast; Eliquis, metoprolol and lisinopril with breakfast; Eliquis and metformin with dinner; "
           "Tylenol as needed and no ibuprofen; the stopped drugs; both doctors; and you as the emergency contact.")
    t.system("Session resumed 2025-03-01 10:15.")
    t.user("Good morning! Any news on the Eliquis PA? I'd like to know before the weekend whether the March fill "
           "will go through without the transition override.")
    c = t.call("rx_pa_status", {"pa_case_id": "PA-S5601-2250918"})
    t.result(c, result={"pa_case_id": "PA-S5601-2250918", "state": "approved", "decided_at": "2025-03-01T09:02:11Z",
                        "approval": {"drug": "apixaban 5 mg", "quantity_limit": "60 per 30 days",
                                     "valid_through": "2026-02-28"},
                        "prescriber_answers": {"diagnosis": "I48.91", "cha2ds2_vasc": 5, "mechanical_valve": False,
                                               "age": 83, "weight_kg": 74, "creatinine": "1.1 mg/dL (2025-02-12)"},
                        "letter": "mailed to member 2025-03-01"})
    t.asst("Approved this morning, valid through Feb 28, 2026 (60 tablets per 30 days). Dr. Okoye's office "
           "answered: CHA2DS2-VASc 5, no mechanical valve, weight 74 kg, creatinine 1.1, so 5 mg twice daily is "
           "right. The March 30 sync fill will go through normally. The lisinopril transfer is the only open item.")
    t.user("And the lisinopril?")
    t.status_query(c_t5, "unknown", detail="CareRite #2211 still has not responded; request open since "
                                           "2025-02-28T14:58Z")
    t.asst("Still nothing from CareRite #2211 since the request went out yesterday afternoon. He has about two "
           "weeks of tablets, so there's time, but I'd call CareRite on Monday at (503) 555-0199 and ask them to "
           "release Rx CR-2211-70438 to Brightwell Hawthorne. If it can't be transferred, Dr. Moreau can send a "
           "new prescription to us directly.")
    return t
# --- t16 end ---


# === end of trajectories ===

# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------

def build_all() -> list[T]:
    built = [fn() for fn in TRAJECTORIES]
    built.sort(key=lambda t: t.num)
    ids = [t.id for t in built]
    assert len(ids) == len(set(ids)), "duplicate trajectory ids"
    nums = [t.num for t in built]
    assert len(nums) == len(set(nums)), "duplicate file numbers"
    for t in built:
        oracle(t)
    return built


def render(t: T) -> str:
    return "\n".join(t.lines()) + "\n"


def stats(built: list[T]) -> None:
    from pgctx.eventlog import event_tokens
    from pgctx.tokens import TokenCounter

    counter = TokenCounter("o200k_base")
    classes = ("fact", "tool_state", "next_call", "pending", "constraint", "evidence")
    head = f"{'file':34} {'id':30} {'window':>6} {'events':>6} {'tokens':>6} {'max_ev':>6} {'long':>4} {'dec':>3} " + \
        " ".join(f"{c[:9]:>9}" for c in classes) + f" {'probes':>6} {'late':>4}"
    print(head)
    print("-" * len(head))
    totals = {c: 0 for c in classes}
    tot_ev = tot_tok = tot_dec = 0
    for t in built:
        toks = [event_tokens(k, p, counter) for s, (k, p) in sorted(t.events.items())]
        n_ev = len(toks)
        per = {c: 0 for c in classes}
        late = 0
        seq_at = 0
        for step in t.steps:
            if step["type"] == "event":
                seq_at = step["seq"]
            if step["type"] == "decision":
                for p in step["probes"]:
                    per[p["probe"]] += 1
                    if seq_at > 0.5 * n_ev:
                        late += 1
        n_dec = sum(1 for s in t.steps if s["type"] == "decision")
        long_outputs = sum(1 for (k, _), n in zip([t.events[s] for s in sorted(t.events)], toks)
                           if k in ("tool_result", "status_query") and 300 <= n <= 1500)
        window = t.header.get("window", "-")
        print(f"{t.filename:34} {t.id:30} {window!s:>6} {n_ev:6} {sum(toks):6} {max(toks):6} {long_outputs:4} {n_dec:3} "
              + " ".join(f"{per[c]:9}" for c in classes) + f" {sum(per.values()):6} {late:4}")
        for c in classes:
            totals[c] += per[c]
        tot_ev += n_ev
        tot_tok += sum(toks)
        tot_dec += n_dec
    print("-" * len(head))
    print(f"{'total (' + str(len(built)) + ' trajectories)':34} {'':30} {'':>6} {tot_ev:6} {tot_tok:6} {'':>6} {'':>4} {tot_dec:3} "
          + " ".join(f"{totals[c]:9}" for c in classes) + f" {sum(totals.values()):6}")


def sanity(built: list[T]) -> list[str]:
    """The brief's size rules; returned as warnings."""
    from pgctx.eventlog import event_tokens
    from pgctx.tokens import TokenCounter

    counter = TokenCounter("o200k_base")
    out = []
    for t in built:
        toks = [event_tokens(k, p, counter) for s, (k, p) in sorted(t.events.items())]
        n_dec = sum(1 for s in t.steps if s["type"] == "decision")
        n_probes = sum(len(s["probes"]) for s in t.steps if s["type"] == "decision")
        w = t.header.get("window")
        if w:
            if not 10 <= len(toks) <= 40:
                out.append(f"{t.id}: short trajectory with {len(toks)} events")
            if not 2 * w <= sum(toks) <= 8 * w:
                out.append(f"{t.id}: {sum(toks)} tokens is not 2-8x the window {w}")
            if max(toks) > w // 4:
                out.append(f"{t.id}: an event of {max(toks)} tokens is large for window {w}")
            if not (2 <= n_dec <= 5 and 3 <= n_probes <= 10):
                out.append(f"{t.id}: {n_dec} decisions / {n_probes} probes")
        else:
            if len(toks) < 100 or sum(toks) < 15000:
                out.append(f"{t.id}: long trajectory with {len(toks)} events / {sum(toks)} tokens")
            if max(toks) > 1500:
                out.append(f"{t.id}: an event of {max(toks)} tokens")
            if not (5 <= n_dec <= 8 and 18 <= n_probes <= 30):
                out.append(f"{t.id}: {n_dec} decisions / {n_probes} probes")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the files on disk differ")
    ap.add_argument("--stats", action="store_true", help="print the stats table")
    args = ap.parse_args()
    built = build_all()
    if args.stats:
        stats(built)
        for w in sanity(built):
            print("WARNING:", w)
        return 0
    if args.check:
        bad = []
        expected = {t.filename for t in built}
        for t in built:
            path = HERE / t.filename
            if not path.exists() or path.read_text(encoding="utf-8") != render(t):
                bad.append(t.filename)
        bad += sorted(p.name for p in HERE.glob("*.jsonl") if p.name not in expected)
        for name in bad:
            print("differs:", name)
        return 1 if bad else 0
    for t in built:
        (HERE / t.filename).write_text(render(t), encoding="utf-8")
    for w in sanity(built):
        print("WARNING:", w, file=sys.stderr)
    print(f"wrote {len(built)} trajectories to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
