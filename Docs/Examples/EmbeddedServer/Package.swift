// swift-tools-version:6.1
import PackageDescription

// A Hummingbird app of its own (`GET /hello`) with RouteTiles' endpoints mounted under `/routes-tiles`.
// The main package compiles this app too (its EmbeddedServer target), runs it in EmbeddedServerExampleTests and
// type-checks it against the public API alone (Tests/layering/check_modules_alone.sh), so it stays in step with the API.
let package = Package(
    name: "EmbeddedServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "RouteTiles", path: "../../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(name: "EmbeddedServer", dependencies: [
            .product(name: "RouteTiles", package: "RouteTiles"),
            .product(name: "RouteTilesServer", package: "RouteTiles"),
            .product(name: "Hummingbird", package: "hummingbird"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
