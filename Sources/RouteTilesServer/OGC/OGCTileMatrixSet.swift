import RouteTiles

/// The tile matrix sets the OGC API offers, by the id its paths name (`{tileMatrixSetId}`): WebMercatorQuad, the
/// tiles of `/tiles`, always; WorldCRS84Quad where the routes are cut on demand (live routes, not a finished
/// tileset).
enum OGCTileMatrixSet: String, CaseIterable, Sendable {
    case webMercatorQuad = "WebMercatorQuad"
    case worldCRS84Quad = "WorldCRS84Quad"

    var id: String { rawValue }
    var uri: String { self == .webMercatorQuad ? WebMercatorQuad.uri : WorldCRS84Quad.uri }
    var title: String { self == .webMercatorQuad ? WebMercatorQuad.title : WorldCRS84Quad.title }
    var crs: String { self == .webMercatorQuad ? WebMercatorQuad.crs : WorldCRS84Quad.crs }
    /// The grid of the tiles' addresses.
    var grid: TileGrid { self == .webMercatorQuad ? .webMercator : .worldCRS84Quad }
    var deepestMatrix: Int { self == .webMercatorQuad ? WebMercatorQuad.deepestMatrix : WorldCRS84Quad.deepestMatrix }

    /// The columns and rows of matrix `z`.
    func size(_ z: Int) -> (columns: Int, rows: Int) {
        self == .webMercatorQuad ? (1 << z, 1 << z) : WorldCRS84Quad.size(z)
    }

    func definition(links: [OGCLink]) -> TileMatrixSetDocument {
        self == .webMercatorQuad ? WebMercatorQuad.definition(links: links) : WorldCRS84Quad.definition(links: links)
    }

    func limits(bounds: [Double], zooms: ClosedRange<Int>) -> [TileMatrixLimits] {
        self == .webMercatorQuad ? WebMercatorQuad.limits(bounds: bounds, zooms: zooms)
            : WorldCRS84Quad.limits(bounds: bounds, zooms: zooms)
    }

    /// The sets whose tiles `backend` can give: WorldCRS84Quad only where it cuts tiles on demand.
    static func offered(by backend: TileBackend) -> [OGCTileMatrixSet] {
        backend.producer.cutsEveryGrid ? allCases : [.webMercatorQuad]
    }
}
