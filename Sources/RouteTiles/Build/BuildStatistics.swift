/// What a pyramid build did.
public struct BuildStatistics: Sendable, Equatable {
    /// Tiles written per zoom.
    public var tilesPerZoom: [Int: Int] = [:]
    /// Compressed bytes written per zoom.
    public var bytesPerZoom: [Int: Int] = [:]
    public var features: Int = 0
    /// Tiles whose spans were cut (written or found empty).
    public var tilesVisited: Int = 0

    public init() {}

    public var tiles: Int { tilesPerZoom.values.reduce(0, +) }
    public var bytes: Int { bytesPerZoom.values.reduce(0, +) }

    public mutating func merge(_ other: BuildStatistics) {
        tilesPerZoom.merge(other.tilesPerZoom, uniquingKeysWith: +)
        bytesPerZoom.merge(other.bytesPerZoom, uniquingKeysWith: +)
        features += other.features
        tilesVisited += other.tilesVisited
    }
}

/// A snapshot for progress reports, taken while a build runs.
public struct BuildProgress: Sendable {
    public var tilesWritten: Int
    public var tilesVisited: Int
    /// The deepest zoom a worker has reached so far.
    public var zoom: Int
}
