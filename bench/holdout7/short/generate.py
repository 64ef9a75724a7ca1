"""Writes the short part of holdout7 (small windows).  --check: exit 1 unless the files on disk are
what this writes (and lint + oracle are clean); --stats: counts per class, events, tokens."""
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import h7domains  # noqa: E402
import h7lib  # noqa: E402

SEED = 7_0001
WINDOWS = (256, 512, 1024)


def build():
    out = []
    for i, (story, window) in enumerate(h7domains.SHORT_PLAN):
        rng = random.Random(SEED * 1000 + i)
        b = story(False, rng, window)
        h7domains.close(b, rng)
        out.append(b)
    return out


if __name__ == "__main__":
    h7lib.main("short", build, HERE, ev_range=(10, 40), window_choices=WINDOWS)
