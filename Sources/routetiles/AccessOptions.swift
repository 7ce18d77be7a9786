import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import RouteTiles
import RouteTilesAccess
import RouteTilesServer
import Synchronization

/// `serve`'s access control: who may read (`--read`), and the keys JWTs are verified with (`--jwt-secret-file`,
/// `--jwks`, with `--jwt-audience` and `--jwt-issuer`). The keys and the write token are read again on SIGHUP and
/// whenever their files change (`keys(writeToken:)`, which the server's key reloader calls).
struct AccessOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Who may read tiles, routes, /events, tiles.json and style.json: 'public' (anyone), or 'token' (a credential: the write token, or a JWT whose read claim names the groups it sees). The viewer, /health and its probes and /openapi.json stay open; /metrics then needs a full-access credential (the write token, or a JWT reading and writing everything).",
                               valueName: "public|token"))
    var read = ReadPolicy.public

    @Option(help: ArgumentHelp("Verify HS256 JWTs with this secret: the file's bytes, one trailing newline trimmed (at least 32 bytes). Reread on SIGHUP and when the file changes.",
                               valueName: "path"),
            completion: .file())
    var jwtSecretFile: String?

    @Option(help: ArgumentHelp("Verify RS256, PS256, ES256 and EdDSA JWTs with the public keys of this JWKS: a file (reread on SIGHUP and when it changes) or an http(s) URL (fetched at start, then every 5 minutes and on SIGHUP).",
                               valueName: "path|url"),
            completion: .file())
    var jwks: String?

    @Option(help: ArgumentHelp("A JWT's aud must include this.", valueName: "aud"))
    var jwtAudience: String?

    @Option(help: ArgumentHelp("A JWT's iss must equal this.", valueName: "iss"))
    var jwtIssuer: String?

    @Option(help: ArgumentHelp("Writes a minute one credential may make (a JWT, by its sub); past it, 429 with Retry-After. The write token is not limited. 0: no limit.",
                               valueName: "n"))
    var limitWrites = ServerConfiguration.RateLimits().writesPerCredential

    @Option(help: ArgumentHelp("Writes a minute from one client address, whatever the credential. 0 (the default): no limit, since a fleet behind one NAT shares an address.",
                               valueName: "n"))
    var limitAddressWrites = ServerConfiguration.RateLimits().writesPerAddress

    @Option(help: ArgumentHelp("Failed authentications a minute from one client address; past it, its requests with a credential get 429 with Retry-After. 0: no limit.",
                               valueName: "n"))
    var limitAuthFailures = ServerConfiguration.RateLimits().authenticationFailuresPerAddress

    @Option(help: ArgumentHelp("A proxy (load balancer, CDN, Varnish) whose X-Forwarded-For is believed: an address or a network (10.0.0.0/8, fd00::/8); repeat for more. Behind it, the client is the last address of X-Forwarded-For that is not a trusted proxy (nginx's set_real_ip_from, recursive), for --limit-address-writes, --limit-auth-failures and the audit log. Default: none; the peer is the client.",
                               valueName: "address/bits"))
    var trustedProxy: [String] = []

    @Option(help: ArgumentHelp("Serve HTTPS (HTTP/2 and HTTP/1.1) with this PEM certificate chain, with --tls-key. Reread on SIGHUP and when it changes; new connections use the new one.",
                               valueName: "path"),
            completion: .file())
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "path"), completion: .file())
    var tlsKey: String?

    @Option(help: ArgumentHelp("Record every write (who, from where, which routes, the status) in this file, one JSON object a line, appended.",
                               valueName: "path"),
            completion: .file())
    var auditLog: String?

    func validate() throws {
        if let jwtSecretFile { _ = try Self.secret(jwtSecretFile) }
        if let jwks, !Self.isURL(jwks) { _ = try Self.jwksFile(jwks) }
        if jwtSecretFile == nil && jwks == nil && (jwtAudience != nil || jwtIssuer != nil) {
            throw ValidationError("--jwt-audience and --jwt-issuer check JWTs: give --jwt-secret-file or --jwks too")
        }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("give --tls-cert and --tls-key together") }
        _ = try trustedProxies()
        for (name, value) in [("--limit-writes", limitWrites), ("--limit-address-writes", limitAddressWrites),
                              ("--limit-auth-failures", limitAuthFailures)] where value < 0 {
            throw ValidationError("\(name) must not be negative (0: no limit)")
        }
    }

    /// `--trusted-proxy`, read.
    func trustedProxies() throws -> TrustedProxies {
        do {
            return try TrustedProxies(trustedProxy)
        } catch {
            throw ValidationError("--trusted-proxy: \(error)")
        }
    }

    var rateLimits: ServerConfiguration.RateLimits {
        var limits = ServerConfiguration.RateLimits()
        limits.writesPerCredential = limitWrites
        limits.writesPerAddress = limitAddressWrites
        limits.authenticationFailuresPerAddress = limitAuthFailures
        return limits
    }

    var settings: CredentialVerifier.Settings {
        CredentialVerifier.Settings(audience: jwtAudience, issuer: jwtIssuer)
    }

    /// Whether JWTs are verified.
    var verifiesJWTs: Bool { jwtSecretFile != nil || jwks != nil }

    static func isURL(_ text: String) -> Bool { text.hasPrefix("http://") || text.hasPrefix("https://") }

    /// The HS256 secret of a file, checked (`CredentialKeys.hmacSecret(fileBytes:path:)`).
    static func secret(_ path: String) throws -> [UInt8] {
        let bytes = try contents(path, option: "--jwt-secret-file")
        do {
            return try CredentialKeys.hmacSecret(fileBytes: bytes, path: path)
        } catch {
            throw ValidationError("--jwt-secret-file \(error)")
        }
    }

    /// A JWKS file's text, checked as the verifier would.
    static func jwksFile(_ path: String) throws -> String {
        let text = String(decoding: try contents(path, option: "--jwks"), as: UTF8.self)
        do {
            _ = try CredentialVerifier(keys: CredentialKeys(jwks: text))
        } catch {
            throw ValidationError("--jwks \(path): \(error)")
        }
        return text
    }

    static func contents(_ path: String, option: String) throws -> [UInt8] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw ValidationError("\(option) \(path): no such file")
        }
        guard !isFolder.boolValue else { throw ValidationError("\(option) \(path): a folder, not a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("\(option) \(path): cannot read the file")
        }
        return Array(data)
    }
}

extension ReadPolicy: ExpressibleByArgument {}

/// Reads the credential keys from where `serve` was told they are: the files each time, a JWKS URL at most every
/// `urlLifetime` seconds (or when `force`d, on SIGHUP).
final class CredentialKeySource: Sendable {
    let options: AccessOptions
    let writeToken: @Sendable () throws -> String?
    let urlLifetime: TimeInterval
    private let fetched = Mutex<(text: String, at: Date)?>(nil)

    init(options: AccessOptions, urlLifetime: TimeInterval = 300, writeToken: @escaping @Sendable () throws -> String?) {
        self.options = options
        self.urlLifetime = urlLifetime
        self.writeToken = writeToken
    }

    func keys(force: Bool) async throws -> CredentialKeys {
        var keys = CredentialKeys(writeToken: try writeToken())
        if let path = options.jwtSecretFile { keys.hmacSecret = try AccessOptions.secret(path) }
        if let jwks = options.jwks {
            keys.jwks = AccessOptions.isURL(jwks) ? try await fetch(jwks, force: force) : try AccessOptions.jwksFile(jwks)
        }
        return keys
    }

    private func fetch(_ url: String, force: Bool) async throws -> String {
        if !force, let last = fetched.withLock({ $0 }), Date().timeIntervalSince(last.at) < urlLifetime { return last.text }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw ValidationError("--jwks \(url): cannot fetch it: \(error)")
        }
        guard response.status.code == 200 else {
            throw ValidationError("--jwks \(url): the server answered \(response.status.code)")
        }
        let text = String(buffer: body)
        do {
            _ = try CredentialVerifier(keys: CredentialKeys(jwks: text))
        } catch {
            throw ValidationError("--jwks \(url): \(error)")
        }
        fetched.withLock { $0 = (text, Date()) }
        return text
    }
}
