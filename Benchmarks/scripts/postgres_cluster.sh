# A throw-away PostgreSQL 15 cluster for the route-store benchmarks; sourced, not run:
#
#   . Benchmarks/scripts/postgres_cluster.sh
#   pg_start FOLDER PORT     # initdb + pg_ctl start, loopback only, default settings (fsync on)
#   pg_createdb NAME         # a database; its postgres:// URL is $(pg_url NAME)
#   pg_psql NAME -c 'SQL'    # psql, unaligned, as postgres
#   pg_stop                  # pg_ctl stop -m fast; the folder is removed, its log kept as FOLDER.log
#
# PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user (runuser) in a folder
# chowned to it. The cluster is the server's defaults apart from the port, the socket folder and
# listen_addresses=127.0.0.1: fsync, synchronous_commit and full_page_writes are on, so a commit waits for the
# disk. Put FOLDER on the disk (not /dev/shm) to measure what a durable store costs. Needs Debian's
# postgresql-15 and postgresql-15-postgis-3.
pg_bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
pg_cluster_dir=""
pg_cluster_port=""

pg_as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

pg_start() { # folder, port
  pg_cluster_dir=$1; pg_cluster_port=$2
  [ -x "$pg_bin/initdb" ] || { echo "no PostgreSQL 15 in $pg_bin: apt-get install postgresql-15 postgresql-15-postgis-3" >&2; return 1; }
  rm -rf "$pg_cluster_dir"; mkdir -p "$pg_cluster_dir"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$pg_cluster_dir"; fi
  pg_as_owner "$pg_bin/initdb" -D "$pg_cluster_dir/data" -U postgres --auth=trust -E UTF8 >"$pg_cluster_dir/initdb.log" 2>&1 \
    || { cat "$pg_cluster_dir/initdb.log" >&2; return 1; }
  pg_as_owner "$pg_bin/pg_ctl" -D "$pg_cluster_dir/data" -l "$pg_cluster_dir/pg.log" -w -t 60 \
    -o "-p $pg_cluster_port -k $pg_cluster_dir -c listen_addresses=127.0.0.1" start >/dev/null \
    || { cat "$pg_cluster_dir/pg.log" >&2; return 1; }
}

pg_stop() {
  [ -n "$pg_cluster_dir" ] && [ -d "$pg_cluster_dir/data" ] || return 0
  pg_as_owner "$pg_bin/pg_ctl" -D "$pg_cluster_dir/data" stop -m fast -w -t 60 >/dev/null 2>&1 || true
  cp "$pg_cluster_dir/pg.log" "$pg_cluster_dir.log" 2>/dev/null || true
  rm -rf "$pg_cluster_dir"
  pg_cluster_dir=""
}

pg_psql() { # database, psql arguments...
  local db=$1; shift
  psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_cluster_port" -U postgres -d "$db" "$@"
}

pg_createdb() { PGOPTIONS="-c client_min_messages=warning" pg_psql postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"; }

pg_url() { echo "postgres://postgres@127.0.0.1:$pg_cluster_port/$1?sslmode=disable"; }
