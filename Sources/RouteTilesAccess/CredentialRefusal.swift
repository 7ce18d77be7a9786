/// Why a credential was not accepted: answered with 401 and this message. The message says what is wrong with
/// the token (expired, bad signature, wrong audience) and never what the server holds.
public struct CredentialRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
