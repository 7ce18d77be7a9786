import HTTPTypes
import Hummingbird
import RouteTilesAccess

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}

/// The HTTP API of one server: the dispatch table of its mode, built once from the endpoint families it has, inside
/// the wrappers every answer goes through (request recording outside, CORS inside it; `AccessControl` around each
/// operation as its `AccessRule` says). A server of live routes has every family; a tileset server has no route reads, writes or events, and
/// closes their paths (405 for `/routes…` with an empty `Allow`, 404 for `/events`).
struct ServerAPI: Sendable {
    let table: DispatchTable
    /// The tiles, whose cached answers the fast path in front of the HTTP decoder gives (`CachedTileFastPath`).
    let tiles: TileEndpoints
    /// The table inside its wrappers.
    private let wrapped: APIOperation.Handler
    /// Whose `X-Forwarded-For` names the client (`ServerConfiguration.trustedProxies`).
    private let trustedProxies: TrustedProxies

    init(tiles: TileEndpoints, metadata: MetadataEndpoints, live: LiveEndpoints?, cors: CORSHeaders,
         recorder: RequestRecorder, access: AccessControl, trustedProxies: TrustedProxies = TrustedProxies()) {
        self.tiles = tiles
        self.trustedProxies = trustedProxies
        // Tiles first: the hot path is one prefix test. `/routes/points` (a write) before `/routes/{id}` (a write
        // too), so that `POST /routes/points` is the batch while `GET /routes/points` reads the route `points`.
        var operations = tiles.operations
        var closed: [ClosedPath] = []
        if let live {
            operations += live.reads.operations
            operations += live.writes.operations
            operations += live.events.operations
            operations += live.osmand.operations
        } else {
            let refusal = "this server serves a finished tileset; routes cannot change"
            closed = ["/routes", "/routes/points", "/routes/{id}", "/routes/{id}/points", "/routes/{id}/gpx",
                      "/routes/{id}/position", "/osmand"].map {
                ClosedPath(path: PathPattern($0), status: .methodNotAllowed, message: refusal)
            }
            closed.append(ClosedPath(path: PathPattern("/events"), status: .notFound,
                                     message: "this server serves a finished tileset; nothing changes"))
        }
        operations += metadata.operations
        operations += OGCTilesEndpoints(metadata: metadata, tiles: tiles, offered: OGCTileMatrixSet.offered(by: metadata.backend),
                                        positionLayer: metadata.backend.live?.routes.options.positionLayer).operations
        operations = operations.map { operation in
            switch AccessRule.of(operation.id) {
            case .open: return operation
            case .own: return operation.wrapped(by: { access.auditing(AccessControl.action(of: operation.id), $0) })
            case .read: return operation.wrapped(by: access.reading)
            case .readEverything: return operation.wrapped(by: access.readingEverything)
            case .write:
                return operation.wrapped(by: { access.auditing(AccessControl.action(of: operation.id), access.writing($0)) })
            }
        }
        let table = DispatchTable(operations: operations, closed: closed)
        self.table = table
        wrapped = recorder.wrap(cors.wrap { request, context in await table.answer(request, context: context) })
    }

    /// The answer to `request` from `address` (the peer's; the client's is found behind trusted proxies), whose
    /// path below the mount point is `path`.
    func answer(_ request: Request, path: String, mountPath: String, address: String? = nil) async -> Response {
        var client = address
        if !trustedProxies.isEmpty {
            client = trustedProxies.client(peer: address, forwardedFor: request.headers[values: .xForwardedFor])
        }
        return await wrapped(request, APIContext(path: path, mountPath: mountPath, address: client))
    }
}

/// The endpoint families that only live routes have.
struct LiveEndpoints: Sendable {
    let reads: RouteReadEndpoints
    let writes: RouteWriteEndpoints
    let events: EventsEndpoint
    /// `/osmand`: fixes from Traccar Client and OsmAnd.
    let osmand: OsmandEndpoint
}

/// What an operation of the API needs, by its `operationId`: nothing (the viewer's files, the health probes, the
/// contract, the OGC API's descriptions of itself), a credential that reads (`--read token`), a full-access one,
/// one that writes, or its own check (`/osmand`, whose credential may come as a field of the body). An operation
/// this list does not name needs full access: a new operation is closed until it is given its rule here.
enum AccessRule: Equatable {
    case open
    case read
    case readEverything
    case write
    case own

    static func of(_ operationId: String) -> AccessRule {
        switch operationId {
        case "getTile", "headTile", "getRasterTile", "headRasterTile", "getRasterTile2x", "headRasterTile2x",
             "getRasterTile3x", "headRasterTile3x", "getTileJSON", "headTileJSON", "getStyle", "headStyle", "listRoutes", "getRoute",
             "getRouteGPX", "getRoutePosition", "streamEvents":
            return .read
        case _ where operationId.hasPrefix("getOGC") || operationId.hasPrefix("headOGC"):
            return openOGC.contains(operationId) ? .open : .read
        case "getMetrics", "headMetrics":
            return .readEverything
        case "createRoutes", "appendToRoutes", "replaceRoute", "deleteRoute", "appendToRoute":
            return .write
        case "osmandGet", "osmandPost":
            return .own
        case "getOpenAPIDocument", "headOpenAPIDocument", "getViewer", "headViewer", "getViewerPage", "headViewerPage",
             "getViewerScript", "headViewerScript", "getViewerStylesheet", "headViewerStylesheet", "getFavicon",
             "headFavicon", "getAsset", "headAsset", "getHealth", "headHealth", "getLiveness", "headLiveness",
             "getReadiness", "headReadiness":
            return .open
        default:
            return .readEverything
        }
    }

    /// The OGC API's documents that describe the service and not its routes.
    static let openOGC: Set<String> = [
        "getOGCLandingPage", "headOGCLandingPage", "getOGCConformance", "headOGCConformance", "getOGCTileMatrixSets",
        "headOGCTileMatrixSets", "getOGCTileMatrixSet", "headOGCTileMatrixSet",
    ]
}
