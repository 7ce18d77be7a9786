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
    /// The tile matrix set whose z/x/y the tile's address names.
    public var grid: TileGrid
    /// For a tile of another grid than Web Mercator's, the generation of the routes it is cut from, set by
    /// `TileService`. Such a tile covers no Web Mercator tile's area, so the tiles a change drops cannot name it: it
    /// is kept under its generation instead, which a change leaves behind, for least-recent use to evict. 0 for Web
    /// Mercator's.
    var generation: UInt64 = 0

    /// The variant of `window` and `groups`; a scope of every group is no restriction and is kept as nil, so that
    /// it shares the variant (and cache entries) of no restriction.
    public init(window: TimeWindow? = nil, groups: GroupScope? = nil, grid: TileGrid = .webMercator) {
        self.window = window
        self.groups = groups?.isAll == true ? nil : groups
        self.grid = grid
    }

    /// Whether this is the default tile: Web Mercator's, no window, every group.
    public var isDefault: Bool { window == nil && groups == nil && grid == .webMercator }

    public var description: String {
        [window.map { "window \($0)" }, groups.map { "groups \($0.key)" }, grid == .webMercator ? nil : "WorldCRS84Quad"]
            .compactMap { $0 }.joined(separator: ", ")
    }
}
