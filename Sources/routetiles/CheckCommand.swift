import ArgumentParser
import RouteTiles

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Read route files or route stores and report what they hold and what is wrong with them, without building tiles.",
        discussion: """
            Prints per file its routes (per layer), points, the routes with times and their span, skipped geometries and \
            errors. With --skip-invalid every invalid route is listed; without it, the first error of each file. Exits \
            with status 1 when any file has an error.
            """)

    @Argument(help: "Route files or route stores to check.", completion: .file())
    var inputs: [String]

    @OptionGroup(title: "Reading")
    var reading: ReadingOptions

    func run() async throws {
        var failed = false
        for input in inputs {
            if RouteStores.isStore(input) {
                if try await !checkStore(input) { failed = true }
                continue
            }
            do {
                // Counted piece by piece: a streamed file is never held whole.
                var perLayer: [String: Int] = [:]
                var points = 0
                var timed = 0
                var span: (first: Int64, last: Int64)?
                var result = ReadResult()
                try RouteReader.forEachPiece(path: input, format: reading.inputFormat, options: reading.readOptions) {
                    for route in $0.routes {
                        perLayer[route.layer ?? "routes", default: 0] += 1
                        points += route.pointCount
                        if let first = route.times?.first, let last = route.times?.last {
                            timed += 1
                            span = (min(span?.first ?? first, first), max(span?.last ?? last, last))
                        }
                    }
                    result.skippedGeometries.merge($0.skippedGeometries, uniquingKeysWith: +)
                    result.invalid.append(contentsOf: $0.invalid)
                    result.droppedTimes.append(contentsOf: $0.droppedTimes)
                }
                let layers = perLayer.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                var line = "\(input): \(layers.isEmpty ? "no routes" : layers), \(points) points"
                if let span {
                    line += ", \(timed) timed (\(TimeValue.iso(span.first)) to \(TimeValue.iso(span.last)))"
                }
                if !result.skippedGeometries.isEmpty {
                    line += ", skipped " + result.skippedGeometries.sorted { $0.key < $1.key }
                        .map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                }
                if !result.droppedTimes.isEmpty { line += ", \(result.droppedTimes.count) without their times" }
                if !result.invalid.isEmpty { line += ", \(result.invalid.count) invalid" }
                print(line)
                // A route read without its times is no failure (build reads it so too), but check says why.
                for problem in result.droppedTimes { print("  warning: \(problem); read without times") }
                for error in result.invalid { print("  \(error)") }
                if !result.invalid.isEmpty { failed = true }
            } catch {
                print(RouteInputs.describe(error))
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }

    /// Reports a store's routes per layer, points, and the rows that make no route; false when there are any.
    private func checkStore(_ input: String) async throws -> Bool {
        let snapshot: RouteStoreSnapshot
        let name: String
        do {
            let store = try await RouteStores.open(input, create: false)
            name = store.displayName
            snapshot = try await store.loadAll()
            await store.close()
        } catch {
            print("\(input): \(error)")
            return false
        }
        var perLayer: [String: Int] = [:]
        for stored in snapshot.routes { perLayer[stored.route.layer ?? "routes", default: 0] += 1 }
        let layers = perLayer.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let points = snapshot.routes.reduce(0) { $0 + $1.route.pointCount }
        var line = "\(name): \(layers.isEmpty ? "no routes" : layers), \(points) points, sequence \(snapshot.sequence)"
        if !snapshot.badRows.isEmpty { line += ", \(snapshot.badRows.count) invalid" }
        print(line)
        for problem in snapshot.badRows { print("  \(problem)") }
        return snapshot.badRows.isEmpty
    }
}
