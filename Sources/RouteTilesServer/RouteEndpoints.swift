import Foundation
import Hummingbird
import NIOCore
import RouteTiles

/// The live-route endpoints: `POST /routes`, `GET`/`PUT`/`DELETE /routes/{id}`, `POST /routes/{id}/points`.
extension RouteTilesResponder {
    func routes(_ request: Request, path: String) async -> Response {
        let rest = path.dropFirst("/routes".count).split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let key = rest.first.map { $0.removingPercentEncoding ?? String($0) }
        let isPoints = rest.count == 2 && rest.last == "points"
        guard rest.count <= 1 || isPoints, key.map({ !$0.isEmpty }) ?? true else {
            return HTTPAnswers.error(.notFound, "no such resource: \(path)")
        }
        let allowed = key == nil ? "POST" : (isPoints ? "POST" : "GET, PUT, DELETE")
        guard allowed.contains(request.method.rawValue) else { return notAllowed(allowed) }
        guard case let .live(routes) = state.tiles.backend else {
            return HTTPAnswers.error(.methodNotAllowed, "this server serves a finished tileset; routes cannot change",
                                     headers: [.allow: ""])
        }
        if request.method == .get, let key {
            guard let route = routes.route(key) else { return HTTPAnswers.error(.notFound, "no route \(key)") }
            var response = HTTPAnswers.json(RouteGeoJSON.feature(route))
            response.headers[.contentType] = "application/geo+json"
            return response
        }
        if let refusal = authorize(request) { return refusal }

        let change: LiveRouteSet.Change
        if request.method == .delete, let key {
            guard let removed = routes.remove(key: key) else { return HTTPAnswers.error(.notFound, "no route \(key)") }
            change = removed
        } else {
            let body: [UInt8]
            switch await readBody(request) {
            case let .success(bytes): body = bytes
            case let .failure(refusal): return refusal.response
            }
            do {
                if isPoints, let key {
                    let points = try PositionListReader.read(body, file: "request body")
                    if let route = routes.route(key), route.kind != .line {
                        return HTTPAnswers.error(.conflict, "route \(key) is a set of points (a maneuver); only lines can be extended")
                    }
                    guard let extended = routes.append(key: key, points: points) else {
                        return HTTPAnswers.error(.notFound, "no route \(key)")
                    }
                    change = extended
                } else {
                    var options = state.configuration.readOptions
                    options.skipInvalid = false
                    let parsed = try Self.readRoutes(body, contentType: request.headers[.contentType], options: options)
                    if let key {
                        guard parsed.count == 1, let route = parsed.first else {
                            return HTTPAnswers.error(.badRequest, "PUT /routes/\(key) takes exactly one route; the body has \(parsed.count)")
                        }
                        change = routes.replace(key: key, with: route)
                    } else {
                        guard !parsed.isEmpty else { return HTTPAnswers.error(.badRequest, "the body holds no route") }
                        change = routes.upsert(parsed)
                    }
                }
            } catch {
                return HTTPAnswers.error(.badRequest, "\(error)")
            }
        }
        return applied(change, created: request.method == .post && key == nil)
    }

    /// Invalidates the changed tiles, logs them, and answers with what changed.
    private func applied(_ change: LiveRouteSet.Change, created: Bool) -> Response {
        let cached = state.tiles.invalidate(change.invalidated)
        state.recordLoad()
        var body: [String: Any] = [
            "ids": change.keys, "generation": change.generation,
            "invalidated_tiles": change.invalidated.count, "invalidated_cached_tiles": cached,
        ]
        if let log = state.expireLog {
            do {
                try log.append(change.invalidated)
            } catch {
                state.logger.error("\(error)")
                body["expire_log_error"] = "\(error)"
            }
        }
        return HTTPAnswers.json(body, status: created ? .created : .ok)
    }

    /// Nil when the request may write; else the refusal.
    private func authorize(_ request: Request) -> Response? {
        guard let token = state.configuration.writeToken else {
            return HTTPAnswers.error(.forbidden, "writes are off; start the server with --write-token to allow them")
        }
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            return HTTPAnswers.error(.unauthorized, "this request needs 'Authorization: Bearer <token>'",
                                     headers: [.wwwAuthenticate: "Bearer realm=\"routetiles\""])
        }
        let given = Array(header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces).utf8)
        guard Self.constantTimeEqual(given, Array(token.utf8)) else {
            return HTTPAnswers.error(.forbidden, "the bearer token is not the server's write token")
        }
        return nil
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }

    struct Refusal: Error {
        var response: Response
    }

    /// The body, or 413 past `--max-body-mb`.
    private func readBody(_ request: Request) async -> Result<[UInt8], Refusal> {
        let limit = state.configuration.maxBodyBytes
        let tooLarge = Refusal(response: HTTPAnswers.error(.contentTooLarge, "the body is larger than \(limit) bytes (--max-body-mb)"))
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { return .failure(tooLarge) }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return .success(Array(buffer.readableBytesView))
        } catch is NIOTooManyBytesError {
            return .failure(tooLarge)
        } catch {
            return .failure(Refusal(response: HTTPAnswers.error(.badRequest, "cannot read the body: \(error)")))
        }
    }

    /// Routes from a body, in the format its Content-Type names, else the one its content shows.
    static func readRoutes(_ body: [UInt8], contentType: String?, options: ReadOptions = ReadOptions()) throws -> [Route] {
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard let format = mediaFormat(mediaType) ?? InputFormat.detect(path: "", bytes: body) else {
            throw InputError(file: "request body", message: "cannot tell the format of the body; send it with "
                                 + "Content-Type application/geo+json, application/geo+json-seq, "
                                 + "application/x-ndjson, application/gpx+xml or text/csv (polylines and directions "
                                 + "responses are recognised by content)")
        }
        return try RouteReader.read(bytes: body, name: "request body", format: format, options: options).routes
    }

    /// The reader format a media type names, or nil when the content must tell.
    static func mediaFormat(_ mediaType: String) -> InputFormat? {
        switch mediaType {
        case "application/geo+json", "application/vnd.geo+json": return .geojson
        case "text/csv": return .csv
        case "application/gpx+xml": return .gpx
        case "application/geo+json-seq", "application/x-ndjson", "application/ndjson", "application/jsonl": return .geojsonseq
        default: return nil
        }
    }
}
