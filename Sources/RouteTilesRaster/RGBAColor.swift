/// A colour as CSS writes it in a style (`#rrggbb`), with an opacity.
public struct RGBAColor: Sendable, Equatable {
    /// Red, green and blue, 0…1.
    public var red: Double, green: Double, blue: Double
    /// Opacity, 0…1.
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    /// The colour `0xRRGGBB`.
    public init(rgb: UInt32, alpha: Double = 1) {
        self.init(red: Double((rgb >> 16) & 0xFF) / 255, green: Double((rgb >> 8) & 0xFF) / 255,
                  blue: Double(rgb & 0xFF) / 255, alpha: alpha)
    }

    /// The colour of `#rrggbb` or `#rgb` (case-insensitive); nil for anything else.
    public init?(hex: some StringProtocol, alpha: Double = 1) {
        var digits: [Int] = []
        for character in hex.utf8.dropFirst() {
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(Int(character - UInt8(ascii: "0")))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(Int(character - UInt8(ascii: "a")) + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(Int(character - UInt8(ascii: "A")) + 10)
            default: return nil
            }
        }
        guard hex.first == "#" else { return nil }
        let channels: [Int]
        switch digits.count {
        case 6: channels = [digits[0] * 16 + digits[1], digits[2] * 16 + digits[3], digits[4] * 16 + digits[5]]
        case 3: channels = digits.map { $0 * 17 }
        default: return nil
        }
        self.init(red: Double(channels[0]) / 255, green: Double(channels[1]) / 255, blue: Double(channels[2]) / 255,
                  alpha: alpha)
    }

    /// `#rrggbb`, as a style writes it (the opacity is written apart).
    public var hex: String {
        func two(_ channel: Double) -> String {
            let value = Int((max(0, min(1, channel)) * 255).rounded())
            let digits = Array("0123456789abcdef")
            return String([digits[value / 16], digits[value % 16]])
        }
        return "#" + two(red) + two(green) + two(blue)
    }
}
