import RouteTilesModel

/// A span of time that a window tile shows (`/tiles/{z}/{x}/{y}.mvt?from=…&to=…`): the lines of routes with times,
/// cut to the positions between `from` and `to` and starting and ending at the positions interpolated at those
/// times. Routes without times have no place in a window, and are left out.
public struct TimeWindow: Sendable, Hashable, CustomStringConvertible {
    /// The first instant shown, in milliseconds since 1970; nil for no lower bound.
    public var from: Int64?
    /// The last instant shown, in milliseconds since 1970; nil for no upper bound.
    public var to: Int64?

    /// The window from `from` to `to` (milliseconds since 1970), either left open.
    public init(from: Int64?, to: Int64?) {
        self.from = from
        self.to = to
    }

    /// The lower bound in seconds, −∞ when open.
    var fromSeconds: Double { from.map { Double($0) / 1000 } ?? -.infinity }
    /// The upper bound in seconds, +∞ when open.
    var toSeconds: Double { to.map { Double($0) / 1000 } ?? .infinity }

    /// What is wrong with the window (its lower bound after its upper one), or nil.
    public var problem: String? {
        if let from, let to, from > to {
            return "from \(TimeValue.iso(from)) is after to \(TimeValue.iso(to))"
        }
        return nil
    }

    /// `from=…&to=…` with the bounds in ISO 8601 UTC.
    public var description: String {
        [from.map { "from=" + TimeValue.iso($0) }, to.map { "to=" + TimeValue.iso($0) }].compactMap { $0 }
            .joined(separator: "&")
    }
}
