import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import RouteTilesCoreTestSupport
import RouteTilesTestSupport

/// `serve`'s write token given as a file or an environment variable, which keep it out of the process list, with
/// `--write-token`'s rules whichever way it came; and `--store` values of a kind no store has.
@Suite struct WriteTokenCLITests {
    static let feature = #"{"type":"Feature","id":"a","properties":{},"geometry":{"type":"LineString","coordinates":[[2.3,48.8],[2.4,48.9]]}}"#

    func routetiles(_ arguments: [String], environment: [String: String] = [:]) async throws -> ExternalTool.Result {
        try await ExternalTool.runDetached(ExternalTool.routetiles, arguments, environment: environment, timeout: 120)
    }

    /// The status of `POST /routes` with `token` as the bearer token (nil: no Authorization header).
    func post(_ base: String, token: String?) async throws -> Int {
        var request = HTTPClientRequest(url: base + "/routes")
        request.method = .POST
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.headers.add(name: "Content-Type", value: "application/geo+json")
        request.body = .bytes(ByteBuffer(bytes: Array(Self.feature.utf8)))
        let response = try await TestServer.client.execute(request, timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    /// A server whose token is `accepted` takes a write with it and refuses every one in `refused` (a credential that
    /// does not verify: 401) and none at all.
    func expectWrites(_ serve: ServeProcess, accepted: String, refused: [String]) async throws {
        for token in refused { #expect(try await post(serve.base, token: token) == 401, "\(token)") }
        #expect(try await post(serve.base, token: nil) == 401)
        #expect(try await post(serve.base, token: accepted) == 201)
        #expect(await serve.stop() == 0)
    }

    /// The file's text without its final newline is the token; ROUTETILES_WRITE_TOKEN, also set, gives way to it.
    @Test func aServerStartedWithWriteTokenFileTakesWritesWithThatToken() async throws {
        let folder = try TemporaryFolder()
        let file = folder.path("token")
        try Data("file-token-123\n".utf8).write(to: URL(fileURLWithPath: file))
        let serve = try await ServeProcess.start(["--store", "memory", "--write-token-file", file],
                                                       environment: ["ROUTETILES_WRITE_TOKEN": "env-token-123"])
        try await expectWrites(serve, accepted: "file-token-123", refused: ["file-token-12", "env-token-123", "wrong-token-1"])
    }

    @Test func aServerStartedWithTheEnvironmentVariableTakesWritesWithThatToken() async throws {
        let serve = try await ServeProcess.start(["--store", "memory"],
                                                       environment: ["ROUTETILES_WRITE_TOKEN": "env-token-123"])
        try await expectWrites(serve, accepted: "env-token-123", refused: ["wrong-token-1"])
    }

    @Test func writeTokenWinsOverTheEnvironmentVariable() async throws {
        let serve = try await ServeProcess.start(["--store", "memory", "--write-token", "flag-token-123"],
                                                       environment: ["ROUTETILES_WRITE_TOKEN": "env-token-123"])
        try await expectWrites(serve, accepted: "flag-token-123", refused: ["env-token-123"])
    }

    /// Usage errors (status 64) that name the option, file or variable and what is wrong with it.
    @Test func aTokenThatCannotBeUsedIsRefusedAtStart() async throws {
        let folder = try TemporaryFolder()
        let good = folder.path("good"), empty = folder.path("empty"), short = folder.path("short"), lines = folder.path("lines")
        try Data("file-token-123\n".utf8).write(to: URL(fileURLWithPath: good))
        try Data(" \n".utf8).write(to: URL(fileURLWithPath: empty))
        try Data("short\n".utf8).write(to: URL(fileURLWithPath: short))
        try Data("file-token-123\nanother-line\n".utf8).write(to: URL(fileURLWithPath: lines))
        let missing = folder.path("missing")
        let store = ["serve", "--port", "0", "--store", "memory"]
        for (arguments, environment, expected) in [
            (store + ["--write-token", "flag-token-123", "--write-token-file", good], [:], "give --write-token or --write-token-file, not both"),
            (store + ["--write-token-file", missing], [:], "--write-token-file \(missing): cannot read the file"),
            (store + ["--write-token-file", empty], [:], "--write-token-file \(empty): the file is empty"),
            (store + ["--write-token-file", lines], [:], "--write-token-file \(lines): the file holds more than one line"),
            (store + ["--write-token-file", short], [:], "the write token from --write-token-file \(short) must be at least 8 characters"),
            (store, ["ROUTETILES_WRITE_TOKEN": ""], "ROUTETILES_WRITE_TOKEN is set but empty"),
            (store, ["ROUTETILES_WRITE_TOKEN": "short"], "the write token from ROUTETILES_WRITE_TOKEN must be at least 8 characters"),
            (["serve", "--port", "0", "--write-token-file", good], [:], "--write-token-file \(good) needs --store"),
            (["serve", "--port", "0"], ["ROUTETILES_WRITE_TOKEN": "env-token-123"], "ROUTETILES_WRITE_TOKEN needs --store"),
        ] as [([String], [String: String], String)] {
            let result = try await routetiles(arguments, environment: environment)
            #expect(result.status == 64, "\(arguments) \(environment): \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(arguments) \(environment): \(result.stderr)")
        }
    }

    /// A `scheme://` that no store has is refused as such, not taken for the name of a SQLite file; a password in
    /// it is not shown.
    @Test func aStoreOfAnUnknownKindIsRefused() async throws {
        for arguments in [
            ["serve", "--port", "0", "--store", "http://tiles.example.com/routes"],
            ["load", "Tiles/samples/paris-runs.geojson", "--store", "http://tiles.example.com/routes"],
        ] {
            let result = try await routetiles(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--store: unknown store kind 'http://' in 'http://tiles.example.com/routes'"),
                    "\(result.stderr)")
            #expect(result.stderr.contains("a SQLite file path, sqlite:PATH, memory, or postgres://"), "\(result.stderr)")
            #expect(!result.stderr.contains("cannot open the SQLite database"), "\(result.stderr)")
        }
        let secret = try await routetiles(["serve", "--port", "0", "--store", "mysql://tiles:hunter2@db/gis"])
        #expect(secret.status == 64 && secret.stderr.contains("mysql://tiles:***@db/gis"), "\(secret.stderr)")
        #expect(!secret.stderr.contains("hunter2"))
    }
}
