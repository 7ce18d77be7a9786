import Foundation
import RouteTiles
import RouteTilesCoreTestSupport

/// Runs programs for end-to-end tests: our own CLI, and independent decoders.
package enum ExternalTool {
    package struct Result {
        package var status: Int32
        package var stdout: [UInt8]
        package var stderr: String
        package var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The folder holding the built products (the CLI binary sits beside the test bundle).
    package static var productsFolder: URL {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = exe.deletingLastPathComponent()
        // On Linux the tests run from .build/<config>/<Package>PackageTests.xctest.
        while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("routetiles").path) {
            folder = folder.deletingLastPathComponent()
        }
        return folder
    }

    package static var routetiles: String { productsFolder.appendingPathComponent("routetiles").path }

    /// What a running `process` writes to `handle` until the text holds `marker`, the output ends, or `seconds` pass:
    /// how tests wait for a server they started to say where it listens.
    package static func read(_ handle: FileHandle, of process: Process, until marker: String, seconds: Double = 60) -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(seconds)
        while !text.contains(marker), Date() < deadline, process.isRunning {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    /// Runs a server `process` and waits for it to print where it listens: reads `handle` (the read end of its output
    /// or error pipe) until `marker`, then returns that text and the first match of `address` in it. Without a match
    /// it stops the process and throws.
    package static func startServer(_ process: Process, printingOn handle: FileHandle, until marker: String,
                            address: String) throws -> (text: String, address: String) {
        try process.run()
        let text = read(handle, of: process, until: marker)
        guard let range = text.range(of: address, options: .regularExpression) else {
            process.terminate()
            throw InputError(file: process.executableURL?.lastPathComponent ?? "server",
                             message: "no address printed: \(text)")
        }
        return (text, String(text[range]))
    }

    /// Runs a shell `script` in a session of its own (setsid), not waited for: a watchdog that outlives this
    /// process, to stop what a test started if the test process ends first.
    package static func startWatchdog(_ script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["/bin/sh", "-c", script]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Whether `name` is on the PATH.
    package static func available(_ name: String) -> Bool {
        (try? run("/usr/bin/env", ["which", name]).status == 0) ?? false
    }

    /// Whether a Python module imports.
    package static func pythonHas(_ module: String) -> Bool {
        (try? run("/usr/bin/env", ["python3", "-c", "import \(module)"]).status == 0) ?? false
    }

    /// Tests that need an independent tool run in CI (where `.ci/run` installs it) or wherever it is present.
    package static func required(_ present: Bool) -> Bool {
        present || ProcessInfo.processInfo.environment["CI"] != nil
    }

    /// Runs `python3 -c script`.
    package static func python(_ script: String, stdin: [UInt8] = []) throws -> Result {
        try run("/usr/bin/env", ["python3", "-c", script], stdin: stdin)
    }

    /// `run` on a thread of its own. Async tests wait for it without holding one of the concurrency pool's threads,
    /// which are as few as the cores and which the in-process servers of other tests need.
    package static func runDetached(_ executable: String, _ arguments: [String], stdin: [UInt8]? = nil,
                            environment: [String: String] = [:], timeout: Double = 120) async throws -> Result {
        try await onThread { try run(executable, arguments, stdin: stdin, environment: environment, timeout: timeout) }
    }

    /// Runs `body` on a thread of its own, so that a blocking wait (a process, a port, a sleep) holds no thread of
    /// the concurrency pool: the pool has as many threads as cores (2), and every in-process server of a test run
    /// stalls while they are blocked.
    package static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
        }
    }

    /// `python` on a thread of its own (see `runDetached`).
    package static func pythonDetached(_ script: String, stdin: [UInt8] = []) async throws -> Result {
        try await runDetached("/usr/bin/env", ["python3", "-c", script], stdin: stdin)
    }

    /// Runs a program to completion (killed after `timeout` seconds) and collects its output. `environment` is
    /// added to this process's.
    @discardableResult
    package static func run(_ executable: String, _ arguments: [String], stdin: [UInt8]? = nil,
                    environment: [String: String] = [:], timeout: Double = 120) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Feed stdin from another thread, so that a child that writes before it has read everything cannot block.
        let writer = input.fileHandleForWriting
        let feed = Data(stdin ?? [])
        DispatchQueue.global().async {
            writer.write(feed)
            try? writer.close()
        }
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        // Drain stderr on another thread while reading stdout, so that neither pipe can fill up and block the child.
        let errBox = ErrorOutput()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { errBox.data = err.fileHandleForReading.readDataToEndOfFile() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let errData = errBox.data
        process.waitUntilExit()
        timer.cancel()
        return Result(status: process.terminationStatus, stdout: Array(outData),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// Stderr collected on another thread; read only after that thread is done (DispatchGroup.wait).
private final class ErrorOutput: @unchecked Sendable {
    package var data = Data()
}
