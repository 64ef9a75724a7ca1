"""Killing a real process at a chosen moment (the fault tests of the integrations)."""

from __future__ import annotations

import subprocess
import sys


def kill_when_it_says(line: str, script: str, *args: str) -> None:
    """Run ``python -c script args...``, wait for it to print ``line``, then SIGKILL it: it dies
    wherever it is, with no chance to clean up."""
    proc = subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == line
    finally:
        proc.kill()
        proc.wait(timeout=30)
