import Logging
import Synchronization

/// A swift-log handler that keeps the messages logged through it, for tests that check what a component says.
struct RecordingLogHandler: LogHandler {
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append("\(event.level): \(event.message)")
    }

    /// A logger whose messages go to `lines`.
    static func logger(into lines: Lines) -> Logger {
        Logger(label: "recorded") { _ in RecordingLogHandler(lines: lines) }
    }
}
