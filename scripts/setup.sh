# Sourced by scripts/test and scripts/demo: make this checkout runnable on a fresh Debian/Ubuntu
# machine. Installs the PostgreSQL server binaries when none are present, creates .venv and
# installs pgctx with its dev extra (again only when pyproject.toml changed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
    echo "pgctx setup: installing the PostgreSQL server (Debian package 'postgresql') ..." >&2
    sudo_=""
    [ "$(id -u)" -eq 0 ] || sudo_="sudo"
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq postgresql >/dev/null
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=".venv/.pgctx-installed-$(sha256sum pyproject.toml | cut -c1-16)"
if [ ! -f "$stamp" ]; then
    echo "pgctx setup: installing pgctx and its dependencies into .venv ..." >&2
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null
    .venv/bin/python -m pip install -q -e '.[dev]'
    rm -f .venv/.pgctx-installed-*
    touch "$stamp"
fi
