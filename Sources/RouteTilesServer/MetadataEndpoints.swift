import Foundation
import Hummingbird
import RouteTiles
import RouteTilesAccess

/// What describes and watches the server: the viewer and its files, `tiles.json`, `style.json`, `/health` and its
/// probes, `/metrics`, `/assets/…` and `/openapi.json`. Every server has them; the live routes, when there are
/// some, add their store's state to the health and the metrics.
struct MetadataEndpoints: Sendable {
    let name: String
    let configuration: ServerConfiguration
    let backend: TileBackend
    let cache: TileCache<ByteBuffer>
    /// The drawn PNGs, whose size `/health` reports beside the vector tiles'.
    let rasterCache: RasterTileCache
    let metrics: ServerMetrics
    let accessLog: AccessLog?
    /// Who may read; signs the tile URLs of `tiles.json` and `style.json` where reads are private.
    let access: AccessControl

    var operations: [APIOperation] {
        var operations = APIOperation.page("/", "getViewer") { _, context in viewer(mountPath: context.mountPath) }
        operations += APIOperation.page("/index.html", "getViewerPage") { _, context in viewer(mountPath: context.mountPath) }
        operations += APIOperation.page("/viewer.js", "getViewerScript") { _, _ in
            HTTPAnswers.bytes(ViewerFiles.script, contentType: "text/javascript; charset=utf-8",
                              headers: [.cacheControl: "no-cache"])
        }
        operations += APIOperation.page("/viewer.css", "getViewerStylesheet") { _, _ in
            HTTPAnswers.bytes(ViewerFiles.stylesheet, contentType: "text/css; charset=utf-8",
                              headers: [.cacheControl: "no-cache"])
        }
        operations += APIOperation.page("/favicon.ico", "getFavicon") { _, _ in
            HTTPAnswers.empty(.noContent, headers: [.cacheControl: "public, max-age=86400"])
        }
        operations += APIOperation.page(PathPattern(subtree: "/assets/", documentedAs: "/assets/{path}"), "getAsset") {
            _, context in asset(context.parameters.tail)
        }
        operations += APIOperation.page("/tiles.json", "getTileJSON") { request, context in
            tileJSON(baseURL: baseURL(request, mountPath: context.mountPath), grant: context.grant)
        }
        operations += APIOperation.page("/style.json", "getStyle") { request, context in
            style(baseURL: baseURL(request, mountPath: context.mountPath), grant: context.grant)
        }
        operations += APIOperation.page("/health", "getHealth") { _, _ in health() }
        operations += APIOperation.page("/health/live", "getLiveness") { _, _ in HTTPAnswers.json(ProbeAnswer(status: "ok")) }
        operations += APIOperation.page("/health/ready", "getReadiness") { _, _ in readiness() }
        operations += APIOperation.page("/metrics", "getMetrics") { _, _ in metricsText() }
        operations += APIOperation.page("/openapi.json", "getOpenAPIDocument") { _, _ in
            HTTPAnswers.bytes(OpenAPIDocument.json, contentType: "application/json", headers: [.cacheControl: "no-cache"])
        }
        return operations
    }

    /// `--public-url`, else `http://` and the request's Host; then the mount path.
    func baseURL(_ request: Request, mountPath: String) -> String {
        if var url = configuration.publicURL {
            while url.hasSuffix("/") { url.removeLast() }
            return url + mountPath
        }
        let host = request.head.authority ?? "\(configuration.host):\(configuration.port)"
        return (configuration.tlsCertificatePath == nil ? "http://" : "https://") + host + mountPath
    }

    /// `GET /`: the MapLibre viewer.
    func viewer(mountPath: String) -> Response {
        let html = ViewerPage.html(mapLibreURL: configuration.mapLibreURL, title: name,
                                   basemap: configuration.basemapStyleURL, live: backend.live != nil,
                                   baseHref: mountPath.isEmpty ? nil : mountPath + "/")
        return HTTPAnswers.bytes(Array(html.utf8), contentType: "text/html; charset=utf-8",
                                 headers: [.cacheControl: "no-cache"])
    }

    /// `GET /tiles.json`: TileJSON 3.0.0 with absolute tile URLs; for a reader limited to some groups, the
    /// bounds, layers and fields of their routes alone. Where reads are private, the tile URLs are signed for the
    /// reader's groups (`AccessControl.signedTileQuery(for:)`), so that a client that cannot send its credential
    /// with each tile request still gets them.
    func tileJSON(baseURL: String, grant: AccessGrant = .anonymous) -> Response {
        guard let metadata = backend.metadata(name: name, groups: grant.read) else {
            return HTTPAnswers.error(.forbidden, GroupsUnavailable().description)
        }
        return HTTPAnswers.bytes(metadata.tileJSON(baseURL: baseURL + "/tiles", tileQuery: access.signedTileQuery(for: grant)),
                                 contentType: "application/json", headers: [.cacheControl: Self.metadataCacheControl(access)])
    }

    /// Documents with signed URLs are the reader's own: no cache in front may keep them.
    static func metadataCacheControl(_ access: AccessControl) -> String {
        access.policy == .token ? "private, no-cache" : "no-cache"
    }

    /// `GET /style.json`: a MapLibre style over this server's tiles (as `tileJSON` for a limited reader); where
    /// reads are private, its source names the signed tile URLs itself.
    func style(baseURL: String, grant: AccessGrant = .anonymous) -> Response {
        guard let metadata = backend.metadata(name: name, groups: grant.read) else {
            return HTTPAnswers.error(.forbidden, GroupsUnavailable().description)
        }
        var response = HTTPAnswers.json(StyleDocument.make(metadata: metadata, baseURL: baseURL,
                                                           positionLayer: backend.live?.routes.options.positionLayer,
                                                           tileQuery: access.signedTileQuery(for: grant)))
        response.headers[.cacheControl] = Self.metadataCacheControl(access)
        return response
    }

    /// `GET /health`.
    func health() -> Response {
        let usage = cache.usage
        let raster = rasterCache.usage
        var body = HealthAnswer(status: "ok", cache: HealthAnswer.Cache(tiles: usage.tiles, bytes: usage.bytes),
                                rasterCache: HealthAnswer.Cache(tiles: raster.tiles, bytes: raster.bytes))
        if let sync = backend.live {
            // Open to all, so where reads are private it counts no route and no point.
            if configuration.read == .public {
                let snapshot = sync.routes.snapshot
                body.routes = snapshot.routeCount
                body.points = snapshot.pointCount
                body.generation = snapshot.generation
                body.coversPending = sync.routes.routesWithoutCover
            }
            let status = sync.status
            var store = HealthAnswer.Store(
                name: sync.store.displayName, durable: sync.store.isDurable, reachable: status.reachable,
                appliedSequence: status.applied, newestSequence: status.newest,
                lag: max(0, status.newest - status.applied), reconnects: status.reconnects, badRows: status.badRows,
                error: status.lastError)
            if !sync.store.isDurable, configuration.writeToken != nil {
                store.warning = "writes are kept in memory only and are lost when the server stops"
            }
            body.store = store
            if !status.reachable { body.status = "degraded" }
        }
        return HTTPAnswers.json(body)
    }

    /// `GET /health/ready`: 200 while this server can answer for its routes, 503 (with the reason) while its route
    /// store cannot be reached, so that a load balancer sends requests elsewhere. `/health/live` answers 200 as long
    /// as the process serves at all: a store outage is no reason to restart a server.
    func readiness() -> Response {
        if let sync = backend.live, !sync.status.reachable {
            var response = HTTPAnswers.json(ProbeAnswer(
                status: "unavailable",
                reason: "the route store (\(sync.store.displayName)) cannot be reached: \(sync.status.lastError ?? "no answer")"),
                status: .serviceUnavailable)
            response.headers[.retryAfter] = String(configuration.retryAfterSeconds)
            return response
        }
        return HTTPAnswers.json(ProbeAnswer(status: "ready"))
    }

    /// `GET /metrics`: Prometheus text exposition.
    func metricsText() -> Response {
        if let sync = backend.live {
            // The store's position as of this scrape: the newest sequence moves without any change applied here.
            let status = sync.status
            metrics.storeApplied.record(status.applied)
            metrics.storeNewest.record(status.newest)
            metrics.storeCommits.record(status.commits)
            metrics.storeCommittedWrites.record(status.writesCommitted)
        }
        if let accessLog { metrics.accessLogDropped.record(accessLog.dropped) }
        return HTTPAnswers.bytes(metrics.exposition(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    /// `GET /assets/NAME`: a file of `--assets`, with no way out of that folder.
    func asset(_ name: Substring) -> Response {
        guard let folder = configuration.assetsDirectory else {
            return HTTPAnswers.error(.notFound, "no assets folder is configured (--assets)")
        }
        let parts = name.split(separator: "/")
        guard !parts.isEmpty, !parts.contains(where: { $0 == ".." || $0 == "." || $0.hasPrefix(".") }) else {
            return HTTPAnswers.error(.notFound, "no such asset")
        }
        let path = folder + "/" + parts.joined(separator: "/")
        guard let data = FileManager.default.contents(atPath: path) else {
            return HTTPAnswers.error(.notFound, "no such asset: \(name)")
        }
        return HTTPAnswers.bytes(Array(data), contentType: Self.mediaType(of: path),
                                 headers: [.cacheControl: "public, max-age=3600"])
    }

    static func mediaType(of path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json": return "application/json"
        case "html": return "text/html; charset=utf-8"
        case "png": return "image/png"
        case "svg": return "image/svg+xml"
        case "pbf", "mvt": return "application/x-protobuf"
        default: return "application/octet-stream"
        }
    }
}
