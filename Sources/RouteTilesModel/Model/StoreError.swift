import Foundation

/// Errors of the stores, with the path they concern.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    /// The file or folder concerned.
    public var path: String
    /// What went wrong.
    public var message: String

    /// An error about `path`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }

    /// The message when the destination exists and replacing it was not asked for. The library has no flags: a
    /// caller that has one (the CLI's `--force`) adds it.
    public static let alreadyExists = "already exists"
}
