import ArgumentParser
import RouteTiles

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Read route files and report what they hold and what is wrong with them, without building tiles.",
        discussion: """
            Prints per file its routes (per layer), points, skipped geometries and errors. With --skip-invalid every invalid \
            route is listed; without it, the first error of each file. Exits with status 1 when any file has an error.
            """)

    @Argument(help: "Route files to check.", completion: .file())
    var inputs: [String]

    @OptionGroup(title: "Reading")
    var reading: ReadingOptions

    func run() throws {
        var failed = false
        for input in inputs {
            do {
                // Counted piece by piece: a streamed file is never held whole.
                var perLayer: [String: Int] = [:]
                var points = 0
                var result = ReadResult()
                try RouteReader.forEachPiece(path: input, format: reading.inputFormat, options: reading.readOptions) {
                    for route in $0.routes {
                        perLayer[route.layer ?? "routes", default: 0] += 1
                        points += route.pointCount
                    }
                    result.skippedGeometries.merge($0.skippedGeometries, uniquingKeysWith: +)
                    result.invalid.append(contentsOf: $0.invalid)
                }
                let layers = perLayer.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                var line = "\(input): \(layers.isEmpty ? "no routes" : layers), \(points) points"
                if !result.skippedGeometries.isEmpty {
                    line += ", skipped " + result.skippedGeometries.sorted { $0.key < $1.key }
                        .map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                }
                if !result.invalid.isEmpty { line += ", \(result.invalid.count) invalid" }
                print(line)
                for error in result.invalid { print("  \(error)") }
                if !result.invalid.isEmpty { failed = true }
            } catch {
                print("\(error)")
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }
}
