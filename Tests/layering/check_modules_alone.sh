#!/usr/bin/env bash
# Compiles each of the core's stage modules alone: the compiler sees the module's sources and only the modules
# Package.swift says it depends on (directly or through them), so a module that imports one it does not declare
# fails here even when that one happens to be built. ModuleLayeringTests checks the same from the sources; this
# checks it with the compiler.
#
#   Tests/layering/check_modules_alone.sh
#
# The modules and their order are Docs/ARCHITECTURE.md's table ("The modules"). It type-checks against the modules
# of the debug build in .build (building the core first if need be: `swift test` has built it in CI), each in a
# folder holding its declared dependencies alone. That takes about a minute; building each module alone in a fresh
# scratch folder, as this script did before, took 8.5 minutes on the 2-core machine (each one resolved every
# package dependency again and compiled its whole closure again).
set -euo pipefail
cd "$(dirname "$0")/../.."
modules=$(awk '/^## The modules$/ {on = 1; next} /^## / {on = 0} on && /^\| `RouteTiles/ {gsub(/[`| ]/, "", $2); print $2}' \
  FS='|' Docs/ARCHITECTURE.md)
[ -n "$modules" ] || { echo "no modules table in Docs/ARCHITECTURE.md" >&2; exit 1; }
swift build --target RouteTiles > /dev/null 2>&1 || swift build --target RouteTiles
built="$(swift build --show-bin-path 2> /dev/null)/Modules"
# The package name SwiftPM compiles the targets with (`package` declarations are visible within it).
package_name=$(python3 -c 'import re,sys; s=open(".build/debug.yaml").read(); i=s.index("\"-module-name\",\"RouteTilesModel\""); print(re.search(r"\"-package-name\",\"([^\"]+)\"", s[i:]).group(1))')
# Each target's declared dependencies within the package, from the manifest.
swift package dump-package 2> /dev/null > "${TMPDIR:-/tmp}/routetiles-manifest.json"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
failed=0
for module in $modules; do
  start=$(date +%s)
  # The transitive closure of the module's declared dependencies, with system library targets (C modules) apart.
  closure=$(python3 - "$module" "${TMPDIR:-/tmp}/routetiles-manifest.json" <<'PY'
import json, sys
module, path = sys.argv[1], sys.argv[2]
targets = {t["name"]: t for t in json.load(open(path))["targets"]}
def deps(name):
    for d in targets[name].get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in d:
                yield d[kind][0]
seen, todo = set(), list(deps(module))
while todo:
    name = todo.pop()
    if name in seen or name not in targets:
        continue
    seen.add(name)
    todo.extend(deps(name))
for name in sorted(seen):
    print(("system " if targets[name]["type"] == "system" else "swift ") + name)
PY
)
  folder="$root/$module"
  mkdir -p "$folder"
  flags=()
  while read -r kind name; do
    [ -n "$kind" ] || continue
    if [ "$kind" = system ]; then
      flags+=(-Xcc "-fmodule-map-file=$PWD/Sources/$name/module.modulemap")
    else
      cp -R "$built/$name.swiftmodule" "$folder/"
    fi
  done <<< "$closure"
  if swiftc -typecheck -module-name "$module" -package-name "$package_name" -parse-as-library -swift-version 6 \
      -DSWIFT_PACKAGE -DDEBUG -enable-testing -I "$folder" "${flags[@]}" \
      $(find "Sources/$module" -name '*.swift' | sort) > "$root/$module.log" 2>&1; then
    echo "$module: compiles alone ($(echo "$closure" | grep -c . ) dependencies) in $(( $(date +%s) - start )) s"
  else
    echo "$module: FAILS alone; the compiler said:"; grep -E "error:" "$root/$module.log" | sort -u | head -20
    failed=1
  fi
done
exit $failed
