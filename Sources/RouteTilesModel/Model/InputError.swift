/// Bad input: names the file, the place in it, and what is wrong.
public struct InputError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Where in the file the problem is.
    public enum Location: Sendable, Equatable {
        /// Nowhere in particular: the whole file.
        case none
        /// 1-based line and column (column counted in bytes).
        case line(Int, column: Int?)
        /// 0-based index of a feature in a GeoJSON collection.
        case feature(Int)
        /// 0-based character offset, as in an encoded polyline.
        case offset(Int)
    }

    /// The file's name or path, as the reader was given it.
    public var file: String
    /// Where in the file the problem is.
    public var location: Location
    /// What is wrong.
    public var message: String

    /// An error in `file` at `location`.
    public init(file: String, location: Location = .none, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    /// `file:line:column: message`, or the form that fits the location.
    public var description: String {
        switch location {
        case .none: return "\(file): \(message)"
        case let .line(line, column?): return "\(file):\(line):\(column): \(message)"
        case let .line(line, nil): return "\(file):\(line): \(message)"
        case let .feature(index): return "\(file): feature \(index): \(message)"
        case let .offset(offset): return "\(file): offset \(offset): \(message)"
        }
    }
}
