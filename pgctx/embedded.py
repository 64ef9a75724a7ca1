"""A throwaway local PostgreSQL for `pgctx demo`, the test suite and the benchmarks.

Built on testing.postgresql. initdb refuses to run as root, so when this process is root the
cluster's files are handed to an unprivileged OS user (``postgres``, else ``nobody``) and initdb
and the server run as that user through ``setpriv`` (which execs in place, so the pid
testing.postgresql signals on shutdown is the server's own).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
from pathlib import Path

import testing.postgresql


def find_bindir() -> Path:
    """The newest PostgreSQL server binaries on this machine."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    found.sort(key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    if found:
        return found[-1]
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise RuntimeError(
        "PostgreSQL server binaries (initdb, postgres) not found; install them, e.g. "
        "`apt-get install -y postgresql`, or pass --dsn to use an existing server"
    )


def _server_user() -> pwd.struct_passwd | None:
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root, and neither a 'postgres' nor a 'nobody' OS user exists to run initdb")


class EmbeddedPostgres(testing.postgresql.Postgresql):
    """testing.postgresql that also works as root. ``fsync=False`` trades durability for speed."""

    def __init__(self, *, fsync: bool = False, **kwargs):
        bindir = find_bindir()
        self._user = _server_user()
        args = "-h 127.0.0.1 -c logging_collector=off -c max_connections=200"
        if not fsync:
            args += " -F"
        kwargs.setdefault("initdb", str(bindir / "initdb"))
        kwargs.setdefault("postgres", str(bindir / "postgres"))
        kwargs.setdefault("initdb_args", "-U postgres -A trust -E UTF8 --locale=C --no-sync")
        kwargs.setdefault("postgres_args", args)
        self.bindir = bindir
        super().__init__(**kwargs)

    def _as_server_user(self, command: list[str]) -> list[str]:
        if self._user is None:
            return command
        return ["setpriv", f"--reuid={self._user.pw_uid}", f"--regid={self._user.pw_gid}", "--init-groups", *command]

    def initialize_database(self):
        data = os.path.join(self.base_dir, "data")
        if os.path.exists(os.path.join(data, "PG_VERSION")):
            return
        if self._user is not None:
            for root, dirs, _files in os.walk(self.base_dir):
                for name in [root, *(os.path.join(root, d) for d in dirs)]:
                    os.chown(name, self._user.pw_uid, self._user.pw_gid)
        command = [self.initdb, "-D", data, "--lc-messages=C", *self.settings["initdb_args"].split()]
        done = subprocess.run(self._as_server_user(command), capture_output=True)
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr.decode(errors='replace')}")

    def get_server_commandline(self):
        return self._as_server_user(super().get_server_commandline())

    def superuser_dsn(self, dbname: str = "postgres") -> str:
        params = self.dsn(database=dbname)
        return f"host={params['host']} port={params['port']} user={params['user']} dbname={dbname}"
