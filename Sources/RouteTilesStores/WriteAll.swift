import Foundation
import RouteTilesModel

/// Writes all of `bytes` to an open file descriptor: `write` again after a short write or an interrupted call,
/// so that a file opened with O_APPEND gets the whole line in one piece. A failure throws `StoreError` for `path`,
/// its message `failure` followed by the system's reason (`cannot write: No space left on device`).
package func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String, failure: String) throws {
    try bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        var offset = 0
        while offset < raw.count {
            let n = write(descriptor, base + offset, raw.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError(path: path, message: "\(failure): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }
}
