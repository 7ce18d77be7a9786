import RouteTilesModel

/// What a store remembers of a route imported from a file: the content the file held, and the route's version
/// right after that import. A route whose stored version has moved on since was changed by someone else (the HTTP
/// API, SQL, another replica), and the next start with the same file leaves it as it is.
public struct RouteImportRecord: Sendable, Equatable {
    /// `RouteContentHash` of the route as the file held it.
    public var contentHash: String
    /// The route's version right after the import (its own if the import wrote it, the stored one if it kept it).
    public var version: Int64

    /// A record of an import of content `contentHash` that left the route at `version`.
    public init(contentHash: String, version: Int64) {
        self.contentHash = contentHash
        self.version = version
    }
}

/// One route's part of an import from files, decided by `RouteStoreImport` from a snapshot of the store and
/// applied by the store only if the route is still as that snapshot saw it.
public struct RouteImportEntry: Sendable {
    /// What to do with the route.
    public enum Action: Sendable {
        /// Write the file's route (added, or replacing the stored one) and record its import.
        case write(Route)
        /// Leave the stored route as it is and record that this content of the file was seen.
        case record
        /// Remove the stored route and forget its import (`load --prune`).
        case remove
    }

    /// The key of the route.
    public var key: String
    /// `RouteContentHash` of the file's route (unused by `remove`).
    public var contentHash: String
    /// The version the importer saw stored under `key`, nil when none was stored. A store that holds anything
    /// else now skips the entry: the route changed after the importer looked, and that change is newer.
    public var expectedVersion: Int64?
    /// What to do.
    public var action: Action

    /// One entry of an import.
    public init(key: String, contentHash: String, expectedVersion: Int64?, action: Action) {
        self.key = key
        self.contentHash = contentHash
        self.expectedVersion = expectedVersion
        self.action = action
    }
}

/// What a committed import did.
public struct RouteImportResult: Sendable {
    /// The changes it made, in sequence order.
    public var changes: [RouteChange]
    /// The routes written, as written.
    public var written: [StoredRoute]
    /// The keys of entries skipped because the route was no longer as the importer saw it.
    public var skipped: [String]

    /// The outcome of one import transaction.
    public init(changes: [RouteChange] = [], written: [StoredRoute] = [], skipped: [String] = []) {
        self.changes = changes
        self.written = written
        self.skipped = skipped
    }
}
