import Foundation
import RouteTiles

/// One cache node that is told of changed tiles: the URL it answers tiles under, less the tile paths (scheme, host,
/// port, and the path prefix the cache puts in front of `/tiles/`, if any), and the method of a purge.
///
/// A tile's purge goes to the path a client fetches, `{base}/tiles/{z}/{x}/{y}.mvt`. The `.pbf` spelling of the same
/// tile is not purged: the shipped Varnish configuration (Docs/varnish/routetiles.vcl) stores both under `.mvt`.
package struct PurgeTarget: Sendable, Equatable {
    /// The URL without a trailing slash, such as `http://127.0.0.1:6081` or `http://cache:6081/maps`.
    package let base: String
    /// The method of a tile's purge: `PURGE` for Varnish and for most caches that accept purges over HTTP.
    package let method: String

    /// - Parameter url: an `http://` or `https://` URL with a host, without query or fragment.
    package init(_ url: String, method: String = "PURGE") throws {
        guard let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = parsed.host, !host.isEmpty
        else {
            throw ValueError("'\(url)' is not an http:// or https:// URL with a host")
        }
        guard parsed.query == nil, parsed.fragment == nil else {
            throw ValueError("'\(url)' has a query or a fragment; give the cache's base URL")
        }
        guard !method.isEmpty, method.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            throw ValueError("'\(method)' is not a request method (upper-case letters, such as PURGE)")
        }
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        self.method = method
    }

    /// The URL a client fetches `tile` at, through this cache.
    package func url(for tile: TileID) -> String {
        "\(base)/tiles/\(tile.z)/\(tile.x)/\(tile.y).mvt"
    }

    /// The URL of a `BAN` of every tile: the tiles' path prefix.
    package var banURL: String { base + "/tiles/" }
}
