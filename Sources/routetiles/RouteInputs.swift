import RouteTiles

/// Reads the route files (and route stores) of a command, with the notes and errors every command prints alike.
enum RouteInputs {
    static func read(_ inputs: [String], format: InputFormat?, options: ReadOptions, terminal: Terminal) async throws -> [Route] {
        var all = ReadResult(routes: [], skippedGeometries: [:], invalid: [])
        for input in inputs {
            if RouteStores.isStore(input) {
                all.routes.append(contentsOf: try await readStore(input, skipInvalid: options.skipInvalid, terminal: terminal))
                continue
            }
            do {
                all.append(try RouteReader.read(path: input, format: format, options: options))
            } catch {
                throw failure("error: \(error)")
            }
        }
        if !all.skippedGeometries.isEmpty {
            let list = all.skippedGeometries.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            terminal.note("skipped what makes no line (other geometries, too few points): " + list.joined(separator: ", "))
        }
        if !all.invalid.isEmpty {
            terminal.note("skipped \(all.invalid.count) invalid route(s) (--skip-invalid); the first: \(all.invalid[0])")
        }
        guard !all.routes.isEmpty else {
            throw failure("error: no routes in " + inputs.joined(separator: ", "))
        }
        return all.routes
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
