@_spi(Columns) import RouteTilesModel

extension ProjectedRouteSet {
    /// The set with `points` added to the end of its last line, as if that line had held them from the start:
    /// the same unwrapping across ±180°, map points, distances and bounds as `init(routes:)` gives the longer line.
    /// `previous` is the line's last position as it was read (before unwrapping). Nil when the set has no line.
    /// `times` (seconds since 1970, one per point) extend the times of a route that has them; a route with times
    /// given none repeats its last time, so that its times never go back.
    ///
    /// Costs the new points: the columns are shared with this set, which stays valid for its readers (see
    /// `SharedColumn`); only the small per-line and per-route arrays are copied.
    package func appending(_ points: [Coordinate], times pointTimes: [Double]? = nil,
                           after previous: Coordinate) -> ProjectedRouteSet? {
        guard let lastVertex = xs.indices.last, lineCount > 0, var info = routeInfos.last else { return nil }
        var set = self
        let line = lineCount - 1
        // The unwrapping offset of the last vertex is a whole number of turns: recover it exactly.
        let unwrappedLongitude = xs[lastVertex] / WebMercator.worldSize * 360 - 180
        var offset = ((unwrappedLongitude - previous.longitude) / 360).rounded() * 360
        var last = Coordinate(longitude: previous.longitude + offset, latitude: previous.latitude)
        var travelled = distances[lastVertex]
        var south = self.south, north = self.north
        for point in points {
            offset = AntimeridianUnwrap.nextOffset(offset, longitude: point.longitude, after: last.longitude)
            let c = Coordinate(longitude: point.longitude + offset, latitude: point.latitude)
            travelled += GeodesicDistance.metres(last, c)
            last = c
            let p = WebMercator.project(c)
            set.xs.append(p.x)
            set.ys.append(p.y)
            set.distances.append(travelled)
            set.bounds.formUnion(p)
            south = min(south, c.latitude)
            north = max(north, c.latitude)
        }
        if info.hasTimes, self.times.count > 0 {
            var last = self.times[self.times.count - 1]
            let given = pointTimes.flatMap { $0.count == points.count ? $0 : nil }
            for k in points.indices {
                if let given, !given[k].isNaN { last = max(given[k], last) }
                set.times.append(last)
            }
        } else if self.times.count > 0 {
            for _ in points { set.times.append(.nan) }
        }
        set.lineStarts[line + 1] = set.xs.count
        info.lengthMetres = travelled
        set.routeInfos[set.routeInfos.count - 1] = info
        set.south = south
        set.north = north
        set.geographicBounds = Self.geographicBounds(of: set.bounds, south: south, north: north)
        return set
    }
}
