import RouteTilesCoreTestSupport
/// Checks a JSON value against a schema of an OpenAPI 3.1 document, for the subset of JSON Schema the RouteTiles
/// document uses: `$ref` (within the document), `type` (one or several), `const`, `enum`, `required`,
/// `properties`, `additionalProperties` (false or a schema), `items`, `prefixItems`, `minItems`, `maxItems`,
/// `minProperties`, `minimum`, `maximum`, `oneOf`; `description`, `format`, `pattern`, `minLength` and
/// `maxProperties` are read past (schemathesis checks them in CI). Any other keyword is reported as a problem, so
/// that a schema it does not understand never passes unseen.
package struct OpenAPISchemaCheck {
    package let document: JSONTree

    package static let known: Set<String> = [
        "$ref", "type", "const", "enum", "required", "properties", "additionalProperties", "items", "prefixItems",
        "minItems", "maxItems", "minimum", "maximum", "oneOf", "description", "minProperties", "maxProperties",
        "minLength", "pattern", "format",
    ]

    /// The schema `name` of `components/schemas`.
    package func schema(_ name: String) -> JSONTree {
        document["components"]?["schemas"]?[name] ?? .null
    }

    /// What is wrong with `value` against `schema`, each problem with its path; empty when it conforms.
    package func problems(_ value: JSONTree, _ schema: JSONTree, at path: String = "$") -> [String] {
        guard case let .object(rules) = schema else { return ["\(path): the schema is not an object"] }
        if let ref = rules["$ref"]?.string {
            guard ref.hasPrefix("#/components/schemas/") else { return ["\(path): cannot follow \(ref)"] }
            return problems(value, self.schema(String(ref.dropFirst("#/components/schemas/".count))), at: path)
        }
        if let unknown = rules.keys.first(where: { !Self.known.contains($0) }) {
            return ["\(path): the check does not know the keyword \(unknown)"]
        }
        if let type = rules["type"] {
            let types: [String] = if case let .array(list) = type { list.compactMap(\.string) } else { [type.string ?? ""] }
            guard types.contains(where: { Self.value(value, is: $0) }) else {
                return ["\(path): \(value) is not of type \(types.joined(separator: " or "))"]
            }
        }
        var found: [String] = []
        if let constant = rules["const"], !Self.same(constant, value) {
            found.append("\(path): \(value) is not \(constant)")
        }
        if case let .array(choices)? = rules["enum"], !choices.contains(where: { Self.same($0, value) }) {
            found.append("\(path): \(value) is not one of \(choices)")
        }
        if case let .array(options)? = rules["oneOf"] {
            let matching = options.filter { problems(value, $0, at: path).isEmpty }.count
            if matching != 1 { found.append("\(path): matches \(matching) of the oneOf schemas, not 1") }
        }
        if let number = value.double {
            if let minimum = rules["minimum"]?.double, number < minimum { found.append("\(path): \(number) < \(minimum)") }
            if let maximum = rules["maximum"]?.double, number > maximum { found.append("\(path): \(number) > \(maximum)") }
        }
        if case let .object(members) = value {
            if case let .array(required)? = rules["required"] {
                for key in required.compactMap(\.string) where members[key] == nil {
                    found.append("\(path): the required member \(key) is missing")
                }
            }
            if let minimum = rules["minProperties"]?.double, Double(members.count) < minimum {
                found.append("\(path): \(members.count) members, fewer than \(minimum)")
            }
            for (key, member) in members {
                if let property = rules["properties"]?[key] {
                    found += problems(member, property, at: "\(path).\(key)")
                } else if rules["additionalProperties"] == .bool(false) {
                    found.append("\(path): the member \(key) is not in the schema")
                } else if let additional = rules["additionalProperties"], case .object = additional {
                    found += problems(member, additional, at: "\(path).\(key)")
                }
            }
        }
        if case let .array(items) = value {
            if let minimum = rules["minItems"]?.double, Double(items.count) < minimum {
                found.append("\(path): \(items.count) items, fewer than \(minimum)")
            }
            if let maximum = rules["maxItems"]?.double, Double(items.count) > maximum {
                found.append("\(path): \(items.count) items, more than \(maximum)")
            }
            let prefix: [JSONTree] = if case let .array(list)? = rules["prefixItems"] { list } else { [] }
            for (index, item) in items.enumerated() {
                if index < prefix.count {
                    found += problems(item, prefix[index], at: "\(path)[\(index)]")
                } else if let schema = rules["items"] {
                    found += problems(item, schema, at: "\(path)[\(index)]")
                }
            }
        }
        return found
    }

    private static func value(_ value: JSONTree, is type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null),
             ("integer", .integer), ("number", .integer), ("number", .number):
            return true
        case let ("integer", .number(d)):
            return d.rounded() == d
        default:
            return false
        }
    }

    /// Equal as JSON values: numbers by value.
    private static func same(_ a: JSONTree, _ b: JSONTree) -> Bool {
        if let x = a.double, let y = b.double { return x == y }
        return a == b
    }
}
