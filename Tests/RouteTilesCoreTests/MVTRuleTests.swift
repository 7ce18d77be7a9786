import Testing
import RouteTiles
@testable import RouteTilesTiling
@testable import RouteTilesLive
import RouteTilesCoreTestSupport

private typealias T = TileTestSupport

/// The builders refuse what MVT 2.1 forbids, with an error naming the rule; the tilers ask every input to follow it.
@Suite struct MVTRuleTests {
    @Test func aRepeatedKeyWithinAFeatureIsRefusedAndLeavesTheLayerUnchanged() throws {
        var layer = VectorLayerBuilder(name: "routes")
        try layer.addFeature(id: 1, geometry: T.points((1, 1)), properties: [Property("a", .int(1))])
        let before = layer
        let repeated = [Property("name", .string("x")), Property("b", .int(2)), Property("name", .string("y"))]
        #expect(throws: VectorTileRuleError.repeatedKey("name")) {
            try layer.addFeature(id: 2, geometry: T.points((2, 2)), properties: repeated)
        }
        #expect("\(VectorTileRuleError.repeatedKey("name"))".contains("MVT 2.1 (4.4)"))
        #expect(layer.featureCount == before.featureCount && layer.keyCount == before.keyCount
                && layer.valueCount == before.valueCount && layer.featureBytes.bytes == before.featureBytes.bytes)
        // Many properties take the hashed path; keys equal as Strings but not as bytes are distinct keys.
        var many = (0..<40).map { Property("k\($0)", .int(Int64($0))) }
        many.append(Property("k7", .int(0)))
        #expect(throws: VectorTileRuleError.repeatedKey("k7")) {
            try layer.addFeature(id: 3, geometry: T.points((3, 3)), properties: many)
        }
        #expect(try layer.addFeature(id: 4, geometry: T.points((4, 4)),
                                     properties: [Property("\u{E9}", .int(1)), Property("e\u{301}", .int(2))]))
    }

    @Test func aRepeatedLayerNameWithinATileIsRefused() throws {
        var first = VectorLayerBuilder(name: "routes"), second = VectorLayerBuilder(name: "routes")
        try first.addFeature(id: 1, geometry: T.points((1, 1)), properties: [])
        try second.addFeature(id: 2, geometry: T.points((2, 2)), properties: [])
        var tile = VectorTileBuilder()
        try tile.addLayer(first)
        let before = tile.encode()
        #expect(throws: VectorTileRuleError.repeatedLayerName("routes")) { try tile.addLayer(second) }
        #expect("\(VectorTileRuleError.repeatedLayerName("routes"))".contains("MVT 2.1 (4.1)"))
        #expect(tile.encode() == before)
        // An empty layer is left out, so it repeats nothing.
        try tile.addLayer(VectorLayerBuilder(name: "routes"))
    }

    private static func options(maxZoom: Int) -> TilingOptions {
        var options = TilingOptions()
        options.minZoom = 0
        options.maxZoom = maxZoom
        return options
    }

    @Test func aRouteWithARepeatedKeyGetsOneTagPerKey() throws {
        let route = Route(properties: [Property("name", .string("a")), Property("ref", .int(1)),
                                       Property("name", .string("b"))],
                          parts: [[Coordinate(longitude: 8.5, latitude: 47.3), Coordinate(longitude: 8.6, latitude: 47.4)]])
        let tiler = RouteTiler(routes: [route], options: Self.options(maxZoom: 2))
        let decoded = try VectorTileDecoder.decode(try #require(try tiler.tile(z: 0, x: 0, y: 0)))
        let properties = try #require(decoded.layers.first?.features.first?.properties)
        #expect(properties.map(\.key) == ["name", "ref", "length_m"])
        #expect(properties.first?.value == .string("b"))
    }

    @Test func anInvalidTileAddressIsAnErrorAndAnEmptyTileIsNil() throws {
        let route = Route(parts: [[Coordinate(longitude: 8.5, latitude: 47.3), Coordinate(longitude: 8.6, latitude: 47.4)]])
        let options = Self.options(maxZoom: 4)
        let tiler = RouteTiler(routes: [route], options: options)
        let set = RouteTilerSet([tiler], options: options)
        #expect(try tiler.tile(z: 3, x: 0, y: 0) == nil)
        #expect(try set.tile(z: 3, x: 0, y: 0) == nil)
        for (z, x, y) in [(-1, 0, 0), (TileID.maxZoom + 1, 0, 0), (3, 8, 0), (3, 0, -1)] {
            let expected = TileAddressError(tile: TileID(z: z, x: x, y: y))
            #expect(throws: expected) { try tiler.tile(z: z, x: x, y: y) }
            #expect(throws: expected) { try set.tile(z: z, x: x, y: y) }
        }
        #expect("\(TileAddressError(tile: TileID(z: 3, x: 8, y: 0)))" == "tile 3/8/0 does not exist: x and y lie in 0…7 at zoom 3")
        #expect("\(TileAddressError(tile: TileID(z: 29, x: 0, y: 0)))" == "tile 29/0/0 does not exist: zoom 29 is outside 0…28")
    }
}
