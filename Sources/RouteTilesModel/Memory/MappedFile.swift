#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file mapped read-only into memory, for readers that walk a whole document (a GeoJSON FeatureCollection) without
/// copying it. Registered with the current `SpillSpace`, its pages are unmapped with the columns' when the build goes
/// past its memory budget, and read back from the page cache (or the disk) as the reader moves on.
package final class MappedFile {
    let path: String
    package let bytes: UnsafeBufferPointer<UInt8>
    private let length: Int
    private let registration: (space: SpillSpace, id: Int)?

    /// Maps `path`; nil for an empty file (nothing to map), an error when it cannot be opened or mapped.
    package init?(path: String) throws(InputError) {
        self.path = path
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw InputError(file: path, message: "cannot read file: " + String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw InputError(file: path, message: "cannot read file: " + String(cString: strerror(errno)))
        }
        let size = Int(status.st_size)
        guard size > 0 else { return nil }
        guard let start = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), start != MAP_FAILED else {
            throw InputError(file: path, message: "cannot map file: " + String(cString: strerror(errno)))
        }
        madvise(start, size, MADV_SEQUENTIAL)
        length = size
        bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: size)
        registration = SpillSpace.current.map { ($0, $0.register(start, length: size)) }
    }

    deinit {
        let start = UnsafeMutableRawPointer(mutating: bytes.baseAddress)
        if let registration {
            registration.space.unregister(registration.id) { _ = munmap(start, length) }
        } else {
            munmap(start, length)
        }
    }
}
