/// A store that cannot be reached or refused an operation. Writes that end in this error were not acknowledged:
/// the server answers 503 and the client tries again.
public struct RouteStoreError: Error, Sendable, CustomStringConvertible {
    /// The store, as `RouteStore.displayName` names it.
    public var store: String
    /// What failed.
    public var message: String

    /// An error of the store named `store`.
    public init(store: String, message: String) {
        self.store = store
        self.message = message
    }

    /// The store and the message, for logs and responses.
    public var description: String { "\(store): \(message)" }
}
