import RouteTiles

/// Random features for the property and robustness tests, together with what the decoder should give back for them.
package struct RandomTiles {
    package struct Feature {
        package var id: UInt64?
        package var geometry: TileGeometry
        package var properties: [Property]

        /// The parts the decoder returns after the encoder has cleaned the geometry, or nil when the encoder must
        /// refuse the feature.
        package var expectedParts: [[TilePoint]]? {
            let used = geometry.points.prefix(geometry.partEnds.last ?? 0)
            if used.contains(where: { abs(Int($0.x)) > 32767 || abs(Int($0.y)) > 32767 }) { return nil }
            switch geometry.kind {
            case .point:
                return used.isEmpty ? nil : used.map { [$0] }
            case .lineString:
                var parts: [[TilePoint]] = []
                for part in geometry.parts {
                    var cleaned: [TilePoint] = []
                    for point in part where point != cleaned.last { cleaned.append(point) }
                    if cleaned.count >= 2 { parts.append(cleaned) }
                }
                return parts.isEmpty ? nil : parts
            }
        }
    }

    package var generator: SeededGenerator

    package init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    package static let keys = ["name", "highway", "ref", "lanes", "maxspeed", "\u{E9}", "e\u{301}", "", "日本", "🚲 bike"]
    package static let strings = ["", "primary", "\u{E9}", "e\u{301}", "quote \" and \\ backslash", "日本語", "🚲",
                          String(repeating: "long ", count: 60)]
    package static let specialDoubles: [Double] = [0, -0.0, 1, .infinity, -.infinity, .nan, .leastNonzeroMagnitude,
                                           .greatestFiniteMagnitude, 0.1, -1e-300]

    package mutating func int(in range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &generator)
    }

    package mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
        int(in: 1...denominator) <= numerator
    }

    package mutating func value() -> PropertyValue {
        switch int(in: 0...9) {
        case 0, 1: return .string(Self.strings[int(in: 0...(Self.strings.count - 1))])
        case 2: return .int(Int64(int(in: -1000...1000)))
        case 3: return .int(Int64(bitPattern: generator.next()))
        case 4: return .uint(UInt64.random(in: (UInt64(Int64.max) + 1)...UInt64.max, using: &generator))
        case 5: return .uint(UInt64(int(in: 0...100)))
        case 6: return .double(Double.random(in: -1e6...1e6, using: &generator))
        case 7: return .double(Self.specialDoubles[int(in: 0...(Self.specialDoubles.count - 1))])
        default: return .bool(chance(1, in: 2))
        }
    }

    package mutating func properties() -> [Property] {
        var keys = Self.keys
        keys.shuffle(using: &generator)
        return keys.prefix(int(in: 0...5)).map { Property($0, value()) }
    }

    package mutating func coordinate(near center: Int32) -> Int32 {
        Int32(clamping: Int(center) + int(in: -60...60))
    }

    package mutating func geometry() -> TileGeometry {
        let outOfRange = chance(1, in: 40)
        var geometry: TileGeometry
        if chance(1, in: 3) {
            geometry = TileGeometry(kind: .point)
            for _ in 0..<int(in: 0...6) {
                geometry.appendPart([TilePoint(x: Int32(int(in: -256...4352)), y: Int32(int(in: -256...4352)))])
            }
        } else {
            geometry = TileGeometry(kind: .lineString)
            for _ in 0..<int(in: 1...4) {
                var point = TilePoint(x: Int32(int(in: -256...4352)), y: Int32(int(in: -256...4352)))
                var part = [point]
                for _ in 1..<int(in: 1...14) {
                    if !chance(1, in: 5) { // else repeat the point: a zero-length segment
                        point = TilePoint(x: coordinate(near: point.x), y: coordinate(near: point.y))
                    }
                    part.append(point)
                }
                geometry.appendPart(part)
            }
        }
        if outOfRange, !geometry.points.isEmpty {
            let index = int(in: 0...(geometry.points.count - 1))
            geometry.points[index].y = chance(1, in: 2) ? 40000 : -32768
        }
        return geometry
    }

    package mutating func feature() -> Feature {
        let id: UInt64? = chance(1, in: 4) ? nil : (chance(1, in: 2) ? UInt64(int(in: 0...1000)) : generator.next())
        return Feature(id: id, geometry: geometry(), properties: properties())
    }

    /// A tile with `layerCount` layers of up to `maximumFeatures` features each.
    package mutating func tile(layerCount: Int, maximumFeatures: Int) throws -> [UInt8] {
        var tile = VectorTileBuilder()
        for index in 0..<layerCount {
            var layer = VectorLayerBuilder(name: "layer\(index)")
            for _ in 0..<int(in: 1...maximumFeatures) {
                let feature = feature()
                try layer.addFeature(id: feature.id, geometry: feature.geometry, properties: feature.properties)
            }
            try tile.addLayer(layer)
        }
        return tile.encode()
    }
}
