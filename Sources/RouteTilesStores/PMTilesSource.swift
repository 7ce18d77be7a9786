import Foundation
import RouteTilesBuild
import RouteTilesModel
import RouteTilesTiling
import Synchronization

/// Reads a PMTiles v3 archive with gzip or uncompressed directories and MVT tiles. The root directory is read
/// once; leaf directories are cached as they are first needed.
public final class PMTilesSource: TileSource {
    /// The archive's path.
    public let path: String
    /// The archive's JSON metadata with the header's zooms, bounds and center.
    public let metadata: TilesetMetadata
    let header: PMTilesHeader
    private let file: RawFile
    private let root: [PMTilesEntry]
    private let leaves = Mutex([UInt64: [PMTilesEntry]]())

    /// Opens the archive at `path`, reading its header, root directory and metadata.
    /// - Throws: ``StoreError`` when the file cannot be read or is not a PMTiles v3 archive.
    public init(path: String) throws {
        self.path = path
        file = try RawFile(path: path, create: false)
        let size = file.size
        header = try PMTilesHeader(try file.read(at: 0, count: Int(min(size, UInt64(PMTilesHeader.size)))), source: path)
        guard header.internalCompression == 1 || header.internalCompression == 2 else {
            throw StoreError(path: path, message: "PMTiles internal compression \(header.internalCompression) is not supported (only none and gzip)")
        }
        guard header.tileType == 1 else {
            throw StoreError(path: path, message: "PMTiles tile type \(header.tileType) is not MVT")
        }
        guard header.tileCompression == 1 || header.tileCompression == 2 else {
            throw StoreError(path: path, message: "PMTiles tile compression \(header.tileCompression) is not supported (only none and gzip)")
        }
        for (name, offset, length) in [("root directory", header.rootOffset, header.rootLength),
                                       ("metadata", header.metadataOffset, header.metadataLength),
                                       ("leaf directories", header.leafOffset, header.leafLength),
                                       ("tile data", header.tileDataOffset, header.tileDataLength)]
        where offset > size || length > size - offset {
            throw StoreError(path: path, message: "PMTiles \(name) at \(offset) (+\(length)) lies beyond the end of the file (\(size) bytes)")
        }
        let rootBytes = try file.read(at: header.rootOffset, count: Int(header.rootLength))
        root = try PMTilesDirectory.decode(try Self.decompress(rootBytes, header.internalCompression, path), source: path)
        var pairs: [String: JSONDocument] = [:]
        if header.metadataLength > 0 {
            let raw = try Self.decompress(try file.read(at: header.metadataOffset, count: Int(header.metadataLength)),
                                          header.internalCompression, path)
            guard let object = JSONDocument.parse(raw)?.object else {
                throw StoreError(path: path, message: "PMTiles metadata is not a JSON object")
            }
            pairs = object
        }
        // The header is authoritative for zooms, bounds and centre.
        pairs["minzoom"] = .number(Double(header.minZoom))
        pairs["maxzoom"] = .number(Double(header.maxZoom))
        pairs["bounds"] = .array([header.minLonE7, header.minLatE7, header.maxLonE7, header.maxLatE7].map { .number(Double($0) / 1e7) })
        pairs["center"] = .array([Double(header.centerLonE7) / 1e7, Double(header.centerLatE7) / 1e7,
                                  Double(header.centerZoom)].map { .number($0) })
        metadata = try TilesetMetadata(pairs: pairs, source: path)
    }

    static func decompress(_ bytes: [UInt8], _ compression: UInt8, _ path: String) throws -> [UInt8] {
        guard compression == 2 else { return bytes }
        do {
            return try Gzip.decompress(bytes)
        } catch {
            throw StoreError(path: path, message: "PMTiles directory or metadata: \(error)")
        }
    }

    private func leaf(at offset: UInt64, length: UInt32) throws -> [PMTilesEntry] {
        if let cached = leaves.withLock({ $0[offset] }) { return cached }
        guard offset + UInt64(length) <= header.leafLength else {
            throw StoreError(path: path, message: "PMTiles leaf directory at \(offset) lies beyond the leaf section")
        }
        let raw = try file.read(at: header.leafOffset + offset, count: Int(length))
        let entries = try PMTilesDirectory.decode(try Self.decompress(raw, header.internalCompression, path), source: path)
        leaves.withLock { $0[offset] = entries }
        return entries
    }

    /// The entry holding tile id `id`, descending through leaves (at most a few levels).
    func entry(for id: UInt64) throws -> PMTilesEntry? {
        var directory = root
        for _ in 0..<4 {
            guard let e = PMTilesDirectory.find(id, in: directory) else { return nil }
            if e.runLength > 0 { return e }
            directory = try leaf(at: e.offset, length: e.length)
        }
        throw StoreError(path: path, message: "PMTiles directories nest deeper than 4 levels")
    }

    /// The tile's bytes (compressed here if stored plain), or nil when the archive lacks it.
    public func gzipTile(_ tile: TileID) throws -> [UInt8]? {
        guard tile.isValid, let e = try entry(for: tile.pmtilesID) else { return nil }
        guard e.offset + UInt64(e.length) <= header.tileDataLength else {
            throw StoreError(path: path, message: "PMTiles tile \(tile) lies beyond the tile data section")
        }
        let data = try file.read(at: header.tileDataOffset + e.offset, count: Int(e.length))
        return Gzip.isCompressed(data) ? data : try Gzip.compress(data)
    }

    /// Every tile in the archive's directories.
    public func tileIDs() throws -> [TileID] {
        var ids: [TileID] = []
        func walk(_ entries: [PMTilesEntry], depth: Int) throws {
            guard depth < 4 else { throw StoreError(path: path, message: "PMTiles directories nest deeper than 4 levels") }
            for e in entries {
                if e.runLength == 0 {
                    try walk(try leaf(at: e.offset, length: e.length), depth: depth + 1)
                } else {
                    for k in 0..<UInt64(e.runLength) {
                        if let id = TileID(pmtilesID: e.tileID + k) { ids.append(id) }
                    }
                }
            }
        }
        try walk(root, depth: 0)
        return ids
    }
}
