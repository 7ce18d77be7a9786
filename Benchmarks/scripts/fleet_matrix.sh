#!/usr/bin/env bash
# Every store and fleet size of the fleet benchmark in one run (Docs/BENCHMARKS.md, "Live tracking for a fleet"):
# fleet_appends.sh with BATCH=100 for 2,000 and 10,000 vehicles in memory, SQLite and PostgreSQL, then 50,000 in
# memory. PostgreSQL: ADMIN_URL names a cluster where the user may create databases; each PostgreSQL run gets a
# fresh database "fleet_matrix" (with PostGIS), dropped first.
#
#   Benchmarks/scripts/fleet_matrix.sh postgresql://postgres@127.0.0.1:55432/postgres
#
# Environment: SIZES ("2000 10000"), BIG (50000; empty to skip), and what fleet_appends.sh reads.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: $0 ADMIN_URL" >&2; exit 2; }
admin=$1
export BATCH=${BATCH:-100}
fresh() {
  psql "$admin" -X -q -c "DROP DATABASE IF EXISTS fleet_matrix" -c "CREATE DATABASE fleet_matrix" >/dev/null
  psql "${admin%/*}/fleet_matrix" -X -q -c "CREATE EXTENSION IF NOT EXISTS postgis" >/dev/null
}
for n in ${SIZES:-2000 10000}; do
  Benchmarks/scripts/fleet_appends.sh "$n" memory
  Benchmarks/scripts/fleet_appends.sh "$n" sqlite
  fresh
  Benchmarks/scripts/fleet_appends.sh "$n" "postgres:${admin%/*}/fleet_matrix"
done
big=${BIG-50000}
[ -z "$big" ] || Benchmarks/scripts/fleet_appends.sh "$big" memory
