import Foundation
import Testing

/// Starts a long `routetiles build` of `input` into `out` (z0–18, --force), sends it `signal` once `isWriting` (given
/// the build's process id, asked every 5 ms for up to 30 s) says it is writing its output, and returns its exit
/// status and process id (which names its staging files). The watching runs on a thread of its own: on the
/// concurrency pool, busy with other tests, a poll could wake only after the build had finished, and the signal
/// would come too late.
package func interruptedBuild(input: String, out: String, signal: Int32,
                      isWriting: @escaping @Sendable (Int32) -> Bool) async throws -> (status: Int32, pid: Int32) {
    let (status, pid, wasRunning) = try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: ExternalTool.routetiles)
                process.arguments = ["build", input, "-o", out, "--maxzoom", "18", "--force", "--quiet"]
                process.standardError = FileHandle.nullDevice
                try process.run()
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline && process.isRunning && !isWriting(process.processIdentifier) { usleep(5_000) }
                let wasRunning = process.isRunning
                kill(process.processIdentifier, signal)
                process.waitUntilExit()
                return (process.terminationStatus, process.processIdentifier, wasRunning)
            })
        }.start()
    }
    #expect(wasRunning, "the build ended before it could be interrupted")
    return (status, pid)
}
