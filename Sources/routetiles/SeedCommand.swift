import ArgumentParser
import AsyncHTTPClient
import Foundation
import RouteTiles
import RouteTilesSeed
import Synchronization

struct SeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Pre-warm a tile server or CDN, or write tiles into a store, for exactly the tiles routes touch.",
        discussion: """
            Which tiles: by default the cover of the route files (every tile a build with the same options writes, \
            computed without encoding); or --bbox W,S,E,N; or --tile-list FILE (z/x/y lines, such as the server's \
            expire log), optionally widened with --expand-zooms a-b. Where to: --url 'https://host/tiles/{z}/{x}/{y}.mvt' \
            (each tile fetched once; 200, 204 and 304 count as warmed) or --output X.mbtiles|X.pmtiles|DIR (tiles cut \
            from the routes). --checkpoint FILE makes a --url job resumable; --shard i/n splits the tiles for n machines. \
            The summary counts the answers that were cache hits (X-Varnish with two ids, X-Cache or CF-Cache-Status \
            HIT, or Age above 0). \
            --follow URL (a live server's /events) re-warms a cache after changes instead: every tile each change \
            invalidated is requested again through --url, with Cache-Control: no-cache (the shipped Varnish \
            configuration then fetches it anew from the origin), --follow-delay after its change, at --rate, until \
            --follow-seconds or --follow-tiles.
            """)

    @Argument(help: "Route files, folders of them, or route stores (needed for the route cover and for --output).", completion: .file())
    var inputs: [String] = []

    @OptionGroup(title: "Reading")
    var reading: ReadingOptions

    @OptionGroup(title: "Tiling (as for build: the cover is the set of tiles build writes)")
    var tiling: TilingArguments

    @Option(help: "All tiles meeting this box, in degrees: W,S,E,N.")
    var bbox: String?

    @Option(help: "A file of z/x/y lines (blank lines and # comments skipped).", completion: .file())
    var tileList: String?

    @Option(help: "With --tile-list: add each tile's parents and children at zooms a-b.")
    var expandZooms: String?

    @Flag(help: "Print the number of tiles per zoom and exit (with --checkpoint: the tiles not done yet).")
    var dryRun = false

    @Option(help: "Tile URL template with {z}, {x} and {y} (or {-y}).")
    var url: String?

    @Option(help: ArgumentHelp("Follow a live server's change events (http://server/events) and request the tiles of every change again through --url.",
                               valueName: "url"))
    var follow: String?

    @Option(help: "With --follow: stop after this many seconds (default: run until interrupted).")
    var followSeconds: Double?

    @Option(help: "With --follow: stop after requesting this many tiles (default: no bound).")
    var followTiles: Int?

    @Option(help: "With --follow: request a tile this many seconds after its change, so that the server's purge reaches the cache first.")
    var followDelay = 0.5

    @Option(name: .shortAndLong, help: "Write the tiles into X.mbtiles, X.pmtiles or a folder instead of requesting them.")
    var output: String?

    @OptionGroup
    var outputOptions: OutputOptions

    @Option(help: "Requests in flight (--url), or worker threads (--output).")
    var concurrency = 8

    @Option(help: "At most this many requests per second (0: no limit).")
    var rate = 0.0

    @Option(help: "Retries of a tile after a 5xx or 429 answer (waiting as Retry-After asks, up to 60 s), a timeout or a connection error.")
    var retries = 3

    @Option(help: "Timeout of one request, in seconds.")
    var timeout = 30

    @Option(help: "File recording the tiles done; a job run again with it skips them.", completion: .file())
    var checkpoint: String?

    @Option(help: "Take part i of n (0-based) of the tiles, split by Hilbert order within each zoom.")
    var shard: String?

    @Flag(name: .shortAndLong, help: "No progress and no summary.")
    var quiet = false

    func validate() throws {
        if let follow {
            guard follow.hasPrefix("http://") || follow.hasPrefix("https://") else {
                throw ValidationError("--follow takes the server's events URL, http://host:port/events")
            }
            if url == nil { throw ValidationError("--follow needs --url, the tiles' URL through the cache") }
            if !inputs.isEmpty || bbox != nil || tileList != nil || output != nil || checkpoint != nil || shard != nil || dryRun {
                throw ValidationError("--follow takes the tiles from the change events: give no route files, --bbox, --tile-list, --output, --checkpoint, --shard or --dry-run")
            }
            if let followSeconds, !(followSeconds > 0) || !followSeconds.isFinite {
                throw ValidationError("--follow-seconds must be a positive number")
            }
            if let followTiles, followTiles < 1 { throw ValidationError("--follow-tiles must be at least 1") }
            if !(followDelay >= 0) || !followDelay.isFinite {
                throw ValidationError("--follow-delay must be a non-negative number of seconds")
            }
        } else if followSeconds != nil || followTiles != nil {
            throw ValidationError("--follow-seconds and --follow-tiles go with --follow")
        }
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if rate < 0 || !rate.isFinite { throw ValidationError("--rate must be a non-negative number") }
        if retries < 0 { throw ValidationError("--retries must be at least 0") }
        if timeout < 1 { throw ValidationError("--timeout must be at least 1 second") }
        if follow != nil { return }
        let sources = [bbox != nil, tileList != nil].filter { $0 }.count
        if sources > 1 { throw ValidationError("give --bbox or --tile-list, not both") }
        if sources == 0 && inputs.isEmpty { throw ValidationError("give route files, --bbox or --tile-list") }
        if expandZooms != nil && tileList == nil { throw ValidationError("--expand-zooms goes with --tile-list") }
        if !dryRun {
            if (url == nil) == (output == nil) { throw ValidationError("give --url or --output (or --dry-run)") }
            if output != nil && inputs.isEmpty { throw ValidationError("--output cuts tiles from route files: give them") }
        }
        if checkpoint != nil && url == nil && !dryRun { throw ValidationError("--checkpoint goes with --url") }
    }

    /// Parses a flag's value; a `ValueError` (which names the value) is shown after the flag.
    private static func parse<T>(_ flag: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ValueError { throw InputError(file: flag, message: error.message) }
    }

    func run() async throws {
        let terminal = Terminal(quiet: quiet)
        if let follow {
            try await followChanges(eventsURL: follow)
            return
        }
        let options = tiling.tilingOptions
        let zooms = options.minZoom...options.maxZoom
        let part: TileShard
        let template: TileURLTemplate?
        do {
            part = try shard.map { try TileShard(parsing: $0) } ?? .whole
            template = try url.map { try TileURLTemplate($0) }
        } catch {
            throw failure("error: \(error)")
        }
        var tiler: RouteTiler?
        if !inputs.isEmpty && (tileList == nil && bbox == nil || output != nil) {
            let routes = try await RouteInputs.read(inputs, format: reading.inputFormat, options: reading.readOptions,
                                              terminal: terminal).routes
            tiler = RouteTiler(routes: routes, options: options)
        }
        var all: Set<TileID>
        do {
            if let tileList {
                var listed = try TileListFile.read(path: tileList)
                if let expandZooms {
                    let expansion = try Self.parse("--expand-zooms") { try ZoomExpansion.parse(expandZooms) }
                    listed = Array(ZoomExpansion.expand(listed, to: expansion))
                }
                all = Set(listed.filter { zooms.contains($0.z) })
            } else if let bbox {
                let box = try Self.parse("--bbox") { try BoundingBox(parsing: bbox) }
                all = []
                for z in zooms { all.formUnion(box.tiles(zoom: z)) }
            } else {
                all = tiler?.cover() ?? []
            }
        } catch {
            throw failure("error: \(error)")
        }
        var tiles = part.select(all)
        if dryRun {
            // With a checkpoint, what a run would still do.
            if let checkpoint {
                do {
                    let done = try SeedCheckpoint.tilesDone(path: checkpoint)
                    tiles.removeAll { done.contains($0) }
                } catch {
                    throw failure("error: \(error)")
                }
            }
            var counts: [Int: Int] = [:]
            for t in tiles { counts[t.z, default: 0] += 1 }
            var text = ""
            for z in counts.keys.sorted() { text += "z\(z)\t\(counts[z] ?? 0)\n" }
            text += "total\t\(tiles.count)\n"
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        if let template {
            try await seedOverHTTP(tiles, template: template, terminal: terminal)
        } else if let output, let tiler {
            try writeTiles(tiles, tiler: tiler, output: output, terminal: terminal)
        }
    }

    /// `--follow`: re-warms the tiles of every change event through `--url`.
    private func followChanges(eventsURL: String) async throws {
        let template: TileURLTemplate
        do {
            template = try TileURLTemplate(url ?? "")
        } catch {
            throw failure("error: \(error)")
        }
        var follower = ChangeFollower(eventsURL: eventsURL, seeder: httpSeeder(template: template))
        follower.seconds = followSeconds
        follower.maxTiles = followTiles
        follower.delay = .milliseconds(Int64(followDelay * 1000))
        let client = seedClient()
        let quiet = self.quiet
        let report = await follower.run(client: client, connected: {
            if !quiet { FileHandle.standardError.write(Data("following \(eventsURL)\n".utf8)) }
        })
        try? await client.shutdown()
        if !quiet {
            var text = "\(report.changes) changes followed, \(report.resyncs) resyncs (changes missed while away)\n"
            text += report.seed.summary
            if let error = report.streamError { text += "  events: \(error)\n" }
            FileHandle.standardError.write(Data(text.utf8))
        }
        if !report.seed.failed.isEmpty { throw ExitCode.failure }
    }

    private func httpSeeder(template: TileURLTemplate) -> HTTPSeeder {
        var seeder = HTTPSeeder(template: template)
        seeder.concurrency = concurrency
        seeder.rate = rate
        seeder.retries = retries
        seeder.timeoutSeconds = Int64(timeout)
        return seeder
    }

    private func seedClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(decompression: .disabled)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    private func seedOverHTTP(_ tiles: [TileID], template: TileURLTemplate, terminal: Terminal) async throws {
        let seeder = httpSeeder(template: template)
        let recorder: SeedCheckpoint?
        do {
            recorder = try checkpoint.map { try SeedCheckpoint(path: $0) }
        } catch {
            throw failure("error: \(error)")
        }
        let client = seedClient()
        let started = Date()
        let progress = SeedProgressLine(terminal: terminal, started: started)
        let report = await seeder.run(tiles, client: client, checkpoint: recorder) { p in
            progress.show(done: p.finished, total: p.total)
        }
        try? await client.shutdown()
        progress.end()
        if !quiet { FileHandle.standardError.write(Data(report.summary.utf8)) }
        if !report.failed.isEmpty || report.checkpointError != nil { throw ExitCode.failure }
    }

    private func writeTiles(_ tiles: [TileID], tiler: RouteTiler, output: String, terminal: Terminal) throws {
        let started = Date()
        let written = Atomic<Int>(0)
        try outputOptions.write(to: output) { sink -> (TilesetMetadata, Void) in
            let progress = SeedProgressLine(terminal: terminal, started: started)
            let done = Atomic<Int>(0)
            let firstError = Mutex<(any Error)?>(nil)
            let workers = min(concurrency, max(1, tiles.count))
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let compressor: GzipCompressor
                do {
                    compressor = try GzipCompressor(level: Int32(tiling.compressionLevel))
                } catch {
                    firstError.withLock { if $0 == nil { $0 = error } }
                    return
                }
                var k = worker
                while k < tiles.count, firstError.withLock({ $0 == nil }) {
                    let tile = tiles[k]
                    do {
                        if let mvt = try tiler.tile(z: tile.z, x: tile.x, y: tile.y) {
                            try sink.put(tile, gzipData: try compressor.compress(mvt))
                            written.add(1, ordering: .relaxed)
                        }
                    } catch {
                        firstError.withLock { if $0 == nil { $0 = error } }
                    }
                    progress.show(done: done.add(1, ordering: .relaxed).newValue, total: tiles.count)
                    k += workers
                }
            }
            progress.end()
            if let error = firstError.withLock({ $0 }) { throw error }
            let name = outputOptions.format(for: output).tilesetName(forPath: output)
            return (TilesetMetadata(name: name, tiler: tiler).restricted(to: tiles), ())
        }
        if !quiet {
            let seconds = Date().timeIntervalSince(started)
            let text = String(format: "%d tiles of %d written in %.1f s (%.0f tiles/s)\n", written.load(ordering: .relaxed),
                              tiles.count, seconds, seconds > 0 ? Double(tiles.count) / seconds : 0) + "wrote \(output)\n"
            FileHandle.standardError.write(Data(text.utf8))
        }
    }
}

/// The progress of a seed job on standard error: tiles done of total, tiles/s and ETA. On a terminal one line
/// redrawn at most every half second; otherwise (a log) one line every ten seconds.
final class SeedProgressLine: Sendable {
    let terminal: Terminal
    let started: Date
    private let last = Mutex<Double>(0)

    init(terminal: Terminal, started: Date) {
        self.terminal = terminal
        self.started = started
    }

    func show(done: Int, total: Int) {
        guard !terminal.quiet else { return }
        let elapsed = Date().timeIntervalSince(started)
        let interval = terminal.interactive ? 0.5 : 10
        let due = last.withLock { last -> Bool in
            guard elapsed - last >= interval else { return false }
            last = elapsed
            return true
        }
        guard due else { return }
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let text = String(format: "%d/%d tiles  %.0f tiles/s  ETA %.0f s", done, total, rate, eta)
        FileHandle.standardError.write(Data((terminal.interactive ? "\r\u{1B}[K  " + text : text + "\n").utf8))
    }

    func end() {
        terminal.endProgress()
    }
}
