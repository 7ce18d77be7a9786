import Foundation
import RouteTilesBuild
import RouteTilesModel
import RouteTilesTiling

/// Reads a `{z}/{x}/{y}.mvt` pyramid written by `DirectoryTileStore` (or by tippecanoe with `-e`), with its
/// `metadata.json`.
public struct DirectoryTileSource: TileSource {
    /// The pyramid's folder.
    public let root: URL
    /// The pyramid's `metadata.json`.
    public let metadata: TilesetMetadata

    /// Opens the pyramid in `root` and reads its metadata.
    /// - Throws: ``StoreError`` when `metadata.json` is missing or is not tileset metadata.
    public init(root: URL) throws {
        self.root = root.standardizedFileURL
        let metadataURL = self.root.appendingPathComponent("metadata.json")
        let data: Data
        do {
            data = try Data(contentsOf: metadataURL)
        } catch {
            throw StoreError(path: metadataURL.path, message: "cannot read the pyramid's metadata: \(error.localizedDescription)")
        }
        guard let object = JSONDocument.parse(data)?.object else {
            throw StoreError(path: metadataURL.path, message: "not a JSON object")
        }
        metadata = try TilesetMetadata(pairs: object, source: metadataURL.path)
    }

    /// The tile's file, `{z}/{x}/{y}.mvt` or else `.pbf` (tippecanoe's name). A tile stored uncompressed is
    /// compressed here, so that every source gives gzip bytes.
    public func gzipTile(_ tile: TileID) throws -> [UInt8]? {
        guard tile.isValid else { return nil }
        let stem = root.path + "/\(tile.z)/\(tile.x)/\(tile.y)"
        guard let bytes = try Self.contents(of: stem + ".mvt") ?? Self.contents(of: stem + ".pbf") else { return nil }
        if bytes.isEmpty || Gzip.isCompressed(bytes) { return bytes }
        do {
            return try Gzip.compress(bytes)
        } catch {
            throw StoreError(path: stem, message: "cannot compress the tile: \(error)")
        }
    }

    /// A file's bytes, or nil when it does not exist.
    static func contents(of path: String) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw StoreError(path: path, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw StoreError(path: path, message: "cannot read: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// Every tile file of the pyramid, found by walking its folders.
    public func tileIDs() throws -> [TileID] {
        let fm = FileManager.default
        var ids = Set<TileID>()
        for zName in (try? fm.contentsOfDirectory(atPath: root.path)) ?? [] {
            guard let z = Int(zName) else { continue }
            for xName in (try? fm.contentsOfDirectory(atPath: root.path + "/" + zName)) ?? [] {
                guard let x = Int(xName) else { continue }
                for file in (try? fm.contentsOfDirectory(atPath: root.path + "/\(zName)/\(xName)")) ?? [] {
                    guard file.hasSuffix(".mvt") || file.hasSuffix(".pbf"), let y = Int(file.split(separator: ".")[0]) else { continue }
                    let id = TileID(z: z, x: x, y: y)
                    if id.isValid { ids.insert(id) }
                }
            }
        }
        return Array(ids)
    }
}
