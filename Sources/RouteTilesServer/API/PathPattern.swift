import Foundation

/// The path of an operation of the HTTP API, written as the OpenAPI document writes it (`/routes/{id}/points`).
///
/// Most patterns are segments, each a literal or a `{name}` parameter that takes one whole, non-empty segment. Two
/// resources parse their own tail, because a malformed tail must get their answer (a 400 that says what is wrong
/// with a tile address) rather than the table's 404: tiles and assets match every path below a prefix (`subtree`),
/// and their handler gets what follows it.
struct PathPattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(Substring)
        case parameter(String)
    }

    /// The template, exactly as the OpenAPI document's `paths` has it.
    let template: String
    private let segments: [Segment]
    /// Every path that starts with this (`/tiles/`) matches; the handler parses the tail.
    private let subtree: String?
    /// With a subtree: only paths that end with this match (`@2x.png`); nil for every path below it.
    private let ending: String?
    /// With a subtree and an ending: paths that end with any of these do not match (`.png` but not `@2x.png`).
    private let excludedEndings: [String]

    /// A pattern of segments: `/health`, `/routes/{id}`, `/routes/{id}/points`.
    init(_ template: String) {
        self.template = template
        subtree = nil
        ending = nil
        excludedEndings = []
        segments = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}")
                ? .parameter(String(segment.dropFirst().dropLast())) : .literal(segment)
        }
    }

    /// Every path below `prefix` (which ends in `/`), documented as `template` (`/tiles/{z}/{x}/{y}.mvt`); with
    /// `ending`, only those that end with it and with none of `excluding`.
    init(subtree prefix: String, ending: String? = nil, excluding: [String] = [], documentedAs template: String) {
        self.template = template
        subtree = prefix
        self.ending = ending
        excludedEndings = excluding
        segments = []
    }

    var description: String { template }

    /// The parameters of `path` when it matches, else nil. Parameters keep their percent-encoding.
    func match(_ path: Substring) -> PathParameters? {
        if let subtree {
            guard path.hasPrefix(subtree) else { return nil }
            if let ending {
                guard path.hasSuffix(ending), !excludedEndings.contains(where: { path.hasSuffix($0) }) else { return nil }
            }
            return PathParameters(tail: path.dropFirst(subtree.count))
        }
        var parameters = PathParameters(tail: "")
        var rest = path.dropFirst()  // the leading "/"
        guard path.hasPrefix("/") else { return nil }
        for (index, segment) in segments.enumerated() {
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            let part = rest[..<end]
            let isLast = index == segments.count - 1
            // A path with more segments than the pattern, or fewer, does not match.
            guard isLast ? end == rest.endIndex : end != rest.endIndex else { return nil }
            switch segment {
            case let .literal(text):
                guard part == text else { return nil }
            case let .parameter(name):
                guard !part.isEmpty else { return nil }
                parameters.values.append((name, part))
            }
            rest = isLast ? rest[end...] : rest[rest.index(after: end)...]
        }
        return parameters
    }
}

/// The parameters a `PathPattern` took from a path: named segments, or the tail below a subtree.
struct PathParameters: Sendable {
    /// What follows a subtree's prefix (`14/8299/5636.mvt`); empty for a pattern of segments.
    var tail: Substring
    var values: [(name: String, value: Substring)] = []

    /// The raw (percent-encoded) value of the parameter `name`.
    subscript(name: String) -> Substring? {
        values.first { $0.name == name }?.value
    }

    /// The value of the parameter `name`, percent-decoded (a route id `trip%207` is `trip 7`); empty when the
    /// pattern has no such parameter.
    func decoded(_ name: String) -> String {
        self[name].map { $0.removingPercentEncoding ?? String($0) } ?? ""
    }
}
