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

    @OptionGroup
    var outputOptions: OutputOptions

    @OptionGroup
    var naming: TilesetNamingOptions

    @Flag(name: .shortAndLong, help: "No progress and no summary.")
    var quiet = false

    func validate() throws {
        try naming.validate(outputFormat: outputOptions.format(for: output))
    }

    func run() throws {
        let started = Date()
        let terminal = Terminal(quiet: quiet)
        let join: TilesetJoin
        do {
            join = try TilesetJoin(parts: parts.map { .init(path: $0, source: try TileStoreFormat.openSource(path: $0)) })
        } catch {
            throw failure("error: \(error)")
        }
        var metadata = join.metadata
        metadata.name = naming.name ?? outputOptions.format(for: output).tilesetName(forPath: output)
        let copied = try outputOptions.write(to: output) { store -> (TilesetMetadata, (tiles: Int, bytes: Int)) in
            var done = 0
            let copied = try join.copyTiles(into: store) { tiles in
                done += 1
                terminal.note("joined \(done) of \(parts.count) parts, \(tiles) tiles")
            }
            try naming.writeTileJSON(metadata, into: store)
            return (metadata, copied)
        }
        terminal.note("\(copied.tiles) tiles, \(Terminal.bytes(copied.bytes)) "
            + String(format: "in %.2f s", Date().timeIntervalSince(started)) + "\nwrote \(output)")
    }
}
