/// `GET /health` (`Health` in `openapi.json`): always 200; `status` is `degraded` while the route store cannot be
/// reached. A server of a finished tileset answers only `status` and `cache`.
struct HealthAnswer: Encodable, Sendable {
    struct Store: Encodable, Sendable {
        var name: String
        var durable: Bool
        var reachable: Bool
        var appliedSequence: Int64
        var newestSequence: Int64
        var lag: Int64
        var reconnects: Int
        var badRows: Int
        /// The store's last error, while it is not reachable.
        var error: String?
        /// Set for a store that keeps writes in memory only, on a server that takes writes.
        var warning: String?

        enum CodingKeys: String, CodingKey {
            case name, durable, reachable, lag, reconnects, error, warning
            case appliedSequence = "applied_sequence", newestSequence = "newest_sequence", badRows = "bad_rows"
        }
    }

    struct Cache: Encodable, Sendable {
        var tiles: Int
        var bytes: Int
    }

    var status: String
    var routes: Int?
    var points: Int?
    var generation: UInt64?
    var coversPending: Int?
    var store: Store?
    var cache: Cache
    /// The raster tiles drawn and kept (`RasterTileCache`).
    var rasterCache: Cache

    enum CodingKeys: String, CodingKey {
        case status, routes, points, generation, store, cache
        case coversPending = "covers_pending", rasterCache = "raster_cache"
    }
}
