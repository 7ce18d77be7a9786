/// Loads routes from files into a store so that loading the same files again changes nothing: `serve --store`
/// with route files, and `routetiles load`.
///
/// Routes without an id are numbered as a server started from the same files numbers them (after the largest
/// numeric id of the files, in file order), so a route keeps its key from one load to the next. A route whose
/// stored row already says the same (properties compared as a set of keys and values, since PostgreSQL's jsonb
/// keeps its own key order) is not written again.
package enum RouteStoreImport {
    package struct Summary: Sendable, Equatable {
        package var added = 0
        package var replaced = 0
        package var unchanged = 0
        package var removed = 0
        package init() {}
    }

    /// Writes the routes that differ from the store's, in batches of about `batchPoints` points a transaction;
    /// with `prune`, removes the stored routes the files do not hold.
    package static func load(_ routes: [Route], into store: any RouteStore, prune: Bool = false,
                            batchPoints: Int = 1_000_000) async throws -> Summary {
        let numbered = numbered(routes)
        let snapshot = try await store.loadAll()
        var stored: [String: StoredRoute] = [:]
        for row in snapshot.routes { stored[row.key] = row }
        var summary = Summary()
        var batch: [Route] = []
        var batchSize = 0
        var given = Set<String>()
        for route in numbered {
            let key = StoredRouteCodec.key(for: route.id ?? .number(0))
            given.insert(key)
            if let old = stored[key] {
                if sameContent(old.route, route) {
                    summary.unchanged += 1
                    continue
                }
                summary.replaced += 1
            } else {
                summary.added += 1
            }
            batch.append(route)
            batchSize += route.pointCount
            if batchSize >= batchPoints {
                _ = try await store.commit(.put(batch))
                batch = []
                batchSize = 0
            }
        }
        if !batch.isEmpty { _ = try await store.commit(.put(batch)) }
        if prune {
            let bad = snapshot.badRows.map(\.key)
            for key in snapshot.routes.map(\.key) + bad where !given.contains(key) {
                if case .committed = try await store.commit(.remove(key: key)) { summary.removed += 1 }
            }
        }
        return summary
    }

    /// The routes with ids: those without one numbered in order, after the largest numeric id among them, or from
    /// `first` when that is larger (a store's next free number).
    package static func numbered(_ routes: [Route], from first: UInt64 = 0) -> [Route] {
        var next = first
        for route in routes { if case let .number(n)? = route.id { next = max(next, n &+ 1) } }
        return routes.map { route in
            guard route.id == nil else { return route }
            var route = route
            route.id = .number(next)
            next &+= 1
            return route
        }
    }

    /// Whether two routes would be stored alike.
    package static func sameContent(_ a: Route, _ b: Route) -> Bool {
        a.parts == b.parts && a.geodesic == b.geodesic && a.layer == b.layer && a.kind == b.kind
            && a.properties.count == b.properties.count
            && Dictionary(a.properties.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
                == Dictionary(b.properties.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}
