import RouteTiles

/// A tile URL with `{z}`, `{x}` and `{y}` (or `{-y}`, the TMS row) placeholders.
package struct TileURLTemplate: Sendable, Equatable {
    package let text: String

    package init(_ text: String) throws {
        guard text.hasPrefix("http://") || text.hasPrefix("https://") else {
            throw InputError(file: "--url", message: "'\(text)' is not an http(s) URL")
        }
        guard text.contains("{z}"), text.contains("{x}"), text.contains("{y}") || text.contains("{-y}") else {
            throw InputError(file: "--url", message: "'\(text)' needs {z}, {x} and {y} (or {-y})")
        }
        self.text = text
    }

    package func url(for tile: TileID) -> String {
        text.replacingOccurrences(of: "{z}", with: String(tile.z))
            .replacingOccurrences(of: "{x}", with: String(tile.x))
            .replacingOccurrences(of: "{-y}", with: String((1 << tile.z) - 1 - tile.y))
            .replacingOccurrences(of: "{y}", with: String(tile.y))
    }
}
