import NIOHTTP1

/// Whether an answer came out of a cache without a request to the origin, from the headers caches add:
/// - `X-Varnish` with two numbers (this request's id and that of the request that stored the object; one number is
///   a miss or a pass);
/// - `X-Cache` or `CF-Cache-Status` whose last comma-separated entry starts with `HIT` (`HIT`, `Hit from cloudfront`,
///   Fastly's `MISS, HIT` where the last entry is the edge that answered);
/// - otherwise `Age` above 0 (RFC 9111: the object waited in a cache).
enum CacheHit {
    static func isHit(_ headers: HTTPHeaders) -> Bool {
        if let varnish = headers.first(name: "X-Varnish") {
            return varnish.split(separator: " ").count >= 2
        }
        for name in ["X-Cache", "CF-Cache-Status"] {
            if let value = headers.first(name: name) {
                let last = value.split(separator: ",").last?.drop { $0 == " " } ?? ""
                return last.lowercased().hasPrefix("hit")
            }
        }
        if let age = headers.first(name: "Age").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            return age > 0
        }
        return false
    }
}
