import Foundation
import Hummingbird
import RouteTiles

extension RouteTilesResponder {
    /// `GET /`: the MapLibre viewer.
    func viewer() -> Response {
        let html = ViewerPage.html(mapLibreURL: state.configuration.mapLibreURL, title: state.name,
                                   basemap: state.configuration.basemapStyleURL, live: state.tiles.backend.acceptsWrites,
                                   baseHref: mountPath.isEmpty ? nil : mountPath + "/")
        return HTTPAnswers.bytes(Array(html.utf8), contentType: "text/html; charset=utf-8",
                                 headers: [.cacheControl: "no-cache"])
    }

    /// `GET /tiles.json`: TileJSON 3.0.0 with absolute tile URLs.
    func tileJSON(_ request: Request) -> Response {
        let metadata = state.tiles.backend.metadata(name: state.name)
        return HTTPAnswers.bytes(metadata.tileJSON(baseURL: baseURL(request) + "/tiles"), contentType: "application/json",
                                 headers: [.cacheControl: "no-cache"])
    }

    /// `GET /style.json`: a MapLibre style over this server's tiles.
    func style(_ request: Request) -> Response {
        let metadata = state.tiles.backend.metadata(name: state.name)
        var positionLayer: String?
        if case let .live(sync) = state.tiles.backend { positionLayer = sync.routes.options.positionLayer }
        var response = HTTPAnswers.json(StyleDocument.make(metadata: metadata, baseURL: baseURL(request),
                                                           positionLayer: positionLayer))
        response.headers[.cacheControl] = "no-cache"
        return response
    }

    /// `GET /health`.
    func health() -> Response {
        let usage = state.tiles.cache.usage
        var body = HealthAnswer(status: "ok", cache: HealthAnswer.Cache(tiles: usage.tiles, bytes: usage.bytes))
        if case let .live(sync) = state.tiles.backend {
            let snapshot = sync.routes.snapshot
            body.routes = snapshot.routeCount
            body.points = snapshot.pointCount
            body.generation = snapshot.generation
            body.coversPending = sync.routes.routesWithoutCover
            let status = sync.status
            var store = HealthAnswer.Store(
                name: sync.store.displayName, durable: sync.store.isDurable, reachable: status.reachable,
                appliedSequence: status.applied, newestSequence: status.newest,
                lag: max(0, status.newest - status.applied), reconnects: status.reconnects, badRows: status.badRows,
                error: status.lastError)
            if !sync.store.isDurable, state.configuration.writeToken != nil {
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
        if case let .live(sync) = state.tiles.backend, !sync.status.reachable {
            var response = HTTPAnswers.json(ProbeAnswer(
                status: "unavailable",
                reason: "the route store (\(sync.store.displayName)) cannot be reached: \(sync.status.lastError ?? "no answer")"),
                status: .serviceUnavailable)
            response.headers[.retryAfter] = String(state.configuration.retryAfterSeconds)
            return response
        }
        return HTTPAnswers.json(ProbeAnswer(status: "ready"))
    }

    /// `GET /metrics`: Prometheus text exposition.
    func metricsText() -> Response {
        if case let .live(sync) = state.tiles.backend {
            // The store's position as of this scrape: the newest sequence moves without any change applied here.
            let status = sync.status
            state.metrics.storeApplied.record(status.applied)
            state.metrics.storeNewest.record(status.newest)
            state.metrics.storeCommits.record(status.commits)
            state.metrics.storeCommittedWrites.record(status.writesCommitted)
        }
        if let accessLog = state.accessLog { state.metrics.accessLogDropped.record(accessLog.dropped) }
        return HTTPAnswers.bytes(state.metrics.exposition(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    /// `GET /assets/NAME`: a file of `--assets`, with no way out of that folder.
    func asset(_ name: Substring) -> Response {
        guard let folder = state.configuration.assetsDirectory else {
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
