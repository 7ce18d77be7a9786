import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RouteTiles
@testable import RouteTilesPostgres
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `routetiles serve FILE --store X --write-token T`, restarted with the same command as the README gives it: the
/// writes the API acknowledged to routes that came from the file (an append, a replacement, a removal) and a route
/// it created survive `kill -9`, a graceful stop and a third start; an edited file is imported again for the routes
/// it changed; two replicas over one PostgreSQL keep each other's writes across their restarts.
@Suite(.serialized, .heavy) struct StoreRestartTests {
    static let token = "restart-token-1"
    static let tiling = StoreCrashTests.tiling

    /// The file's routes: a, b, c, d.
    static func fileRoutes() -> [Route] {
        zip(["a", "b", "c", "d"], Sample.parisRoutes(count: 4, points: 60, seed: 21)).map { key, line in
            Route(id: .string(key), properties: [Property("name", .string("file \(key)"))], parts: line.parts)
        }
    }

    static func writeFile(_ routes: [Route], to path: String) throws {
        try Data(HTTPRouteWriter.featureCollection(routes)).write(to: URL(fileURLWithPath: path))
    }

    /// The API's four writes, as sent over HTTP and as committed to a model store.
    struct Writes {
        static let appended = [Coordinate(longitude: 2.41, latitude: 48.87), Coordinate(longitude: 2.42, latitude: 48.88)]
        static let b = Route(id: .string("b"), properties: [Property("name", .string("put b"))],
                             parts: Sample.parisRoutes(count: 1, points: 30, seed: 22)[0].parts)
        static let e = Route(id: .string("e"), properties: [Property("name", .string("posted e"))],
                             parts: Sample.parisRoutes(count: 1, points: 30, seed: 23)[0].parts)

        static func send(to base: String) async throws {
            let points = "[" + appended.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",") + "]"
            #expect(try await StoreRestartTests.send(.POST, base + "/routes/a/points", points) == 200)
            #expect(try await StoreRestartTests.send(.PUT, base + "/routes/b", HTTPRouteWriter.feature(b)) == 200)
            #expect(try await StoreRestartTests.send(.DELETE, base + "/routes/c", []) == 200)
            #expect(try await StoreRestartTests.send(.POST, base + "/routes", HTTPRouteWriter.feature(e)) == 201)
        }

        /// The routes the file and the writes make.
        static func expected(from file: [Route]) async throws -> [StoredRoute] {
            let model = MemoryRouteStore()
            _ = try await RouteStoreImport.load(file, into: model)
            _ = try await model.commit(.append(key: "a", points: appended))
            _ = try await model.commit(.replace(key: "b", route: b))
            _ = try await model.commit(.remove(key: "c"))
            _ = try await model.commit(.put([e]))
            return try await model.loadAll().routes
        }
    }

    static func send(_ method: HTTPMethod, _ url: String, _ body: String) async throws -> Int {
        try await send(method, url, Array(body.utf8))
    }

    static func send(_ method: HTTPMethod, _ url: String, _ body: [UInt8]) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/geo+json")
        if !body.isEmpty { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await TestServer.client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    /// The store holds `expected`, and nothing else.
    static func expectStore(_ load: () async throws -> RouteStoreSnapshot, holds expected: [StoredRoute],
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let problems = differences(try await load().routes, expected)
        #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
    }

    /// What differs between the store's routes and `expected` (keys, order, content).
    static func differences(_ stored: [StoredRoute], _ expected: [StoredRoute]) -> [String] {
        var problems: [String] = []
        if stored.map(\.key) != expected.map(\.key) {
            problems.append("keys \(stored.map(\.key)) != \(expected.map(\.key))")
        }
        let have = Dictionary(stored.map { ($0.key, $0.route) }, uniquingKeysWith: { a, _ in a })
        for want in expected {
            guard let route = have[want.key] else { continue }
            if !RouteStoreImport.sameContent(route, want.route) {
                problems.append("\(want.key): \(route.pointCount) points \(route.properties), expected \(want.route.pointCount) \(want.route.properties)")
            }
        }
        return problems
    }

    /// Starts, writes, then restarts the same command three times (kill -9, SIGTERM, then after an edit of the
    /// file), checking the store, the start-up note and the tiles each time.
    func restartsKeepWrites(store: String, folder: TemporaryFolder,
                            load: @escaping () async throws -> RouteStoreSnapshot) async throws {
        let file = folder.path("routes.geojson")
        var routes = Self.fileRoutes()
        try Self.writeFile(routes, to: file)
        let arguments = [file, "--store", store, "--write-token", Self.token] + Self.tiling
        let first = try await ServeProcess.start(arguments)
        #expect(first.printed.contains(": 4 added, 0 replaced, 0 unchanged"), "\(first.printed)")
        try await Writes.send(to: first.base)
        let expected = try await Writes.expected(from: routes)
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()

        let kept = ": 0 added, 0 replaced, 1 unchanged, 2 kept as changed since their import, 1 kept removed since their import"
        let second = try await ServeProcess.start(arguments)
        #expect(second.printed.contains(kept), "\(second.printed)")
        try await Self.expectStore(load, holds: expected)
        #expect(try await StoreCrashTests.get(second.base + "/routes/c").0 == 404)
        #expect(try await StoreCrashTests.get(second.base + "/routes/e").0 == 200)
        try await Self.expectSameTiles(second.base, as: expected.map(\.route), covering: routes, folder: folder)
        #expect(await second.stop() == 0)

        let third = try await ServeProcess.start(arguments)
        #expect(third.printed.contains(kept), "\(third.printed)")
        try await Self.expectStore(load, holds: expected)
        try await Self.expectSameTiles(third.base, as: expected.map(\.route), covering: routes, folder: folder)
        #expect(await third.stop() == 0)

        // The user edits b in the file: b is imported again (the file wins for b and says so); a, c and e stay.
        routes[1].properties = [Property("name", .string("edited b"))]
        try Self.writeFile(routes, to: file)
        let fourth = try await ServeProcess.start(arguments)
        #expect(fourth.printed.contains(": 0 added, 1 replaced, 1 unchanged, 1 kept as changed since their import, 1 kept removed"),
                "\(fourth.printed)")
        #expect(fourth.printed.contains("route b: its file changed since its last import: the file's version replaces the store's"),
                "\(fourth.printed)")
        var edited = expected
        if let i = edited.firstIndex(where: { $0.key == "b" }) { edited[i].route = routes[1] }
        try await Self.expectStore(load, holds: edited)
        try await Self.expectSameTiles(fourth.base, as: edited.map(\.route), covering: routes, folder: folder)
        #expect(await fourth.stop() == 0)
    }

    /// The server at `base` answers every tile of the routes' covers as a server started from `final` in a file.
    static func expectSameTiles(_ base: String, as final: [Route], covering more: [Route], folder: TemporaryFolder) async throws {
        let (compared, differing) = try await StoreCrashTests.compareTiles(base, withFileOf: final, covering: more,
                                                                           folder: folder)
        #expect(differing.isEmpty, "\(differing.count) of \(compared) tiles differ, such as \(differing.prefix(3))")
        #expect(compared > 15)
    }

    @Test func sqliteRestartsKeepTheAPIsWritesToFileRoutes() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("routes.db")
        try await restartsKeepWrites(store: path, folder: folder) { try await StoreSnapshot.sqlite(path) }
    }

    @Test(.enabled(if: ExternalTool.required(PostgresCluster.installed)))
    func postgresRestartsKeepTheAPIsWritesToFileRoutes() async throws {
        let url = try await PostgresCluster.sharedCluster().newDatabase()
        try await restartsKeepWrites(store: url, folder: try TemporaryFolder()) { try await StoreSnapshot.postgres(url) }
    }

    /// Two replicas started with the same file over one PostgreSQL: the writes made through A survive a restart
    /// of B with its file, and then one of A (kill -9), and both serve them.
    @Test(.enabled(if: ExternalTool.required(PostgresCluster.installed)))
    func replicasStartedWithTheSameFilesKeepEachOthersWrites() async throws {
        let url = try await PostgresCluster.sharedCluster().newDatabase()
        let folder = try TemporaryFolder()
        let file = folder.path("routes.geojson")
        let routes = Self.fileRoutes()
        try Self.writeFile(routes, to: file)
        let arguments = [file, "--store", url, "--write-token", Self.token] + Self.tiling
        var a = try await ServeProcess.start(arguments)
        var b = try await ServeProcess.start(arguments)
        #expect(b.printed.contains(": 0 added, 0 replaced, 4 unchanged"), "\(b.printed)")
        try await Writes.send(to: a.base)
        let expected = try await Writes.expected(from: routes)
        let load = { try await StoreSnapshot.postgres(url) }
        try await Self.expectStore(load, holds: expected)

        #expect(await b.stop() == 0)
        b = try await ServeProcess.start(arguments)
        #expect(b.printed.contains("2 kept as changed since their import, 1 kept removed"), "\(b.printed)")
        try await Self.expectStore(load, holds: expected)

        kill(a.process.processIdentifier, SIGKILL)
        a.process.waitUntilExit()
        a = try await ServeProcess.start(arguments)
        #expect(a.printed.contains("2 kept as changed since their import, 1 kept removed"), "\(a.printed)")
        try await Self.expectStore(load, holds: expected)
        for key in ["a", "b", "c", "e"] {
            let (fromA, fromB) = (try await StoreCrashTests.get(a.base + "/routes/\(key)"), try await StoreCrashTests.get(b.base + "/routes/\(key)"))
            #expect(fromA.0 == (key == "c" ? 404 : 200))
            #expect(fromA.0 == fromB.0 && fromA.1 == fromB.1, "\(key)")
        }
        try await Self.expectSameTiles(a.base, as: expected.map(\.route), covering: routes, folder: folder)
        try await Self.expectSameTiles(b.base, as: expected.map(\.route), covering: routes, folder: folder)
        #expect(await a.stop() == 0)
        #expect(await b.stop() == 0)
    }
}
