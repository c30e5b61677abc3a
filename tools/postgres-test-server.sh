#!/usr/bin/env bash
# A throwaway PostgreSQL server for the store's tests: `start` makes a cluster in a new temporary
# folder, serves it on a Unix socket in that folder only (no TCP port, so it meets no other server
# on the machine) and prints the URL the tests take in HITTHAT_POSTGRES_URL; `stop FOLDER` stops it
# and removes the folder; `pause FOLDER` and `resume FOLDER` stop and start it, its data kept. The server binaries are Debian's (package postgresql), under
# /usr/lib/postgresql/VERSION/bin, which is not on the PATH.
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    echo "no PostgreSQL server binaries under /usr/lib/postgresql (Debian: apt-get install postgresql)" >&2
    exit 69
fi

# initdb refuses to run as root: as root, the server runs as the package's postgres user (or
# nobody where there is none), which owns the folder.
as=()
if [ "$(id -u)" = 0 ]; then
    owner=postgres
    id -u postgres >/dev/null 2>&1 || owner=nobody
    as=(runuser -u "$owner" --)
fi

# HITTHAT_POSTGRES_OPTIONS adds settings (e.g. "-c log_min_duration_statement=50" to see what is
# slow under load). fsync off: a test server's data is thrown away, and no test cuts its power; the tests kill the
# store's process, or stop the server cleanly, never cut the server's power.
start_server() {
    "${as[@]}" "$bin/pg_ctl" -D "$1/data" -l "$1/server.log" -w \
        -o "-k $1 -c listen_addresses= -c fsync=off -c max_connections=200 ${HITTHAT_POSTGRES_OPTIONS:-}" start >/dev/null
}

case "${1:-}" in
start)
    folder=$(mktemp -d /tmp/hitthat-postgres.XXXXXX)
    chmod 755 "$folder"
    [ ${#as[@]} -eq 0 ] || chown "$owner" "$folder"
    "${as[@]}" "$bin/initdb" -D "$folder/data" --auth=trust --username=hitthat --encoding=UTF8 --no-sync >"$folder/initdb.log"
    start_server "$folder"
    echo "postgres://hitthat@/postgres?host=$folder"
    ;;
pause)
    # The server down, its data kept: for tests of a store that loses its database.
    folder=${2:?usage: $0 pause FOLDER}
    "${as[@]}" "$bin/pg_ctl" -D "$folder/data" -m fast -w stop >/dev/null
    ;;
resume)
    start_server "${2:?usage: $0 resume FOLDER}"
    ;;
stop)
    folder=${2:?usage: $0 stop FOLDER}
    "${as[@]}" "$bin/pg_ctl" -D "$folder/data" -m immediate -w stop >/dev/null || true
    rm -rf "$folder"
    ;;
*)
    echo "usage: $0 start | pause FOLDER | resume FOLDER | stop FOLDER" >&2
    exit 64
    ;;
esac
