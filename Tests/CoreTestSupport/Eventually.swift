import Foundation

/// Whether `condition` comes to hold within `seconds`: asked every 20 ms, and once more when the time is up. How
/// tests wait for a state (a metric, a queue drained, a lock waited on) instead of sleeping.
package func eventually(within seconds: Double, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    } while Date() < deadline
    return try await condition()
}
