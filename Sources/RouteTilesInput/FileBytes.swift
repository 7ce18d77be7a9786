#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import RouteTilesModel

/// Reads whole files with POSIX calls, so that a failure carries the system's reason ("No such file or directory").
package enum FileBytes {
    /// The whole file, or an error saying why it cannot be read.
    package static func contents(atPath path: String) throws(InputError) -> [UInt8] {
        func failure() -> InputError {
            let reason = String(cString: strerror(errno))
            return InputError(file: path, message: "cannot read file: \(reason)")
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure() }
        defer { _ = close(descriptor) }

        var status = stat()
        let expectedSize = fstat(descriptor, &status) == 0 ? max(Int(status.st_size), 0) : 0
        var bytes: [UInt8] = []
        bytes.reserveCapacity(expectedSize + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes.append(contentsOf: chunk[0..<count])
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                throw failure()
            }
        }
    }
}
