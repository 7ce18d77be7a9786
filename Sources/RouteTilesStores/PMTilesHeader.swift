import RouteTilesModel

/// The fixed 127-byte header of a PMTiles v3 archive (all integers little-endian).
struct PMTilesHeader: Equatable {
    static let size = 127
    var rootOffset: UInt64 = 0
    var rootLength: UInt64 = 0
    var metadataOffset: UInt64 = 0
    var metadataLength: UInt64 = 0
    var leafOffset: UInt64 = 0
    var leafLength: UInt64 = 0
    var tileDataOffset: UInt64 = 0
    var tileDataLength: UInt64 = 0
    var addressedTiles: UInt64 = 0
    var tileEntries: UInt64 = 0
    var tileContents: UInt64 = 0
    var clustered = true
    /// 1 none, 2 gzip, 3 brotli, 4 zstd.
    var internalCompression: UInt8 = 2
    var tileCompression: UInt8 = 2
    /// 1 MVT.
    var tileType: UInt8 = 1
    var minZoom: UInt8 = 0
    var maxZoom: UInt8 = 0
    /// Degrees × 10^7.
    var minLonE7: Int32 = -1_800_000_000
    var minLatE7: Int32 = -850_511_287
    var maxLonE7: Int32 = 1_800_000_000
    var maxLatE7: Int32 = 850_511_287
    var centerZoom: UInt8 = 0
    var centerLonE7: Int32 = 0
    var centerLatE7: Int32 = 0

    var bytes: [UInt8] {
        var out: [UInt8] = Array("PMTiles".utf8) + [3]
        out.reserveCapacity(Self.size)
        for v in [rootOffset, rootLength, metadataOffset, metadataLength, leafOffset, leafLength, tileDataOffset,
                  tileDataLength, addressedTiles, tileEntries, tileContents] {
            withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
        }
        out += [clustered ? 1 : 0, internalCompression, tileCompression, tileType, minZoom, maxZoom]
        for v in [minLonE7, minLatE7, maxLonE7, maxLatE7] { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        out.append(centerZoom)
        for v in [centerLonE7, centerLatE7] { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        return out
    }

    init() {}

    /// Parses a header; `source` names the file in errors.
    init(_ b: [UInt8], source: String) throws {
        guard b.count >= Self.size, Array(b[0..<7]) == Array("PMTiles".utf8) else {
            throw StoreError(path: source, message: "not a PMTiles archive (no 'PMTiles' magic at offset 0)")
        }
        guard b[7] == 3 else { throw StoreError(path: source, message: "PMTiles version \(b[7]) is not supported (only 3)") }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
        func i32(_ at: Int) -> Int32 { Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) }) }
        rootOffset = u64(8); rootLength = u64(16); metadataOffset = u64(24); metadataLength = u64(32)
        leafOffset = u64(40); leafLength = u64(48); tileDataOffset = u64(56); tileDataLength = u64(64)
        addressedTiles = u64(72); tileEntries = u64(80); tileContents = u64(88)
        clustered = b[96] == 1
        internalCompression = b[97]; tileCompression = b[98]; tileType = b[99]
        minZoom = b[100]; maxZoom = b[101]
        minLonE7 = i32(102); minLatE7 = i32(106); maxLonE7 = i32(110); maxLatE7 = i32(114)
        centerZoom = b[118]; centerLonE7 = i32(119); centerLatE7 = i32(123)
    }
}
