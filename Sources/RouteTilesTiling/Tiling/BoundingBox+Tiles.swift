import Foundation
import RouteTilesGeo
import RouteTilesModel

/// The tiles that meet a longitude/latitude box.
extension BoundingBox {
    /// The columns and rows of the tiles at zoom `z` that meet the box.
    public func tileRange(zoom z: Int) -> (x: ClosedRange<Int>, y: ClosedRange<Int>) {
        let n = 1 << z
        func column(_ lon: Double) -> Int { min(n - 1, max(0, Int(((lon + 180) / 360 * Double(n)).rounded(.down)))) }
        func row(_ lat: Double) -> Int {
            let clamped = min(max(lat, -WebMercator.maxLatitude), WebMercator.maxLatitude) * .pi / 180
            let y = (1 - log(tan(clamped) + 1 / cos(clamped)) / .pi) / 2 * Double(n)
            return min(n - 1, max(0, Int(y.rounded(.down))))
        }
        return (column(west)...column(east), row(north)...row(south))
    }

    /// How many tiles meet the box at zoom `z`.
    public func tileCount(zoom z: Int) -> Int {
        let r = tileRange(zoom: z)
        return r.x.count * r.y.count
    }

    /// The tiles that meet the box at zoom `z`.
    public func tiles(zoom z: Int) -> [TileID] {
        let r = tileRange(zoom: z)
        var out: [TileID] = []
        out.reserveCapacity(r.x.count * r.y.count)
        for x in r.x { for y in r.y { out.append(TileID(z: z, x: x, y: y)) } }
        return out
    }
}
