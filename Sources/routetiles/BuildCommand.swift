import ArgumentParser
import Foundation
import RouteTiles
import RouteTilesSeed

struct BuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Build a tile pyramid from route files or a route store: a folder ({z}/{x}/{y}.mvt, or .png with --tile-format png, and metadata.json), MBTiles or PMTiles.",
        discussion: """
            Inputs: GeoJSON (FeatureCollection, Feature, LineString, MultiLineString), GeoJSON text sequences and \
            NDJSON (streamed), CSV with a header (lat/latitude and lon/lng/longitude columns; an optional route, id or \
            object_id column groups rows into routes, an optional time column gives each row its time), encoded polylines (one per line, optionally id<TAB>polyline), GPX 1.1, \
            and Google, OSRM or Valhalla directions responses (layers routes, steps and maneuvers); or a route store \
            (postgres://…, sqlite:PATH or a route store's SQLite file), read as it is when the build starts. \
            The pyramid is written into a staging folder or file beside the output and moved into place at the end, \
            so an interrupted build leaves any previous pyramid or archive as it was. \
            --shard i/n builds one of n parts for n machines (the inputs are read twice: once to agree on the \
            split, once to keep the routes the part needs); routetiles join merges the parts.
            """)

    @Argument(help: "Route files, folders of route files, or route stores to read.", completion: .file())
    var inputs: [String]

    @Option(name: .shortAndLong, help: "Output: X.mbtiles, X.pmtiles or a folder. Default: Tiles/build/<name of the first input>.")
    var output: String?

    @OptionGroup
    var outputOptions: OutputOptions

    @OptionGroup(title: "Reading")
    var reading: ReadingOptions

    @OptionGroup(title: "Tiling")
    var tiling: TilingArguments

    @OptionGroup
    var naming: TilesetNamingOptions

    @Option(help: ArgumentHelp("What the tiles are: mvt (vector tiles) or png (images drawn with the look of style.json, for MapKit, Leaflet and other image clients).",
                               discussion: "PNG tiles are the server's /tiles/{z}/{x}/{y}.png: files {z}/{x}/{y}.png in "
                                   + "a folder, format png in MBTiles, tile type PNG in PMTiles. Tiles without routes "
                                   + "are not written (a client gets 404 there; draw nothing).", valueName: "mvt|png"))
    var tileFormat = "mvt"

    @Option(help: ArgumentHelp("Pixel ratio of PNG tiles: 1 (256 px), 2 (512 px, files {y}@2x.png) or 3 (768 px, {y}@3x.png).",
                               valueName: "1|2|3"))
    var tileScale = 1

    @Option(help: "Worker threads. Default: one per core.")
    var threads: Int?

    @Option(help: ArgumentHelp("Memory the build keeps resident, in MB.",
                               discussion: "The points' columns live in temporary files; past this, their pages are "
                                   + "given back to the page cache and read again when needed. Indexes and route "
                                   + "properties stay in memory."))
    var memoryMb = 128

    @Option(help: "Folder of the build's temporary files. Default: $TMPDIR, else /tmp.", completion: .directory)
    var tempDir: String?

    @Option(help: ArgumentHelp("Build part i of n (from 0), for n machines; join the parts with routetiles join.",
                               discussion: "Every part reads all the inputs, agrees with the others on a split of "
                                   + "the pyramid balanced by points, and keeps only the routes its tiles need. Part 0 "
                                   + "also writes the tiles above the split zoom. Default output: "
                                   + "Tiles/build/<name>-shard-<i>-of-<n>.", valueName: "i/n"))
    var shard: String?

    @Flag(name: .shortAndLong, help: "No progress and no summary.")
    var quiet = false

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if memoryMb < 32 { throw ValidationError("--memory-mb must be at least 32") }
        if let shard { _ = try shardNumber(shard) }
        guard ["mvt", "png"].contains(tileFormat) else {
            throw ValidationError("unknown --tile-format '\(tileFormat)'; known: mvt, png (--format names the input's format)")
        }
        guard TileFormat.pngScales.contains(tileScale) else { throw ValidationError("--tile-scale must be 1, 2 or 3") }
        if tileScale != 1 && tileFormat != "png" { throw ValidationError("--tile-scale is for --tile-format png") }
        if shard != nil && tileFormat == "png" {
            throw ValidationError("--shard builds parts of a vector tileset for routetiles join; build PNG tiles in one part")
        }
        if shard != nil && naming.baseUrl != nil {
            throw ValidationError("--base-url belongs on the joined tileset, not on one shard's part")
        }
        if let output { try naming.validate(outputFormat: outputOptions.format(for: output)) }
    }

    func run() async throws {
        let space: SpillSpace
        do {
            space = try SpillSpace(directory: tempDir ?? SpillSpace.systemDirectory, budget: memoryMb << 20)
        } catch {
            throw failure("error: \(error) (--temp-dir)")
        }
        space.startWatching()
        defer { space.stopWatching() }
        try await SpillSpace.$current.withValue(space) { try await build() }
        let report = space.report
        Terminal(quiet: quiet).note("memory: peak \(report.peakResident >> 20) MB resident (--memory-mb \(memoryMb)); "
            + "up to \(report.peakSpilledBytes >> 20) MB of columns in temporary files, given back \(report.trims) times")
    }

    private func shardNumber(_ text: String) throws -> TileShard {
        do {
            return try TileShard(parsing: text)
        } catch {
            throw ValidationError("--shard: '\(text)' is not i/n with 0 ≤ i < n (such as 0/4)")
        }
    }

    private func build() async throws {
        let started = Date()
        let terminal = Terminal(quiet: quiet)
        let options = tiling.tilingOptions
        var projected = ProjectedRouteSet()
        var part: (shard: PyramidShard, survey: ShardSurvey)?
        if let shard {
            let number = try shardNumber(shard)
            let survey = try await survey(options: options, terminal: terminal)
            let plan: ShardPlan
            do {
                plan = try survey.plan(shards: number.count)
                part = (try PyramidShard(plan: plan, index: number.index), survey)
            } catch {
                throw failure("error: \(error)")
            }
            terminal.note("shard \(number.index)/\(number.count): \(plan)")
        }
        // Each route is projected as it is read and then dropped: the tiler keeps only its packed columns. A shard
        // keeps only the routes its tiles need, numbered as in the whole input (ShardRoutes).
        let tally: RouteInputs.Tally
        if let part {
            var kept = ShardRoutes(shard: part.shard, survey: part.survey)
            tally = try await RouteInputs.forEachRoute(inputs, format: reading.inputFormat, options: reading.readOptions,
                                               terminal: Terminal(quiet: true)) { kept.offer($0) }
            projected = kept.projected
        } else {
            var index = 0
            tally = try await RouteInputs.forEachRoute(inputs, format: reading.inputFormat, options: reading.readOptions,
                                               terminal: terminal) { route in
                projected.add(route, index: index, geodesicTolerance: options.geodesicTolerance)
                index += 1
            }
        }
        let tiler = RouteTiler(projected: projected, options: options)
        let defaultOutput = "Tiles/build/" + Self.defaultName(for: inputs[0])
            + (part.map { "-shard-\($0.shard.index)-of-\($0.shard.plan.count)" } ?? "")
        let outputPath = output ?? defaultOutput
        let destination = URL(fileURLWithPath: outputPath)
        let encoding: TileEncoding? = tileFormat == "png" ? .png(scale: tileScale) : nil
        let builder = PyramidBuilder(tiler: tiler, threads: threads ?? ProcessInfo.processInfo.activeProcessorCount,
                                     compressionLevel: Int32(tiling.compressionLevel), encoding: encoding, shard: part?.shard)
        let statistics = try outputOptions.write(to: outputPath, tileFormat: builder.encoding.format) {
            store -> (TilesetMetadata, BuildStatistics) in
            defer { terminal.endProgress() }
            let statistics = try builder.build(into: store, progress: terminal.progressReporter(started: started))
            var metadata: TilesetMetadata
            if let part {
                // The whole tileset's metadata, which the join writes under a name of its own.
                metadata = part.survey.metadata(name: naming.name ?? Self.defaultName(for: inputs[0]))
                metadata.shard = part.shard
            } else {
                metadata = TilesetMetadata(name: naming.name ?? outputOptions.format(for: outputPath).tilesetName(forPath: outputPath),
                                           tiler: tiler)
            }
            metadata.tileFormat = builder.encoding.format
            if metadata.tileBudget != nil {
                metadata.tileBudget?.reduced = TileBudgetReport(maxBytes: 0, reductionsPerZoom: statistics.reductionsPerZoom).reduced
            }
            try naming.writeTileJSON(metadata, into: store)
            return (metadata, statistics)
        }
        if let part {
            terminal.note("shard \(part.shard.index)/\(part.shard.plan.count) held \(tiler.projected.routeInfos.count) of "
                + "\(part.survey.routeCount) routes, \(tiler.projected.pointCount) of \(part.survey.pointCount) points")
        }
        terminal.summary(routes: tiler.projected.routeInfos.count, withoutTimes: tally.withoutTimes,
                         points: tiler.projected.pointCount,
                         statistics: statistics, seconds: Date().timeIntervalSince(started),
                         output: destination.path)
    }

    /// The first pass of a sharded build: every route read, surveyed and dropped.
    private func survey(options: TilingOptions, terminal: Terminal) async throws -> ShardSurvey {
        let started = Date()
        terminal.note("surveying the inputs to agree on the split with the other parts…")
        defer {
            terminal.note(String(format: "surveyed in %.1f s; reading again for this part's routes",
                                 Date().timeIntervalSince(started)))
        }
        var survey = ShardSurvey(options: options)
        try await RouteInputs.forEachRoute(inputs, format: reading.inputFormat, options: reading.readOptions,
                                           terminal: terminal) { route in
            survey.add(route, lines: ProjectedRouteSet.drawnLines(of: route, geodesicTolerance: options.geodesicTolerance))
        }
        return survey
    }

    /// "Tiles/samples/commute.geojson" → "commute"; a PostgreSQL store → "routes".
    static func defaultName(for input: String) -> String {
        if case .postgres? = try? RouteStoreLocation(input) { return "routes" }
        let input = input.lowercased().hasPrefix("sqlite:") ? String(input.dropFirst("sqlite:".count)) : input
        let base = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        return base.isEmpty ? "routes" : base
    }
}
