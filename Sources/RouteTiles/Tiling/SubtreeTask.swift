/// A tile whose subtree is still to be cut, with the spans that reach it: the unit of top-down work, for the route
/// cover (`RouteTiler.cover`) and for the pyramid builder's workers.
struct SubtreeTask: Sendable {
    var tile: TileID
    var spans: [SegmentSpan]
}
