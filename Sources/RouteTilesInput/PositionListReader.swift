import RouteTilesModel

/// Reads the points appended to a live route: a JSON array of `[longitude, latitude]` positions, as in a GeoJSON
/// LineString's `coordinates` (one position is enough). Extra numbers (altitude) are dropped.
package enum PositionListReader {
    /// The positions of one point list that the glitch filters kept, and how many they dropped.
    package struct PositionList: Sendable {
        package var points: [Coordinate]
        package var dropped = FixFilter.Dropped()
    }

    package static func read(_ bytes: [UInt8], file: String) throws -> [Coordinate] {
        try read(bytes, file: file, filter: FixFilter()).points
    }

    /// The point list, less the fixes `filter` drops (which may be all of them).
    package static func read(_ bytes: [UInt8], file: String, filter: FixFilter) throws -> PositionList {
        try bytes.withUnsafeBufferPointer { buffer throws -> PositionList in
            var scanner = JSONScanner(bytes: buffer)
            let nested: NestedCoordinates
            do throws(JSONSyntaxError) {
                scanner.skipWhitespace()
                nested = try scanner.readNestedCoordinates()
                try scanner.finish()
            } catch {
                throw error.inputError(file: file, in: buffer)
            }
            switch positions(nested, filter: filter) {
            case let .success(line): return line
            case let .failure(problem): throw InputError(file: file, message: problem.message)
            }
        }
    }

    /// What is wrong with one point list.
    package struct Problem: Error, Sendable {
        package var message: String
    }

    /// The positions of one point list less those `filter` drops, or what is wrong with them.
    private static func positions(_ nested: NestedCoordinates, filter: FixFilter) -> Result<PositionList, Problem> {
        var line: [Coordinate]
        do throws(FeatureProblem) {
            // Wrapped as one part so that the shape rules of a LineString apply.
            line = try nested.lines(positionLevel: 2, typeName: "the point list", shape: "an array of [longitude, latitude] positions").first ?? []
        } catch {
            return .failure(Problem(message: error.message))
        }
        guard !line.isEmpty else { return .failure(Problem(message: "the point list is empty")) }
        // Checked before the filters, so that positions are numbered as sent; with `dropInvalid`, the filter takes
        // every position that this would refuse (and more: longitudes past ±180°).
        if !filter.dropInvalid {
            for (i, c) in line.enumerated() {
                if let problem = CoordinateLimits.problem(with: c) {
                    return .failure(Problem(message: "position \(i): \(problem)"))
                }
            }
        }
        let dropped = filter.filter(&line)
        return .success(PositionList(points: line, dropped: dropped))
    }

    /// The points appended to many routes at once: a JSON object whose members map route ids to point lists,
    /// `{"veh-1": [[lon, lat], …], "veh-2": […]}`, in the object's order. A point list that is not one (or holds
    /// a position out of range) is that id's problem; a body that is not such an object throws, naming the line
    /// and column, and so does an id given twice (which of its lists was meant cannot be told).
    package static func readBatch(_ bytes: [UInt8], file: String,
                                  filter: FixFilter = FixFilter()) throws -> [(key: String, points: Result<PositionList, Problem>)] {
        try bytes.withUnsafeBufferPointer { buffer throws -> [(key: String, points: Result<PositionList, Problem>)] in
            var scanner = JSONScanner(bytes: buffer)
            var lists: [(key: String, points: Result<PositionList, Problem>)] = []
            var seen = Set<String>()
            do throws(JSONSyntaxError) {
                scanner.skipWhitespace()
                guard try scanner.peekKind() == .object else {
                    throw scanner.error("expected an object mapping route ids to point lists, found \(scanner.found(scanner.offset))")
                }
                var object = try scanner.enterObject()
                while let key = try scanner.nextKey(in: &object) {
                    let at = scanner.offset
                    let nested = try scanner.readNestedCoordinates()
                    guard seen.insert(key).inserted else {
                        throw scanner.error("route id '\(key)' is given twice", at: at)
                    }
                    lists.append((key, positions(nested, filter: filter)))
                }
                try scanner.finish()
            } catch {
                throw error.inputError(file: file, in: buffer)
            }
            return lists
        }
    }
}
