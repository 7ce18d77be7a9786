import ArgumentParser
import RouteTiles

/// The options of `build` and `join` that name the tileset they write and say where it will be published: the name
/// in its metadata, and the public URL that an output folder's tiles.json gives its tile URLs.
struct TilesetNamingOptions: ParsableArguments {
    @Option(help: "Name of the tileset in its metadata. Default: the output's name without its extension.")
    var name: String?

    @Option(help: "Public URL of the tileset: writes tiles.json (TileJSON 3.0.0) with absolute tile URLs into an output folder.")
    var baseUrl: String?

    func validate() throws {
        if let baseUrl, !(baseUrl.hasPrefix("http://") || baseUrl.hasPrefix("https://")) {
            throw ValidationError("--base-url must be an absolute http(s) URL")
        }
    }

    /// Refuses --base-url for an output of another kind than a folder.
    func validate(outputFormat: TileStoreFormat) throws {
        if baseUrl != nil, outputFormat != .directory {
            throw ValidationError("--base-url writes tiles.json into an output folder; an archive keeps its metadata "
                + "inside (routetiles serve --tiles serves its tiles.json)")
        }
    }

    /// With --base-url, writes tiles.json for `metadata` into `store` when it is a folder.
    func writeTileJSON(_ metadata: TilesetMetadata, into store: any TileStore) throws {
        if let baseUrl, let folder = store as? DirectoryTileStore {
            try folder.putFile(named: "tiles.json", contents: metadata.tileJSON(baseURL: baseUrl))
        }
    }
}
