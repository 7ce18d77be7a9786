import RouteTilesModel

/// Reads the points appended to a live route: a JSON array of `[longitude, latitude]` positions, as in a GeoJSON
/// LineString's `coordinates` (one position is enough; extra numbers, altitude, are dropped), or of fix objects
/// with times (`FixObjectList`: `[{"lon": …, "lat": …, "t": "2026-11-27T14:05:00Z"}, …]`).
package enum PositionListReader {
    /// The positions of one point list that the glitch filters kept (with their times, when the list has them), and
    /// how many they dropped.
    package struct PositionList: Sendable {
        package var points: [Coordinate]
        package var times: [Int64]?
        package var dropped = FixFilter.Dropped()
    }

    package static func read(_ bytes: [UInt8], file: String) throws -> [Coordinate] {
        try read(bytes, file: file, filter: FixFilter()).points
    }

    /// The point list, less the fixes `filter` drops (which may be all of them). A time after `latest` is refused.
    package static func read(_ bytes: [UInt8], file: String, filter: FixFilter, latest: Int64? = nil) throws -> PositionList {
        try bytes.withUnsafeBufferPointer { buffer throws -> PositionList in
            var scanner = JSONScanner(bytes: buffer)
            let list: Result<PositionList, Problem>
            do throws(JSONSyntaxError) {
                list = try readList(&scanner, filter: filter, latest: latest)
                try scanner.finish()
            } catch {
                throw error.inputError(file: file, in: buffer)
            }
            switch list {
            case let .success(line): return line
            case let .failure(problem): throw InputError(file: file, message: problem.message)
            }
        }
    }

    /// One point list at the scanner: positions, or fix objects.
    private static func readList(_ scanner: inout JSONScanner, filter: FixFilter,
                                 latest: Int64?) throws(JSONSyntaxError) -> Result<PositionList, Problem> {
        scanner.skipWhitespace()
        if FixObjectList.startsWithObject(scanner.bytes, at: scanner.offset) {
            switch FixObjectList.read(try scanner.readValue(), latest: latest) {
            case let .success((points, times)): return kept(points, times: times, filter: filter)
            case let .failure(problem): return .failure(problem)
            }
        }
        return positions(try scanner.readNestedCoordinates(), filter: filter)
    }

    /// What is wrong with one point list.
    package struct Problem: Error, Sendable {
        package var message: String
    }

    /// The positions of one point list less those `filter` drops, or what is wrong with them.
    private static func positions(_ nested: NestedCoordinates, filter: FixFilter) -> Result<PositionList, Problem> {
        let line: [Coordinate]
        do throws(FeatureProblem) {
            // Wrapped as one part so that the shape rules of a LineString apply.
            line = try nested.lines(positionLevel: 2, typeName: "the point list", shape: "an array of [longitude, latitude] positions").first ?? []
        } catch {
            return .failure(Problem(message: error.message))
        }
        return kept(line, times: nil, filter: filter)
    }

    /// The positions (and times) less those `filter` drops, or the first out of range.
    private static func kept(_ points: [Coordinate], times: [Int64]?, filter: FixFilter) -> Result<PositionList, Problem> {
        var line = points
        var times = times
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
        let dropped = filter.filter(&line, times: &times)
        return .success(PositionList(points: line, times: times, dropped: dropped))
    }

    /// The points appended to many routes at once: a JSON object whose members map route ids to point lists,
    /// `{"veh-1": [[lon, lat], …], "veh-2": […]}`, in the object's order. A point list that is not one (or holds
    /// a position out of range) is that id's problem; a body that is not such an object throws, naming the line
    /// and column, and so does an id given twice (which of its lists was meant cannot be told) or an empty id.
    package static func readBatch(_ bytes: [UInt8], file: String, filter: FixFilter = FixFilter(),
                                  latest: Int64? = nil) throws -> [(key: String, points: Result<PositionList, Problem>)] {
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
                    // The document's propertyNames: minLength 1. An empty id names no route: the whole body is refused.
                    guard !key.isEmpty else { throw scanner.error("a route id is empty; an id has at least one character", at: at) }
                    let list = try readList(&scanner, filter: filter, latest: latest)
                    guard seen.insert(key).inserted else {
                        throw scanner.error("route id '\(key)' is given twice", at: at)
                    }
                    lists.append((key, list))
                }
                try scanner.finish()
            } catch {
                throw error.inputError(file: file, in: buffer)
            }
            return lists
        }
    }
}
