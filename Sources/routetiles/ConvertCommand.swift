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

    @Option(help: "Kind of destination, instead of telling it from the name (directory, mbtiles, pmtiles).")
    var store: String?

    @Flag(help: "Replace the destination if it exists.")
    var force = false

    @Flag(name: .shortAndLong, help: "No summary.")
    var quiet = false

    func validate() throws {
        if let store, TileStoreFormat(rawValue: store.lowercased()) == nil {
            throw ValidationError("unknown --store '\(store)'")
        }
    }

    func run() throws {
        let started = Date()
        let input: any TileSource
        let output: any TileStore
        let ids: [TileID]
        do {
            input = try TileStoreFormat.openSource(path: source)
            ids = try input.tileIDs()
            let format = store.flatMap { TileStoreFormat(rawValue: $0.lowercased()) } ?? TileStoreFormat(path: destination)
            output = try format.makeStore(path: destination, force: force)
        } catch {
            throw failure("error: \(error)")
        }
        let cleanup = InterruptCleanup { output.abort() }
        defer { cleanup.cancel() }
        var bytes = 0
        var copied = 0
        do {
            for id in ids {
                guard let data = try input.gzipTile(id) else { continue }
                try output.put(id, gzipData: data)
                bytes += data.count
                copied += 1
            }
            try output.putMetadata(input.metadata)
            try output.commit()
        } catch {
            output.abort()
            cleanup.waitIfInterrupted()
            throw failure("error: \(error)")
        }
        if !quiet {
            let text = "\(copied) tiles, \(Terminal.bytes(bytes)) "
                + String(format: "in %.2f s\n", Date().timeIntervalSince(started)) + "wrote \(destination)\n"
            FileHandle.standardError.write(Data(text.utf8))
        }
    }
}
