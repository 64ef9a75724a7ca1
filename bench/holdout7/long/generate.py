"""Writes the long part of holdout7 (the run's default 4,096-token window).  --check: exit 1 unless
the files on disk are what this writes (and lint + oracle are clean); --stats: counts per class,
events, tokens."""
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import h7domains  # noqa: E402
import h7lib  # noqa: E402

SEED = 7_0002


def build():
    out = []
    for i, story in enumerate(h7domains.LONG_PLAN):
        rng = random.Random(SEED * 1000 + i)
        b = story(True, rng)
        h7domains.close(b, rng)
        out.append(b)
    return out


if __name__ == "__main__":
    h7lib.main("long", build, HERE, ev_range=(120, 170))
