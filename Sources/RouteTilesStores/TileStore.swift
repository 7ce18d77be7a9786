import RouteTilesBuild

/// A tileset being written: tiles (from many threads), then the metadata, then `commit()` puts it in place at
/// once; `abort()` (safe from a signal handler) discards it and leaves any previous tileset as it was.
public protocol TileStore: TileSink {
    /// Records what the tileset says about itself. Called once, after the tiles and before `commit()`.
    func putMetadata(_ metadata: TilesetMetadata) throws
    /// Finishes the tileset and moves it into place, replacing the previous one.
    func commit() throws
    /// Discards everything written; idempotent.
    func abort()
}

extension DirectoryTileStore: TileStore {
    /// Writes the metadata as the pyramid's `metadata.json`.
    public func putMetadata(_ metadata: TilesetMetadata) throws {
        try putFile(named: "metadata.json", contents: metadata.metadataJSON)
    }
}
