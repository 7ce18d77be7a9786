import ArgumentParser
import Foundation
import RouteTiles

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Decode one tile to GeoJSON (lon/lat) on standard output.",
        discussion: """
            PATH is a pyramid folder (the tile is read from PATH/z/x/y.mvt) or a single tile file (gzip-compressed \
            or not); z/x/y places the tile's coordinates on the map. Each feature carries its layer name in \
            "layer" and its MVT id in "id".
            """)

    @Argument(help: "A pyramid folder or a tile file.", completion: .file())
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
        let file = isFolder.boolValue ? "\(path)/\(id.z)/\(id.x)/\(id.y).mvt" : path
        guard let data = FileManager.default.contents(atPath: file) else {
            throw failure("error: \(file): no such tile (empty tiles are not written)")
        }
        do {
            var bytes = [UInt8](data)
            if Gzip.isCompressed(bytes) { bytes = try Gzip.decompress(bytes) }
            let decoded = try VectorTileDecoder.decode(bytes)
            let json = TileGeoJSON.featureCollection(decoded, tile: id, layer: layer)
            FileHandle.standardOutput.write(Data(json))
        } catch {
            throw failure("error: \(file): \(error)")
        }
    }
}
