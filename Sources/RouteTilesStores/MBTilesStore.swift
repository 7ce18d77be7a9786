import Foundation
import RouteTilesBuild
import RouteTilesModel
import RouteTilesSQLite
import Synchronization

/// Writes an MBTiles 1.3 archive: the `metadata` table (tippecanoe's pairs, `json` holding `vector_layers`) and a
/// `tiles` table of gzip MVT with TMS rows (`tile_row = 2^z − 1 − y`) under a unique index. Tiles go into a staging
/// file in transactions of a few thousand; `commit()` closes it and renames it over the destination.
public final class MBTilesStore: TileStore {
    let place: StagingPlace
    private let state: Mutex<State>

    private struct State: ~Copyable {
        var database: SQLiteDatabase?
        var insert: SQLiteDatabase.Statement?
        var pending = 0
        var aborted = false
    }

    /// Tiles per transaction.
    static let batch = 4096

    /// Prepares an archive to be written to `destination`, in a staging file beside it.
    /// - Throws: ``StoreError`` when `destination` exists and `replace` is false, or the staging file cannot be made.
    public init(destination: URL, replace: Bool) throws {
        place = try StagingPlace(destination: destination, replace: replace)
        do {
            let db = try SQLiteDatabase(path: place.staging.path, readOnly: false)
            // The staging file is thrown away on failure, so SQLite needs neither a journal nor syncs.
            try db.execute("""
                PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA application_id = 1297105496;
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE UNIQUE INDEX name ON metadata (name);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                BEGIN;
                """)
            let insert = try db.prepare("INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)")
            state = Mutex(State(database: db, insert: insert))
        } catch {
            place.discard()
            throw error
        }
    }

    /// The TMS row of a tile: rows count from the south.
    static func tmsRow(_ tile: TileID) -> Int { (1 << tile.z) - 1 - tile.y }

    /// Inserts the tile into the staging file.
    public func put(_ tile: TileID, gzipData: [UInt8]) throws {
        try state.withLock { s in
            guard !s.aborted, let db = s.database, let insert = s.insert else { throw place.aborted }
            insert.bind(1, tile.z)
            insert.bind(2, tile.x)
            insert.bind(3, Self.tmsRow(tile))
            insert.bind(4, gzipData)
            try insert.run()
            s.pending += 1
            if s.pending >= Self.batch {
                try db.execute("COMMIT; BEGIN;")
                s.pending = 0
            }
        }
    }

    /// Writes the `metadata` table.
    public func putMetadata(_ metadata: TilesetMetadata) throws {
        try state.withLock { s in
            guard !s.aborted, let db = s.database else { throw place.aborted }
            let statement = try db.prepare("INSERT OR REPLACE INTO metadata (name, value) VALUES (?, ?)")
            for (name, value) in metadata.pairs {
                statement.bind(1, name)
                statement.bind(2, value)
                try statement.run()
            }
        }
    }

    /// Closes the staging file and renames it over the destination.
    public func commit() throws {
        try state.withLock { s in
            guard !s.aborted, let db = s.database else { throw place.aborted }
            try db.execute("COMMIT;")
            s.insert = nil
            db.close()
            s.database = nil
            try Self.sync(place.staging.path)
            try place.commit()
        }
    }

    /// Discards the staging file; the destination is untouched.
    public func abort() {
        state.withLock { s in
            guard !s.aborted else { return }
            s.aborted = true
            s.insert = nil
            s.database?.close()
            s.database = nil
            place.discard()
        }
    }

    /// Flushes a finished file to disk before it replaces the previous archive.
    static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw StoreError(path: path, message: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreError(path: path, message: "cannot sync: \(String(cString: strerror(errno)))") }
    }
}
