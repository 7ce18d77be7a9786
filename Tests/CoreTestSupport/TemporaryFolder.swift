import Foundation

/// A temporary folder, removed at the end of the test.
package final class TemporaryFolder {
    package let url: URL
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("routetiles-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}
