import Foundation
import RouteTilesAccess

/// The last credential a connection's fast path looked up, and whether it reads every group.
///
/// A client sends the same bearer token with every tile request of a connection. Looking it up in the verified-token
/// cache costs a `String` made from the bytes, a hash of some hundreds of bytes and a lock shared by every
/// connection (measured in Docs/BENCHMARKS.md, "Access control"); comparing the bytes with the last ones costs a
/// `memcmp`. What is remembered is never trusted longer than the cache would trust it: not past the entry's end
/// (the token's `exp`, or a minute after it was verified), and not past a reload of the keys (the cache's key
/// generation is compared on every request).
///
/// One per connection, used on its event loop only.
struct RememberedCredential {
    private var token: [UInt8] = []
    private var readsAll = false
    private var until: Int64 = 0
    private var generation = -1

    init() {}

    /// Whether the credential `bytes` was verified lately and reads every group.
    mutating func readsEverything(_ bytes: UnsafeRawBufferPointer, verifier: CredentialVerifier) -> Bool {
        let now = verifier.currentTime
        if now < until, generation == verifier.cache.generation, isRemembered(bytes) { return readsAll }
        guard let entry = verifier.cache.entry(for: String(decoding: bytes, as: UTF8.self), now: now) else { return false }
        token = Array(bytes)
        (readsAll, until, generation) = (entry.grant.read.isAll, entry.until, entry.generation)
        return readsAll
    }

    private func isRemembered(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count == token.count, let start = bytes.baseAddress else { return false }
        return token.withUnsafeBytes { remembered in remembered.baseAddress.map { memcmp($0, start, bytes.count) == 0 } ?? false }
    }
}
