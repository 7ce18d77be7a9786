import Foundation
import NIOCore
import RouteTiles
import ServiceLifecycle
import Synchronization

/// One applied change, as `GET /events` sends it: the store sequence it reached (the event's id, the same on every
/// replica of a store), and the event written out once for every stream (the document's `ChangeEvent`: the generation of this
/// server's routes, the routes changed, the tiles invalidated and any subtrees). A change across the world names
/// hundreds of thousands of tiles: written per stream, through `JSONEncoder`, it held the threads every request needs.
struct ChangeEvent: Sendable {
    var sequence: Int64
    /// `event: change`, the `id` and one `data` line of JSON, as the stream writes it.
    var frame: ByteBuffer

    init(sequence: Int64, generation: UInt64, ids: [String], tiles: [TileID], subtrees: [TileID] = []) {
        self.sequence = sequence
        var data = JSONObjectWriter()
        data.integer("generation", generation)
        data.strings("ids", ids)
        data.integer("sequence", sequence)
        if !subtrees.isEmpty { data.tiles("subtrees", subtrees) }
        data.tiles("tiles", tiles)
        var frame = ByteBuffer()
        frame.reserveCapacity(data.bytes.count + 48)
        frame.writeString("event: change\nid: \(sequence)\ndata: ")
        frame.writeBytes(data.finished)
        frame.writeString("\n\n")
        self.frame = frame
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
