"""Generator of the held-out "services" trajectories (held-out set 2).

    cd /work/main && .venv/bin/python bench/holdout2/services/generate.py            # write the files
    cd /work/main && .venv/bin/python bench/holdout2/services/generate.py --check    # exit 1 if they differ
    cd /work/main && .venv/bin/python bench/holdout2/services/generate.py --stats    # the table

Deterministic: each trajectory uses its own seeded random.Random for filler variety.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "gen"))

MODULES = ["t01_trading", "t02_flights_hotels", "t03_messaging", "t04_vehicle", "t05_banking",
           "t06_shipping", "t07_insurance", "t08_funding_trades", "t09_trip_cars", "t10_seller_ops"]
CLASSES = ("fact", "tool_state", "next_call", "pending", "constraint", "evidence")
MAX_EVENT = 1500


def build_all():
    out = []
    for name in MODULES:
        mod = importlib.import_module(name)
        traj = mod.build()
        out.append((mod.FILENAME, traj))
    return out


def text_of(traj) -> str:
    return "\n".join(traj.lines()) + "\n"


def stats(built) -> list[tuple]:
    from pgctx.eventlog import event_tokens
    from pgctx.tokens import TokenCounter
    c = TokenCounter("o200k_base")
    rows = []
    for fname, t in built:
        evs = [s for s in t.steps if s["type"] == "event"]
        toks = [event_tokens(s["kind"], s["payload"], c) for s in evs]
        decs = [s for s in t.steps if s["type"] == "decision"]
        classes = Counter(p["probe"] for d in decs for p in d["probes"])
        rows.append((fname, t.header["id"], t.header.get("window", 4096), len(evs), sum(toks), max(toks),
                     len(decs), sum(classes.values()), classes))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--big", type=int, default=0, help="list events of at least this many tokens")
    a = ap.parse_args()
    built = build_all()
    if a.big:
        from pgctx.eventlog import event_tokens
        from pgctx.tokens import TokenCounter
        c = TokenCounter("o200k_base")
        for fname, t in built:
            for s in t.steps:
                if s["type"] == "event":
                    n = event_tokens(s["kind"], s["payload"], c)
                    if n >= a.big:
                        print(f"{fname} seq {s['seq']} {s['kind']} {s['payload'].get('call_id', '')} {n}")
        return 0
    ids = [t.header["id"] for _, t in built]
    assert len(ids) == len(set(ids)), "duplicate ids"
    if a.stats:
        rows = stats(built)
        head = f"{'file':34} {'id':30} {'window':>6} {'events':>6} {'tokens':>7} {'max_ev':>6} {'dec':>3} {'probes':>6}  " + \
            " ".join(f"{k[:10]:>10}" for k in CLASSES)
        print(head)
        tot = Counter()
        for r in rows:
            print(f"{r[0]:34} {r[1]:30} {r[2]:>6} {r[3]:>6} {r[4]:>7} {r[5]:>6} {r[6]:>3} {r[7]:>6}  " +
                  " ".join(f"{r[8][k]:>10}" for k in CLASSES))
            tot.update(r[8])
            problems = []
            if r[3] < 100: problems.append("fewer than 100 events")
            if r[4] < 15000: problems.append("fewer than 15,000 tokens")
            if r[5] > MAX_EVENT: problems.append("an event over 1,500 tokens")
            if not 5 <= r[6] <= 8: problems.append("decisions not 5-8")
            if not 18 <= r[7] <= 30: problems.append("probes not 18-30")
            if problems:
                print("   !! " + "; ".join(problems))
        print(f"{'total':34} {len(rows):>30} {'':>6} {sum(r[3] for r in rows):>6} {sum(r[4] for r in rows):>7} "
              f"{'':>6} {sum(r[6] for r in rows):>3} {sum(r[7] for r in rows):>6}  " +
              " ".join(f"{tot[k]:>10}" for k in CLASSES))
        return 0
    differ = []
    for fname, t in built:
        path = HERE / fname
        text = text_of(t)
        if a.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                differ.append(fname)
        else:
            path.write_text(text, encoding="utf-8")
    if a.check:
        expected = {f for f, _ in built}
        stray = sorted(p.name for p in HERE.glob("*.jsonl") if p.name not in expected)
        for f in differ:
            print(f"differs: {f}")
        for f in stray:
            print(f"not written by this generator: {f}")
        return 1 if differ or stray else 0
    print(f"wrote {len(built)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
