"""Domain kits and the episode engine both holdout6 parts are generated from (standard library only).

A kit is the vocabulary of one kind of agent work (its subject identifier, a read tool with the
fields it returns, a second read tool that can disagree with it, a write tool, an irreversible
tool behind an approval, user-stated facts, constraints and the noise its logs carry).  The engine
strings *episodes* (lookups, approvals, timeouts, restarts, corrections, contradictions, noisy
outputs, topic switches) together and places decision points whose probes ask for what an earlier
episode established; every probe is checked against the raw history by holdout_lib.oracle.
"""

from __future__ import annotations

import string

from holdout_lib import (Traj, check_probe, event_text, p_constraint, p_evidence, p_fact, p_next, p_pending,
                         p_state)

NAMES = ["Okafor", "Lindqvist", "Ramanathan", "Castillo", "Nakamura", "Brennan", "Haddad", "Petrova",
         "Mbeki", "Oyelaran", "Fischer", "Quispe", "Tanaka", "Dubois", "Kowalczyk", "Alvarez"]
DATES = ["2026-12-{:02d}".format(d) for d in range(7, 29)]


def K(key, arg, ent, read, audit, write, irrev, fields, ufacts, constraints, noise, noun, verb):
    return dict(key=key, arg=arg, ent=ent, read=read, audit=audit, write=write, irrev=irrev,
                fields=fields, ufacts=ufacts, constraints=constraints, noise=noise, noun=noun, verb=verb)


# write = (tool, argument it sets, value spec, field its result confirms with)
# irrev = (tool, argument, value spec)
KITS = [
    K("lab", "sample_id", "SMP-{4}", "lims_get_sample", "lims_audit_trail",
      ("lims_move_sample", "target_freezer", "FRZ-{L}{2}", "move_ticket"),
      ("lims_dispose_sample", "disposal_reason", ["expired consent", "hemolyzed", "protocol closed"]),
      {"freezer": "FRZ-{L}{2}", "rack_slot": "R{1}-S{2}", "storage_temp": ["-80C", "-20C", "4C"],
       "custodian": NAMES, "aliquots_left": "{1}"},
      [("study_code", "STU-{3}"), ("courier_awb", "AWB{8}")],
      [("Never let a sample from study STU-{3} leave building C.", "leave building C"),
       ("Thaw cycles are capped at two per aliquot, no exceptions.", "capped at two"),
       ("Only Dr. {N} may sign off disposals this month.", "sign off disposals")],
      ["barcode scan", "thaw cycle", "chain-of-custody", "centrifuge", "LN2 top-up"], "sample", "relocate"),
    K("claims", "claim_id", "CLM-{5}", "claims_get", "fraud_screen",
      ("claims_set_reserve", "reserve_amount", "{amt}", "reserve_ref"),
      ("claims_issue_payment", "payee_iban", "DE{2}37040044{8}"),
      {"adjuster": NAMES, "deductible": "{amt}", "loss_date": DATES, "policy_no": "POL-{6}",
       "coverage": ["comprehensive", "third-party", "collision"]},
      [("claimant_phone", "+44 7{3} {6}"), ("repair_shop", ["Kestrel Autos", "Marlow Body Works", "Fenwick Garage"])],
      [("Do not pay out anything above {amt} without a second adjuster.", "second adjuster"),
       ("The claimant only wants contact by email, never by phone.", "never by phone"),
       ("Keep the subrogation file separate from the payment file.", "subrogation file")],
      ["photo upload", "telematics ping", "estimate line", "police ref", "rental car"], "claim", "adjust"),
    K("release", "train_id", "RT-{4}", "ci_get_train", "deploy_ledger",
      ("ci_promote", "target_env", ["staging-eu", "canary-us", "prod-ap"], "promotion_id"),
      ("ci_cut_release", "git_sha", "{h}{h}{h}{h}{h}{h}{h}"),
      {"branch": "release/{2}.{1}", "build_no": "{5}", "owner": NAMES, "freeze_until": DATES,
       "flaky_tests": "{1}"},
      [("ticket", "REL-{4}"), ("change_window", ["Tue 02:00-04:00 UTC", "Thu 22:00-23:30 UTC"])],
      [("Nothing goes to prod-ap during the Tokyo trading hours.", "Tokyo trading hours"),
       ("Every promotion needs the smoke suite green twice in a row.", "green twice"),
       ("Do not touch the payments service train this week.", "payments service")],
      ["step cache hit", "artifact upload", "lint", "integration shard", "retry"], "release train", "promote"),
    K("clinic", "appointment_id", "APT-{5}", "sched_get_appointment", "ehr_lookup",
      ("sched_reschedule", "new_slot", "{d} {t}", "booking_ref"),
      ("sched_cancel_series", "reason_code", ["PT-REQ", "CLIN-HOLD", "NO-SHOW3"]),
      {"clinician": NAMES, "room": "Rm {3}", "slot": "{d} {t}", "visit_type": ["follow-up", "intake", "infusion"],
       "insurer": ["Aetna", "Bupa", "AXA"]},
      [("patient_mrn", "MRN{7}"), ("interpreter", ["Tagalog", "Farsi", "Polish"])],
      [("The patient cannot do mornings before 10:30.", "before 10:30"),
       ("Infusion visits must stay in the same room as the last one.", "same room"),
       ("Never double-book Dr. {N} on Fridays.", "on Fridays")],
      ["waitlist", "reminder SMS", "copay check", "referral", "vitals"], "appointment", "reschedule"),
    K("robots", "robot_id", "AMR-{3}", "fleet_get_robot", "wms_telemetry",
      ("fleet_assign_zone", "zone", "Z{1}{L}", "assignment_id"),
      ("fleet_decommission", "asset_tag", "AT-{6}"),
      {"battery_pct": "{2}", "firmware": "v{1}.{2}.{1}", "zone_now": "Z{1}{L}", "fault_code": "E{3}",
       "dock": "D-{2}"},
      [("shift_lead", NAMES), ("pick_wave", "W{4}")],
      [("No robot below 20 percent battery may enter zone Z9.", "20 percent"),
       ("Keep aisle 14 clear until the racking inspection is done.", "aisle 14"),
       ("Do not reboot more than three robots at once.", "three robots")],
      ["lidar", "path replan", "tote scan", "charger handshake", "e-stop"], "robot", "reassign"),
    K("legal", "doc_id", "DOC-{6}", "review_get_doc", "privilege_log",
      ("review_tag", "tag", ["privileged", "responsive", "hot", "redact-PII"], "tag_batch"),
      ("review_produce", "production_set", "PROD-{3}"),
      {"custodian": NAMES, "bates_start": "ACME{6}", "doc_date": DATES, "reviewer": NAMES,
       "page_count": "{3}"},
      [("matter_no", "M-{5}"), ("opposing_counsel", ["Hale & Whitcombe", "Bryce LLP", "Ostrander Kim"])],
      [("Anything mentioning Project {L}{L} is privileged until the partner says otherwise.", "privileged until"),
       ("Produce nothing to opposing counsel before the meet-and-confer.", "meet-and-confer"),
       ("Redact every personal phone number, even in signatures.", "even in signatures")],
      ["OCR", "near-dup", "thread", "family", "hash"], "document", "tag"),
    K("dns", "zone_name", "{w}.example.net", "dns_get_record", "resolver_probe",
      ("dns_update_record", "new_target", "10.{2}.{2}.{2}", "change_id"),
      ("dns_delete_zone", "confirm_token", "DEL-{h}{h}{h}{h}"),
      {"ttl": "{3}", "target": "10.{2}.{2}.{2}", "serial": "2026{6}", "record_type": ["A", "CNAME", "AAAA"],
       "registrar": ["Gandi", "Route53", "Cloudflare"]},
      [("change_ticket", "CHG-{5}"), ("oncall", NAMES)],
      [("Lower TTLs to 60 at least an hour before any cutover.", "at least an hour"),
       ("Never touch the MX records during business hours.", "MX records"),
       ("All changes go through the staging resolver first.", "staging resolver")],
      ["dig", "NXDOMAIN", "propagation", "SOA", "anycast"], "zone", "repoint"),
    K("payroll", "employee_id", "EMP-{5}", "payroll_get_employee", "hris_lookup",
      ("payroll_adjust", "adjustment_amount", "{amt}", "adjustment_ref"),
      ("payroll_offcycle_run", "bank_batch", "BB-{6}"),
      {"pay_grade": "G{1}", "base_salary": "{amt}", "cost_center": "CC-{4}", "tax_code": "{4}L",
       "manager": NAMES},
      [("pay_period", ["2026-P23", "2026-P24", "2026-P25"]), ("hr_case", "HRC-{4}")],
      [("Never run an off-cycle payment on a Friday.", "on a Friday"),
       ("Garnishment orders always take priority over bonuses.", "take priority"),
       ("Corrections above {amt} need the controller's sign-off.", "controller's sign-off")],
      ["timesheet", "accrual", "PTO", "benefit deduction", "overtime"], "employee", "correct"),
    K("review", "paper_id", "PAP-{4}", "cms_get_paper", "plagiarism_check",
      ("cms_assign_reviewer", "reviewer_email", "{n}@uni-{w}.edu", "assignment_ref"),
      ("cms_send_decision", "decision", ["accept", "major revision", "reject"]),
      {"track": ["systems", "theory", "ML"], "corresponding_author": NAMES, "similarity_pct": "{2}",
       "submitted": DATES, "meta_reviewer": NAMES},
      [("conference", ["SOSP-27", "ICML-27", "STOC-27"]), ("deadline", DATES)],
      [("Nobody from the author's institution may review it.", "author's institution"),
       ("Send no decision emails until the PC meeting ends.", "PC meeting ends"),
       ("Every paper needs at least three reviews.", "three reviews")],
      ["bid", "conflict", "rebuttal", "score", "discussion"], "paper", "route"),
    K("tickets", "event_id", "EVT-{4}", "tix_get_event", "venue_manifest",
      ("tix_hold_seats", "section", "S{3}", "hold_ref"),
      ("tix_refund_order", "order_ref", "ORD-{7}"),
      {"venue": ["Riverside Arena", "Halden Hall", "Pier 9 Stage"], "capacity": "{5}", "doors": "{t}",
       "promoter": NAMES, "onsale": DATES},
      [("group_name", ["Northside Choir", "Tech Meetup 41", "Alumni Class 09"]), ("group_size", "{2}")],
      [("Keep the accessible seating in section A off the public sale.", "accessible seating"),
       ("No more than eight tickets per buyer.", "eight tickets"),
       ("Refunds only go back to the original card.", "original card")],
      ["queue", "bot check", "scan", "barcode", "resale"], "event", "hold"),
    K("iot", "fleet_id", "FLT-{3}", "ota_get_fleet", "device_shadow",
      ("ota_stage_rollout", "percent", ["5", "10", "25", "50"], "rollout_id"),
      ("ota_force_flash", "image_hash", "sha256:{h}{h}{h}{h}{h}{h}"),
      {"firmware": "fw-{1}.{2}.{1}", "online": "{4}", "region": ["eu-north", "us-east", "ap-south"],
       "bootloader": "bl-{1}.{1}", "cohort": "C{2}"},
      [("maintenance_window", ["Sun 01:00-03:00", "Wed 03:00-05:00"]), ("fleet_owner", NAMES)],
      [("Never push to more than 10 percent on the first day.", "10 percent"),
       ("Devices on bootloader bl-1.x must be skipped.", "must be skipped"),
       ("Stop the rollout if crash rate goes above 0.5 percent.", "0.5 percent")],
      ["heartbeat", "MQTT", "watchdog", "delta patch", "brownout"], "fleet", "roll out to"),
    K("grants", "application_id", "GA-{5}", "grants_get_application", "sponsor_portal",
      ("grants_submit_budget", "budget_total", "{amt}", "submission_no"),
      ("grants_final_submit", "certification", "CERT-{4}"),
      {"pi": NAMES, "program": ["NSF CNS", "ERC StG", "NIH R01"], "due": DATES, "indirect_rate": "{2}.5",
       "budget_version": "v{1}"},
      [("co_pi", NAMES), ("department_code", "DPT-{3}")],
      [("Keep travel below 5 percent of the direct costs.", "5 percent"),
       ("The PI must see the final PDF before anything is submitted.", "final PDF"),
       ("Do not list the startup partner as a subawardee.", "subawardee")],
      ["biosketch", "letter", "data plan", "page limit", "routing"], "application", "revise"),
    K("mltrain", "run_id", "RUN-{5}", "mlx_get_run", "metrics_store",
      ("mlx_resume_run", "checkpoint", "ckpt-{5}", "resume_job"),
      ("mlx_delete_artifacts", "artifact_prefix", "s3://runs/{5}/"),
      {"best_loss": "0.{4}", "gpu_pool": ["a100-east", "h100-west", "l4-spot"], "step": "{5}",
       "lr": ["3e-4", "1e-4", "6e-5"], "owner": NAMES},
      [("dataset_version", "ds-v{1}.{1}"), ("budget_gpu_hours", "{4}")],
      [("Never resume on spot instances for the 70B runs.", "spot instances"),
       ("Keep the last three checkpoints of every run.", "last three checkpoints"),
       ("Evaluation must use the frozen test split only.", "frozen test split")],
      ["grad norm", "NCCL", "dataloader", "eval shard", "preemption"], "training run", "resume"),
    K("customs", "entry_id", "ENT-{6}", "customs_get_entry", "carrier_manifest",
      ("customs_file_amendment", "hs_code", "{4}.{2}.{2}", "amendment_no"),
      ("customs_pay_duty", "duty_amount", "{amt}"),
      {"importer": ["Borealis Trading", "Quayside Imports", "Altamira Foods"], "port": ["Rotterdam", "Felixstowe", "Antwerp"],
       "declared_value": "{amt}", "container": "MSKU{7}", "broker": NAMES},
      [("incoterm", ["FOB", "DAP", "CIF"]), ("eori", "GB{9}")],
      [("Never pay duty before the classification is confirmed.", "classification is confirmed"),
       ("Anything with lithium batteries needs the DG form first.", "DG form"),
       ("The importer wants all letters in Dutch.", "in Dutch")],
      ["ENS", "x-ray", "demurrage", "seal", "transshipment"], "entry", "amend"),
    K("tenant", "request_id_no", "MR-{5}", "maint_get_request", "building_sensors",
      ("maint_dispatch", "contractor", ["Apex Plumbing", "Brightline Electric", "Keystone HVAC"], "dispatch_no"),
      ("maint_approve_invoice", "invoice_no", "INV-{5}"),
      {"unit": "{1}{L}", "building": ["Larch House", "Osprey Court", "Maple Yard"], "priority": ["P1", "P2", "P3"],
       "reported": DATES, "tenant": NAMES},
      [("access_code", "{4}#"), ("pet_on_site", ["a large dog", "two cats", "none"])],
      [("Nobody enters the unit without 24 hours notice.", "24 hours notice"),
       ("Water shut-offs only between 10:00 and 14:00.", "between 10:00 and 14:00"),
       ("Invoices above {amt} go to the owner, not to us.", "go to the owner")],
      ["work order", "photo", "moisture", "callback", "parts"], "request", "dispatch"),
    K("podcast", "episode_id", "EP-{3}", "pod_get_episode", "hosting_stats",
      ("pod_schedule", "publish_at", "{d} {t}", "schedule_ref"),
      ("pod_publish_now", "feed", ["main", "premium", "youtube"]),
      {"guest": NAMES, "duration_min": "{2}", "editor": NAMES, "sponsor": ["Ridgeline Coffee", "Quill VPN", "Parcel&Co"],
       "season": "S{1}"},
      [("guest_email", "{n}@{w}.fm"), ("ad_read", ["pre-roll", "mid-roll", "post-roll"])],
      [("Never publish an episode before the guest has approved the cut.", "approved the cut"),
       ("Sponsor reads stay under 90 seconds.", "90 seconds"),
       ("Bleep every surname the guest asks us to.", "Bleep every surname")],
      ["loudness", "chapter", "transcript", "waveform", "RSS"], "episode", "schedule"),
]


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.used = set()

    def one(self, spec):
        r = self.r
        if isinstance(spec, list):
            return r.choice(spec)
        out = []
        i = 0
        while i < len(spec):
            c = spec[i]
            if c == "{":
                j = spec.index("}", i)
                tok = spec[i + 1:j]
                i = j + 1
                if tok.isdigit():
                    out.append("".join(r.choice(string.digits) for _ in range(int(tok))))
                elif tok == "L":
                    out.append(r.choice("ABCDEFGHJKLMNPRSTUVWXYZ"))
                elif tok == "h":
                    out.append(r.choice("0123456789abcdef"))
                elif tok == "amt":
                    out.append(f"{r.randint(120, 9800)}.{r.choice(['00', '50', '25', '75', '40'])}")
                elif tok == "d":
                    out.append(r.choice(DATES))
                elif tok == "t":
                    out.append(f"{r.randint(8, 18):02d}:{r.choice(['00', '15', '30', '45'])}")
                elif tok == "N":
                    out.append(r.choice(NAMES))
                elif tok == "n":
                    out.append(r.choice(NAMES).lower())
                elif tok == "w":
                    out.append(r.choice(["alder", "birch", "cedar", "delta", "ember", "fjord", "granite",
                                         "harbor", "indigo", "juniper", "kelp", "lumen"]))
                continue
            out.append(c)
            i += 1
        return "".join(out)

    def fresh(self, spec):
        for _ in range(50):
            v = self.one(spec)
            if v not in self.used:
                self.used.add(v)
                return v
        return v


def tools_of(k):
    return [
        {"tool": k["read"], "effect": "read", "identifier_args": [k["arg"]]},
        {"tool": k["audit"], "effect": "read", "identifier_args": [k["arg"]]},
        {"tool": k["write"][0], "effect": "write", "identifier_args": [k["arg"]]},
        {"tool": k["irrev"][0], "effect": "irreversible", "identifier_args": [k["arg"]]},
    ]


class Scenario:
    """One trajectory: episodes appended in order, memories (candidate probes) collected as they go."""

    def __init__(self, kit, tid, rng, window=None, long=False, exercises=(), log_lines=(3, 5)):
        self.k, self.r, self.g, self.long = kit, rng, Gen(rng), long
        self.log_lines = log_lines
        self.t = Traj(tid, f"{kit['noun']} work ({kit['key']}, {'long' if long else 'short'})",
                      list(exercises) or ["values from tool results used turns later"], tools_of(kit),
                      description="", window=window)
        self.mem = []          # [seq_established, probe, uses]
        self.entities = []     # [(id, {field: value})]
        self.n = 0
        self.later = []        # deferred closures: (earliest event count, fn)
        self.decisions = 0
        self.kinds = set()
        self.busy = set()
        self.used = {}

    # ---- helpers ------------------------------------------------------------------------
    def cid(self, tag):
        self.n += 1
        return f"{self.k['key'][:3]}-{tag}-{self.n:03d}"

    def remember(self, probe):
        # a superseded value is the harder question: asked before the plain ones of its class
        self.mem.append([self.t.seq, probe, 0, 1 if probe.get("superseded") else 0])

    def invalidate(self, eid, f, old):
        """Forget memories that an update of field f of eid makes stale."""
        k = self.k
        self.mem = [m for m in self.mem if not (m[1].get("key") == f and m[1].get("subject") == self.subj(eid))
                    and not (m[1]["probe"] == "next_call" and m[1]["arguments"].get(f) == old
                             and m[1]["arguments"].get(k["arg"]) == eid)]

    def free_entity(self, fresh_bias):
        for _ in range(10):
            eid = self.pick_entity(fresh_bias)
            if eid not in self.busy:
                self.busy.add(eid)
                return eid
        eid = self.new_entity()
        self.busy.add(eid)
        return eid

    def subj(self, eid):
        return f"{self.k['arg']}={eid}"

    def new_entity(self):
        eid = self.g.fresh(self.k["ent"])
        self.entities.append((eid, {}))
        return eid

    def pick_entity(self, fresh_bias=0.4):
        if not self.entities or self.r.random() < fresh_bias:
            return self.new_entity()
        return self.r.choice(self.entities)[0]

    def fields_of(self, eid):
        for e, f in self.entities:
            if e == eid:
                return f
        return {}

    def noise_log(self, words, lines):
        r = self.r
        out = []
        for i in range(lines):
            out.append(f"{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d} "
                       f"{r.choice(['INFO', 'DEBUG', 'WARN'])} {r.choice(self.k['noise'])} "
                       f"{r.choice(['ok', 'retry', 'skipped', 'queued', 'done'])} id={r.randint(1000, 99999)} "
                       f"{r.choice(words)} {r.randint(1, 999)}ms")
        return "\n".join(out)

    # ---- episodes -----------------------------------------------------------------------
    def ep_lookup(self, noisy=False):
        k, r, t = self.k, self.r, self.t
        eid = self.pick_entity(0.6)
        t.user(r.choice([f"Can you pull up {k['noun']} {eid}?", f"What's the current state of {eid}?",
                         f"Check {k['noun']} {eid} for me, please.", f"Next one: {eid}. Look it up."]))
        c = self.cid("get")
        t.call(k["read"], c, {k["arg"]: eid})
        keys = r.sample(sorted(k["fields"]), r.randint(3, len(k["fields"])))
        known = self.fields_of(eid)
        res = {f: known.get(f, self.g.one(k["fields"][f])) for f in keys}
        drift = None
        again = [f for f in keys if f in known]
        if again and r.random() < 0.3:  # the subject's state moved on since the last lookup
            f = r.choice(again)
            v = self.g.one(k["fields"][f])
            if v != known[f]:
                drift = (f, known[f])
                res[f] = v
        known.update(res)
        log = None
        if noisy:
            log = self.noise_log(list(res.values()) + ["n/a"], r.randint(*self.log_lines))
        s = t.result(c, "succeeded", result=res, request_id=f"rq-{r.randint(100000, 999999)}", log=log)
        self.kinds.add("noisy tool output" if noisy else "lookup")
        for f, v in res.items():
            if drift and f == drift[0]:
                self.invalidate(eid, f, drift[1])
                self.remember(p_fact(f, v, subject=self.subj(eid), superseded=[drift[1]],
                                     why=f"{f} of {eid} changed between two lookups"))
            elif f not in again:
                self.remember(p_fact(f, v, subject=self.subj(eid), why=f"{f} of {eid} from the lookup at {s}"))
        longish = [x for x in keys if len(str(res[x])) >= 5] or keys
        f = r.choice(longish)
        self.remember(p_next(k["write"][0], {k["arg"]: eid, f: res[f]},
                             why=f"acting on {eid} needs its id and {f} from the lookup"))
        if noisy or r.random() < 0.3:
            self.remember(p_evidence([s], why="the lookup result the next action rests on"))
        if r.random() < 0.7:
            t.assistant(f"{eid}: " + ", ".join(f"{a.replace('_', ' ')} {b}" for a, b in list(res.items())[:2])
                        + (". The rest of the output is routine." if noisy else "."))

    def ep_constraint(self):
        k, r, t = self.k, self.r, self.t
        pool = [c for c in k["constraints"] if c[1] not in {m[1].get("text") for m in self.mem}]
        if not pool:
            return self.ep_chatter()
        text, phrase = r.choice(pool)
        text = self.g.one(text)
        s = t.user(r.choice(["Before you go on: ", "One rule for all of this: ", "Please remember: ", ""]) + text)
        self.remember(p_constraint(s, phrase, why="a rule the user stated once"))
        t.assistant(r.choice(["Understood, I'll keep to that.", "Noted.", "Got it, that applies to everything below."]))
        self.kinds.add("constraint stated once")

    def ep_user_fact(self):
        k, r, t = self.k, self.r, self.t
        key, spec = r.choice(k["ufacts"])
        eid = self.pick_entity(0.3)
        v = self.g.fresh(spec)
        t.user(f"For {eid}, the {key.replace('_', ' ')} is {v}.")
        t.fact(key, v, subject=self.subj(eid))
        self.remember(p_fact(key, v, subject=self.subj(eid), why="stated by the user"))
        if r.random() < 0.4:  # also asked without a subject (kept only while no other subject has the key)
            self.remember(p_fact(key, v, why="stated by the user; the newest value of the key"))
        self.kinds.add("user-stated fact")

        def correct():
            v2 = self.g.fresh(spec)
            while v2 == v:
                v2 = self.g.fresh(spec)
            t.user(r.choice([f"Sorry, I had that wrong: the {key.replace('_', ' ')} for {eid} is {v2}, not {v}.",
                             f"Correction on {eid}: {key.replace('_', ' ')} should be {v2}."]))
            t.correction(key, v2, subject=self.subj(eid))
            self.mem = [m for m in self.mem if not (m[1].get("key") == key and
                                                    m[1].get("subject") in (self.subj(eid), None))]
            self.remember(p_fact(key, v2, subject=self.subj(eid), superseded=[v], why="the user's correction wins"))
            if r.random() < 0.4:
                self.remember(p_fact(key, v2, superseded=[v], why="the correction is the newest value of the key"))
            self.remember(p_next(k["write"][0], {k["arg"]: eid, key: v2}, why="the corrected value is what to use"))
            self.kinds.add("user correction")
        if r.random() < 0.75:
            self.later.append((len(t.events) + r.randint(3, 25 if self.long else 6), correct))

    def ep_approval_write(self):
        k, r, t = self.k, self.r, self.t
        eid = self.free_entity(0.3)
        tool, arg, spec, conf = k["write"]
        v = self.g.fresh(spec)
        aid = f"apr-{self.g.fresh('{5}')}"
        t.assistant(f"I'd like to {k['verb']} {eid} ({arg.replace('_', ' ')} {v}). May I?")
        s = t.approval(aid, "requested")
        self.remember(p_pending(approval_id=aid, why="the request has not been answered yet"))
        self.kinds.add("approval scoped to a goal")

        def grant():
            self.busy.discard(eid)
            self.mem = [m for m in self.mem if m[1].get("approval_id") != aid]
            if r.random() < 0.2:
                u = t.user(f"No, don't {k['verb']} {eid}. Leave it as it is.")
                t.approval(aid, "denied", scopes_event=s)
                self.remember(p_constraint(u, f"don't {k['verb']} {eid}", why="a denied approval"))
                t.assistant("Understood, not doing that.")
                return
            u = t.user(f"Yes, go ahead with {eid} only, nothing else.")
            t.approval(aid, "granted", scopes_event=s)
            self.remember(p_constraint(u, f"{eid} only", why="the approval is scoped to this one subject"))
            c = self.cid("wr")
            idem = f"idem-{self.g.fresh('{h}{h}{h}{h}{h}{h}')}"
            t.call(tool, c, {k["arg"]: eid, arg: v}, idempotency_key=idem)
            if r.random() < 0.35:
                self.ep_timeout_tail(c, idem, tool, {k["arg"]: eid, arg: v}, conf)
                return
            rq = f"rq-{r.randint(100000, 999999)}"
            cv = self.g.fresh("{L}{L}-{6}")
            t.result(c, "succeeded", result={conf: cv, arg: v}, request_id=rq)
            self.remember(p_state("succeeded", call_id=c, request_id=rq, why="the granted write went through"))
            self.remember(p_fact(conf, cv, subject=self.subj(eid), why="confirmation of the write"))
            self.remember(p_fact(arg, v, subject=self.subj(eid), why="value the write set"))
        self.later.append((len(t.events) + r.randint(2, 20 if self.long else 9), grant))

    def ep_timeout_tail(self, c, idem, tool, args, conf):
        k, r, t = self.k, self.r, self.t
        t.result(c, "timeout", error="gateway timeout after 30s")
        self.remember(p_state("unknown", call_id=c, why="a timeout is not an answer"))
        self.kinds.add("timeout with unknown outcome")
        t.assistant("The call timed out; I don't know yet whether it took effect. I won't retry blindly.")

        def resolve():
            self.busy.discard(args[k["arg"]])
            self.mem = [m for m in self.mem if m[1].get("call_id") != c]
            if r.random() < 0.5:
                t.assistant(f"Asking the service what became of {c}.")
            if r.random() < 0.5:
                rq = f"rq-{r.randint(100000, 999999)}"
                cv = self.g.fresh("{L}{L}-{6}")
                t.status_query(c, "succeeded", result={conf: cv}, request_id=rq)
                self.remember(p_state("succeeded", call_id=c, request_id=rq, why="the status query settled it"))
                self.remember(p_fact(conf, cv, subject=f"{k['arg']}={args[k['arg']]}",
                                     why="confirmation learnt from the status query"))
            else:
                t.status_query(c, "not_performed")
                self.remember(p_state("failed", call_id=c, why="not performed reads as failed"))
                t.assistant("It was not performed; retrying with the same idempotency key.")
                c2 = self.cid("rt")
                t.call(tool, c2, args, idempotency_key=idem)
                if r.random() < 0.5:
                    rq = f"rq-{r.randint(100000, 999999)}"
                    t.result(c2, "succeeded", result={conf: self.g.fresh("{L}{L}-{6}")}, request_id=rq)
                    self.remember(p_state("succeeded", idempotency_key=idem, request_id=rq,
                                          why="the retry under the same key succeeded"))
                else:
                    self.remember(p_pending(call_id=c2, why="the retry has no answer yet"))
                    self.remember(p_state("running", call_id=c2, why="no answer yet"))
                    self.later.append((len(t.events) + r.randint(2, 8), lambda: self.finish_running(c2, conf)))
        self.later.append((len(t.events) + r.randint(3, 20 if self.long else 6), resolve))

    def ep_write_timeout(self):
        k, r, t = self.k, self.r, self.t
        eid = self.free_entity(0.3)
        tool, arg, spec, conf = k["write"]
        v = self.g.fresh(spec)
        t.user(f"Please {k['verb']} {eid}: {arg.replace('_', ' ')} {v}. That one is pre-approved by policy.")
        c = self.cid("wr")
        idem = f"idem-{self.g.fresh('{h}{h}{h}{h}{h}{h}')}"
        t.call(tool, c, {k["arg"]: eid, arg: v}, idempotency_key=idem)
        self.ep_timeout_tail(c, idem, tool, {k["arg"]: eid, arg: v}, conf)

    def finish_running(self, c, conf):
        self.mem = [m for m in self.mem if m[1].get("call_id") != c]
        if c not in self.t.running:
            return
        rq = f"rq-{self.r.randint(100000, 999999)}"
        self.t.result(c, "succeeded", result={conf: self.g.fresh("{L}{L}-{6}")}, request_id=rq)
        self.remember(p_state("succeeded", call_id=c, request_id=rq, why="answered at last"))

    def ep_restart(self):
        k, r, t = self.k, self.r, self.t
        eid = self.free_entity(0.3)
        tool, arg, spec, conf = k["write"]
        v = self.g.fresh(spec)
        c = self.cid("wr")
        t.assistant(f"Sending the {k['verb']} for {eid} now.")
        t.call(tool, c, {k["arg"]: eid, arg: v}, idempotency_key=f"idem-{self.g.fresh('{h}{h}{h}{h}{h}{h}')}")
        self.mem = [m for m in self.mem if not (m[1]["probe"] == "tool_state" and m[1].get("status") == "running")]
        rec = t.recover()
        self.kinds.add("agent restart with a call in flight")
        self.remember(p_state("unknown", call_id=c, why="the agent restarted before the answer"))
        self.remember(p_pending(call_id=c, why="no definitive answer after the restart"))
        if rec:
            self.remember(p_evidence([rec - 1], why="the in-flight call itself"))
        t.user(r.choice(["Are you back? Where were we?", "Looks like you dropped. Continue.",
                         "The agent restarted. Please carry on."]))

        def resolve():
            self.busy.discard(eid)
            self.mem = [m for m in self.mem if m[1].get("call_id") != c]
            if r.random() < 0.5:
                t.assistant(f"Checking with the service whether {c} went through before the restart.")
            rq = f"rq-{r.randint(100000, 999999)}"
            if r.random() < 0.6:
                t.status_query(c, "succeeded", result={conf: self.g.fresh("{L}{L}-{6}")}, request_id=rq)
                self.remember(p_state("succeeded", call_id=c, request_id=rq, why="the service confirms it"))
            else:
                t.status_query(c, "unknown")
                self.remember(p_state("unknown", call_id=c, why="the service does not know either"))
        self.later.append((len(t.events) + r.randint(3, 18 if self.long else 5), resolve))

    def ep_contradiction(self):
        k, r, t = self.k, self.r, self.t
        known = [(e, f) for e, f in self.entities if f]
        if not known:
            return self.ep_lookup()
        eid, fields = r.choice(known)
        f = r.choice(sorted(fields))
        old = fields[f]
        new = self.g.one(k["fields"][f])
        tries = 0
        while new == old and tries < 20:
            new, tries = self.g.one(k["fields"][f]), tries + 1
        if new == old:
            return self.ep_chatter()
        c = self.cid("aud")
        t.user(f"Double-check {eid} against {k['audit'].replace('_', ' ')}.")
        t.call(k["audit"], c, {k["arg"]: eid})
        s = t.result(c, "succeeded", result={f: new, "checked_at": f"{r.choice(DATES)}T{self.g.one('{t}')}Z"})
        t.assistant(f"{k['audit']} says {f.replace('_', ' ')} is {new}, not {old} as {k['read']} had it. "
                    f"The audit source is the newer one.")
        self.kinds.add("contradiction between tools")
        fields[f] = new
        self.invalidate(eid, f, old)
        self.remember(p_fact(f, new, subject=self.subj(eid), superseded=[old], why="the newer tool disagrees"))
        self.remember(p_evidence([s], why="the disagreeing result"))
        if r.random() < 0.5:
            t.user(f"Right, go with {new}.")
            t.fact(f, new, subject=self.subj(eid))

    def ep_irreversible(self):
        k, r, t = self.k, self.r, self.t
        eid = self.free_entity(0.2)
        tool, arg, spec = k["irrev"]
        v = self.g.fresh(spec)
        aid = f"apr-{self.g.fresh('{5}')}"
        t.user(f"We'll need the {tool.split('_', 1)[1].replace('_', ' ')} for {eid} with {arg.replace('_', ' ')} {v}. "
               f"Prepare it but wait for my OK.")
        s = t.approval(aid, "requested")
        self.remember(p_pending(approval_id=aid, why="irreversible step waiting for the user's OK"))
        self.remember(p_next(tool, {k["arg"]: eid, arg: v}, why="the prepared irreversible call"))
        self.kinds.add("irreversible action behind an approval")

        def ok():
            self.busy.discard(eid)
            self.mem = [m for m in self.mem if m[1].get("approval_id") != aid]
            t.user(f"OK for {eid}. Just that one.")
            t.approval(aid, "granted", scopes_event=s)
            c = self.cid("irr")
            t.call(tool, c, {k["arg"]: eid, arg: v}, idempotency_key=f"idem-{self.g.fresh('{h}{h}{h}{h}{h}{h}')}")
            if r.random() < 0.3:
                t.result(c, "failed", error=r.choice(["precondition failed: lock held", "403: scope missing"]))
                self.remember(p_state("failed", call_id=c, why="the irreversible call was refused"))
            else:
                rq = f"rq-{r.randint(100000, 999999)}"
                t.result(c, "succeeded", result={"done": True, arg: v}, request_id=rq)
                self.remember(p_state("succeeded", call_id=c, request_id=rq, why="done, must not be repeated"))
        if r.random() < 0.8:
            self.later.append((len(t.events) + r.randint(4, 25 if self.long else 10), ok))

    def ep_guess(self):
        """The assistant guesses a value (authority model, inferred): it must not displace the tool's."""
        k, r, t = self.k, self.r, self.t
        known = [(e, f) for e, f in self.entities if f]
        if not known:
            return self.ep_lookup()
        eid, fields = r.choice(known)
        f = r.choice(sorted(fields))
        guess = self.g.one(k["fields"][f])
        if guess == fields[f]:
            return self.ep_chatter()
        t.user(f"Any idea whether the {f.replace('_', ' ')} of {eid} has changed?")
        t.assistant(f"My guess is it is {guess} by now, but I haven't checked; {k['read']} last said {fields[f]}.")
        t.fact(f, guess, subject=self.subj(eid), authority="model", confidence="inferred")
        self.remember(p_fact(f, fields[f], subject=self.subj(eid),
                             why="an inferred guess by the model is not a statement; the tool's value stands"))
        self.kinds.add("model guess that must not override a tool value")

    def ep_chatter(self):
        r, t, k = self.r, self.t, self.k
        other = r.choice([x for x in KITS if x["key"] != k["key"]])
        t.user(r.choice([f"Unrelated, but do you know how our {other['noun']} process handles {r.choice(other['noise'])}?",
                         f"Quick aside while we wait: what does '{r.choice(k['noise'])}' mean in our logs?",
                         f"Side question about {other['noun']}s: who usually owns that?"]))
        t.assistant(r.choice(["Briefly: it's handled by the owning team's runbook; I can look it up later.",
                              "It's a routine step, nothing to act on here. Back to the main task when you are.",
                              "Not something I can change from here; I'd ask the team that owns it."]))
        self.kinds.add("topic switch and return")

    # ---- decisions ----------------------------------------------------------------------
    def decide(self, nprobes):
        t, r = self.t, self.r
        history = [(s, ev) for s, ev in sorted(t.events.items())]
        cands = [m for m in self.mem if m[2] < 2 and m[0] < t.seq and check_probe(history, m[1]) is None]
        if not cands:
            return
        # the classes used least so far first, the oldest memory of each class first
        cands.sort(key=lambda m: (m[2], -m[3], m[0]))
        by = {}
        for m in cands:
            by.setdefault(m[1]["probe"], []).append(m)
        order = sorted(by, key=lambda c: (self.used.get(c, 0), r.random()))
        chosen = []
        while len(chosen) < nprobes and any(by.values()):
            for c in order:
                if by[c] and len(chosen) < nprobes:
                    m = by[c].pop(0) if r.random() < 0.7 else by[c].pop(r.randrange(len(by[c])))
                    chosen.append(m)
                    self.used[c] = self.used.get(c, 0) + 1
        self.decisions += 1
        for m in chosen:
            m[2] += 1
        t.decision(f"d{self.decisions:02d}", [dict(m[1]) for m in chosen],
                   note=f"the agent is about to act on {self.k['noun']} work")

    def run_later(self, force=False):
        due = [x for x in self.later if force or x[0] <= len(self.t.events)]
        self.later = [x for x in self.later if x not in due]
        for _, fn in due:
            fn()

    def tokens(self):
        return sum(max(1, len(event_text(k, p)) // 4) for k, p in self.t.events.values())

    def ep_branch(self):
        """The user explores an alternative on a branch; the rest of the work continues there."""
        t, r, k = self.t, self.r, self.k
        t.user(r.choice([f"Let's try the other approach for the remaining {k['noun']}s, on a separate branch.",
                         "Park the current line of work; explore the alternative plan from here."]))
        t.assistant("Branching here; everything so far stays as it is.")
        t.fork("alt")
        self.forked = True
        self.kinds.add("fork to a branch, confirmed as mainline")
        t.user("This is the alternative plan. Carry on from where we were.")

    def build(self, n_events, every, per_decision, mix, token_target=0, max_events=None, fork_at=None, plan=()):
        r = self.r
        eps = {"lookup": self.ep_lookup, "noisy": lambda: self.ep_lookup(noisy=True),
               "constraint": self.ep_constraint, "ufact": self.ep_user_fact, "approval": self.ep_approval_write,
               "restart": self.ep_restart, "contra": self.ep_contradiction, "irrev": self.ep_irreversible,
               "chatter": self.ep_chatter, "timeout": self.ep_write_timeout,
               "guess": self.ep_guess}
        names = list(mix)
        weights = [mix[n] for n in names]
        self.t.system(f"You are an operations agent for {self.k['noun']} work. Tools: "
                      + ", ".join(x["tool"] for x in self.t.header["tools"]) + ".")
        self.ep_constraint()
        self.ep_lookup()
        last_dec = len(self.t.events)
        max_events = max_events or n_events

        def more():
            n = len(self.t.events)
            return n < n_events or (self.tokens() < token_target and n < max_events)
        plan = list(plan)  # episodes that come first, in this order; then the weighted mix
        self.forked = False
        merged = False
        while more():
            self.run_later()
            if not more():
                break
            n = len(self.t.events)
            if fork_at and not self.forked and n >= fork_at * n_events and not self.t.running:
                self.ep_branch()
                fork_seq = n
                continue
            if self.forked and not merged and n >= fork_seq + 20:
                self.t.confirm_mainline("alt")
                merged = True
                self.t.assistant("The alternative branch is now the main line.")
                continue
            name = plan.pop(0) if plan else r.choices(names, weights)[0]
            if token_target and "noisy" in mix and self.long:  # keep the token count on pace with the event count
                pace = token_target * len(self.t.events) / ((n_events + max_events) / 2)
                if self.tokens() < 0.85 * pace:
                    name = "noisy"
                elif self.tokens() > 1.1 * pace and name == "noisy":
                    name = "lookup"
            eps[name]()
            if len(self.t.events) - last_dec >= every:
                self.decide(per_decision)
                last_dec = len(self.t.events)
        # what is still deferred stays open: approvals unanswered, calls unresolved
        if len(self.t.events) - last_dec < 3:
            self.ep_lookup()
        self.decide(per_decision + 1)
        self.t.header["exercises"] = sorted(self.kinds)
        self.t.header["description"] = (f"{self.k['noun'].capitalize()} work with the tools "
                                        f"{', '.join(x['tool'] for x in self.t.header['tools'])}; "
                                        f"episodes: {', '.join(sorted(self.kinds))}.")
        return self.t
