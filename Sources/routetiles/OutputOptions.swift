import ArgumentParser
import Foundation
import RouteTiles

/// The options of every command that writes a tileset (`build`, `join`, `seed --output`, `convert`): the kind of
/// output and whether to replace it. The output's path is each command's own (`-o`, or an argument).
struct OutputOptions: ParsableArguments {
    @Option(help: "Kind of output, instead of telling it from the output's name (directory, mbtiles, pmtiles).")
    var outputFormat: String?

    /// The former spelling of --output-format, still accepted.
    @Option(help: .hidden)
    var store: String?

    @Flag(help: "Replace the output if it exists.")
    var force = false

    func validate() throws {
        if outputFormat != nil && store != nil { throw ValidationError("give --output-format once (--store is its former name)") }
        if let kind = outputFormat ?? store, TileStoreFormat(rawValue: kind.lowercased()) == nil {
            throw ValidationError("unknown --output-format '\(kind)'; known: "
                + TileStoreFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    /// The kind of tileset written at `path`: as given, else told by its name.
    func format(for path: String) -> TileStoreFormat {
        (outputFormat ?? store).flatMap { TileStoreFormat(rawValue: $0.lowercased()) } ?? TileStoreFormat(path: path)
    }

    /// Writes a tileset of `tileFormat` tiles at `path`: `body` puts the tiles and returns the metadata, then the
    /// tileset is committed.
    /// On an error, or when the process is interrupted, what was written is discarded and any previous tileset at
    /// `path` stays as it was; the error is printed as the command's failure.
    func write<Result>(to path: String, tileFormat: TileFormat = .mvt,
                       _ body: (any TileStore) throws -> (TilesetMetadata, Result)) throws -> Result {
        let store: any TileStore
        do {
            store = try format(for: path).makeStore(path: path, force: force, tileFormat: tileFormat)
        } catch {
            throw failure("error: \(error)")
        }
        let cleanup = InterruptCleanup { store.abort() }
        defer { cleanup.cancel() }
        do {
            let (metadata, result) = try body(store)
            try store.putMetadata(metadata)
            try store.commit()
            return result
        } catch let error as ExitCode {
            store.abort()
            cleanup.waitIfInterrupted()
            throw error
        } catch {
            store.abort()
            cleanup.waitIfInterrupted()
            throw failure("error: \(error)")
        }
    }
}
