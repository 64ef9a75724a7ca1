"""The sixteen domains of holdout7: one story function each, played short (small window) or long.

Every story is written out by hand as an agent conversation; random.Random only varies ids, names,
amounts, list contents and where routine exchanges (filler) fall.  See ../README.md.
"""

from __future__ import annotations

import random
import string

from h7lib import Builder, tool

A = string.ascii_uppercase
D = string.digits
AL = string.ascii_lowercase + string.digits


def code(rng, n, alphabet=A + D):
    return "".join(rng.choice(alphabet) for _ in range(n))


def hexid(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


FIRST = ["Amara", "Bjorn", "Chiara", "Dev", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemi", "Luca",
         "Maren", "Nikhil", "Oona", "Pavel", "Quinn", "Rosa", "Sanjay", "Tomas", "Ulla", "Vera", "Wen", "Yusuf", "Zofia"]
LAST = ["Abara", "Brandt", "Castillo", "Dahl", "Eze", "Fischer", "Gallo", "Haddad", "Ivanova", "Jensen", "Kowalski",
        "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quist", "Rossi", "Silva", "Tanaka", "Urbanek",
        "Varga", "Weber", "Yilmaz", "Zeller"]


def person(rng):
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def email(rng, name, domain):
    f, l = name.lower().split()
    return rng.choice([f"{f}.{l}@{domain}", f"{f[0]}{l}@{domain}", f"{f}@{domain}"])


def mk(slug, long, rng, title, exercises, description, window, prefix="call_"):
    if long:
        b = Builder(f"{slug}-long", title, exercises, description, rng=rng, window=None,
                    target_tokens=4096 * rng.uniform(2.5, 2.8), events_range=(128, 160), probes_per_decision=(3, 5))
    else:
        b = Builder(f"{slug}-short", title, exercises, description, rng=rng, window=window,
                    target_tokens=window * rng.uniform(1.9, 2.4), events_range=(14, 34), probes_per_decision=(3, 4))
    b.call_prefix = prefix
    b.quota = 7 if long else 3
    b.reuse = 4 if long else 3
    if long:
        b.routine_gap = rng.randint(9, 13)
    return b


# ==============================================================================================
# 1. monorepo shell work (file system / shell)
# ==============================================================================================

tool("sh", "write", [], "run a command in the agent's persistent shell; returns the new cwd")
tool("ci_trigger", "write", ["pipeline"])
tool("ci_run_get", "read", ["run_id"])
tool("pkg_owner_graph", "read", ["package"])
tool("codeowners_lookup", "read", ["package"])
tool("pr_open", "write", ["head_branch"])
tool("pr_request_review", "write", ["pr_number"])
tool("pr_merge", "irreversible", ["pr_number"])


def monorepo(long, rng, window=None):
    b = mk("monorepo-shell", long, rng, "Fixing a failing package in a pnpm monorepo from a persistent shell",
           ["the current directory moves with cd/pushd/popd and later commands need the current one",
            "a temp dir and a CI run id from earlier calls are used many turns later",
            "a reviewer e-mail and ticket typed once by the user are needed at the end",
            "one failing test line in a long test log matters later",
            "two tools disagree on a package's owning team",
            "a timed-out PR creation settled by a status query; a merge approval left open"],
           "A developer asks the agent to fix the rounding bug in a monorepo package; the agent moves around "
           "the tree in one shell, runs long test logs, opens a PR and asks for review.", window, "toolu_")
    root = rng.choice(["/home/dev/acme", "/srv/work/northwind", "/Users/kim/src/mono", "/workspace/helix"])
    ticket = f"PAY-{rng.randint(1000, 9999)}"
    rev = person(rng)
    rev_mail = email(rng, rev, "acme-eng.io")
    pkgs = ["services/billing", "libs/money", "services/ledger", "tools/codegen", "apps/portal"]
    rng.shuffle(pkgs)
    target, lib = "services/billing", "libs/money"
    branch = f"fix/{ticket.lower()}-half-even"
    cwd = [root]

    def sh(cmd, new_cwd=None, code_=0, out=None, log=None, evidence=None, decide=None):
        args = {"cmd": cmd, "workdir": cwd[0]}
        if decide:
            cid = b.dcall(decide, "sh", args, {"workdir": cwd[0]}, why="the shell's current directory")
        else:
            cid = b.call("sh", args)
        if new_cwd:
            cwd[0] = new_cwd
        res = {"cwd": cwd[0], "exit_code": code_}
        if out is not None:
            res["stdout"] = out
        return cid, b.ok(cid, res, log=log, evidence=evidence)

    def filler(b):
        k = rng.random()
        if k < 0.35:
            files = " ".join(rng.sample(["package.json", "src", "test", "tsconfig.json", "README.md", "dist",
                                         "CHANGELOG.md", "vitest.config.ts", ".eslintrc.cjs", "node_modules"], 6))
            sh("ls", out=files)
        elif k < 0.65:
            lines = "\n".join(f"{hexid(rng, 7)} {rng.choice(['chore', 'fix', 'feat', 'refactor'])}({rng.choice(pkgs).split('/')[1]}): "
                              f"{rng.choice(['bump deps', 'tidy imports', 'lint', 'typo in docs', 'cache key', 'retry flaky test'])}"
                              for _ in range(rng.randint(4, 9)))
            sh("git log --oneline -n 8", log=lines if len(lines) > 200 else None, out=None if len(lines) > 200 else lines)
        elif k < 0.8:
            b.user(rng.choice(["how's it going?", "any luck yet", "ping me if you need the vpn", "still on it?"]))
            b.asst(f"Still working in {cwd[0]}; nothing blocking.")
        else:
            sh("git status --short", out=" M " + rng.choice(["src/round.ts", "src/format.ts", "package.json"]))

    b.filler = filler
    b.bulk_spec = ("pkg_owner_graph", {"package": "*", "view": "recent-changes"},
                   lambda: f" {rng.choice(pkgs)}/src/{code(rng, 6, AL)}.ts | {rng.randint(1, 60)} {'+' * rng.randint(1, 9)}{'-' * rng.randint(0, 5)}  @{rng.choice(FIRST).lower()}")
    s_intro = b.user(
        f"Repo is checked out at {root}. Since the money lib bump the tests in {target} fail — ticket {ticket}. "
        f"Branch off main as {branch}. Do NOT touch anything under third_party/. "
        f"When the PR is up, ask {rev_mail} to review." + (" Keep the commit count low, squash if needed." if long else ""),
        constraint=["third_party/", rev_mail], why="the user's scope and reviewer")
    b.constraint(s_intro, ticket, "ticket typed once by the user")
    b.asst("Starting in the repo root.")
    sh(f"cd {root} && git switch -c {branch}", new_cwd=root, out=f"Switched to a new branch '{branch}'")
    b.watch("cwd", None, "the shell's current directory")
    c, s_tmp = sh("mktemp -d -t rnd.XXXX", out=(tmp := f"/tmp/rnd.{code(rng, 4, AL)}"))
    b.fact("scratch_dir", tmp, authority="tool")
    b.pad(0.15)
    # failing test log
    fail_test = f"rounds {rng.choice(['half-even', 'negative halves', 'JPY amounts'])} correctly"
    got, exp = rng.choice([("10.04", "10.05"), ("-2.51", "-2.50"), ("1001", "1000")])
    logl = [f" ✓ src/{rng.choice(['parse', 'format', 'sum', 'split', 'fx'])}.test.ts ({rng.randint(3, 40)} tests) {rng.randint(5, 90)}ms"
            for _ in range(8 if long else 3)]
    logl.insert(rng.randint(1, len(logl) - 1), f" ✗ src/rounding.test.ts > {fail_test}: expected {exp}, received {got}")
    log = "\n".join(logl) + f"\n Test Files  1 failed | {len(logl) - 1} passed\n      Tests  1 failed"
    sh(f"cd {target} && pnpm vitest run", new_cwd=f"{root}/{target}", code_=1, log=log,
       evidence="the test log with the one failing test")
    b.asst(f"One failure: rounding.test.ts '{fail_test}' (expected {exp}, got {got}). Looking at {lib}.")
    _, s_push = sh(f"pushd ../../{lib}", new_cwd=f"{root}/{lib}", out=f"{root}/{lib} {root}/{target}")
    if long:
        b.pad(0.3)
        sh("jq -r .name package.json", out="@acme/money")
        cid = b.dcall("owner", "pkg_owner_graph", {"package": "@acme/money"}, ["package"])
        b.ok(cid, {"package": "@acme/money", "owner_team": "payments-core", "dependents": 14})
        b.watch("owner_team", "package=@acme/money", "who owns the money lib")
    sh("grep -n 'Math.round' src/round.ts", out="41:  return Math.round(value * 10 ** dp) / 10 ** dp")
    sh("sed -i '41s/Math.round/roundHalfEven/' src/round.ts && pnpm vitest run", out="Tests  0 failed | 52 passed",
       decide="patch-lib")
    b.decide("after-lib-fix", [b.p_fact("cwd", f"{root}/{lib}", superseded=[root, f"{root}/{target}"],
                                        why="pushd moved the shell into the lib")])
    sh("popd", new_cwd=f"{root}/{target}", out=f"{root}/{target}")
    b.pad(0.45)
    b.decide("back-in-target", [b.p_fact("cwd", f"{root}/{target}", superseded=[root, f"{root}/{lib}"],
                                         why="popd returned to the failing package")])
    sh("pnpm vitest run", out="Tests  0 failed | 31 passed", decide="retest")
    # build artefact into the scratch dir set much earlier
    cid = b.dcall("pack", "sh", {"cmd": f"pnpm pack --pack-destination {tmp}", "workdir": cwd[0]},
                  {"cmd": tmp, "workdir": cwd[0]}, why="the scratch dir came from mktemp many turns ago", n=4 if long else 3)
    tgz = f"{tmp}/acme-billing-{rng.randint(2, 5)}.{rng.randint(0, 19)}.{rng.randint(0, 9)}.tgz"
    b.ok(cid, {"cwd": cwd[0], "exit_code": 0, "stdout": tgz})
    if long:
        b.pad(0.55)
        cid = b.dcall("codeowners", "codeowners_lookup", {"package": "@acme/money"}, ["package"])
        b.ok(cid, {"package": "@acme/money", "owner_team": "ledger-platform", "source": ".github/CODEOWNERS:88"})
        b.asst("CODEOWNERS says ledger-platform owns libs/money, while the package graph said payments-core. "
               "I'll go with CODEOWNERS for review routing.")
        b.pad(0.65)
    cid = b.dcall("ci", "ci_trigger", {"pipeline": "billing-tests", "ref": branch}, ["ref"],
                  why="the branch name the user chose at the start")
    run_id = f"run-{rng.randint(100000, 999999)}"
    b.ok(cid, {"pipeline": "billing-tests", "run_id": run_id, "state": "queued"}, rid=f"req-{hexid(rng, 8)}")
    b.watch("run_id", "pipeline=billing-tests")
    b.pad(0.75 if long else 0.7)
    idem = f"pr-{ticket.lower()}-{hexid(rng, 6)}"
    c_pr = b.dcall("open-pr", "pr_open", {"head_branch": branch, "base": "main", "title": f"{ticket}: round half-even in money lib"},
                   {"head_branch": branch, "title": ticket}, idem=idem, watch=True)
    b.timeout(c_pr)
    b.asst("The PR creation timed out; I will not retry blindly (idempotency key " + idem + "). Checking CI meanwhile.")
    cid = b.dcall("ci-status", "ci_run_get", {"run_id": run_id}, ["run_id"], why="run id returned by ci_trigger")
    b.ok(cid, {"run_id": run_id, "state": "passed", "duration_s": rng.randint(200, 900)})
    b.pad(0.85)
    pr = str(rng.randint(3000, 9000))
    b.sq(c_pr, "succeeded", {"pr_number": pr, "url": f"https://git.acme.io/mono/pull/{pr}"})
    b.decide("pr-settled", [b.p_fact("pr_number", pr, why="the status query settled the timed-out PR")])
    cid = b.dcall("review", "pr_request_review", {"pr_number": pr, "reviewer": rev_mail}, ["pr_number", "reviewer"],
                  why="reviewer e-mail typed by the user in the first message")
    b.ok(cid, {"pr_number": pr, "requested": rev_mail}, rid=f"req-{hexid(rng, 8)}")
    s_ask = b.asst(f"Review requested from {rev}. Shall I merge #{pr} once it is approved?")
    b.approval(f"apr-merge-{pr}", "requested", s_ask, subject=f"pr_number={pr}")
    s_u = b.user("Not yet — QA has to sign off first. Leave it open.", constraint="QA has to sign off",
                 why="merge blocked until QA")
    b.pad(0.97)
    b.decide("wrap-up", [{"probe": "pending", "approval_id": f"apr-merge-{pr}", "why": "merge approval unanswered"}], n=4)
    b.asst(f"Done for now: PR #{pr} open, review requested, merge waits for QA.")
    return b


def smalltalk(b, rng, pairs):
    u, a = rng.choice(pairs)
    b.user(u)
    b.asst(a)


# ==============================================================================================
# 2. data-lake file curation (session handle + a cd tool that returns the new cwd)
# ==============================================================================================

tool("lake_session_open", "write", [], "open a lake shell session; returns session_id and cwd")
tool("lake_cd", "read", ["session_id"])
tool("lake_ls", "read", ["session_id"])
tool("lake_stat", "read", ["object_path"])
tool("catalog_partition_get", "read", ["object_path"])
tool("lake_move", "write", ["object_path"])
tool("lake_tag", "write", ["object_path"])
tool("lake_purge", "irreversible", ["object_path"])


def datalake(long, rng, window=None):
    b = mk("datalake-curation", long, rng, "Curating a clickstream raw zone in an object-store data lake",
           ["a session handle from the first call is needed by every later call",
            "a cd tool returns the new cwd; relative moves; later calls need the current prefix",
            "a quarantine prefix and owner tag typed once by the user",
            "one zero-row file in a long listing",
            "the object store and the catalog disagree on a file's row count",
            "a move that timed out is settled by a status query; purges need approval"],
           "A data engineer asks the agent to find broken parquet files in the raw clickstream zone, quarantine "
           "them and tag owners; purging needs explicit approval.", window, "fc_")
    bucket = rng.choice(["s3://acme-lake-raw", "s3://nw-datalake-landing", "gs://helix-raw-zone"])
    quar = f"s3://acme-lake-quarantine/{rng.choice(['2024-Q2', '2024-Q3'])}/DL-{rng.randint(100, 999)}/"
    team = rng.choice(["growth-analytics", "search-relevance", "ads-measurement"])
    days = [f"dt=2024-{rng.randint(5, 9):02d}-{d:02d}" for d in sorted(rng.sample(range(1, 28), 4 if long else 1))]
    s0 = b.user(f"Please curate {bucket}/clickstream/. Some parquet parts are broken (0 rows). Move broken ones to "
                f"{quar} — that's the quarantine prefix for this ticket. Tag everything you move with owner={team}. "
                "Never purge anything without asking me first.",
                constraint=[quar, "never purge anything without asking"], why="quarantine prefix and purge rule")
    b.constraint(s0, f"owner={team}", "owner tag typed once")
    c = b.call("lake_session_open", {"root": bucket, "profile": "curation-rw"})
    sid = f"lks-{hexid(rng, 10)}"
    b.ok(c, {"session_id": sid, "cwd": f"{bucket}/"}, rid=f"r-{hexid(rng, 6)}")
    b.watch("session_id", None, "the lake session handle")
    cwd = f"{bucket}/"

    def filler(b):
        k = rng.random()
        if k < 0.5:
            c = b.call("lake_ls", {"session_id": sid, "path": "."})
            rows = "\n".join(f"{rng.choice(['drwx', '-rw-'])}  {rng.randint(1, 900)}M  {code(rng, 6, AL)}" for _ in range(8 if long else 3))
            b.ok(c, {"cwd": cwd, "count": 8 if long else 3}, log=rows if long else None)
        else:
            smalltalk(b, rng, [("how many partitions so far?", "Still scanning; I'll report counts at the end."),
                               ("is the catalog sync done?", "Not yet, last sync was this morning."),
                               ("fyi the clickstream job reruns at 02:00", "Noted, I'll finish well before that.")])
    b.filler = filler
    b.bulk_spec = ("lake_ls", {"session_id": sid, "path": "../", "long": "true"},
                   lambda: f"dt=2024-0{rng.randint(5, 9)}-{rng.randint(10, 28)}/  {rng.randint(8, 40)} parts  {rng.randint(1, 9)}.{rng.randint(0, 9)} GiB  modified 2024-0{rng.randint(5, 9)}-{rng.randint(10, 28)}")
    b.pad(0.1)
    bad = []
    for i, day in enumerate(days):
        new = f"{bucket}/clickstream/{day}/"
        rel = f"clickstream/{day}" if i == 0 else f"../{day}"
        c = b.dcall(f"cd-{i}", "lake_cd", {"session_id": sid, "path": rel}, ["session_id"],
                    why="the session handle opened at the start")
        prev = cwd
        cwd = new
        b.ok(c, {"cwd": cwd})
        b.watch("cwd", None, "the lake session's current prefix")
        n = rng.randint(10, 14) if long else 5
        names = [f"part-{j:05d}-{hexid(rng, 8)}.snappy.parquet" for j in range(n)]
        badj = rng.randrange(n)
        lines = []
        for j, nm in enumerate(names):
            size = "0" if j == badj else f"{rng.randint(40, 260)}.{rng.randint(0, 9)} MiB"
            lines.append(f"{nm}  {size}  2024-{rng.randint(5, 9):02d}-{rng.randint(1, 28):02d}T0{rng.randint(0, 5)}:1{rng.randint(0, 9)}Z")
        c = b.call("lake_ls", {"session_id": sid, "path": "."})
        s_ls = b.ok(c, {"cwd": cwd, "count": n}, log="\n".join(lines), evidence=f"the {day} listing with the 0-byte part")
        path = cwd + names[badj]
        bad.append(path)
        c = b.dcall(f"stat-{i}", "lake_stat", {"object_path": path}, ["object_path"], why="the 0-byte file from the listing")
        b.ok(c, {"object_path": path, "rows": 0, "bytes": 0, "etag": hexid(rng, 16)})
        b.watch("rows", f"object_path={path}", "row count of the suspicious part")
        b.pad(0.1 + 0.6 * (i + 1) / len(days))
        if i == 0 or rng.random() < 0.5:
            c = b.call("catalog_partition_get", {"object_path": path})
            b.ok(c, {"object_path": path, "rows": rng.randint(90000, 400000), "registered_by": "ingest-bot"})
            b.asst("The catalog still claims rows for that file while the object is empty; the catalog is stale. "
                   "Treating it as broken.")
        b.decide(f"where-{i}", [b.p_fact("cwd", cwd, superseded=[prev] if prev != cwd else [])])
    # moves
    for i, path in enumerate(bad):
        idem = f"mv-{hexid(rng, 12)}"
        dest = quar + path.split("/clickstream/")[1]
        c = b.dcall(f"move-{i}", "lake_move", {"session_id": sid, "object_path": path, "dest": dest},
                    {"session_id": sid, "dest": quar}, why="quarantine prefix typed by the user", idem=idem)
        if i == 0:
            b.timeout(c)
            b.asst("The move timed out. I'll check its status before doing anything else with that file.")
            b.pad(0.78)
            b.decide(f"move-unsettled-{i}", [{"probe": "tool_state", "idempotency_key": idem, "status": "unknown",
                                              "why": "timed out, not yet settled"}])
            b.sq(c, "succeeded", {"object_path": dest, "moved": True})
        else:
            b.ok(c, {"object_path": dest, "moved": True}, rid=f"r-{hexid(rng, 6)}")
        c = b.dcall(f"tag-{i}", "lake_tag", {"object_path": dest, "tags": f"owner={team}"}, {"tags": team})
        b.ok(c, {"object_path": dest, "tags": {"owner": team}})
    s_ask = b.asst(f"Should I purge the {len(bad)} quarantined part(s) after the 7-day hold, or keep them?")
    aid = f"apv-purge-{hexid(rng, 5)}"
    b.approval(aid, "requested", s_ask, subject="prefix=" + quar)
    b.pad(0.92)
    b.decide("purge-wait", [{"probe": "pending", "approval_id": aid, "why": "purge needs the user's answer"}])
    if long:
        s_no = b.user("Don't purge. Legal wants them kept until the audit closes.", constraint="Legal wants them kept")
        b.approval(aid, "denied", s_no, subject="prefix=" + quar)
        b.pad(0.99)
        b.decide("final", [{"probe": "constraint", "seq": s_no, "text": "Legal wants them kept", "why": "purge denied"}])
    return b


# ==============================================================================================
# 3. library archives digitisation on a NAS (pushd/popd directory stack)
# ==============================================================================================

tool("nas", "write", [], "run a shell command on the scanning NAS; returns cwd and the directory stack")
tool("accession_create", "write", ["collection_code"])
tool("ocr_submit", "write", ["accession_id"])
tool("ocr_job_get", "read", ["ocr_job"])
tool("rights_lookup", "read", ["box"])
tool("donor_agreement_get", "read", ["box"])
tool("item_publish", "irreversible", ["accession_id"])


def archives(long, rng, window=None):
    b = mk("archives-digitisation", long, rng, "Registering scanned boxes of an archive collection from a NAS shell",
           ["pushd/popd move the NAS shell; later commands need the current directory",
            "accession ids and OCR job handles returned by one tool are used by others much later",
            "collection code and embargo typed once by the archivist; a later correction of the embargo",
            "a checksum log where one mismatching file matters",
            "rights database and donor agreement disagree on a box's access status",
            "publishing is irreversible and needs approval; an OCR submission in flight at a restart"],
           "An archivist asks the agent to verify scans of a mill's papers, register accessions, send them to OCR and "
           "publish only cleared boxes.", window, "call_")
    coll = f"{rng.choice(['HMP', 'KWR', 'SLA', 'BRD'])}-{rng.randint(1890, 1960)}"
    mill = rng.choice(["Harrow Mill", "Kestrel Works", "Saltash Ropery", "Brede Foundry"])
    base = f"/mnt/nas/scans/incoming/{coll.lower()}"
    boxes = sorted(rng.sample(range(1, 12), 4 if long else 2))
    emb_box = boxes[-1]
    emb = f"20{rng.randint(29, 34)}-01-01"
    s0 = b.user(f"Morning! We're digitising the {mill} papers, collection code {coll}. The scans are on the NAS under "
                f"{base}. Box {emb_box} is under a donor embargo until {emb} — never publish anything from box {emb_box}. "
                f"Please verify checksums, register an accession per box against the collection code, send each to OCR, "
                f"and publish only boxes that rights has cleared.",
                constraint=[f"never publish anything from box {emb_box}", coll], why="embargo and collection code")
    b.fact("embargo_until", emb, subject=f"box={emb_box}", authority="user")
    cwd, stack = [base], []

    def nas(cmd, new=None, out=None, log=None, evidence=None, decide=None):
        args = {"cmd": cmd, "cwd": cwd[0]}
        c = b.dcall(decide, "nas", args, {"cwd": cwd[0]}) if decide else b.call("nas", args)
        if new is not None:
            cwd[0] = new
        res = {"cwd": cwd[0], "dirstack": " ".join([cwd[0]] + stack[::-1])}
        if out:
            res["out"] = out
        return b.ok(c, res, log=log, evidence=evidence)

    def filler(b):
        if rng.random() < 0.55:
            nas("df -h /mnt/nas", out=f"/dev/md0  44T  {rng.randint(20, 40)}T  {rng.randint(4, 20)}T  {rng.randint(50, 90)}% /mnt/nas")
        else:
            smalltalk(b, rng, [("Do you need the box list from the paper inventory?", "Not yet, the folder names match so far."),
                               ("The scanner room is warm today, ignore any fan warnings.", "Understood."),
                               ("Any surprises?", "Nothing unusual beyond what I've flagged.")])
    b.filler = filler
    b.bulk_spec = ("rights_lookup", {"box": "all", "collection_code": coll, "view": "audit-trail"},
                   lambda: f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}  box{rng.randint(1, 11):02d}  {rng.choice(['reviewed', 'note added', 'donor letter scanned', 'query to legal'])}  {person(rng)}")
    nas(f"cd {base}", new=base, out=" ".join(f"box{n:02d}" for n in range(1, 12)))
    b.watch("cwd", None, "the NAS shell's directory")
    acc = {}
    for i, box in enumerate(boxes):
        stack.append(cwd[0])
        nas(f"pushd box{box:02d}", new=f"{base}/box{box:02d}")
        n = rng.randint(14, 22) if long else 6
        bad = rng.randrange(n)
        lines = [f"{'FAILED' if j == bad else 'OK'}  {coll.lower()}_b{box:02d}_{j + 1:04d}.tif  sha256:{hexid(rng, 16)}"
                 for j in range(n)]
        nas("sha256sum -c manifest.sha256", log="\n".join(lines), out=f"1 of {n} computed checksums did NOT match",
            evidence=f"checksum log for box {box}: one mismatch")
        badf = f"{coll.lower()}_b{box:02d}_{bad + 1:04d}.tif"
        b.asst(f"Box {box}: {badf} fails its checksum; I'll flag it for rescan.")
        c = b.dcall(f"acc-{i}", "accession_create", {"collection_code": coll, "box": str(box), "items": str(n)},
                    ["collection_code"], why="collection code typed by the archivist")
        acc[box] = f"ACC-{rng.randint(10000, 99999)}"
        b.ok(c, {"accession_id": acc[box], "box": str(box)}, rid=f"q{hexid(rng, 6)}")
        b.watch("accession_id", f"collection_code={coll}")
        stack.pop()
        nas("popd", new=base)
        b.pad(0.15 + 0.45 * (i + 1) / len(boxes))
    # OCR
    jobs = {}
    for i, box in enumerate(boxes[:-1] if long else boxes[:1]):
        c = b.dcall(f"ocr-{i}", "ocr_submit", {"accession_id": acc[box], "lang": "eng"}, ["accession_id"],
                    why="accession id returned many turns ago")
        if long and i == 1:
            b.recover()
            b.decide("after-restart", [{"probe": "pending", "call_id": c, "why": "OCR submit in flight at the restart"},
                                       {"probe": "tool_state", "call_id": c, "status": "unknown", "why": "restart"}])
            jobs[box] = f"ocrj_{hexid(rng, 8)}"
            b.sq(c, "succeeded", {"ocr_job": jobs[box], "queued": True})
        else:
            jobs[box] = f"ocrj_{hexid(rng, 8)}"
            b.ok(c, {"ocr_job": jobs[box], "queued": True})
    if long:
        s_c = b.user(f"Correction from the donor file: the box {emb_box} embargo runs until 2036-06-30, not {emb}.",
                     constraint="2036-06-30")
        b.correction("embargo_until", "2036-06-30", subject=f"box={emb_box}")
    b.pad(0.7)
    first = boxes[0]
    c = b.dcall("rights", "rights_lookup", {"box": str(first), "collection_code": coll}, ["collection_code"])
    b.ok(c, {"box": str(first), "access_status": "cleared"})
    b.watch("access_status", f"box={first}")
    j = jobs[first]
    c = b.dcall("ocr-get", "ocr_job_get", {"ocr_job": j}, ["ocr_job"], why="OCR job handle")
    b.ok(c, {"ocr_job": j, "state": "done", "mean_confidence": f"0.{rng.randint(86, 97)}"})
    if long:
        b.pad(0.8)
        c = b.call("donor_agreement_get", {"box": str(first), "collection_code": coll})
        b.ok(c, {"box": str(first), "access_status": "cleared-with-credit-line", "credit": f"Courtesy of the {mill.split()[0]} family"})
        b.asst("The donor agreement adds a credit-line requirement to the box's access status; publication must carry it.")
    s_ask = b.asst(f"Box {first} is cleared and OCR'd. May I publish accession {acc[first]}? This is public and can't be undone.")
    aid = f"pub-{acc[first].lower()}"
    b.approval(aid, "requested", s_ask, subject=f"accession_id={acc[first]}")
    b.pad(0.9)
    b.decide("publish-wait", [{"probe": "pending", "approval_id": aid}])
    s_ok = b.user("Yes, publish it.")
    b.approval(aid, "granted", s_ok, subject=f"accession_id={acc[first]}")
    c = b.dcall("publish", "item_publish", {"accession_id": acc[first]}, ["accession_id"])
    b.ok(c, {"accession_id": acc[first], "public_url": f"https://archives.example.org/{acc[first]}"}, rid=f"q{hexid(rng, 6)}")
    b.pad(1.0)
    b.decide("end", [], n=3)
    return b


# ==============================================================================================
# 4. print shop prepress (hotfolder file system)
# ==============================================================================================

tool("hotfolder", "write", [], "chdir/list/move in the prepress hotfolder tree; returns cwd")
tool("order_get", "read", ["order_id"])
tool("jobticket_get", "read", ["order_id"])
tool("preflight_run", "write", ["file"])
tool("press_book", "write", ["order_id"])
tool("plates_burn", "irreversible", ["order_id"])
tool("customer_notify", "write", ["order_id"])


def printshop(long, rng, window=None):
    b = mk("printshop-prepress", long, rng, "Prepress for a menu print order through the hotfolder tree",
           ["the hotfolder tool returns a new cwd after each chdir; a move needs the current folder",
            "a preflight report id and press slot come back from tools and are used later by others",
            "PO number, quantity, stock and customer e-mail typed by the shop manager; quantity corrected later",
            "a long file listing where one RGB file matters",
            "order system and job ticket disagree on the paper stock",
            "a press booking that timed out, settled by status query; plates need a signed proof"],
           "A print shop manager hands the agent a menu order; files arrive in the hotfolder, are preflighted, "
           "booked on a press; burning plates waits for proof sign-off.", window, "tc_")
    po = f"{rng.randint(10, 99)}-{rng.randint(1000, 9999)}"
    cust = rng.choice(["Lindqvist Bakery", "Casa Moreau", "Okafor & Sons Deli", "Tanaka Ramen Bar"])
    mail = f"orders@{cust.lower().split()[0]}-{rng.choice(['bakery', 'kitchen', 'foods'])}.com"
    qty = rng.choice(["2,500", "1,200", "4,000"])
    stock = rng.choice(["150gsm silk", "170gsm matt", "135gsm gloss"])
    s0 = b.user(f"New one: PO {po} from {cust}. {qty} tri-fold menus, {stock}, due Friday 14:00. Files are in the "
                f"hotfolder. Don't burn plates before the proof is signed. Updates go to {mail}.",
                constraint=["Don't burn plates before the proof is signed", mail], why="shop rules for the order")
    b.fact("quantity", qty, subject=f"order_id={po}")
    b.fact("stock", stock, subject=f"order_id={po}")
    cwd = ["/prepress"]

    def hf(action, path, new=None, log=None, evidence=None, decide=None, extra=None, carry=None):
        args = {"action": action, "path": path}
        c = b.dcall(decide, "hotfolder", args, carry or ["path"]) if decide else b.call("hotfolder", args)
        if new:
            cwd[0] = new
        res = {"cwd": cwd[0]}
        res.update(extra or {})
        return b.ok(c, res, log=log, evidence=evidence)

    def filler(b):
        if rng.random() < 0.6:
            hf("list", ".", log="\n".join(f"{code(rng, 6, AL)}.pdf  {rng.randint(1, 80)} MB" for _ in range(9)) if long else None,
               extra=None if long else {"files": str(rng.randint(2, 9))})
        else:
            smalltalk(b, rng, [("Press 2 is down for a blanket change till noon.", "Noted."),
                               ("How's the queue?", "Two jobs ahead of this one."),
                               ("Remember the bleed is 3mm on menus.", "Yes, preflight checks 3mm bleed.")])
    b.filler = filler
    b.bulk_spec = ("hotfolder", {"action": "list", "path": "/prepress/queue"},
                   lambda: f"PO-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}  {rng.choice(['flyer', 'poster', 'menu', 'card'])}  {rng.randint(1, 30)} files  {rng.choice(['waiting', 'preflighted', 'on press'])}")
    hf("chdir", f"/prepress/in/PO-{po}", new=f"/prepress/in/PO-{po}")
    b.watch("cwd", None, "hotfolder current folder")
    n = rng.randint(12, 18) if long else 5
    files = [f"menu_{p}_{v}.pdf" for p, v in zip(["cover", "inner", "back", "insert", "spec", "alt"] * 4, range(n))]
    rgb = rng.randrange(n)
    lines = [f"{f}  {rng.randint(2, 90)} MB  {'RGB' if j == rgb else 'CMYK'}  {rng.choice(['PDF/X-4', 'PDF/X-1a'])}"
             for j, f in enumerate(files)]
    hf("list", ".", log="\n".join(lines), evidence="hotfolder listing: one RGB file", extra={"count": n})
    c = b.dcall("preflight", "preflight_run", {"file": files[rgb], "profile": "sheetfed-coated"}, ["file"],
                why="the RGB file from the listing")
    rep = f"PF-{rng.randint(100000, 999999)}"
    b.ok(c, {"report_id": rep, "verdict": "convert", "detail": "RGB images converted to FOGRA51"})
    b.watch("report_id", f"file={files[rgb]}")
    b.pad(0.35)
    if long:
        c = b.dcall("order", "order_get", {"order_id": po}, ["order_id"], why="PO typed by the manager")
        b.ok(c, {"order": {"order_id": po, "customer": cust, "stock": "130gsm silk", "due": "Fri 14:00"}})
        b.asst(f"The order system says 130gsm silk, but you told me {stock}. Checking the job ticket.")
        b.pad(0.5)
        c = b.call("jobticket_get", {"order_id": po})
        b.ok(c, {"order_id": po, "stock": stock, "sheet": "SRA3", "imposition": "2-up"})
    s_c = b.user(f"Change of plan: they want 3,000 not {qty}.", constraint="3,000")
    b.correction("quantity", "3,000", subject=f"order_id={po}")
    hf("move", f"/prepress/ready/PO-{po}", new=f"/prepress/ready/PO-{po}", decide="move",
       carry={"path": f"PO-{po}"})
    b.decide("folder", [b.p_fact("cwd", f"/prepress/ready/PO-{po}", superseded=[f"/prepress/in/PO-{po}"])])
    b.pad(0.6)
    idem = f"book-{po}-{hexid(rng, 4)}"
    c = b.dcall("book", "press_book", {"order_id": po, "press": "SM52-2", "quantity": "3,000"},
                {"order_id": po, "quantity": "3,000"}, idem=idem)
    b.timeout(c)
    b.pad(0.75)
    b.decide("book-unknown", [{"probe": "pending", "call_id": c, "why": "booking timed out"}])
    slot = f"SLOT-{rng.randint(1000, 9999)}"
    b.sq(c, "succeeded", {"slot_id": slot, "start": "Thu 06:00"})
    b.watch("slot_id", f"order_id={po}")
    s_ask = b.asst("Proof PDF is ready. Waiting for the customer's signature before plates.")
    aid = f"proof-{po}"
    b.approval(aid, "requested", s_ask, subject=f"order_id={po}")
    c = b.dcall("notify", "customer_notify", {"order_id": po, "to": mail, "report": rep}, {"to": mail, "report": rep})
    b.ok(c, {"sent": True})
    b.pad(0.95)
    b.decide("plates-wait", [{"probe": "pending", "approval_id": aid}])
    if long:
        s_ok = b.user("Proof signed, go ahead.")
        b.approval(aid, "granted", s_ok, subject=f"order_id={po}")
        c = b.dcall("plates", "plates_burn", {"order_id": po, "slot_id": slot}, ["slot_id"])
        b.ok(c, {"plates": 8, "order_id": po}, rid=f"rq-{hexid(rng, 6)}")
        b.decide("end", [], n=3)
    return b


# ==============================================================================================
# 5. genealogy records
# ==============================================================================================

tool("tree_get", "read", ["tree_id"])
tool("records_search", "read", [])
tool("record_get", "read", ["record_id"])
tool("person_add", "write", ["tree_id"])
tool("census_lookup", "read", ["person_id"])
tool("parish_register_lookup", "read", ["person_id"])
tool("relation_link", "write", ["tree_id"])
tool("dna_matches", "read", ["kit_id"])
tool("tree_share_invite", "irreversible", ["tree_id"])


def genealogy(long, rng, window=None):
    b = mk("genealogy-records", long, rng, "Tracing a great-grandmother through parish and census records",
           ["tree id and DNA kit number typed by the user are needed much later",
            "a record id from a long search result, a person id from person_add, used by other tools",
            "census and parish register disagree on a birth year",
            "a user correction of the birth surname",
            "sharing the tree is irreversible and was denied"],
           "A family historian asks the agent to find a great-grandmother's baptism, add her to the online tree "
           "and link her; DNA matches are checked; sharing is denied.", window, "call_")
    tree = f"T-{rng.randint(10000, 99999)}"
    kit = f"KIT-{code(rng, 3)}-{code(rng, 3)}"
    first = rng.choice(["Johanna", "Karolina", "Brita", "Ingrid", "Maja"])
    sur = rng.choice(["Lindqvist", "Bergström", "Nyberg", "Sjöberg"])
    parish = rng.choice(["Umeå", "Skellefteå", "Piteå", "Luleå"])
    year = rng.randint(1878, 1892)
    s0 = b.user(f"hi!! so my tree is {tree} and my DNA kit is {kit}. I'm looking for my great-grandmother {first} "
                f"{sur}, born around {year} in {parish} parish. Her son Erik is already in the tree. Please don't "
                f"share the tree with anyone without asking, some cousins are... complicated.",
                constraint=["don't share the tree with anyone without asking", kit], why="ids and sharing rule")
    b.constraint(s0, tree, "tree id typed once")

    def filler(b):
        k = rng.random()
        if k < 0.5:
            c = b.call("records_search", {"surname": rng.choice(["Nyström", "Öberg", "Holm"]), "place": parish})
            b.ok(c, {"hits": rng.randint(0, 40)}, log=None if not long else "\n".join(
                f"{code(rng, 8, D)}  {rng.choice(['Birth', 'Marriage', 'Burial'])}  {rng.randint(1850, 1910)}  {person(rng)}"
                for _ in range(10)))
        else:
            smalltalk(b, rng, [("my grandma always said the family came from the coast", "That fits the parishes we're searching."),
                               ("is this going to take long?", "A few more lookups."),
                               ("lol the handwriting in these scans", "Some of the clerks were hard to read, yes.")])
    b.filler = filler
    b.bulk_spec = ("records_search", {"surname": sur, "place": "*", "years": "1850-1920"},
                   lambda: f"R{rng.randint(1000000, 9999999)}  {rng.choice(['Birth', 'Marriage', 'Burial', 'Census'])}  {rng.randint(1850, 1920)}  {rng.choice(['Nysätra', 'Bygdeå', 'Lövånger', 'Degerfors'])}  {rng.choice(FIRST)} {sur}")
    c = b.call("tree_get", {"tree_id": tree})
    erik = f"P{rng.randint(100000, 999999)}"
    b.ok(c, {"tree": {"tree_id": tree, "people": rng.randint(40, 300), "root_person": "Erik " + sur, "erik_person_id": erik}})
    b.pad(0.15)
    n = 12 if long else 5
    rows, right = [], rng.randrange(n)
    rid = None
    for j in range(n):
        r = f"R{rng.randint(1000000, 9999999)}"
        if j == right:
            rid = r
            rows.append(f"{r}  Baptism  {year}  {parish}  {first} {sur}  father: Anders {sur}  mother: Kristina")
        else:
            rows.append(f"{r}  {rng.choice(['Baptism', 'Burial', 'Marriage'])}  {rng.randint(1860, 1900)}  "
                        f"{rng.choice([parish, 'Nysätra', 'Bygdeå'])}  {rng.choice([first, 'Anna', 'Greta'])} {rng.choice([sur, 'Holm'])}")
    c = b.call("records_search", {"surname": sur, "given": first, "place": parish, "years": f"{year - 5}-{year + 5}"})
    b.ok(c, {"hits": n}, log="\n".join(rows), evidence="the search results with the matching baptism")
    b.asst(f"Record {rid} looks right: baptism {year} in {parish}, father Anders.")
    b.pad(0.3)
    c = b.dcall("record", "record_get", {"record_id": rid}, ["record_id"], why="record id from the long search list")
    b.ok(c, {"record_id": rid, "type": "baptism", "date": f"{year}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}", "page": str(rng.randint(10, 300))})
    c = b.dcall("add", "person_add", {"tree_id": tree, "name": f"{first} {sur}", "source": rid}, ["tree_id", "source"],
                why="tree id typed by the user")
    pid = f"P{rng.randint(100000, 999999)}"
    b.ok(c, {"person_id": pid, "tree_id": tree})
    b.watch("person_id", f"tree_id={tree}")
    b.pad(0.5)
    if long:
        c = b.dcall("census", "census_lookup", {"person_id": pid, "year": "1900"}, ["person_id"])
        b.ok(c, {"person_id": pid, "birth_year": str(year - 1), "household": f"{rng.randint(3, 9)} persons"})
        b.pad(0.62)
        c = b.call("parish_register_lookup", {"person_id": pid})
        b.ok(c, {"person_id": pid, "birth_year": str(year), "register": f"{parish} C:{rng.randint(5, 12)}"})
        b.watch("birth_year", f"person_id={pid}", "birth year from the newest source")
        b.asst("The 1900 census gives a year earlier than the parish register; registers are usually more reliable.")
    s_c = b.user(f"oh wait, {sur} was her married name! born {rng.choice(['Nilsdotter', 'Persdotter', 'Andersdotter'])}. sorry",
                 constraint="married name")
    birth = b.events[-1]["payload"]["text"].split("born ")[1].split(".")[0]
    b.fact("birth_surname", sur, subject=f"person_id={pid}", authority="tool")
    b.correction("birth_surname", birth, subject=f"person_id={pid}")
    b.pad(0.75)
    c = b.dcall("link", "relation_link", {"tree_id": tree, "parent_id": pid, "child_id": erik}, ["parent_id", "child_id"],
                why="person ids from person_add and tree_get")
    b.ok(c, {"linked": True})
    c = b.dcall("dna", "dna_matches", {"kit_id": kit, "min_cm": "20"}, ["kit_id"], why="kit typed at the start")
    m = [f"{person(rng)}  {rng.randint(20, 300)} cM  {rng.choice(['2nd-3rd cousin', '3rd-4th cousin', '4th-6th cousin'])}"
         for _ in range(9 if long else 3)]
    b.ok(c, {"matches": len(m)}, log="\n".join(m) + ("\n" + "shared ancestor hints: " + sur) * (2 if long else 1))
    s_ask = b.asst("One of the 3rd-cousin matches asked for access to the tree. Shall I send the invite?")
    aid = f"share-{tree.lower()}"
    b.approval(aid, "requested", s_ask, subject=f"tree_id={tree}")
    b.pad(0.9)
    b.decide("share", [{"probe": "pending", "approval_id": aid}])
    s_n = b.user("no, not yet.")
    b.approval(aid, "denied", s_n, subject=f"tree_id={tree}")
    b.pad(1.0)
    b.decide("end", [], n=3)
    return b


# ==============================================================================================
# 6. museum loans
# ==============================================================================================

tool("loan_get", "read", ["loan_id"])
tool("object_get", "read", ["object_number"])
tool("lender_schedule_get", "read", ["object_number"])
tool("condition_report_create", "write", ["object_number"])
tool("courier_book", "write", ["loan_id"])
tool("insurance_cert_request", "write", ["loan_id"])
tool("crate_order", "write", ["object_number"])
tool("agreement_countersign", "irreversible", ["loan_id"])


def museum(long, rng, window=None):
    b = mk("museum-loans", long, rng, "Preparing an incoming exhibition loan: objects, crates, courier, insurance",
           ["loan id, exhibition dates and courier name typed once by the registrar",
            "object numbers from a long loan listing used by later tools",
            "collection system and lender schedule disagree on insured value",
            "courier booking timed out, settled by status query",
            "countersigning the agreement is irreversible and stays pending"],
           "A registrar asks the agent to prepare an incoming loan; values differ between the lender's schedule and "
           "the collection system; the agreement waits for the director.", window, "call_")
    loan = f"LN-{rng.randint(2024, 2026)}-{rng.randint(100, 999)}"
    courier = person(rng)
    lender = rng.choice(["Rijksmuseum Twenthe", "Musée des Augustins", "Ateneum", "Museo de Bellas Artes de Bilbao"])
    dates = rng.choice(["12 Sep 2025 – 18 Jan 2026", "3 Mar 2026 – 28 Jun 2026", "20 Oct 2025 – 15 Feb 2026"])
    contact = email(rng, person(rng), "lender-registrar.org")
    s0 = b.user(f"Loan {loan} from {lender}, exhibition dates {dates}. Their courier is {courier}. Lender registrar contact "
                f"is {contact}. Nothing gets countersigned until the director has seen the insurance certificate.",
                constraint=["until the director has seen the insurance certificate", courier], why="loan terms")
    b.constraint(s0, dates, "exhibition dates typed once")

    def filler(b):
        if rng.random() < 0.5:
            c = b.call("loan_get", {"loan_id": loan})
            b.ok(c, {"loan_id": loan, "state": "in preparation", "objects": str(n)})
        else:
            smalltalk(b, rng, [("The facilities team wants crate sizes by Friday.", "I'll have them after the crate orders."),
                               ("Is the lender's facility report in?", "Yes, received last week."),
                               ("Keep an eye on the RH requirements.", "45–55% RH noted for all objects.")])
    n = rng.randint(10, 14) if long else 4
    b.filler = filler
    b.bulk_spec = ("loan_get", {"loan_id": loan, "include": "history"},
                   lambda: f"2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}  {rng.choice(['email from lender', 'facility report', 'crate quote', 'courier query', 'RH log'])}  {person(rng)}  {code(rng, 6, AL)}")
    objs = [f"{rng.choice(['SK-A', 'INV', 'RF'])}-{rng.randint(1000, 9999)}" for _ in range(n)]
    key_obj = rng.randrange(n)
    lines = [f"{o}  {rng.choice(['oil on canvas', 'tempera on panel', 'bronze', 'gouache on paper'])}  "
             f"{rng.randint(30, 220)}x{rng.randint(30, 220)} cm  {'FRAGILE: flaking paint, climate crate' if j == key_obj else 'standard'}"
             for j, o in enumerate(objs)]
    c = b.call("loan_get", {"loan_id": loan, "include": "objects"})
    b.ok(c, {"loan_id": loan, "lender": lender, "objects": str(n)}, log="\n".join(lines),
         evidence="loan object list: one fragile panel")
    ob = objs[key_obj]
    b.pad(0.2)
    c = b.dcall("object", "object_get", {"object_number": ob}, ["object_number"], why="the fragile object from the list")
    v1 = rng.choice(["1,200,000 EUR", "850,000 EUR", "2,400,000 EUR"])
    b.ok(c, {"object": {"object_number": ob, "insured_value": v1, "frame": "original"}})
    b.watch("insured_value", f"object_number={ob}")
    c = b.dcall("condition", "condition_report_create", {"object_number": ob, "note": "flaking paint, pre-loan check"},
                ["object_number"])
    cr = f"CR-{rng.randint(10000, 99999)}"
    b.ok(c, {"report_id": cr}, rid=f"x{hexid(rng, 6)}")
    b.pad(0.4)
    if long:
        c = b.dcall("schedule", "lender_schedule_get", {"object_number": ob, "loan_id": loan}, ["object_number"])
        v2 = v1.replace(",", "").split()[0]
        v2 = f"{int(v2) * 6 // 5:,} EUR"
        b.ok(c, {"object_number": ob, "insured_value": v2, "schedule_rev": "B"})
        b.asst(f"Lender schedule rev B says {v2} for {ob}; our system still has {v1}. The schedule governs.")
        for j in rng.sample(range(n), 3):
            c = b.call("crate_order", {"object_number": objs[j], "type": "climate" if j == key_obj else "standard"})
            b.ok(c, {"crate_id": f"CRT-{rng.randint(100, 999)}"})
        b.pad(0.6)
    idem = f"cour-{loan.lower()}-{hexid(rng, 4)}"
    c = b.dcall("courier", "courier_book", {"loan_id": loan, "courier": courier, "dates": dates},
                ["courier", "dates"], idem=idem, why="courier name and dates typed by the registrar")
    b.timeout(c)
    b.pad(0.7)
    b.decide("courier-unknown", [{"probe": "tool_state", "idempotency_key": idem, "status": "unknown"}])
    b.sq(c, "succeeded", {"booking_ref": f"CB-{rng.randint(1000, 9999)}"})
    c = b.dcall("insurance", "insurance_cert_request", {"loan_id": loan, "send_to": contact}, ["send_to"])
    b.ok(c, {"cert_request": f"IC-{rng.randint(1000, 9999)}", "state": "requested"})
    s_ask = b.asst("Everything is ready for the agreement. Shall I countersign once the director has seen the certificate?")
    aid = f"sign-{loan.lower()}"
    b.approval(aid, "requested", s_ask, subject=f"loan_id={loan}")
    b.pad(0.95)
    b.decide("sign-wait", [{"probe": "pending", "approval_id": aid}], n=4)
    return b


# ==============================================================================================
# 7. fleet telematics
# ==============================================================================================

tool("vehicle_get", "read", ["vehicle_id"])
tool("telematics_ping", "read", ["vehicle_id"])
tool("trip_log", "read", ["vehicle_id"])
tool("driver_get", "read", ["driver_id"])
tool("work_order_create", "write", ["vehicle_id"])
tool("geofence_set", "write", ["vehicle_id"])
tool("driver_message", "write", ["driver_id"])
tool("vehicle_decommission", "irreversible", ["vehicle_id"])


def fleet(long, rng, window=None):
    b = mk("fleet-telematics", long, rng, "Chasing an odometer mismatch and a harsh-braking driver in a van fleet",
           ["vehicle ids typed by the fleet manager; a driver id from a long trip log used by another tool later",
            "registry and live telematics disagree on the odometer",
            "a geofence update in flight when the agent restarts, settled by status query",
            "a work order id reused later; decommissioning is irreversible and denied"],
           "A fleet manager asks the agent to check vans with service-interval problems and a harsh-braking alert.",
           window, "tool_")
    vans = [f"VAN-{rng.randint(100, 999)}" for _ in range(3 if long else 1)]
    mgr = person(rng)
    depot = rng.choice(["Leeds South", "Rotterdam Waalhaven", "Lyon Gerland", "Gdańsk Port"])
    s0 = b.user(f"{mgr} here. Check {', '.join(vans)} — service intervals look off. Geofence them to the {depot} depot "
                f"overnight. Don't message drivers before 07:00 and never decommission a van without my sign-off.",
                constraint=["never decommission a van without my sign-off", "before 07:00"], why="manager's rules")
    b.constraint(s0, depot, "depot typed once")

    def filler(b):
        if rng.random() < 0.55:
            v = rng.choice(vans)
            c = b.call("telematics_ping", {"vehicle_id": v, "fields": "gps,ignition"})
            b.ok(c, {"ignition": rng.choice(["off", "on"]), "gps": f"{rng.uniform(43, 55):.4f},{rng.uniform(-1, 19):.4f}"})
        else:
            smalltalk(b, rng, [("any of them out right now?", "Two are parked at the depot."),
                               ("the lease company wants odometers monthly", "I'll include the verified figures."),
                               ("ignore VAN-000, that's a test unit", "Ignoring it.")])
    b.filler = filler
    b.bulk_spec = ("trip_log", {"vehicle_id": vans[-1], "days": "30"},
                   lambda: f"2024-0{rng.randint(3, 9)}-{rng.randint(10, 28)} {rng.randint(5, 20):02d}:{rng.randint(0, 59):02d}  DRV-{rng.randint(1000, 9999)}  {rng.randint(5, 180)} km  no events")
    odo = {}
    for i, v in enumerate(vans):
        c = b.dcall(f"veh-{i}", "vehicle_get", {"vehicle_id": v}, ["vehicle_id"], why="van id typed by the manager")
        odo[v] = rng.randint(60000, 140000)
        b.ok(c, {"vehicle": {"vehicle_id": v, "odometer_km": odo[v], "next_service_km": odo[v] + 2500,
                             "plate": f"{code(rng, 2)}{rng.randint(10, 99)} {code(rng, 3)}"}})
        b.pad(0.1 + 0.3 * (i + 1) / len(vans))
    v = vans[0]
    c = b.dcall("ping", "telematics_ping", {"vehicle_id": v, "fields": "odometer"}, ["vehicle_id"])
    live = odo[v] + rng.randint(4000, 9000)
    b.ok(c, {"vehicle_id": v, "odometer_km": live, "source": "CAN bus"})
    b.watch("odometer_km", f"vehicle_id={v}", "newest odometer reading")
    b.asst(f"{v}: registry says {odo[v]} km, the CAN bus says {live} km. The registry is stale; service is overdue.")
    n = 12 if long else 4
    drivers = [f"DRV-{rng.randint(1000, 9999)}" for _ in range(n)]
    hb = rng.randrange(n)
    lines = [f"2024-0{rng.randint(3, 9)}-{rng.randint(10, 28)} {rng.randint(5, 20):02d}:{rng.randint(0, 59):02d}  {drivers[j]}  "
             f"{rng.randint(5, 180)} km  {'HARSH_BRAKE x4 at A61 junction' if j == hb else 'no events'}" for j in range(n)]
    c = b.call("trip_log", {"vehicle_id": v, "days": "7"})
    b.ok(c, {"trips": n}, log="\n".join(lines), evidence="trip log: the harsh-braking trip and its driver")
    drv = drivers[hb]
    b.pad(0.55)
    idem = f"wo-{v.lower()}-{hexid(rng, 6)}"
    c = b.dcall("wo", "work_order_create", {"vehicle_id": v, "reason": "service overdue", "odometer_km": str(live)},
                {"vehicle_id": v, "odometer_km": str(live)}, idem=idem)
    wo = f"WO-{rng.randint(10000, 99999)}"
    b.ok(c, {"work_order": wo}, rid=f"rq{hexid(rng, 6)}")
    c = b.dcall("geo", "geofence_set", {"vehicle_id": v, "zone": depot, "window": "22:00-06:00"}, {"zone": depot})
    b.recover()
    b.decide("restart", [{"probe": "tool_state", "call_id": c, "status": "unknown", "why": "in flight at restart"},
                         {"probe": "pending", "call_id": c}])
    b.sq(c, "succeeded", {"vehicle_id": v, "zone": depot, "active": True})
    b.pad(0.8)
    c = b.dcall("driver", "driver_get", {"driver_id": drv}, ["driver_id"], why="driver id from the long trip log")
    b.ok(c, {"driver_id": drv, "name": person(rng), "shift_start": "07:30"})
    c = b.dcall("msg", "driver_message", {"driver_id": drv, "text": f"Please see the depot lead re {wo}", "send_at": "07:00"},
                {"driver_id": drv, "text": wo})
    b.ok(c, {"scheduled": True})
    if long:
        s_ask = b.asst(f"{vans[-1]} has 3 failed MOTs in its history. Should I decommission it?")
        aid = f"decom-{vans[-1].lower()}"
        b.approval(aid, "requested", s_ask, subject=f"vehicle_id={vans[-1]}")
        b.pad(0.92)
        b.decide("decom-wait", [{"probe": "pending", "approval_id": aid}])
        s_n = b.user("No — it's booked for a gearbox job next week.", constraint="gearbox job")
        b.approval(aid, "denied", s_n, subject=f"vehicle_id={vans[-1]}")
    b.pad(1.0)
    b.decide("end", [], n=3)
    return b


# ==============================================================================================
# 8. wedding planning
# ==============================================================================================

tool("vendor_search", "read", [])
tool("vendor_get", "read", ["vendor_id"])
tool("quote_request", "write", ["vendor_id"])
tool("hold_create", "write", ["vendor_id"])
tool("deposit_pay", "irreversible", ["vendor_id"])
tool("guest_list", "read", ["event_id"])
tool("rsvp_set", "write", ["guest_id"])


def wedding(long, rng, window=None):
    b = mk("wedding-planning", long, rng, "Booking a caterer and florist and tidying RSVPs for a wedding",
           ["date, budget cap, guest count and planner e-mail typed by a chatty user; guest count corrected",
            "vendor ids from a long search list; a hold id used later by the deposit",
            "vendor profile and quote disagree on the per-head price",
            "one deposit approved, the other denied; a timed-out RSVP update"],
           "A couple's planner-assistant agent shortlists vendors, holds dates and pays deposits within a budget.",
           window, "call_")
    date = f"2025-{rng.randint(5, 9):02d}-{rng.randint(1, 28):02d}"
    cap = rng.choice(["£18,500", "£22,000", "£15,750"])
    guests = rng.choice([96, 110, 120])
    planner = email(rng, person(rng), "gmail.com")
    ev = f"EVT-{rng.randint(1000, 9999)}"
    s0 = b.user(f"Hiya!! ok so the big day is {date} (eek) and our event id on here is {ev}. We're thinking about {guests} "
                f"guests. Total budget for catering + flowers can't go over {cap}, seriously. Please cc my sister "
                f"{planner} on anything you book. Oh and no deposits without asking us first!",
                constraint=[cap, "no deposits without asking us first"], why="budget and deposit rule")
    b.constraint(s0, planner, "planner e-mail typed once")
    b.fact("guest_count", str(guests), subject=f"event_id={ev}")

    def filler(b):
        if rng.random() < 0.5:
            smalltalk(b, rng, [("omg did you see the weather for september", "Warm and mostly dry so far in the long-range."),
                               ("my mum wants peonies. is that even possible in autumn", "Imported peonies are possible but pricey."),
                               ("sorry for all the messages lol", "No problem at all!"),
                               ("should we do a cheese table instead of cake", "Many caterers offer both; I'll ask.")])
        else:
            c = b.call("vendor_search", {"category": rng.choice(["photographer", "band", "cake"]), "date": date})
            b.ok(c, {"results": rng.randint(3, 20)}, log=None if not long else "\n".join(
                f"V{rng.randint(1000, 9999)}  {person(rng)} {rng.choice(['Studio', 'Events', 'Co'])}  ★{rng.randint(38, 50) / 10}"
                for _ in range(8)))
    b.filler = filler
    b.bulk_spec = ("guest_list", {"event_id": ev, "fields": "name,side,diet"},
                   lambda: f"G-{rng.randint(100, 999)}  {person(rng)}  {rng.choice(['bride', 'groom'])}  {rng.choice(['none', 'vegetarian', 'vegan', 'gluten-free', 'nut allergy'])}  {rng.choice(['yes', 'no', 'pending'])}")
    n = 12 if long else 4
    vids = [f"V{rng.randint(1000, 9999)}" for _ in range(n)]
    best = rng.randrange(n)
    lines = [f"{vids[j]}  {rng.choice(['Olive & Thyme', 'Harvest Table', 'Saffron Kitchen', 'The Copper Pot'])} {j}  "
             f"£{rng.randint(45, 95)}/head  {'AVAILABLE on ' + date if j == best else rng.choice(['booked', 'waitlist', 'booked'])}"
             for j in range(n)]
    c = b.call("vendor_search", {"category": "caterer", "date": date, "max_per_head": "80"})
    b.ok(c, {"results": n}, log="\n".join(lines), evidence="caterer search: the only one free on the date")
    cat = vids[best]
    b.pad(0.3)
    c = b.dcall("cater", "vendor_get", {"vendor_id": cat}, ["vendor_id"], why="caterer id from the long list")
    ph = rng.randint(55, 75)
    b.ok(c, {"vendor": {"vendor_id": cat, "per_head": f"£{ph}.00", "min_guests": "80"}})
    b.watch("per_head", f"vendor_id={cat}")
    s_c = b.user(f"UPDATE we're now at {guests + 14} guests, his side keeps growing 🙃", constraint=str(guests + 14))
    b.correction("guest_count", str(guests + 14), subject=f"event_id={ev}")
    c = b.dcall("quote", "quote_request", {"vendor_id": cat, "guests": str(guests + 14), "date": date},
                {"vendor_id": cat, "guests": str(guests + 14)}, why="the corrected guest count")
    b.ok(c, {"vendor_id": cat, "per_head": f"£{ph + 4}.00", "total": f"£{(ph + 4) * (guests + 14):,}.00"})
    b.pad(0.55)
    c = b.dcall("hold", "hold_create", {"vendor_id": cat, "date": date, "cc": planner}, ["cc", "date"])
    hold = f"H-{code(rng, 6)}"
    b.ok(c, {"hold_id": hold, "expires": "72h"}, rid=f"rq-{hexid(rng, 6)}")
    s_ask = b.asst(f"Caterer held ({hold}). Deposit is £{ph * 10}.00 — shall I pay it?")
    aid = f"dep-{cat.lower()}"
    b.approval(aid, "requested", s_ask, subject=f"vendor_id={cat}")
    b.pad(0.7)
    b.decide("dep-wait", [{"probe": "pending", "approval_id": aid}])
    s_ok = b.user("YES pay it!!")
    b.approval(aid, "granted", s_ok, subject=f"vendor_id={cat}")
    c = b.dcall("pay", "deposit_pay", {"vendor_id": cat, "hold_id": hold, "amount": f"£{ph * 10}.00"}, ["hold_id", "amount"])
    b.ok(c, {"paid": True, "receipt": f"RC-{rng.randint(10000, 99999)}"}, rid=f"rq-{hexid(rng, 6)}")
    if long:
        flo = f"V{rng.randint(1000, 9999)}"
        c = b.call("vendor_get", {"vendor_id": flo})
        b.ok(c, {"vendor": {"vendor_id": flo, "per_head": "n/a", "package": "£2,950.00"}})
        s2 = b.asst(f"Florist {flo} wants a £900.00 deposit. Go ahead?")
        aid2 = f"dep-{flo.lower()}"
        b.approval(aid2, "requested", s2, subject=f"vendor_id={flo}")
        b.pad(0.8)
        s_n = b.user("not yet, mum is still deciding between them and another florist", constraint="mum is still deciding")
        b.approval(aid2, "denied", s_n, subject=f"vendor_id={flo}")
        gid = f"G-{rng.randint(100, 999)}"
        idem = f"rsvp-{gid.lower()}-{hexid(rng, 4)}"
        c = b.dcall("rsvp", "rsvp_set", {"guest_id": gid, "status": "declined", "event_id": ev}, ["event_id"], idem=idem)
        b.timeout(c)
        b.pad(0.9)
        b.decide("rsvp-unknown", [{"probe": "tool_state", "idempotency_key": idem, "status": "unknown"}])
        b.sq(c, "not_performed")
    b.pad(1.0)
    b.decide("end", [], n=3)
    return b


# ==============================================================================================
# 9. veterinary records
# ==============================================================================================

tool("patient_find", "read", [])
tool("patient_get", "read", ["patient_id"])
tool("weight_history", "read", ["patient_id"])
tool("referral_get", "read", ["patient_id"])
tool("rx_create", "write", ["patient_id"])
tool("appointment_book", "write", ["patient_id"])
tool("owner_sms", "write", ["patient_id"])
tool("controlled_drug_dispense", "irreversible", ["patient_id"])


def vet(long, rng, window=None):
    b = mk("vet-records", long, rng, "Dosing and follow-up for a dog whose weight differs between records",
           ["owner phone and microchip typed by the nurse; patient id from a search list used later",
            "a referral letter and the clinic scale disagree on weight; the dose needs the newest",
            "a prescription id reused by the dispense; dispensing a controlled drug needs the vet's approval",
            "an appointment booking that timed out, settled by status query"],
           "A veterinary nurse asks the agent to prepare a prescription and recheck for a referred dog.", window, "call_")
    dog = rng.choice(["Biscuit", "Nala", "Rolo", "Juno", "Pepper"])
    chip = f"{rng.randint(900, 985)}{rng.randint(100000000000, 999999999999)}"
    phone = f"+44 7{rng.randint(100, 999)} {rng.randint(100000, 999999)}"
    vetname = f"Dr {rng.choice(LAST)}"
    s0 = b.user(f"{dog} came in on referral, chip {chip}. Owner's mobile {phone}. {vetname} wants meloxicam dosed on "
                f"today's weight, not the referral's. Texts to the owner only between 09:00 and 19:00.",
                constraint=["dosed on today's weight", "between 09:00 and 19:00"], why="clinic instructions")
    b.constraint(s0, chip, "microchip typed once")

    def filler(b):
        if rng.random() < 0.5:
            smalltalk(b, rng, [("waiting room is packed, no rush", "OK."),
                               ("can you also check if his vaccines are due", "Booster due in 5 months."),
                               ("owner asked about pet insurance forms", "I'll note it on the file.")])
        else:
            c = b.call("patient_find", {"name": rng.choice(["Max", "Bella", "Luna"])})
            b.ok(c, {"matches": rng.randint(2, 9)})
    b.filler = filler
    b.bulk_spec = ("patient_find", {"name": "*", "seen": "today"},
                   lambda: f"PT-{rng.randint(10000, 99999)}  {rng.choice(['Max', 'Bella', 'Luna', 'Milo', 'Coco'])}  {rng.choice(['Labrador', 'Collie', 'Cat DSH', 'Rabbit'])}  {rng.choice(['vaccines', 'dental', 'lameness', 'check-up'])}")
    n = 8 if long else 3
    rows, pids = [], [f"PT-{rng.randint(10000, 99999)}" for _ in range(n)]
    me = rng.randrange(n)
    for j in range(n):
        rows.append(f"{pids[j]}  {dog if j == me else rng.choice([dog, 'Bella', 'Milo'])}  "
                    f"{'chip ' + chip if j == me else 'chip ' + str(rng.randint(900, 985)) + str(rng.randint(10 ** 11, 10 ** 12 - 1))}  "
                    f"{rng.choice(['Labrador', 'Collie', 'Spaniel'])}")
    c = b.call("patient_find", {"name": dog})
    b.ok(c, {"matches": n}, log="\n".join(rows), evidence="search list: the patient with the typed chip")
    pid = pids[me]
    b.pad(0.25)
    c = b.dcall("ref", "referral_get", {"patient_id": pid}, ["patient_id"], why="patient id from the search list")
    w1 = f"{rng.randint(24, 34)}.{rng.randint(0, 9)}"
    b.ok(c, {"patient_id": pid, "weight_kg": w1, "referring_practice": rng.choice(["Vale Vets", "Harbour Animal Hospital"])})
    b.pad(0.45)
    c = b.dcall("weigh", "weight_history", {"patient_id": pid, "last": "1"}, ["patient_id"])
    w2 = f"{float(w1) - rng.randint(15, 35) / 10:.1f}"
    b.ok(c, {"patient_id": pid, "weight_kg": w2, "measured": "today 10:12, clinic scale 2"})
    b.watch("weight_kg", f"patient_id={pid}", "today's weight")
    dose = f"{float(w2) * 0.1:.2f} mg"
    c = b.dcall("rx", "rx_create", {"patient_id": pid, "drug": "meloxicam", "dose": dose, "weight_kg": w2},
                {"patient_id": pid, "weight_kg": w2}, why="dose on today's weight")
    rx = f"RX-{rng.randint(100000, 999999)}"
    b.ok(c, {"rx_id": rx}, rid=f"v{hexid(rng, 6)}")
    b.watch("rx_id", f"patient_id={pid}")
    b.pad(0.6)
    idem = f"appt-{pid.lower()}-{hexid(rng, 4)}"
    c = b.dcall("appt", "appointment_book", {"patient_id": pid, "when": "in 14 days", "vet": vetname}, ["vet"], idem=idem)
    b.timeout(c)
    b.pad(0.72)
    b.decide("appt-unknown", [{"probe": "pending", "call_id": c}])
    b.sq(c, "succeeded", {"appointment_id": f"AP-{rng.randint(1000, 9999)}"})
    c = b.dcall("sms", "owner_sms", {"patient_id": pid, "to": phone, "text": "Recheck booked in 14 days", "send_after": "09:00"},
                ["to"], why="phone typed by the nurse")
    b.ok(c, {"queued": True})
    if long:
        s_ask = b.asst(f"{vetname} also wants buprenorphine for tonight. Dispense under {rx}?")
        aid = f"cd-{pid.lower()}"
        b.approval(aid, "requested", s_ask, subject=f"patient_id={pid}")
        b.pad(0.9)
        b.decide("cd-wait", [{"probe": "pending", "approval_id": aid}])
        s_ok = b.user(f"{vetname} signed the CD register, go ahead.")
        b.approval(aid, "granted", s_ok, subject=f"patient_id={pid}")
        c = b.dcall("dispense", "controlled_drug_dispense", {"patient_id": pid, "rx_id": rx, "drug": "buprenorphine"}, ["rx_id"])
        b.ok(c, {"dispensed": True, "register_line": str(rng.randint(100, 900))}, rid=f"v{hexid(rng, 6)}")
    b.pad(1.0)
    b.decide("end", [], n=3)
    return b


# ==============================================================================================
# 10. utility billing
# ==============================================================================================

tool("account_get", "read", ["account_no"])
tool("meter_reads", "read", ["meter_id"])
tool("field_visit_get", "read", ["meter_id"])
tool("bill_recalc", "write", ["account_no"])
tool("credit_issue", "write", ["account_no"])
tool("bill_finalize", "irreversible", ["draft_id"])
tool("customer_email", "write", ["account_no"])


def utility(long, rng, window=None):
    b = mk("utility-billing", long, rng, "Re-billing an estimated electricity bill from a customer's own meter read",
           ["account number, meter read and e-mail typed by the customer once",
            "a draft id from bill_recalc used by bill_finalize much later",
            "the AMI feed and the field visit disagree on a meter read",
            "a credit that timed out and was settled by status query; finalising is irreversible"],
           "A billing agent handles a complaint about an estimated bill: verifies reads, recalculates, credits.",
           window, "call_")
    acct = f"{rng.randint(10, 99)}{rng.randint(100000, 999999)}"
    read = f"{rng.randint(10000, 99999):05d}"
    mail = email(rng, person(rng), rng.choice(["outlook.com", "proton.me", "yahoo.co.uk"]))
    s0 = b.user(f"My bill was estimated AGAIN. Account {acct}. I took a photo of the meter this morning: it reads {read}. "
                f"Please fix it and email me at {mail}. And don't put me on a payment plan, I can pay in full.",
                constraint=["don't put me on a payment plan", read], why="the customer's read and wishes")
    b.constraint(s0, mail, "e-mail typed once")

    def filler(b):
        if rng.random() < 0.5:
            c = b.call("account_get", {"account_no": acct, "section": rng.choice(["contacts", "tariff", "payments"])})
            b.ok(c, {"section": "ok", "items": rng.randint(1, 6)})
        else:
            smalltalk(b, rng, [("how long will this take", "A few minutes."),
                               ("this is the third time this year", "I'm sorry — I'll add a note to stop estimates."),
                               ("is my direct debit affected", "No, it stays as it is.")])
    b.filler = filler
    b.bulk_spec = ("account_get", {"account_no": acct, "section": "transactions"},
                   lambda: f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}  {rng.choice(['DD payment', 'bill', 'adjustment', 'standing charge'])}  £{rng.randint(5, 240)}.{rng.randint(10, 99)}")
    c = b.call("account_get", {"account_no": acct})
    meter = f"M{rng.randint(1000000, 9999999)}"
    b.ok(c, {"account": {"account_no": acct, "meter_id": meter, "tariff": "Standard Variable", "balance": f"£{rng.randint(80, 400)}.{rng.randint(10, 99)}"}})
    b.watch("meter_id", f"account_no={acct}")
    b.pad(0.2)
    n = 12 if long else 4
    base = int(read) - rng.randint(800, 2000)
    lines = [f"2024-{m:02d}-01  {base + k * rng.randint(150, 300):05d}  {'E' if k == n - 1 else 'A'}" for k, m in enumerate(range(1, n + 1))]
    c = b.dcall("reads", "meter_reads", {"meter_id": meter, "months": str(n)}, ["meter_id"], why="meter id from the account")
    b.ok(c, {"meter_id": meter, "count": n}, log="date        read   type(A=actual,E=estimate)\n" + "\n".join(lines),
         evidence="read history: the last read is an estimate")
    b.pad(0.35)
    ami = f"{int(read) - rng.randint(3, 40):05d}"
    c = b.call("meter_reads", {"meter_id": meter, "source": "AMI", "latest": "1"})
    b.ok(c, {"meter_id": meter, "latest_read": ami, "source": "AMI"})
    if long:
        b.pad(0.5)
        c = b.dcall("visit", "field_visit_get", {"meter_id": meter}, ["meter_id"])
        b.ok(c, {"meter_id": meter, "latest_read": read, "visit": "today 08:40", "tech": person(rng)})
        b.asst(f"The field visit today matches the customer's photo ({read}); the AMI figure {ami} is from before the visit.")
        b.watch("latest_read", f"meter_id={meter}")
    c = b.dcall("recalc", "bill_recalc", {"account_no": acct, "closing_read": read}, ["account_no", "closing_read"],
                why="the customer's read")
    draft = f"DR-{rng.randint(100000, 999999)}"
    b.ok(c, {"draft_id": draft, "new_total": f"£{rng.randint(60, 200)}.{rng.randint(10, 99)}", "difference": f"-£{rng.randint(20, 90)}.00"})
    b.watch("draft_id", f"account_no={acct}")
    b.pad(0.62)
    idem = f"cr-{acct}-{hexid(rng, 6)}"
    amt = f"{rng.randint(10, 40)}.00"
    c = b.dcall("credit", "credit_issue", {"account_no": acct, "amount": amt, "reason": "estimated bill"},
                ["account_no"], idem=idem)
    b.timeout(c)
    b.pad(0.75)
    b.decide("credit-unknown", [{"probe": "tool_state", "idempotency_key": idem, "status": "unknown"}])
    b.sq(c, "succeeded", {"credit_ref": f"CRD-{rng.randint(1000, 9999)}", "amount": amt})
    s_ask = b.asst(f"Draft {draft} is ready to finalise; once finalised it goes to the customer and can't be changed. Proceed?")
    aid = f"fin-{draft.lower()}"
    b.approval(aid, "requested", s_ask, subject=f"draft_id={draft}")
    b.pad(0.85)
    b.decide("fin-wait", [{"probe": "pending", "approval_id": aid}])
    s_ok = b.user("Supervisor here, approved.")
    b.approval(aid, "granted", s_ok, subject=f"draft_id={draft}")
    c = b.dcall("finalize", "bill_finalize", {"draft_id": draft}, ["draft_id"], why="draft id from bill_recalc")
    b.ok(c, {"bill_id": f"B-{rng.randint(100000, 999999)}"}, rid=f"u{hexid(rng, 6)}")
    c = b.dcall("email", "customer_email", {"account_no": acct, "to": mail, "template": "rebill"}, ["to"])
    b.ok(c, {"sent": True})
    b.pad(1.0)
    b.decide("end", [], n=3)
    return b


# ==============================================================================================
# 11. school timetabling
# ==============================================================================================

tool("timetable_get", "read", ["class_id"])
tool("room_free", "read", [])
tool("teacher_get", "read", ["teacher_id"])
tool("lesson_move", "write", ["lesson_id"])
tool("cover_request", "write", ["teacher_id"])
tool("timetable_publish", "irreversible", ["term"])
tool("parent_notice", "write", ["class_id"])


def timetable(long, rng, window=None):
    b = mk("school-timetabling", long, rng, "Moving lessons around a teacher's absence in a secondary school timetable",
           ["the deputy head's rules (no double maths on Friday, a teacher's Tuesday start) stated once",
            "lesson ids and room codes from a long timetable listing used by lesson_move later",
            "the HR record and the timetable disagree on a teacher's contract hours",
            "a lesson move that timed out; publishing the timetable is irreversible and pending"],
           "A deputy head asks the agent to rearrange lessons while a maths teacher is on leave.", window, "tc_")
    cls = rng.choice(["9B", "10C", "8A", "11D"])
    t_abs = f"T{rng.randint(100, 999)}"
    t_ok = rng.choice(["Mr Okafor", "Ms Lindqvist", "Mrs Haddad"])
    term = rng.choice(["2025-spring", "2025-autumn", "2026-spring"])
    s0 = b.user(f"Teacher {t_abs} is on leave for two weeks from Monday. Rearrange {cls}'s maths. Rules: no double maths "
                f"for {cls} on Friday; {t_ok} can't teach before 10:00 on Tuesdays. Term code is {term}.",
                constraint=[f"no double maths for {cls} on Friday", "before 10:00 on Tuesdays"], why="deputy head's rules")
    b.constraint(s0, term, "term code typed once")

    def filler(b):
        if rng.random() < 0.5:
            c = b.call("room_free", {"day": rng.choice(["Mon", "Wed", "Thu"]), "period": str(rng.randint(1, 6))})
            b.ok(c, {"free": rng.randint(0, 6)})
        else:
            smalltalk(b, rng, [("The science block is closed Wednesday afternoon.", "Noted, avoiding S-rooms on Wednesday."),
                               ("Is the cover budget OK?", "Two cover periods so far."),
                               ("Year 11 mocks start the week after.", "I'll keep their rooms free.")])
    b.filler = filler
    b.bulk_spec = ("room_free", {"day": "all", "period": "all"},
                   lambda: f"{rng.choice(['M', 'E', 'S', 'H', 'L'])}{rng.randint(1, 20)}  {rng.choice(['Mon', 'Tue', 'Wed', 'Thu', 'Fri'])}-{rng.randint(1, 6)}  free  cap {rng.randint(20, 32)}")
    days = ["Mon", "Tue", "Wed", "Thu", "Fri"]
    n = 15 if long else 5
    lessons = []
    for j in range(n):
        lid = f"L{rng.randint(10000, 99999)}"
        subj = "Maths" if j % 3 == 0 else rng.choice(["English", "Science", "History", "French", "PE"])
        teacher = t_abs if subj == "Maths" else f"T{rng.randint(100, 999)}"
        lessons.append((lid, days[j % 5], str(1 + j % 6), subj, teacher, f"{rng.choice(['M', 'E', 'S', 'H'])}{rng.randint(1, 20)}"))
    c = b.call("timetable_get", {"class_id": cls, "week": "A"})
    b.ok(c, {"class_id": cls, "lessons": n}, log="\n".join("  ".join(l) for l in lessons),
         evidence="the class timetable: which lessons are the absent teacher's")
    maths = [l for l in lessons if l[4] == t_abs]
    b.pad(0.3)
    c = b.call("teacher_get", {"teacher_id": t_abs})
    b.ok(c, {"teacher_id": t_abs, "contract_hours": "0.8 FTE", "leave_until": "in 2 weeks"})
    if long:
        b.pad(0.4)
        c = b.call("timetable_get", {"class_id": cls, "teacher_id": t_abs, "view": "staff"})
        b.ok(c, {"teacher_id": t_abs, "contract_hours": "1.0 FTE", "periods_per_week": "22"})
        b.asst("HR says 0.8 FTE but the timetable system has them at 1.0 FTE; flagging for the deputy.")
        b.watch("contract_hours", None)
    for i, l in enumerate(maths[:3] if long else maths[:1]):
        idem = f"mv-{l[0].lower()}-{hexid(rng, 4)}"
        c = b.dcall(f"move-{i}", "lesson_move", {"lesson_id": l[0], "to_day": "Thu", "to_period": "4", "teacher_id": "COVER"},
                    ["lesson_id"], idem=idem, why="lesson id from the long listing")
        if i == 0:
            b.timeout(c)
            b.pad(0.55)
            b.decide("move-unknown", [{"probe": "pending", "call_id": c}])
            b.sq(c, "succeeded", {"lesson_id": l[0], "slot": "Thu-4"})
        else:
            b.ok(c, {"lesson_id": l[0], "slot": "Thu-4"}, rid=f"tt{hexid(rng, 5)}")
        b.pad(0.55 + 0.15 * (i + 1) / 3)
    c = b.dcall("cover", "cover_request", {"teacher_id": t_abs, "weeks": "2", "class_id": cls}, ["teacher_id", "class_id"])
    b.ok(c, {"cover_id": f"CV-{rng.randint(100, 999)}"})
    c = b.dcall("notice", "parent_notice", {"class_id": cls, "term": term, "text": "Temporary maths changes"}, ["term"])
    b.ok(c, {"sent": rng.randint(20, 32)})
    s_ask = b.asst(f"Shall I publish the {term} timetable with these changes? Publishing pushes to every student's app.")
    aid = f"pub-{term}"
    b.approval(aid, "requested", s_ask, subject=f"term={term}")
    b.pad(1.0)
    b.decide("publish-wait", [{"probe": "pending", "approval_id": aid}], n=4)
    return b


# ==============================================================================================
# 12. sports league scheduling
# ==============================================================================================

tool("fixtures_list", "read", ["division"])
tool("venue_get", "read", ["venue_id"])
tool("club_report_get", "read", ["venue_id"])
tool("fixture_reschedule", "write", ["fixture_id"])
tool("referee_assign", "write", ["fixture_id"])
tool("league_publish", "irreversible", ["division"])
tool("club_email", "write", ["club_id"])


def league(long, rng, window=None):
    b = mk("league-scheduling", long, rng, "Rescheduling waterlogged fixtures in an amateur football league",
           ["a referee's id and a fallback date typed by the fixtures secretary",
            "fixture ids from a long fixture list used by reschedule and referee tools later",
            "the venue system and the club's report disagree on pitch status",
            "a reschedule that timed out and turned out not performed; publishing is irreversible"],
           "A fixtures secretary asks the agent to move fixtures off a waterlogged pitch and republish the division.",
           window, "call_")
    div = rng.choice(["Sunday Div 2", "Saturday Premier", "Vets Div 1"])
    divid = div.lower().replace(" ", "-")
    ref = f"REF-{rng.randint(1000, 9999)}"
    fallback = f"2025-0{rng.randint(2, 4)}-{rng.randint(10, 28)}"
    s0 = b.user(f"Rain again. Anything at Hollins Park in {div} this weekend needs moving to {fallback}. If you need a "
                f"referee, {ref} is free that day. Don't publish the division until both clubs confirm.",
                constraint=["until both clubs confirm", fallback], why="secretary's instructions")
    b.constraint(s0, ref, "referee id typed once")

    def filler(b):
        if rng.random() < 0.5:
            c = b.call("venue_get", {"venue_id": f"VEN-{rng.randint(10, 99)}"})
            b.ok(c, {"venue": {"pitches": rng.randint(1, 4), "floodlit": rng.choice(["yes", "no"])}})
        else:
            smalltalk(b, rng, [("the committee meets thursday", "I'll have a summary ready."),
                               ("Rovers always complain, ignore the tone", "Understood."),
                               ("is the cup draw affected", "No, cup ties are at other venues.")])
    b.filler = filler
    b.bulk_spec = ("fixtures_list", {"division": divid, "weekend": "season"},
                   lambda: f"FX-{rng.randint(10000, 99999)}  {rng.choice(['Rovers', 'Athletic', 'Town', 'United'])} v {rng.choice(['Albion', 'Harriers', 'Villa'])}  {rng.randint(0, 5)}-{rng.randint(0, 5)}  played")
    n = 14 if long else 5
    hp = "VEN-HP1"
    fx = []
    for j in range(n):
        fid = f"FX-{rng.randint(10000, 99999)}"
        home = rng.choice(["Rovers", "Athletic", "Wanderers", "United", "Celtic", "Town"]) + f" {rng.choice(['FC', 'AFC', 'Res'])}"
        venue = hp if j in (1, n - 2) else f"VEN-{rng.randint(10, 99)}"
        fx.append((fid, home, rng.choice(["Albion", "Harriers", "Villa", "City"]), venue, "Sun 10:30"))
    c = b.call("fixtures_list", {"division": divid, "weekend": "this"})
    b.ok(c, {"division": divid, "count": n}, log="\n".join("  ".join(f) for f in fx), evidence="fixture list: the Hollins Park games")
    moving = [f for f in fx if f[3] == hp]
    b.pad(0.3)
    c = b.dcall("venue", "venue_get", {"venue_id": hp}, ["venue_id"])
    b.ok(c, {"venue_id": hp, "pitch_status": "playable", "inspected": "Thursday"})
    b.watch("pitch_status", f"venue_id={hp}")
    if long:
        b.pad(0.45)
        c = b.call("club_report_get", {"venue_id": hp})
        b.ok(c, {"venue_id": hp, "pitch_status": "waterlogged", "reported_by": "groundsman", "photos": "3"})
        b.asst("The groundsman reports waterlogged today; the venue record is from Thursday. Moving both games.")
    for i, f in enumerate(moving if long else moving[:1]):
        idem = f"rs-{f[0].lower()}-{hexid(rng, 4)}"
        c = b.dcall(f"move-{i}", "fixture_reschedule", {"fixture_id": f[0], "date": fallback, "venue_id": hp},
                    ["fixture_id", "date"], idem=idem, why="fixture id from the list, date typed by the secretary")
        if i == 0:
            b.timeout(c)
            b.pad(0.6)
            b.decide("rs-unknown", [{"probe": "tool_state", "idempotency_key": idem, "status": "unknown"}])
            b.sq(c, "not_performed")
            b.asst("The first reschedule was not performed; retrying with a fresh key.")
            c = b.call("fixture_reschedule", {"fixture_id": f[0], "date": fallback, "venue_id": hp},
                       idem=f"rs-{f[0].lower()}-{hexid(rng, 4)}")
        b.ok(c, {"fixture_id": f[0], "date": fallback}, rid=f"lg{hexid(rng, 6)}")
        c = b.dcall(f"ref-{i}", "referee_assign", {"fixture_id": f[0], "referee_id": ref}, ["referee_id"],
                    why="referee id typed by the secretary")
        b.ok(c, {"assigned": True})
        club = f"CLB-{rng.randint(100, 999)}"
        c = b.call("club_email", {"club_id": club, "fixture_id": f[0], "text": f"Moved to {fallback}"})
        b.ok(c, {"sent": True})
        b.pad(0.7 + 0.15 * (i + 1) / 2)
    s_ask = b.asst(f"Both moves are in. Publish {div} now?")
    aid = f"pub-{divid}"
    b.approval(aid, "requested", s_ask, subject=f"division={divid}")
    b.pad(1.0)
    b.decide("publish-wait", [{"probe": "pending", "approval_id": aid}], n=4)
    return b


# ==============================================================================================
# 13. real-estate listings
# ==============================================================================================

tool("listing_get", "read", ["listing_id"])
tool("mls_record_get", "read", ["listing_id"])
tool("comps_search", "read", [])
tool("photo_upload_session", "write", ["listing_id"])
tool("photo_commit", "write", ["upload_token"])
tool("price_change", "write", ["listing_id"])
tool("listing_syndicate", "irreversible", ["listing_id"])


def realestate(long, rng, window=None):
    b = mk("realestate-listing", long, rng, "Refreshing a house listing: photos, price, syndication",
           ["a new asking price and the seller's agent licence typed once",
            "an upload token from one tool committed by another many turns later",
            "the listing and the MLS record disagree on square footage",
            "a long comps list where one comparable matters; a price change approved, syndication pending"],
           "A listing agent asks the agent to refresh a listing with new photos and a price cut.", window, "call_")
    lid = f"LST-{rng.randint(100000, 999999)}"
    price = rng.choice(["$749,000", "$1,185,000", "$512,500"])
    lic = f"DRE#{rng.randint(1000000, 9999999)}"
    s0 = b.user(f"Listing {lid}: new photos are ready and the sellers agreed to drop to {price}. My licence for the "
                f"disclosures is {lic}. Don't syndicate to the portals until the sellers sign the price addendum.",
                constraint=["until the sellers sign the price addendum", price], why="agent's instructions")
    b.constraint(s0, lic, "licence typed once")

    def filler(b):
        if rng.random() < 0.5:
            c = b.call("listing_get", {"listing_id": lid, "section": rng.choice(["showings", "leads"])})
            b.ok(c, {"count": rng.randint(0, 12)})
        else:
            smalltalk(b, rng, [("open house sunday 1-3", "Noted for the listing remarks."),
                               ("sellers are anxious, keep it quick", "Will do."),
                               ("the HOA docs arrived", "Great, I'll attach them later.")])
    b.filler = filler
    b.bulk_spec = ("comps_search", {"listing_id": lid, "radius_mi": "2"},
                   lambda: f"{rng.randint(10, 999)} {rng.choice(['Maple', 'Pine', 'Walnut'])} {rng.choice(['St', 'Ave', 'Way'])}  {rng.randint(1200, 3800)} sqft  ${rng.randint(400, 1400)},000  {rng.choice(['sold', 'active', 'expired'])}")
    c = b.call("listing_get", {"listing_id": lid})
    sq1 = rng.randint(1600, 3200)
    b.ok(c, {"listing": {"listing_id": lid, "sqft": sq1, "list_price": "$799,000", "status": "active"}})
    b.watch("sqft", f"listing_id={lid}")
    c = b.dcall("upload", "photo_upload_session", {"listing_id": lid, "count": "24"}, ["listing_id"])
    tok = f"upl_{hexid(rng, 16)}"
    b.ok(c, {"upload_token": tok, "expires_in": "2h"})
    b.watch("upload_token", f"listing_id={lid}")
    b.pad(0.3)
    n = 12 if long else 4
    comps = [f"{rng.randint(10, 999)} {rng.choice(['Oak', 'Elm', 'Birch', 'Cedar'])} {rng.choice(['St', 'Ave', 'Ct'])}  "
             f"{rng.randint(1500, 3300)} sqft  ${rng.randint(480, 1300)},000  {rng.choice(['sold', 'pending', 'expired'])}  "
             f"{rng.randint(3, 90)} DOM" for _ in range(n)]
    pick = rng.randrange(n)
    comps[pick] += "  <- same floor plan, sold last month"
    c = b.call("comps_search", {"listing_id": lid, "radius_mi": "0.5"})
    b.ok(c, {"count": n}, log="\n".join(comps), evidence="comps list: the same-floor-plan sale")
    if long:
        b.pad(0.45)
        c = b.call("mls_record_get", {"listing_id": lid})
        b.ok(c, {"listing_id": lid, "sqft": sq1 - rng.randint(60, 240), "source": "county assessor"})
        b.asst("The MLS record uses the assessor's square footage, smaller than our listing; I'll note it in the remarks.")
        b.pad(0.55)
    c = b.dcall("commit", "photo_commit", {"upload_token": tok, "cover": "IMG_0001.jpg"}, ["upload_token"],
                why="upload token from photo_upload_session")
    b.ok(c, {"photos": 24, "committed": True})
    s_ask = b.asst(f"Ready to change the price to {price}. Confirm?")
    aid = f"price-{lid.lower()}"
    b.approval(aid, "requested", s_ask, subject=f"listing_id={lid}")
    b.pad(0.65)
    b.decide("price-wait", [{"probe": "pending", "approval_id": aid}])
    s_ok = b.user("Confirmed.")
    b.approval(aid, "granted", s_ok, subject=f"listing_id={lid}")
    idem = f"pc-{lid.lower()}-{hexid(rng, 4)}"
    c = b.dcall("price", "price_change", {"listing_id": lid, "new_price": price, "agent_licence": lic}, ["new_price", "agent_licence"],
                idem=idem)
    if long:
        b.timeout(c)
        b.pad(0.78)
        b.decide("price-unknown", [{"probe": "tool_state", "call_id": c, "status": "unknown"}])
        b.sq(c, "succeeded", {"list_price": price})
    else:
        b.ok(c, {"list_price": price}, rid=f"re{hexid(rng, 6)}")
    b.watch("list_price", f"listing_id={lid}")
    s2 = b.asst("Shall I syndicate to the portals once the addendum is signed?")
    aid2 = f"synd-{lid.lower()}"
    b.approval(aid2, "requested", s2, subject=f"listing_id={lid}")
    b.pad(1.0)
    b.decide("synd-wait", [{"probe": "pending", "approval_id": aid2}], n=4)
    return b


# ==============================================================================================
# 14. translation job management
# ==============================================================================================

tool("tjob_get", "read", ["job_id"])
tool("tm_search", "read", [])
tool("glossary_lookup", "read", ["client_code"])
tool("linguist_assign", "write", ["job_id"])
tool("qa_check", "write", ["job_id"])
tool("tjob_deliver", "irreversible", ["job_id"])
tool("invoice_draft", "write", ["job_id"])


def translation(long, rng, window=None):
    b = mk("translation-jobs", long, rng, "Running a German software-localisation job to delivery",
           ["the client's terminology rule, PO and deadline typed once by the project manager",
            "a linguist id from a long availability list; a QA report id used at delivery",
            "the job record and the client portal disagree on the word count",
            "an assignment that timed out; delivery is irreversible and approved"],
           "A localisation PM asks the agent to staff, QA and deliver an EN>DE job.", window, "call_")
    job = f"TJ-{rng.randint(10000, 99999)}"
    po = f"PO{rng.randint(4500000000, 4599999999)}"
    client = rng.choice(["KLM-SW", "ZEISS-DOC", "BOSCH-APP"])
    deadline = f"2025-0{rng.randint(3, 9)}-{rng.randint(10, 28)} 17:00 CET"
    s0 = b.user(f"Job {job} for client {client}, PO {po}. Deadline {deadline}. The client insists on 'Kundennummer', never "
                f"'Kundenummer' — check that in QA. Only assign linguists with the medical-device badge.",
                constraint=["never 'Kundenummer'", "medical-device badge"], why="PM's rules")
    b.constraint(s0, po, "PO typed once")

    def filler(b):
        if rng.random() < 0.5:
            c = b.call("tm_search", {"query": rng.choice(["Einstellungen", "Warenkorb", "Abmelden"]), "client_code": client})
            b.ok(c, {"hits": rng.randint(1, 30)}, log=None if not long else "\n".join(
                f"{rng.randint(70, 100)}%  {code(rng, 10, AL)} -> {code(rng, 10, AL)}" for _ in range(8)))
        else:
            smalltalk(b, rng, [("client asked if we can do FR too", "I'll scope it after this delivery."),
                               ("keep me posted", "Will do."),
                               ("the source files changed once already", "I'm on the latest package.")])
    b.filler = filler
    b.bulk_spec = ("tm_search", {"query": "*", "client_code": client, "min_match": "75"},
                   lambda: f"{rng.randint(75, 100)}%  seg{rng.randint(1000, 9999)}  {rng.choice(['Speichern', 'Kundennummer', 'Abbrechen'])}")
    c = b.call("tjob_get", {"job_id": job})
    wc = rng.randint(8000, 30000)
    b.ok(c, {"job": {"job_id": job, "words": wc, "pair": "en-DE", "files": "14"}})
    b.watch("words", f"job_id={job}")
    b.pad(0.2)
    n = 12 if long else 4
    ling = [f"LG-{rng.randint(100, 999)}" for _ in range(n)]
    ok = rng.randrange(n)
    rows = [f"{ling[j]}  {person(rng)}  {'medical-device' if j == ok else rng.choice(['legal', 'marketing', 'none'])}  "
            f"{rng.randint(0, 6000)} words/day free" for j in range(n)]
    c = b.call("linguist_assign", {"job_id": job, "dry_run": "true"})
    b.ok(c, {"available": n}, log="\n".join(rows), evidence="availability list: the only badge holder")
    b.pad(0.35)
    if long:
        c = b.call("tjob_get", {"job_id": job, "source": "client-portal"})
        b.ok(c, {"job_id": job, "words": wc + rng.randint(500, 3000), "portal_sync": "today"})
        b.asst("The client portal counts more words than our job record; billing follows the portal.")
        b.pad(0.5)
    idem = f"as-{job.lower()}-{hexid(rng, 4)}"
    c = b.dcall("assign", "linguist_assign", {"job_id": job, "linguist_id": ling[ok], "due": deadline},
                ["linguist_id", "due"], idem=idem, why="linguist from the long list; deadline typed once")
    b.timeout(c)
    b.pad(0.6)
    b.decide("assign-unknown", [{"probe": "pending", "call_id": c}])
    b.sq(c, "succeeded", {"assignment": f"AS-{rng.randint(1000, 9999)}"})
    c = b.dcall("glossary", "glossary_lookup", {"client_code": client, "term": "customer number"}, ["client_code"])
    b.ok(c, {"term": "customer number", "target": "Kundennummer"})
    c = b.dcall("qa", "qa_check", {"job_id": job, "checks": "terminology,numbers,tags"}, ["job_id"])
    qa = f"QA-{rng.randint(10000, 99999)}"
    b.ok(c, {"qa_report": qa, "errors": "0", "warnings": str(rng.randint(1, 9))})
    b.watch("qa_report", f"job_id={job}")
    b.pad(0.8)
    s_ask = b.asst(f"QA clean ({qa}). Deliver {job} to the client now? Delivery can't be recalled.")
    aid = f"deliv-{job.lower()}"
    b.approval(aid, "requested", s_ask, subject=f"job_id={job}")
    b.pad(0.88)
    b.decide("deliver-wait", [{"probe": "pending", "approval_id": aid}])
    s_ok = b.user("go")
    b.approval(aid, "granted", s_ok, subject=f"job_id={job}")
    c = b.dcall("deliver", "tjob_deliver", {"job_id": job, "qa_report": qa}, ["qa_report"])
    b.ok(c, {"delivered": True}, rid=f"tr{hexid(rng, 6)}")
    c = b.dcall("invoice", "invoice_draft", {"job_id": job, "po": po}, ["po"], why="PO typed in the first message")
    b.ok(c, {"invoice": f"INV-{rng.randint(1000, 9999)}"})
    b.pad(1.0)
    b.decide("end", [], n=3)
    return b


# ==============================================================================================
# 15. energy trading desk
# ==============================================================================================

tool("position_get", "read", ["book"])
tool("clearing_report_get", "read", ["book"])
tool("curve_get", "read", ["product"])
tool("order_submit", "irreversible", ["product"])
tool("order_status", "read", ["order_ref"])
tool("nomination_submit", "write", ["delivery_day"])


def energy(long, rng, window=None):
    b = mk("energy-desk", long, rng, "Flattening a day-ahead power position within a trader's limit",
           ["a MW limit, price cap and counterparty code typed by the trader",
            "an order reference from order_submit queried later by order_status",
            "the ETRM and the clearing report disagree on the net position",
            "a nomination that timed out and was settled; orders need the trader's approval"],
           "A power trader asks the agent to flatten tomorrow's position on the exchange and nominate.", window, "call_")
    book = rng.choice(["DE-PWR-DA", "NL-PWR-DA", "FR-PWR-DA"])
    cap = f"{rng.randint(60, 140)}.50"
    limit = rng.choice(["25", "30", "40"])
    cp = f"CP-{code(rng, 3)}-{rng.randint(1000, 9999)}"
    day = f"2025-0{rng.randint(1, 9)}-{rng.randint(10, 28)}"
    s0 = b.user(f"Flatten {book} for {day}. Max {limit} MW per order, nothing above {cap} EUR/MWh. Nominate to "
                f"counterparty {cp} afterwards. Ask me before each order goes in.",
                constraint=[f"Max {limit} MW per order", "Ask me before each order goes in"], why="trader's limits")
    b.constraint(s0, cp, "counterparty typed once")

    def filler(b):
        if rng.random() < 0.5:
            c = b.call("curve_get", {"product": f"{book}-{rng.choice(['H08', 'H12', 'H18'])}"})
            b.ok(c, {"mid": f"{rng.randint(50, 150)}.{rng.randint(10, 99)}"},
                 log=None if not long else "\n".join(f"{h:02d}:00  {rng.randint(40, 160)}.{rng.randint(10, 99)}" for h in range(0, 24, 3)))
        else:
            smalltalk(b, rng, [("wind forecast just dropped", "Noted, prices may firm."),
                               ("risk wants a flat book by 11:30", "On track."),
                               ("don't bother with the intraday for now", "Day-ahead only.")])
    b.filler = filler
    b.bulk_spec = ("curve_get", {"product": f"{book}-intraday", "granularity": "15min"},
                   lambda: f"{rng.randint(0, 23):02d}:{rng.choice(['00', '15', '30', '45'])}  {rng.randint(30, 170)}.{rng.randint(10, 99)}  {rng.randint(50, 700)} MW")
    c = b.call("position_get", {"book": book, "delivery_day": day})
    pos = rng.randint(40, 90)
    b.ok(c, {"book": book, "net_position_mw": pos, "source": "ETRM"})
    b.watch("net_position_mw", f"book={book}")
    b.pad(0.2)
    if long:
        c = b.call("clearing_report_get", {"book": book, "delivery_day": day})
        pos = pos - rng.randint(5, 15)
        b.ok(c, {"book": book, "net_position_mw": pos, "report": "EEX clearing 06:00"})
        b.asst("Clearing shows a smaller long than the ETRM (a late trade is missing in the ETRM). I'll use clearing.")
        b.pad(0.35)
    hours = [f"{h:02d}:00  {rng.randint(40, 160)}.{rng.randint(10, 99)}  {rng.randint(100, 900)} MW bid depth" for h in range(24 if long else 8)]
    pk = rng.randrange(len(hours))
    hours[pk] = hours[pk].split("  ")[0] + f"  {float(cap) - 3:.2f}  1,240 MW bid depth  <- best"
    c = b.call("curve_get", {"product": f"{book}-baseload", "granularity": "hourly"})
    b.ok(c, {"product": f"{book}-baseload"}, log="\n".join(hours), evidence="hourly curve: the deepest hour under the cap")
    remaining = pos
    orders = []
    i = 0
    while remaining > 0 and i < (3 if long else 1):
        q = min(int(limit), remaining)
        s_ask = b.asst(f"Order {i + 1}: sell {q} MW {book} baseload at limit {cap}. OK?")
        aid = f"ord-{i + 1}-{hexid(rng, 4)}"
        b.approval(aid, "requested", s_ask, subject=f"book={book}")
        b.pad(0.4 + 0.3 * i / 3)
        b.decide(f"ord-wait-{i}", [{"probe": "pending", "approval_id": aid}])
        s_ok = b.user("ok" if i % 2 == 0 else "yes go")
        b.approval(aid, "granted", s_ok, subject=f"book={book}")
        c = b.dcall(f"order-{i}", "order_submit", {"product": f"{book}-baseload", "side": "sell", "mw": str(q), "limit": cap},
                    {"limit": cap}, why="price cap typed by the trader")
        ref = f"EX-{rng.randint(10000000, 99999999)}"
        b.ok(c, {"order_ref": ref, "accepted": True}, rid=f"x{hexid(rng, 6)}")
        orders.append(ref)
        remaining -= q
        i += 1
    b.pad(0.78)
    c = b.dcall("status", "order_status", {"order_ref": orders[0]}, ["order_ref"], why="order ref from order_submit")
    b.ok(c, {"order_ref": orders[0], "filled_mw": "partially", "state": "working"})
    idem = f"nom-{day}-{hexid(rng, 4)}"
    c = b.dcall("nominate", "nomination_submit", {"delivery_day": day, "counterparty": cp, "mw": str(pos)},
                ["counterparty"], idem=idem)
    b.timeout(c)
    b.pad(0.9)
    b.decide("nom-unknown", [{"probe": "tool_state", "idempotency_key": idem, "status": "unknown"}])
    b.sq(c, "succeeded", {"nomination_id": f"NOM-{rng.randint(1000, 9999)}"})
    b.pad(1.0)
    b.decide("end", [], n=3)
    return b


# ==============================================================================================
# 16. conference CFP
# ==============================================================================================

tool("submission_get", "read", ["submission_id"])
tool("reviews_list", "read", ["track"])
tool("decision_set", "write", ["submission_id"])
tool("speaker_contact_get", "read", ["submission_id"])
tool("schedule_slot_assign", "write", ["submission_id"])
tool("travel_grant_offer", "write", ["submission_id"])
tool("notify_authors", "irreversible", ["track"])


def cfp(long, rng, window=None):
    b = mk("conference-cfp", long, rng, "Closing a conference track's call for papers: decisions, slots, notifications",
           ["an acceptance cap and a reviewer conflict stated once by the track chair",
            "submission ids from a long review table used by decision and slot tools",
            "the submission record and the speaker profile disagree on the speaker's affiliation",
            "a slot assignment that timed out; notifying authors is irreversible and pending"],
           "A track chair asks the agent to finalise decisions for a CFP track and prepare notifications.", window, "call_")
    track = rng.choice(["data-eng", "security", "frontend", "mlops"])
    cap = rng.choice(["9", "8", "12"])
    conflicted = person(rng)
    room = rng.choice(["Room 2.14", "Hall B", "Auditorium 1"])
    s0 = b.user(f"Track {track}: accept at most {cap} talks. {conflicted} is conflicted on anything from their employer — "
                f"ignore their scores there. Slots go in {room}. Don't send notifications until the PC chair signs off.",
                constraint=[f"accept at most {cap} talks", "until the PC chair signs off"], why="chair's rules")
    b.constraint(s0, room, "room typed once")

    def filler(b):
        if rng.random() < 0.5:
            c = b.call("submission_get", {"submission_id": f"SUB-{rng.randint(100, 999)}", "fields": "title"})
            b.ok(c, {"title": rng.choice(["Scaling X", "Lessons from Y", "Zero to Z"]) + " " + code(rng, 3)})
        else:
            smalltalk(b, rng, [("how many are borderline?", "Three are within half a point of the cut."),
                               ("the keynote slot is fixed, leave it", "Leaving it."),
                               ("coffee break is 15:30", "Noted for the schedule.")])
    b.filler = filler
    b.bulk_spec = ("reviews_list", {"track": track, "sort": "reviewer"},
                   lambda: f"SUB-{rng.randint(100, 999)}  {person(rng)}  score {rng.randint(1, 5)}  conf {rng.randint(1, 5)}  {rng.choice(['clear', 'too narrow', 'great demo', 'needs data'])}")
    n = 14 if long else 5
    subs = [f"SUB-{rng.randint(100, 999)}" for _ in range(n)]
    star = rng.randrange(n)
    rows = [f"{subs[j]}  avg {rng.randint(20, 45) / 10:.1f}  {rng.randint(3, 5)} reviews  "
            f"{'STRONG ACCEPT, diversity grant requested' if j == star else rng.choice(['weak accept', 'borderline', 'reject'])}"
            for j in range(n)]
    c = b.call("reviews_list", {"track": track, "sort": "score"})
    b.ok(c, {"track": track, "count": n}, log="\n".join(rows), evidence="review table: the strong accept with a grant request")
    s = subs[star]
    b.pad(0.3)
    c = b.dcall("sub", "submission_get", {"submission_id": s}, ["submission_id"], why="id from the long review table")
    aff = rng.choice(["Acme Corp", "University of Tartu", "Helix Labs"])
    b.ok(c, {"submission": {"submission_id": s, "affiliation": aff, "format": "talk"}})
    b.watch("affiliation", f"submission_id={s}")
    if long:
        b.pad(0.45)
        c = b.call("speaker_contact_get", {"submission_id": s})
        b.ok(c, {"submission_id": s, "affiliation": rng.choice(["Northwind GmbH", "Independent"]), "email": email(rng, person(rng), "mail.org")})
        b.asst("The speaker profile has a newer affiliation than the submission; the program will print the profile's.")
        b.pad(0.55)
    c = b.dcall("decide", "decision_set", {"submission_id": s, "decision": "accept"}, ["submission_id"])
    b.ok(c, {"submission_id": s, "decision": "accept", "accepted_so_far": str(rng.randint(3, int(cap) - 1))}, rid=f"cf{hexid(rng, 6)}")
    idem = f"slot-{s.lower()}-{hexid(rng, 4)}"
    c = b.dcall("slot", "schedule_slot_assign", {"submission_id": s, "room": room, "slot": "Day 1 11:00"},
                ["room"], idem=idem, why="room typed by the chair")
    b.timeout(c)
    b.pad(0.65)
    b.decide("slot-unknown", [{"probe": "tool_state", "idempotency_key": idem, "status": "unknown"}])
    b.sq(c, "succeeded", {"slot": "Day 1 11:00", "room": room})
    c = b.dcall("grant", "travel_grant_offer", {"submission_id": s, "amount": "800.00", "currency": "EUR"}, ["submission_id"])
    b.ok(c, {"grant": f"TG-{rng.randint(100, 999)}"})
    s_ask = b.asst(f"All {track} decisions are set. Send notifications once the PC chair signs off?")
    aid = f"notify-{track}"
    b.approval(aid, "requested", s_ask, subject=f"track={track}")
    b.pad(1.0)
    b.decide("notify-wait", [{"probe": "pending", "approval_id": aid}], n=4)
    return b


SHORT_PLAN = [(monorepo, 512), (datalake, 1024), (archives, 1024), (printshop, 512), (genealogy, 512),
              (museum, 512), (fleet, 512), (wedding, 512), (vet, 256), (utility, 512), (timetable, 256),
              (league, 512), (realestate, 256), (translation, 512), (energy, 512), (cfp, 256)]
LONG_PLAN = [monorepo, datalake, archives, printshop, genealogy, museum, fleet, wedding, vet, utility, timetable,
             league, realestate, translation, energy, cfp]


CODAS = [("ok thanks — what's still open?", "Summarised above; the open items are listed in my last messages."),
         ("Thanks. Anything you need from me?", "Only the pending sign-off I asked about."),
         ("great, wrap it up for today", "Will do; nothing else is in flight on my side."),
         ("cheers", "You're welcome — I'll pick up from here next time.")]


def close(b, rng):
    """Every story ends with a short closing exchange and a last decision point."""
    b.coda(*rng.choice(CODAS))
