import Foundation
import RouteTilesModel

/// Where `--store` says the routes live: `memory`, a PostgreSQL URL, or a SQLite file.
package enum RouteStoreLocation: Equatable, Sendable {
    /// In this process only: lost when it ends.
    case memory
    /// A SQLite file (created when missing).
    case sqlite(path: String)
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?OPTIONS]` (or `postgresql://`).
    case postgres(url: String)

    /// The kinds a store value may name, for messages.
    package static let acceptedKinds = "a SQLite file path, sqlite:PATH, memory, or postgres://USER@HOST[:PORT]/DB "
        + "(or postgresql://…)"

    /// `memory`; `postgres://…` or `postgresql://…`; `sqlite:PATH`; any other `scheme://…` is an error (a store
    /// this program cannot open, not a file of that name); anything else is the path of a SQLite file.
    package init(_ text: String) throws {
        let lower = text.lowercased()
        if lower == "memory" {
            self = .memory
        } else if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else if lower.hasPrefix("sqlite:") {
            self = .sqlite(path: String(text.dropFirst("sqlite:".count)))
        } else if let scheme = Self.urlScheme(of: text) {
            throw ValueError("unknown store kind '\(scheme)://' in '\(Self.redacted(text, scheme: scheme))': a route "
                + "store is " + Self.acceptedKinds)
        } else {
            self = .sqlite(path: text)
        }
    }

    /// Whether `text` names a route store rather than a route file, for commands that take either as an input:
    /// a PostgreSQL URL, `sqlite:PATH`, or a SQLite file that holds a route store.
    package static func isStore(_ text: String, fileStartsWithSQLite: Bool) -> Bool {
        switch try? RouteStoreLocation(text) {
        case .postgres?: return true
        case .memory?, nil: return false
        case .sqlite?: return text.lowercased().hasPrefix("sqlite:") || fileStartsWithSQLite
        }
    }

    /// The scheme of a `scheme://…` value (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`), or nil.
    private static func urlScheme(of text: String) -> String? {
        guard let end = text.range(of: "://") else { return nil }
        let scheme = text[..<end.lowerBound]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
              scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                  || "+-.".unicodeScalars.contains($0)) })
        else { return nil }
        return String(scheme)
    }

    /// `text` with the password of its user information, if any, replaced by `***`; a value that does not parse
    /// as a URL but has user information shows as its scheme alone.
    private static func redacted(_ text: String, scheme: String) -> String {
        guard var components = URLComponents(string: text) else {
            return text.contains("@") ? scheme + "://…" : text
        }
        guard components.password != nil else { return text }
        components.password = "***"
        return components.string ?? scheme + "://…"
    }
}
