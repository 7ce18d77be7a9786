import RouteTilesModel

/// A GeoJSON geometry object as read, and what it yields for a route: lines, or a reason to skip it.
struct GeometryDraft: GeoJSONDraft {
    var type: String?
    var coordinates: NestedCoordinates?
    var geometries: [GeometryDraft]?
    /// The first member of the wrong JSON type, in words.
    var problem: String?

    /// The geometry types that are valid GeoJSON but not lines; features holding them are skipped and counted.
    static let otherTypes: Set<String> = ["Point", "MultiPoint", "Polygon", "MultiPolygon"]

    static func readMember(_ key: String, into draft: inout GeometryDraft,
                           from scanner: inout JSONScanner) throws(JSONSyntaxError) -> Bool {
        try scanner.readGeometryMember(key, into: &draft)
    }
}

/// What a geometry contributes to a route.
enum GeometryOutcome {
    /// One or more lines (not yet checked for length or coordinate ranges).
    case lines([[Coordinate]])
    /// A geometry that holds no lines, named by its type ("Point", "GeometryCollection").
    case skipped(String)
}

extension JSONScanner {
    /// Reads a geometry object at the current position.
    mutating func readGeometry() throws(JSONSyntaxError) -> GeometryDraft {
        var geometry = GeometryDraft()
        try readMembers(into: &geometry)
        return geometry
    }

    /// Reads the value of a `type` member: a string, or what is wrong with it.
    mutating func readTypeMember() throws(JSONSyntaxError) -> Result<String, FeatureProblem> {
        let kind = try peekKind()
        guard kind == .string else {
            try skipValue()
            return .failure(FeatureProblem("\"type\" must be a string, found \(kind.description)"))
        }
        return .success(try readString())
    }

    /// Reads the value of `key` if it is a geometry member other than `type` (`coordinates`, `geometries`); returns
    /// false, having read nothing, for any other key.
    mutating func readGeometryMember(_ key: String, into geometry: inout GeometryDraft) throws(JSONSyntaxError) -> Bool {
        switch key {
        case "coordinates":
            geometry.coordinates = try readNestedCoordinates()
        case "geometries":
            let kind = try peekKind()
            guard kind == .array else {
                geometry.note("\"geometries\" must be an array, found \(kind.description)")
                try skipValue()
                return true
            }
            var members: [GeometryDraft] = []
            var array = try enterArray()
            while try nextElement(in: &array) {
                let memberKind = try peekKind()
                if memberKind == .object {
                    members.append(try readGeometry())
                } else {
                    geometry.note("geometry \(members.count) of GeometryCollection must be an object, found "
                                      + memberKind.description)
                    try skipValue()
                    members.append(GeometryDraft())
                }
            }
            geometry.geometries = members
        default:
            return false
        }
        return true
    }
}

extension GeometryDraft {
    /// The lines this geometry holds, or the type name to count it under if it holds none.
    ///
    /// Throws when the geometry is malformed: a missing or unknown type, coordinates of the wrong shape, positions
    /// with fewer than two numbers, lines with fewer than two positions, a MultiLineString without parts.
    func outcome() throws(FeatureProblem) -> GeometryOutcome {
        if let problem { throw FeatureProblem(problem) }
        guard let type else { throw FeatureProblem("geometry has no \"type\"") }
        switch type {
        case "LineString":
            guard let coordinates else { throw FeatureProblem("LineString has no \"coordinates\"") }
            let parts = try coordinates.lines(positionLevel: 2, typeName: type, shape: "an array of positions")
            let count = parts.first?.count ?? 0
            guard count >= 2 else {
                throw FeatureProblem("LineString has \(Self.positions(count)); a route needs at least 2")
            }
            return .lines(parts)
        case "MultiLineString":
            guard let coordinates else { throw FeatureProblem("MultiLineString has no \"coordinates\"") }
            let parts = try coordinates.lines(positionLevel: 3, typeName: type,
                                              shape: "an array of arrays of positions")
            guard !parts.isEmpty else { throw FeatureProblem("MultiLineString has no parts") }
            for (index, part) in parts.enumerated() where part.count < 2 {
                throw FeatureProblem("part \(index) of MultiLineString has \(Self.positions(part.count)); "
                                         + "a route needs at least 2")
            }
            return .lines(parts)
        case "GeometryCollection":
            guard let geometries else { throw FeatureProblem("GeometryCollection has no \"geometries\"") }
            var parts: [[Coordinate]] = []
            for (index, member) in geometries.enumerated() {
                do throws(FeatureProblem) {
                    if case .lines(let lines) = try member.outcome() {
                        parts.append(contentsOf: lines)
                    }
                } catch {
                    throw FeatureProblem("geometry \(index) of GeometryCollection: \(error.message)")
                }
            }
            return parts.isEmpty ? .skipped(type) : .lines(parts)
        default:
            guard Self.otherTypes.contains(type) else {
                throw FeatureProblem("unknown geometry type '\(type)'")
            }
            return .skipped(type)
        }
    }

    private static func positions(_ count: Int) -> String {
        count == 1 ? "1 position" : "\(count) positions"
    }
}
