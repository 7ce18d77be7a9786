import AsyncHTTPClient
import Foundation
import RouteTiles
import RouteTilesCoreTestSupport

/// A running `routetiles serve`, started in the package root so that the bundled samples are found.
package final class ServeProcess: @unchecked Sendable {
    package let process = Process()
    package let base: String
    private let stderr = Pipe()

    package private(set) var printed = ""

    /// Starts `routetiles serve` and waits on a thread of its own until it listens: start-up takes seconds on a
    /// loaded machine, and waiting on one of the concurrency pool's threads (as few as the cores) would hold up the
    /// in-process servers of every other test. `environment` is added to this process's.
    package static func start(_ arguments: [String], logLevel: String = "warning",
                              environment: [String: String] = [:]) async throws -> ServeProcess {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try ServeProcess(arguments, logLevel: logLevel, environment: environment)
                })
            }.start()
        }
    }

    private init(_ arguments: [String], logLevel: String = "warning", environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: ExternalTool.routetiles)
        process.arguments = ["serve", "--port", "0", "--log-level", logLevel] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = PackageFolder.root
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        // The server prints its URL on standard error once it listens.
        let started = try ExternalTool.startServer(process, printingOn: stderr.fileHandleForReading,
                                                   until: "serving http", address: #"https?://127\.0\.0\.1:\d+"#)
        base = started.address
        printed = started.text
    }

    /// A GET of `path` on this server, with `headers`: its status and body (up to 16 MB).
    package func get(_ path: String, headers: [(String, String)] = []) async throws -> (Int, [UInt8]) {
        var request = HTTPClientRequest(url: base + path)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await TestServer.client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), Array(body.readableBytesView))
    }

    /// Everything the server printed on standard error, once it has exited.
    package func standardError() -> String {
        printed + String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Sends `signal` and waits (at most 30 s), on a thread of its own, for the exit status.
    package func stop(_ signal: Int32 = SIGTERM) async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.stopNow(signal)) }.start()
        }
    }

    /// `stop` where nothing can wait (a `defer`): blocks the calling thread.
    package func stopNow(_ signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }
}
