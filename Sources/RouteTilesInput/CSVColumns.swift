import RouteTilesModel

/// Which fields of a row hold the latitude, the longitude, the route key and the time, found from the header.
struct CSVColumns {
    static let latitudeNames = ["lat", "latitude"]
    static let longitudeNames = ["lon", "lng", "long", "longitude"]
    /// `object_id` is tracktable's name for it.
    static let routeNames = ["route", "id", "object_id"]
    static let timeNames = ["time", "timestamp", "datetime"]

    var count: Int
    var latitude: Int
    var longitude: Int
    var route: Int?
    /// Nil without a time column, or when times are not read (`--times ignore`, `--time-column none`).
    var time: Int?
    /// The time column was found by its name (`time`, `timestamp`, `datetime`), not named by the options.
    var timeDetected = false

    /// Header names are compared trimmed and lowercased.
    static func normalized(_ name: String) -> String {
        name.trimmingSpaces().lowercased()
    }

    init(header: [String], options: ReadOptions, file: String, line: Int) throws(InputError) {
        let names = header.map(Self.normalized)
        func find(_ candidates: [String]) -> Int? {
            for candidate in candidates {
                if let index = names.firstIndex(of: candidate) { return index }
            }
            return nil
        }
        func missing(_ candidates: [String]) -> InputError {
            let quoted = candidates.map { "'\($0)'" }
            let wanted = quoted.count > 1 ? quoted.dropLast().joined(separator: ", ") + " or " + (quoted.last ?? "")
                                          : quoted.joined()
            let found = header.map { $0.trimmingSpaces() }.joined(separator: ", ")
            return InputError(file: file, location: .line(line, column: nil),
                              message: "missing column: no \(wanted) in header (found: \(found))")
        }
        let latitudeNames = options.latColumn.map { [Self.normalized($0)] } ?? Self.latitudeNames
        let longitudeNames = options.lonColumn.map { [Self.normalized($0)] } ?? Self.longitudeNames
        guard let latitude = find(latitudeNames) else { throw missing(latitudeNames) }
        guard let longitude = find(longitudeNames) else { throw missing(longitudeNames) }
        if let routeColumn = options.routeColumn {
            let wanted = [Self.normalized(routeColumn)]
            guard let route = find(wanted) else { throw missing(wanted) }
            self.route = route
        } else {
            route = find(Self.routeNames)
        }
        if !options.keepsTimes {
            time = nil
        } else if let timeColumn = options.timeColumn {
            let wanted = [Self.normalized(timeColumn)]
            if wanted == ["none"] {
                time = nil
            } else {
                guard let time = find(wanted) else { throw missing(wanted) }
                self.time = time
            }
        } else {
            time = find(Self.timeNames)
            timeDetected = time != nil
        }
        count = header.count
        self.latitude = latitude
        self.longitude = longitude
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
