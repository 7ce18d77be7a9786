import Foundation
import Testing
import RouteTiles
import RouteTilesCoreTestSupport

/// Routes across the antimeridian: drawn in the first and last columns of tiles, whichever way they are written.
@Suite struct AntimeridianTests {
    /// A route from (179.5, 0) to (−179.5, 0), along the row edge at the equator, lies in the first and the last
    /// column of tiles at every zoom, each tile holding what an independent clip of the route (and of its copy one
    /// world away) gives: it never spans the world.
    @Test(arguments: [false, true])
    func routeAcrossTheAntimeridianStaysShort(geodesic: Bool) throws {
        var options = TilingOptions()
        options.maxZoom = 14
        options.simplification = 0
        let route = Route(parts: [[Coordinate(longitude: 179.5, latitude: 0), Coordinate(longitude: -179.5, latitude: 0)]],
                          geodesic: geodesic)
        let tiler = RouteTiler(routes: [route], options: options)
        let reference = ReferenceClip(extent: options.extent, buffer: options.buffer)
        let ids = tiler.projected.routeInfos.map(\.featureID)
        for z in 1...options.maxZoom {
            let n = 1 << z
            let y = n / 2
            let expected = reference.cut(tiler.projected, zoom: z)
            for x in [0, n - 1] {
                var found = 0
                for tile in [TileID(z: z, x: x, y: y - 1), TileID(z: z, x: x, y: y)] {
                    let bytes = try tiler.tile(z: tile.z, x: tile.x, y: tile.y)
                    if bytes != nil { found += 1 }
                    let layer = try bytes.flatMap { try VectorTileDecoder.decode($0).layer(named: "routes") }
                    let problems = ReferenceClip.differences(in: tile, layer: layer, expected: expected[tile] ?? [:],
                                                             featureIDs: ids)
                    #expect(problems.isEmpty, "\(problems)")
                }
                #expect(found > 0, "z\(z) x\(x): no tile")
            }
            // Nothing in the middle of the world.
            if z >= 2 { #expect(try tiler.tile(z: z, x: n / 2, y: y) == nil) }
        }
    }

    @Test func unwrappedInputAndWrappedInputGiveTheSameTiles() throws {
        let wrapped = Route(parts: [coordinates([(178, 10), (-179, 11), (-175, 12)])])
        let unwrapped = Route(parts: [coordinates([(178, 10), (181, 11), (185, 12)])])
        let a = RouteTiler(routes: [wrapped], options: TilingOptions()), b = RouteTiler(routes: [unwrapped], options: TilingOptions())
        for z in 0...6 {
            let n = 1 << z
            for x in [0, n - 1] {
                let y = WebMercator.tile(containing: Coordinate(longitude: 179, latitude: 11), zoom: z).y
                #expect(try a.tile(z: z, x: x, y: y) == b.tile(z: z, x: x, y: y))
                #expect(try a.tile(z: z, x: x, y: y) != nil)
            }
        }
    }
}
