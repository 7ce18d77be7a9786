import RouteTilesModel
import RouteTilesRouteStore

/// The rules by which a server turns store changes into edits of its routes, written once for a round it committed
/// itself, a page of the feed, and a reload of the whole store. Pure: the caller holds the versions (the sequence
/// that last wrote each route held) under its lock and hands them in.
///
/// A change at or below the version held is applied already. An append on the version held applies from its own
/// points; anything else applies from the route as it is now, read from the store, so that a server that missed
/// changes converges all the same.
enum ChangePlan {
    /// Whether `change` applies from its own points, without reading its route: an append on the version `held`.
    static func appliesFromItself(_ change: RouteChange, held: Int64) -> Bool {
        change.operation == .append && held == change.baseVersion && !change.points.isEmpty
    }

    /// The edits of a round this server just committed, from what it wrote (`written`, by key); `versions`
    /// advance to the round's sequences.
    static func own(_ changes: [RouteChange], written: [StoredRoute],
                    versions: inout [String: Int64]) -> [LiveRouteSet.Edit] {
        var byKey: [String: StoredRoute] = [:]
        for stored in written { byKey[stored.key] = stored }
        var edits: [LiveRouteSet.Edit] = []
        edits.reserveCapacity(changes.count)
        for change in changes {
            switch change.operation {
            case .insert, .update:
                if let stored = byKey[change.key], stored.version == change.sequence {
                    edits.append(.put(stored.route, lastFix: stored.lastFix))
                    versions[change.key] = change.sequence
                }
            case .delete:
                edits.append(.remove(key: change.key))
                versions[change.key] = nil
            case .append:
                edits.append(.append(key: change.key, points: change.points, time: change.fixTime, times: change.timeSeconds))
                versions[change.key] = change.sequence
            }
        }
        return edits
    }

    /// The keys of `page` whose changes cannot all be applied from the changes themselves, given the versions
    /// `held` of the page's keys (-1 or absent: not held): their rows are read before `page(_:rows:read:…)`.
    static func rowsNeeded(for page: [RouteChange], held: [String: Int64]) -> [String] {
        var simulated = held
        var needed: [String] = []
        for change in page {
            let version = simulated[change.key] ?? -1
            if change.sequence <= version { continue }
            if appliesFromItself(change, held: version) {
                simulated[change.key] = change.sequence
            } else {
                needed.append(change.key)
                simulated[change.key] = .max
            }
        }
        return needed.uniqued()
    }

    /// The edits of a page of the feed, whose last sequence is `last`; `rows` are the rows of the keys `read`
    /// as they are now. `versions` advance; rows that make no route are returned, once each.
    static func page(_ page: [RouteChange], rows: [String: StoredRow], read: [String], last: Int64,
                     versions: inout [String: Int64]) -> (edits: [LiveRouteSet.Edit], badRows: [RouteRowProblem]) {
        var edits: [LiveRouteSet.Edit] = []
        var badRows: [RouteRowProblem] = []
        for change in page {
            let key = change.key
            let held = versions[key] ?? -1
            if change.sequence <= held { continue }
            if appliesFromItself(change, held: held) {
                edits.append(.append(key: key, points: change.points, time: change.fixTime, times: change.timeSeconds))
                versions[key] = change.sequence
                continue
            }
            switch rows[key] {
            case nil:
                // Deleted since: nothing of this page's changes to it remains.
                edits.append(.remove(key: key))
                versions[key] = last
            case let .bad(problem)?:
                edits.append(.remove(key: key))
                versions[key] = max(problem.version, change.sequence)
                if !badRows.contains(where: { $0.key == key && $0.version == problem.version }) {
                    badRows.append(problem)
                }
            case let .route(stored)?:
                if stored.created > change.sequence {
                    // Deleted and created again later: it joins at its creation, as in every other replica.
                    edits.append(.remove(key: key))
                    versions[key] = stored.created - 1
                } else {
                    edits.append(.put(stored.route, lastFix: stored.lastFix))
                    versions[key] = stored.version
                }
            }
        }
        // A route not held stays out of the table, so that it does not grow with deleted routes.
        for key in read {
            switch rows[key] {
            case nil, .bad?: versions[key] = nil
            case .route?: break
            }
        }
        return (edits, badRows)
    }

    /// The edits that bring routes held under `held` (in feature order) to the whole store as `snapshot` has it:
    /// every route whose version differs is put, every route no longer stored removed. When a route was deleted
    /// and created again among the changes missed, it belongs at its new creation, as on a server started now:
    /// then every route is put again, in the store's order.
    static func reload(_ snapshot: RouteStoreSnapshot, held: [String],
                       versions: inout [String: Int64]) -> [LiveRouteSet.Edit] {
        let stored = Set(snapshot.routes.map(\.key))
        let kept = held.filter { stored.contains($0) }
        let keptSet = Set(kept)
        let added = snapshot.routes.map(\.key).filter { !keptSet.contains($0) }
        guard kept + added == snapshot.routes.map(\.key) else {
            versions = Dictionary(snapshot.routes.map { ($0.key, $0.version) }, uniquingKeysWith: { _, b in b })
            return held.map { .remove(key: $0) } + snapshot.routes.map { .put($0.route, lastFix: $0.lastFix) }
        }
        var edits: [LiveRouteSet.Edit] = []
        for key in held where !stored.contains(key) {
            edits.append(.remove(key: key))
            versions[key] = nil
        }
        for route in snapshot.routes where versions[route.key] != route.version {
            edits.append(.put(route.route, lastFix: route.lastFix))
            versions[route.key] = route.version
        }
        return edits
    }
}
