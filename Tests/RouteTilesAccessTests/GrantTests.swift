import RouteTilesAccess
import RouteTiles
import Testing

/// Scopes, id patterns and groups: properties checked against plain reference implementations.
struct GrantTests {
    /// A reference matcher: `*` as any run, by recursion over characters.
    static func reference(_ pattern: Substring, _ id: Substring) -> Bool {
        guard let first = pattern.first else { return id.isEmpty }
        if first == "*" {
            var rest = id
            while true {
                if reference(pattern.dropFirst(), rest) { return true }
                if rest.isEmpty { return false }
                rest = rest.dropFirst()
            }
        }
        guard let c = id.first, c == first else { return false }
        return reference(pattern.dropFirst(), id.dropFirst())
    }

    @Test func patternsMatchAsTheReferenceDoes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "b", "-", "*"]
        for _ in 0..<20_000 {
            let pattern = String((0..<Int.random(in: 0...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let id = String((0..<Int.random(in: 0...7, using: &generator)).map { _ in alphabet.dropLast().randomElement(using: &generator)! })
            #expect(RouteIDPattern(pattern).matches(id) == Self.reference(Substring(pattern), Substring(id)),
                    "\(pattern) \(id)")
        }
        #expect(RouteIDPattern("*").matchesAll && RouteIDPattern("**").matchesAll && !RouteIDPattern("a*").matchesAll)
        #expect(RouteIDPattern("veh-17").matches("veh-17") && !RouteIDPattern("veh-17").matches("veh-170"))
        #expect(RouteIDPattern("acme-*").matches("acme-") && !RouteIDPattern("acme-*").matches("acm"))
    }

    @Test func scopeKeysNameTheirScopeAndNoOther() {
        let scopes: [GroupScope] = [.all, .only([]), .only(["a"]), .only(["b", "a"]), .only(["a,b"]), .only(["*"]),
                                    .only(["50%", "x*y", "default"])]
        for scope in scopes {
            #expect(GroupScope(key: scope.key) == scope, "\(scope.key)")
        }
        #expect(Set(scopes.map(\.key)).count == scopes.count)
        #expect(GroupScope(claim: ["acme", "*"]) == .all)
        #expect(GroupScope(key: "b,a") == nil && GroupScope(key: "a,a") == nil && GroupScope(key: "a%2") == nil
            && GroupScope(key: "a,") == nil)
    }

    @Test func aRoutesGroupIsItsGroupPropertyOrDefault() {
        #expect(RouteGroup.of([]) == "default")
        #expect(RouteGroup.of([Property("name", .string("x")), Property("group", .string("acme"))]) == "acme")
        #expect(RouteGroup.of([Property("group", .string(""))]) == "default")
        #expect(RouteGroup.of([Property("group", .int(7))]) == "7")
    }
}
