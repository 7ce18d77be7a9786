import RouteTilesModel
import RouteTilesTiling

/// A tile other than the default one of its z/x/y: cut to a time window (`?from=…&to=…`), or of the routes of some
/// groups alone (for a reader whose credential reads only those), or both. Cached apart from the default tiles and
/// from each other (`VariantTileCache`).
public struct TileVariant: Hashable, Sendable, CustomStringConvertible {
    /// The time window, or nil for all time.
    public var window: TimeWindow?
    /// The groups whose routes the tile draws, or nil for every group.
    public var groups: GroupScope?

    /// The variant of `window` and `groups`; a scope of every group is no restriction and is kept as nil, so that
    /// it shares the variant (and cache entries) of no restriction.
    public init(window: TimeWindow? = nil, groups: GroupScope? = nil) {
        self.window = window
        self.groups = groups?.isAll == true ? nil : groups
    }

    /// Whether this is the default tile: no window, every group.
    public var isDefault: Bool { window == nil && groups == nil }

    public var description: String {
        [window.map { "window \($0)" }, groups.map { "groups \($0.key)" }].compactMap { $0 }.joined(separator: ", ")
    }
}
