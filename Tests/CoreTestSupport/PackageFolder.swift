import Foundation

/// Folders of the package the tests read: the bundled samples, the sources, the documentation.
package enum PackageFolder {
    /// The package root (three folders up from this file: Tests/CoreTestSupport/PackageFolder.swift).
    package static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }
}
