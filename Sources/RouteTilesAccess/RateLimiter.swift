import Synchronization

/// Token buckets by key (a credential, a client address): each key may spend `perMinute` a minute, in bursts of up
/// to a minute's worth. Thread-safe, bounded: past `maxKeys` keys, those whose bucket has refilled are forgotten
/// (they are as good as new), and if that frees nothing, all are.
public final class RateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var at: Double
    }

    public let perMinute: Int
    public let maxKeys: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    /// A limiter of `perMinute` a minute per key; 0 or less limits nothing.
    public init(perMinute: Int, maxKeys: Int = 100_000) {
        self.perMinute = perMinute
        self.maxKeys = maxKeys
    }

    public var isOn: Bool { perMinute > 0 }

    private var rate: Double { Double(perMinute) / 60 }

    /// Spends one from `key`'s bucket at `now` (seconds): nil when there was one, else the seconds until there is.
    public func take(_ key: String, now: Double) -> Double? {
        guard isOn else { return nil }
        return buckets.withLock { buckets in
            var bucket = refilled(buckets[key], now: now)
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            bucket.tokens -= 1
            if buckets[key] == nil, buckets.count >= maxKeys { forgetFull(&buckets, now: now) }
            buckets[key] = bucket
            return nil
        }
    }

    /// The seconds until `key` may spend one again; nil when it may now. Spends nothing.
    public func wait(_ key: String, now: Double) -> Double? {
        guard isOn else { return nil }
        return buckets.withLock { buckets in
            let bucket = refilled(buckets[key], now: now)
            return bucket.tokens >= 1 ? nil : (1 - bucket.tokens) / rate
        }
    }

    private func refilled(_ bucket: Bucket?, now: Double) -> Bucket {
        guard var bucket else { return Bucket(tokens: Double(perMinute), at: now) }
        bucket.tokens = min(Double(perMinute), bucket.tokens + max(0, now - bucket.at) * rate)
        bucket.at = now
        return bucket
    }

    private func forgetFull(_ buckets: inout [String: Bucket], now: Double) {
        buckets = buckets.filter { refilled($0.value, now: now).tokens < Double(perMinute) }
        if buckets.count >= maxKeys { buckets.removeAll() }
    }
}
