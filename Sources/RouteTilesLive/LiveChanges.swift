import RouteTilesModel
import RouteTilesRouteStore
import Synchronization

/// What a `LiveRouteSync` tells those who follow it, in order: each application, store errors and reconnections.
public enum LiveEvent: Sendable {
    /// One application: a round of this server's writes, a page of the feed, or a reload.
    case applied(LiveRouteSync.Applied)
    /// Applications that the buffer could not keep apart (the reader fell behind): their tiles are not known, so
    /// the reader must treat every tile as changed.
    case gap(LiveChangeGap)
    /// A call to the store failed (`repeats` more failed after it while the reader was behind).
    case storeError(message: String, repeats: Int)
    /// The first successful call to the store after failed ones.
    case reconnected
}

/// Applications folded together because the reader of `LiveChanges` fell behind its bounds.
public struct LiveChangeGap: Sendable {
    /// The store sequences they applied.
    public var sequences: ClosedRange<Int64>
    /// The generation of the last of them.
    public var generation: UInt64
    /// The changes of the feed they applied.
    public var changeCount: Int
    /// The first `LiveChanges.badRowsKept` rows they skipped.
    public var badRows: [RouteRowProblem]
    /// How many rows they skipped.
    public var badRowCount: Int
    /// Their time applying.
    public var duration: Duration

    init(_ applied: LiveRouteSync.Applied) {
        sequences = applied.sequences
        generation = applied.change.generation
        changeCount = applied.changeCount
        badRows = Array(applied.badRows.prefix(LiveChanges.badRowsKept))
        badRowCount = applied.badRows.count
        duration = applied.duration
    }

    /// Takes `applied` in, without its tiles.
    mutating func absorb(_ applied: LiveRouteSync.Applied) {
        sequences = min(sequences.lowerBound, applied.sequences.lowerBound)...max(sequences.upperBound,
                                                                                   applied.sequences.upperBound)
        generation = max(generation, applied.change.generation)
        changeCount += applied.changeCount
        badRows += applied.badRows.prefix(max(0, LiveChanges.badRowsKept - badRows.count))
        badRowCount += applied.badRows.count
        duration += applied.duration
    }
}

/// The events of a `LiveRouteSync` for one reader, in the order they happened (`LiveRouteSync.changes()`).
///
/// Bounded, and the sync never waits for the reader: applications are published under the lock that orders them,
/// in sequence order, so a slow reader must not lengthen it; store errors and reconnections as they happen. Past
/// `eventLimit` buffered events or `tileLimit` buffered tiles, the newest buffered event becomes a `.gap` that absorbs
/// the applications after it (their counts, not their tiles: constant work a publish); consecutive store errors
/// fold into one, and past the bound store errors and reconnections are dropped (their metrics miss a count).
/// The reader sees every application or a gap in its place. One reader: iterate it from one task.
public final class LiveChanges: AsyncSequence, Sendable {
    /// Each event, in order.
    public typealias Element = LiveEvent

    private struct State {
        var buffer: [LiveEvent] = []
        var head = 0
        var tiles = 0
        var waiter: CheckedContinuation<LiveEvent?, Never>?
        var finished = false
        var gaps = 0

        var count: Int { buffer.count - head }

        mutating func pop() -> LiveEvent? {
            guard head < buffer.count else { return nil }
            let event = buffer[head]
            head += 1
            if case let .applied(applied) = event { tiles -= Self.tiles(of: applied) }
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return event
        }

        static func tiles(of applied: LiveRouteSync.Applied) -> Int {
            applied.change.invalidated.count + applied.change.subtrees.count
        }
    }

    /// How many skipped rows a gap keeps (it counts them all).
    static let badRowsKept = 100

    private let state = Mutex(State())
    /// The most events buffered.
    public let eventLimit: Int
    /// The most tiles (invalidated and subtrees) buffered in `.applied` events.
    public let tileLimit: Int

    init(eventLimit: Int, tileLimit: Int) {
        self.eventLimit = Swift.max(1, eventLimit)
        self.tileLimit = Swift.max(0, tileLimit)
    }

    /// How many gaps the buffer made so far.
    public var gaps: Int { state.withLock { $0.gaps } }

    /// Whether `finish()` was called.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Buffers `event`, or folds it into the last buffered one past the bounds. Constant time; never waits.
    func publish(_ event: LiveEvent) {
        let waiter = state.withLock { state -> CheckedContinuation<LiveEvent?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            Self.buffer(event, into: &state, eventLimit: eventLimit, tileLimit: tileLimit)
            return nil
        }
        waiter?.resume(returning: event)
    }

    private static func buffer(_ event: LiveEvent, into state: inout State, eventLimit: Int, tileLimit: Int) {
        let last = state.buffer.count - 1
        let full = state.count >= eventLimit
        switch event {
        case let .applied(applied):
            if last >= state.head, case var .gap(gap) = state.buffer[last] {
                gap.absorb(applied)
                state.buffer[last] = .gap(gap)
                return
            }
            let tiles = State.tiles(of: applied)
            guard full || state.tiles + tiles > tileLimit else {
                state.tiles += tiles
                state.buffer.append(event)
                return
            }
            state.gaps += 1
            if last >= state.head, case let .applied(previous) = state.buffer[last] {
                var gap = LiveChangeGap(previous)
                gap.absorb(applied)
                state.tiles -= State.tiles(of: previous)
                state.buffer[last] = .gap(gap)
            } else {
                // After a store error or a reconnection: one past the bound at most, as later applications join it.
                state.buffer.append(.gap(LiveChangeGap(applied)))
            }
        case let .storeError(_, repeats):
            if last >= state.head, case let .storeError(first, earlier) = state.buffer[last] {
                state.buffer[last] = .storeError(message: first, repeats: earlier + 1 + repeats)
            } else if !full {
                state.buffer.append(event)
            }
        case .gap, .reconnected:
            // Past the bound, store errors and reconnections are dropped: the metrics they feed miss a count.
            if !full { state.buffer.append(event) }
        }
    }

    /// The next event, waiting for one; nil once `finish()` was called and the buffer is read.
    func next() async -> LiveEvent? {
        if let ready = state.withLock({ state -> LiveEvent?? in
            if let event = state.pop() { return .some(event) }
            return state.finished ? .some(nil) : nil
        }) {
            return ready
        }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> LiveEvent?? in
                if let event = state.pop() { return .some(event) }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Stops buffering: the reader gets what is buffered, then the end.
    public func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<LiveEvent?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Reads the events one at a time, waiting for the next.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let changes: LiveChanges

        /// The next event; nil once `finish()` was called and what was buffered is read.
        public mutating func next() async -> LiveEvent? {
            await changes.next()
        }
    }

    /// An iterator over the events; one reader at a time.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(changes: self)
    }
}
