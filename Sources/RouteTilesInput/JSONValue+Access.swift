/// Lookups into a parsed JSON tree, for readers of fixed shapes (directions responses).
extension JSONValue {
    /// The last member named `key` of an object, or nil.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A finite number's value.
    var double: Double? {
        if case .number(let number) = self, number.value.isFinite { return number.value }
        return nil
    }

    /// True when the value is an object with a member named `key`.
    func has(_ key: String) -> Bool { self[key] != nil }
}

extension JSONValue {
    /// An integral number's value when it fits in `Int`.
    var int: Int? { double.flatMap { Int(exactly: $0) } }
}
