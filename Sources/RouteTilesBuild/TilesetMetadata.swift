import Foundation
import RouteTilesGeo
import RouteTilesModel
import RouteTilesTiling

/// What a tileset says about itself: the `metadata.json` of a pyramid (the layout tippecanoe writes with `-e`),
/// the MBTiles metadata table, and TileJSON 3.0.0.
public struct TilesetMetadata: Sendable, Equatable {
    /// The tileset's name.
    public var name: String
    /// A description of the tileset; empty by default.
    public var description: String = ""
    /// The vector layers, in the order the tiles hold them.
    public var layers: [VectorLayerInfo]
    /// The shallowest zoom of the tiles.
    public var minZoom: Int
    /// The deepest zoom of the tiles.
    public var maxZoom: Int
    /// West, south, east, north in degrees.
    public var bounds: [Double]
    /// Longitude, latitude, zoom.
    public var center: [Double]
    /// For the output of one shard of a sharded build, which shard of which plan: `join` checks that its parts fit
    /// together. Written as the `routetiles_shard` entry.
    public var shard: PyramidShard?
    /// For tiles that hold routes with times cut in time pieces: the piece length at each zoom in seconds, keyed by
    /// the zoom as text (`TimePieces.table`). Written as `time_pieces` in TileJSON and in the `json` entry.
    public var timePieces: [String: Int]?
    /// What the tiles are: vector tiles (the default) or PNG drawings of them (`build --tile-format png`). Written
    /// as `format` (`pbf` or `png`) and, for PNG tiles of another scale than 1, `routetiles_tile_scale`.
    public var tileFormat: TileFormat = .mvt
    /// The byte budget the tiles were cut within and, for a build, what fitting it took per zoom; nil for tiles
    /// cut without one (`--max-tile-bytes 0`). Written as `tile_budget` in TileJSON and in the `json` entry.
    public var tileBudget: TileBudgetReport?

    /// Metadata with the given values.
    public init(name: String, layers: [VectorLayerInfo], minZoom: Int, maxZoom: Int, bounds: [Double],
                center: [Double]) {
        self.name = name
        self.layers = layers
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.center = center
    }

    /// The metadata of tiles cut by `tiler`.
    public init(name: String, tiler: RouteTiler) {
        self.init(name: name, options: tiler.options, routeSets: [tiler.projected])
    }

    /// The metadata of tiles cut with `options` from the routes of `routeSets` together.
    public init(name: String, options: TilingOptions, routeSets: [ProjectedRouteSet]) {
        var survey = TilesetMetadata.Survey(options: options)
        for set in routeSets { survey.add(set) }
        self = survey.metadata(name: name)
    }

    /// The `vector_layers` array of TileJSON and of the `json` metadata entry.
    public var vectorLayers: [VectorLayerEntry] {
        layers.map { VectorLayerEntry(id: $0.id, description: $0.description, minzoom: minZoom,
                                      maxzoom: max(minZoom, min(maxZoom, $0.maxZoom ?? maxZoom)), fields: $0.fields) }
    }

    private static func text(_ numbers: [Double]) -> String {
        numbers.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int($0)) : String($0) }.joined(separator: ",")
    }

    /// Name/value pairs as tippecanoe writes them (every value a string; `json` holding `vector_layers`). The same
    /// pairs fill the MBTiles `metadata` table.
    /// A tileset of PNG tiles has no `json` entry (its tiles hold no layers) and, at a scale above 1, says it in
    /// `routetiles_tile_scale`.
    public var pairs: [(String, String)] {
        var pairs = [
            ("name", name), ("description", description), ("version", "2"),
            ("minzoom", String(minZoom)), ("maxzoom", String(maxZoom)),
            ("center", Self.text(center)), ("bounds", Self.text(bounds)),
            ("type", "overlay"), ("format", tileFormat.metadataFormat),
            ("generator", "routetiles \(RouteTilesVersion.string)"),
        ]
        switch tileFormat {
        case .mvt:
            let json = JSONText.bytes(JSONEntry(vector_layers: vectorLayers, time_pieces: timePieces, tile_budget: tileBudget), pretty: false)
            pairs.append(("json", String(decoding: json, as: UTF8.self)))
        case let .png(scale):
            if scale != 1 { pairs.append((Self.tileScaleKey, String(scale))) }
        }
        return pairs + (shard.map { [(Self.shardKey, $0.label)] } ?? [])
    }

    /// The name of the entry that holds `shard`.
    package static let shardKey = "routetiles_shard"
    /// The name of the entry that holds the scale of PNG tiles other than @1x.
    package static let tileScaleKey = "routetiles_tile_scale"

    /// `metadata.json` of a pyramid.
    public var metadataJSON: [UInt8] {
        JSONText.bytes(Dictionary(pairs, uniquingKeysWith: { _, last in last }), pretty: true)
    }

    /// TileJSON 3.0.0 with absolute tile URLs under `baseURL` (`{baseURL}/{z}/{x}/{y}.mvt`, or the ending of
    /// the tile format, `.png`, with no `vector_layers`).
    public func tileJSON(baseURL: String) -> [UInt8] {
        tileJSON(baseURL: baseURL, tileQuery: nil)
    }

    /// `tileJSON(baseURL:)` with `?tileQuery` after the tile URL template (a signed tile URL's parameters).
    public func tileJSON(baseURL: String, tileQuery: String?) -> [UInt8] {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        let document = TileJSONDocument(name: name, description: description,
                                        tiles: ["\(base)/{z}/{x}/{y}\(tileFormat.fileEnding)" + (tileQuery.map { "?" + $0 } ?? "")],
                                        minzoom: minZoom, maxzoom: maxZoom, bounds: bounds, center: center,
                                        vector_layers: tileFormat == .mvt ? vectorLayers : nil,
                                        time_pieces: tileFormat == .mvt ? timePieces : nil,
                                        tile_budget: tileFormat == .mvt ? tileBudget : nil)
        return JSONText.bytes(document, pretty: true)
    }
}

/// The `json` entry of tippecanoe's metadata, with RouteTiles' `time_pieces` and `tile_budget` when there are some.
private struct JSONEntry: Encodable {
    var vector_layers: [VectorLayerEntry]?
    var time_pieces: [String: Int]?
    var tile_budget: TileBudgetReport?
}

/// TileJSON 3.0.0 as `TilesetMetadata.tileJSON(baseURL:)` writes it.
private struct TileJSONDocument: Encodable {
    var tilejson = "3.0.0"
    var name: String
    var description: String
    var version = "1.0.0"
    var scheme = "xyz"
    var tiles: [String]
    var minzoom: Int
    var maxzoom: Int
    var bounds: [Double]
    var center: [Double]
    var vector_layers: [VectorLayerEntry]?
    var time_pieces: [String: Int]?
    var tile_budget: TileBudgetReport?
}
