/// A store that cannot be reached or refused an operation. Writes that end in this error were not acknowledged:
/// the server answers 503 and the client tries again.
public struct RouteStoreError: Error, Sendable, CustomStringConvertible {
    /// The store, as `RouteStore.displayName` names it.
    public var store: String
    public var message: String

    public init(store: String, message: String) {
        self.store = store
        self.message = message
    }

    public var description: String { "\(store): \(message)" }
}
