import RouteTiles

/// The tile matrix set RouteTiles' tiles follow, OGC's `WebMercatorQuad` (OGC Two Dimensional Tile Matrix Set
/// and Tile Set Metadata 2.0, annex D): EPSG:3857, 256-pixel tiles, zoom z a matrix of 2^z × 2^z tiles whose rows
/// count from the north, so that a tile's `{tileMatrix}/{tileRow}/{tileCol}` is its `{z}/{y}/{x}`.
enum WebMercatorQuad {
    static let id = "WebMercatorQuad"
    static let uri = "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad"
    static let title = "Google Maps Compatible for the World"
    static let crs = "http://www.opengis.net/def/crs/EPSG/0/3857"
    /// Half the side of the projected world in metres (π · 6,378,137).
    static let halfWorld = 20_037_508.342_789_244
    /// The deepest matrix the definition lists, as OGC's registered definition does.
    static let deepestMatrix = 24

    /// The standard pixel size of OGC's scale denominators, in metres.
    static let pixelSize = 0.000_28

    /// The definition, as `/ogc/tileMatrixSets/WebMercatorQuad` gives it.
    static func definition(links: [OGCLink]) -> TileMatrixSetDocument {
        TileMatrixSetDocument(
            id: id, identifier: id, supportedCRS: crs,
            boundingBox: LegacyBoundingBox(crs: crs, lowerCorner: [-halfWorld, -halfWorld], upperCorner: [halfWorld, halfWorld],
                                           lowerLeft: [-halfWorld, -halfWorld], upperRight: [halfWorld, halfWorld]),
            title: title, uri: uri, crs: crs, orderedAxes: ["X", "Y"],
            wellKnownScaleSet: "http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible",
            tileMatrices: (0...deepestMatrix).map { z in
                let cellSize = 2 * halfWorld / Double(256 << z)
                return TileMatrix(id: String(z), identifier: String(z), scaleDenominator: cellSize / pixelSize,
                                  cellSize: cellSize, cornerOfOrigin: "topLeft", pointOfOrigin: [-halfWorld, halfWorld],
                                  topLeftCorner: [-halfWorld, halfWorld],
                                  tileWidth: 256, tileHeight: 256, matrixWidth: 1 << z, matrixHeight: 1 << z)
            },
            links: links)
    }

    /// The rows and columns of each zoom of `zooms` that meet `bounds` (west, south, east, north in degrees; a
    /// box across the antimeridian takes every column).
    static func limits(bounds: [Double], zooms: ClosedRange<Int>) -> [TileMatrixLimits] {
        let box = limitsBox(bounds)
        return zooms.map { z in
            let range = box.tileRange(zoom: z)
            return TileMatrixLimits(tileMatrix: String(z), minTileRow: range.y.lowerBound, maxTileRow: range.y.upperBound,
                                    minTileCol: range.x.lowerBound, maxTileCol: range.x.upperBound)
        }
    }

    /// `bounds` (west, south, east, north in degrees) as the box whose tiles the limits list: the world's when there
    /// are none or south lies north of north, every longitude when the box crosses the antimeridian.
    static func limitsBox(_ bounds: [Double]) -> BoundingBox {
        var box = bounds.count == 4 ? BoundingBox(west: bounds[0], south: bounds[1], east: bounds[2], north: bounds[3])
            : WebMercator.worldBounds
        if !(box.west <= box.east) { box = BoundingBox(west: -180, south: box.south, east: 180, north: box.north) }
        if !(box.south <= box.north) { box = WebMercator.worldBounds }
        return box
    }
}
