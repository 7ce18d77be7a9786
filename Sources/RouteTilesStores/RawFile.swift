import Foundation
import RouteTilesModel

/// A file opened by descriptor, with whole writes and positioned reads, and errors naming the path.
/// Positioned reads (`read(at:count:)`) may run from several threads at once; writes need one writer.
final class RawFile: Sendable {
    let path: String
    let fd: Int32

    /// Opens for reading, or creates (truncating) for reading and writing.
    init(path: String, create: Bool) throws {
        self.path = path
        fd = create ? open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644) : open(path, O_RDONLY)
        guard fd >= 0 else {
            throw StoreError(path: path, message: "cannot \(create ? "create" : "open"): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    func error(_ what: String) -> StoreError {
        StoreError(path: path, message: "cannot \(what): \(String(cString: strerror(errno)))")
    }

    func write(_ bytes: [UInt8]) throws {
        try writeAll(bytes, to: fd, path: path, failure: "cannot write")
    }

    /// Reads exactly `count` bytes at `offset`; fewer at the end of the file is an error.
    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        try out.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            while done < count {
                let n = pread(fd, base + done, count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw error("read")
                }
                if n == 0 { throw StoreError(path: path, message: "truncated: \(count) bytes wanted at offset \(offset)") }
                done += n
            }
        }
        return out
    }

    var size: UInt64 {
        var info = stat()
        return fstat(fd, &info) == 0 ? UInt64(info.st_size) : 0
    }

    func sync() throws {
        guard fsync(fd) == 0 else { throw error("sync") }
    }
}
