import RouteTilesModel
import RouteTilesTiling

/// The query of a tile request: `from` and `to`, the bounds of a window tile (`TimeWindow`). Other parameters are
/// left alone, so that cache-busting ones (`?v=…`) keep working.
public enum TileQuery {
    /// A query that names a window badly: the text of its 400.
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    /// The window that `from` and `to` name (each ISO 8601 with a zone, fractions allowed, or Unix seconds), either
    /// left out; nil when neither is given (the default tile).
    public static func window(from: String?, to: String?) throws(Problem) -> TimeWindow? {
        guard from != nil || to != nil else { return nil }
        let window = TimeWindow(from: try instant(from, named: "from"), to: try instant(to, named: "to"))
        if let problem = window.problem { throw Problem(description: problem) }
        return window
    }

    private static func instant(_ text: String?, named name: String) throws(Problem) -> Int64? {
        guard let text else { return nil }
        do {
            return try TimeValue.parse(textOrSeconds: text)
        } catch {
            throw Problem(description: "\(name): \(error) (ISO 8601 with a zone, or Unix seconds)")
        }
    }
}
