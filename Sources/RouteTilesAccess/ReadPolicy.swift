/// Who may read a server's tiles, routes and events (`serve --read`).
public enum ReadPolicy: String, Sendable, CaseIterable {
    /// Anyone who reaches the server: no credential is asked for, and one sent with a read is not looked at.
    case `public`
    /// A credential is needed (the write token, or a JWT with a `read` claim), and a JWT reads only the groups it
    /// names.
    case token
}
