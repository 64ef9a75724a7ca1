"""The docs' examples run as written (issue 27, item 8): every ```python block of README.md and
docs/integrations.md, in order, as one script per file in a fresh interpreter, against a database of
its own (the examples' DSNs are the only text replaced), offline: the Agents SDK example runs on
the SDK's scripted model, the LangGraph one on LangChain's fake chat model."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from psycopg.conninfo import make_conninfo

from tests.conftest import drop_database, new_database

ROOT = Path(__file__).resolve().parent.parent
# the DSNs the examples are written with
DSNS = ('"dbname=app"', '"postgresql://app@db/agents"')


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), flags=re.S | re.M)


@pytest.mark.parametrize("doc", ["README.md", "docs/integrations.md"])
def test_the_examples_run_as_written(doc, server_dsn, tmp_path):
    blocks = python_blocks(ROOT / doc)
    assert blocks, f"no python example in {doc}"
    script = "\n".join(blocks)
    assert any(dsn in script for dsn in DSNS), "the examples' DSN changed: update DSNS"
    name = new_database(server_dsn)
    try:
        dsn = make_conninfo(server_dsn, dbname=name)
        for placeholder in DSNS:
            script = script.replace(placeholder, repr(dsn))
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    finally:
        drop_database(server_dsn, name)
    assert done.returncode == 0, done.stderr[-3000:]
