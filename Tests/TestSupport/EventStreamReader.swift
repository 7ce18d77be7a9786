import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import RouteTilesCoreTestSupport

/// A client of `GET /events`: a task reads the server-sent events as they come; `next` waits, bounded, for each.
package final class EventStreamReader: Sendable {
    package struct Event: Sendable {
        package var name: String
        /// The id as a sequence number (a reader of every group's ids).
        package var id: Int64?
        /// The id as sent (a sealed id for a reader limited to some groups).
        package var rawID: String?
        package var data: String
        package var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:] }
    }

    private struct State {
        package var events: [Event] = []
        package var ended = false
    }

    private final class Box: Sendable {
        package let state = Mutex(State())
    }

    package let status: Int
    package let contentType: String?
    private let box = Box()
    private let reader: Task<Void, Never>

    package init(url: String, lastEventID: Int64? = nil, lastEventText: String? = nil) async throws {
        var request = HTTPClientRequest(url: url)
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: String(lastEventID)) }
        if let lastEventText { request.headers.add(name: "Last-Event-ID", value: lastEventText) }
        let response = try await TestServer.client.execute(request, timeout: .seconds(900))
        status = Int(response.status.code)
        contentType = response.headers.first(name: "Content-Type")
        let box = self.box
        reader = Task {
            var text = ""
            do {
                for try await buffer in response.body {
                    text += String(buffer: buffer)
                    while let end = text.range(of: "\n\n") {
                        let block = String(text[..<end.lowerBound])
                        text.removeSubrange(..<end.upperBound)
                        if let event = Self.parse(block) { box.state.withLock { $0.events.append(event) } }
                    }
                }
            } catch {}
            box.state.withLock { $0.ended = true }
        }
    }

    deinit { reader.cancel() }

    /// One block of lines; nil for a comment (a heartbeat) or a block with no data.
    package static func parse(_ block: String) -> Event? {
        var event = Event(name: "message", id: nil, rawID: nil, data: "")
        for line in block.split(separator: "\n") where !line.hasPrefix(":") {
            if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
            if line.hasPrefix("id: ") {
                event.rawID = String(line.dropFirst(4))
                event.id = Int64(line.dropFirst(4))
            }
            if line.hasPrefix("data: ") { event.data += String(line.dropFirst(6)) }
        }
        return event.data.isEmpty ? nil : event
    }

    /// The next event, or nil when the stream ends first or none comes within `seconds`. The default is long: when
    /// the whole suite runs on two cores, an in-process server has been seen to stall for more than 10 s.
    package func next(within seconds: Double = 60) async throws -> Event? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let (event, ended) = box.state.withLock { state -> (Event?, Bool) in
                state.events.isEmpty ? (nil, state.ended) : (state.events.removeFirst(), false)
            }
            if let event { return event }
            if ended { return nil }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// Whether the server ended the stream within `seconds`.
    package func ends(within seconds: Double) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if box.state.withLock({ $0.ended }) { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Stops reading (closes the connection).
    package func close() { reader.cancel() }
}
