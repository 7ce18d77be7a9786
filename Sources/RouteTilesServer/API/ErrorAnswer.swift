/// Every error the server answers with, whatever its status: `{"error": "what is wrong"}` (`Error` in
/// `openapi.json`). The message names the value or the field that is wrong.
struct ErrorAnswer: Encodable, Sendable {
    var error: String
}
