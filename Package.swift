// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "RouteTiles",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RouteTiles", targets: ["RouteTiles"]),
        .executable(name: "routetiles", targets: ["routetiles"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The system zlib (zlib1g-dev): gzip for tiles.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The core: read, project, index, cut, encode, store. No HTTP dependency.
        .target(name: "RouteTiles", dependencies: ["CZlib"]),
        // The command-line shell over the core.
        .executableTarget(name: "routetiles", dependencies: [
            "RouteTiles",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "RouteTilesTests", dependencies: ["RouteTiles"]),
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
