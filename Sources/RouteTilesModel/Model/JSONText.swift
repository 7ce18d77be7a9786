import Foundation

/// JSON text as RouteTiles writes it (metadata, TileJSON, a tile as GeoJSON): keys sorted, so that the same object
/// gives the same bytes; slashes not escaped; when `pretty`, indented and ending in a newline.
package enum JSONText {
    /// The text of `object`, which must hold only dictionaries, arrays, strings, numbers and booleans (then
    /// serialization cannot fail; `{}` stands in if it ever did).
    package static func bytes(_ object: Any, pretty: Bool) -> [UInt8] {
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { options.insert(.prettyPrinted) }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: options)) ?? Data("{}".utf8)
        return Array(data) + (pretty ? [0x0a] : [])
    }
}
