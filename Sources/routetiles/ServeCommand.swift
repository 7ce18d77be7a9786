import ArgumentParser
import Foundation
import Logging
import RouteTiles
import RouteTilesAccess
import RouteTilesPurge
import RouteTilesServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve vector tiles over HTTP: routes cut on demand (and changed live), or a built tileset (folder, MBTiles, PMTiles).",
        discussion: """
            With no route file, no --store and no --tiles, serves the bundled samples (Tiles/samples). Open the \
            printed URL for a map of the routes. Endpoints: /tiles/{z}/{x}/{y}.mvt, /tiles.json, /style.json, /, \
            /health, /metrics, /events (every change, as server-sent events), and with --write-token the live-route endpoints POST /routes, GET/PUT/DELETE \
            /routes/{id}, POST /routes/{id}/points. \
            With --store, routes live in a route store and survive restarts: a SQLite file, or PostgreSQL, which \
            many servers share (each applies every change, whoever made it, and drops exactly the tiles it changed). \
            Route files given with --store seed it: a route new to the store is added, and one that the API, SQL or \
            another replica changed or removed since its file was imported is left as it is, so restarting with the \
            same files undoes no write. A route whose file you edited since its last import is imported again (the \
            note names it); `routetiles load --replace` takes the files' version of every route. \
            The write token comes from --write-token, else --write-token-file, else the environment variable \
            ROUTETILES_WRITE_TOKEN; the file and the variable keep it out of the process list. A write token, \
            however given, needs --store: a server would otherwise acknowledge writes it forgets when it stops \
            (--store memory says that this is wanted). \
            With --purge URL (one per cache node), every tile a change altered is purged from the cache in front, \
            off the write path, with retries (Varnish: Docs/varnish/routetiles.vcl). \
            SIGINT or SIGTERM stops the server after the requests in flight.
            """)

    @Argument(help: "Route files or folders of them to serve (any format `build` reads); with --store, loaded into it. Default: the bundled samples (none with --store).", completion: .file())
    var inputs: [String] = []

    @Option(help: ArgumentHelp("Route store: a SQLite file (created when missing), postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=…] (without a password: PGPASSWORD's, else ~/.pgpass's), or memory (lost at exit).",
                               valueName: "store"))
    var store: String?

    @Option(help: "PostgreSQL: the schema of the routes table.")
    var storeSchema = "public"

    @Option(help: "PostgreSQL: the routes table (its change feed is <table>_changes).")
    var storeTable = "routes"

    @Option(help: "Serve a tileset built by `routetiles build` (a folder, X.mbtiles or X.pmtiles) instead of routes.",
            completion: .file())
    var tiles: String?

    @Option(help: "Address to listen on.")
    var host = ServerConfiguration().host

    @Option(help: "Port to listen on (0: any free port).")
    var port = ServerConfiguration().port

    @OptionGroup(title: "Reading")
    var reading: ReadingOptions

    @OptionGroup(title: "Tiling (as for build: a tile served equals the tile build writes)")
    var tiling: TilingArguments

    @Option(help: "Public base URL (behind a proxy or CDN) for the tile URLs in tiles.json. Default: from the request's Host.")
    var publicUrl: String?

    @Option(help: ArgumentHelp("Cache-Control header of tiles. Default: '\(ServerConfiguration.liveCacheControl)' for routes that can change (a --store file or database, or a write token); '\(ServerConfiguration.staticCacheControl)' otherwise (--tiles, route files).",
                               valueName: "value"))
    var cacheControl: String?

    @Option(help: "Access-Control-Allow-Origin header ('none' to send no CORS headers).")
    var cors = "*"

    @Option(help: "Memory for cached compressed tiles, in MB.")
    var cacheMb = ServerConfiguration().cacheBytes >> 20

    @Option(help: "Memory for cached compressed window tiles (?from=…&to=…), in MB.")
    var windowCacheMb = ServerConfiguration().windowCacheBytes >> 20

    @Option(help: "Memory for drawn raster tiles (/tiles/{z}/{x}/{y}.png, @2x, @3x), in MB.")
    var rasterCacheMb = ServerConfiguration().rasterCacheBytes >> 20

    @Option(help: "Largest request body accepted by the write endpoints, in MB.")
    var maxBodyMb = ServerConfiguration().maxBodyBytes >> 20

    @Option(help: "Bearer token that write requests must carry. Without it, routes cannot be changed. Seen by every local user in the process list: prefer --write-token-file.")
    var writeToken: String?

    @Option(help: "Read the write token from this file (its text, without the final newline). Default: $ROUTETILES_WRITE_TOKEN, if set.",
            completion: .file())
    var writeTokenFile: String?

    @Option(help: "Append the z/x/y of every invalidated tile to this file.", completion: .file())
    var expireLog: String?

    @Option(name: .customLong("purge"),
            help: ArgumentHelp("With --store: send this cache (Varnish, or any cache that purges a URL per request) a purge of every tile whose bytes a change altered, whoever made the change. Repeat for each cache node.",
                               discussion: "The base URL the cache answers tiles under (http://cache:6081, or with a path prefix); each purge goes to BASE/tiles/{z}/{x}/{y}.mvt. A cache that fails to answer gets the purges again after a backoff; when more than --purge-queue-limit tiles wait, one BAN of BASE/tiles/ replaces them.",
                               valueName: "url"))
    var purge: [String] = []

    @Option(help: "Method of a tile's purge request.")
    var purgeMethod = "PURGE"

    @Option(help: "Purge requests in flight per cache.")
    var purgeConcurrency = CachePurger.Settings().concurrency

    @Option(help: "Tiles that may wait to be purged per cache; past it they are dropped and a BAN of every tile is sent instead.")
    var purgeQueueLimit = CachePurger.Settings().queueLimit

    @Option(help: "Timeout of one purge request, in seconds.")
    var purgeTimeout = 2.0

    @Option(help: ArgumentHelp("With --store: the layer of each line route's last position, with bearing, fix_time and (with times) speed in m/s (where each vehicle is now), or 'none'.",
                               valueName: "name"))
    var positionLayer = "positions"

    @OptionGroup(title: "Live tracks (with --store)")
    var tracks: LiveTrackOptions

    @OptionGroup(title: "Access control and TLS (Docs/OPERATIONS.md, \"Access control\")")
    var access: AccessOptions

    @Option(help: "Where the viewer loads maplibre-gl.js and maplibre-gl.css from.")
    var maplibreUrl = ServerConfiguration().mapLibreURL

    @Option(help: ArgumentHelp("The MapLibre style the viewer draws under the routes, or 'none' for the routes alone.",
                               discussion: "A URL (http://, https://) or a path on this server (/assets/style.json). "
                                   + "The default, OpenFreeMap's Positron, needs no key.",
                               valueName: "url|none"))
    var basemap = ServerConfiguration.defaultBasemap

    @Option(help: "Serve this folder's files under /assets/ (e.g. with --maplibre-url /assets, offline).", completion: .directory)
    var assets: String?

    @Option(help: "Tiles generated at once. Default: one per core.")
    var concurrency: Int?

    @Option(help: "Tile generations that may wait before the server answers 503.")
    var queueLimit = ServerConfiguration().generationQueueLimit

    @Option(help: "Log level: trace, debug, info (one access-log line per request), notice, warning, error.")
    var logLevel = "info"

    func validate() throws {
        if tiles != nil && !inputs.isEmpty { throw ValidationError("give route files or --tiles, not both") }
        if tiles != nil && store != nil { throw ValidationError("give --store or --tiles, not both") }
        if let store {
            do {
                _ = try RouteStoreLocation(store)
            } catch {
                throw ValidationError("--store: \(error)")
            }
        }
        if let token = try writeTokenSource(), store == nil {
            throw ValidationError("\(token.origin) needs --store, or writes would be acknowledged and then forgotten "
                + "when the server stops: give --store routes.db (a SQLite file), --store postgres://…, or --store "
                + "memory to keep them in memory on purpose")
        }
        if !(0...65535).contains(port) { throw ValidationError("--port must lie in 0...65535") }
        if cacheMb < 0 { throw ValidationError("--cache-mb must not be negative") }
        if windowCacheMb < 0 { throw ValidationError("--window-cache-mb must not be negative") }
        if rasterCacheMb < 0 { throw ValidationError("--raster-cache-mb must not be negative") }
        if maxBodyMb < 1 { throw ValidationError("--max-body-mb must be at least 1") }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        if queueLimit < 0 { throw ValidationError("--queue-limit must not be negative") }
        if Logger.Level(rawValue: logLevel) == nil { throw ValidationError("unknown --log-level '\(logLevel)'") }
        if basemap != "none", !["http://", "https://", "/"].contains(where: basemap.hasPrefix) {
            throw ValidationError("--basemap takes a style URL (http://…, https://…), a path on this server (/assets/…) or 'none'; got '\(basemap)'")
        }
        if !purge.isEmpty && store == nil {
            throw ValidationError("--purge needs --store: a finished tileset or route files never change, so there is nothing to purge")
        }
        for url in purge {
            do { _ = try PurgeTarget(url, method: purgeMethod) } catch { throw ValidationError("--purge: \(error)") }
        }
        if purgeConcurrency < 1 { throw ValidationError("--purge-concurrency must be at least 1") }
        if purgeQueueLimit < 1 { throw ValidationError("--purge-queue-limit must be at least 1") }
        if !(purgeTimeout > 0) || !purgeTimeout.isFinite { throw ValidationError("--purge-timeout must be a positive number of seconds") }
        if let cacheControl, cacheControl.isEmpty || cacheControl.contains(where: { $0.isNewline }) {
            throw ValidationError("--cache-control must be a header value on one line")
        }
        if positionLayer.isEmpty { throw ValidationError("--position-layer takes a layer name or 'none'") }
        if positionLayer != "none", positionLayer == tiling.layer {
            throw ValidationError("--position-layer must differ from --layer ('\(tiling.layer)')")
        }
    }

    /// The tiling options of routes in a store: `--position-layer` too.
    var liveTilingOptions: TilingOptions {
        var options = tiling.tilingOptions(liveRoutes: true)
        options.positionLayer = positionLayer == "none" ? nil : positionLayer
        options.appendTileLimit = tracks.maxAppendTiles
        return options
    }

    /// The write token, from `--write-token`, `--write-token-file` or `ROUTETILES_WRITE_TOKEN` (`WriteTokenSource`).
    func writeTokenSource() throws -> WriteTokenSource? {
        try WriteTokenSource.resolve(option: writeToken, file: writeTokenFile,
                                     environment: ProcessInfo.processInfo.environment)
    }

    func serverConfiguration(writeToken: String?, credentials: CredentialVerifier? = nil,
                             keySource: CredentialKeySource? = nil) -> ServerConfiguration {
        var c = ServerConfiguration()
        c.read = access.read
        c.credentials = credentials
        c.rateLimits = access.rateLimits
        c.auditLogPath = access.auditLog
        c.trustedProxies = (try? access.trustedProxies()) ?? TrustedProxies()
        c.tlsCertificatePath = access.tlsCert
        c.tlsKeyPath = access.tlsKey
        if let keySource {
            c.credentialKeySource = { @Sendable (force: Bool) async throws -> CredentialKeys in
                try await keySource.keys(force: force)
            }
        }
        // JWTs' writes are kept only in a store; routes from files in memory take the write token's alone.
        c.jwtWrites = store != nil
        c.host = host
        c.port = port
        c.compressionLevel = Int32(tiling.compressionLevel)
        c.readOptions = reading.readOptions
        c.publicURL = publicUrl
        c.cacheControl = cacheControl
        if let tiles { c.lastModified = Self.modificationTime(ofTileset: tiles) }
        c.corsOrigin = cors == "none" ? nil : cors
        c.cacheBytes = cacheMb << 20
        c.windowCacheBytes = windowCacheMb << 20
        c.rasterCacheBytes = rasterCacheMb << 20
        c.maxBodyBytes = maxBodyMb << 20
        c.writeToken = writeToken
        c.expireLogPath = expireLog
        c.mapLibreURL = maplibreUrl
        c.basemapStyleURL = basemap == "none" ? nil : basemap
        c.assetsDirectory = assets
        if let concurrency { c.generationConcurrency = concurrency }
        c.generationQueueLimit = queueLimit
        c.fixFilter = (try? tracks.fixFilter) ?? FixFilter()
        c.maxFixSkew = TimeValue.duration(tracks.maxFixSkew) ?? c.maxFixSkew
        c.createRoutesFromFixes = tracks.createFromFixes
        return c
    }

    func run() async throws {
        var logger = Logger(label: "routetiles")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        logger.debug("allocator: \(Allocator.name)")
        // Read again after validate(): the file's content, as validate() checked it.
        let writeToken = try writeTokenSource()?.token
        let keySource = CredentialKeySource(options: access) { [self] in try writeTokenSource()?.token }
        let credentials: CredentialVerifier
        do {
            credentials = try CredentialVerifier(keys: try await keySource.keys(force: true), settings: access.settings)
            try await credentials.prepare()
        } catch {
            throw failure("error: \(error)")
        }
        let backend: TileBackend
        let name: String
        if let tiles {
            do {
                backend = .tileset(try TileStoreFormat.openSource(path: tiles))
            } catch {
                throw failure("error: \(error)")
            }
            name = TileStoreFormat(path: tiles).tilesetName(forPath: tiles)
        } else if let store {
            backend = .live(try await openStore(store, writes: writeToken != nil || access.verifiesJWTs, logger: logger))
            name = inputs.count == 1 ? BuildCommand.defaultName(for: inputs[0]) : "routes"
        } else {
            let files = inputs.isEmpty ? try Self.bundledSamples() : inputs
            let routes = try await RouteInputs.read(files, format: reading.inputFormat, options: reading.readOptions,
                                                    terminal: Terminal(quiet: false)).routes
            backend = .routes(routes, options: tiling.tilingOptions)
            name = inputs.count == 1 ? BuildCommand.defaultName(for: inputs[0]) : "routes"
        }
        // Reading, packing into the store and projecting freed more than the server keeps; give it back.
        FreedMemory.giveBack()
        let server: RouteTilesServer
        do {
            server = try RouteTilesServer(
                configuration: serverConfiguration(writeToken: writeToken, credentials: credentials, keySource: keySource),
                name: name, backend: backend, logger: logger)
        } catch {
            throw failure("error: \(error)")
        }
        let purger = try cachePurger(for: server, logger: logger)
        let shownHost = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        do {
            try await server.run(alongside: purger.map { [$0] } ?? []) { port in
                let scheme = access.tlsCert == nil ? "http" : "https"
                FileHandle.standardError.write(Data("routetiles: serving \(scheme)://\(shownHost):\(port)/\n".utf8))
            }
        } catch {
            throw failure("error: cannot serve on \(host):\(port): \(error)")
        }
    }

    /// The purger of `--purge`, told of every tile the server's changes invalidate.
    private func cachePurger(for server: RouteTilesServer, logger: Logger) throws -> CachePurger? {
        guard !purge.isEmpty else { return nil }
        var settings = CachePurger.Settings()
        settings.concurrency = purgeConcurrency
        settings.queueLimit = purgeQueueLimit
        settings.timeout = .milliseconds(Int64(purgeTimeout * 1000))
        let targets = try purge.map { try PurgeTarget($0, method: purgeMethod) }
        let purger = CachePurger(targets: targets, settings: settings, logger: logger,
                                 metricsFactory: server.metricsFactory)
        server.observeInvalidatedTiles { change in purger.purge(change) }
        return purger
    }

    /// When a tileset was last written: the file's modification time, or for a folder its metadata.json's (written
    /// last by `build`); nil when it cannot be read.
    static func modificationTime(ofTileset path: String) -> Date? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return nil }
        let file = isFolder.boolValue ? (path as NSString).appendingPathComponent("metadata.json") : path
        return (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date
    }

    /// Opens the store, loads the route files into it, and reads its routes.
    private func openStore(_ text: String, writes: Bool, logger: Logger) async throws -> LiveRouteSync {
        let terminal = Terminal(quiet: false)
        let opened: any RouteStore
        do {
            opened = try await RouteStores.open(text, create: true, schema: storeSchema, table: storeTable)
        } catch {
            throw failure("error: \(error)")
        }
        if !inputs.isEmpty {
            let routes = try await RouteInputs.read(inputs, format: reading.inputFormat, options: reading.readOptions,
                                                    terminal: terminal).routes
            do {
                let summary = try await RouteStoreImport.load(routes, into: opened)
                terminal.note("\(opened.displayName): \(summary.counts)")
                for line in LoadCommand.routeNotes(summary) { terminal.note(line) }
            } catch {
                throw failure("error: cannot load the route files into \(opened.displayName): \(error)")
            }
        }
        let sync: LiveRouteSync
        let badRows: [RouteRowProblem]
        do {
            (sync, badRows) = try await LiveRouteSync.open(store: opened, options: liveTilingOptions,
                                                      retention: tracks.retention)
        } catch {
            throw failure("error: cannot read the routes of \(opened.displayName): \(error)")
        }
        for problem in badRows { logger.error("route store: skipped a row that makes no route: \(problem)") }
        if !opened.isDurable && writes {
            logger.warning("writes are kept in memory only (--store memory) and are lost when the server stops")
        }
        return sync
    }

    /// The sample route files, when run from the repository.
    static func bundledSamples() throws -> [String] {
        let folder = "Tiles/samples"
        let known = Set(InputFormat.allCases.map(\.rawValue)).union(["json"])
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { known.contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }
            .sorted()
            .map { folder + "/" + $0 }
        guard !files.isEmpty else {
            throw failure("error: no route files given and no samples in ./\(folder); run from the repository or pass files")
        }
        return files
    }
}
