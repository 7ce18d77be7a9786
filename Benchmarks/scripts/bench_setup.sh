# The set-up the benchmark scripts share; sourced, not run, from the repository root:
#
#   . Benchmarks/scripts/bench_setup.sh
#   bin=$(routetiles_binary "${ROUTETILES_BIN:-}")   # that binary, else the release build in .build-bench
#   generated_routes POINTS FILE [--seed N]           # generate_routes.py into FILE, unless FILE exists
#   routes_bench POINTS WORKDIR                       # points, work, input (generated there), bin: on generated routes
#   store_bench [BINARY] [WORKDIR]                    # bin, work (/work/bench-store), pg_*: on route stores
#   wait_health PORT                                  # until /health on 127.0.0.1:PORT answers (60 s at most)
#   fleet_store_reset STORE                           # memory | FILE.db | postgres URL, emptied for a fleet run
#   cpu_ticks PID; write_bytes PID                    # a process's user + system clock ticks, its write_bytes

routetiles_binary() { # [path] → the absolute path of the routetiles binary to measure
  if [ -n "${1:-}" ]; then realpath "$1"; else
    swift build -c release --product routetiles --scratch-path .build-bench >/dev/null \
      && echo "$PWD/.build-bench/release/routetiles"
  fi
}

generated_routes() { # points, file, more generate_routes.py arguments...
  local points=$1 file=$2; shift 2
  [ -f "$file" ] || python3 Benchmarks/scripts/generate_routes.py --points "$points" --out "$file" "$@"
}

routes_bench() { # points, workdir → points, work (created), input (its generated routes), bin (ROUTETILES_BIN's)
  points=$1 work=$2
  mkdir -p "$work"
  input="$work/routes-$points.geojson"
  generated_routes "$points" "$input"
  bin=$(routetiles_binary "${ROUTETILES_BIN:-}")
}

store_bench() { # [binary] [workdir] → bin, work (default /work/bench-store, created), postgres_cluster.sh's pg_*
  bin=$(routetiles_binary "${1:-}")
  work=${2:-/work/bench-store}
  mkdir -p "$work"
  . Benchmarks/scripts/postgres_cluster.sh
}

wait_health() { # port
  for _ in $(seq 600); do curl -fs -o /dev/null "http://127.0.0.1:$1/health" && return 0; sleep 0.1; done
  echo "no answer on port $1" >&2; return 1
}

fleet_store_reset() { # memory | FILE.db (removed, with its -wal and -shm) | postgres URL (its routes tables dropped)
  case $1 in
    memory) ;;
    postgres://*|postgresql://*)
      psql "$1" -X -q -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
        -c "DROP TABLE IF EXISTS public.routes_tails, public.routes_changes, public.routes_imports, public.routes CASCADE" ;;
    *) rm -f "$1" "$1-wal" "$1-shm" ;;
  esac
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }   # pid → utime + stime, in clock ticks
write_bytes() { awk '/^write_bytes/ {print $2}' "/proc/$1/io"; }   # pid → bytes sent to the storage layer
