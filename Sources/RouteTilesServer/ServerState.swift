import Logging
import RouteTiles

/// What every request handler shares.
final class ServerState: Sendable {
    let configuration: ServerConfiguration
    let name: String
    let tiles: TileService
    let metrics: ServerMetrics
    let logger: Logger
    let expireLog: ExpireLog?

    init(configuration: ServerConfiguration, name: String, backend: TileBackend, logger: Logger) throws {
        self.configuration = configuration
        self.name = name
        self.logger = logger
        metrics = ServerMetrics()
        tiles = TileService(backend: backend, configuration: configuration, metrics: metrics)
        expireLog = try configuration.expireLogPath.map { try ExpireLog(path: $0) }
        recordLoad()
    }

    /// Updates the gauges of what is loaded.
    func recordLoad() {
        if case let .live(routes) = tiles.backend {
            let snapshot = routes.snapshot
            metrics.routesLoaded.record(snapshot.routeCount)
            metrics.pointsLoaded.record(snapshot.pointCount)
        }
    }
}
