import Hummingbird
import RouteTiles

/// The reads of live routes: `GET /routes` (the list) and `GET /routes/{id}` (one route as GeoJSON).
struct RouteReadEndpoints: Sendable {
    let sync: LiveRouteSync
    /// `GET /routes`, kept per generation.
    let listing: RouteListing

    var operations: [APIOperation] {
        [
            APIOperation(.get, PathPattern("/routes"), "listRoutes") { request, _ in await listRoutes(request) },
            APIOperation(.get, PathPattern("/routes/{id}"), "getRoute") { _, context in
                await getRoute(key: context.parameters.decoded("id"))
            },
        ]
    }

    /// `GET /routes`, or `GET /routes?id=A&id=B` for some of them.
    func listRoutes(_ request: Request) async -> Response {
        let ids = request.uri.queryParameters.getAll("id").map { String($0) }
        do {
            let body = try await listing.body(of: sync, keys: ids.isEmpty ? nil : Set(ids))
            return HTTPAnswers.bytes(body, contentType: "application/json", headers: [.cacheControl: "no-cache"])
        } catch {
            return HTTPAnswers.error(.serviceUnavailable, "the route store cannot be read: \(error)")
        }
    }

    /// `GET /routes/{id}`: the route as a GeoJSON Feature, its store version as the ETag.
    func getRoute(key: String) async -> Response {
        // The store keeps the positions (the live set holds them only projected), and is never behind this
        // server: a route just written reads back as written.
        let row: StoredRow?
        do {
            row = try await sync.store.rows([key])[key]
        } catch {
            return HTTPAnswers.error(.serviceUnavailable, "the route store cannot be read: \(error)")
        }
        guard case let .route(stored)? = row else { return HTTPAnswers.error(.notFound, "no route \(key)") }
        var response = HTTPAnswers.json(RouteFeature(stored.route), contentType: "application/geo+json")
        response.headers[.eTag] = "\"\(stored.version)\""
        return response
    }
}
