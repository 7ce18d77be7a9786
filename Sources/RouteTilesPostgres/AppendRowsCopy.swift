import Foundation
import NIOCore
import RouteTiles

/// The append rows of a group commit as the data of `COPY <table>_changes (seq, route_id, op, base_version, points,
/// changed_at, times) FROM STDIN` in PostgreSQL's text format: one line per append, columns separated by tabs.
///
/// COPY is how the store writes the rows of a group, not `INSERT … SELECT`: PostgreSQL then writes one WAL record
/// per page of rows (`heap_multi_insert`), not a record per row with its own header and block reference, which
/// saves about 45 bytes a fix (Docs/BENCHMARKS.md, "Where PostgreSQL's bytes per fix go").
struct AppendRowsCopy {
    /// The columns, in the order of each line.
    static let columns = ["seq", "route_id", "op", "base_version", "points", "changed_at", "times"]

    private(set) var buffer: ByteBuffer

    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// Adds the row of one append: its sequence number, route, the route's version before it, the positions and
    /// the time (`changedAt`, the text of a `timestamptz`), and the points' times when the route has times (Unix
    /// seconds; `\N`, NULL, otherwise).
    mutating func add(seq: Int64, key: String, base: Int64, points: [Coordinate], changedAt: String, times: [Int64]? = nil) {
        buffer.writeString(String(seq))
        buffer.writeInteger(UInt8(ascii: "\t"))
        Self.writeEscaped(key, to: &buffer)
        buffer.writeString("\tappend\t")
        buffer.writeString(String(base))
        buffer.writeString("\t{")
        for (i, c) in points.enumerated() {
            if i > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
            // Swift's description of a Double is the shortest text that reads back as the same value, which
            // PostgreSQL's float8 input does.
            buffer.writeString(c.longitude.description)
            buffer.writeInteger(UInt8(ascii: ","))
            buffer.writeString(c.latitude.description)
        }
        buffer.writeString("}\t")
        buffer.writeString(changedAt)
        if let times {
            buffer.writeString("\t{")
            for (i, time) in times.enumerated() {
                if i > 0 { buffer.writeInteger(UInt8(ascii: ",")) }
                buffer.writeString((Double(time) / 1000).description)
            }
            buffer.writeString("}\n")
        } else {
            buffer.writeString("\t\\N\n")
        }
    }

    /// A text value in COPY's text format: backslash, tab, newline and carriage return escaped with a backslash.
    static func writeEscaped(_ text: String, to buffer: inout ByteBuffer) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.writeString("\\\\")
            case UInt8(ascii: "\t"): buffer.writeString("\\t")
            case UInt8(ascii: "\n"): buffer.writeString("\\n")
            case UInt8(ascii: "\r"): buffer.writeString("\\r")
            default: buffer.writeInteger(byte)
            }
        }
    }

    /// `time` (seconds since 1970) as `timestamptz` text in UTC, to the microsecond as PostgreSQL keeps it:
    /// "2026-11-26 13:38:52.123456+00".
    static func timestamp(_ time: Double) -> String {
        let micros = (time * 1_000_000).rounded()
        var seconds = time_t(floor(micros / 1_000_000))
        let fraction = Int(micros - Double(seconds) * 1_000_000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let micro = String(fraction)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2)) "
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + String(repeating: "0", count: 6 - micro.count) + micro + "+00"
    }
}
