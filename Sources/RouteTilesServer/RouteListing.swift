import Foundation
import RouteTiles
import Synchronization

/// `GET /routes`: the routes of a live server as the viewer's list shows them, in feature order.
///
/// Each entry has the route's key (`id`), its feature id in the tiles (`fid`, for `feature-state`), its layer, its
/// kind, what `RouteSummary` tells (`name`, `length_m`, `duration_s`, `bbox`, `points`) and its `color` property.
/// The steps and maneuvers of a directions route are not entries of their own: they are listed, merged by their
/// `index`, in the `steps` of the route they were read with: the directions readers write a route's steps and
/// maneuvers just before it, so that is the nearest later route of the list with a `provider` property and the same
/// `route_index`.
///
/// Summaries are kept per route version, so a listing after a change measures only the routes that changed; the
/// encoded listing is kept for the generation it shows.
final class RouteListing: Sendable {
    private struct Cached {
        var generation: UInt64
        var body: [UInt8]
    }

    private let summaries = Mutex<[String: (version: Int64, summary: RouteSummary)]>([:])
    private let cached = Mutex<Cached?>(nil)

    static let stepLayers: Set<String> = [DirectionsReader.stepsLayer, DirectionsReader.maneuversLayer]

    /// The listing as JSON: `{"generation": g, "routes": [...]}`; only the entries of `keys` (and of the routes
    /// whose steps are among them) when it is given, and of the routes of `groups` when it is given (a reader
    /// whose credential reads those groups: the others are left out as if they did not exist, and so is the
    /// generation, which counts their changes too).
    /// The positions of routes are read from the store (the live set does not keep them), only for the summaries
    /// not kept yet and for steps; throws what the store throws, and an encoding error for a length that is not a
    /// finite number.
    func body(of sync: LiveRouteSync, keys: Set<String>?, groups: GroupScope? = nil) async throws -> [UInt8] {
        let groups = groups?.isAll == true ? nil : groups
        var (generation, routes) = sync.routes.keyedRoutesWithoutPositions
        let whole = keys == nil && groups == nil
        if whole, let cached = cached.withLock({ $0 }), cached.generation == generation { return cached.body }
        if let groups { routes.removeAll { !groups.contains(RouteGroup.of($0.route.properties)) } }
        let entries = try await self.entries(of: routes, sync: sync, keys: keys, whole: whole)
        let body = try JSONBody.bytes(RouteListAnswer(generation: groups == nil ? generation : nil, routes: entries))
            + [0x0a]
        if whole { cached.withLock { $0 = Cached(generation: generation, body: body) } }
        return body
    }

    /// The entries of `routes`; `whole` when they are all the routes, whose summaries then replace those kept
    /// (a part adds its own to them).
    private func entries(of routes: [(key: String, route: Route)], sync: LiveRouteSync,
                         keys: Set<String>?, whole: Bool) async throws -> [RouteListAnswer.Entry] {
        let defaultLayer = sync.routes.options.layerName
        // The readers write each route's steps and maneuvers just before the route: a step's route is the nearest
        // later directions route with its `route_index`. Found walking backwards.
        var parentOf: [Int: String] = [:]
        var nextDirections: [Int64: String] = [:]
        for (position, (key, route)) in routes.enumerated().reversed() {
            guard let routeIndex = Self.integer(route.properties, "route_index") else { continue }
            if Self.stepLayers.contains(route.layer ?? defaultLayer) {
                if let parent = nextDirections[routeIndex], Self.integer(route.properties, "index") != nil {
                    parentOf[position] = parent
                }
            } else if route.properties.contains(where: { $0.key == "provider" }) {
                nextDirections[routeIndex] = key
            }
        }
        var entries: [RouteListAnswer.Entry] = []
        var entryIndex: [String: Int] = [:]
        var steps: [String: [Int64: RouteListAnswer.Step]] = [:]
        var stepKeys: [String: [String]] = [:]
        var fresh: [String: (version: Int64, summary: RouteSummary)] = [:]
        let known = summaries.withLock { $0 }
        // The routes whose positions are needed: steps, and routes without a summary of their version.
        var needed: [String] = []
        for (position, (key, _)) in routes.enumerated() {
            if parentOf[position] != nil {
                needed.append(key)
            } else if let version = sync.version(of: key), let memo = known[key], memo.version == version {
                continue
            } else {
                needed.append(key)
            }
        }
        var stored: [String: StoredRoute] = [:]
        for (key, row) in try await sync.store.rows(needed) {
            if case let .route(route) = row { stored[key] = route }
        }
        for (position, (key, route)) in routes.enumerated() {
            if let parent = parentOf[position], let index = Self.integer(route.properties, "index") {
                var step = steps[parent]?[index] ?? RouteListAnswer.Step(index: index)
                Self.merge(stored[key]?.route ?? route, into: &step)
                steps[parent, default: [:]][index] = step
                stepKeys[parent, default: []].append(key)
                continue
            }
            let version = sync.version(of: key)
            let summary: RouteSummary
            if let version, let memo = known[key], memo.version == version {
                summary = memo.summary
                fresh[key] = memo
            } else if let row = stored[key] {
                summary = RouteSummary(of: row.route)
                // Kept only when the store's row is the version this server holds (the store may be ahead).
                if row.version == version { fresh[key] = (row.version, summary) }
            } else {
                summary = RouteSummary(of: route)
            }
            var entry = RouteListAnswer.Entry(
                id: key, fid: ProjectedRouteSet.featureID(for: route.id, index: 0), layer: route.layer ?? defaultLayer,
                kind: route.kind == .point ? "point" : "line", name: summary.name,
                lengthMetres: (summary.lengthMetres * 10).rounded() / 10, durationSeconds: summary.durationSeconds,
                points: summary.pointCount, bbox: summary.bounds.map { $0.map { ($0 * 1e6).rounded() / 1e6 } })
            entry.firstTime = summary.firstTime.map(TimeValue.iso)
            entry.lastTime = (summary.lastTime ?? sync.routes.lastFix(of: key)?.time).map(TimeValue.iso)
            if let colour = route.properties.first(where: { $0.key == "color" }), case let .string(s) = colour.value {
                entry.color = s
            }
            entryIndex[key] = entries.count
            entries.append(entry)
        }
        summaries.withLock { kept in
            if whole { kept = fresh } else { kept.merge(fresh) { _, new in new } }
        }
        for (parent, byIndex) in steps {
            guard let at = entryIndex[parent] else { continue }
            entries[at].steps = byIndex.keys.sorted().compactMap { byIndex[$0] }
        }
        guard let keys else { return entries }
        var wanted = Set(keys.compactMap { entryIndex[$0] })
        for (parent, members) in stepKeys where members.contains(where: keys.contains) {
            if let at = entryIndex[parent] { wanted.insert(at) }
        }
        return wanted.sorted().map { entries[$0] }
    }

    /// Adds what a step line or a maneuver point tells of a step.
    private static func merge(_ route: Route, into step: inout RouteListAnswer.Step) {
        for property in route.properties where RouteListAnswer.Step.propertyKeys.contains(property.key) {
            step.told[property.key] = property.value
        }
        if route.kind == .point, let position = route.parts.first?.first {
            step.location = [position.longitude, position.latitude]
        } else if let bounds = RouteSummary(of: route).bounds {
            step.bbox = bounds
            if step.location == nil, let first = route.parts.first?.first {
                step.location = [first.longitude, first.latitude]
            }
        }
    }

    private static func integer(_ properties: [Property], _ key: String) -> Int64? {
        switch properties.first(where: { $0.key == key })?.value {
        case let .int(i)?: return i
        case let .uint(u)?: return Int64(exactly: u)
        case let .double(d)?: return Int64(exactly: d)
        default: return nil
        }
    }
}
