#!/usr/bin/env python3
"""Writes bench/holdout6/long/*.jsonl: 16 long trajectories (130-170 events, about 9,000-12,000
tokens) in the default 4,096-token window. Standard library only and deterministic.

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

MIXES = [
    {"lookup": 4, "noisy": 3, "approval": 2, "ufact": 2, "constraint": 1, "restart": 1, "timeout": 1,
     "contra": 1, "irrev": 1, "chatter": 1, "guess": 1},
    {"lookup": 3, "noisy": 3, "contra": 2, "approval": 2, "chatter": 2, "timeout": 2, "ufact": 1, "guess": 1},
    {"lookup": 3, "noisy": 2, "irrev": 2, "ufact": 3, "constraint": 1, "restart": 2, "approval": 1},
    {"lookup": 3, "noisy": 4, "restart": 2, "approval": 3, "chatter": 1, "contra": 1, "timeout": 1},
]
FORKS = {"release", "dns", "mltrain"}  # these three explore an alternative on a branch


def build():
    out = []
    for i, kit in enumerate(KITS):
        r = rng(f"long:{kit['key']}")
        s = Scenario(kit, f"h6l-{kit['key']}", r, window=None, long=True, log_lines=(22, 36))
        out.append(s.build(132, every=r.randint(13, 15), per_decision=3, mix=MIXES[i % len(MIXES)],
                           token_target=r.randint(7200, 8300), max_events=156,
                           fork_at=0.55 if kit["key"] in FORKS else None))
    return out


if __name__ == "__main__":
    sys.exit(main(build, HERE, 130, 170))
