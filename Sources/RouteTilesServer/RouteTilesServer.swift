import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import Metrics
import RouteTiles
import ServiceLifecycle

/// The HTTP server over the core: builds the Hummingbird application and runs it under swift-service-lifecycle,
/// which turns SIGINT and SIGTERM into a graceful shutdown (the listener closes, requests in flight finish).
public struct RouteTilesServer: Sendable {
    public let configuration: ServerConfiguration
    let state: ServerState

    /// - Parameters:
    ///   - name: the tileset's name in TileJSON and the style.
    ///   - backend: live routes, or a finished tileset.
    public init(configuration: ServerConfiguration, name: String, backend: TileBackend, logger: Logger) throws {
        self.configuration = configuration
        state = try ServerState(configuration: configuration, name: name, backend: backend, logger: logger)
    }

    /// Calls `observer` with each change applied by this server: the routes it changed and the tiles it invalidated
    /// (the tiles whose bytes changed, `invalidated`, and rarely `subtrees` under which every tile changed),
    /// whoever made the change: this server's writes, other replicas, SQL. Called in sequence order, outside the
    /// core's locks, by the service that hands changes on (so only while `services` run), which it holds up: it
    /// should return soon (`CachePurger.purge` only queues them). When that service fell behind, a change of the
    /// whole world stands for what it missed: `0/0/0`, invalidated and as a subtree.
    public func observeInvalidatedTiles(_ observer: @escaping @Sendable (LiveRouteSet.Change) -> Void) {
        state.changeConsumer?.observeInvalidatedTiles(observer)
    }

    /// The factory of the metrics at `/metrics`: what a service beside the server (a `CachePurger`) records its
    /// metrics through, so that they are served with the server's.
    public var metricsFactory: any MetricsFactory { state.metrics.factory }

    /// The application, for running alone or in a service group. `onRunning` gets the bound port. Run alone, live
    /// routes still drop changed tiles from the server's cache, but the expire log, `/events`, the purges and the
    /// metrics of applied changes need the reader of changes that `services` adds: prefer `services` or `run`.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> Application<RouteTilesResponder>
    {
        let responder = RouteTilesResponder(api: state.api)
        let tiles = state.api.tiles
        let serverName = "routetiles/\(RouteTilesVersion.string)"
        let preparedHead = CachedTileHead(tiles: tiles)
        let fastPath: @Sendable (HandedOnRequests) -> CachedTileFastPath = { handedOn in
            CachedTileFastPath(cachedAnswer: { head, bytes, remembered in tiles.cachedAnswer(head, in: bytes, remembered: &remembered) },
                               preparedHead: preparedHead, serverName: serverName, handedOn: handedOn)
        }
        let server: HTTPServerBuilder
        if let tls = state.tls {
            server = HTTPServerBuilder { handle in
                RouteTilesTLSChannel(credentials: tls,
                                     http1: RouteTilesHTTP1Channel(responder: handle, secure: true, cachedTiles: fastPath),
                                     http2: HTTP2Channel(responder: handle))
            }
        } else {
            server = HTTPServerBuilder { handle in RouteTilesHTTP1Channel(responder: handle, cachedTiles: fastPath) }
        }
        return Application(
            responder: responder,
            server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: serverName),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: state.logger
        )
    }

    /// The services to run together: the access log's flusher, `alongside` (such as a `CachePurger`), for live
    /// routes the reader of their changes, the application, for live routes the follower of the route store's
    /// changes and the finder of covers, and last (so that it is shut down first) the closer of the `/events`
    /// streams. Services are shut down in reverse order, so the reader of changes hands on what the application and
    /// the follower applied before it stops, and `alongside` stops after it.
    public func services(alongside: [any Service] = [], onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> [any Service]
    {
        Self.backgroundServices(state: state, alongside: alongside, application: application(onRunning: onRunning))
    }

    /// The services around the application (`RouteTilesEndpoints.services` has them without it).
    static func backgroundServices(state: ServerState, alongside: [any Service] = [],
                                   application: (any Service)? = nil) -> [any Service] {
        // The access log's flusher first, so that it is shut down last, after the requests' lines are written.
        var services: [any Service] = []
        if let accessLog = state.accessLog { services.append(AccessLogFlusher(log: accessLog)) }
        services.append(contentsOf: alongside)
        if let consumer = state.changeConsumer { services.append(consumer) }
        if let application { services.append(application) }
        if let sync = state.live {
            services.append(StoreFollower(sync: sync))
            services.append(CoverFiller(routes: sync.routes))
        }
        if state.configuration.credentialKeySource != nil || state.tls != nil {
            services.append(KeyReloader(verifier: state.verifier, source: state.configuration.credentialKeySource,
                                        tls: state.tls, interval: state.configuration.keyReloadInterval,
                                        logger: state.logger))
        }
        services.append(ChangeEventsCloser(events: state.events))
        return services
    }

    /// Runs, with `alongside`, until SIGINT or SIGTERM, then shuts down gracefully.
    public func run(alongside: [any Service] = [], onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        async throws
    {
        let group = ServiceGroup(configuration: .init(
            services: services(alongside: alongside, onRunning: onRunning),
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: state.logger))
        try await group.run()
    }
}
