import RouteTilesModel
import RouteTilesTiling

/// A put's route made ready before the writers' lock is taken, from the route alone: its tiler, and its cover
/// unless the put may be a trim of the route it replaces (whose own path costs the dropped segments only).
struct PreparedPut: Sendable {
    let tiler: RouteTiler
    let cover: RouteCover?

    /// The puts of `edits` whose routes have ids, made ready on every core, by index in `edits`: projecting a
    /// route and finding every tile it is drawn in (a route across the world is drawn in tens of thousands) is
    /// done outside the writers' lock, which readers of the route list and metadata take too. `mayBeTrim` says,
    /// under that lock, whether a put may be a trim of the route under its key (`LiveRouteEntry.mayBeTrimmed`).
    static func prepare(_ edits: [LiveRouteSet.Edit], options: TilingOptions,
                        mayBeTrim: ([(key: String, route: Route)]) -> [Bool]) -> [Int: PreparedPut] {
        // A fleet's rounds are appends alone: no lock taken for them.
        var puts: [(index: Int, key: String, route: Route)] = []
        for (index, edit) in edits.enumerated() {
            guard case let .put(route, _) = edit, let id = route.id else { continue }
            puts.append((index, LiveRouteSet.key(for: id), route))
        }
        guard !puts.isEmpty else { return [:] }
        let trimmable = mayBeTrim(puts.map { ($0.key, $0.route) })
        var made: [Int: PreparedPut] = [:]
        ParallelWork.run(count: puts.count, local: { [(Int, PreparedPut)]() }, { found, slot in
            let put = puts[slot]
            let tiler = RouteTiler(routes: [put.route], options: options)
            found.append((put.index, PreparedPut(tiler: tiler, cover: trimmable[slot] ? nil : RouteCover(of: tiler))))
        }, merge: { found in
            for (index, prepared) in found { made[index] = prepared }
        })
        return made
    }
}
