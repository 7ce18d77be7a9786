import Hummingbird
import RouteTiles
import RouteTilesAccess

/// OGC API – Tiles under `/ogc`, for clients that find tiles through the standard rather than an XYZ template
/// (GDAL's OGCAPI driver, QGIS): the landing page, `/ogc/conformance`, one collection `routes` with its extent,
/// the tile matrix sets (`OGCTileMatrixSet`: WebMercatorQuad, and WorldCRS84Quad where routes are cut on demand),
/// the vector tilesets (the collection's and the dataset's, the same tiles) and the map tilesets of the raster
/// tiles, in each set.
///
/// Documents are JSON; their links are absolute, under `--public-url` when it is set. A WebMercatorQuad tile is the
/// XYZ tile of the same place (`{tileMatrix}/{tileRow}/{tileCol}` is `{z}/{y}/{x}`); a WorldCRS84Quad tile is cut
/// for its rectangle of longitude and latitude (`CRS84TileID`). Both are answered by `TileEndpoints` with the same
/// tags, caching, groups, windows and live changes; where reads are private, the tile templates carry the reader's
/// signed query as `tiles.json` does.
struct OGCTilesEndpoints: Sendable {
    let metadata: MetadataEndpoints
    let tiles: TileEndpoints
    /// The tile matrix sets whose tiles the backend gives (`OGCTileMatrixSet.offered(by:)`).
    let offered: [OGCTileMatrixSet]
    /// The position layer of live routes (points), nil when there is none.
    let positionLayer: String?

    static let root = "/ogc"
    static let collection = "routes"
    static let vectorMediaType = TileAnswer<ByteBuffer>.contentType
    static let mapMediaType = RasterTileResponder<ByteBuffer>.contentType
    static let crs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"

    /// The two kinds of tileset: vector tiles (`…/tiles`) and the raster tiles drawn from them (`…/map/tiles`).
    enum Kind: CaseIterable {
        case vector, map

        var dataType: String { self == .vector ? "vector" : "map" }
        var pathPart: String { self == .vector ? "/tiles" : "/map/tiles" }
        var mediaType: String { self == .vector ? OGCTilesEndpoints.vectorMediaType : OGCTilesEndpoints.mapMediaType }
        var relation: String { self == .vector ? OGCRelation.tilesetsVector : OGCRelation.tilesetsMap }
        var ending: String { self == .vector ? ".mvt" : ".png" }
        var idPart: String { self == .vector ? "" : "Map" }
    }

    var operations: [APIOperation] {
        let root = Self.root
        var operations = APIOperation.page(root, "getOGCLandingPage") { request, context in
            landingPage(base: base(request, context))
        }
        operations += APIOperation.page(root + "/conformance", "getOGCConformance") { _, _ in
            HTTPAnswers.json(OGCConformanceDocument(conformsTo: OGCConformance.classes))
        }
        operations += APIOperation.page(root + "/tileMatrixSets", "getOGCTileMatrixSets") { request, context in
            tileMatrixSets(base: base(request, context))
        }
        operations += APIOperation.page(root + "/tileMatrixSets/{tileMatrixSetId}", "getOGCTileMatrixSet") { request, context in
            guard let set = OGCTileMatrixSet(rawValue: String(context.parameters["tileMatrixSetId"] ?? "")) else {
                return unknownSet(context)
            }
            let link = OGCLink(base(request, context) + root + "/tileMatrixSets/" + set.id, rel: "self", title: "this definition")
            return json(set.definition(links: [link]))
        }
        operations += APIOperation.page(root + "/collections", "getOGCCollections") { request, context in
            collections(base: base(request, context), grant: context.grant)
        }
        operations += APIOperation.page(root + "/collections/" + Self.collection, "getOGCCollection") { request, context in
            collection(base: base(request, context), grant: context.grant)
        }
        for kind in Kind.allCases {
            for (prefix, scope) in [(root + "/collections/" + Self.collection, "Collection"), (root, "Dataset")] {
                let list = prefix + kind.pathPart
                operations += APIOperation.page(list, "getOGC\(scope)\(kind.idPart)Tilesets") { request, context in
                    tilesetList(kind, path: list, base: base(request, context), grant: context.grant)
                }
                operations += APIOperation.page(list + "/{tileMatrixSetId}", "getOGC\(scope)\(kind.idPart)Tileset") {
                    request, context in
                    guard let set = offeredSet(context) else { return unknownSet(context) }
                    return tileset(kind, set, path: list + "/" + set.id, base: base(request, context), grant: context.grant)
                }
                let tile = PathPattern(list + "/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}")
                operations.append(APIOperation(.get, tile, "getOGC\(scope)\(kind.idPart)Tile") { request, context in
                    await self.tile(kind, request, context)
                })
                operations.append(APIOperation(.head, tile, "headOGC\(scope)\(kind.idPart)Tile") { request, context in
                    await self.tile(kind, request, context)
                })
            }
        }
        return operations
    }

    /// Whether `path` names a tile of the OGC API (`/ogc/…/{tileMatrixSetId}/{m}/{r}/{c}`), which a signed tile URL
    /// may read as it reads `/tiles/…`.
    static func isTilePath(_ path: String) -> Bool {
        guard path.hasPrefix(root + "/") else { return false }
        return OGCTileMatrixSet.allCases.contains { set in
            guard let marker = path.range(of: "/" + set.id + "/") else { return false }
            return path[marker.upperBound...].split(separator: "/", omittingEmptySubsequences: false).count == 3
        }
    }

    /// The set the path's `{tileMatrixSetId}` names, when the backend offers it.
    func offeredSet(_ context: APIContext) -> OGCTileMatrixSet? {
        OGCTileMatrixSet(rawValue: String(context.parameters["tileMatrixSetId"] ?? "")).flatMap { offered.contains($0) ? $0 : nil }
    }

    /// The 404 of a `{tileMatrixSetId}` that names no set offered here.
    func unknownSet(_ context: APIContext) -> Response {
        let id = String(context.parameters["tileMatrixSetId"] ?? "")
        if OGCTileMatrixSet(rawValue: id) != nil {
            return HTTPAnswers.error(.notFound, "tile matrix set '\(id)' is not offered here: " + GridUnavailable().description)
        }
        return HTTPAnswers.error(.notFound, "tile matrix set '\(id)' is not one of "
            + OGCTileMatrixSet.allCases.map(\.id).joined(separator: ", "))
    }

    func base(_ request: Request, _ context: APIContext) -> String {
        metadata.baseURL(request, mountPath: context.mountPath)
    }

    func json<Document: Encodable>(_ document: Document) -> Response {
        var response = HTTPAnswers.json(document)
        response.headers[.cacheControl] = MetadataEndpoints.metadataCacheControl(metadata.access)
        return response
    }

    /// `answer` of the tileset's metadata as the reader's groups see it, or the 403 of a reader whose groups cannot
    /// be cut.
    func withTileset(_ grant: AccessGrant, _ answer: (TilesetMetadata) -> Response) -> Response {
        guard let tileset = metadata.backend.metadata(name: metadata.name, groups: grant.read) else {
            return HTTPAnswers.error(.forbidden, GroupsUnavailable().description)
        }
        return answer(tileset)
    }

    func landingPage(base: String) -> Response {
        let root = base + Self.root
        return json(OGCLandingPage(
            title: metadata.name,
            description: "Route tiles of \(metadata.name): Mapbox Vector Tiles and PNG map tiles in "
                + offered.map(\.id).joined(separator: " and ") + ".",
            links: [
                OGCLink(root, rel: "self", title: "this document"),
                OGCLink(base + "/openapi.json", rel: "service-desc", type: "application/vnd.oai.openapi+json;version=3.0",
                        title: "the API's OpenAPI 3 document"),
                OGCLink(base + "/", rel: "service-doc", type: "text/html", title: "the map viewer"),
                OGCLink(root + "/conformance", rel: "conformance", title: "conformance classes"),
                OGCLink(root + "/conformance", rel: OGCRelation.conformance, title: "conformance classes"),
                // GDAL's OGCAPI driver follows the plain `data`; the standard also names the URI form.
                OGCLink(root + "/collections", rel: "data", title: "the collections"),
                OGCLink(root + "/collections", rel: OGCRelation.data, title: "the collections"),
                OGCLink(root + "/tiles", rel: OGCRelation.tilesetsVector, title: "vector tilesets"),
                OGCLink(root + "/map/tiles", rel: OGCRelation.tilesetsMap, title: "map tilesets"),
                OGCLink(root + "/tileMatrixSets", rel: OGCRelation.tilingSchemes, title: "tile matrix sets"),
            ]))
    }

    func tileMatrixSets(base: String) -> Response {
        let root = base + Self.root
        return json(OGCTileMatrixSetList(
            tileMatrixSets: OGCTileMatrixSet.allCases.map { set in
                .init(id: set.id, title: set.title, uri: set.uri,
                      links: [OGCLink(root + "/tileMatrixSets/" + set.id, rel: "self", title: "the \(set.id) definition")])
            },
            links: [OGCLink(root + "/tileMatrixSets", rel: "self", title: "this document")]))
    }

    /// West, south, east, north of `tileset`, the world's when its metadata has none.
    static func bounds(of tileset: TilesetMetadata) -> [Double] {
        tileset.bounds.count == 4 ? tileset.bounds : WebMercator.worldBounds.array
    }

    func collectionDocument(_ tileset: TilesetMetadata, base: String) -> OGCCollection {
        let path = base + Self.root + "/collections/" + Self.collection
        let bounds = Self.bounds(of: tileset)
        return OGCCollection(
            id: Self.collection, title: tileset.name,
            description: "The routes: lines with their properties" + (positionLayer.map { ", and the position of live routes (layer \($0))" } ?? ""),
            dataType: "vector", geometryDimension: 1, vectorType: "Lines",
            extent: .init(spatial: .init(bbox: [bounds], crs: Self.crs84)),
            crs: [Self.crs84] + offered.filter { $0.crs != Self.crs84 }.map(\.crs),
            links: [
                OGCLink(path, rel: "self", title: "this collection"),
                OGCLink(path + "/tiles", rel: OGCRelation.tilesetsVector, title: "vector tilesets"),
                OGCLink(path + "/map/tiles", rel: OGCRelation.tilesetsMap, title: "map tilesets"),
            ])
    }

    func collections(base: String, grant: AccessGrant) -> Response {
        withTileset(grant) { tileset in
            json(OGCCollections(
                links: [OGCLink(base + Self.root + "/collections", rel: "self", title: "this document")],
                collections: [collectionDocument(tileset, base: base)]))
        }
    }

    func collection(base: String, grant: AccessGrant) -> Response {
        withTileset(grant) { json(collectionDocument($0, base: base)) }
    }

    func tilesetList(_ kind: Kind, path: String, base: String, grant: AccessGrant) -> Response {
        withTileset(grant) { tileset in
            let summaries = offered.map { set in
                OGCTilesetList.Summary(
                    title: tileset.name + (kind == .map ? " (map tiles)" : ""), dataType: kind.dataType, crs: set.crs,
                    tileMatrixSetURI: set.uri,
                    links: [
                        OGCLink(base + path + "/" + set.id, rel: "self", title: "the tileset in \(set.id)"),
                        OGCLink(base + Self.root + "/tileMatrixSets/" + set.id, rel: OGCRelation.tilingScheme, title: set.id),
                    ])
            }
            return json(OGCTilesetList(links: [OGCLink(base + path, rel: "self", title: "this document")], tilesets: summaries))
        }
    }

    /// The deepest tile matrix of `set` whose tiles may hold `layer`: the tileset's, or the layer's own (the density
    /// layer's), which in WorldCRS84Quad is one less (its tiles take the detail of the Web Mercator zoom one deeper).
    static func deepest(_ layer: VectorLayerInfo, _ zooms: ClosedRange<Int>, _ set: OGCTileMatrixSet) -> Int {
        guard let own = layer.maxZoom else { return zooms.upperBound }
        return max(zooms.lowerBound, min(zooms.upperBound, set == .worldCRS84Quad ? own - 1 : own))
    }

    func tileset(_ kind: Kind, _ set: OGCTileMatrixSet, path: String, base: String, grant: AccessGrant) -> Response {
        withTileset(grant) { tileset(kind, set, tileset: $0, path: path, base: base, grant: grant) }
    }

    func tileset(_ kind: Kind, _ set: OGCTileMatrixSet, tileset: TilesetMetadata, path: String, base: String,
                 grant: AccessGrant) -> Response {
        let bounds = Self.bounds(of: tileset)
        let zooms = tileset.minZoom...max(tileset.minZoom, tileset.maxZoom)
        let query = metadata.access.signedTileQuery(for: grant).map { "?" + $0 } ?? ""
        let template = base + path + "/{tileMatrix}/{tileRow}/{tileCol}" + query
        let center = tileset.center.count == 3 ? tileset.center : [0, 0, Double(tileset.minZoom)]
        var layers: [OGCTileset.Layer]?
        if kind == .vector {
            layers = tileset.layers.map { layer in
                let isPoint = layer.id == positionLayer || layer.id == DensityGrid.layerName
                    || RouteLook.standard.pointLayers.contains(layer.id)
                return OGCTileset.Layer(
                    id: layer.id, title: layer.id, description: layer.description.isEmpty ? nil : layer.description,
                    dataType: "vector", geometryDimension: isPoint ? 0 : 1,
                    minTileMatrix: String(zooms.lowerBound), maxTileMatrix: String(Self.deepest(layer, zooms, set)),
                    propertiesSchema: .init(properties: layer.fields.mapValues { .init(type: Self.schemaType(of: $0)) }))
            }
        }
        return json(OGCTileset(
            title: tileset.name + (kind == .map ? " (map tiles)" : ""),
            description: kind == .vector ? "Mapbox Vector Tiles of the routes"
                : "The routes drawn as PNG with the look of style.json (256 px; 512 and 768 px at /tiles/{z}/{x}/{y}@2x.png and @3x.png)",
            dataType: kind.dataType, crs: set.crs, tileMatrixSetURI: set.uri,
            mediaTypes: [kind.mediaType],
            tileMatrixSetLimits: set.limits(bounds: bounds, zooms: zooms),
            boundingBox: .init(lowerLeft: [bounds[0], bounds[1]], upperRight: [bounds[2], bounds[3]], crs: Self.crs84),
            centerPoint: .init(coordinates: [center[0], center[1]], crs: Self.crs84,
                               tileMatrix: String(min(zooms.upperBound, max(zooms.lowerBound, Int(center[2]))))),
            layers: layers,
            links: [
                OGCLink(base + path, rel: "self", title: "this tileset"),
                OGCLink(base + Self.root + "/collections/" + Self.collection, rel: OGCRelation.geodata,
                        title: "the collection whose features the tiles hold"),
                OGCLink(base + Self.root + "/tileMatrixSets/" + set.id, rel: OGCRelation.tilingScheme, title: set.id),
                OGCLink(template, rel: "item", type: kind.mediaType, title: "a tile", templated: true),
            ]))
    }

    /// A field type of `vector_layers` (`String`, `Number`, `Boolean`, `Mixed`) as a JSON schema type.
    static func schemaType(of field: String) -> String? {
        switch field.lowercased() {
        case "string": return "string"
        case "number": return "number"
        case "boolean": return "boolean"
        default: return nil
        }
    }

    /// A tile: `{tileMatrixSetId}` offered (else 404), `{tileMatrix}/{tileRow}/{tileCol}` checked (whole numbers:
    /// else 400; inside the matrix: else 404) and answered as the tile of that grid, of the same kind.
    func tile(_ kind: Kind, _ request: Request, _ context: APIContext) async -> Response {
        guard let set = offeredSet(context) else { return unknownSet(context) }
        let names = ["tileMatrix", "tileRow", "tileCol"]
        var numbers: [Int] = []
        for name in names {
            let text = context.parameters[name] ?? ""
            guard !text.isEmpty, text.count <= 9, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int(text) else {
                return HTTPAnswers.error(.badRequest, "\(name) '\(text)' is not a whole number")
            }
            numbers.append(n)
        }
        let (z, row, col) = (numbers[0], numbers[1], numbers[2])
        guard z <= set.deepestMatrix else {
            return HTTPAnswers.error(.notFound, "tile matrix \(z) is not one of \(set.id)'s (0–\(set.deepestMatrix))")
        }
        let (columns, rows) = set.size(z)
        guard row < rows, col < columns else {
            return HTTPAnswers.error(.notFound, "tile row \(row), column \(col) lie outside tile matrix \(z) of \(set.id) "
                + "(rows 0–\(rows - 1), columns 0–\(columns - 1))")
        }
        return await tiles.tile(request, TileID(z: z, x: col, y: row), grid: set.grid, raster: kind == .map, grant: context.grant)
    }
}
