/// Splits a `text/event-stream` body (server-sent events) into events, as bytes arrive: `event`, `id` and `data`
/// fields, dispatched at each blank line; comments (`:` lines) and other fields are skipped.
struct ServerSentEventParser {
    struct Event: Equatable {
        var name = "message"
        var id: String?
        var data = ""
    }

    private var line: [UInt8] = []
    private var current = Event()
    private var hasData = false

    /// Feeds bytes; the events they complete.
    mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                line.append(byte)
                continue
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.isEmpty {
                if hasData || current.id != nil { events.append(current) }
                current = Event()
                hasData = false
            } else {
                take(String(decoding: line, as: UTF8.self))
            }
            line.removeAll(keepingCapacity: true)
        }
        return events
    }

    private mutating func take(_ text: String) {
        guard !text.hasPrefix(":") else { return }
        let field = text.prefix { $0 != ":" }
        var value = text.dropFirst(field.count).dropFirst()
        if value.first == " " { value = value.dropFirst() }
        switch field {
        case "event": current.name = String(value)
        case "id": current.id = String(value)
        case "data":
            current.data += hasData ? "\n" + value : String(value)
            hasData = true
        default: break
        }
    }
}
