import Dispatch
import Foundation

/// Runs a cleanup when the process is interrupted (SIGINT, SIGTERM, SIGHUP), then exits with 128 + the signal,
/// so that Ctrl-C or `kill` during a build leaves no staging folder behind.
final class InterruptCleanup: @unchecked Sendable {
    // Unchecked: `sources` is written once in init and only read afterwards (in `cancel`).
    private var sources: [any DispatchSourceSignal] = []

    init(_ cleanup: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                cleanup()
                FileHandle.standardError.write(Data("\ninterrupted: the output was left as it was\n".utf8))
                exit(128 + signalNumber)
            }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        for signalNumber in [SIGINT, SIGTERM, SIGHUP] { signal(signalNumber, SIG_DFL) }
    }
}
