/// A text with named slots, `{{name}}`, filled in one pass: what a value brings is never read for slots, so a
/// value that holds `{{config}}` stays as it is. The viewer's page (`Viewer/index.html`) is one.
struct PageTemplate: Sendable {
    private enum Piece: Sendable {
        case text(Substring)
        case slot(Substring)
    }

    private let pieces: [Piece]

    init(_ text: String) {
        var pieces: [Piece] = []
        var rest = text[...]
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            pieces.append(.text(rest[..<open.lowerBound]))
            pieces.append(.slot(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        pieces.append(.text(rest))
        self.pieces = pieces
    }

    /// The names of the template's slots, in order, each as often as it appears.
    var slots: [String] {
        pieces.compactMap { if case let .slot(name) = $0 { String(name) } else { nil } }
    }

    /// The text with each slot replaced by its value; a slot without a value is left as it was written.
    func filled(_ values: [String: String]) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case let .text(text): out += text
            case let .slot(name): out += values[String(name)] ?? "{{\(name)}}"
            }
        }
        return out
    }
}
