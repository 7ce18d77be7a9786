import Foundation

/// JSON text as RouteTiles writes it: keys sorted, slashes unescaped, optionally pretty (then with a final
/// newline).
package enum JSONText {
    /// The text of `value`. Encoding the value types RouteTiles writes cannot fail; `{}` stands in if it ever did.
    package static func bytes<Value: Encodable>(_ value: Value, pretty: Bool) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
                                          : [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Array(data) + (pretty ? [0x0a] : [])
    }
}
