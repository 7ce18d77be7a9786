import Logging
import Synchronization
import RouteTilesCoreTestSupport

/// A swift-log handler that keeps the messages logged through it, for tests that check what a component says.
package struct RecordingLogHandler: LogHandler {
    package final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        package init() {}
        package func append(_ line: String) { lines.withLock { $0.append(line) } }
        package var all: [String] { lines.withLock { $0 } }
    }

    package let lines: Lines
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .trace

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        lines.append("\(event.level): \(event.message)")
    }

    /// A logger whose messages go to `lines`.
    package static func logger(into lines: Lines) -> Logger {
        Logger(label: "recorded") { _ in RecordingLogHandler(lines: lines) }
    }
}
