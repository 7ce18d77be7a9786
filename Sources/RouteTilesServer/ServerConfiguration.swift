import Foundation
import RouteTiles
import RouteTilesAccess

/// Everything `routetiles serve` can be told, with the defaults a tile server is expected to have.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port (tests).
    public var port = 8080
    /// The public base URL of the server (behind a proxy or CDN), used in TileJSON; nil uses the request's Host.
    public var publicURL: String?
    /// `Cache-Control` of tiles; nil: `liveCacheControl` for routes that can change (a durable or shared store, or a
    /// write token), `staticCacheControl` for a finished tileset or routes in memory that nothing can change.
    public var cacheControl: String?
    /// Live routes change at any moment: browsers keep a tile a few seconds, and a cache may answer with it for a
    /// few more while it asks again (with `If-None-Match`, answered 304 when nothing changed). A cache that is told
    /// of changes (`serve --purge`) drops a changed tile at once; the short lifetime bounds what the others show.
    public static let liveCacheControl = "public, max-age=5, stale-while-revalidate=15"
    /// A finished tileset, or routes from files, change only when the server restarts with other files: a day.
    public static let staticCacheControl = "public, max-age=86400, stale-while-revalidate=86400"
    /// `Last-Modified` of the tiles of a finished tileset or of routes read from files (such as the tileset file's
    /// modification time); nil: the time the server started. Live tiles have none (Docs/HTTP.md, "Tiles").
    public var lastModified: Date?
    /// `Access-Control-Allow-Origin`; nil sends no CORS headers.
    public var corsOrigin: String? = "*"
    /// Bytes of compressed tiles kept in memory.
    public var cacheBytes = 256 << 20
    /// Bytes of compressed window tiles (`?from=…&to=…`) kept in memory, apart from the default tiles.
    public var windowCacheBytes = 64 << 20
    /// The most bytes of raster tiles (PNG) kept in memory; each is kept with the tag of the vector tile it was drawn
    /// from, and used only while that tile is current.
    public var rasterCacheBytes = 64 << 20
    /// The largest request body accepted by the write endpoints.
    public var maxBodyBytes = 32 << 20
    /// The bearer token that write requests need; nil turns writes off unless `credentials` verifies JWTs. A
    /// full-access credential: it reads every group and writes every route.
    public var writeToken: String?
    /// Who may read tiles, routes, events, `tiles.json` and `style.json`: anyone (`.public`), or holders of a
    /// credential (`.token`), each reading the groups it names.
    public var read: ReadPolicy = .public
    /// What verifies credentials: JWTs (`--jwt-secret-file`, `--jwks`) and the write token. Nil: the write token
    /// alone (a verifier of `writeToken` is made).
    public var credentials: CredentialVerifier?
    /// Where `credentials` gets its keys again, on SIGHUP (`force`) and every `keyReloadInterval`: nil keeps the
    /// keys it was made with.
    public var credentialKeySource: (@Sendable (_ force: Bool) async throws -> CredentialKeys)?
    /// How often `credentialKeySource` is asked: a changed key file is in use within this time.
    public var keyReloadInterval: Duration = .seconds(5)
    /// The certificate chain and private key (PEM files) to serve HTTPS with, HTTP/2 and HTTP/1.1 (`serve
    /// --tls-cert`, `--tls-key`); read again when they change. Nil: plain HTTP.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?

    /// Limits that make abuse cost the abuser (`serve --limit-…`): each a number a minute, 0 for no limit.
    public var rateLimits = RateLimits()
    /// Where every write is recorded, one JSON line each (`serve --audit-log`); nil for nowhere.
    public var auditLogPath: String?
    /// The proxies whose `X-Forwarded-For` names the client (`serve --trusted-proxy`), for per-address limits and
    /// the audit log; none by default (the peer is the client).
    public var trustedProxies = TrustedProxies()

    public struct RateLimits: Sendable {
        /// Writes a minute per credential (a JWT's `sub`, or the token's digest); the write token is not limited.
        public var writesPerCredential = 600
        /// Writes a minute per client address, whatever the credential; off by default (a fleet behind one NAT
        /// shares an address).
        public var writesPerAddress = 0
        /// Failed authentications a minute per client address, past which its requests with a credential get 429.
        public var authenticationFailuresPerAddress = 30

        public init() {}
    }

    /// Whether JWTs may write (as their `write` claims say). `serve` turns it off for routes without a store,
    /// which would forget the writes; the write token writes where writes are kept.
    public var jwtWrites = true
    /// Where the z/x/y of every invalidated tile is appended, one per line.
    public var expireLogPath: String?
    /// Where MapLibre GL JS's `maplibre-gl.js` and `maplibre-gl.css` are loaded from.
    public var mapLibreURL = "https://unpkg.com/maplibre-gl@5.3.0/dist"
    /// The MapLibre style the viewer draws under the routes; nil: the routes alone, on a plain background.
    public var basemapStyleURL: String? = ServerConfiguration.defaultBasemap
    /// OpenFreeMap's Positron: OpenStreetMap data in a light, muted style under which coloured routes stand out,
    /// served with no key, account or request quota.
    public static let defaultBasemap = "https://tiles.openfreemap.org/styles/positron"
    /// A folder served under `/assets/`.
    public var assetsDirectory: String?
    /// Tiles generated at once, one per core by default; more wait in a queue.
    public var generationConcurrency = ProcessInfo.processInfo.activeProcessorCount
    /// Tile generations that may wait; past that the server answers 503.
    public var generationQueueLimit = 256
    /// Seconds in the `Retry-After` of a 503.
    public var retryAfterSeconds = 1
    /// How bodies of the write endpoints are read: polyline precision, geodesics, CSV columns, as for the route
    /// files. `skipInvalid` is ignored: a body with an invalid route is refused whole, so the client learns of it.
    public var readOptions = ReadOptions()
    /// gzip level of tiles cut on demand, 0 (store) to 9 (smallest); the same default as `routetiles build`.
    public var compressionLevel: Int32 = GzipCompressor.defaultLevel
    /// Glitch filters of appended fixes (`POST /routes/{id}/points`, `POST /routes/points`): dropped fixes are
    /// counted in `/metrics` (`routetiles_fixes_dropped_total`) and named in the answer. Off by default.
    public var fixFilter = FixFilter()
    /// How far ahead of this server's clock a fix's time may be (milliseconds; `serve --max-fix-skew`, 10 minutes by
    /// default): a later one is a 400, as a position out of range is. Times in the past are fine (a phone's offline
    /// backlog).
    public var maxFixSkew: Int64 = 600_000
    /// `/osmand` makes the route of an unknown id from its first fix (`serve --create-from-fixes`): a line of that
    /// fix twice, at its time, which the next fix makes a segment. Off: an unknown id is a 404.
    public var createRoutesFromFixes = false

    public init() {}

    /// The latest time a fix may have now (`maxFixSkew` past the clock).
    var latestFixTime: Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded()) + maxFixSkew
    }
}
