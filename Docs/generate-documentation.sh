#!/bin/bash
# Builds the documentation catalog of the library, RouteTiles, with swift-docc-plugin:
#   bash Docs/generate-documentation.sh [more options of generate-documentation, e.g. --output-path DIR]
# RouteTiles re-exports the core's stage modules (Docs/ARCHITECTURE.md, "The modules"), and the symbol graphs
# swift-symbolgraph-extract gives the plugin leave re-exported symbols out (swiftlang/swift-docc-plugin#113). The
# compiler's own symbol graphs include them, so the plugin's build of RouteTiles asks the compiler for those
# (ROUTETILES_SYMBOL_GRAPH_DIR, read by Package.swift for that target alone) and hands them to DocC as an additional
# symbol graph directory. The result lists every public symbol under RouteTiles, as users import it.
#
# It builds in the main build folder, .build, reusing what `swift build` compiled: only RouteTiles itself is compiled
# again, with the graphs asked for (and once more, without them, by the next `swift build`, with what depends on it).
set -euo pipefail
cd "$(dirname "$0")/.."
graphs="$PWD/.build/compiler-symbol-graphs"
rm -rf "$graphs"
mkdir -p "$graphs"
ROUTETILES_SYMBOL_GRAPH_DIR="$graphs" swift package generate-documentation --target RouteTiles --warnings-as-errors \
    --additional-symbol-graph-dir "$graphs" "$@"
ls "$graphs"/RouteTiles.symbols.json > /dev/null
