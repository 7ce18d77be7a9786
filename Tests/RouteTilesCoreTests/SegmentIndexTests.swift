import Testing
import RouteTiles
@testable import RouteTilesTiling
import RouteTilesCoreTestSupport

/// The on-demand index over runs of segments (`SegmentIndex`).
@Suite struct SegmentIndexTests {
    /// For random tiles of every zoom, the spans found through the index are exactly those a scan of every root
    /// span gives.
    @Test func segmentIndexFindsTheSameRunsAsAScan() {
        var rng = SeededGenerator(seed: 5)
        var routes: [Route] = []
        for _ in 0..<40 {
            routes.append(Route(parts: [Sample.track(count: 200, lon: .random(in: -170...170, using: &rng),
                                                     lat: .random(in: -60...60, using: &rng), step: 0.05, using: &rng)]))
        }
        let tiler = RouteTiler(routes: routes, options: Sample.options(maxZoom: 10))
        for _ in 0..<200 {
            let z = Int.random(in: 0...10, using: &rng)
            let tile = TileID(z: z, x: Int.random(in: 0..<(1 << z), using: &rng), y: Int.random(in: 0..<(1 << z), using: &rng))
            let box = WebMercator.bounds(of: tile, extent: 4096, buffer: 64)
            var scanned = SpanList()
            SpanFilter.select(tiler.rootSpans, meeting: box, in: tiler.projected, into: &scanned)
            #expect(tiler.spans(for: tile) == scanned.spans)
        }
    }
}
