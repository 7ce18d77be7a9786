import Foundation
import RouteTiles
import Synchronization

/// The tiles a seed job has finished, in an append-only file of `z/x/y` lines. Each line is written as its tile
/// finishes (so a killed process loses none) and the file is synced every `batch` tiles and at `close()` (so a
/// machine crash loses at most a batch). The same job run again skips what it had done; a line cut short is ignored.
package final class SeedCheckpoint: Sendable {
    package let path: String
    /// Tiles recorded by earlier runs.
    package let done: Set<TileID>
    private let state: Mutex<State>
    private let batch: Int

    private struct State {
        var descriptor: Int32
        var unsynced = 0
    }

    package init(path: String, batch: Int = 256) throws {
        self.path = path
        self.batch = max(1, batch)
        var done = Set<TileID>()
        if let data = FileManager.default.contents(atPath: path) {
            done = try Self.parse(data, path: path)
            // Drop a cut-short last line so that appends start on a fresh line.
            let complete = (data.lastIndex(of: 0x0a).map { $0 + 1 }) ?? 0
            if complete < data.count { truncate(path, off_t(complete)) }
        }
        self.done = done
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw StoreError(path: path, message: "cannot open the checkpoint: \(String(cString: strerror(errno)))")
        }
        state = Mutex(State(descriptor: fd))
    }

    /// The tiles recorded in a checkpoint file, read without opening it for writing (none if it does not exist).
    package static func tilesDone(path: String) throws -> Set<TileID> {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return try parse(data, path: path)
    }

    /// The complete lines of a checkpoint; the last piece, without a newline, is empty or cut short and ignored.
    static func parse(_ data: Data, path: String) throws -> Set<TileID> {
        var done = Set<TileID>()
        var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()
        for (k, line) in lines.enumerated() {
            guard let tile = TileID(String(line)) else {
                throw InputError(file: path, location: .line(k + 1, column: 1), message: "not a z/x/y tile: '\(line)'")
            }
            done.insert(tile)
        }
        return done
    }

    deinit { state.withLock { _ = Glibc.close($0.descriptor) } }

    /// Records a finished tile.
    package func record(_ tile: TileID) throws {
        try state.withLock { s in
            // One `write` of the whole line to a file opened with O_APPEND.
            try writeAll(Array("\(tile.z)/\(tile.x)/\(tile.y)\n".utf8), to: s.descriptor, path: path,
                         failure: "cannot write the checkpoint")
            s.unsynced += 1
            if s.unsynced >= batch {
                fsync(s.descriptor)
                s.unsynced = 0
            }
        }
    }

    /// Syncs the file.
    package func close() throws {
        state.withLock { s in
            fsync(s.descriptor)
            s.unsynced = 0
        }
    }
}
