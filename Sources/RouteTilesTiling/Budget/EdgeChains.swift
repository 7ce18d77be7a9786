import RouteTilesModel

/// One line of a merged layer: consecutive grid steps of the same kind, from a cell where the kind's lines end,
/// meet or fork to the next such cell (or round a loop).
struct EdgeChain {
    /// What the steps share: `-count` for steps that several routes take (count ≥ 2), or the route's index for
    /// steps that one route takes alone.
    var kind: Int64
    /// The chain's points, simplified, in tile units.
    var points: [TilePoint]
    /// Its length in grid steps, before simplification: how much of the map it draws.
    var steps: Int
    /// How many routes draw it.
    var count: Int
}

extension PixelEdges {
    /// The kind of step slot `s`: nil when no route takes it.
    @inline(__always)
    func kind(_ s: Int) -> Int64? {
        let count = counts[s]
        if count == 0 { return nil }
        return count >= 2 ? -Int64(count) : Int64(lastRoute[s])
    }

    /// The step slots at cell (x, y) and the neighbour each leads to.
    @inline(__always)
    func incident(_ x: Int32, _ y: Int32, _ body: (Int, Int32, Int32) -> Void) {
        let here = (Int(y) * Int(width) + Int(x)) * 4
        for (d, step) in Self.steps.enumerated() {
            let nx = x + step.dx, ny = y + step.dy
            if nx >= 0, nx < width, ny < width { body(here + d, nx, ny) }
            let px = x - step.dx, py = y - step.dy
            if px >= 0, px < width, py >= 0 { body((Int(py) * Int(width) + Int(px)) * 4 + d, px, py) }
        }
    }

    /// How many steps of `kind` meet at cell (x, y).
    func degree(_ x: Int32, _ y: Int32, kind: Int64) -> Int {
        var n = 0
        incident(x, y) { s, _, _ in if self.kind(s) == kind { n += 1 } }
        return n
    }

    /// The steps joined into chains, in a fixed order (by slot), each simplified with `tolerance` tile units.
    func chains(tolerance: Double) -> [EdgeChain] {
        var used = [Bool](repeating: false, count: counts.count)
        var chains: [EdgeChain] = []
        let squared = tolerance * tolerance
        func walk(_ x0: Int32, _ y0: Int32, first s: Int, to x1: Int32, _ y1: Int32, kind k: Int64) {
            used[s] = true
            var cells = [centre(x0, y0), centre(x1, y1)]
            var (x, y) = (x1, y1)
            while degree(x, y, kind: k) == 2, !(x == x0 && y == y0) {
                var next: (Int, Int32, Int32)?
                incident(x, y) { t, nx, ny in if next == nil, !used[t], self.kind(t) == k { next = (t, nx, ny) } }
                guard let (t, nx, ny) = next else { break }
                used[t] = true
                cells.append(centre(nx, ny))
                (x, y) = (nx, ny)
            }
            let count = Int(counts[s])
            chains.append(EdgeChain(kind: k, points: ChainSimplifier.simplify(cells, squaredTolerance: squared),
                                    steps: cells.count - 1, count: count))
        }
        // Chains with an end: start at the cell where they end.
        for s in counts.indices where counts[s] > 0 && !used[s] {
            let k = Int64(kind(s) ?? 0)
            let cell = s / 4, step = Self.steps[s % 4]
            let ax = Int32(cell % Int(width)), ay = Int32(cell / Int(width))
            let bx = ax + step.dx, by = ay + step.dy
            if degree(ax, ay, kind: k) != 2 {
                walk(ax, ay, first: s, to: bx, by, kind: k)
            } else if degree(bx, by, kind: k) != 2 {
                walk(bx, by, first: s, to: ax, ay, kind: k)
            }
        }
        // Parts within one cell, where no line passes: a stub one unit long, counting the routes that have one there.
        var k = 0
        let dots = self.dots.sorted { ($0.cell, $0.route) < ($1.cell, $1.route) }
        while k < dots.count {
            let cell = dots[k].cell
            var routes: [Int32] = []
            while k < dots.count, dots[k].cell == cell {
                if routes.last != dots[k].route { routes.append(dots[k].route) }
                k += 1
            }
            let x = Int32(cell % Int(width)), y = Int32(cell / Int(width))
            var passed = false
            incident(x, y) { s, _, _ in if counts[s] > 0 { passed = true } }
            guard !passed else { continue }
            let at = centre(x, y)
            chains.append(EdgeChain(kind: routes.count >= 2 ? -Int64(routes.count) : Int64(routes[0]),
                                    points: [at, TilePoint(x: at.x + 1, y: at.y)], steps: 0, count: routes.count))
        }
        // What is left are loops.
        for s in counts.indices where counts[s] > 0 && !used[s] {
            let k = Int64(kind(s) ?? 0)
            let cell = s / 4, step = Self.steps[s % 4]
            let ax = Int32(cell % Int(width)), ay = Int32(cell / Int(width))
            walk(ax, ay, first: s, to: ax + step.dx, ay + step.dy, kind: k)
        }
        return chains
    }
}

/// Douglas–Peucker on tile points, for merged chains.
enum ChainSimplifier {
    /// The points of `line` that keep it within `squaredTolerance` (tile units²) of itself; the ends are kept.
    static func simplify(_ line: [TilePoint], squaredTolerance: Double) -> [TilePoint] {
        guard line.count > 2 else { return line }
        var keep = [Bool](repeating: false, count: line.count)
        keep[0] = true
        keep[line.count - 1] = true
        var stack = [(0, line.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            let a = line[first], b = line[last]
            var farthest = -1.0, index = first
            for i in (first + 1)..<last {
                let d = squaredDistance(line[i], a, b)
                if d > farthest { farthest = d; index = i }
            }
            if farthest > squaredTolerance {
                keep[index] = true
                stack.append((first, index))
                stack.append((index, last))
            }
        }
        var out: [TilePoint] = []
        out.reserveCapacity(line.count / 4 + 2)
        for i in line.indices where keep[i] { out.append(line[i]) }
        return out
    }

    /// The squared distance from p to segment a–b.
    static func squaredDistance(_ p: TilePoint, _ a: TilePoint, _ b: TilePoint) -> Double {
        let ax = Double(a.x), ay = Double(a.y)
        let dx = Double(b.x) - ax, dy = Double(b.y) - ay
        var px = Double(p.x) - ax, py = Double(p.y) - ay
        let length = dx * dx + dy * dy
        if length > 0 {
            let t = min(1, max(0, (px * dx + py * dy) / length))
            px -= t * dx
            py -= t * dy
        }
        return px * px + py * py
    }
}
