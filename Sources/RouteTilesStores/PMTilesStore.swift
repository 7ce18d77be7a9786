import Foundation
import RouteTilesBuild
import RouteTilesGeo
import RouteTilesModel
import RouteTilesTiling
import Synchronization

/// Writes a PMTiles v3 archive. Tiles arrive in any order from many threads: their bytes are appended to a scratch
/// file (identical tiles once, found by hash and compared byte for byte) and only ids and references stay in
/// memory. `commit()` sorts the tiles by Hilbert id, lays the data out clustered (in id order, a repeated tile
/// pointing back at its first copy), merges runs of consecutive ids with the same bytes, and writes the header,
/// the root directory (with the header within 16 KiB, leaf directories when all entries do not fit), the gzip JSON
/// metadata, the leaves and the tile data into the staging file, which then replaces the destination.
public final class PMTilesStore: TileStore {
    let place: StagingPlace
    private let state: Mutex<State>

    private struct State {
        var spill: RawFile?
        var spillSize: UInt64 = 0
        /// Distinct tile contents, by where they lie in the scratch file.
        var contents: [(offset: UInt64, length: UInt32)] = []
        /// Content indexes by hash of their bytes.
        var byHash: [Int: [Int]] = [:]
        /// Tile ids and the content each holds.
        var tiles: [(id: UInt64, content: Int)] = []
        var metadata: TilesetMetadata?
        var aborted = false
    }

    /// The header and root directory must fit in the first 16 KiB.
    static let rootLimit = 16_384

    /// Prepares an archive to be written to `destination`, with a staging and a scratch file beside it.
    /// - Throws: ``StoreError`` when `destination` exists and `replace` is false, or the files cannot be made.
    public init(destination: URL, replace: Bool) throws {
        place = try StagingPlace(destination: destination, replace: replace)
        state = Mutex(State(spill: try RawFile(path: place.scratch.path, create: true)))
    }

    /// Appends the tile's bytes to the scratch file, once per distinct content.
    public func put(_ tile: TileID, gzipData: [UInt8]) throws {
        guard tile.isValid else { throw StoreError(path: place.staging.path, message: "tile \(tile) is not a valid tile") }
        var hasher = Hasher()
        gzipData.withUnsafeBytes { hasher.combine(bytes: $0) }
        let hash = hasher.finalize()
        try state.withLock { s in
            guard !s.aborted, let spill = s.spill else { throw place.aborted }
            for candidate in s.byHash[hash, default: []] where s.contents[candidate].length == UInt32(gzipData.count) {
                if try spill.read(at: s.contents[candidate].offset, count: gzipData.count) == gzipData {
                    s.tiles.append((tile.pmtilesID, candidate))
                    return
                }
            }
            guard gzipData.count < Int(UInt32.max) else {
                throw StoreError(path: place.staging.path, message: "tile \(tile) is larger than 4 GiB")
            }
            try spill.write(gzipData)
            s.contents.append((s.spillSize, UInt32(gzipData.count)))
            s.spillSize += UInt64(gzipData.count)
            s.byHash[hash, default: []].append(s.contents.count - 1)
            s.tiles.append((tile.pmtilesID, s.contents.count - 1))
        }
    }

    /// Keeps the metadata for the archive's header and JSON metadata.
    public func putMetadata(_ metadata: TilesetMetadata) throws {
        try state.withLock { s in
            guard !s.aborted else { throw place.aborted }
            s.metadata = metadata
        }
    }

    /// Lays out the archive in the staging file and renames it over the destination.
    public func commit() throws {
        try state.withLock { s in
            guard !s.aborted, let spill = s.spill else { throw place.aborted }
            try write(&s, spill: spill)
            s.spill = nil
            try place.commit()
        }
    }

    /// Discards the staging and scratch files; the destination is untouched.
    public func abort() {
        state.withLock { s in
            guard !s.aborted else { return }
            s.aborted = true
            s.spill = nil
            place.discard()
        }
    }

    private func write(_ s: inout State, spill: RawFile) throws {
        s.tiles.sort { $0.id < $1.id }
        // Clustered layout: contents in the order of the first tile that holds them.
        var finalOffset = [UInt64?](repeating: nil, count: s.contents.count)
        var order: [Int] = []
        var dataLength: UInt64 = 0
        var entries: [PMTilesEntry] = []
        for (id, content) in s.tiles {
            let offset: UInt64
            if let known = finalOffset[content] {
                offset = known
            } else {
                offset = dataLength
                finalOffset[content] = offset
                order.append(content)
                dataLength += UInt64(s.contents[content].length)
            }
            if var last = entries.last, last.offset == offset, last.tileID + UInt64(last.runLength) == id,
               last.runLength < UInt32.max {
                last.runLength += 1
                entries[entries.count - 1] = last
            } else {
                entries.append(PMTilesEntry(tileID: id, offset: offset, length: s.contents[content].length, runLength: 1))
            }
        }
        let (root, leaves) = try Self.directories(entries)
        let metadata = s.metadata ?? TilesetMetadata(name: place.destination.deletingPathExtension().lastPathComponent,
                                                     layers: [], minZoom: 0, maxZoom: 0,
                                                     bounds: WebMercator.worldBounds.array, center: [0, 0, 0])
        let json = try Gzip.compress(Self.metadataJSON(metadata))

        var header = PMTilesHeader()
        header.rootOffset = UInt64(PMTilesHeader.size)
        header.rootLength = UInt64(root.count)
        header.metadataOffset = header.rootOffset + header.rootLength
        header.metadataLength = UInt64(json.count)
        header.leafOffset = header.metadataOffset + header.metadataLength
        header.leafLength = UInt64(leaves.count)
        header.tileDataOffset = header.leafOffset + header.leafLength
        header.tileDataLength = dataLength
        header.addressedTiles = UInt64(s.tiles.count)
        header.tileEntries = UInt64(entries.count)
        header.tileContents = UInt64(order.count)
        // PMTiles v3: tile type 1 MVT, 2 PNG; tile compression 2 gzip, 1 none (a PNG is compressed already).
        header.tileType = metadata.tileFormat == .mvt ? 1 : 2
        header.tileCompression = metadata.tileFormat.isGzip ? 2 : 1
        let zooms = s.tiles.isEmpty ? nil : (TileID(pmtilesID: s.tiles[0].id)?.z, TileID(pmtilesID: s.tiles[s.tiles.count - 1].id)?.z)
        header.minZoom = UInt8(clamping: zooms?.0 ?? metadata.minZoom)
        header.maxZoom = UInt8(clamping: zooms?.1 ?? metadata.maxZoom)
        func e7(_ degrees: Double) -> Int32 { Int32(clamping: Int((degrees * 1e7).rounded())) }
        if metadata.bounds.count == 4 {
            header.minLonE7 = e7(metadata.bounds[0]); header.minLatE7 = e7(metadata.bounds[1])
            header.maxLonE7 = e7(metadata.bounds[2]); header.maxLatE7 = e7(metadata.bounds[3])
        }
        if metadata.center.count == 3 {
            header.centerLonE7 = e7(metadata.center[0]); header.centerLatE7 = e7(metadata.center[1])
            header.centerZoom = UInt8(clamping: Int(metadata.center[2]))
        }

        let out = try RawFile(path: place.staging.path, create: true)
        try out.write(header.bytes + root + json + leaves)
        // Copy the contents from the scratch file in their final order, in blocks of about 1 MiB.
        var block: [UInt8] = []
        block.reserveCapacity(1 << 20)
        for content in order {
            let c = s.contents[content]
            block += try spill.read(at: c.offset, count: Int(c.length))
            if block.count >= 1 << 20 {
                try out.write(block)
                block.removeAll(keepingCapacity: true)
            }
        }
        try out.write(block)
        try out.sync()
    }

    /// The root directory and the leaves, gzip-compressed: the root alone when it fits beside the header in
    /// 16 KiB; otherwise leaves of `leafSize` entries (doubled until the root of leaf pointers fits).
    static func directories(_ entries: [PMTilesEntry]) throws -> (root: [UInt8], leaves: [UInt8]) {
        let whole = try Gzip.compress(PMTilesDirectory.encode(entries[...]))
        if PMTilesHeader.size + whole.count <= rootLimit { return (whole, []) }
        var leafSize = max(4096, entries.count / 3500)
        while true {
            var leaves: [UInt8] = []
            var pointers: [PMTilesEntry] = []
            for start in stride(from: 0, to: entries.count, by: leafSize) {
                let leaf = try Gzip.compress(PMTilesDirectory.encode(entries[start..<min(start + leafSize, entries.count)]))
                pointers.append(PMTilesEntry(tileID: entries[start].tileID, offset: UInt64(leaves.count),
                                             length: UInt32(leaf.count), runLength: 0))
                leaves += leaf
            }
            let root = try Gzip.compress(PMTilesDirectory.encode(pointers[...]))
            if PMTilesHeader.size + root.count <= rootLimit { return (root, leaves) }
            leafSize *= 2
        }
    }

    /// The JSON metadata: tippecanoe's pairs (less `json`) with `vector_layers` as an array (none for PNG tiles).
    static func metadataJSON(_ metadata: TilesetMetadata) -> [UInt8] {
        var object: [String: JSONDocument] = [:]
        for (key, value) in metadata.pairs where key != "json" { object[key] = .string(value) }
        guard metadata.tileFormat == .mvt else { return JSONText.bytes(object, pretty: false) }
        object["vector_layers"] = .array(metadata.vectorLayers.map { layer in
            .object(["id": .string(layer.id), "description": .string(layer.description),
                     "minzoom": .number(Double(layer.minzoom)), "maxzoom": .number(Double(layer.maxzoom)),
                     "fields": .object(layer.fields.mapValues { .string($0) })])
        })
        // What the `json` entry of the other stores holds beside the layers.
        if let pieces = metadata.timePieces { object["time_pieces"] = .object(pieces.mapValues { .number(Double($0)) }) }
        if let budget = metadata.tileBudget, let document = JSONDocument.parse(JSONText.bytes(budget, pretty: false)) {
            object["tile_budget"] = document
        }
        return JSONText.bytes(object, pretty: false)
    }
}
