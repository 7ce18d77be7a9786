
/// The group a route belongs to, which read scopes name (`GroupScope`): its `group` property (a string), or
/// `default` without one.
public enum RouteGroup {
    /// The property that names a route's group.
    public static let property = "group"
    /// The group of routes without a `group` property.
    public static let defaultName = "default"

    /// The group of a route with these properties. A `group` that is not a string (a number, say) is its text.
    public static func of(_ properties: [Property]) -> String {
        guard let value = properties.first(where: { $0.key == property })?.value else { return defaultName }
        switch value {
        case let .string(name): return name.isEmpty ? defaultName : name
        case let .int(number): return String(number)
        case let .uint(number): return String(number)
        case let .double(number): return String(number)
        case let .bool(flag): return String(flag)
        }
    }
}
