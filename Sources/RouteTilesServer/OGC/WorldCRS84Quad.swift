import RouteTiles

/// OGC's `WorldCRS84Quad` (OGC Two Dimensional Tile Matrix Set and Tile Set Metadata 2.0, annex D): CRS84 (EPSG:4326
/// in longitude, latitude order), 256-pixel tiles, zoom z a matrix of 2^(z+1) columns by 2^z rows from (−180°, 90°).
/// Its tiles (`CRS84TileID`) are cut on demand from live routes. GDAL's OGCAPI driver prefers it where a collection
/// offers it, and reads the collection's CRS84 extent in its own units.
enum WorldCRS84Quad {
    static let id = "WorldCRS84Quad"
    static let uri = "http://www.opengis.net/def/tilematrixset/OGC/1.0/WorldCRS84Quad"
    static let title = "CRS84 for the World"
    static let crs = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
    /// The deepest matrix listed: its tiles are as wide as WebMercatorQuad's deepest.
    static let deepestMatrix = WebMercatorQuad.deepestMatrix - 1
    /// Metres in a degree at the equator (π · 6,378,137 / 180): how OGC's scale denominators count a degree.
    static let metresPerDegree = 111_319.490_793_273_57

    /// The columns and rows of matrix `z`.
    static func size(_ z: Int) -> (columns: Int, rows: Int) { (2 << z, 1 << z) }

    /// The definition, as `/ogc/tileMatrixSets/WorldCRS84Quad` gives it.
    static func definition(links: [OGCLink]) -> TileMatrixSetDocument {
        TileMatrixSetDocument(
            id: id, identifier: id, supportedCRS: crs,
            boundingBox: LegacyBoundingBox(crs: crs, lowerCorner: [-180, -90], upperCorner: [180, 90],
                                           lowerLeft: [-180, -90], upperRight: [180, 90]),
            title: title, uri: uri, crs: crs, orderedAxes: ["Lon", "Lat"],
            wellKnownScaleSet: "http://www.opengis.net/def/wkss/OGC/1.0/GoogleCRS84Quad",
            tileMatrices: (0...deepestMatrix).map { z in
                let cellSize = 180 / Double(256 << z)
                return TileMatrix(id: String(z), identifier: String(z),
                                  scaleDenominator: cellSize * metresPerDegree / WebMercatorQuad.pixelSize,
                                  cellSize: cellSize, cornerOfOrigin: "topLeft", pointOfOrigin: [-180, 90],
                                  topLeftCorner: [-180, 90], tileWidth: 256, tileHeight: 256,
                                  matrixWidth: size(z).columns, matrixHeight: size(z).rows)
            },
            links: links)
    }

    /// The rows and columns of each zoom of `zooms` that meet `bounds` (west, south, east, north in degrees; a box
    /// across the antimeridian takes every column).
    static func limits(bounds: [Double], zooms: ClosedRange<Int>) -> [TileMatrixLimits] {
        let box = WebMercatorQuad.limitsBox(bounds)
        return zooms.map { z in
            let side = 180 / Double(1 << z)
            let (columns, rows) = size(z)
            func index(_ value: Double, _ count: Int) -> Int {
                min(max(Int((value / side).rounded(.down)), 0), count - 1)
            }
            return TileMatrixLimits(tileMatrix: String(z), minTileRow: index(90 - box.north, rows),
                                    maxTileRow: index(90 - box.south, rows), minTileCol: index(box.west + 180, columns),
                                    maxTileCol: index(box.east + 180, columns))
        }
    }
}
