/// A value given as text that does not parse (a bounding box, a zoom range): the message names the value and what
/// is wrong with it, not where it came from. A caller that knows (a command-line flag, a query parameter) adds that.
public struct ValueError: Error, CustomStringConvertible, Sendable, Equatable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
