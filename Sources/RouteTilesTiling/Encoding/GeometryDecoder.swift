import RouteTilesModel

/// Reads the command stream of an MVT 2.1 geometry (§4.3) back into tile coordinates.
///
/// Enforced: known command ids only; every command followed by all its parameters; coordinates within 32 bits;
/// `LineTo` and `ClosePath` only after a `MoveTo`; `ClosePath` with count 1. For point features only `MoveTo` with a
/// count above 0; for line and polygon features `MoveTo` with count 1 and `LineTo` with a count above 0. `ClosePath`
/// is accepted in lines and polygons and adds no point.
enum GeometryDecoder {
    struct Failure: Error {
        var message: String
    }

    static func decode(_ integers: [UInt32], rawType: UInt32) throws(Failure) -> TileGeometry {
        let isPoint = rawType == UInt32(GeometryKind.point.rawValue)
        let needsSingleMoveTo = rawType == UInt32(GeometryKind.lineString.rawValue) || rawType == 3
        var geometry = TileGeometry(kind: isPoint ? .point : .lineString)
        var x: Int64 = 0
        var y: Int64 = 0
        var index = 0
        var sawMoveTo = false

        func endPart(_ geometry: inout TileGeometry) {
            if geometry.points.count > (geometry.partEnds.last ?? 0) {
                geometry.partEnds.append(geometry.points.count)
            }
        }

        while index < integers.count {
            let commandPosition = index
            let commandInteger = integers[index]
            index += 1
            let count = Int(commandInteger >> 3)
            guard let command = GeometryCommand(rawValue: commandInteger & 0x7) else {
                throw Failure(message: "unknown geometry command \(commandInteger & 0x7) at integer \(commandPosition)")
            }
            switch command {
            case .moveTo:
                guard count > 0 else { throw Failure(message: "MoveTo with count 0 at integer \(commandPosition)") }
                if needsSingleMoveTo, count != 1 {
                    throw Failure(message: "MoveTo with count \(count) at integer \(commandPosition); "
                        + "lines and polygons need count 1")
                }
                sawMoveTo = true
            case .lineTo:
                if isPoint { throw Failure(message: "LineTo in a point geometry at integer \(commandPosition)") }
                guard sawMoveTo else { throw Failure(message: "LineTo before any MoveTo at integer \(commandPosition)") }
                guard count > 0 else { throw Failure(message: "LineTo with count 0 at integer \(commandPosition)") }
            case .closePath:
                if isPoint { throw Failure(message: "ClosePath in a point geometry at integer \(commandPosition)") }
                guard sawMoveTo else {
                    throw Failure(message: "ClosePath before any MoveTo at integer \(commandPosition)")
                }
                guard count == 1 else {
                    throw Failure(message: "ClosePath with count \(count) at integer \(commandPosition); must be 1")
                }
                continue
            }
            let needed = count * command.parametersPerRepetition
            guard integers.count - index >= needed else {
                throw Failure(message: "\(command.name) with count \(count) at integer \(commandPosition) needs \(needed) "
                    + "parameters, only \(integers.count - index) left")
            }
            for _ in 0..<count {
                x += zigZagDecode(integers[index])
                y += zigZagDecode(integers[index + 1])
                index += 2
                guard let px = Int32(exactly: x), let py = Int32(exactly: y) else {
                    throw Failure(message: "coordinate (\(x), \(y)) out of 32-bit range at integer \(index - 2)")
                }
                if command == .moveTo { endPart(&geometry) }
                geometry.points.append(TilePoint(x: px, y: py))
            }
        }
        endPart(&geometry)
        return geometry
    }

    /// Inverse of the 32-bit zigzag encoding: 0, 1, 2, 3, … → 0, -1, 1, -2, …
    @inline(__always)
    static func zigZagDecode(_ value: UInt32) -> Int64 {
        Int64(Int32(bitPattern: value >> 1) ^ (0 &- Int32(bitPattern: value & 1)))
    }
}
