/// What was done to one tile to bring it within its byte budget (`TilingOptions.maxTileBytes`).
///
/// The steps come in order, and each is taken only when the one before did not fit: lines that land on the same
/// pixels are drawn once as merged features with `count`, on a grid of one pixel first (`gridPixels` 1); then on
/// coarser grids (2, 4 … pixels: less detail, as tippecanoe lowers its detail); then the least visible merged lines
/// are left out (`droppedLines`), and last, points are thinned (`droppedPoints`).
public struct TileReduction: Sendable, Equatable {
    /// The side of a merging cell in pixels of a 512-pixel tile: 1 when merging alone was enough.
    public var gridPixels: Int
    /// Line features in the tile as cut.
    public var linesBefore: Int
    /// Line features in the tile as written.
    public var linesAfter: Int
    /// Merged lines (chains of cells) left out as least visible.
    public var droppedLines: Int
    /// Point features left out.
    public var droppedPoints: Int

    public init(gridPixels: Int, linesBefore: Int, linesAfter: Int, droppedLines: Int = 0, droppedPoints: Int = 0) {
        self.gridPixels = gridPixels
        self.linesBefore = linesBefore
        self.linesAfter = linesAfter
        self.droppedLines = droppedLines
        self.droppedPoints = droppedPoints
    }

    /// Whether anything was left out, not just merged or drawn coarser.
    public var dropped: Bool { droppedLines > 0 || droppedPoints > 0 }
}

/// The reductions of one zoom of a build, as `tiles.json` and the build's summary report them.
public struct ZoomReductions: Sendable, Equatable, Encodable {
    /// Tiles over the budget as cut, brought within it.
    public var tiles: Int = 0
    /// Of those, the tiles that needed a grid coarser than one pixel.
    public var coarsened: Int = 0
    /// Of those, the tiles where lines or points were left out.
    public var dropped: Int = 0
    /// The coarsest merging grid used at this zoom, in pixels of a 512-pixel tile.
    public var maxGridPixels: Int = 0
    /// Line features as cut and as written, summed over the reduced tiles.
    public var linesBefore: Int = 0
    public var linesAfter: Int = 0
    /// Merged lines and points left out, summed.
    public var droppedLines: Int = 0
    public var droppedPoints: Int = 0

    public init() {}

    /// Counts one reduced tile.
    public mutating func add(_ reduction: TileReduction) {
        tiles += 1
        if reduction.gridPixels > 1 { coarsened += 1 }
        if reduction.dropped { dropped += 1 }
        maxGridPixels = max(maxGridPixels, reduction.gridPixels)
        linesBefore += reduction.linesBefore
        linesAfter += reduction.linesAfter
        droppedLines += reduction.droppedLines
        droppedPoints += reduction.droppedPoints
    }

    /// Adds the counts of `other` (another worker's, another shard's).
    public mutating func merge(_ other: ZoomReductions) {
        tiles += other.tiles
        coarsened += other.coarsened
        dropped += other.dropped
        maxGridPixels = max(maxGridPixels, other.maxGridPixels)
        linesBefore += other.linesBefore
        linesAfter += other.linesAfter
        droppedLines += other.droppedLines
        droppedPoints += other.droppedPoints
    }

    enum CodingKeys: String, CodingKey {
        case tiles, coarsened, dropped
        case maxGridPixels = "max_grid_px"
        case linesBefore = "lines_before"
        case linesAfter = "lines_after"
        case droppedLines = "dropped_lines"
        case droppedPoints = "dropped_points"
    }
}
