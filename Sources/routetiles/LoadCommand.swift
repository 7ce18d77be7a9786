import ArgumentParser
import RouteTiles

struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load route files into a route store (SQLite or PostgreSQL), for servers started with --store.",
        discussion: """
            Routes are written by id: a stored route with the same id is replaced, unless it already says the same, \
            so loading the same files again writes nothing. Routes without an id are numbered as `serve` numbers \
            them (after the largest numeric id, in file order). Each batch of about a million points is one \
            transaction; servers following the store apply the changes as they commit. With --prune, stored routes \
            that the files do not hold are removed.
            """)

    @Argument(help: "Route files to load (any format `build` reads).", completion: .file())
    var inputs: [String]

    @Option(help: "Route store: a SQLite file (created when missing) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB.")
    var store: String

    @Option(help: "PostgreSQL: the schema of the routes table.")
    var storeSchema = "public"

    @Option(help: "PostgreSQL: the routes table.")
    var storeTable = "routes"

    @Flag(help: "Remove the stored routes that the files do not hold.")
    var prune = false

    @OptionGroup(title: "Reading")
    var reading: ReadingOptions

    @Flag(name: .shortAndLong, help: "No summary.")
    var quiet = false

    func validate() throws {
        if RouteStoreLocation(store) == .memory { throw ValidationError("--store memory would be lost when load ends") }
    }

    func run() async throws {
        let terminal = Terminal(quiet: quiet)
        let routes = try await RouteInputs.read(inputs, format: reading.inputFormat, options: reading.readOptions,
                                                terminal: terminal)
        let opened: any RouteStore
        do {
            opened = try await RouteStores.open(store, create: true, schema: storeSchema, table: storeTable)
        } catch {
            throw failure("error: \(error)")
        }
        do {
            let summary = try await RouteStoreImport.load(routes, into: opened, prune: prune)
            await opened.close()
            if !quiet { print("\(opened.displayName): \(Self.describe(summary))") }
        } catch {
            await opened.close()
            throw failure("error: cannot load into \(opened.displayName): \(error)")
        }
    }

    static func describe(_ s: RouteStoreImport.Summary) -> String {
        var text = "\(s.added) added, \(s.replaced) replaced, \(s.unchanged) unchanged"
        if s.removed > 0 { text += ", \(s.removed) removed" }
        return text
    }
}
