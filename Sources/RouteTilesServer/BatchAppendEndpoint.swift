import Hummingbird
import RouteTiles
import RouteTilesAccess

/// `POST /routes/points`: `{"id": [[lon, lat], …], …}`, every route's points appended in one transaction (with
/// whatever else commits with it), each route's all or none. Answered once committed, with what was applied and
/// what was refused, per id (`BatchAppendAnswer`): 200 when anything was applied, 422 when nothing was. The routes
/// the credential may not write are refused with 403 and not looked at.
extension RouteWriteEndpoints {
    /// The most routes one `POST /routes/points` may name.
    static let maxBatchRoutes = 10_000

    func appendToMany(_ request: Request, grant: AccessGrant, audit: AuditNote? = nil) async -> Response {
        let body: [UInt8]
        switch await readBody(request) {
        case let .success(read): body = read
        case let .failure(refusal): return refusal.response
        }
        let lists: [(key: String, points: Result<PositionListReader.PositionList, PositionListReader.Problem>)]
        do {
            lists = try PositionListReader.readBatch(body, file: "request body", filter: configuration.fixFilter,
                                                     latest: configuration.latestFixTime)
        } catch {
            return HTTPAnswers.error(.badRequest, "\(error)")
        }
        audit?.ids = lists.map(\.key)
        guard !lists.isEmpty else { return HTTPAnswers.error(.badRequest, "the body names no route: send {\"id\": [[lon, lat], …], …}") }
        guard lists.count <= Self.maxBatchRoutes else {
            return HTTPAnswers.error(.contentTooLarge, "the body names \(lists.count) routes; at most \(Self.maxBatchRoutes) a request")
        }
        var answer = BatchAppendAnswer()
        var writes: [RouteWrite] = []
        var counts: [Int] = []
        var dropped: [FixFilter.Dropped] = []
        var droppedInAll = FixFilter.Dropped()
        for (key, read) in lists {
            guard grant.mayWrite(id: key) else {
                metrics.writeForbidden()
                answer.refused.append(.init(id: key, status: 403, error: "this credential may not write route \(key)"))
                continue
            }
            var points = read
            if case var .success(list) = points {
                filterAgainstLastFix(key, &list)
                points = .success(list)
            }
            switch points {
            case let .success(list) where list.points.isEmpty:
                // Every fix dropped by the glitch filters: nothing to write; applied with no point, if the route is.
                droppedInAll += list.dropped
                if sync.version(of: key) == nil {
                    answer.refused.append(.init(id: key, status: 404, error: "no route \(key)"))
                } else {
                    answer.applied.append(.init(id: key, points: 0, dropped: list.dropped))
                }
            case let .success(list):
                writes.append(Self.appendWrite(key, list))
                counts.append(list.points.count)
                dropped.append(list.dropped)
                droppedInAll += list.dropped
            case let .failure(problem):
                answer.refused.append(.init(id: key, status: 400, error: problem.message))
            }
        }
        let outcomes: [Result<LiveRouteSync.WriteOutcome, any Error>]
        do {
            outcomes = try await sync.write(batch: writes)
        } catch {
            return HTTPAnswers.error(.serviceUnavailable,
                                     "the route store (\(sync.store.displayName)) did not confirm the writes, so none is acknowledged: \(error); "
                                        + "try again (if they were committed after all, the store's feed brings them)",
                                     headers: [.retryAfter: String(configuration.retryAfterSeconds)])
        }
        var change: LiveRouteSet.Change?
        /// The last sequence applied here: the expire log is waited for up to it, never for a write applied later.
        var appliedThrough: Int64?
        answer.applied.reserveCapacity(writes.count)
        if droppedInAll.total > 0 { metrics.dropped(droppedInAll) }
        for (((write, count), dropped), outcome) in zip(zip(zip(writes, counts), dropped), outcomes) {
            let key = write.key ?? ""
            switch outcome {
            case let .failure(error):
                answer.refused.append(.init(id: key, status: 503, error: "not committed: \(error)"))
            case let .success(.notFound(key)):
                answer.refused.append(.init(id: key, status: 404, error: "no route \(key)"))
            case let .success(.notALine(key)):
                answer.refused.append(.init(id: key, status: 409, error: Self.notALine(key)))
            case let .success(.timesDiffer(key, routeHasTimes)):
                answer.refused.append(.init(id: key, status: 409, error: Self.timesDiffer(key, routeHasTimes: routeHasTimes)))
            case let .success(.applied(made, _, sequences)):
                change = made
                if let last = sequences?.upperBound { appliedThrough = max(appliedThrough ?? last, last) }
                answer.applied.append(.init(id: key, points: count, sequence: sequences?.upperBound, dropped: dropped))
            case let .success(.committedNotApplied(_, sequences, error)):
                answer.applied.append(.init(id: key, points: count, sequence: sequences?.upperBound,
                                            notAppliedBecause: error, dropped: dropped))
            }
        }
        answer.sequence = answer.applied.compactMap(\.sequence).max()
        await handedOn(through: appliedThrough)
        if let change {
            answer.generation = change.generation
            answer.invalidatedTiles = change.invalidated.count
            answer.invalidatedCachedTiles = change.cachedTilesDropped
        }
        return HTTPAnswers.bytes(answer.json, status: answer.applied.isEmpty ? .unprocessableContent : .ok,
                                 contentType: "application/json")
    }
}
