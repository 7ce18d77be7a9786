/// A tile matrix set's JSON encoding (OGC 17-083r4, `tileMatrixSet.json`), with the members of the 1.0 encoding
/// beside the 2.0 ones (`type`, `identifier`, `supportedCRS`, `boundingBox`; each matrix's `identifier` and
/// `topLeftCorner`), which GDAL before 3.8 (Debian 12's 3.6) reads instead.
struct TileMatrixSetDocument: Encodable {
    var type = "TileMatrixSetType"
    var id: String
    var identifier: String
    var supportedCRS: String
    var boundingBox: LegacyBoundingBox
    var title: String
    var uri: String
    var crs: String
    var orderedAxes: [String]
    var wellKnownScaleSet: String
    var tileMatrices: [TileMatrix]
    var links: [OGCLink]
}

/// A tile matrix set's bounding box in both encodings: 1.0's `lowerCorner` and `upperCorner` (with its `type`),
/// 2.0's `lowerLeft` and `upperRight`.
struct LegacyBoundingBox: Encodable {
    var type = "BoundingBoxType"
    var crs: String
    var lowerCorner: [Double]
    var upperCorner: [Double]
    var lowerLeft: [Double]
    var upperRight: [Double]
}

/// One zoom of a tile matrix set.
struct TileMatrix: Encodable {
    var id: String
    var identifier: String
    var scaleDenominator: Double
    var cellSize: Double
    var cornerOfOrigin: String
    var pointOfOrigin: [Double]
    var topLeftCorner: [Double]
    var tileWidth: Int
    var tileHeight: Int
    var matrixWidth: Int
    var matrixHeight: Int
}

/// The rows and columns of one zoom that a tileset has tiles in (`tileMatrixSetLimits`).
struct TileMatrixLimits: Encodable {
    var tileMatrix: String
    var minTileRow: Int
    var maxTileRow: Int
    var minTileCol: Int
    var maxTileCol: Int
}
