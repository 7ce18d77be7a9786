# The set-up the benchmark scripts share; sourced, not run, from the repository root:
#
#   . Benchmarks/scripts/bench_setup.sh
#   bin=$(routetiles_binary "${ROUTETILES_BIN:-}")   # that binary, else the release build in .build-bench
#   generated_routes POINTS FILE [--seed N]           # generate_routes.py into FILE, unless FILE exists
#   wait_health PORT                                  # until /health on 127.0.0.1:PORT answers (60 s at most)

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

wait_health() { # port
  for _ in $(seq 600); do curl -fs -o /dev/null "http://127.0.0.1:$1/health" && return 0; sleep 0.1; done
  echo "no answer on port $1" >&2; return 1
}
