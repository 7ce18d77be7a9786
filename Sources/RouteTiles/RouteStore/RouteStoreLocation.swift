/// Where `--store` says the routes live: `memory`, a PostgreSQL URL, or a SQLite file.
package enum RouteStoreLocation: Equatable, Sendable {
    /// In this process only: lost when it ends.
    case memory
    /// A SQLite file (created when missing).
    case sqlite(path: String)
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?OPTIONS]` (or `postgresql://`).
    case postgres(url: String)

    /// `memory`; `postgres://…` or `postgresql://…`; `sqlite:PATH`; anything else is the path of a SQLite file.
    package init(_ text: String) {
        let lower = text.lowercased()
        if lower == "memory" {
            self = .memory
        } else if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else if lower.hasPrefix("sqlite:") {
            self = .sqlite(path: String(text.dropFirst("sqlite:".count)))
        } else {
            self = .sqlite(path: text)
        }
    }

    /// Whether `text` names a route store rather than a route file, for commands that take either as an input:
    /// a PostgreSQL URL, `sqlite:PATH`, or a SQLite file that holds a route store.
    package static func isStore(_ text: String, fileStartsWithSQLite: Bool) -> Bool {
        switch RouteStoreLocation(text) {
        case .postgres: return true
        case .memory: return false
        case .sqlite: return text.lowercased().hasPrefix("sqlite:") || fileStartsWithSQLite
        }
    }
}
