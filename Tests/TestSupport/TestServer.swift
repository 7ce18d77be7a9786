import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import RouteTiles
import RouteTilesServer
import ServiceLifecycle
import RouteTilesCoreTestSupport

/// A real `RouteTilesServer` on an ephemeral loopback port, run for the length of `body`, then shut down gracefully.
package enum TestServer {
    /// One client for all tests, which never decompresses or adds `Accept-Encoding` on its own, so that the tests
    /// see exactly what the server sends. Up to 32 connections a server, so that a test's concurrent requests do not
    /// queue for one; and a minute to get a connection (the default is 10 s), since the whole suite runs in parallel
    /// on two shared cores and a CI run once stalled every test for 80 s, failing one with
    /// `getConnectionFromPoolTimeout` while its server was fine.
    package static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(decompression: .disabled)
        configuration.timeout.connect = .seconds(60)
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 32)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    package struct Reply {
        package var status: Int
        package var headers: HTTPHeaders
        package var body: [UInt8]
        package init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
            (self.status, self.headers, self.body) = (status, headers, body)
        }
        package var text: String { String(decoding: body, as: UTF8.self) }
        package func header(_ name: String) -> String? { headers.first(name: name) }
        package var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:] }
    }

    /// The base URL of a running server, and its state for checks the HTTP surface cannot make.
    package struct Handle {
        package let base: String
        package let server: RouteTilesServer

        /// One request with a bounded timeout; bodies are read whole (up to 64 MB).
        package func request(_ method: HTTPMethod = .GET, _ path: String, headers: [(String, String)] = [],
                     body: [UInt8]? = nil, timeout: TimeAmount = .seconds(120)) async throws -> Reply {
            var request = HTTPClientRequest(url: base + path)
            request.method = method
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            let response = try await TestServer.client.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: 64 << 20)
            return Reply(status: Int(response.status.code), headers: response.headers, body: Array(bytes.readableBytesView))
        }

        package func get(_ path: String, gzip: Bool = true, headers: [(String, String)] = []) async throws -> Reply {
            try await request(.GET, path, headers: (gzip ? [("Accept-Encoding", "gzip")] : []) + headers)
        }
    }

    /// A finished tileset (a built folder) of one Paris route, z0–6, for servers of `--tiles`; the folder lives as
    /// long as the value returned with it.
    package static func parisTileset() throws -> (folder: TemporaryFolder, source: any TileSource) {
        let folder = try TemporaryFolder()
        let sink = try DirectoryTileStore(destination: URL(fileURLWithPath: folder.path("tiles")), replace: true)
        let tiler = RouteTiler(routes: Sample.parisRoutes(count: 1, points: 20), options: options(maxZoom: 6))
        _ = try PyramidBuilder(tiler: tiler, threads: 1).build(into: sink)
        try sink.putMetadata(TilesetMetadata(name: "t", tiler: tiler))
        try sink.commit()
        return (folder, try TileStoreFormat.openSource(path: folder.path("tiles")))
    }

    package static func with<T: Sendable>(_ backend: TileBackend, _ body: @Sendable (Handle) async throws -> T) async throws -> T {
        try await with(backend, configure: { _ in }, body)
    }

    /// - Parameter alongside: services to run beside the server (a `CachePurger`), made once the server exists.
    package static func with<T: Sendable>(
        _ backend: TileBackend, configure: (inout ServerConfiguration) -> Void,
        alongside: (RouteTilesServer) throws -> [any Service] = { _ in [] },
        _ body: @Sendable (Handle) async throws -> T
    ) async throws -> T {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.generationConcurrency = 2
        configure(&configuration)
        var logger = Logger(label: "test-server")
        logger.logLevel = .warning
        let server = try RouteTilesServer(configuration: configuration, name: "test", backend: backend, logger: logger)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let group = ServiceGroup(configuration: .init(
            services: server.services(alongside: try alongside(server)) { port in continuation.yield(port) }, logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            let result: T
            do {
                result = try await body(Handle(base: "http://127.0.0.1:\(port)", server: server))
            } catch {
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        }
    }

    package static func options(maxZoom: Int = 14) -> TilingOptions {
        Sample.options(maxZoom: maxZoom)
    }
}
