import Hummingbird
import HummingbirdCore
import Logging
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

    /// The application, for running alone or in a service group. `onRunning` gets the bound port.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in })
        -> Application<RouteTilesResponder>
    {
        let responder = RouteTilesResponder(state: state)
        let serverName = "routetiles/\(RouteTilesVersion.string)"
        return Application(
            responder: responder,
            server: HTTPServerBuilder { handle in
                RouteTilesHTTP1Channel(responder: handle, cachedTiles: { handedOn in
                    CachedTileFastPath(responder: responder, serverName: serverName, handedOn: handedOn)
                })
            },
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: serverName),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: state.logger
        )
    }

    /// The services to run together: the access log's flusher, the application, for live routes the follower of
    /// the route store's changes, and last (so that it is shut down first) the closer of the `/events` streams.
    public func services(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> [any Service] {
        Self.backgroundServices(state: state, application: application(onRunning: onRunning))
    }

    /// The services around the application (`RouteTilesEndpoints.services` has them without it).
    static func backgroundServices(state: ServerState, application: (any Service)? = nil) -> [any Service] {
        // The access log's flusher first, so that it is shut down last, after the requests' lines are written.
        var services: [any Service] = []
        if let accessLog = state.accessLog { services.append(AccessLogFlusher(log: accessLog)) }
        if let application { services.append(application) }
        if case let .live(sync) = state.tiles.backend {
            services.append(StoreFollower(sync: sync))
            services.append(CoverFiller(routes: sync.routes))
        }
        services.append(ChangeEventsCloser(events: state.events))
        return services
    }

    /// Runs until SIGINT or SIGTERM, then shuts down gracefully.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let group = ServiceGroup(configuration: .init(
            services: services(onRunning: onRunning),
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: state.logger))
        try await group.run()
    }
}
