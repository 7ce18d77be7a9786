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
    /// ` info LABEL: `, what follows the timestamp on every line.
    private let levelAndLabel: [UInt8]
    let bufferLimit = 64 << 10
    let maximumPending = 8 << 20

    init(label: String, descriptor: Int32 = STDERR_FILENO) {
        levelAndLabel = Array(" info \(label): ".utf8)
        self.descriptor = descriptor
    }

    /// Lines dropped because standard error did not keep up.
    var dropped: Int { state.withLock { $0.dropped } }

    /// Appends one request's line. The line is written straight into the buffer, numbers digit by digit: no string
    /// is made for it (it is written once per request, and was the larger part of a cached tile's cost with logs on).
    func record<Path: Collection<UInt8>>(method: String, path: Path, status: Int, bytes: Int, milliseconds: Double) {
        let now = time(nil)
        let micros = Int((milliseconds * 1000).rounded())
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
            state.buffer.append(contentsOf: levelAndLabel)
            state.buffer.append(contentsOf: method.utf8)
            state.buffer.append(Self.space)
            state.buffer.append(contentsOf: path)
            state.buffer.append(Self.space)
            Self.appendDecimal(status, to: &state.buffer)
            state.buffer.append(Self.space)
            Self.appendDecimal(bytes, to: &state.buffer)
            state.buffer.append(Self.space)
            Self.appendMilliseconds(micros: micros, to: &state.buffer)
            state.buffer.append(contentsOf: Self.lineEnd)
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

    private static let space = UInt8(ascii: " ")
    private static let lineEnd = Array("ms\n".utf8)

    /// The decimal digits of `n` (a negative one with its sign).
    static func appendDecimal(_ n: Int, to buffer: inout [UInt8]) {
        if n < 0 { buffer.append(UInt8(ascii: "-")) }
        var value = n.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { slots in
            repeat {
                slots[19 - count] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
                count += 1
            } while value > 0
            buffer.append(contentsOf: slots[(20 - count)...])
        }
    }

    /// Milliseconds with three decimals, from microseconds: `0.061`, `12.345`.
    static func appendMilliseconds(micros: Int, to buffer: inout [UInt8]) {
        let fraction = abs(micros % 1000)
        if micros < 0, micros > -1000 { buffer.append(UInt8(ascii: "-")) }
        appendDecimal(micros / 1000, to: &buffer)
        buffer.append(UInt8(ascii: "."))
        if fraction < 100 { buffer.append(UInt8(ascii: "0")) }
        if fraction < 10 { buffer.append(UInt8(ascii: "0")) }
        appendDecimal(fraction, to: &buffer)
    }

    /// Milliseconds with three decimals, as a line has them.
    static func format(_ milliseconds: Double) -> String {
        var bytes: [UInt8] = []
        appendMilliseconds(micros: Int((milliseconds * 1000).rounded()), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
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
