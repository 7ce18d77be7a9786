import RouteTiles
import Synchronization

/// Tokens verified lately and what they grant, so that a client sending the same JWT with every tile request pays
/// for one signature check, not one a request (an RS256 check costs tens of microseconds; the lookup a hash).
///
/// An entry lasts until the token expires or `lifetime` has passed, whichever is first, and only for the key
/// generation it was verified with: a reload of the keys empties the cache. Bounded by `capacity` entries; when
/// full, it is emptied (a burst of new tokens costs one verification each, as without the cache).
public final class VerifiedTokenCache: Sendable {
    struct Entry {
        var grant: AccessGrant
        /// Unix seconds after which the entry is not used.
        var until: Int64
    }

    struct State {
        var entries: [String: Entry] = [:]
        /// The key generation the entries were verified with.
        var generation = 0
    }

    private let state = Mutex(State())
    /// The key generation of the entries, readable without the lock (`RememberedCredential` compares it per request).
    private let currentGeneration = Atomic<Int>(0)
    public let capacity: Int
    /// The longest an entry is trusted, in seconds.
    public let lifetime: Int64

    public init(capacity: Int = 65_536, lifetime: Int64 = 60) {
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// The key generation the entries were verified with; a reload of the keys changes it.
    public var generation: Int { currentGeneration.load(ordering: .acquiring) }

    /// The grant of `token` if it was verified and is still good at `now` (Unix seconds).
    public func grant(for token: String, now: Int64) -> AccessGrant? {
        entry(for: token, now: now)?.grant
    }

    /// The grant of `token` if it was verified and is still good at `now`, with the time (Unix seconds) it stops
    /// being good and the key generation it was verified with: what a connection may remember it by.
    public func entry(for token: String, now: Int64) -> (grant: AccessGrant, until: Int64, generation: Int)? {
        state.withLock { state in
            guard let entry = state.entries[token] else { return nil }
            guard now < entry.until else {
                state.entries[token] = nil
                return nil
            }
            return (entry.grant, entry.until, state.generation)
        }
    }

    /// Records a token verified with the keys of `generation`, good until `expires` (Unix seconds) at the latest.
    /// Dropped when the keys changed since (`removeAll(generation:)`), so that a verification that was in flight
    /// during a reload cannot keep a revoked key's token alive.
    public func insert(_ token: String, grant: AccessGrant, expires: Int64?, now: Int64, generation: Int) {
        let until = min(expires ?? .max, now + lifetime)
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[token] = Entry(grant: grant, until: until)
        }
    }

    /// Forgets every entry: the keys are now those of `generation`.
    public func removeAll(generation: Int) {
        state.withLock { state in
            state.entries.removeAll()
            state.generation = generation
            currentGeneration.store(generation, ordering: .releasing)
        }
    }
}
