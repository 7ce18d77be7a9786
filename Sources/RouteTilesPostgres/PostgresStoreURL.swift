import Foundation
import NIOSSL
import PostgresNIO
import RouteTiles

/// A `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?OPTIONS]` URL (or `postgresql://`), as libpq reads it, turned into
/// a client configuration. Options: `sslmode` (disable, allow, prefer, require, verify-ca, verify-full; default
/// prefer, as libpq), `connect_timeout` (seconds, default 5), `application_name`; and RouteTiles' own `schema`
/// and `table`, which name the routes table.
///
/// The password, as libpq finds it: the URL's, else `PGPASSWORD`'s, else the first matching line of the password
/// file (`PGPASSFILE`, default `~/.pgpass`: `PostgresPasswordFile`), else none. The variable and the file keep it out
/// of the process list.
package struct PostgresStoreURL: Sendable {
    package var host: String
    package var port: Int
    package var user: String
    package var password: String?
    package var database: String?
    package var sslMode: String
    package var connectTimeout: Duration
    package var applicationName: String
    package var schema: String?
    package var table: String?
    /// What the reader of the URL should be told: a password file that was there but ignored.
    package var warnings: [String] = []

    /// Reads `text`, with `environment` for the defaults libpq takes from it (`USER`, `PGPASSWORD`, `PGPASSFILE`,
    /// `HOME`).
    package init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw RouteStoreError(store: "postgres", message: "not a postgres://USER@HOST:PORT/DB URL: \(Self.redacted(text))")
        }
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        user = components.user.flatMap { $0.removingPercentEncoding } ?? environment["USER"] ?? "postgres"
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path.removingPercentEncoding
        // As libpq: without a password in the URL, PGPASSWORD's, else the password file's.
        password = components.password.flatMap { $0.removingPercentEncoding }
            ?? environment["PGPASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        if password == nil {
            // libpq matches the host as written, "localhost" when none is (its Unix socket), and the database
            // name, which defaults to the user's.
            let found = PostgresPasswordFile.lookUp(host: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost",
                                                    port: port, database: database ?? user, user: user,
                                                    environment: environment)
            password = found.password.flatMap { $0.isEmpty ? nil : $0 }
            if let warning = found.warning { warnings.append(warning) }
        }
        sslMode = "prefer"
        connectTimeout = .seconds(5)
        applicationName = "routetiles"
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].contains(value) else {
                    throw RouteStoreError(store: "postgres", message: "unknown sslmode '\(value)'")
                }
                sslMode = value
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw RouteStoreError(store: "postgres", message: "connect_timeout must be a positive number of seconds")
                }
                connectTimeout = .seconds(seconds)
            case "application_name": applicationName = value
            case "schema": schema = value
            case "table": table = value
            default:
                throw RouteStoreError(store: "postgres", message: "unknown URL option '\(item.name)' (known: sslmode, connect_timeout, application_name, schema, table)")
            }
        }
    }

    /// The URL without its password, for messages.
    package var displayName: String {
        "postgres://\(user)@\(host):\(port)/\(database ?? "")"
    }

    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? text
    }

    var configuration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "disable": tls = .disable
        case "allow", "prefer":
            var config = TLSConfiguration.makeClientConfiguration()
            config.certificateVerification = .none
            tls = .prefer(config)
        case "require":
            // libpq's require encrypts without checking the certificate.
            var config = TLSConfiguration.makeClientConfiguration()
            config.certificateVerification = .none
            tls = .require(config)
        case "verify-ca":
            var config = TLSConfiguration.makeClientConfiguration()
            config.certificateVerification = .noHostnameVerification
            tls = .require(config)
        default:
            tls = .require(TLSConfiguration.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password,
                                                         database: database, tls: tls)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = 8
        configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        return configuration
    }
}
