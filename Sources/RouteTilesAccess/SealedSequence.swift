import Crypto
import Foundation

/// Store sequences sealed into opaque text, for the readers that may not learn them.
///
/// A sequence counts every change of a store, whoever's route it was. Shown to a reader limited to some groups (as
/// an `/events` id, say), the gap between two of its events would tell how often the other groups change. Sealed,
/// an id tells nothing: each is AES-GCM with a fresh nonce under a key this process drew at random, so two ids of
/// one sequence differ too. Given back (`Last-Event-ID`), `open` finds the sequence again; an id sealed by another
/// process (a replica, or this server before a restart), a number, or one changed in any byte opens to nil.
public struct SealedSequence: Sendable {
    private let key: SymmetricKey

    /// A sealer with a key of its own, drawn at random.
    public init() {
        key = SymmetricKey(size: .bits128)
    }

    /// `sequence` sealed: base64url of the nonce, the ciphertext and the tag (48 characters), which holds no
    /// character that an event-stream id line forbids.
    public func seal(_ sequence: Int64) -> String {
        let plain = withUnsafeBytes(of: sequence.bigEndian) { Array($0) }
        guard let combined = (try? AES.GCM.seal(plain, using: key))?.combined else {
            // Sealing with a valid key and a fresh nonce does not fail; an id that never opens is the safe answer.
            return "-"
        }
        return Self.base64url(combined)
    }

    /// The sequence sealed in `text` by this sealer; nil when it was not.
    public func open(_ text: some StringProtocol) -> Int64? {
        guard let bytes = Self.bytes(base64url: String(text)),
              let box = try? AES.GCM.SealedBox(combined: bytes),
              let plain = try? AES.GCM.open(box, using: key), plain.count == 8 else { return nil }
        return Int64(bigEndian: plain.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) })
    }

    static func base64url(_ data: Data) -> String {
        String(data.base64EncodedString().compactMap { character -> Character? in
            switch character {
            case "+": return "-"
            case "/": return "_"
            case "=": return nil
            default: return character
            }
        })
    }

    static func bytes(base64url text: String) -> Data? {
        guard text.count < 256 else { return nil }
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
