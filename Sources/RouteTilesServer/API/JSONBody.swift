import Foundation

/// The JSON of the API's typed answers: keys sorted (so an answer's bytes do not depend on the order of a type's
/// members, and match what the server wrote before the answers had types), slashes not escaped.
package enum JSONBody {
    package static func bytes<Body: Encodable>(_ body: Body) throws -> [UInt8] {
        // One encoder per answer: JSONEncoder is a class with mutable options, not shared across tasks.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(body))
    }
}
