import RouteTilesModel

/// A JSON syntax error at a byte offset.
///
/// The scanner tracks nothing but a byte offset while it reads; the line and column are worked out from the offset
/// only when the error is reported, so the hot loops carry no line bookkeeping.
package struct JSONSyntaxError: Error, Equatable, Sendable {
    /// 0-based byte offset of the offending byte (or of the start of the offending token).
    var offset: Int
    var message: String

    /// The error as the user sees it: file, 1-based line and byte column, message.
    func inputError(file: String, in bytes: UnsafeBufferPointer<UInt8>) -> InputError {
        let position = TextPosition(offset: offset, in: bytes)
        return InputError(file: file, location: .line(position.line, column: position.column), message: message)
    }
}

/// A 1-based line and byte column, derived from a byte offset by counting line feeds before it.
///
/// A CRLF line break counts once, because only the LF is counted. Columns are in bytes, as `InputError` documents.
struct TextPosition: Equatable, Sendable {
    var line: Int
    var column: Int

    init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    init(offset: Int, in bytes: UnsafeBufferPointer<UInt8>) {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        var index = 0
        while index < end {
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        self.line = line
        self.column = end - lineStart + 1
    }
}
