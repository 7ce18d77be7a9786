#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import RouteTilesModel

/// Reads a file in fixed-size chunks and hands out its records (the bytes between separators), so that a file of
/// any size is read in memory bounded by the chunk plus the longest record.
final class ChunkedInput {
    let path: String
    private let descriptor: Int32
    private var chunk: [UInt8]
    private var carry: [UInt8] = []
    private var chunkStart = 0
    private var chunkEnd = 0
    private var atEnd = false
    /// 1-based line of the next record's first byte.
    private(set) var line = 1

    init(path: String, chunkSize: Int = 1 << 20) throws(InputError) {
        self.path = path
        descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw InputError(file: path, message: "cannot read file: " + String(cString: strerror(errno)))
        }
        chunk = [UInt8](repeating: 0, count: max(chunkSize, 16))
    }

    deinit { _ = close(descriptor) }

    /// The first bytes of a file (up to `count`), for detecting its format.
    static func head(ofPath path: String, count: Int = 65536) throws(InputError) -> [UInt8] {
        let input = try ChunkedInput(path: path, chunkSize: count)
        guard try input.fill() else { return [] }
        return Array(input.chunk[0..<input.chunkEnd])
    }

    private func fill() throws(InputError) -> Bool {
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                chunkStart = 0
                chunkEnd = count
                return true
            }
            if count == 0 {
                atEnd = true
                return false
            }
            if errno != EINTR {
                throw InputError(file: path, message: "cannot read file: " + String(cString: strerror(errno)))
            }
        }
    }

    /// The file's next chunk as read, or nil at its end; valid until the next call.
    func nextChunk() throws(InputError) -> ArraySlice<UInt8>? {
        guard !atEnd, try fill() else { return nil }
        return chunk[0..<chunkEnd]
    }

    /// Calls `body` with each record (separated by a line feed or an RS, 0x1E) and the line it starts on; the
    /// bytes are valid only during the call.
    func forEachRecord(_ body: (ArraySlice<UInt8>, Int) throws -> Void) throws {
        var recordLine = line
        while true {
            if chunkStart >= chunkEnd {
                guard !atEnd, try fill() else { break }
            }
            var index = chunkStart
            while index < chunkEnd {
                let byte = chunk[index]
                if byte == 0x0A || byte == 0x1E {
                    if carry.isEmpty {
                        try body(chunk[chunkStart..<index], recordLine)
                    } else {
                        carry.append(contentsOf: chunk[chunkStart..<index])
                        try body(carry[...], recordLine)
                        carry.removeAll(keepingCapacity: carry.capacity <= 1 << 22)
                    }
                    if byte == 0x0A { line += 1 }
                    recordLine = line
                    chunkStart = index + 1
                }
                index += 1
            }
            carry.append(contentsOf: chunk[chunkStart..<chunkEnd])
            chunkStart = chunkEnd
        }
        if !carry.isEmpty {
            try body(carry[...], recordLine)
            carry.removeAll()
        }
    }
}
