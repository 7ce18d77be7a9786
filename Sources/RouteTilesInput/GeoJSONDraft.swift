/// A GeoJSON object as read (a feature, a geometry): its `type`, its own members, and the first problem found in
/// it. Only JSON syntax errors throw; a malformed member is noted in the draft.
protocol GeoJSONDraft {
    var type: String? { get set }
    /// The first member of the wrong JSON type, in words.
    var problem: String? { get set }

    /// Reads the value of `key` if it is a member of this kind of object other than `type`; returns false, having
    /// read nothing, for any other key.
    static func readMember(_ key: String, into draft: inout Self,
                           from scanner: inout JSONScanner) throws(JSONSyntaxError) -> Bool
}

extension GeoJSONDraft {
    /// Keeps `problem` unless an earlier one was noted.
    mutating func note(_ problem: String) {
        if self.problem == nil { self.problem = problem }
    }
}

extension JSONScanner {
    /// Reads the members of the object at the current position into `draft`: `type`, the draft's own
    /// (`Draft.readMember`), and the others skipped.
    mutating func readMembers<Draft: GeoJSONDraft>(into draft: inout Draft) throws(JSONSyntaxError) {
        var object = try enterObject()
        while let key = try nextKey(in: &object) {
            if key == "type" {
                switch try readTypeMember() {
                case .success(let type): draft.type = type
                case .failure(let problem): draft.note(problem.message)
                }
            } else if try !Draft.readMember(key, into: &draft, from: &self) {
                try skipValue()
            }
        }
    }
}
