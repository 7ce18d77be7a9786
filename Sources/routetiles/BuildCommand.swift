import ArgumentParser
import Foundation
import RouteTiles

struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Build a tile pyramid ({z}/{x}/{y}.mvt and metadata.json) from route files.",
        discussion: """
            Inputs: GeoJSON (FeatureCollection, Feature, LineString, MultiLineString), GeoJSON text sequences and \
            NDJSON (streamed), CSV with a header (lat/latitude and lon/lng/longitude columns; an optional route or id \
            column groups rows into routes), encoded polylines (one per line, optionally id<TAB>polyline), GPX 1.1, \
            and Google, OSRM or Valhalla directions responses (layers routes, steps and maneuvers). \
            The pyramid is written into a staging folder beside the output and moved into place at the end, so an \
            interrupted build leaves any previous pyramid as it was.
            """)

    @Argument(help: "Route files to read.", completion: .file())
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output: X.mbtiles, X.pmtiles or a folder. Default: Tiles/build/<name of the first input>.")
    var output: String?

    @Option(help: "Kind of output, instead of telling it from the output's name (directory, mbtiles, pmtiles).")
    var store: String?

    @Flag(help: "Replace the output if it exists.")
    var force = false

    @OptionGroup(title: "Reading")
    var reading: ReadingOptions

    @Option(help: "Lowest zoom written.")
    var minzoom = 0

    @Option(help: "Highest zoom written.")
    var maxzoom = 14

    @Option(help: "Tile extent in units.")
    var extent = 4096

    @Option(help: "Buffer around each tile, in tile units.")
    var buffer = 64

    @Option(help: "Simplification tolerance in tile units (0: none).")
    var simplify = 1.0

    @Flag(help: "Simplify at the highest zoom too (by default it keeps every vertex).")
    var simplifyAtMaxzoom = false

    @Option(help: "Name of the vector tile layer.")
    var layer = "routes"

    @Flag(help: "One feature per clipped part, with start_m, end_m, mapbox_clip_start and mapbox_clip_end.")
    var lineMetrics = false

    @Option(help: "gzip level, 0 (store) to 9 (smallest).")
    var compressionLevel = 6

    @Option(help: "Name of the tileset in metadata.json. Default: the output folder's name.")
    var name: String?

    @Option(help: "Public URL of the pyramid: writes tiles.json (TileJSON 3.0.0) with absolute tile URLs.")
    var baseUrl: String?

    @Option(help: "Worker threads. Default: one per core.")
    var threads: Int?

    @Flag(name: .shortAndLong, help: "No progress and no summary.")
    var quiet = false

    var tilingOptions: TilingOptions {
        var o = TilingOptions()
        o.minZoom = minzoom
        o.maxZoom = maxzoom
        o.extent = extent
        o.buffer = buffer
        o.simplification = simplify
        o.simplifyAtMaxZoom = simplifyAtMaxzoom
        o.layerName = layer
        o.lineMetrics = lineMetrics
        return o
    }

    func validate() throws {
        if let problem = tilingOptions.problem { throw ValidationError(problem) }
        if !(0...9).contains(compressionLevel) { throw ValidationError("--compression-level must lie in 0...9") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if let store, TileStoreFormat(rawValue: store.lowercased()) == nil {
            throw ValidationError("unknown --store '\(store)'; known: "
                + TileStoreFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if let baseUrl, !(baseUrl.hasPrefix("http://") || baseUrl.hasPrefix("https://")) {
            throw ValidationError("--base-url must be an absolute http(s) URL")
        }
    }

    func run() throws {
        let started = Date()
        let terminal = Terminal(quiet: quiet)
        // The parsed routes live only until they are projected: the tiler keeps its own packed copy.
        let tiler = RouteTiler(routes: try readInputs(terminal: terminal), options: tilingOptions)
        let outputPath = output ?? "Tiles/build/" + Self.defaultName(for: inputs[0])
        let destination = URL(fileURLWithPath: outputPath)
        let store: any TileStore
        do {
            store = try storeFormat(for: outputPath).makeStore(path: outputPath, replace: force)
        } catch {
            throw failure("error: \(error)")
        }
        let cleanup = InterruptCleanup { store.abort() }
        defer { cleanup.cancel() }

        let builder = PyramidBuilder(tiler: tiler, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount,
                                     compressionLevel: Int32(compressionLevel))
        let statistics: BuildStatistics
        do {
            statistics = try builder.build(into: store, progress: terminal.progressReporter(started: started))
            terminal.endProgress()
            let defaultName = storeFormat(for: outputPath) == .directory
                ? destination.lastPathComponent : destination.deletingPathExtension().lastPathComponent
            let metadata = TilesetMetadata(name: name ?? defaultName, tiler: tiler)
            try store.putMetadata(metadata)
            if let baseUrl, let folder = store as? DirectoryTileStore {
                try folder.putFile(named: "tiles.json", contents: metadata.tileJSON(baseURL: baseUrl))
            }
            try store.commit()
        } catch {
            store.abort()
            cleanup.waitIfInterrupted()
            terminal.endProgress()
            throw failure("error: \(error)")
        }
        terminal.summary(routes: tiler.routes.routes.count, points: tiler.routes.pointCount,
                         statistics: statistics, seconds: Date().timeIntervalSince(started),
                         output: destination.path)
    }

    private func storeFormat(for path: String) -> TileStoreFormat {
        store.flatMap { TileStoreFormat(rawValue: $0.lowercased()) } ?? TileStoreFormat(path: path)
    }

    private func readInputs(terminal: Terminal) throws -> [Route] {
        let options = reading.readOptions
        let forced = reading.inputFormat
        var all = ReadResult(routes: [], skippedGeometries: [:], invalid: [])
        for input in inputs {
            do {
                all.append(try RouteReader.read(path: input, format: forced, options: options))
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
            throw failure("error: no routes in " + inputs.joined(separator: ", "))
        }
        return all.routes
    }

    /// "Tiles/samples/commute.geojson" → "commute".
    static func defaultName(for input: String) -> String {
        let base = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        return base.isEmpty ? "routes" : base
    }
}
