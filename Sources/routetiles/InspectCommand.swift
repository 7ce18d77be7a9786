import ArgumentParser
import Foundation
import RouteTiles

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Decode one tile to GeoJSON (lon/lat) on standard output.",
        discussion: """
            PATH is a tileset (a folder, X.mbtiles or X.pmtiles) or a single tile file (gzip-compressed or not); \
            z/x/y names the tile of a tileset, and places a single file's coordinates on the map. Each feature carries its layer name in \
            "layer" and its MVT id in "id".
            """)

    @Argument(help: "A tileset (folder, X.mbtiles, X.pmtiles) or a tile file.", completion: .file())
    var path: String

    @Argument(help: "The tile, as z/x/y.")
    var tile: String

    @Option(help: "Only this layer.")
    var layer: String?

    func validate() throws {
        if TileID(tile) == nil { throw ValidationError("'\(tile)' is not a tile: expected z/x/y with 0 ≤ x, y < 2^z") }
    }

    func run() throws {
        guard let id = TileID(tile) else { throw ExitCode.validationFailure }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw failure("error: \(path): no such file or folder")
        }
        let tileset = isFolder.boolValue || TileStoreFormat(path: path) != .directory
        let file = tileset ? "\(path), tile \(id)" : path
        let stored: [UInt8]?
        do {
            // A tileset's tile by z/x/y, or the single file's bytes.
            stored = tileset ? try TileStoreFormat.openSource(path: path).gzipTile(id) : try FileBytes.contents(atPath: path)
        } catch {
            throw failure("error: \(error)")
        }
        guard let data = stored else {
            throw failure("error: \(path): no such tile: \(id) (empty tiles are not written)")
        }
        do {
            var bytes = data
            if Gzip.isCompressed(bytes) { bytes = try Gzip.decompress(bytes) }
            let decoded = try VectorTileDecoder.decode(bytes)
            let json = TileGeoJSON.featureCollection(decoded, tile: id, layer: layer)
            FileHandle.standardOutput.write(Data(json))
        } catch {
            throw failure("error: \(file): \(error)")
        }
    }
}
