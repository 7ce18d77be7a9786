import Foundation
import HTTPTypes
import Logging
import NIOCore
import RouteTiles
import RouteTilesAccess

/// Where a server's parts are made and kept: the tile service, the metrics and logs, for live routes the reader of
/// their changes, and the HTTP API built from the endpoint families of its mode. Endpoints never see it: each family
/// holds only what it uses; the server and its background services read it.
final class ServerState: Sendable {
    let tiles: TileService<ByteBuffer>
    let metrics: ServerMetrics
    let logger: Logger
    /// The live routes; nil for a finished tileset.
    let live: LiveRouteSync?
    /// The open `GET /events` streams.
    let events: ChangeEvents
    /// One line a request, buffered, when the log level is `info` or lower.
    let accessLog: AccessLog?
    /// Hands the live routes' changes on (expire log, purges, metrics, `/events`); nil for a tileset.
    let changeConsumer: LiveChangeConsumer?
    /// The dispatch table of this server's mode, inside its wrappers.
    let api: ServerAPI
    /// What verifies credentials, whose keys `KeyReloader` keeps current.
    let verifier: CredentialVerifier
    /// The certificate and key of HTTPS, which `KeyReloader` keeps current too; nil for plain HTTP.
    let tls: TLSCredentials?
    let configuration: ServerConfiguration

    init(configuration: ServerConfiguration, name: String, backend: TileBackend, logger: Logger) throws {
        let metrics = ServerMetrics()
        if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
            tls = try TLSCredentials(certificatePath: certificate, keyPath: key)
        } else {
            tls = nil
        }
        let accessLog = logger.logLevel <= .info ? AccessLog(label: logger.label) : nil
        let tiles = TileService<ByteBuffer>(backend: backend, cacheBytes: configuration.cacheBytes,
                                            concurrency: configuration.generationConcurrency,
                                            queueLimit: configuration.generationQueueLimit,
                                            compressionLevel: configuration.compressionLevel,
                                            windowCacheBytes: configuration.windowCacheBytes, observer: metrics)
        let expireLog = try configuration.expireLogPath.map { try ExpireLog(path: $0) }
        let events = ChangeEvents()
        var consumer: LiveChangeConsumer?
        if let sync = backend.live {
            metrics.storeApplied.record(sync.status.applied)
            // Rows found bad when the routes were loaded at start-up count like those found later.
            metrics.storeBadRows.increment(by: sync.status.badRows)
            consumer = LiveChangeConsumer(sync: sync, events: events, expireLog: expireLog, metrics: metrics,
                                          logger: logger, tracksGroups: configuration.read == .token)
        }
        let cors = CORSHeaders(origin: configuration.corsOrigin)
        let recorder = RequestRecorder(metrics: metrics, accessLog: accessLog)
        let verifier = try configuration.credentials ?? CredentialVerifier(keys: CredentialKeys(writeToken: configuration.writeToken))
        let access = AccessControl(policy: configuration.read, verifier: verifier, writesOn: backend.live != nil,
                                   jwtWrites: configuration.jwtWrites, metrics: metrics,
                                   limits: AccessControl.Limits(configuration.rateLimits),
                                   audit: try configuration.auditLogPath.map { try AuditLog(path: $0) })
        let live = backend.live.map { sync in
            let writes = RouteWriteEndpoints(sync: sync, configuration: configuration, metrics: metrics,
                                             expireLogWriter: expireLog == nil ? nil : consumer)
            return LiveEndpoints(
                reads: RouteReadEndpoints(sync: sync, listing: RouteListing()),
                writes: writes,
                events: EventsEndpoint(sync: sync, events: events),
                osmand: OsmandEndpoint(writes: writes, access: access))
        }
        let tileEndpoints = Self.tileEndpoints(configuration: configuration, tiles: tiles, live: backend.live,
                                               metrics: metrics, logger: logger, cors: cors, recorder: recorder,
                                               privateReads: configuration.read == .token ? verifier : nil)
        api = ServerAPI(
            tiles: tileEndpoints,
            metadata: MetadataEndpoints(name: name, configuration: configuration, backend: backend, cache: tiles.cache,
                                        rasterCache: tileEndpoints.raster.cache, metrics: metrics, accessLog: accessLog,
                                        access: access),
            live: live, cors: cors, recorder: recorder, access: access,
            trustedProxies: configuration.trustedProxies)
        self.logger = logger
        self.verifier = verifier
        self.configuration = configuration
        self.live = backend.live
        self.metrics = metrics
        self.accessLog = accessLog
        self.tiles = tiles
        self.events = events
        changeConsumer = consumer
    }

    /// The tiles' family: their `Cache-Control` and `Last-Modified` follow whether the routes can change.
    private static func tileEndpoints(configuration: ServerConfiguration, tiles: TileService<ByteBuffer>,
                                      live: LiveRouteSync?, metrics: ServerMetrics, logger: Logger, cors: CORSHeaders,
                                      recorder: RequestRecorder, privateReads: CredentialVerifier?) -> TileEndpoints {
        // Routes change when writes are taken or when the store is shared (SQL, other replicas, other processes);
        // routes from files in memory, without a write token, are as finished as a tileset.
        let changes = live.map { configuration.writeToken != nil || $0.store.isDurable } ?? false
        let responder = TileResponder(service: tiles, cacheControl: configuration.cacheControl
            ?? (changes ? ServerConfiguration.liveCacheControl : ServerConfiguration.staticCacheControl))
        let modified = time_t((configuration.lastModified ?? Date()).timeIntervalSince1970)
        let raster = RasterTileResponder(
            service: tiles, renderer: RasterTileRenderer(positionLayer: live?.routes.options.positionLayer),
            cache: RasterTileCache(capacityBytes: configuration.rasterCacheBytes), cacheControl: responder.cacheControl)
        return TileEndpoints(
            responder: responder, raster: raster,
            lastModified: changes ? nil : HTTPField(name: .lastModified, value: HTTPDateClock.format(modified)),
            metrics: metrics, logger: logger, retryAfterSeconds: configuration.retryAfterSeconds, cors: cors,
            recorder: recorder, privateReads: privateReads,
            privateCacheControl: TileEndpoints.privateCacheControl(of: responder.cacheControl))
    }
}
