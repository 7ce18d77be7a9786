import Foundation
import RouteTilesBuild
import RouteTilesModel
import RouteTilesSQLite
import RouteTilesTiling
import Synchronization

/// Reads an MBTiles archive (ours, tippecanoe's, or any with gzip or plain MVT tiles and TMS rows). One connection
/// shared under a lock: lookups by the unique index are short.
public final class MBTilesSource: TileSource {
    /// The archive's path.
    public let path: String
    /// The archive's metadata table.
    public let metadata: TilesetMetadata
    private let connection: Mutex<Connection>

    private struct Connection: ~Copyable {
        let database: SQLiteDatabase
        let select: SQLiteDatabase.Statement
    }

    /// Opens the archive at `path` read-only and reads its metadata.
    /// - Throws: ``StoreError`` when the file cannot be read or is not an MBTiles archive.
    public init(path: String) throws {
        self.path = path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreError(path: path, message: "no such readable file")
        }
        let db = try SQLiteDatabase(path: path, readOnly: true)
        var pairs: [String: JSONDocument] = [:]
        let rows: SQLiteDatabase.Statement
        do {
            rows = try db.prepare("SELECT name, value FROM metadata")
        } catch {
            throw StoreError(path: path, message: "not an MBTiles archive (no metadata table): \(error)")
        }
        while try rows.step() {
            if let name = rows.text(0), let value = rows.text(1) { pairs[name] = .string(value) }
        }
        metadata = try TilesetMetadata(pairs: pairs, source: path)
        let select = try db.prepare("SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?")
        connection = Mutex(Connection(database: db, select: select))
    }

    /// The tile's bytes (compressed here if stored plain), or nil when the archive lacks it.
    public func gzipTile(_ tile: TileID) throws -> [UInt8]? {
        guard tile.isValid else { return nil }
        let data: [UInt8]? = try connection.withLock { c in
            let s = c.select
            defer { s.reset() }
            s.bind(1, tile.z)
            s.bind(2, tile.x)
            s.bind(3, MBTilesStore.tmsRow(tile))
            return try s.step() ? s.blob(0) : nil
        }
        guard let data else { return nil }
        return Gzip.isCompressed(data) ? data : try Gzip.compress(data)
    }

    /// Every tile in the archive's `tiles` table.
    public func tileIDs() throws -> [TileID] {
        try connection.withLock { c in
            let s = try c.database.prepare("SELECT zoom_level, tile_column, tile_row FROM tiles")
            var ids: [TileID] = []
            while try s.step() {
                let z = s.int(0)
                guard (0...TileID.maxZoom).contains(z) else { continue }
                let id = TileID(z: z, x: s.int(1), y: (1 << z) - 1 - s.int(2))
                if id.isValid { ids.append(id) }
            }
            return ids
        }
    }
}
