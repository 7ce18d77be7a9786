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

# Docs/Examples/EmbeddedServer is a package of its own for users, and the main package also compiles its app (the
# EmbeddedServer target, which EmbeddedServerExampleTests runs). Within the main package, `package` declarations are
# visible to it; a user's package sees only the products' public API. So it is type-checked here once more under a
# package name of its own, with the flags SwiftPM gave it otherwise (module and header search paths).
start=$(date +%s)
example=Docs/Examples/EmbeddedServer/Sources/EmbeddedServer/main.swift
mapfile -d '' example_flags < <(python3 - .build/debug.yaml <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
start = re.search(r'"C\.EmbeddedServer-[^"]*\.module":', text).start()
args = json.loads(re.search(r'args: (\[.*\])', text[start:]).group(1))
keep, i = [], 0
while i < len(args):
    if args[i] in ("-I", "-Xcc", "-module-cache-path") and i + 1 < len(args):
        keep += args[i:i + 2]
        i += 2
    else:
        i += 1
sys.stdout.write("".join(flag + "\0" for flag in keep))
PY
)
if swiftc -typecheck -module-name EmbeddedServer -package-name EmbeddedServerExample -swift-version 6 \
    "${example_flags[@]}" "$example" > "$root/EmbeddedServer.log" 2>&1; then
  echo "EmbeddedServer example: compiles with the public API alone in $(( $(date +%s) - start )) s"
else
  echo "EmbeddedServer example: FAILS with the public API alone; the compiler said:"
  grep -E "error:" "$root/EmbeddedServer.log" | sort -u | head -20
  failed=1
fi
exit $failed
