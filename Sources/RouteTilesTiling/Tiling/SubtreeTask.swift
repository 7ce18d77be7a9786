import RouteTilesModel

/// A tile whose subtree is still to be cut, with the spans that reach it: the unit of top-down work, for the route
/// cover (`RouteTiler.cover`) and for the pyramid builder's workers.
package struct SubtreeTask: Sendable {
    package var tile: TileID
    package var spans: [SegmentSpan]

    package init(tile: TileID, spans: [SegmentSpan]) {
        self.tile = tile
        self.spans = spans
    }
}
