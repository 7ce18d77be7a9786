import Foundation
import Synchronization

/// Spaces requests to at most `rate` per second across all tasks: each caller gets the next free slot and
/// sleeps until it.
package final class RequestPacer: Sendable {
    private let interval: Double
    private let next = Mutex<Double>(0)

    package init(rate: Double) {
        interval = rate > 0 ? 1 / rate : 0
    }

    package func wait() async {
        guard interval > 0 else { return }
        let now = ProcessInfo.processInfo.systemUptime
        let slot = next.withLock { next -> Double in
            let slot = max(now, next)
            next = slot + interval
            return slot
        }
        let delay = slot - now
        if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }
    }
}
