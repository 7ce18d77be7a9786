import Foundation
import NIOCore
import RouteTiles
import RouteTilesAccess
import ServiceLifecycle
import Synchronization

/// One applied change, as `GET /events` sends it: the store sequence it reached (the event's id, the same on every
/// replica of a store), and the event written out once for every stream (the document's `ChangeEvent`: the generation of this
/// server's routes, the routes changed, the tiles invalidated and any subtrees). A change across the world names
/// hundreds of thousands of tiles: written per stream, through `JSONEncoder`, it held the threads every request needs.
///
/// Where reads are private, the event also knows each route's group, and a reader limited to some groups gets its
/// own frame (`frame(for:sealing:)`): only the ids of its groups; the tiles when every id is of its groups, else no
/// tile and the whole world as a subtree (refresh everything), since the tiles of one change are not told apart by
/// route; and no event at all when none of the ids is of its groups. Its frame has no generation and no sequence,
/// and its id is the sequence sealed (`SealedSequence`): both count the changes of every group, and the gap between
/// two of its events would tell it how often the other groups change.
struct ChangeEvent: Sendable {
    var sequence: Int64
    /// `event: change`, the `id` and one `data` line of JSON, as the stream writes it.
    var frame: ByteBuffer
    var generation: UInt64
    var ids: [String]
    /// Beside each id, its route's group, when known (`RouteGroupTracker`); nil when groups are not tracked.
    var groups: [String?]?
    var tiles: [TileID]
    var subtrees: [TileID]

    init(sequence: Int64, generation: UInt64, ids: [String], tiles: [TileID], subtrees: [TileID] = [],
         groups: [String?]? = nil) {
        self.sequence = sequence
        self.generation = generation
        self.ids = ids
        self.groups = groups
        self.tiles = tiles
        self.subtrees = subtrees
        frame = Self.frame(id: String(sequence), counters: (generation, sequence), ids: ids, tiles: tiles,
                           subtrees: subtrees)
    }

    /// The event as written: `counters` (generation and sequence) only for a reader of every group.
    static func frame(id: String, counters: (generation: UInt64, sequence: Int64)?, ids: [String], tiles: [TileID],
                      subtrees: [TileID]) -> ByteBuffer {
        var data = JSONObjectWriter()
        if let counters { data.integer("generation", counters.generation) }
        data.strings("ids", ids)
        if let counters { data.integer("sequence", counters.sequence) }
        if !subtrees.isEmpty { data.tiles("subtrees", subtrees) }
        data.tiles("tiles", tiles)
        var frame = ByteBuffer()
        frame.reserveCapacity(data.bytes.count + 48 + id.utf8.count)
        frame.writeString("event: change\nid: \(id)\ndata: ")
        frame.writeBytes(data.finished)
        frame.writeString("\n\n")
        return frame
    }

    /// The frame a reader of `scope` gets; nil when the change is of none of its routes. A reader limited to some
    /// groups gets its own, with the id sealed by `sealer`.
    func frame(for scope: GroupScope, sealing sealer: SealedSequence) -> ByteBuffer? {
        if scope.isAll { return frame }
        guard let groups else { return nil }
        var visible: [String] = []
        for (id, group) in zip(ids, groups) where group.map(scope.contains) == true { visible.append(id) }
        guard !visible.isEmpty else { return nil }
        let id = sealer.seal(sequence)
        if visible.count == ids.count {
            return Self.frame(id: id, counters: nil, ids: ids, tiles: tiles, subtrees: subtrees)
        }
        let world = TileID(z: 0, x: 0, y: 0)
        return Self.frame(id: id, counters: nil, ids: visible, tiles: [], subtrees: [world])
    }
}

/// The group of every live route, kept by the reader of changes so that an event of a route removed (whose group the
/// routes no longer hold) can still be shown to the readers of its group, and to no other.
final class RouteGroupTracker: Sendable {
    private let known: Mutex<[String: String]>

    /// Tracks the groups of `sync`'s routes from now on.
    init(sync: LiveRouteSync) {
        let routes = sync.routes.keyedRoutesWithoutPositions.routes
        var known: [String: String] = [:]
        known.reserveCapacity(routes.count)
        for (key, route) in routes { known[key] = RouteGroup.of(route.properties) }
        self.known = Mutex(known)
    }

    /// The group of each of `keys` after a change of them: a route's current group, or for a route removed the
    /// group it had; nil for a route never seen.
    func groups(of keys: [String], in routes: LiveRouteSet) -> [String?] {
        let current = keys.map { routes.routeWithoutPositions($0).map { RouteGroup.of($0.properties) } }
        return known.withLock { known in
            zip(keys, current).map { key, group in
                guard let group else { return known.removeValue(forKey: key) }
                known[key] = group
                return group
            }
        }
    }
}

/// Hands every applied change to the open `/events` streams. A stream that falls `bufferLimit` events behind is
/// ended, so that a slow client costs bounded memory; it reconnects with `Last-Event-ID` and is told to resync.
/// At graceful shutdown every stream ends, so that the server does not wait for clients that never hang up.
final class ChangeEvents: Sendable {
    private struct State {
        var next = 0
        var subscribers: [Int: AsyncStream<ChangeEvent>.Continuation] = [:]
        var finished = false
    }

    private let state = Mutex(State())
    let bufferLimit: Int

    init(bufferLimit: Int = 1024) {
        self.bufferLimit = bufferLimit
    }

    /// A stream of every change published from now on.
    func subscribe() -> AsyncStream<ChangeEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeEvent.self,
                                                            bufferingPolicy: .bufferingOldest(bufferLimit))
        let id = state.withLock { state -> Int? in
            guard !state.finished else { return nil }
            state.next += 1
            state.subscribers[state.next] = continuation
            return state.next
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends the event `make` writes to every stream (written only when there is one); ends those whose buffer is
    /// full.
    func publish(_ make: () -> ChangeEvent) {
        let subscribers = state.withLock { $0.subscribers }
        guard !subscribers.isEmpty else { return }
        let event = make()
        for (id, continuation) in subscribers {
            if case .dropped = continuation.yield(event) {
                continuation.finish()
                _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
        }
    }

    /// Ends every open stream; later ones open as usual. After a gap in the changes (`LiveChangeConsumer`), clients
    /// reconnect with `Last-Event-ID` and are told to resync.
    func endAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return state.subscribers
        }
        for continuation in subscribers.values { continuation.finish() }
    }

    /// Ends every stream, and those opened later at once.
    func finishAll() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers = [:] }
            return state.subscribers
        }
        for continuation in subscribers.values { continuation.finish() }
    }
}

/// Ends the `/events` streams when the service group shuts down gracefully. Listed after the application, it is
/// shut down before it, so the HTTP server finds no endless response in flight.
struct ChangeEventsCloser: Service {
    let events: ChangeEvents

    func run() async throws {
        try? await gracefulShutdown()
        events.finishAll()
    }
}
