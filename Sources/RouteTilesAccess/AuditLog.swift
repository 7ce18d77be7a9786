import Foundation

/// Every write, one JSON object a line per route it names, appended to a file that no credential can reach (the
/// server never serves it): when (`time`), who (`sub`, the credential's subject), from where (`remote`, the client's
/// address), what (`action`, `route`, with the request's `method` and `path`) and how it ended (`status`). The lines
/// of one request go out in one `write(2)` on a descriptor opened with `O_APPEND`, so lines of several servers
/// appending to one file do not interleave, and a line written is in the file even if the server is killed after.
public final class AuditLog: Sendable {
    public struct Entry: Encodable, Sendable {
        public var time: String
        public var sub: String?
        public var remote: String?
        /// `create`, `replace`, `delete` or `append`.
        public var action: String
        /// The route's id; nil when the request named none that could be read (a body that does not parse).
        public var route: String?
        public var method: String
        public var path: String
        public var status: Int

        public init(time: String, sub: String?, remote: String?, action: String, route: String?, method: String,
                    path: String, status: Int) {
            self.time = time
            self.sub = sub
            self.remote = remote
            self.action = action
            self.route = route
            self.method = method
            self.path = path
            self.status = status
        }
    }

    public let path: String
    private let descriptor: Int32

    /// Opens (or creates, mode 0600) the log at `path` for appending.
    public init(path: String) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw KeyProblem("--audit-log \(path): cannot open it for appending (\(String(cString: strerror(errno))))")
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Appends `entries`, a line each, in one write; false when they could not be written whole (the disk full).
    @discardableResult
    public func record(_ entries: [Entry]) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines = Data()
        for entry in entries {
            guard let line = try? encoder.encode(entry) else { return false }
            lines.append(line)
            lines.append(0x0a)
        }
        return lines.withUnsafeBytes { bytes in
            Foundation.write(descriptor, bytes.baseAddress, bytes.count) == bytes.count
        }
    }
}
