#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RouteTiles

/// The proxies (load balancers, CDNs, Varnish) whose `X-Forwarded-For` is believed (`serve --trusted-proxy`), and the
/// client address a request then has: what per-address limits count and the audit log's `remote` names.
///
/// The rule is nginx's `set_real_ip_from` with `real_ip_recursive on`: when the peer is a trusted proxy, the
/// addresses of `X-Forwarded-For` are walked from the right (the hop nearest this server) past every trusted one;
/// the first that is not trusted is the client. A client may write any `X-Forwarded-For` it likes, but only the
/// entries to the right of it were appended by proxies this server trusts, so it cannot pose as another address.
/// When every entry is trusted, the leftmost is the client; an entry that is no address stops the walk at the
/// nearest trusted hop. From a peer that is not trusted, the header is ignored.
public struct TrustedProxies: Sendable, Equatable {
    /// One network: an address and the number of leading bits that must match, over 16 bytes (IPv4 as
    /// `::ffff:a.b.c.d`, so that both families are compared alike).
    struct Network: Sendable, Equatable {
        var address: [UInt8]
        var prefix: Int

        func contains(_ other: [UInt8]) -> Bool {
            var bits = prefix
            for (a, b) in zip(address, other) {
                if bits <= 0 { return true }
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if a & mask != b & mask { return false }
                bits -= 8
            }
            return true
        }
    }

    private(set) var networks: [Network] = []

    /// No proxy is trusted: the peer is the client, and `X-Forwarded-For` is ignored.
    public init() {}

    /// Trusts each of `specs`: an IPv4 or IPv6 address, or a network in CIDR form (`10.0.0.0/8`, `fd00::/8`).
    /// Throws a message naming the spec that is neither.
    public init(_ specs: [String]) throws {
        for spec in specs {
            let parts = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = Self.bytes(String(parts[0])) else {
                throw ValueError("'\(spec)' is not an IP address or a network such as 10.0.0.0/8 or fd00::/8")
            }
            let isV4 = !parts[0].contains(":")
            var prefix = 128
            if parts.count == 2 {
                guard let bits = Int(parts[1]), bits >= 0, bits <= (isV4 ? 32 : 128) else {
                    throw ValueError("'\(spec)': the prefix length must be 0 to \(isV4 ? 32 : 128)")
                }
                prefix = isV4 ? 96 + bits : bits
            }
            networks.append(Network(address: address, prefix: prefix))
        }
    }

    public var isEmpty: Bool { networks.isEmpty }

    /// Whether `address` (text) is of a trusted network.
    public func trusts(_ address: String) -> Bool {
        guard let bytes = Self.bytes(address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client's address, given the peer's and the values of the request's `X-Forwarded-For` fields in order.
    public func client(peer: String?, forwardedFor: [String]) -> String? {
        guard let peer, !networks.isEmpty, trusts(peer) else { return peer }
        var client = peer
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }
        for hop in hops.reversed() {
            guard let address = Self.address(of: hop) else { return client }
            client = address
            if !trusts(address) { return address }
        }
        return client
    }

    /// The address of one `X-Forwarded-For` entry, without spaces, brackets or a port (`[::1]:443`, `1.2.3.4:80`).
    static func address(of entry: Substring) -> String? {
        var text = entry.trimmingCharacters(in: " \t")
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            text = String(text[text.index(after: text.startIndex)..<close])
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            text = String(text[..<colon])
        }
        return bytes(text) == nil ? nil : text
    }

    /// The 16 bytes of an IPv6 address, or of an IPv4 one mapped into IPv6; nil when `text` is neither.
    static func bytes(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count < 64 else { return nil }
        if !text.contains(":") {
            var v4 = in_addr()
            guard inet_pton(AF_INET, text, &v4) == 1 else { return nil }
            return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + withUnsafeBytes(of: v4.s_addr) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        return withUnsafeBytes(of: v6) { Array($0) }
    }
}

private extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
