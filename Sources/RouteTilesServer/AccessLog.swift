import Dispatch
import Foundation
import ServiceLifecycle
import Synchronization

/// The access log: one line a request on standard error, as swift-log's stream handler writes them
/// (`2026-11-24T06:10:00+0000 info routetiles: GET /tiles/14/8299/5636.mvt 200 1432 0.061ms`), but buffered: a
/// request appends its line to a buffer under a lock and returns; a queue of the log's own writes the buffer out
/// when it reaches 64 KB, and `AccessLogFlusher` every second, so a request never waits for the write. If standard error
/// cannot keep up (a blocked pipe), lines past `maximumPending` bytes are dropped and counted, never held without
/// bound.
final class AccessLog: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var pending = 0
        var second: time_t = -1
        var stamp: [UInt8] = []
        var dropped = 0
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "routetiles.access-log")
    private let descriptor: Int32
    private let label: String
    let bufferLimit = 64 << 10
    let maximumPending = 8 << 20

    init(label: String, descriptor: Int32 = STDERR_FILENO) {
        self.label = label
        self.descriptor = descriptor
    }

    /// Lines dropped because standard error did not keep up.
    var dropped: Int { state.withLock { $0.dropped } }

    /// Appends one request's line.
    func record(method: String, path: String, status: Int, bytes: Int, milliseconds: Double) {
        let now = time(nil)
        let full = state.withLock { state -> [UInt8]? in
            if now != state.second {
                state.second = now
                state.stamp = Array(Self.timestamp(now).utf8)
            }
            guard state.pending + state.buffer.count < maximumPending else {
                state.dropped += 1
                return nil
            }
            state.buffer.append(contentsOf: state.stamp)
            state.buffer.append(contentsOf: " info \(label): \(method) \(path) \(status) \(bytes) \(Self.format(milliseconds))ms\n".utf8)
            guard state.buffer.count >= bufferLimit else { return nil }
            defer { state.buffer = []; state.buffer.reserveCapacity(bufferLimit + 512) }
            state.pending += state.buffer.count
            return state.buffer
        }
        if let full { queue.async { self.write(full) } }
    }

    /// Writes what is buffered, off the caller's thread.
    func flush() {
        let chunk = state.withLock { state -> [UInt8] in
            defer { state.buffer = [] }
            state.pending += state.buffer.count
            return state.buffer
        }
        guard !chunk.isEmpty else { return }
        queue.async { self.write(chunk) }
    }

    /// Writes what is buffered and waits until every line handed over is written (at shutdown).
    func drain() {
        flush()
        queue.sync {}
    }

    private func write(_ chunk: [UInt8]) {
        chunk.withUnsafeBytes { raw in
            guard let start = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(descriptor, start + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                offset += n
            }
        }
        state.withLock { $0.pending -= chunk.count }
    }

    /// `2026-11-24T06:10:00+0000`, in UTC, as swift-log's stream handler writes its timestamps.
    static func timestamp(_ seconds: time_t) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))+0000"
    }

    /// Milliseconds with three decimals.
    static func format(_ milliseconds: Double) -> String {
        let micros = Int((milliseconds * 1000).rounded())
        let fraction = micros % 1000
        return "\(micros / 1000)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
    }
}

/// Writes out the access log's buffer every `interval`, and all of it when the service group shuts down, so that
/// no line waits long or is lost at exit.
struct AccessLogFlusher: Service {
    let log: AccessLog
    var interval: Duration = .seconds(1)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                log.flush()
            }
        }
        log.drain()
    }
}
