import RouteTilesModel
import RouteTilesRouteStore

/// Following: catch-ups read the store's changes after the last applied, page by page, and apply them through
/// `ChangePlan`; the follower runs one after every wake-up and tick; a catch-up behind pruned changes reloads.
extension LiveRouteSync {
    /// Reads and applies every change after the last applied; nil when there was none.
    @discardableResult
    public func catchUp() async throws -> Applied? {
        try await lock.withLock {
            var total: Applied?
            while let applied = try await catchUpLocked() {
                total = total.map { $0.merging(applied) } ?? applied
            }
            return total
        }
    }

    /// Follows the store until the task is cancelled: a catch-up after every wake-up and every `tick`, with
    /// backoff (0.1 s doubling to 5 s) while the store cannot be reached; and every `retentionTick`, the trims of
    /// positions past their time bound (`trimOldPositions`).
    public func follow() async {
        let (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        prober.withLock { $0 = signal }
        defer { prober.withLock { $0 = nil } }
        let store = self.store
        let tick = self.tick
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in store.wakeUps() { signal.yield() }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: tick)
                    signal.yield()
                }
            }
            // Retention by time: trims are writes, so they wait while the store cannot be reached like any other.
            group.addTask { [self] in
                // Once at start (a server started after a pause trims what aged meanwhile), then every tick.
                while !Task.isCancelled {
                    await trimOldPositions()
                    try? await Task.sleep(for: retentionTick)
                }
            }
            group.addTask { [self] in
                var backoff = Duration.milliseconds(100)
                var iterator = signals.makeAsyncIterator()
                while !Task.isCancelled {
                    do {
                        try await catchUp()
                        backoff = .milliseconds(100)
                    } catch {
                        try? await Task.sleep(for: backoff)
                        backoff = min(backoff * 2, .seconds(5))
                        continue
                    }
                    guard await iterator.next() != nil else { break }
                }
            }
            await group.next()
            group.cancelAll()
        }
        signal.finish()
    }

    /// Reads one page of changes and applies it, under the lock. Nil when there is nothing new.
    func catchUpLocked() async throws -> Applied? {
        let started = ContinuousClock.now
        let applied = status.applied
        let page: [RouteChange]
        let rows: [String: StoredRow]
        let needed: [String]
        do {
            let newest = try await store.newestSequence()
            state.withLock { $0.status.newest = max($0.status.newest, newest) }
            guard newest > applied else {
                noteSuccess()
                return nil
            }
            do {
                page = try await store.changes(after: applied, limit: 1000)
            } catch is RouteChangesPruned {
                let result = try await reload()
                noteSuccess()
                return result
            }
            guard !page.isEmpty else {
                noteSuccess()
                return nil
            }
            needed = keysNeedingRows(page)
            rows = try await store.rows(needed)
            noteSuccess()
        } catch {
            noteFailure(error)
            throw error
        }
        let read = needed
        guard Self.mayBeLarge(page) else { return apply(page, rows: rows, read: read, started: started) }
        return await offPool { self.apply(page, rows: rows, read: read, started: started) }
    }

    /// The keys of a page whose changes cannot all be applied from the change itself (an append on the version held).
    private func keysNeedingRows(_ page: [RouteChange]) -> [String] {
        let held = state.withLock { state in
            Dictionary(uniqueKeysWithValues: Set(page.map(\.key)).map { ($0, state.versions[$0] ?? -1) })
        }
        return ChangePlan.rowsNeeded(for: page, held: held)
    }

    /// Applies a page of changes; `rows` are the rows of the keys `read` as they are now.
    private func apply(_ page: [RouteChange], rows: [String: StoredRow], read: [String],
                       started: ContinuousClock.Instant) -> Applied? {
        guard let first = page.first?.sequence, let last = page.last?.sequence else { return nil }
        let (edits, badRows) = state.withLock { state in
            let planned = ChangePlan.page(page, rows: rows, read: read, last: last, versions: &state.versions)
            return (planned.edits, state.newlyBad(planned.badRows))
        }
        let change = routes.apply(edits)
        // Applied only once the routes show it: whoever reads the status then reads the routes sees the change.
        state.withLock { $0.status.applied = last }
        let applied = deliver(Applied(change: change, sequences: first...last, changeCount: page.count,
                                      badRows: badRows, duration: ContinuousClock.now - started))
        state.withLock { $0.window.record(first...last, change: applied.change) }
        return applied
    }

    /// Loads the whole store again, when the changes needed were pruned: every route whose version differs is put,
    /// every route no longer stored removed.
    private func reload() async throws -> Applied? {
        let started = ContinuousClock.now
        let snapshot = try await store.loadAll()
        var edits: [LiveRouteSet.Edit] = []
        let before = status.applied
        var reported: [RouteRowProblem] = []
        state.withLock { state in
            edits = ChangePlan.reload(snapshot, held: routes.keys, versions: &state.versions)
            reported = state.newlyBad(snapshot.badRows)
        }
        let (reloaded, problems) = (edits, reported)
        return await offPool {
            let sequences = (before + 1)...max(before + 1, snapshot.sequence)
            let change = self.routes.apply(reloaded)
            self.state.withLock { $0.status.applied = snapshot.sequence }
            let applied = self.deliver(Applied(change: change, sequences: sequences,
                                               changeCount: reloaded.count, badRows: problems,
                                               duration: ContinuousClock.now - started))
            self.state.withLock { $0.window.record(sequences, change: applied.change) }
            return applied
        }
    }
}
