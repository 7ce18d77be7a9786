import Foundation

/// What credentials are verified with: the HS256 secret (`--jwt-secret-file`), the public keys of a JWKS
/// (`--jwks`), and the write token, each optional. Read again from their files on a reload (`KeyFiles`).
public struct CredentialKeys: Sendable, Equatable {
    /// The HS256 key: the secret file's bytes, one trailing newline trimmed.
    public var hmacSecret: [UInt8]?
    /// A JWKS document (`{"keys": […]}`) of public keys for RS256, PS256, ES256 and EdDSA tokens.
    public var jwks: String?
    /// The server's write token, a full-access credential.
    public var writeToken: String?

    public init(hmacSecret: [UInt8]? = nil, jwks: String? = nil, writeToken: String? = nil) {
        self.hmacSecret = hmacSecret
        self.jwks = jwks
        self.writeToken = writeToken
    }

    /// Whether any JWT can be verified.
    public var verifiesJWTs: Bool { hmacSecret != nil || jwks != nil }

    /// The HS256 key of a secret file: its bytes, one trailing newline (`\n`) trimmed, as the interface fixes it (a
    /// `\r` before it stays part of the key, as an issuer reading the same file takes it).
    public static func hmacSecret(fileBytes bytes: [UInt8], path: String) throws -> [UInt8] {
        var key = bytes
        if key.last == UInt8(ascii: "\n") { key.removeLast() }
        // RFC 7518 §3.2: an HS256 key of at least the hash's size, 32 bytes.
        guard key.count >= 32 else {
            throw KeyProblem("\(path): the HS256 secret is \(key.count) bytes; it must be at least 32 "
                + "(for example `openssl rand -base64 48 > \(path)`)")
        }
        return key
    }
}

/// A key file or document that cannot be used, with the reason.
public struct KeyProblem: Error, CustomStringConvertible, Equatable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
