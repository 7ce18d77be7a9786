/// The route groups a credential may read: every group, or some named ones (a JWT's `read` claim).
///
/// A route's group is its `group` property, or `default` without one (`RouteGroup`). A scope has a canonical text,
/// `key` (`*`, or the names sorted and joined by commas), which names it in cache keys and in signed tile URLs, so
/// that two credentials with the same groups share cached tiles and URLs.
public enum GroupScope: Sendable, Hashable {
    /// Every group, present and future (`["*"]`).
    case all
    /// These groups only; an empty set reads nothing.
    case only(Set<String>)

    /// The scope a `read` claim names: `*` anywhere in it means every group.
    public init(claim names: [String]) {
        self = names.contains("*") ? .all : .only(Set(names))
    }

    /// The scope that a canonical text (`key`) names; nil for text no scope writes.
    public init?(key: String) {
        if key == "*" {
            self = .all
            return
        }
        if key.isEmpty {
            self = .only([])
            return
        }
        let escaped = key.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard escaped == escaped.sorted(), Set(escaped).count == escaped.count else { return nil }
        var names = Set<String>()
        for name in escaped {
            guard let unescaped = Self.unescape(name), !unescaped.isEmpty, Self.escape(unescaped) == name else { return nil }
            names.insert(unescaped)
        }
        self = .only(names)
    }

    /// Whether routes of `group` may be read.
    public func contains(_ group: some StringProtocol) -> Bool {
        switch self {
        case .all: return true
        case let .only(names): return names.contains(String(group))
        }
    }

    /// Whether every group may be read.
    public var isAll: Bool {
        if case .all = self { return true }
        return false
    }

    /// The canonical text: `*`, or the names with `%`, `,` and `*` escaped (`%25`, `%2C`, `%2A`), sorted and
    /// joined by commas.
    public var key: String {
        switch self {
        case .all: return "*"
        case let .only(names): return names.map(Self.escape).sorted().joined(separator: ",")
        }
    }

    static func escape(_ name: String) -> String {
        var out = ""
        for c in name.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case ",": out += "%2C"
            case "*": out += "%2A"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    static func unescape(_ text: String) -> String? {
        var out = "", rest = Substring(text)
        while let percent = rest.firstIndex(of: "%") {
            out += rest[..<percent]
            let code = rest[percent...].prefix(3)
            switch code {
            case "%25": out += "%"
            case "%2C": out += ","
            case "%2A": out += "*"
            default: return nil
            }
            rest = rest[percent...].dropFirst(3)
        }
        return out + rest
    }
}
