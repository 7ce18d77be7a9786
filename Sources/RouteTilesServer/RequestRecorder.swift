import Hummingbird
import HTTPTypes

/// Counts every answered request in the metrics and writes its access-log line: a wrapper around the whole
/// dispatch table, and called by the cached-tile fast path for its answers.
struct RequestRecorder: Sendable {
    let metrics: ServerMetrics
    /// One line a request, buffered; nil when the log level is above `info`.
    let accessLog: AccessLog?

    /// When a request started, if its line is logged (the clock is read only then).
    func start() -> ContinuousClock.Instant? {
        accessLog == nil ? nil : ContinuousClock.now
    }

    func record(method: HTTPRequest.Method, path: @autoclosure () -> String, status: Int, bytes: Int,
                started: ContinuousClock.Instant?) {
        count(status: status, bytes: bytes)
        if let accessLog, let started {
            accessLog.record(method: method.rawValue, path: path().utf8, status: status, bytes: bytes,
                             milliseconds: Self.milliseconds(since: started))
        }
    }

    /// `record` of a path read in place from the request's bytes (the fast path's): no string is made of it.
    func record(method: HTTPRequest.Method, path: UnsafeRawBufferPointer, status: Int, bytes: Int,
                started: ContinuousClock.Instant?) {
        count(status: status, bytes: bytes)
        if let accessLog, let started {
            accessLog.record(method: method.rawValue, path: path, status: status, bytes: bytes,
                             milliseconds: Self.milliseconds(since: started))
        }
    }

    private func count(status: Int, bytes: Int) {
        metrics.countRequest(status: status)
        metrics.bytesSent.increment(by: bytes)
    }

    static func milliseconds(since started: ContinuousClock.Instant) -> Double {
        let elapsed = (ContinuousClock.now - started).components
        return Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds / 1_000_000_000_000) / 1000
    }

    /// `handler`, counted while in flight and recorded once answered.
    func wrap(_ handler: @escaping APIOperation.Handler) -> APIOperation.Handler {
        { request, context in
            let started = start()
            metrics.requestStarted()
            defer { metrics.requestEnded() }
            let response = await handler(request, context)
            // Body bytes: a HEAD answer sends the Content-Length of a GET but no body.
            let bytes = request.method == .head ? 0 : response.headers[.contentLength].flatMap { Int($0) } ?? 0
            record(method: request.method, path: request.uri.path, status: response.status.code, bytes: bytes,
                   started: started)
            return response
        }
    }
}
