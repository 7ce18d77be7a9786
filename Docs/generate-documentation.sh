#!/bin/bash
# Builds the documentation catalog of the library, RouteTiles, with swift-docc-plugin:
#   bash Docs/generate-documentation.sh [more options of generate-documentation, e.g. --output-path DIR]
# RouteTiles re-exports the core's stage modules (Docs/ARCHITECTURE.md, "The modules"), and the symbol graphs
# swift-symbolgraph-extract gives the plugin leave re-exported symbols out (swiftlang/swift-docc-plugin#113). The
# compiler's own symbol graphs include them, so this builds RouteTiles once asking for those and hands them to the
# plugin as an additional symbol graph directory. The result lists every public symbol under RouteTiles, as users
# import it.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-docs
graphs="$scratch/compiler-symbol-graphs"
library="$scratch/library-symbol-graphs"
rm -rf "$graphs" "$library"
mkdir -p "$graphs" "$library"
swift build --scratch-path "$scratch" --target RouteTiles \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" \
    -Xswiftc -emit-extension-block-symbols
# Only the library's graphs: RouteTiles itself and its extensions of other modules (RouteTiles@Swift).
cp "$graphs"/RouteTiles.symbols.json "$library/"
cp "$graphs"/RouteTiles@*.symbols.json "$library/" 2>/dev/null || true
swift package --scratch-path "$scratch" generate-documentation --target RouteTiles --warnings-as-errors \
    --additional-symbol-graph-dir "$library" "$@"
