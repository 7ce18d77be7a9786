import Foundation

/// Every write, one JSON object a line, appended to a file that no credential can reach (the server never serves it):
/// when, who (the credential's subject), from where (the client's address), what (method, path, the route ids) and
/// how it ended (the status). Each line goes out in one `write(2)` on a descriptor opened with `O_APPEND`, so lines
/// of several servers appending to one file do not interleave, and a line written is in the file even if the
/// server is killed after.
public final class AuditLog: Sendable {
    public struct Entry: Encodable, Sendable {
        public var time: String
        public var subject: String?
        public var address: String?
        public var method: String
        public var path: String
        public var ids: [String]?
        public var status: Int

        public init(time: String, subject: String?, address: String?, method: String, path: String, ids: [String]?,
                    status: Int) {
            self.time = time
            self.subject = subject
            self.address = address
            self.method = method
            self.path = path
            self.ids = ids
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

    /// Appends `entry` as one line; false when the line could not be written whole (the disk full, say).
    @discardableResult
    public func record(_ entry: Entry) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(entry) else { return false }
        line.append(0x0a)
        return line.withUnsafeBytes { bytes in
            Foundation.write(descriptor, bytes.baseAddress, bytes.count) == bytes.count
        }
    }
}
