import Hummingbird
import RouteTiles

/// `POST /routes/points`: `{"id": [[lon, lat], …], …}`, every route's points appended in one transaction (with
/// whatever else commits with it), each route's all or none. Answered once committed, with what was applied and
/// what was refused, per id (`BatchAppendAnswer`): 200 when anything was applied, 422 when nothing was.
extension RouteTilesResponder {
    /// The most routes one `POST /routes/points` may name.
    static let maxBatchRoutes = 10_000

    func appendToMany(_ request: Request) async -> Response {
        let sync: LiveRouteSync, body: [UInt8]
        switch await writeRequest(request) {
        case let .success(write): (sync, body) = (write.sync, write.body)
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
        var answer = BatchAppendAnswer()
        var writes: [RouteWrite] = []
        var counts: [Int] = []
        for (key, points) in lists {
            switch points {
            case let .success(points):
                writes.append(.append(key: key, points: points))
                counts.append(points.count)
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
                                     headers: [.retryAfter: String(state.configuration.retryAfterSeconds)])
        }
        var change: LiveRouteSet.Change?
        answer.applied.reserveCapacity(writes.count)
        for ((write, count), outcome) in zip(zip(writes, counts), outcomes) {
            let key = write.key ?? ""
            switch outcome {
            case let .failure(error):
                answer.refused.append(.init(id: key, status: 503, error: "not committed: \(error)"))
            case let .success(.notFound(key)):
                answer.refused.append(.init(id: key, status: 404, error: "no route \(key)"))
            case let .success(.notALine(key)):
                answer.refused.append(.init(id: key, status: 409, error: Self.notALine(key)))
            case let .success(.applied(made, _, sequences)):
                change = made
                answer.applied.append(.init(id: key, points: count, sequence: sequences?.upperBound))
            case let .success(.committedNotApplied(_, sequences, error)):
                answer.applied.append(.init(id: key, points: count, sequence: sequences?.upperBound,
                                            notAppliedBecause: error))
            }
        }
        answer.sequence = answer.applied.compactMap(\.sequence).max()
        if let change {
            answer.generation = change.generation
            answer.invalidatedTiles = change.invalidated.count
            answer.invalidatedCachedTiles = state.cachedInvalidations(generation: change.generation) ?? 0
        }
        return HTTPAnswers.bytes(answer.json, status: answer.applied.isEmpty ? .unprocessableContent : .ok,
                                 contentType: "application/json")
    }
}
