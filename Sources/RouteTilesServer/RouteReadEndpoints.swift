import HTTPTypes
import Hummingbird
import RouteTiles

/// The reads of live routes: `GET /routes` (the list), `GET /routes/{id}` (one route as GeoJSON), its GPX
/// (`/routes/{id}/gpx`) and where it was at a time (`/routes/{id}/position?at=T`). Each shows only the routes of
/// the groups the reader's grant reads: another group's route is answered as a route that does not exist.
struct RouteReadEndpoints: Sendable {
    let sync: LiveRouteSync
    /// `GET /routes`, kept per generation.
    let listing: RouteListing

    var operations: [APIOperation] {
        [
            APIOperation(.get, PathPattern("/routes"), "listRoutes") { request, context in
                await listRoutes(request, groups: context.grant.read)
            },
            APIOperation(.get, PathPattern("/routes/{id}"), "getRoute") { _, context in
                await getRoute(key: context.parameters.decoded("id"), groups: context.grant.read)
            },
            APIOperation(.get, PathPattern("/routes/{id}/gpx"), "getRouteGPX") { _, context in
                await getRouteGPX(key: context.parameters.decoded("id"), groups: context.grant.read)
            },
            APIOperation(.get, PathPattern("/routes/{id}/position"), "getRoutePosition") { request, context in
                await getRoutePosition(key: context.parameters.decoded("id"), request: request, groups: context.grant.read)
            },
        ]
    }

    /// `GET /routes`, or `GET /routes?id=A&id=B` for some of them.
    func listRoutes(_ request: Request, groups: GroupScope = .all) async -> Response {
        let ids = request.uri.queryParameters.getAll("id").map { String($0) }
        do {
            let body = try await listing.body(of: sync, keys: ids.isEmpty ? nil : Set(ids), groups: groups)
            return HTTPAnswers.bytes(body, contentType: "application/json", headers: [.cacheControl: "no-cache"])
        } catch {
            return HTTPAnswers.error(.serviceUnavailable, "the route store cannot be read: \(error)")
        }
    }

    /// `GET /routes/{id}`: the route as a GeoJSON Feature, its store version as the ETag.
    func getRoute(key: String, groups: GroupScope = .all) async -> Response {
        // The store keeps the positions (the live set holds them only projected), and is never behind this
        // server: a route just written reads back as written.
        let stored: StoredRoute
        switch await self.stored(key, groups: groups) {
        case let .answer(answer): return answer
        case let .found(found): stored = found
        }
        var response = HTTPAnswers.json(RouteFeature(stored.route), contentType: "application/geo+json")
        response.headers[.eTag] = "\"\(stored.version)\""
        return response
    }

    /// The route stored under `key`, or the answer that says why there is none: the same 404 for a route of a
    /// group outside `groups` as for a key without a route.
    private func stored(_ key: String, groups: GroupScope) async -> Lookup {
        do {
            guard case let .route(stored)? = try await sync.store.rows([key])[key],
                  groups.contains(RouteGroup.of(stored.route.properties))
            else {
                return .answer(HTTPAnswers.error(.notFound, "no route \(key)"))
            }
            return .found(stored)
        } catch {
            return .answer(HTTPAnswers.error(.serviceUnavailable, "the route store cannot be read: \(error)"))
        }
    }

    /// A route read, or the answer when there is none.
    private enum Lookup {
        case found(StoredRoute)
        case answer(Response)
    }

    /// `GET /routes/{id}/gpx`: the route as GPX 1.1 (a track with its times, or waypoints for a route of points).
    func getRouteGPX(key: String, groups: GroupScope = .all) async -> Response {
        switch await stored(key, groups: groups) {
        case let .answer(answer): return answer
        case let .found(stored):
            let safe = String(key.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) ? Character($0) : "_" })
            var response = HTTPAnswers.bytes(GPXWriter.gpx(stored.route), contentType: "application/gpx+xml")
            response.headers[HTTPField.Name("Content-Disposition")!] = "attachment; filename=\"\(safe).gpx\""
            response.headers[.eTag] = "\"\(stored.version)\""
            return response
        }
    }

    /// `GET /routes/{id}/position?at=T`: where the route was at `T` (ISO 8601 with a zone, or Unix seconds), as a
    /// GeoJSON Point Feature with `time`, `bearing` and `speed` (m/s); 404 outside its times.
    func getRoutePosition(key: String, request: Request, groups: GroupScope = .all) async -> Response {
        guard let text = request.uri.queryParameters["at"] else {
            return HTTPAnswers.error(.badRequest, "at: the parameter is missing (ISO 8601 with a zone, or Unix seconds)")
        }
        let time: Int64
        do {
            time = try TimeValue.parse(textOrSeconds: text)
        } catch {
            return HTTPAnswers.error(.badRequest, "at: \(error)")
        }
        switch await stored(key, groups: groups) {
        case let .answer(answer): return answer
        case let .found(stored):
            switch TimedTrack.place(of: stored.route, at: time) {
            case let .success(place):
                return HTTPAnswers.json(PositionFeature(key: key, place: place), contentType: "application/geo+json")
            case .failure(.noTimes):
                return HTTPAnswers.error(.notFound, "route \(key) has no times")
            case let .failure(.outside(first, last)):
                return HTTPAnswers.error(.notFound, "no position of route \(key) at \(TimeValue.iso(time)): its track spans "
                                         + "\(TimeValue.iso(first)) to \(TimeValue.iso(last))")
            case let .failure(.gap(from, to)):
                return HTTPAnswers.error(.notFound, "no position of route \(key) at \(TimeValue.iso(time)): it falls in a gap "
                                         + "between parts (\(TimeValue.iso(from)) to \(TimeValue.iso(to)))")
            }
        }
    }
}
