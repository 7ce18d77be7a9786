/// A JSON object member's name known only at run time (a route property, a style's member): the coding key of the
/// answers that write such objects (`RouteFeature`, `RouteListAnswer`, `JSONLiteral`).
struct MemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
