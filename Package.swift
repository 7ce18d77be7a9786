// swift-tools-version:6.1
import PackageDescription

/// An HTTP client, AsyncHTTPClient over NIO's HTTP/1 types: the seeder, the purger and the tests' clients.
let httpClient: [Target.Dependency] = [
    .product(name: "AsyncHTTPClient", package: "async-http-client"),
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
]

let package = Package(
    name: "RouteTiles",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RouteTiles", targets: ["RouteTiles"]),
        // The HTTP layer, for Hummingbird apps that mount RouteTiles' endpoints (Docs/HTTP.md, "Embedding").
        .library(name: "RouteTilesServer", targets: ["RouteTilesServer"]),
        .executable(name: "routetiles", targets: ["routetiles"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // `swift package generate-documentation --target RouteTiles`: the library's documentation catalog.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The system zlib (zlib1g-dev): gzip for tiles.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The system SQLite (libsqlite3-dev): MBTiles.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // The system cairo (libcairo2-dev): raster tiles are drawn with it; PNGWriter (through the system zlib)
        // writes them as PNG.
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        // The core, one module per stage so that the compiler keeps data flowing one way (Docs/ARCHITECTURE.md, "The
        // modules"): each depends only on modules listed before it. No HTTP dependency, no NIO.
        // Routes, tile ids, boxes, the errors that name a bad value; columns of memory (SharedColumn, SpillSpace).
        .target(name: "RouteTilesModel"),
        // Project: Web Mercator map points, geodesy, the projected route set.
        .target(name: "RouteTilesGeo", dependencies: ["RouteTilesModel"]),
        // Read: route files and bodies (GeoJSON, CSV, polylines, directions, GPX) into routes.
        .target(name: "RouteTilesInput", dependencies: ["RouteTilesModel", "RouteTilesGeo"]),
        // Index, cut, encode: the tiler, culling, clipping, simplification, and MVT with gzip.
        .target(name: "RouteTilesTiling", dependencies: ["RouteTilesModel", "RouteTilesGeo", "CZlib"]),
        // The pyramid, built top-down into a tile sink; a tileset's metadata; sharded builds.
        .target(name: "RouteTilesBuild", dependencies: ["RouteTilesModel", "RouteTilesGeo", "RouteTilesTiling"]),
        // Draw: raster tiles of the cut lines, with the look that style.json is made from (cairo).
        .target(name: "RouteTilesRaster", dependencies: ["RouteTilesModel", "RouteTilesInput", "RouteTilesTiling", "RouteTilesBuild", "CCairo", "CZlib"]),
        // The one wrapper over the system SQLite, shared by MBTiles and the SQLite route store.
        .target(name: "RouteTilesSQLite", dependencies: ["RouteTilesModel", "CSQLite"]),
        // Tile stores and sources: folder, MBTiles, PMTiles; joining tilesets.
        .target(name: "RouteTilesStores", dependencies: [
            "RouteTilesModel", "RouteTilesGeo", "RouteTilesTiling", "RouteTilesBuild", "RouteTilesSQLite",
        ]),
        // Where live routes are kept (memory, SQLite), the change feed, appends kept apart from the stored line.
        .target(name: "RouteTilesRouteStore", dependencies: ["RouteTilesModel", "RouteTilesInput", "RouteTilesSQLite"]),
        // Live routes: the changing route set, its tilers, and its sync with a route store.
        .target(name: "RouteTilesLive", dependencies: [
            "RouteTilesModel", "RouteTilesGeo", "RouteTilesTiling", "RouteTilesBuild", "RouteTilesRouteStore",
        ]),
        // Serving without an HTTP library: the decisions that make a tile answer, the tile cache, single flight.
        .target(name: "RouteTilesServing", dependencies: [
            "RouteTilesModel", "RouteTilesTiling", "RouteTilesRaster", "RouteTilesBuild", "RouteTilesStores", "RouteTilesLive",
        ]),
        // The library users import: every stage above, re-exported, and the documentation catalog.
        .target(name: "RouteTiles", dependencies: [
            "RouteTilesModel", "RouteTilesGeo", "RouteTilesInput", "RouteTilesTiling", "RouteTilesBuild",
            "RouteTilesSQLite", "RouteTilesStores", "RouteTilesRouteStore", "RouteTilesLive", "RouteTilesServing",
            "RouteTilesRaster",
        ]),
        // Who may read and write what: credentials (JWTs verified with vapor/jwt-kit, the write token), the grants they
        // carry, signed tile URLs, rate limits and the audit log. No HTTP dependency: the server asks it questions.
        .target(name: "RouteTilesAccess", dependencies: [
            "RouteTiles",
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // The HTTP layer over the core: tiles on demand, live routes, the viewer, metrics.
        .target(name: "RouteTilesServer", dependencies: [
            "RouteTiles",
            "RouteTilesAccess",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            // TLS without a proxy (`--tls-cert`): HTTP/2 by ALPN beside the HTTP/1.1 channel.
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "HummingbirdHTTP2", package: "hummingbird"),
        ], resources: [
            // The viewer's page, scripts and stylesheet, compiled into the binary as byte arrays (PackageResources):
            // no resource bundle to keep beside the executable (Docs/ARCHITECTURE.md, "The viewer").
            .embedInCode("Viewer"),
            // The HTTP API's contract (OpenAPI 3.1), served at /openapi.json (Docs/HTTP.md, "The contract").
            .embedInCode("OpenAPI"),
        ]),
        // The PostgreSQL route store (vapor/postgres-nio), apart from the core so that the core needs no NIO.
        .target(name: "RouteTilesPostgres", dependencies: [
            "RouteTiles",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Pre-warming jobs: tiles requested over HTTP (a server or CDN), checkpoints, shards. No server dependency.
        .target(name: "RouteTilesSeed", dependencies: [
            "RouteTiles"
        ] + httpClient),
        // Purges of changed tiles sent to the HTTP caches in front (Varnish PURGE, BAN as the fallback), off the write
        // path. Apart from the server, so that an app embedding RouteTilesServer does not build an HTTP client.
        .target(name: "RouteTilesPurge", dependencies: [
            "RouteTiles"
        ] + httpClient + [
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // jemalloc (libjemalloc-dev) as the executable's allocator, with its options: linked by `routetiles` alone, so
        // that an app embedding the library keeps its own allocator (Docs/ARCHITECTURE.md, "The allocator").
        .target(name: "RouteTilesAllocator", linkerSettings: [.linkedLibrary("jemalloc")]),
        // The command-line shell over the core and the server.
        .executableTarget(name: "routetiles", dependencies: [
            "RouteTiles",
            "RouteTilesAllocator",
            "RouteTilesServer",
            "RouteTilesSeed",
            "RouteTilesPurge",
            "RouteTilesPostgres",
            "RouteTilesAccess",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Docs/Examples/EmbeddedServer's app, which is also a package of its own for users to copy: compiled here too, so
        // that EmbeddedServerExampleTests runs it without a second build of Hummingbird and NIO for the example's
        // package (5 minutes of the test run's critical path). That it needs nothing but the products' public API, as
        // in its own package, is checked by Tests/layering/check_modules_alone.sh.
        .executableTarget(name: "EmbeddedServer", dependencies: [
            "RouteTiles",
            "RouteTilesServer",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Docs/Examples/EmbeddedServer/Sources/EmbeddedServer"),
        // Tests, by kind (Docs/ARCHITECTURE.md, "Tests"). Support code shared by several test targets lives in two
        // library targets under Tests/: fixtures of the core alone, and the harnesses of the integration tests
        // (a server on a loopback port, processes, PostgreSQL clusters, Varnish).
        .target(name: "RouteTilesCoreTestSupport", dependencies: ["RouteTiles", "RouteTilesTiling", "RouteTilesLive"],
                path: "Tests/CoreTestSupport"),
        .target(name: "RouteTilesTestSupport", dependencies: [
            "RouteTiles", "RouteTilesCoreTestSupport", "RouteTilesServer", "RouteTilesPurge", "RouteTilesAccess",
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], path: "Tests/TestSupport"),
        // The fast tests of the core: no process, no network, no database server (SQLite files in temporary folders,
        // in-process). `swift test --filter RouteTilesCoreTests` runs them alone.
        // Each reaches into the stage modules it tests (`@testable import`), so those are named too.
        .testTarget(name: "RouteTilesCoreTests", dependencies: [
            "RouteTiles", "RouteTilesCoreTestSupport", "RouteTilesModel", "RouteTilesGeo", "RouteTilesInput",
            "RouteTilesTiling", "RouteTilesStores", "RouteTilesRouteStore", "RouteTilesLive",
        ]),
        // Credentials and grants: JWTs made here with jwt-kit and by hand (alg none, algorithm confusion, tampering).
        .testTarget(name: "RouteTilesAccessTests", dependencies: [
            "RouteTilesAccess", "RouteTiles",
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        // The HTTP layer on loopback ports with a real client; seeding and purging against scripted servers.
        .testTarget(name: "RouteTilesServerTests", dependencies: [
            "RouteTiles", "RouteTilesServer", "RouteTilesSeed", "RouteTilesPurge", "RouteTilesLive",
            "RouteTilesCoreTestSupport", "RouteTilesTestSupport",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // `routetiles` run as a process, and what it writes read by independent tools (GDAL, Python's decoders,
        // tippecanoe-decode, the sqlite3 shell).
        .testTarget(name: "RouteTilesCLITests", dependencies: [
            "RouteTiles", "RouteTilesServer", "RouteTilesModel", "RouteTilesGeo", "RouteTilesCoreTestSupport",
            "RouteTilesTestSupport"
        ] + httpClient, exclude: ["Raster"]),
        // The durable route stores: SQLite files read by the sqlite3 shell, PostgreSQL clusters of their own, crashes
        // and restarts of `routetiles serve`.
        .testTarget(name: "RouteTilesStoreTests", dependencies: [
            "RouteTiles", "RouteTilesServer", "RouteTilesPostgres", "RouteTilesLive", "RouteTilesCoreTestSupport",
            "RouteTilesTestSupport",
            .product(name: "PostgresNIO", package: "postgres-nio")
        ] + httpClient),
        // Varnish in front: purges, bans, revalidation.
        .testTarget(name: "RouteTilesCacheTests", dependencies: [
            "RouteTiles", "RouteTilesServer", "RouteTilesSeed", "RouteTilesPurge", "RouteTilesPostgres",
            "RouteTilesLive", "RouteTilesCoreTestSupport", "RouteTilesTestSupport"
        ] + httpClient),
        // The viewer in headless Chromium (Browser/: the Selenium scripts).
        .testTarget(name: "RouteTilesBrowserTests", dependencies: [
            "RouteTiles", "RouteTilesCoreTestSupport", "RouteTilesTestSupport",
        ], exclude: ["Browser"]),
        // Docs/Examples/EmbeddedServer run, and its package's manifest checked.
        .testTarget(name: "RouteTilesExampleTests", dependencies: [
            "RouteTiles", "RouteTilesCoreTestSupport", "RouteTilesTestSupport", "EmbeddedServer"
        ] + httpClient),
    ],
    swiftLanguageModes: [.v6]
)

// Benchmarks only when asked (ENABLE_BENCHMARKS=1 swift package benchmark), so that CI never builds them.
if Context.environment["ENABLE_BENCHMARKS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1",
                                         traits: ["MallocInterposer"]))
    package.targets.append(.executableTarget(
        name: "RouteTilesBenchmarks",
        dependencies: ["RouteTiles", .product(name: "Benchmark", package: "benchmark")],
        path: "Benchmarks/RouteTilesBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]))
}

// Docs/generate-documentation.sh: the compiler's own symbol graphs of RouteTiles, which hold the symbols it re-exports
// from the stage modules (swift-symbolgraph-extract leaves those out), written while the documentation plugin builds
// the target in the main build folder, so that nothing else is built a second time.
if let graphs = Context.environment["ROUTETILES_SYMBOL_GRAPH_DIR"],
   let library = package.targets.first(where: { $0.name == "RouteTiles" }) {
    library.swiftSettings = (library.swiftSettings ?? []) + [.unsafeFlags([
        "-emit-symbol-graph", "-emit-symbol-graph-dir", graphs, "-emit-extension-block-symbols",
    ])]
}
