/// The changes a reader asked for were dropped from the feed: it must load the whole store again.
public struct RouteChangesPruned: Error, Sendable, CustomStringConvertible {
    /// The sequence the reader asked for changes after.
    public var after: Int64
    /// The oldest sequence the store still keeps.
    public var oldest: Int64

    /// An error for a reader asking after `after` when the oldest change kept is `oldest`.
    public init(after: Int64, oldest: Int64) {
        self.after = after
        self.oldest = oldest
    }

    /// Both sequences, for logs.
    public var description: String { "the changes after \(after) were pruned (the oldest kept is \(oldest))" }
}
