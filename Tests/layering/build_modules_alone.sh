#!/usr/bin/env bash
# Builds each of the core's stage modules alone, each in a scratch folder of its own, so that a module compiles
# with only the modules Package.swift says it depends on (and what they depend on) built beside it. With one shared
# build folder, a module may import one it does not declare, as long as that one happened to be built already;
# here it cannot. ModuleLayeringTests checks the same from the sources; this checks it with the compiler.
#
#   Tests/layering/build_modules_alone.sh [scratch root]     (default: a temporary folder, removed at the end)
#
# The modules and their order are Docs/ARCHITECTURE.md's table ("The modules").
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${1:-$(mktemp -d)}
[ -n "${1:-}" ] || trap 'rm -rf "$root"' EXIT
modules=$(awk '/^## The modules$/ {on = 1; next} /^## / {on = 0} on && /^\| `RouteTiles/ {gsub(/[`| ]/, "", $2); print $2}' \
  FS='|' Docs/ARCHITECTURE.md)
[ -n "$modules" ] || { echo "no modules table in Docs/ARCHITECTURE.md" >&2; exit 1; }
failed=0
for module in $modules; do
  start=$(date +%s)
  if swift build --scratch-path "$root/$module" --target "$module" > "$root/$module.log" 2>&1; then
    echo "$module: built alone in $(( $(date +%s) - start )) s"
  else
    echo "$module: FAILED alone; the compiler said:"; grep -E "error:" "$root/$module.log" | sort -u | head -20
    failed=1
  fi
  rm -rf "${root:?}/$module"
done
exit $failed
