#!/usr/bin/env python3
"""Writes bench/holdout6/short/*.jsonl: 16 short trajectories (12-40 events), each in its own small
window (256, 512 or 1,024 tokens). Standard library only and deterministic.

    python3 generate.py           # (re)write the files
    python3 generate.py --check   # exit 1 unless the files are what this writes
    python3 generate.py --stats   # counts and tokens (pgctx's counter if importable, else an estimate)
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from domains import KITS, Scenario  # noqa: E402
from holdout_lib import main, rng  # noqa: E402

WINDOWS = [256, 512, 1024, 512, 1024, 256, 512, 1024, 256, 1024, 512, 256, 1024, 512, 256, 1024]
MIXES = [
    {"lookup": 3, "approval": 2, "ufact": 2, "constraint": 1, "restart": 1, "timeout": 1},
    {"lookup": 2, "noisy": 2, "contra": 2, "approval": 1, "chatter": 1, "timeout": 1, "guess": 1},
    {"lookup": 2, "irrev": 2, "ufact": 2, "constraint": 1, "restart": 1},
    {"lookup": 2, "restart": 2, "approval": 2, "chatter": 1, "noisy": 1},
    {"noisy": 2, "timeout": 2, "ufact": 1, "contra": 1, "irrev": 1, "guess": 1},
]
TOKENS = {256: (14, 450), 512: (16, 850), 1024: (18, 1900)}  # (min events, estimated tokens)
LOG_LINES = {256: (2, 3), 512: (3, 6), 1024: (12, 18)}


def build():
    out = []
    for i, kit in enumerate(KITS):
        r = rng(f"short:{kit['key']}")
        window = WINDOWS[i]
        # a bigger window holds a longer conversation; all of them overflow their window
        n_min, tokens = TOKENS[window]
        s = Scenario(kit, f"h6s-{kit['key']}", r, window=window, long=False, log_lines=LOG_LINES[window])
        mix = dict(MIXES[i % len(MIXES)])
        mix["timeout"] = mix.get("timeout", 0) + 1
        mix["restart"] = mix.get("restart", 0) + 1
        if window == 1024:
            mix["noisy"] = mix.get("noisy", 0) + 2
        # every short trajectory gets several different episode kinds before the weighted mix
        plan = r.sample(["approval", "ufact", "timeout", "restart", "contra", "guess", "irrev", "chatter"], 5)
        if window == 1024:
            plan = [x for pair in zip(plan, ["noisy"] * 5) for x in pair]
        out.append(s.build(n_min, plan=plan, every=r.randint(4, 6), per_decision=2, mix=mix,
                           token_target=tokens, max_events=34))
    return out


if __name__ == "__main__":
    sys.exit(main(build, HERE, 12, 40))
