import RouteTiles

/// Reads the route files (and route stores) of a command, with the notes and errors every command prints alike.
enum RouteInputs {
    static func read(_ inputs: [String], format: InputFormat?, options: ReadOptions, terminal: Terminal) async throws -> [Route] {
        var routes: [Route] = []
        try await forEachRoute(inputs, format: format, options: options, terminal: terminal) { routes.append($0) }
        return routes
    }

    /// Hands `body` every route of `inputs` in order, file by file and, for GeoJSON, in batches as the features are
    /// read (`RouteReader.forEachPiece`), so that the routes need not all be in memory at once. Prints the same notes
    /// and errors as `read`; the number of routes handed over.
    @discardableResult
    static func forEachRoute(_ inputs: [String], format: InputFormat?, options: ReadOptions, terminal: Terminal,
                             _ body: (Route) throws -> Void) async throws -> Int {
        var skipped: [String: Int] = [:]
        var invalid: [InputError] = []
        var count = 0
        for input in inputs {
            if RouteStores.isStore(input) {
                for route in try await readStore(input, skipInvalid: options.skipInvalid, terminal: terminal) {
                    try body(route)
                    count += 1
                }
                continue
            }
            do {
                try RouteReader.forEachPiece(path: input, format: format, options: options) { piece in
                    skipped.merge(piece.skippedGeometries, uniquingKeysWith: +)
                    invalid.append(contentsOf: piece.invalid)
                    for route in piece.routes { try body(route) }
                    count += piece.routes.count
                }
            } catch {
                throw failure("error: " + describe(error))
            }
        }
        note(skipped: skipped, invalid: invalid, terminal: terminal)
        guard count > 0 else { throw failure("error: no routes in " + inputs.joined(separator: ", ")) }
        return count
    }

    /// A reading error as the commands print it: the library's, with the flag that names a format when it could
    /// not tell one.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? InputError, error.message == RouteReader.undetectedFormat else { return "\(error)" }
        return "\(error) or pass --format"
    }

    static func note(skipped: [String: Int], invalid: [InputError], terminal: Terminal) {
        if !skipped.isEmpty {
            let list = skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            terminal.note("skipped what makes no line (other geometries, too few points): " + list.joined(separator: ", "))
        }
        if !invalid.isEmpty {
            terminal.note("skipped \(invalid.count) invalid route(s) (--skip-invalid); the first: \(invalid[0])")
        }
    }

    /// The routes of a store, in their order; a row that makes no route stops the command unless --skip-invalid.
    static func readStore(_ input: String, skipInvalid: Bool, terminal: Terminal) async throws -> [Route] {
        let store: any RouteStore
        let snapshot: RouteStoreSnapshot
        do {
            store = try await RouteStores.open(input, create: false)
            snapshot = try await store.loadAll()
        } catch {
            throw failure("error: \(error)")
        }
        await store.close()
        if let first = snapshot.badRows.first {
            guard skipInvalid else {
                throw failure("error: \(store.displayName): \(first) (--skip-invalid skips such rows)")
            }
            terminal.note("skipped \(snapshot.badRows.count) row(s) of \(store.displayName) that make no route; the first: \(first)")
        }
        return snapshot.routes.map(\.route)
    }
}
