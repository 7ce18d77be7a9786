import RouteTilesModel

/// Point features of a GeoJSON sequence or NDJSON stream, read as the fixes of tracks (`--points-as-tracks`):
/// tracktable-style streams of one timed point per line.
///
/// Each Point feature's time is its property `time`, `timestamp` or `t` (ISO 8601 or Unix seconds). Points are
/// grouped into routes by the route column (`ReadOptions.routeColumn`, else the property `route`, `id` or
/// `object_id`, else the feature's id; without any, the whole stream is one route), routes in order of first
/// appearance, positions in stream order, or in time order with `ReadOptions.orderByTime`. A route's times are
/// used as `TimesDraft` rules: on every point, never going back (unless put in time order); else the route is read
/// without them, or under `TimesRule.strict` that is an error.
struct PointTracks {
    /// The property names a point's time is read from, in order of preference.
    static let timeKeys = ["time", "timestamp", "t"]
    /// The property names that group points into routes without `--route-column`, in order of preference.
    static let routeKeys = ["route", "id", "object_id"]

    /// The points of one route so far.
    private struct Track {
        var id: RouteID?
        var key: String
        var property: Property?
        var firstLine: Int
        var points: [Coordinate] = []
        var times: TimesDraft
        var isInvalid = false
    }

    let file: String
    let options: ReadOptions
    private var tracks: [Track] = []
    private var trackIndex: [String: Int] = [:]
    private var invalid: [InputError] = []

    init(file: String, options: ReadOptions) {
        self.file = file
        self.options = options
    }

    /// Takes the record starting on `line` when it is a Point feature, and returns whether it was one (anything
    /// else, malformed JSON included, is left to the GeoJSON reader). A time that cannot be read drops its route's
    /// times, or under `--times strict` throws, or with `--skip-invalid` too makes the point's route invalid.
    mutating func take(_ record: ArraySlice<UInt8>, line: Int) throws -> Bool {
        guard options.pointsAsTracks else { return false }
        let draft: FeatureDraft? = record.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer)
            scanner.skipWhitespace()
            guard (try? scanner.peekKind()) == .object, let feature = try? scanner.readFeature(),
                  (try? scanner.finish()) != nil else { return nil }
            return feature
        }
        guard let draft, draft.problem == nil, draft.type == "Feature", let geometry = draft.geometry,
              geometry.problem == nil, geometry.type == "Point", let coordinates = geometry.coordinates,
              coordinates.badPosition == nil, coordinates.shapeProblem == nil, coordinates.positions.count == 1,
              coordinates.deepestPositionLevel == 1 else { return false }
        let position = coordinates.positions[0]
        let location = InputError.Location.line(line, column: nil)
        let index = track(of: draft, line: line)
        guard !tracks[index].isInvalid else { return true }
        do throws(InputError) {
            if let problem = CoordinateLimits.problem(with: position) {
                throw InputError(file: file, location: location, message: "Point: \(problem)")
            }
            var time: Int64?
            if options.keepsTimes {
                do throws(InputError) {
                    time = try self.time(of: draft.properties, at: location)
                } catch {
                    try tracks[index].times.unusable(error)
                }
            }
            tracks[index].points.append(position)
            tracks[index].times.add(time, at: location)
        } catch {
            guard options.skipInvalid else { throw error }
            invalid.append(error)
            tracks[index].isInvalid = true
        }
        return true
    }

    /// The point's time, from the first of `timeKeys` it has.
    private func time(of properties: [Property], at location: InputError.Location) throws(InputError) -> Int64? {
        guard let property = properties.first(where: { Self.timeKeys.contains($0.key) }) else { return nil }
        let path = "properties.\(property.key)"
        switch property.value {
        case .string(let text):
            do {
                return try TimeValue.parse(textOrSeconds: text, zoneless: options.timeZone)
            } catch {
                throw InputError(file: file, location: location, message: TimesDraft.message(error, what: path + ":"))
            }
        case .int(let number): return try seconds(Double(number), text: "\(number)", path: path, at: location)
        case .uint(let number): return try seconds(Double(number), text: "\(number)", path: path, at: location)
        case .double(let number): return try seconds(number, text: "\(number)", path: path, at: location)
        case .bool:
            throw InputError(file: file, location: location,
                             message: "\(path) must be ISO 8601 text or Unix seconds, found a boolean")
        }
    }

    private func seconds(_ value: Double, text: String, path: String,
                         at location: InputError.Location) throws(InputError) -> Int64 {
        guard let time = TimeValue.seconds(value) else {
            throw InputError(file: file, location: location,
                             message: "\(path): \(text) is not Unix seconds within 1970-01-01 to 9999-12-31")
        }
        return time
    }

    /// The track a point belongs to, made on its first point.
    private mutating func track(of feature: FeatureDraft, line: Int) -> Int {
        let wanted = options.routeColumn.map { [$0] } ?? Self.routeKeys
        var key = ""
        var id: RouteID?
        var property: Property?
        if let found = wanted.lazy.compactMap({ name in feature.properties.first(where: { $0.key == name }) }).first {
            property = found
            switch found.value {
            case .string(let text): key = text; id = .string(text)
            case .int(let number) where number >= 0: key = "\(number)"; id = .number(UInt64(number))
            case .uint(let number): key = "\(number)"; id = .number(number)
            case .int(let number): key = "\(number)"; id = .string(key)
            case .double(let number): key = "\(number)"; id = .string(key)
            case .bool(let flag): key = "\(flag)"; id = .string(key)
            }
        } else if options.routeColumn == nil, let featureID = feature.id {
            id = featureID
            switch featureID {
            case .number(let number): key = "\(number)"
            case .string(let text): key = text
            }
        }
        if let index = trackIndex[key] { return index }
        tracks.append(Track(id: id, key: key, property: property, firstLine: line,
                            times: TimesDraft(file: file, noun: "point", rule: options.times)))
        trackIndex[key] = tracks.count - 1
        return tracks.count - 1
    }

    /// The routes the points made, with what was left out; throws the first problem unless `--skip-invalid`.
    func result() throws(InputError) -> ReadResult {
        var result = ReadResult(invalid: invalid)
        for track in tracks where !track.isInvalid {
            let name = track.key.isEmpty ? "the route of points" : "route '\(track.key)'"
            do throws(InputError) {
                guard track.points.count >= 2 else {
                    throw InputError(file: file, location: .line(track.firstLine, column: nil),
                                     message: "\(name) has 1 point; a route needs at least 2")
                }
                var points = track.points
                let finished = try track.times.finish(reordering: &points, byTime: options.orderByTime)
                if let dropped = finished.dropped { result.droppedTimes.append(dropped) }
                result.routes.append(Route(id: track.id, properties: track.property.map { [$0] } ?? [],
                                           parts: [points], origin: "\(file) line \(track.firstLine)",
                                           geodesic: options.geodesic, times: finished.times))
            } catch {
                guard options.skipInvalid else { throw error }
                result.invalid.append(error)
            }
        }
        return result
    }
}
