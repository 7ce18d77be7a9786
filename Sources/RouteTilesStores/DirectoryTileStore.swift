import Foundation
import RouteTilesBuild
import RouteTilesModel
import Synchronization

/// Writes a `{z}/{x}/{y}.mvt` pyramid (`.png`, `@2x.png`, `@3x.png` for raster tiles) atomically: tiles go into a staging folder beside the destination,
/// `.NAME.partial-PID`, which replaces the destination in one rename at `commit()`. Until then the destination is
/// untouched, so an interrupted build leaves the previous pyramid as it was; `abort()` removes the staging
/// folder, and a later build sweeps away staging folders whose process is gone (after `kill -9`).
public final class DirectoryTileStore: TileSink {
    /// Where the pyramid will be once committed.
    public let destination: URL
    let staging: URL
    /// How each tile's file name ends (`.mvt`, `.png`, `@2x.png`), as the server's tile URLs end.
    let tileEnding: String
    private let place: StagingPlace
    /// Writes under way and whether `abort()` has begun: abort waits for the writes in flight, and no write
    /// starts after it, so no worker can re-create a folder in the staging tree while it is being removed.
    private let writes = Mutex(WriteState())

    private struct WriteState {
        var inFlight = 0
        var aborted = false
        var removed = false
        var committed = false
    }

    /// Prepares a build of tiles of `tileFormat` into `destination`. Unless `replace`, an existing destination is
    /// an error.
    public init(destination: URL, replace: Bool, tileFormat: TileFormat = .mvt) throws {
        tileEnding = tileFormat.fileEnding
        place = try StagingPlace(destination: destination, replace: replace, folder: true)
        self.destination = place.destination
        staging = place.staging
        try? FileManager.default.removeItem(at: staging)
        guard mkdir(staging.path, 0o755) == 0 else {
            throw StoreError(path: staging.path, message: "cannot create staging folder: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes the tile's file into the staging folder.
    public func put(_ tile: TileID, gzipData: [UInt8]) throws {
        try beginWrite()
        defer { endWrite() }
        let zPath = staging.path + "/\(tile.z)"
        let xPath = zPath + "/\(tile.x)"
        let path = xPath + "/\(tile.y)" + tileEnding
        // The first tile of a column finds no folder: make it (another thread may be making it too) and retry.
        if try Self.writeFile(path, gzipData, missingFolderIsError: false) { return }
        for folder in [zPath, xPath] where mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw StoreError(path: folder, message: "cannot create folder: \(String(cString: strerror(errno)))")
        }
        try Self.writeFile(path, gzipData)
    }

    /// Writes a small file (metadata) into the pyramid before commit.
    public func putFile(named name: String, contents: [UInt8]) throws {
        try beginWrite()
        defer { endWrite() }
        try Self.writeFile(staging.path + "/" + name, contents)
    }

    /// Moves the finished pyramid into place, replacing what was there.
    ///
    /// Under the same lock as `abort()`, so that an interruption that lands while the last tiles are written and
    /// the commit begins can neither remove the staging folder in the middle of its rename nor follow a finished
    /// commit by removing anything: one of the two happens whole.
    public func commit() throws {
        try writes.withLock { state in
            guard !state.aborted else { throw place.aborted }
            try moveIntoPlace()
            state.committed = true
        }
    }

    private func moveIntoPlace() throws {
        let fm = FileManager.default
        var retired: URL?
        if fm.fileExists(atPath: destination.path) {
            let old = place.aside
            try? fm.removeItem(at: old)
            guard rename(destination.path, old.path) == 0 else {
                throw StoreError(path: destination.path, message: "cannot move aside: \(String(cString: strerror(errno)))")
            }
            retired = old
        }
        guard rename(staging.path, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            if let retired { _ = rename(retired.path, destination.path) }
            throw StoreError(path: destination.path, message: "cannot move the new pyramid into place: \(reason)")
        }
        if let retired { try? fm.removeItem(at: retired) }
    }

    /// Removes the staging folder; the destination stays as it was. Safe to call from another thread (a signal
    /// handler) while workers are writing: writes in flight finish first and later writes fail.
    /// Idempotent: a second caller (the build's error path while a signal handler aborts) returns only once the
    /// staging folder is gone.
    public func abort() {
        let (first, committed) = writes.withLock { state -> (Bool, Bool) in
            defer { state.aborted = true }
            return (!state.aborted, state.committed)
        }
        // Committed: the staging folder is the destination now.
        if committed { return }
        while writes.withLock({ $0.inFlight }) > 0 { usleep(1_000) }
        if first {
            try? FileManager.default.removeItem(at: staging)
            writes.withLock { $0.removed = true }
        } else {
            while !writes.withLock({ $0.removed }) { usleep(1_000) }
        }
    }

    private func beginWrite() throws {
        let aborted = writes.withLock { state in
            if !state.aborted { state.inFlight += 1 }
            return state.aborted
        }
        if aborted { throw place.aborted }
    }

    private func endWrite() {
        writes.withLock { $0.inFlight -= 1 }
    }

    /// Writes a whole file. Returns false, having written nothing, when its folder is missing and
    /// `missingFolderIsError` is false.
    @discardableResult
    static func writeFile(_ path: String, _ bytes: [UInt8], missingFolderIsError: Bool = true) throws -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if fd < 0 && errno == ENOENT && !missingFolderIsError { return false }
        guard fd >= 0 else { throw StoreError(path: path, message: "cannot create: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try writeAll(bytes, to: fd, path: path, failure: "cannot write")
        return true
    }
}
