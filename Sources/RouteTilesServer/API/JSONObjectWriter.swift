import RouteTiles

/// Writes one JSON object member by member, straight into bytes: for answers a hot path sends many times (the
/// batch endpoint's per-route results), where building a dictionary for `JSONSerialization` cost a fifth of the
/// server's time. Members keep the order written; strings get the escapes JSON requires.
package struct JSONObjectWriter: Sendable {
    package private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var first = true

    package init() {}

    private mutating func key(_ name: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        JSONValue.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// `"name": "value"`.
    package mutating func string(_ name: String, _ value: String) {
        key(name)
        JSONValue.appendQuoted(value, to: &bytes)
    }

    /// `"name": value`, a whole number.
    package mutating func integer<Number: BinaryInteger>(_ name: String, _ value: Number) {
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `"name": true|false`.
    package mutating func bool(_ name: String, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// `"name": ["string", …]`.
    package mutating func strings(_ name: String, _ values: [String]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.appendQuoted(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `"name": ["z/x/y", …]`, the digits written straight into the bytes (a change across the world names hundreds
    /// of thousands of tiles).
    package mutating func tiles(_ name: String, _ tiles: [TileID]) {
        key(name)
        bytes.reserveCapacity(bytes.count + tiles.count * 16)
        bytes.append(UInt8(ascii: "["))
        for (index, tile) in tiles.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            Self.appendDigits(tile.z, to: &bytes)
            bytes.append(UInt8(ascii: "/"))
            Self.appendDigits(tile.x, to: &bytes)
            bytes.append(UInt8(ascii: "/"))
            Self.appendDigits(tile.y, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The decimal digits of a non-negative `value`.
    private static func appendDigits(_ value: Int, to bytes: inout [UInt8]) {
        guard value > 0 else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// `"name": [objects]`, each a finished writer's object.
    package mutating func array(_ name: String, _ objects: [JSONObjectWriter]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, object) in objects.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: object.finished)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `"name": {object}`, a finished writer's object.
    package mutating func object(_ name: String, _ object: JSONObjectWriter) {
        key(name)
        bytes.append(contentsOf: object.finished)
    }

    /// The object's text, closed.
    package var finished: [UInt8] { bytes + [UInt8(ascii: "}")] }
}
