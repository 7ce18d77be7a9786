import RouteTilesModel

/// Imports routes from files into a store (`serve --store FILES`, `routetiles load`): files seed the store, they do
/// not overwrite it.
///
/// The rule, per route (the store remembers each import: the content the file held and the version it left):
/// - a route new to the store is added;
/// - a route the store already holds as the file says is unchanged;
/// - a route whose file is as it was at its last import is left as the store has it, even when the HTTP API, SQL
///   or another replica changed or removed it since: restarting with the same files undoes nothing;
/// - a route whose file changed since its last import (the user edited it) is imported again: the file's version
///   replaces the store's, or comes back if it was removed, and the note names the route;
/// - a route stored with other content and no import recorded (made through the API, or imported by a RouteTiles
///   that kept no records) is kept, and its content in the file recorded as seen.
/// With `.replace` (`load --replace`) the files' version wins for every route that differs.
///
/// Routes without an id are numbered as a server started from the same files numbers them (after the largest
/// numeric id of the files, in file order), so a route keeps its key from one import to the next. Each decision
/// is made on a snapshot and applied only if the route has not moved on meanwhile (then it is kept).
package enum RouteStoreImport {
    /// Whose version wins when a stored route differs from the file's.
    package enum Policy: Sendable {
        /// The rule above: a file seeds the store, and wins only where it changed since its last import.
        case seed
        /// The file's version wins for every route it holds (`load --replace`).
        case replace
    }

    package struct Summary: Sendable, Equatable {
        /// New to the store, or back after a removal because its file changed.
        package var added = 0
        /// Replaced by the file's version (the file changed since its last import, or `.replace`).
        package var replaced = 0
        /// The store holds what the file says.
        package var unchanged = 0
        /// Changed in the store since the file's import (or stored before any recorded import): left as it is.
        package var keptChanged = 0
        /// Removed from the store since the file's import: left removed.
        package var keptRemoved = 0
        /// Removed because no file holds it (`prune`).
        package var removed = 0
        /// One line per route imported again because its file changed, and per route kept without a record.
        package var notes: [String] = []
        package init() {}

        /// The counts, for the start-up note and `load`: "3 added, 1 replaced, 2 unchanged, 4 kept …".
        package var counts: String {
            var text = "\(added) added, \(replaced) replaced, \(unchanged) unchanged"
            if keptChanged > 0 { text += ", \(keptChanged) kept as changed since their import" }
            if keptRemoved > 0 { text += ", \(keptRemoved) kept removed since their import" }
            if removed > 0 { text += ", \(removed) removed" }
            return text
        }
    }

    /// Imports `routes`, in transactions of about `batchPoints` points; with `prune`, removes the stored routes the
    /// files do not hold.
    package static func load(_ routes: [Route], into store: any RouteStore, policy: Policy = .seed,
                             prune: Bool = false, batchPoints: Int = 1_000_000) async throws -> Summary {
        let snapshot = try await store.loadAll()
        let records = try await store.importRecords()
        var stored: [String: StoredRoute] = [:]
        for row in snapshot.routes { stored[row.key] = row }
        // Rows that make no route are stored routes all the same: their versions guard the import like any other.
        var badVersions: [String: Int64] = [:]
        for problem in snapshot.badRows { badVersions[problem.key] = problem.version }
        var summary = Summary()
        var planned: [String: Outcome] = [:]
        var batch: [RouteImportEntry] = []
        var batchSize = 0
        var given = Set<String>()

        func flush() async throws {
            guard !batch.isEmpty else { return }
            let result = try await store.importRoutes(batch)
            for key in result.skipped {
                // Changed by someone else after the snapshot: that change is newer, and stays.
                planned[key]?.count(in: &summary, delta: -1)
                summary.keptChanged += 1
                summary.notes.append("route \(key): changed in the store during the import; kept")
            }
            batch = []
            batchSize = 0
        }

        for route in distinctByKey(numbered(routes)) {
            let key = StoredRouteCodec.key(for: route.id ?? .number(0))
            given.insert(key)
            let hash = RouteContentHash.of(route, key: key)
            let old = stored[key]
            let version = old?.version ?? badVersions[key]
            let decision = decide(route: route, hash: hash, stored: old?.route, version: version, record: records[key],
                                  policy: policy)
            decision.outcome.count(in: &summary, delta: 1)
            if let note = decision.note { summary.notes.append("route \(key): \(note)") }
            planned[key] = decision.outcome
            guard let action = decision.action else { continue }
            batch.append(RouteImportEntry(key: key, contentHash: hash, expectedVersion: version, action: action))
            if case .write = action { batchSize += route.pointCount }
            if batchSize >= batchPoints || batch.count >= 10_000 { try await flush() }
        }
        if prune {
            for row in snapshot.routes where !given.contains(row.key) {
                batch.append(RouteImportEntry(key: row.key, contentHash: "", expectedVersion: row.version, action: .remove))
                planned[row.key] = .removed
                summary.removed += 1
            }
            for problem in snapshot.badRows where !given.contains(problem.key) {
                batch.append(RouteImportEntry(key: problem.key, contentHash: "", expectedVersion: problem.version,
                                              action: .remove))
                planned[problem.key] = .removed
                summary.removed += 1
            }
        }
        try await flush()
        return summary
    }

    enum Outcome {
        case added, replaced, unchanged, keptChanged, keptRemoved, removed

        func count(in summary: inout Summary, delta: Int) {
            switch self {
            case .added: summary.added += delta
            case .replaced: summary.replaced += delta
            case .unchanged: summary.unchanged += delta
            case .keptChanged: summary.keptChanged += delta
            case .keptRemoved: summary.keptRemoved += delta
            case .removed: summary.removed += delta
            }
        }
    }

    struct Decision {
        var outcome: Outcome
        var action: RouteImportEntry.Action?
        var note: String?
    }

    /// What to do with one route of the files, given what the store holds and remembers of it.
    /// `stored` is nil for a row that makes no route; `version` is nil when no row is stored under the key.
    static func decide(route: Route, hash: String, stored: Route?, version: Int64?, record: RouteImportRecord?,
                       policy: Policy) -> Decision {
        let same = stored.map { sameContent($0, route) } ?? false
        // Record the file's content as seen when the record does not already say so for this version.
        let recordAction: RouteImportEntry.Action? =
            record == RouteImportRecord(contentHash: hash, version: version ?? -1) ? nil : .record
        if same { return Decision(outcome: .unchanged, action: recordAction) }
        if policy == .replace {
            return Decision(outcome: version == nil ? .added : .replaced, action: .write(route))
        }
        guard let record else {
            guard version != nil else { return Decision(outcome: .added, action: .write(route)) }
            return Decision(outcome: .keptChanged, action: .record,
                            note: "differs from the file's and no import of it is recorded (made through the API, or "
                                + "imported by an older RouteTiles): the store's is kept; `routetiles load --replace` "
                                + "takes the file's")
        }
        if record.contentHash == hash {
            // The file is as it was imported: whatever happened in the store since was meant.
            return Decision(outcome: version == nil ? .keptRemoved : .keptChanged, action: nil)
        }
        // The file changed since its last import: a deliberate new import.
        if version == nil {
            return Decision(outcome: .added, action: .write(route),
                            note: "its file changed since its last import: the file's version is added again "
                                + "(it had been removed from the store)")
        }
        return Decision(outcome: .replaced, action: .write(route),
                        note: "its file changed since its last import: the file's version replaces the store's")
    }

    /// One route per key, where the first with that key stood, holding the last route given with it (as the
    /// writes of the routes one after the other would leave the store).
    static func distinctByKey(_ routes: [Route]) -> [Route] {
        var index: [String: Int] = [:]
        var result: [Route] = []
        result.reserveCapacity(routes.count)
        for route in routes {
            let key = StoredRouteCodec.key(for: route.id ?? .number(0))
            if let at = index[key] {
                result[at] = route
            } else {
                index[key] = result.count
                result.append(route)
            }
        }
        return result
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
