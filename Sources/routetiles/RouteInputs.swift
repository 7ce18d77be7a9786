import RouteTiles

/// Reads the route files of a command, with the notes and errors every command prints alike.
enum RouteInputs {
    static func read(_ files: [String], format: InputFormat?, options: ReadOptions, terminal: Terminal) throws -> [Route] {
        var all = ReadResult(routes: [], skippedGeometries: [:], invalid: [])
        for file in files {
            do {
                all.append(try RouteReader.read(path: file, format: format, options: options))
            } catch {
                throw failure("error: \(error)")
            }
        }
        if !all.skippedGeometries.isEmpty {
            let list = all.skippedGeometries.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            terminal.note("skipped features that are not lines: " + list.joined(separator: ", "))
        }
        if !all.invalid.isEmpty {
            terminal.note("skipped \(all.invalid.count) invalid route(s) (--skip-invalid); the first: \(all.invalid[0])")
        }
        guard !all.routes.isEmpty else {
            throw failure("error: no routes in " + files.joined(separator: ", "))
        }
        return all.routes
    }
}
