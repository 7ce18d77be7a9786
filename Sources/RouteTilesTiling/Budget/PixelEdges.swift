import RouteTilesModel

/// The lines of one layer drawn on a grid of square cells (pixels, or blocks of pixels), as steps between
/// neighbouring cells, each step counting the routes drawn through it.
///
/// A line is walked cell by cell (an 8-connected Bresenham walk from the cell of each vertex to the cell of the
/// next), so that two routes drawn on the same pixels take the same steps, whatever their vertices. A step is
/// stored once, at the cell it leaves going east, south-east, south or south-west; the grid is dense (four slots a
/// cell over the buffered tile), which keeps the walk free of hashing and every later pass in one fixed order.
struct PixelEdges {
    /// The side of a cell in tile units.
    let cellUnits: Int32
    /// The cell coordinate of the grid's first column and row (the buffer's, negative).
    let origin: Int32
    /// Columns and rows of the grid.
    let width: Int32
    /// Per step slot (`cell * 4 + direction`): the routes drawn through it, 0 for none.
    var counts: [UInt32]
    /// Per step slot: the last route that counted it (the only one when its count is 1).
    var lastRoute: [Int32]
    /// Parts that lie in one cell and take no step (a stub at this grid), as (cell, route).
    var dots: [(cell: Int, route: Int32)] = []

    /// The steps east, south-east, south and south-west, the four stored at the cell they leave.
    static let steps: [(dx: Int32, dy: Int32)] = [(1, 0), (1, 1), (0, 1), (-1, 1)]

    /// An empty grid of cells of `cellUnits` tile units over a tile of `extent` units with `buffer` units beyond
    /// each edge.
    init(cellUnits: Int32, extent: Int32, buffer: Int32) {
        self.cellUnits = cellUnits
        origin = Self.floorDiv(-buffer, cellUnits) - 1
        width = Self.floorDiv(extent + buffer, cellUnits) + 2 - origin
        counts = Array(repeating: 0, count: Int(width) * Int(width) * 4)
        lastRoute = Array(repeating: -1, count: counts.count)
    }

    static func floorDiv(_ a: Int32, _ b: Int32) -> Int32 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// The grid cell (column, row, from `origin`) of a point in tile units, clamped into the grid.
    @inline(__always)
    func cell(of point: TilePoint) -> (Int32, Int32) {
        let limit = width - 1
        return (min(max(Self.floorDiv(point.x, cellUnits) - origin, 0), limit),
                min(max(Self.floorDiv(point.y, cellUnits) - origin, 0), limit))
    }

    /// The centre of cell (column, row) in tile units.
    @inline(__always)
    func centre(_ column: Int32, _ row: Int32) -> TilePoint {
        TilePoint(x: (column + origin) * cellUnits + cellUnits / 2, y: (row + origin) * cellUnits + cellUnits / 2)
    }

    /// The slot of the step between neighbouring cells a and b (in either order).
    @inline(__always)
    func slot(_ ax: Int32, _ ay: Int32, _ bx: Int32, _ by: Int32) -> Int {
        var (x, y, dx, dy) = (ax, ay, bx - ax, by - ay)
        if dy < 0 || (dy == 0 && dx < 0) { (x, y, dx, dy) = (bx, by, -dx, -dy) }
        let direction = dy == 0 ? 0 : dx == 1 ? 1 : dx == 0 ? 2 : 3
        return (Int(y) * Int(width) + Int(x)) * 4 + direction
    }

    /// Draws the parts of `geometry` for route `route`: each step it takes counts the route once, however often
    /// the route passes it. The routes of a layer must be drawn one after the other (all of a route's features
    /// together), as the cutter writes them.
    mutating func draw(_ geometry: TileGeometry, route: Int32) {
        var start = 0
        for end in geometry.partEnds {
            guard end - start >= 2 else { start = end; continue }
            var (x, y) = cell(of: geometry.points[start])
            let (x0, y0) = (x, y)
            var moved = false
            for i in (start + 1)..<end {
                let (tx, ty) = cell(of: geometry.points[i])
                moved = moved || tx != x || ty != y
                walk(from: &x, &y, to: tx, ty, route: route)
            }
            if !moved { dots.append((Int(y0) * Int(width) + Int(x0), route)) }
            start = end
        }
    }

    /// An 8-connected Bresenham walk from cell (x, y) to (tx, ty), counting each step for `route`.
    private mutating func walk(from x: inout Int32, _ y: inout Int32, to tx: Int32, _ ty: Int32, route: Int32) {
        let dx = abs(tx - x), dy = abs(ty - y)
        let sx: Int32 = tx > x ? 1 : -1, sy: Int32 = ty > y ? 1 : -1
        var error = dx - dy
        while x != tx || y != ty {
            let e2 = 2 * error
            var nx = x, ny = y
            if e2 > -dy { error -= dy; nx += sx }
            if e2 < dx { error += dx; ny += sy }
            let s = slot(x, y, nx, ny)
            if lastRoute[s] != route {
                counts[s] &+= 1
                lastRoute[s] = route
            }
            x = nx
            y = ny
        }
    }
}
