import Dispatch
import Foundation
import Synchronization

/// Runs a cleanup when the process is interrupted (SIGINT, SIGTERM, SIGHUP), then exits with 128 + the signal,
/// so that Ctrl-C or `kill` during a build leaves no staging folder behind.
final class InterruptCleanup: @unchecked Sendable {
    // Unchecked: `sources` is written once in init and only read afterwards (in `cancel`).
    private var sources: [any DispatchSourceSignal] = []
    /// Set as soon as a signal arrives, before the cleanup runs.
    private let interrupted = Atomic<Bool>(false)

    init(_ cleanup: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in
                self.interrupted.store(true, ordering: .sequentiallyConsistent)
                cleanup()
                FileHandle.standardError.write(Data("\ninterrupted: the output was left as it was\n".utf8))
                exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// When a signal has arrived, never returns: the handler is cleaning up and will exit with the signal's
    /// status. The build's own error path calls this, so that it neither exits first (with the wrong status, in
    /// the middle of the cleanup) nor reports the error the interruption caused.
    func waitIfInterrupted() {
        guard interrupted.load(ordering: .sequentiallyConsistent) else { return }
        while true { sleep(60) }
    }

    func cancel() {
        for source in sources { source.cancel() }
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] { signal(signalNumber, SIG_DFL) }
    }
}
