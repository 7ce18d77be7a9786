import Foundation
import Hummingbird
import NIOCore
import RouteTiles

/// The live-route endpoints: `GET`/`POST /routes`, `GET`/`PUT`/`DELETE /routes/{id}`, `POST /routes/{id}/points`.
extension RouteTilesResponder {
    func routes(_ request: Request, path: String) async -> Response {
        let rest = path.dropFirst("/routes".count).split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let key = rest.first.map { $0.removingPercentEncoding ?? String($0) }
        let isPoints = rest.count == 2 && rest.last == "points"
        guard rest.count <= 1 || isPoints, key.map({ !$0.isEmpty }) ?? true else {
            return HTTPAnswers.error(.notFound, "no such resource: \(path)")
        }
        // `POST /routes/points` appends to many routes; the other methods of that path address the route "points".
        let isBatch = rest.count == 1 && rest.first == "points"
        let allowed = key == nil ? "GET, POST" : (isPoints ? "POST" : (isBatch ? "GET, POST, PUT, DELETE" : "GET, PUT, DELETE"))
        guard allowed.contains(request.method.rawValue) else { return notAllowed(allowed) }
        guard case let .live(sync) = state.tiles.backend else {
            return HTTPAnswers.error(.methodNotAllowed, "this server serves a finished tileset; routes cannot change",
                                     headers: [.allow: ""])
        }
        if request.method == .get, key == nil {
            let ids = request.uri.queryParameters.getAll("id").map { String($0) }
            do {
                let body = try await state.routeListing.body(of: sync, keys: ids.isEmpty ? nil : Set(ids))
                return HTTPAnswers.bytes(body, contentType: "application/json", headers: [.cacheControl: "no-cache"])
            } catch {
                return HTTPAnswers.error(.serviceUnavailable, "the route store cannot be read: \(error)")
            }
        }
        if request.method == .get, let key {
            // The store keeps the positions (the live set holds them only projected), and is never behind this
            // server: a route just written reads back as written.
            let row: StoredRow?
            do {
                row = try await sync.store.rows([key])[key]
            } catch {
                return HTTPAnswers.error(.serviceUnavailable, "the route store cannot be read: \(error)")
            }
            guard case let .route(stored)? = row else { return HTTPAnswers.error(.notFound, "no route \(key)") }
            var response = HTTPAnswers.json(RouteGeoJSON.feature(stored.route))
            response.headers[.contentType] = "application/geo+json"
            response.headers[.eTag] = "\"\(stored.version)\""
            return response
        }
        if let refusal = authorize(request) { return refusal }
        if isBatch, request.method == .post { return await appendToMany(request, sync: sync) }

        let write: RouteWrite
        if request.method == .delete, let key {
            write = .remove(key: key)
        } else {
            let body: [UInt8]
            switch await readBody(request) {
            case let .success(bytes): body = bytes
            case let .failure(refusal): return refusal.response
            }
            do {
                if isPoints, let key {
                    write = .append(key: key, points: try PositionListReader.read(body, file: "request body"))
                } else {
                    var options = state.configuration.readOptions
                    options.skipInvalid = false
                    let parsed = try Self.readRoutes(body, contentType: request.headers[.contentType], options: options)
                    if let key {
                        guard parsed.count == 1, let route = parsed.first else {
                            return HTTPAnswers.error(.badRequest, "PUT /routes/\(key) takes exactly one route; the body has \(parsed.count)")
                        }
                        write = .replace(key: key, route: route)
                    } else {
                        guard !parsed.isEmpty else { return HTTPAnswers.error(.badRequest, "the body holds no route") }
                        write = .put(parsed)
                    }
                }
            } catch {
                return HTTPAnswers.error(.badRequest, "\(error)")
            }
        }
        let outcome: LiveRouteSync.WriteOutcome
        do {
            outcome = try await sync.write(write)
        } catch {
            // Not committed, or not known to be: never acknowledged. The client tries again.
            return HTTPAnswers.error(.serviceUnavailable,
                                     "the route store (\(sync.store.displayName)) did not confirm the write, so it is not acknowledged: \(error); "
                                        + "try again (if it was committed after all, the store's feed brings it)",
                                     headers: [.retryAfter: String(state.configuration.retryAfterSeconds)])
        }
        let created = request.method == .post && key == nil
        switch outcome {
        case let .notFound(key):
            return HTTPAnswers.error(.notFound, "no route \(key)")
        case let .notALine(key):
            return HTTPAnswers.error(.conflict, "route \(key) is a set of points (a maneuver); only lines can be extended")
        case let .applied(change, keys, sequences):
            var body = JSONObjectWriter()
            body.integer("generation", change.generation)
            body.strings("ids", keys)
            body.integer("invalidated_cached_tiles", state.cachedInvalidations(generation: change.generation) ?? 0)
            body.integer("invalidated_tiles", change.invalidated.count)
            if let sequences { body.integer("sequence", sequences.upperBound) }
            return HTTPAnswers.bytes(body.finished + [0x0a], status: created ? .created : .ok, contentType: "application/json")
        case let .committedNotApplied(keys, sequences, error):
            // Committed, so acknowledged; this server applies it from the feed once the store answers again.
            var body: [String: Any] = ["ids": keys, "applied": false, "error": error]
            if let sequences { body["sequence"] = sequences.upperBound }
            return HTTPAnswers.json(body, status: .accepted)
        }
    }

    /// The most routes one `POST /routes/points` may name.
    static let maxBatchRoutes = 10_000

    /// `POST /routes/points`: `{"id": [[lon, lat], …], …}`, every route's points appended in one transaction (with
    /// whatever else commits with it), each route's all or none. Answered once committed, with what was applied
    /// and what was refused, per id: 200 when anything was applied, 422 when nothing was.
    private func appendToMany(_ request: Request, sync: LiveRouteSync) async -> Response {
        let body: [UInt8]
        switch await readBody(request) {
        case let .success(bytes): body = bytes
        case let .failure(refusal): return refusal.response
        }
        let lists: [(key: String, points: Result<[Coordinate], PositionListReader.Problem>)]
        do {
            lists = try PositionListReader.readBatch(body, file: "request body")
        } catch {
            return HTTPAnswers.error(.badRequest, "\(error)")
        }
        guard !lists.isEmpty else { return HTTPAnswers.error(.badRequest, "the body names no route: send {\"id\": [[lon, lat], …], …}") }
        guard lists.count <= Self.maxBatchRoutes else {
            return HTTPAnswers.error(.contentTooLarge, "the body names \(lists.count) routes; at most \(Self.maxBatchRoutes) a request")
        }
        var refused: [JSONObjectWriter] = []
        func refuse(_ key: String, _ status: Int, _ error: String) {
            var entry = JSONObjectWriter()
            entry.string("id", key)
            entry.integer("status", status)
            entry.string("error", error)
            refused.append(entry)
        }
        var writes: [RouteWrite] = []
        var counts: [Int] = []
        for (key, points) in lists {
            switch points {
            case let .success(points):
                writes.append(.append(key: key, points: points))
                counts.append(points.count)
            case let .failure(problem):
                refuse(key, 400, problem.message)
            }
        }
        let outcomes: [Result<LiveRouteSync.WriteOutcome, any Error>]
        do {
            outcomes = try await sync.write(batch: writes)
        } catch {
            return HTTPAnswers.error(.serviceUnavailable,
                                     "the route store (\(sync.store.displayName)) did not confirm the writes, so none is acknowledged: \(error); "
                                        + "try again (if they were committed after all, the store's feed brings them)",
                                     headers: [.retryAfter: String(state.configuration.retryAfterSeconds)])
        }
        var applied: [JSONObjectWriter] = []
        var change: LiveRouteSet.Change?
        var newest: Int64?
        for ((write, count), outcome) in zip(zip(writes, counts), outcomes) {
            let key = write.key ?? ""
            var entry = JSONObjectWriter()
            entry.string("id", key)
            entry.integer("points", count)
            switch outcome {
            case let .failure(error):
                refuse(key, 503, "not committed: \(error)")
                continue
            case let .success(.notFound(key)):
                refuse(key, 404, "no route \(key)")
                continue
            case let .success(.notALine(key)):
                refuse(key, 409, "route \(key) is a set of points (a maneuver); only lines can be extended")
                continue
            case let .success(.applied(made, _, sequences)):
                change = made
                if let sequences { entry.integer("sequence", sequences.upperBound); newest = max(newest ?? 0, sequences.upperBound) }
            case let .success(.committedNotApplied(_, sequences, error)):
                if let sequences { entry.integer("sequence", sequences.upperBound); newest = max(newest ?? 0, sequences.upperBound) }
                entry.bool("applied", false)
                entry.string("error", error)
            }
            applied.append(entry)
        }
        var answer = JSONObjectWriter()
        answer.array("applied", applied)
        answer.array("refused", refused)
        if let change {
            answer.integer("generation", change.generation)
            answer.integer("invalidated_tiles", change.invalidated.count)
            answer.integer("invalidated_cached_tiles", state.cachedInvalidations(generation: change.generation) ?? 0)
        }
        if let newest { answer.integer("sequence", newest) }
        return HTTPAnswers.bytes(answer.finished + [0x0a], status: applied.isEmpty ? .unprocessableContent : .ok,
                                 contentType: "application/json")
    }

    /// Nil when the request may write; else the refusal.
    private func authorize(_ request: Request) -> Response? {
        guard let token = state.configuration.writeToken else {
            return HTTPAnswers.error(.forbidden, "writes are off; start the server with a write token (--write-token, "
                + "--write-token-file or ROUTETILES_WRITE_TOKEN) to allow them")
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
