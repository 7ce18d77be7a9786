import RouteTiles

extension TileStoreFormat {
    /// `makeStore`, with the library's "already exists" followed by the flag that replaces it.
    func makeStore(path: String, force: Bool, tileFormat: TileFormat = .mvt) throws -> any TileStore {
        do {
            return try makeStore(path: path, replace: force, tileFormat: tileFormat)
        } catch var error as StoreError where error.message == StoreError.alreadyExists {
            error.message += "; pass --force to replace it"
            throw error
        }
    }
}
