import Testing
import RouteTilesAccess

/// The client behind trusted proxies: nginx's `set_real_ip_from` with `real_ip_recursive on`.
@Suite struct TrustedProxiesTests {
    let proxies = try! TrustedProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"])

    @Test func aPeerThatIsNotTrustedIsTheClientWhateverItsHeaderSays() {
        #expect(proxies.client(peer: "203.0.113.9", forwardedFor: ["198.51.100.1"]) == "203.0.113.9")
        #expect(TrustedProxies().client(peer: "127.0.0.1", forwardedFor: ["198.51.100.1"]) == "127.0.0.1")
        #expect(proxies.client(peer: nil, forwardedFor: ["198.51.100.1"]) == nil)
    }

    @Test func behindTrustedHopsTheLastUntrustedAddressIsTheClient() {
        // A load balancer (10.1.2.3) in front of Varnish (127.0.0.1) in front of the server.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["198.51.100.7, 10.1.2.3"]) == "198.51.100.7")
        // What the client wrote itself, left of the real hops, is not believed.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["1.1.1.1, 198.51.100.7, 10.1.2.3"]) == "198.51.100.7")
        // Several header fields are one list, in order.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["1.1.1.1", "198.51.100.7", "10.1.2.3"]) == "198.51.100.7")
        // Without the header, the proxy is the client.
        #expect(proxies.client(peer: "10.9.9.9", forwardedFor: []) == "10.9.9.9")
        // Every hop trusted: the leftmost.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["10.0.0.5, 10.0.0.6"]) == "10.0.0.5")
        // Ports, brackets and spaces are no part of the address; IPv6 networks match.
        #expect(proxies.client(peer: "fd12::1", forwardedFor: [" [2001:db8::5]:443 , 198.51.100.7:8080"]) == "198.51.100.7")
        #expect(proxies.client(peer: "fd12::1", forwardedFor: ["2001:db8::5"]) == "2001:db8::5")
        // An entry that is no address stops the walk at the nearest trusted hop.
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["198.51.100.7, unknown, 10.1.2.3"]) == "10.1.2.3")
        #expect(proxies.client(peer: "127.0.0.1", forwardedFor: ["garbage"]) == "127.0.0.1")
    }

    @Test func networksMatchByTheirPrefix() throws {
        let v4 = try TrustedProxies(["192.168.4.0/22", "0.0.0.0/32"])
        #expect(v4.trusts("192.168.7.255") && v4.trusts("192.168.4.0"))
        #expect(!v4.trusts("192.168.8.0") && !v4.trusts("192.168.3.255"))
        // IPv4 networks do not match IPv6 addresses that share their bits.
        #expect(!v4.trusts("c0a8:400::"))
        let all = try TrustedProxies(["0.0.0.0/0", "::/0"])
        #expect(all.trusts("8.8.8.8") && all.trusts("2001:db8::1"))
        #expect(try TrustedProxies(["2001:db8::/32"]).trusts("2001:db8:ffff::1"))
        #expect(!(try TrustedProxies(["2001:db8::/32"]).trusts("2001:db9::1")))
    }

    @Test func badSpecsAreRefusedWithTheReason() {
        for spec in ["10.0.0.0/33", "fd00::/129", "10.0.0/8", "proxy.example", "", "10.0.0.0/", "10.0.0.0/x"] {
            #expect(throws: (any Error).self, "\(spec)") { try TrustedProxies([spec]) }
        }
    }

    /// Whatever a client prepends, the address the trusted hops appended is the one found.
    @Test func randomChainsFindTheAddressTheLastTrustedHopSaw() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let client = "198.51.\(Int.random(in: 0...255, using: &random)).\(Int.random(in: 1...254, using: &random))"
            let forged = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                Bool.random(using: &random) ? "10.0.0.\(Int.random(in: 1...254, using: &random))" : "203.0.113.\(Int.random(in: 1...254, using: &random))"
            }
            let hops = (0..<Int.random(in: 0...3, using: &random)).map { _ in "10.\(Int.random(in: 0...255, using: &random)).0.1" }
            let header = (forged + [client] + hops).joined(separator: ", ")
            #expect(proxies.client(peer: "127.0.0.1", forwardedFor: [header]) == client, "\(header)")
        }
    }
}
