"""What a benchmark report says about the machine it ran on, and about the code it measured."""

from __future__ import annotations

import hashlib
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def met(ok: bool) -> str:
    return "met" if ok else "**MISSED**"


def code_state() -> str:
    """Which code is measured: the commit, and any uncommitted change to pgctx/, sql/, migrations/."""
    def git(*a: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True, check=True).stdout

    try:
        head = git("rev-parse", "--short", "HEAD").strip()
        dirty = [line[3:] for line in git("status", "--porcelain", "--", "pgctx", "sql", "migrations").splitlines()]
    except (OSError, subprocess.CalledProcessError):
        return f"{ROOT} (not a git checkout)"
    if not dirty:
        return f"commit {head}, no uncommitted change under pgctx/, sql/, migrations/"
    digest = hashlib.sha256()
    for name in sorted(dirty):
        path = ROOT / name
        digest.update(name.encode() + (path.read_bytes() if path.is_file() else b"-"))
    return (f"commit {head} plus uncommitted changes to {', '.join(sorted(dirty))} "
            f"(content sha256 {digest.hexdigest()[:12]})")
