# Sourced by scripts/test and scripts/demo: make this checkout runnable on a fresh Debian/Ubuntu
# machine. Installs the PostgreSQL server binaries when none are present (and, for the test
# suite, pgbouncer, PostgreSQL 15's plpgsql_check and Citus), creates .venv and installs pgctx with its
# dev extra (again only when pyproject.toml changed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=()
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
    packages+=(postgresql)
fi
if [ "${PGCTX_SETUP_PGBOUNCER:-0}" = 1 ] && ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then
    packages+=(pgbouncer)
fi
# the extension tests/test_static_sql.py runs over the SQL, for the PostgreSQL 15 server in
# /usr/lib/postgresql/15 (the package depends on that server, so it comes along when missing)
if [ "${PGCTX_SETUP_PLPGSQL_CHECK:-0}" = 1 ] && [ ! -f /usr/share/postgresql/15/extension/plpgsql_check.control ]; then
    packages+=(postgresql-15-plpgsql-check)
fi
if [ "${#packages[@]}" -gt 0 ]; then
    echo "pgctx setup: installing Debian package(s) ${packages[*]} ..." >&2
    sudo_=""
    [ "$(id -u)" -eq 0 ] || sudo_="sudo"
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${packages[@]}" >/dev/null
    # the Debian packages start system services; pgctx runs its own throwaway servers, so stop
    # the ones just installed (and only those)
    for service in "${packages[@]}"; do
        $sudo_ service "$service" stop >/dev/null 2>&1 || true
    done
fi

# Citus for PostgreSQL 15, for the cluster tests (tests/test_citus.py), from the build kept beside
# the checkout (../shared/citus/, see its README) or where PGCTX_CITUS_INSTALL points; where there
# is none, or it cannot install, the cluster tests are skipped and say why
if [ "${PGCTX_SETUP_CITUS:-0}" = 1 ]; then
    citus_install="${PGCTX_CITUS_INSTALL:-$(cd .. && pwd)/shared/citus/install.sh}"
    if [ -f "$citus_install" ]; then
        sudo_=""
        [ "$(id -u)" -eq 0 ] || sudo_="sudo"
        $sudo_ bash "$citus_install" >&2 || echo "pgctx setup: Citus not installed ($citus_install failed)" >&2
    fi
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
