import RouteTilesModel

/// The `coordinates` member of a GeoJSON geometry, read before the geometry's type is known.
///
/// A geometry's members come in any order, so `coordinates` may arrive before `type`. Rather than build a tree of
/// JSON values (or scan the text twice), the scanner reads every position straight into one flat buffer and notes
/// where each enclosing array ends and how deep the positions sit. Once the type is known, `lines(positionLevel:…)`
/// cuts the buffer into parts: a LineString's positions sit at level 2 (`[[x, y], …]`), a MultiLineString's at
/// level 3. Geometries that are not lines are never interpreted, so their shape is not checked beyond JSON syntax.
struct NestedCoordinates {
    /// An array that holds arrays rather than numbers (or holds nothing).
    struct Container {
        /// 1 for the outermost array.
        var level: Int
        /// `positions.count` when the array closed.
        var end: Int
        var isEmpty: Bool
    }

    /// Every position in input order: the first two numbers of each array of numbers. Extra numbers (altitude,
    /// measure) are dropped.
    var positions: [Coordinate] = []
    /// The arrays that hold positions or other arrays, in the order they close.
    var containers: [Container] = []
    var shallowestPositionLevel = Int.max
    var deepestPositionLevel = 0
    /// The first position with fewer than two numbers or a non-number in it: its index in `positions` and what is
    /// wrong ("has 1 number").
    var badPosition: (index: Int, problem: String)?
    /// The first place where something other than an array stood where an array belongs.
    var shapeProblem: String?
}

extension JSONScanner {
    /// Reads a `coordinates` value of any nesting into a `NestedCoordinates`. Only JSON syntax errors throw; a value of
    /// the wrong shape is recorded for the geometry's type to judge.
    mutating func readNestedCoordinates() throws(JSONSyntaxError) -> NestedCoordinates {
        var nested = NestedCoordinates()
        try readNestedArray(level: 1, into: &nested)
        return nested
    }

    private mutating func readNestedArray(level: Int, into nested: inout NestedCoordinates) throws(JSONSyntaxError) {
        let kind = try peekKind()
        guard kind == .array else {
            if nested.shapeProblem == nil { nested.shapeProblem = "found \(kind.description) where an array belongs" }
            try skipValue()
            return
        }
        var array = try enterArray()
        guard try nextElement(in: &array) else {
            nested.containers.append(.init(level: level, end: nested.positions.count, isEmpty: true))
            return
        }
        if Self.startsNumber(bytes[offset]) {
            try readPosition(level: level, array: &array, into: &nested)
        } else {
            repeat {
                try readNestedArray(level: level + 1, into: &nested)
            } while try nextElement(in: &array)
            nested.containers.append(.init(level: level, end: nested.positions.count, isEmpty: false))
        }
    }

    /// Reads the rest of an array whose first element is a number: a position.
    private mutating func readPosition(level: Int, array: inout Container,
                                       into nested: inout NestedCoordinates) throws(JSONSyntaxError) {
        let longitude = try readDouble()
        var latitude = Double.nan
        var count = 1
        var nonNumber: Kind?
        while try nextElement(in: &array) {
            if Self.startsNumber(bytes[offset]) {
                let value = try readDouble()
                if count == 1 { latitude = value }
            } else {
                let kind = try peekKind()
                if nonNumber == nil { nonNumber = kind }
                try skipValue()
            }
            count += 1
        }
        if nested.badPosition == nil {
            if let nonNumber {
                nested.badPosition = (nested.positions.count, "holds \(nonNumber.description); positions hold numbers")
            } else if count < 2 {
                nested.badPosition = (nested.positions.count, "has 1 number; a position needs at least 2")
            }
        }
        nested.positions.append(Coordinate(longitude: longitude, latitude: latitude))
        nested.shallowestPositionLevel = min(nested.shallowestPositionLevel, level)
        nested.deepestPositionLevel = max(nested.deepestPositionLevel, level)
    }

    @inline(__always)
    private static func startsNumber(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10
    }
}

/// What is wrong with one feature, in words; the reader adds the file and the feature's index.
struct FeatureProblem: Error, Equatable, Sendable {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}

extension NestedCoordinates {
    /// Cuts the positions into lines, given that positions sit at `positionLevel` (2 for a LineString, 3 for a
    /// MultiLineString): one line per array at the level above. `typeName` and `shape` only word the messages.
    ///
    /// Checks the shape and that every position has two numbers; counts and ranges are the caller's to check.
    func lines(positionLevel: Int, typeName: String, shape: String) throws(FeatureProblem) -> [[Coordinate]] {
        let shapeError = FeatureProblem("\(typeName) coordinates must be \(shape)")
        if let shapeProblem {
            throw FeatureProblem("\(shapeError.message); \(shapeProblem)")
        }
        if !positions.isEmpty,
           shallowestPositionLevel != positionLevel || deepestPositionLevel != positionLevel {
            throw shapeError
        }
        var ends: [Int] = []
        for container in containers {
            if container.level == positionLevel - 1 {
                ends.append(container.end)
            } else if container.level == positionLevel && container.isEmpty {
                // Containers close in order, so the part this empty position belongs to is the next one to close.
                let start = ends.last ?? 0
                throw FeatureProblem("coordinate \(container.end - start) of part \(ends.count) is empty; "
                                         + "a position needs at least 2 numbers")
            } else if container.level >= positionLevel {
                throw shapeError
            }
        }
        if let badPosition {
            var start = 0
            for (part, end) in ends.enumerated() {
                if badPosition.index < end {
                    throw FeatureProblem("coordinate \(badPosition.index - start) of part \(part) "
                                             + badPosition.problem)
                }
                start = end
            }
            throw FeatureProblem("position \(badPosition.index) \(badPosition.problem)")
        }
        if ends.count == 1 { return [positions] }
        var parts: [[Coordinate]] = []
        parts.reserveCapacity(ends.count)
        var start = 0
        for end in ends {
            parts.append(Array(positions[start..<end]))
            start = end
        }
        return parts
    }
}
