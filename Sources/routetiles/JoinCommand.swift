import ArgumentParser
import Foundation
import RouteTiles

struct JoinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join the parts of a sharded build (build --shard i/n) into one tileset: a folder, MBTiles or PMTiles.",
        discussion: """
            Every part of one plan must be given, each once; parts may be of any kind (folders, MBTiles, PMTiles), \
            and the output of any kind. The joined tileset equals a single build of the same input with the same \
            options, tile for tile, with the same metadata. It is written beside the output and moved into place at \
            the end, so a failed or interrupted join leaves any previous output as it was.
            """)

    @Argument(help: "The parts: every shard's output.", completion: .file())
    var parts: [String]

    @Option(name: .shortAndLong, help: "Output: X.mbtiles, X.pmtiles or a folder.")
    var output: String

    @Option(help: "Kind of output, instead of telling it from the output's name (directory, mbtiles, pmtiles).")
    var outputFormat: String?

    @Flag(help: "Replace the output if it exists.")
    var force = false

    @Option(help: "Name of the tileset in its metadata. Default: the output's name without its extension.")
    var name: String?

    @Option(help: "Public URL of the tileset: writes tiles.json (TileJSON 3.0.0) with absolute tile URLs into an output folder.")
    var baseUrl: String?

    @Flag(name: .shortAndLong, help: "No progress and no summary.")
    var quiet = false

    func validate() throws {
        if let kind = outputFormat, TileStoreFormat(rawValue: kind.lowercased()) == nil {
            throw ValidationError("unknown --output-format '\(kind)'; known: "
                + TileStoreFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if let baseUrl, !(baseUrl.hasPrefix("http://") || baseUrl.hasPrefix("https://")) {
            throw ValidationError("--base-url must be an absolute http(s) URL")
        }
        if baseUrl != nil, format != .directory {
            throw ValidationError("--base-url writes tiles.json into an output folder; an archive keeps its metadata inside")
        }
    }

    private var format: TileStoreFormat {
        outputFormat.flatMap { TileStoreFormat(rawValue: $0.lowercased()) } ?? TileStoreFormat(path: output)
    }

    func run() throws {
        let started = Date()
        let terminal = Terminal(quiet: quiet)
        let join: TilesetJoin
        let store: any TileStore
        do {
            join = try TilesetJoin(parts: parts.map { .init(path: $0, source: try TileStoreFormat.openSource(path: $0)) })
            store = try format.makeStore(path: output, force: force)
        } catch {
            throw failure("error: \(error)")
        }
        let cleanup = InterruptCleanup { store.abort() }
        defer { cleanup.cancel() }
        let copied: (tiles: Int, bytes: Int)
        do {
            var done = 0
            copied = try join.write(into: store, name: name ?? format.tilesetName(forPath: output)) { tiles in
                done += 1
                terminal.note("joined \(done) of \(parts.count) parts, \(tiles) tiles")
            }
            if let baseUrl, let folder = store as? DirectoryTileStore {
                var metadata = join.metadata
                metadata.name = name ?? format.tilesetName(forPath: output)
                try folder.putFile(named: "tiles.json", contents: metadata.tileJSON(baseURL: baseUrl))
            }
            try store.commit()
        } catch {
            store.abort()
            cleanup.waitIfInterrupted()
            throw failure("error: \(error)")
        }
        terminal.note("\(copied.tiles) tiles, \(Terminal.bytes(copied.bytes)) "
            + String(format: "in %.2f s", Date().timeIntervalSince(started)) + "\nwrote \(output)")
    }
}
