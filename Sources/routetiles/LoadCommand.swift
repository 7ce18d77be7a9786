import ArgumentParser
import RouteTiles

struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load route files into a route store (SQLite or PostgreSQL), for servers started with --store.",
        discussion: """
            Files seed the store; they do not overwrite it. A route new to the store is added. A route that the \
            HTTP API, SQL or another server changed or removed since its file was last imported is left as the \
            store has it, however often the same files are loaded again. A route whose file changed since its last \
            import (you edited it) is imported again: the file's version replaces the store's, and the summary names \
            the route. With --replace, the files' version wins for every route that differs from the store's. \
            Routes without an id are numbered as `serve` numbers them (after the largest numeric id, in file order). \
            Each batch of about a million points is one transaction; servers following the store apply the changes \
            as they commit. With --prune, stored routes that the files do not hold are removed.
            """)

    @Argument(help: "Route files or folders of them to load (any format `build` reads).", completion: .file())
    var inputs: [String]

    @Option(help: "Route store: a SQLite file (created when missing) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=…] (without a password: PGPASSWORD's, else ~/.pgpass's, so that none shows in the process list).")
    var store: String

    @Option(help: "PostgreSQL: the schema of the routes table.")
    var storeSchema = "public"

    @Option(help: "PostgreSQL: the routes table.")
    var storeTable = "routes"

    @Flag(help: "Remove the stored routes that the files do not hold.")
    var prune = false

    @Flag(help: "Take the files' version of every route they hold, over changes made in the store since the last import.")
    var replace = false

    @OptionGroup(title: "Reading")
    var reading: ReadingOptions

    @Flag(name: .shortAndLong, help: "No summary.")
    var quiet = false

    func validate() throws {
        let location: RouteStoreLocation
        do {
            location = try RouteStoreLocation(store)
        } catch {
            throw ValidationError("--store: \(error)")
        }
        if location == .memory { throw ValidationError("--store memory would be lost when load ends") }
    }

    func run() async throws {
        let terminal = Terminal(quiet: quiet)
        let (routes, tally) = try await RouteInputs.read(inputs, format: reading.inputFormat,
                                                         options: reading.readOptions, terminal: terminal)
        let opened: any RouteStore
        do {
            opened = try await RouteStores.open(store, create: true, schema: storeSchema, table: storeTable)
        } catch {
            throw failure("error: \(error)")
        }
        do {
            let summary = try await RouteStoreImport.load(routes, into: opened, policy: replace ? .replace : .seed,
                                                          prune: prune)
            await opened.close()
            if !quiet {
                let withoutTimes = tally.withoutTimes > 0 ? " (\(tally.withoutTimes) read without their times)" : ""
                print("\(opened.displayName): \(summary.counts)\(withoutTimes)")
                for line in Self.routeNotes(summary) { print(line) }
            }
        } catch {
            await opened.close()
            throw failure("error: cannot load into \(opened.displayName): \(error)")
        }
    }

    /// The per-route lines of an import, at most `limit` of them and a count of the rest.
    static func routeNotes(_ summary: RouteStoreImport.Summary, limit: Int = 100) -> [String] {
        var lines = Array(summary.notes.prefix(limit))
        if summary.notes.count > limit { lines.append("… and \(summary.notes.count - limit) more routes") }
        return lines
    }
}
