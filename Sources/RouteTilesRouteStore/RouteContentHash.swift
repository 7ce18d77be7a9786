import RouteTilesModel

/// A fingerprint of a route's stored content (key, layer, kind, geodesic flag, properties as a set, numbers and
/// positions bit for bit, times to the millisecond, so that the fingerprint does not depend on how a Swift version prints a number): what an import records, so that the next import of the same file can tell an unchanged file from an
/// edited one without keeping the file. 64-bit FNV-1a, as 16 hexadecimal digits.
enum RouteContentHash {
    static func of(_ route: Route, key: String) -> String {
        var hash = FNV1a.offsetBasis
        func add(_ bytes: UnsafeBufferPointer<UInt8>) { hash = FNV1a.hash(bytes, into: hash) }
        func add(_ text: String) {
            add(UInt64(text.utf8.count))
            var copy = text
            copy.withUTF8 { add($0) }
        }
        func add(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { add($0.assumingMemoryBound(to: UInt8.self)) } }
        add(key)
        add(route.layer.map { "L" + $0 } ?? "-")
        add(StoredRouteCodec.kindName(route.kind))
        add(route.geodesic ? 1 : 0)
        // Properties as a set: the last value of a repeated key, in key order (PostgreSQL's jsonb keeps neither).
        let properties = Dictionary(route.properties.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        add(UInt64(properties.count))
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            add(key)
            switch value {
            case let .string(s): add(1); add(s)
            case let .bool(b): add(2); add(b ? 1 : 0)
            case let .int(i): add(3); add(UInt64(bitPattern: Int64(i)))
            case let .uint(u): add(4); add(UInt64(u))
            case let .double(d): add(5); add(d.bitPattern)
            }
        }
        add(UInt64(route.parts.count))
        for part in route.parts {
            add(UInt64(part.count))
            for position in part {
                add(position.longitude.bitPattern)
                add(position.latitude.bitPattern)
            }
        }
        // Times only when there are some: the fingerprints of routes without times stay as they were.
        if let times = route.times {
            add(UInt64(times.count) | 1 << 63)
            for time in times { add(UInt64(bitPattern: time)) }
        }
        return String(repeating: "0", count: max(0, 16 - String(hash, radix: 16).count)) + String(hash, radix: 16)
    }
}
