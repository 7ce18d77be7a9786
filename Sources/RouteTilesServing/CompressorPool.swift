import Foundation
import RouteTilesTiling

/// Gzip compressors reused across tile generations (a reused zlib stream is about 4× faster than a new one for
/// small tiles). Each is used by one thread at a time.
package final class CompressorPool: @unchecked Sendable {
    // Unchecked: `free` is only touched under `lock`, and a compressor is owned by one caller between take and give.
    private let lock = NSLock()
    private var free: [GzipCompressor] = []
    private let level: Int32

    package init(level: Int32 = 6) {
        self.level = level
    }

    package func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        lock.lock()
        let reused = free.popLast()
        lock.unlock()
        let compressor = try reused ?? GzipCompressor(level: level)
        let out = try compressor.compress(bytes)
        lock.lock()
        if free.count < 16 { free.append(compressor) }
        lock.unlock()
        return out
    }
}
