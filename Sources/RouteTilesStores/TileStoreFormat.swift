import Foundation
import RouteTilesBuild
import RouteTilesModel

/// The kinds of tileset RouteTiles writes and reads, chosen by the output's name unless forced.
public enum TileStoreFormat: String, CaseIterable, Sendable {
    /// A folder of `{z}/{x}/{y}.mvt` files with a `metadata.json`.
    case directory
    /// An MBTiles 1.3 archive (SQLite).
    case mbtiles
    /// A PMTiles v3 archive.
    case pmtiles

    /// `.mbtiles` and `.pmtiles` by extension (any case); anything else is a folder.
    public init(path: String) {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "mbtiles": self = .mbtiles
        case "pmtiles": self = .pmtiles
        default: self = .directory
        }
    }

    /// The name of the tileset stored at `path` in this kind of store: a folder's name, an archive's file name
    /// without its extension.
    public func tilesetName(forPath path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return self == .directory ? url.lastPathComponent : url.deletingPathExtension().lastPathComponent
    }

    /// An empty store of this kind writing tiles of `tileFormat` to `path`. An archive records the format from
    /// the metadata; a folder names its files after it.
    public func makeStore(path: String, replace: Bool, tileFormat: TileFormat = .mvt) throws -> any TileStore {
        let url = URL(fileURLWithPath: path)
        switch self {
        case .directory: return try DirectoryTileStore(destination: url, replace: replace, tileFormat: tileFormat)
        case .mbtiles: return try MBTilesStore(destination: url, replace: replace)
        case .pmtiles: return try PMTilesStore(destination: url, replace: replace)
        }
    }

    /// Opens an existing tileset of vector tiles: a folder is a pyramid, a file is told by its first bytes (PMTiles
    /// magic or the SQLite header), so a misnamed archive still opens. A tileset of PNG tiles is refused: what
    /// reads sources (serving, converting, joining) works on vector tiles.
    public static func openSource(path: String) throws -> any TileSource {
        let source = try openAnySource(path: path)
        guard source.metadata.tileFormat == .mvt else {
            throw StoreError(path: path, message: "holds \(source.metadata.tileFormat) tiles; RouteTiles serves, "
                + "converts and joins vector tilesets (a folder of PNG tiles can be served by any static file server)")
        }
        return source
    }

    private static func openAnySource(path: String) throws -> any TileSource {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw StoreError(path: path, message: "no such file or folder")
        }
        if isFolder.boolValue { return try DirectoryTileSource(root: URL(fileURLWithPath: path)) }
        let head = (try? RawFile(path: path, create: false).read(at: 0, count: 16)) ?? []
        if head.starts(with: Array("PMTiles".utf8)) { return try PMTilesSource(path: path) }
        if head.starts(with: Array("SQLite format 3".utf8)) { return try MBTilesSource(path: path) }
        throw StoreError(path: path, message: "neither a PMTiles nor an MBTiles (SQLite) archive")
    }
}
