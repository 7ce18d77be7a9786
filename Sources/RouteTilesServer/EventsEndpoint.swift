import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RouteTiles
import RouteTilesAccess

/// `GET /events`: every change this server applies, as server-sent events (`text/event-stream`).
///
/// - The first event is `hello`, or `resync` when the request's `Last-Event-ID` is behind: with the store sequence
///   reached, the generation, and for `resync` the ids of the routes changed since (null when they cannot be told:
///   refresh everything).
/// - Then one `change` event per application: `{"sequence", "generation", "ids", "tiles": ["z/x/y", …]}`, with
///   `"subtrees": ["z/x/y", …]` when a change's deepest tiles are not listed (`LiveRouteSet.Change.subtrees`).
/// - Event ids are store sequences, the same on every replica of a store, so a client that reconnects to another
///   replica with `Last-Event-ID` is told what it missed.
/// - A comment every `heartbeat` keeps proxies from closing an idle stream.
/// - A reader whose credential reads some groups only gets the events of their routes
///   (`ChangeEvent.frame(for:sealing:)`), and a `resync` that names no ids (refresh everything). Its events carry no
///   generation and no sequence, and their ids are sealed (`SealedSequence`): each counts the changes of every
///   group. A sealed id given back as `Last-Event-ID` resumes on this server; one it cannot open (another replica's,
///   this server's before a restart) gets a `resync`.
struct EventsEndpoint: Sendable {
    static let heartbeat = Duration.seconds(15)

    let sync: LiveRouteSync
    /// The open streams, which the reader of the live changes feeds (`LiveChangeConsumer`).
    let events: ChangeEvents
    /// Seals the ids of limited readers' events, with a key of this server's.
    let sealer = SealedSequence()

    var operations: [APIOperation] {
        [APIOperation(.get, PathPattern("/events"), "streamEvents") { request, context in
            await open(request, groups: context.grant.read)
        }]
    }

    /// The stream, opened with `hello` or `resync`.
    func open(_ request: Request, groups: GroupScope = .all) async -> Response {
        // Subscribed before the position is read: no change falls between the two.
        let stream = events.subscribe()
        let reached = sync.status.applied
        let limited = !groups.isAll
        // A limited reader sees no counter: no generation, no sequence, and a sealed id.
        let generation = limited ? nil : sync.routes.snapshot.generation
        let sequence = limited ? nil : reached
        let id = limited ? sealer.seal(reached) : String(reached)
        let lastSeen = request.headers[.lastEventID].map { text -> Int64 in
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            // An id that does not open (or is no number) says only that the reader missed something: resync.
            return (limited ? sealer.open(trimmed) : Int64(trimmed)) ?? Int64.min
        }
        var opening: String
        if let lastSeen, lastSeen < reached {
            // The feed's keys carry no group: a limited reader refreshes everything it sees.
            let ids = limited || lastSeen == Int64.min
                ? nil : await Self.changedKeys(after: lastSeen, upTo: reached, store: sync.store)
            opening = Self.event("resync", id: id,
                                 data: EventData.Resync(generation: generation, ids: ids, sequence: sequence))
        } else {
            opening = Self.event("hello", id: id, data: EventData.Hello(generation: generation, sequence: sequence))
        }
        let first = "retry: 2000\n" + opening
        var headers: HTTPFields = [:]
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: first))
            try await Self.stream(stream, after: reached, groups: groups, sealer: sealer, into: &writer)
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Writes every event after `sequence`, with heartbeats, until the stream ends.
    private static func stream(_ stream: AsyncStream<ChangeEvent>, after sequence: Int64, groups: GroupScope,
                               sealer: SealedSequence, into writer: inout any ResponseBodyWriter) async throws {
        // Events and heartbeats wait here while the client reads slowly; past the events' own bound the stream ends
        // (the client comes back with Last-Event-ID and is told to resync) rather than dropping an event unseen.
        let (ticks, tick) = AsyncStream.makeStream(of: ChangeEvent?.self, bufferingPolicy: .bufferingOldest(1024))
        let timer = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                tick.yield(nil)
            }
        }
        let forward = Task {
            for await event in stream {
                if case .dropped = tick.yield(event) { break }
            }
            tick.finish()
        }
        defer {
            timer.cancel()
            forward.cancel()
        }
        for await item in ticks {
            guard let event = item else {
                try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                continue
            }
            guard event.sequence > sequence, let frame = event.frame(for: groups, sealing: sealer) else { continue }
            try await writer.write(frame)
        }
    }

    /// The routes changed after `sequence`, from the store's feed; nil when the feed cannot tell (pruned, too many).
    private static func changedKeys(after sequence: Int64, upTo reached: Int64, store: any RouteStore) async -> [String]? {
        var keys: [String] = []
        var seen = Set<String>()
        var position = sequence
        while position < reached {
            guard let page = try? await store.changes(after: position, limit: 1000), let last = page.last else { return nil }
            for change in page where change.sequence <= reached && seen.insert(change.key).inserted {
                keys.append(change.key)
            }
            position = last.sequence
            if keys.count > 10_000 { return nil }
        }
        return keys
    }

    /// One event in the text/event-stream format: `event`, `id` and one `data` line of JSON.
    static func event<Data: Encodable>(_ name: String, id: String, data: Data) -> String {
        // Integers and strings only: the encoding cannot fail.
        let json = (try? JSONBody.bytes(data)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: \(name)\nid: \(id)\ndata: \(json)\n\n"
    }
}

extension HTTPField.Name {
    static let lastEventID = Self("Last-Event-ID")!
}
