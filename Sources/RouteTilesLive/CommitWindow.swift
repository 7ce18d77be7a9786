/// The catch-ups that ran while a round of writes was committing: woken by the store's notice of that very commit,
/// one may apply the round before its leader holds the apply lock, and the round's writes still answer with the tiles
/// that dropped. Only one round is between its commit and the apply lock at a time (its leader keeps the commit lock
/// until it holds the apply lock), so one window serves every round.
struct CommitWindow: Sendable {
    private var open = false
    private var seen: [(sequences: ClosedRange<Int64>, change: LiveRouteSet.Change)] = []

    /// Called by a round's leader before it commits.
    mutating func opened() {
        open = true
        seen.removeAll()
    }

    /// A catch-up's application: kept while a round is committing.
    mutating func record(_ sequences: ClosedRange<Int64>, change: LiveRouteSet.Change) {
        if open { seen.append((sequences, change)) }
    }

    /// Closes the window; returns what the catch-ups applied of `sequences`.
    mutating func closed(overlapping sequences: ClosedRange<Int64>?) -> [LiveRouteSet.Change] {
        open = false
        defer { seen.removeAll() }
        guard let sequences else { return [] }
        return seen.filter { $0.sequences.overlaps(sequences) }.map(\.change)
    }
}
