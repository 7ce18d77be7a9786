import RouteTilesTiling

/// What a pyramid build did.
public struct BuildStatistics: Sendable, Equatable {
    /// Tiles written per zoom.
    public var tilesPerZoom: [Int: Int] = [:]
    /// Compressed bytes written per zoom.
    public var bytesPerZoom: [Int: Int] = [:]
    /// The largest tile written per zoom, in compressed bytes.
    public var largestPerZoom: [Int: Int] = [:]
    /// Not counted: nothing sets it (the pyramid builder leaves it 0), so it is not public API.
    package var features: Int = 0
    /// Tiles whose spans were cut (written or found empty).
    public var tilesVisited: Int = 0
    /// Per zoom, the tiles brought within the byte budget and what that took (zooms with none are absent).
    public var reductionsPerZoom: [Int: ZoomReductions] = [:]

    /// Statistics of a build that has written nothing yet.
    public init() {}

    /// Tiles written at every zoom.
    public var tiles: Int { tilesPerZoom.values.reduce(0, +) }
    /// Compressed bytes written at every zoom.
    public var bytes: Int { bytesPerZoom.values.reduce(0, +) }

    /// Adds the counts of `other`, such as another worker's or another shard's, to these.
    public mutating func merge(_ other: BuildStatistics) {
        tilesPerZoom.merge(other.tilesPerZoom, uniquingKeysWith: +)
        bytesPerZoom.merge(other.bytesPerZoom, uniquingKeysWith: +)
        largestPerZoom.merge(other.largestPerZoom, uniquingKeysWith: max)
        features += other.features
        tilesVisited += other.tilesVisited
        reductionsPerZoom.merge(other.reductionsPerZoom) { var a = $0; a.merge($1); return a }
    }
}

/// A snapshot for progress reports, taken while a build runs.
public struct BuildProgress: Sendable {
    /// Tiles written so far.
    public var tilesWritten: Int
    /// Tiles cut so far, including those found empty.
    public var tilesVisited: Int
    /// The deepest zoom a worker has reached so far.
    public var zoom: Int
}
