import Hummingbird
import RouteTiles
import RouteTilesAccess

/// The writes of live routes: `POST /routes`, `PUT` and `DELETE /routes/{id}`, `POST /routes/{id}/points` and the
/// batch `POST /routes/points` (`BatchAppendEndpoint.swift`). Each is committed to the route store and answered once
/// committed; the dispatch table lets only requests with a credential that writes reach them (`AccessControl`), and
/// each writes only the routes whose ids the credential's grant names (403 for others, listed in a batch).
struct RouteWriteEndpoints: Sendable {
    let sync: LiveRouteSync
    let configuration: ServerConfiguration
    let metrics: ServerMetrics
    /// With an expire log, what hands the changes on: a write is answered once its tiles are in the log.
    let expireLogWriter: LiveChangeConsumer?

    var operations: [APIOperation] {
        [
            APIOperation(.post, PathPattern("/routes"), "createRoutes") { request, context in
                await createRoutes(request, grant: context.grant, audit: context.audit)
            },
            APIOperation(.post, PathPattern("/routes/points"), "appendToRoutes") { request, context in
                await appendToMany(request, grant: context.grant, audit: context.audit)
            },
            APIOperation(.put, PathPattern("/routes/{id}"), "replaceRoute") { request, context in
                let key = context.parameters.decoded("id")
                if let refused = refusal(key, context.grant) { return refused }
                return await replaceRoute(request, key: key)
            },
            APIOperation(.delete, PathPattern("/routes/{id}"), "deleteRoute") { _, context in
                let key = context.parameters.decoded("id")
                if let refused = refusal(key, context.grant) { return refused }
                return await commit(.remove(key: key), created: false)
            },
            APIOperation(.post, PathPattern("/routes/{id}/points"), "appendToRoute") { request, context in
                let key = context.parameters.decoded("id")
                if let refused = refusal(key, context.grant) { return refused }
                return await appendToRoute(request, key: key)
            },
        ]
    }

    /// The 403 for a write of route `key` that `grant` does not name; nil when it may write it. Given before the
    /// route is looked up, so that it tells nothing of whether the route exists.
    func refusal(_ key: String, _ grant: AccessGrant) -> Response? {
        guard !grant.mayWrite(id: key) else { return nil }
        metrics.writeForbidden()
        return HTTPAnswers.error(.forbidden, "this credential may not write route \(key)")
    }

    /// `POST /routes`: routes in any format `build` reads; 201. With `depart_at`, directions routes get planned
    /// times from that departure. Every route of the body must be one the credential may write, else none is
    /// written (403); a route without an id (which the server numbers) needs a credential that writes every id.
    func createRoutes(_ request: Request, grant: AccessGrant, audit: AuditNote? = nil) async -> Response {
        await write(request, created: true) { body in
            let routes = try routes(in: body, contentType: request.headers[.contentType],
                                    departAt: request.uri.queryParameters["depart_at"])
            audit?.ids = routes.map { $0.id.map(StoredRouteCodec.key(for:)) ?? "" }
            guard !routes.isEmpty else { throw BodyProblem("the body holds no route") }
            // A route's id is its key in /routes/{id}: an empty one could never be read, replaced or deleted.
            if let index = routes.firstIndex(where: { $0.id == .string("") }) {
                throw BodyProblem("route \(index) of the body has an empty id; give it one, or none to get a number")
            }
            if !grant.writesEverything {
                let refused = routes.enumerated().filter { _, route in
                    route.id.map { !grant.mayWrite(id: StoredRouteCodec.key(for: $0)) } ?? true
                }
                if !refused.isEmpty {
                    metrics.writeForbidden(count: refused.count)
                    let named = refused.prefix(5).map { index, route in
                        route.id.map { "route \(StoredRouteCodec.key(for: $0))" }
                            ?? "route \(index) of the body (no id; only a credential that writes every id may create one)"
                    }
                    throw WriteForbidden("this credential may not write \(named.joined(separator: ", "))"
                        + (refused.count > 5 ? " and \(refused.count - 5) more" : "") + "; nothing was written")
                }
            }
            return .put(routes)
        }
    }

    /// `PUT /routes/{id}`: exactly one route, which takes the id of the path.
    func replaceRoute(_ request: Request, key: String) async -> Response {
        await write(request) { body in
            let routes = try routes(in: body, contentType: request.headers[.contentType],
                                    departAt: request.uri.queryParameters["depart_at"])
            guard routes.count == 1, let route = routes.first else {
                throw BodyProblem("PUT /routes/\(key) takes exactly one route; the body has \(routes.count)")
            }
            return .replace(key: key, route: route)
        }
    }

    /// `POST /routes/{id}/points`: `[[lon, lat], …]` appended to the route's last part, less the fixes the glitch
    /// filters drop (`ServerConfiguration.fixFilter`), which the answer counts. When they drop every fix, nothing is
    /// written and the answer says so (200, with the route's generation and no sequence).
    func appendToRoute(_ request: Request, key: String) async -> Response {
        let filter = configuration.fixFilter
        let latest = configuration.latestFixTime
        return await filteredWrite(request) { body in
            var list = try PositionListReader.read(body, file: "request body", filter: filter, latest: latest)
            filterAgainstLastFix(key, &list)
            return (Self.appendWrite(key, list), list.dropped)
        }
    }

    /// Drops from a list of fixes with times those the filters comparing fixes drop (`--max-fix-speed`,
    /// `--min-fix-period`, `--drop-fixes repeated`), against the route's last fix as this server holds it.
    func filterAgainstLastFix(_ key: String, _ list: inout PositionListReader.PositionList) {
        guard configuration.fixFilter.comparesFixes, var times = list.times else { return }
        list.dropped += configuration.fixFilter.filterAgainstLast(&list.points, times: &times,
                                                                  last: sync.routes.lastFix(of: key))
        list.times = times
    }

    /// The write of a point list: with times, fixes the store puts in time order; without, positions.
    static func appendWrite(_ key: String, _ list: PositionListReader.PositionList) -> RouteWrite {
        guard let times = list.times else { return .append(key: key, points: list.points) }
        return .appendTimed(key: key, points: list.points, times: times)
    }

    /// A write made from the request's body: the body read within the limit and turned into the write by `make`
    /// (whose errors are 400s), then committed.
    private func write(_ request: Request, created: Bool = false,
                       _ make: ([UInt8]) throws -> RouteWrite) async -> Response {
        await filteredWrite(request, created: created) { body in (try make(body), FixFilter.Dropped()) }
    }

    /// `write`, where `make` also says how many fixes the glitch filters dropped: counted in the metrics, named in
    /// the answer. An append they emptied writes nothing and is answered at once.
    private func filteredWrite(_ request: Request, created: Bool = false,
                               _ make: ([UInt8]) throws -> (RouteWrite, FixFilter.Dropped)) async -> Response {
        let body: [UInt8]
        switch await readBody(request) {
        case let .success(read): body = read
        case let .failure(refusal): return refusal.response
        }
        let write: RouteWrite, dropped: FixFilter.Dropped
        do {
            (write, dropped) = try make(body)
        } catch let forbidden as WriteForbidden {
            return HTTPAnswers.error(.forbidden, forbidden.description)
        } catch {
            return HTTPAnswers.error(.badRequest, "\(error)")
        }
        return await commitFiltered(write, created: created, dropped: dropped)
    }

    /// Commits a write whose fixes the glitch filters have seen: what they dropped is counted in the metrics and
    /// named in the answer; an append they emptied writes nothing and is answered at once.
    func commitFiltered(_ write: RouteWrite, created: Bool = false, dropped: FixFilter.Dropped) async -> Response {
        if dropped.total > 0 { metrics.dropped(dropped) }
        if let key = write.appendKey, write.appendsNoPoint {
            guard sync.version(of: key) != nil else { return HTTPAnswers.error(.notFound, "no route \(key)") }
            let answer = WriteAnswer(generation: sync.routes.snapshot.generation, ids: [key], invalidatedCachedTiles: 0,
                                     invalidatedTiles: 0, sequence: nil, dropped: dropped)
            return HTTPAnswers.bytes(answer.json, contentType: "application/json")
        }
        return await commit(write, created: created, dropped: dropped)
    }

    /// Commits `write` and answers with what it changed (`WriteAnswer`), 202 when committed but not applied here
    /// yet, or 503 when the store did not confirm it.
    func commit(_ write: RouteWrite, created: Bool,
                        dropped: FixFilter.Dropped = FixFilter.Dropped()) async -> Response {
        let outcome: LiveRouteSync.WriteOutcome
        do {
            outcome = try await sync.write(write)
        } catch {
            // Not committed, or not known to be: never acknowledged. The client tries again.
            return HTTPAnswers.error(.serviceUnavailable,
                                     "the route store (\(sync.store.displayName)) did not confirm the write, so it is not acknowledged: \(error); "
                                        + "try again (if it was committed after all, the store's feed brings it)",
                                     headers: [.retryAfter: String(configuration.retryAfterSeconds)])
        }
        switch outcome {
        case let .notFound(key):
            return HTTPAnswers.error(.notFound, "no route \(key)")
        case let .notALine(key):
            return HTTPAnswers.error(.conflict, Self.notALine(key))
        case let .timesDiffer(key, routeHasTimes):
            return HTTPAnswers.error(.conflict, Self.timesDiffer(key, routeHasTimes: routeHasTimes))
        case let .applied(change, keys, sequences):
            await handedOn(through: sequences?.upperBound)
            let answer = WriteAnswer(
                generation: change.generation, ids: keys, invalidatedCachedTiles: change.cachedTilesDropped,
                invalidatedTiles: change.invalidated.count, sequence: sequences?.upperBound, dropped: dropped)
            return HTTPAnswers.bytes(answer.json, status: created ? .created : .ok, contentType: "application/json")
        case let .committedNotApplied(keys, sequences, error):
            // Committed, so acknowledged; this server applies it from the feed once the store answers again.
            return HTTPAnswers.json(WriteAcknowledgedAnswer(ids: keys, error: error, sequence: sequences?.upperBound),
                                    status: .accepted)
        }
    }

    /// With an expire log, waits until the changes through `sequence` are handed on, so that a write's tiles are in
    /// the log when it is answered; without one, writes are answered at once.
    func handedOn(through sequence: Int64?) async {
        guard let expireLogWriter, let sequence else { return }
        await expireLogWriter.reached(sequence)
    }

    /// Why positions cannot extend a route whose times they do not match: 409.
    static func timesDiffer(_ key: String, routeHasTimes: Bool) -> String {
        routeHasTimes
            ? "route \(key) keeps a time on every position; send positions with times"
            : "route \(key) has no times; PUT it with times first, or send positions without times"
    }

    /// Why a route of points (a maneuver) cannot be appended to: 409.
    static func notALine(_ key: String) -> String {
        "route \(key) is a set of points (a maneuver); only lines can be extended"
    }
}

/// A body with routes the credential may not write: a 403 with this message.
struct WriteForbidden: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A body that reads but does not make the write asked for: a 400 with this message.
struct BodyProblem: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
