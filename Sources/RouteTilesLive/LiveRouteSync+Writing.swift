import Foundation
import RouteTilesModel
import RouteTilesRouteStore

/// Writing: a caller's writes join the next group commit (`WriteQueue`); its leader commits them to the store and
/// applies them here, from what it wrote when this server is at the change before it, else by catching up.
extension LiveRouteSync {
    /// Commits `write` to the store, then applies it here. Throws when the store cannot be reached or refuses the
    /// write: then nothing was acknowledged.
    ///
    /// While the store is known to be unreachable and the follower is probing it, a write fails at once instead of
    /// waiting for its own call to time out (and for the follower's, whose lock it would wait behind): clients get
    /// their 503 now, and writes go through again as soon as a probe reaches the store.
    public func write(_ write: RouteWrite) async throws -> WriteOutcome {
        let outcomes = try await self.write(batch: [write])
        guard let outcome = outcomes.first else {
            throw RouteStoreError(store: store.displayName, message: "the write has no outcome")
        }
        return try outcome.get()
    }

    /// Commits `writes` in one transaction of the store and applies them here; each is answered only after that
    /// commit. Writes of other callers that arrive while a commit is in flight join the next one (group commit):
    /// one transaction and one fsync carry them all, and writes to one route keep their order. Returns each write's
    /// outcome in order, or the error that refused it alone; throws when the transaction failed as a whole, and
    /// then nothing of it was acknowledged.
    public func write(batch writes: [RouteWrite]) async throws -> [Result<WriteOutcome, any Error>] {
        guard !writes.isEmpty else { return [] }
        try refuseWhileUnreachable()
        let ticket = WriteTicket()
        if queue.enqueue(WriteQueue.Unit(writes: writes, ticket: ticket)) { await lead() }
        return try await ticket.value()
    }

    /// The most writes one transaction carries: a round takes whole units up to this many (one unit may exceed it).
    static let maxWritesPerCommit = 4_096

    /// Commits a round of the queue and applies it; once it is committed, hands the next round (while more waits)
    /// to a new task, which commits it while this one applies, so that this caller's answer does not wait for later
    /// writers and the store's commit and the routes' update of consecutive rounds overlap.
    private func lead() async {
        let units = queue.take(maxWrites: Self.maxWritesPerCommit)
        let writes = units.flatMap(\.writes)
        await commitLock.acquire()
        state.withLock { $0.window.opened() }
        let committed: Result<[Result<RouteWriteResult, any Error>], any Error>
        var caughtUp: [LiveRouteSet.Change] = []
        do {
            let results = try await commitToStore(writes)
            committed = .success(results)
            // Before the next round may commit, so that rounds apply in the order they committed.
            await lock.acquire()
            caughtUp = state.withLock { $0.window.closed(overlapping: Self.sequences(of: results)) }
        } catch {
            committed = .failure(error)
            _ = state.withLock { $0.window.closed(overlapping: nil) }
        }
        commitLock.release()
        if queue.continueLeading() { Task { await self.lead() } }
        let outcomes: WriteTicket.Outcomes
        switch committed {
        case let .success(results):
            let applied = await applyCommitted(results, caughtUp: caughtUp)
            lock.release()
            // Each write's answer is made after the lock is let go: the next round's application need not wait.
            outcomes = .success(Self.outcomes(of: results, applied: applied))
        case let .failure(error):
            outcomes = .failure(error)
        }
        state.withLock { state in
            state.status.commits += 1
            state.status.writesCommitted += writes.count
        }
        var offset = 0
        for unit in units {
            let count = unit.writes.count
            unit.ticket.resolve(outcomes.map { Array($0[offset..<offset + count]) })
            offset += count
        }
        trimGrownTracks(appendedBy: writes)
    }

    /// Queues a trim of each route that `writes` appended to past its bound (`TrackRetention`), as a write of its
    /// own: the appends' answers do not wait for it, and it goes through the store like any write.
    private func trimGrownTracks(appendedBy writes: [RouteWrite]) {
        var appended: [String] = []
        appended.reserveCapacity(writes.count)
        for write in writes {
            switch write {
            case let .append(key, _), let .appendTimed(key, _, _): appended.append(key)
            default: continue
            }
        }
        var trims: [RouteWrite] = []
        for (key, limit) in routes.routes(among: appended, grownPast: retention)
        where trimming.withLock({ $0.insert(key).inserted }) {
            trims.append(.trim(key: key, keep: limit))
        }
        guard !trims.isEmpty else { return }
        Task {
            // A trim that fails is asked for again by the next append past the bound.
            _ = try? await self.write(batch: trims)
            trimming.withLock { keys in for case let .trim(key, _) in trims { keys.remove(key) } }
        }
    }

    /// Trims the positions older than their route's time bound (`TrackRetention.keepFor`, `keep_for_s`) from every
    /// route that holds any, as writes through the store (so every replica applies them, and they invalidate the
    /// tiles they change); waits until they are committed. Two replicas may trim the same route in the same round:
    /// the second finds nothing before the cutoff and changes nothing. Returns how many routes it asked to trim.
    @discardableResult
    public func trimOldPositions(now: Int64 = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))) async
        -> Int
    {
        let due = routes.routes(holdingPositionsOlderThan: retention, now: now)
        var trims: [RouteWrite] = []
        for (key, cutoff) in due where trimming.withLock({ $0.insert(key).inserted }) {
            trims.append(.trimOlder(key: key, than: cutoff))
        }
        guard !trims.isEmpty else { return 0 }
        // One batch a few hundred routes at most, so that appends queued meanwhile are not held behind them all.
        for start in stride(from: 0, to: trims.count, by: 256) {
            let batch = Array(trims[start..<min(start + 256, trims.count)])
            // A trim that fails is asked for again at the next round.
            _ = try? await write(batch: batch)
            trimming.withLock { keys in for case let .trimOlder(key, _) in batch { keys.remove(key) } }
        }
        return trims.count
    }

    /// Commits one round's writes to the store, under `commitLock`.
    private func commitToStore(_ writes: [RouteWrite]) async throws -> [Result<RouteWriteResult, any Error>] {
        try refuseWhileUnreachable()
        do {
            let results = try await store.commit(batch: writes)
            noteSuccess()
            return results
        } catch {
            noteFailure(error)
            prober.withLock { $0 }?.yield()
            throw error
        }
    }

    /// The sequences a round's results made, first to last.
    private static func sequences(of results: [Result<RouteWriteResult, any Error>]) -> ClosedRange<Int64>? {
        var first: Int64?
        var last: Int64?
        for case let .success(.committed(made, _)) in results {
            if first == nil { first = made.first?.sequence }
            if let sequence = made.last?.sequence { last = sequence }
        }
        guard let first, let last else { return nil }
        return first...last
    }

    /// Applies what a round committed, under `lock`: from what it wrote when this server's routes are at the
    /// change before it, else by catching up with the store (`caughtUp`: what catch-ups that ran between the commit
    /// and now applied of it already).
    /// Returns what this server's routes did, or why applying failed after the commit.
    private func applyCommitted(_ results: [Result<RouteWriteResult, any Error>], caughtUp: [LiveRouteSet.Change])
        async -> Result<LiveRouteSet.Change, any Error>
    {
        var changes: [RouteChange] = []
        changes.reserveCapacity(results.count)
        var written: [StoredRoute] = []
        for case let .success(.committed(made, stored)) in results {
            changes += made
            written += stored
        }
        /// What this server's routes did; nil when applying failed after the commit (the error says why).
        var applied: Result<LiveRouteSet.Change, any Error> = .success(
            LiveRouteSet.Change(keys: [], invalidated: [], generation: routes.snapshot.generation))
        if let first = changes.first?.sequence, let last = changes.last?.sequence {
            let contiguous = zip(changes, changes.dropFirst()).allSatisfy { $1.sequence == $0.sequence + 1 }
            if contiguous, status.applied == first - 1 {
                let (changes, written) = (changes, written)
                applied = .success(await Self.mayBeLarge(changes) ? offPool { self.applyOwn(changes, written: written) }
                                                                  : applyOwn(changes, written: written))
            } else {
                do {
                    var merged = LiveRouteSet.Change(keys: [], invalidated: [], generation: routes.snapshot.generation)
                    // What a catch-up applied of this round already (woken by the store's notice of its commit).
                    for change in caughtUp { merged.formUnion(tilesOf: change) }
                    while status.applied < last {
                        guard let caughtUp = try await catchUpLocked() else { break }
                        merged.formUnion(tilesOf: caughtUp.change)
                        merged.generation = caughtUp.change.generation
                    }
                    merged.keys = changes.map(\.key).uniqued()
                    applied = .success(merged)
                } catch {
                    applied = .failure(error)
                }
            }
        }
        return applied
    }

    /// Each write's outcome, from what the store did with it and what applying the round did.
    private static func outcomes(of results: [Result<RouteWriteResult, any Error>],
                                 applied: Result<LiveRouteSet.Change, any Error>) -> [Result<WriteOutcome, any Error>] {
        results.map { result in
            result.map { result -> WriteOutcome in
                switch result {
                case let .notFound(key): return .notFound(key: key)
                case let .notALine(key): return .notALine(key: key)
                case let .timesDiffer(key, routeHasTimes): return .timesDiffer(key: key, routeHasTimes: routeHasTimes)
                case let .committed(made, _):
                    let keys = made.map(\.key).uniqued()
                    let sequences = made.first.flatMap { first in made.last.map { first.sequence...$0.sequence } }
                    switch applied {
                    case let .success(change): return .applied(change: change, keys: keys, sequences: sequences)
                    case let .failure(error):
                        return .committedNotApplied(keys: keys, sequences: sequences, error: "\(error)")
                    }
                }
            }
        }
    }

    /// Throws when the store is unreachable and a follower is probing it.
    private func refuseWhileUnreachable() throws {
        guard prober.withLock({ $0 != nil }) else { return }
        let status = self.status
        guard !status.reachable else { return }
        throw RouteStoreError(store: store.displayName, message: "unreachable (\(status.lastError ?? "no answer")); "
                              + "writes are refused until it answers again")
    }

    /// Applies a write this server just committed, from what it wrote.
    private func applyOwn(_ changes: [RouteChange], written: [StoredRoute]) -> LiveRouteSet.Change {
        let started = ContinuousClock.now
        let edits = state.withLock { state in ChangePlan.own(changes, written: written, versions: &state.versions) }
        let change = routes.apply(edits)
        let sequences = (changes.first?.sequence ?? 0)...(changes.last?.sequence ?? 0)
        state.withLock { state in
            state.status.applied = sequences.upperBound
            state.status.newest = max(state.status.newest, sequences.upperBound)
        }
        return deliver(Applied(change: change, sequences: sequences, changeCount: changes.count, badRows: [],
                               duration: ContinuousClock.now - started)).change
    }
}
