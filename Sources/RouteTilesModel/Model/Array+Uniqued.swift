extension Array where Element: Hashable {
    /// The elements in order, each once.
    package func uniqued() -> [Element] {
        // One element (a write's one change, the common case) needs no set.
        if count < 2 { return self }
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
