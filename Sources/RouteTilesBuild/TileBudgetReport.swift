import RouteTilesModel
import RouteTilesTiling

/// What a tileset says about its byte budget: the bound its tiles were cut within and, for a build, per zoom the
/// tiles that were over it as cut and what fitting them took (`ZoomReductions`). Written as `tile_budget` in
/// TileJSON and in the `json` metadata entry; a tileset cut without a bound has none.
public struct TileBudgetReport: Sendable, Equatable, Encodable {
    /// The most gzip bytes a tile takes (`--max-tile-bytes`).
    public var maxBytes: Int
    /// Per zoom (as text, as TileJSON keys are), the tiles brought within the budget; zooms with none are absent,
    /// and tiles cut on demand (`serve`) report none here.
    public var reduced: [String: ZoomReductions]

    public init(maxBytes: Int, reduced: [String: ZoomReductions] = [:]) {
        self.maxBytes = maxBytes
        self.reduced = reduced
    }

    /// The report of a build: `maxBytes` and the build's reductions.
    public init(maxBytes: Int, reductionsPerZoom: [Int: ZoomReductions]) {
        self.init(maxBytes: maxBytes,
                  reduced: Dictionary(uniqueKeysWithValues: reductionsPerZoom.map { (String($0.key), $0.value) }))
    }

    /// Adds another part's reductions (a shard's, when parts are joined).
    public mutating func merge(_ other: TileBudgetReport) {
        reduced.merge(other.reduced) { var a = $0; a.merge($1); return a }
    }

    enum CodingKeys: String, CodingKey {
        case maxBytes = "max_bytes"
        case reduced
    }

    /// The report read back from its JSON object; `source` names the file in errors.
    package init(json: JSONDocument, source: String) throws {
        func count(_ object: JSONDocument?, _ key: String, in place: String) throws -> Int {
            guard let value = object?[key] else { return 0 }
            guard let n = value.number, n == n.rounded(), n >= 0, n < 1e15 else {
                throw StoreError(path: source, message: "\(place).\(key) is not a whole number ≥ 0")
            }
            return Int(n)
        }
        guard json.object != nil else { throw StoreError(path: source, message: "tile_budget is not a JSON object") }
        self.init(maxBytes: try count(json, "max_bytes", in: "tile_budget"))
        for (zoom, entry) in json["reduced"]?.object ?? [:] {
            let place = "tile_budget.reduced[\"\(zoom)\"]"
            var z = ZoomReductions()
            z.tiles = try count(entry, "tiles", in: place)
            z.coarsened = try count(entry, "coarsened", in: place)
            z.dropped = try count(entry, "dropped", in: place)
            z.maxGridPixels = try count(entry, "max_grid_px", in: place)
            z.linesBefore = try count(entry, "lines_before", in: place)
            z.linesAfter = try count(entry, "lines_after", in: place)
            z.droppedLines = try count(entry, "dropped_lines", in: place)
            z.droppedPoints = try count(entry, "dropped_points", in: place)
            reduced[zoom] = z
        }
    }
}
