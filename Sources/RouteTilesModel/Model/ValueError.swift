/// A value given as text that does not parse (a bounding box, a zoom range): the message names the value and what
/// is wrong with it, not where it came from. A caller that knows (a command-line flag, a query parameter) adds that.
package struct ValueError: Error, CustomStringConvertible, Sendable, Equatable {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
