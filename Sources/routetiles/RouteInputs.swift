import Foundation
import RouteTiles

/// Reads the route files (and route stores) of a command, with the notes and errors every command prints alike.
enum RouteInputs {
    /// What a command read: its routes, and how many of them were read without their times.
    struct Tally {
        var routes = 0
        /// Routes whose times could not be used (`--times keep`): read without them, each with a warning.
        var withoutTimes = 0
    }

    /// The most warnings about dropped times printed one by one; the rest are counted in one line.
    static let timeWarningsShown = 10

    /// Every route of `inputs`, with the tally that `forEachRoute` gives.
    static func read(_ inputs: [String], format: InputFormat?, options: ReadOptions,
                     terminal: Terminal) async throws -> (routes: [Route], tally: Tally) {
        var routes: [Route] = []
        let tally = try await forEachRoute(inputs, format: format, options: options, terminal: terminal) {
            routes.append($0)
        }
        return (routes, tally)
    }

    /// Hands `body` every route of `inputs` in order, file by file and, for GeoJSON, in batches as the features are
    /// read (`RouteReader.forEachPiece`), so that the routes need not all be in memory at once. Prints the same notes
    /// and errors as `read`; how many routes were handed over, and how many of them without their times.
    @discardableResult
    static func forEachRoute(_ inputs: [String], format: InputFormat?, options: ReadOptions, terminal: Terminal,
                             _ body: (Route) throws -> Void) async throws -> Tally {
        var skipped: [String: Int] = [:]
        var invalid: [InputError] = []
        var tally = Tally()
        for input in try files(of: inputs) {
            if RouteStores.isStore(input) {
                for route in try await readStore(input, skipInvalid: options.skipInvalid, terminal: terminal) {
                    try body(route)
                    tally.routes += 1
                }
                continue
            }
            do {
                try RouteReader.forEachPiece(path: input, format: format, options: options) { piece in
                    skipped.merge(piece.skippedGeometries, uniquingKeysWith: +)
                    invalid.append(contentsOf: piece.invalid)
                    for dropped in piece.droppedTimes {
                        if tally.withoutTimes < timeWarningsShown { warnDroppedTimes(dropped, terminal: terminal) }
                        tally.withoutTimes += 1
                    }
                    for route in piece.routes { try body(route) }
                    tally.routes += piece.routes.count
                }
            } catch {
                throw failure("error: " + describe(error))
            }
        }
        note(skipped: skipped, invalid: invalid, terminal: terminal)
        if tally.withoutTimes > timeWarningsShown {
            terminal.warning("\(tally.withoutTimes - timeWarningsShown) more route(s) read without their times")
        }
        guard tally.routes > 0 else { throw failure("error: no routes in " + inputs.joined(separator: ", ")) }
        return tally
    }

    /// One route read without its times: where its first unusable time is, why, and how to refuse such files.
    static func warnDroppedTimes(_ problem: InputError, terminal: Terminal) {
        terminal.warning("\(problem); the route is read without times (--times strict refuses it)")
    }

    /// `inputs` with each folder replaced by the route files in it (by their extensions,
    /// `InputFormat.fileExtensions`), in the order of their names, hidden ones left out; files and stores are kept
    /// as given. Subfolders are not searched: a built pyramid's metadata.json is no route file.
    static func files(of inputs: [String]) throws -> [String] {
        let known = InputFormat.fileExtensions
        var files: [String] = []
        for input in inputs {
            var isFolder: ObjCBool = false
            guard !RouteStores.isStore(input), FileManager.default.fileExists(atPath: input, isDirectory: &isFolder),
                  isFolder.boolValue else {
                files.append(input)
                continue
            }
            let base = URL(fileURLWithPath: input)
            let found = ((try? FileManager.default.contentsOfDirectory(atPath: input)) ?? [])
                .filter { name in
                    var isSubfolder: ObjCBool = false
                    return !name.hasPrefix(".") && known.contains(URL(fileURLWithPath: name).pathExtension.lowercased())
                        && FileManager.default.fileExists(atPath: base.appendingPathComponent(name).path,
                                                          isDirectory: &isSubfolder) && !isSubfolder.boolValue
                }
                .sorted()
            guard !found.isEmpty else {
                throw failure("error: \(input): a folder with no route files (" + known.sorted().joined(separator: ", ") + ")")
            }
            files += found.map { base.appendingPathComponent($0).path }
        }
        return files
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
