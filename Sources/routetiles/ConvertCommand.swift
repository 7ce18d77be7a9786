import ArgumentParser
import Foundation
import RouteTiles

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Copy a tileset between a folder, MBTiles and PMTiles (tiles byte for byte, with the metadata).")

    @Argument(help: "The tileset to read: a folder, X.mbtiles or X.pmtiles.", completion: .file())
    var source: String

    @Argument(help: "The tileset to write: a folder, X.mbtiles or X.pmtiles.", completion: .file())
    var destination: String

    @OptionGroup
    var outputOptions: OutputOptions

    @Flag(name: .shortAndLong, help: "No summary.")
    var quiet = false

    func run() throws {
        let started = Date()
        let input: any TileSource
        let ids: [TileID]
        do {
            input = try TileStoreFormat.openSource(path: source)
            ids = try input.tileIDs()
        } catch {
            throw failure("error: \(error)")
        }
        let (copied, bytes) = try outputOptions.write(to: destination) { output -> (TilesetMetadata, (Int, Int)) in
            var bytes = 0, copied = 0
            for id in ids {
                guard let data = try input.gzipTile(id) else { continue }
                try output.put(id, gzipData: data)
                bytes += data.count
                copied += 1
            }
            return (input.metadata, (copied, bytes))
        }
        if !quiet {
            let text = "\(copied) tiles, \(Terminal.bytes(bytes)) "
                + String(format: "in %.2f s\n", Date().timeIntervalSince(started)) + "wrote \(destination)\n"
            FileHandle.standardError.write(Data(text.utf8))
        }
    }
}
