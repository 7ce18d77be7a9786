import Foundation
import RouteTilesAccess
@testable import RouteTilesServer
import Synchronization
import Testing
import RouteTilesTestSupport

/// A connection remembers its last credential for the fast path, but never longer than the verified-token cache
/// would trust it: not past a reload of the keys, not past the entry's minute, and only for the same bytes.
@Suite struct RememberedCredentialTests {
    final class Clock: Sendable {
        let seconds = Mutex<Int64>(Int64(Date().timeIntervalSince1970))
        func advance(by delta: Int64) { seconds.withLock { $0 += delta } }
    }

    func readsEverything(_ token: String, _ remembered: inout RememberedCredential, _ verifier: CredentialVerifier) -> Bool {
        Array(token.utf8).withUnsafeBytes { remembered.readsEverything($0, verifier: verifier) }
    }

    @Test func aRememberedCredentialLastsNoLongerThanTheCacheTrustsIt() async throws {
        let clock = Clock()
        let verifier = try CredentialVerifier(keys: CredentialKeys(hmacSecret: TestTokens.secret),
                                              now: { clock.seconds.withLock { $0 } })
        let everything = try await TestTokens.hs256(read: ["*"], expiresIn: 3600)
        let some = try await TestTokens.hs256(read: ["acme"], expiresIn: 3600)
        var remembered = RememberedCredential()
        // Not verified yet: not known, so the full path verifies it.
        #expect(!readsEverything(everything, &remembered, verifier))
        guard case .success = await verifier.grant(for: everything) else { Issue.record("not verified"); return }
        guard case .success = await verifier.grant(for: some) else { Issue.record("not verified"); return }
        #expect(readsEverything(everything, &remembered, verifier))
        #expect(readsEverything(everything, &remembered, verifier))
        // Other bytes are looked up, not taken for the remembered ones.
        #expect(!readsEverything(some, &remembered, verifier))
        #expect(readsEverything(everything, &remembered, verifier))
        var tampered = Array(everything.utf8)
        tampered[tampered.count - 2] ^= 1
        #expect(!readsEverything(String(decoding: tampered, as: UTF8.self), &remembered, verifier))

        // Past the cache's minute, not trusted until verified again.
        clock.advance(by: 61)
        #expect(!readsEverything(everything, &remembered, verifier))
        guard case .success = await verifier.grant(for: everything) else { Issue.record("not verified"); return }
        #expect(readsEverything(everything, &remembered, verifier))

        // The keys reloaded (the same secret, even): forgotten at once.
        try await verifier.reload(CredentialKeys(hmacSecret: TestTokens.secret))
        #expect(!readsEverything(everything, &remembered, verifier))
    }
}
