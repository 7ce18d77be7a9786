/// The drawing commands of an MVT 2.1 geometry (§4.3.1): a command integer packs the command id in its low three bits
/// and the number of times it repeats in the remaining 29 bits.
enum GeometryCommand: UInt32, Sendable {
    case moveTo = 1
    case lineTo = 2
    case closePath = 7

    /// The largest repeat count a command integer can carry.
    static let maximumCount = (1 << 29) - 1

    /// `(id & 0x7) | (count << 3)`. `count` must lie in `0...maximumCount`.
    @inline(__always)
    func integer(count: Int) -> UInt32 {
        (rawValue & 0x7) | (UInt32(truncatingIfNeeded: count) << 3)
    }

    /// The name the specification uses.
    var name: String {
        switch self {
        case .moveTo: return "MoveTo"
        case .lineTo: return "LineTo"
        case .closePath: return "ClosePath"
        }
    }

    /// The number of parameter integers that follow the command integer for each repetition.
    var parametersPerRepetition: Int {
        switch self {
        case .moveTo, .lineTo: return 2
        case .closePath: return 0
        }
    }
}
