import RouteTiles

/// A link of an OGC API document.
struct OGCLink: Encodable {
    var href: String
    var rel: String
    var type: String?
    var title: String?
    /// True for a URI template (`…/{tileMatrix}/{tileRow}/{tileCol}`).
    var templated: Bool?

    init(_ href: String, rel: String, type: String? = "application/json", title: String? = nil, templated: Bool? = nil) {
        self.href = href
        self.rel = rel
        self.type = type
        self.title = title
        self.templated = templated
    }
}

/// The link relations OGC API – Tiles and Common use, beside IANA's (`self`, `service-desc`, `item`).
enum OGCRelation {
    static let conformance = "http://www.opengis.net/def/rel/ogc/1.0/conformance"
    static let data = "http://www.opengis.net/def/rel/ogc/1.0/data"
    static let tilesetsVector = "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector"
    static let tilesetsMap = "http://www.opengis.net/def/rel/ogc/1.0/tilesets-map"
    static let tilingSchemes = "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes"
    static let tilingScheme = "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme"
    static let geodata = "http://www.opengis.net/def/rel/ogc/1.0/geodata"
}

/// The conformance classes RouteTiles' OGC API implements.
enum OGCConformance {
    static let classes = [
        "http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/core",
        "http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/landing-page",
        "http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/json",
        "http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/oas30",
        "http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/collections",
        "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core",
        "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tileset",
        "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tilesets-list",
        "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets",
        "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/dataset-tilesets",
        "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/mvt",
        "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/png",
        "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/oas30",
        "http://www.opengis.net/spec/tms/2.0/conf/tilematrixset",
        "http://www.opengis.net/spec/tms/2.0/conf/json-tilematrixset",
        "http://www.opengis.net/spec/tms/2.0/conf/tilesetmetadata",
        "http://www.opengis.net/spec/tms/2.0/conf/json-tilesetmetadata",
    ]
}

/// `/ogc`: what the service is and where its parts are.
struct OGCLandingPage: Encodable {
    var title: String
    var description: String
    var links: [OGCLink]
}

/// `/ogc/conformance`.
struct OGCConformanceDocument: Encodable {
    var conformsTo: [String]
}

/// `/ogc/collections`.
struct OGCCollections: Encodable {
    var links: [OGCLink]
    var collections: [OGCCollection]
}

/// One collection: RouteTiles has one, `routes`, whose tiles hold every layer of the route tiles.
struct OGCCollection: Encodable {
    var id: String
    var title: String
    var description: String
    var dataType: String
    /// The dimension of the collection's features (OGC API – Common): the routes are lines, 1.
    var geometryDimension: Int
    /// What GDAL's OGCAPI driver reads for the geometry type of the collection's features: `Lines`.
    var vectorType: String
    var extent: Extent
    var crs: [String]
    var links: [OGCLink]

    struct Extent: Encodable {
        var spatial: Spatial
    }

    struct Spatial: Encodable {
        var bbox: [[Double]]
        var crs: String
    }
}

/// `/ogc/tileMatrixSets`: the tile matrix sets, each with a link to its definition.
struct OGCTileMatrixSetList: Encodable {
    var tileMatrixSets: [Entry]
    var links: [OGCLink]

    struct Entry: Encodable {
        var id: String
        var title: String
        var uri: String
        var links: [OGCLink]
    }
}

/// A list of tilesets (`…/tiles`, `…/map/tiles`).
struct OGCTilesetList: Encodable {
    var links: [OGCLink]
    var tilesets: [Summary]

    struct Summary: Encodable {
        var title: String
        var dataType: String
        var crs: String
        var tileMatrixSetURI: String
        var links: [OGCLink]
    }
}

/// A tileset's metadata (OGC 17-083r4, `tileSet.json`): what its tiles are, its limits per zoom, its layers and
/// the template of its tiles' URLs.
struct OGCTileset: Encodable {
    var title: String
    var description: String
    var dataType: String
    var crs: String
    var tileMatrixSetURI: String
    var mediaTypes: [String]
    var tileMatrixSetLimits: [TileMatrixLimits]
    var boundingBox: BoundingBoxDocument
    var centerPoint: CenterPoint
    var layers: [Layer]?
    var links: [OGCLink]

    struct BoundingBoxDocument: Encodable {
        var lowerLeft: [Double]
        var upperRight: [Double]
        var crs: String
    }

    struct CenterPoint: Encodable {
        var coordinates: [Double]
        var crs: String
        var tileMatrix: String
    }

    /// A layer of vector tiles: its name in the tiles, its geometry, its zooms and the properties of its features.
    struct Layer: Encodable {
        var id: String
        var title: String?
        var description: String?
        var dataType: String
        var geometryDimension: Int?
        var minTileMatrix: String
        var maxTileMatrix: String
        var propertiesSchema: PropertiesSchema
    }

    struct PropertiesSchema: Encodable {
        var type = "object"
        var properties: [String: Property]
    }

    /// A property's JSON schema: its type, none for a field of mixed types.
    struct Property: Encodable {
        var type: String?
    }
}
