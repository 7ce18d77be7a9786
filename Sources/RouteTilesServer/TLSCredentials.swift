import Foundation
import NIOSSL
import Synchronization

/// The server's certificate chain and key (`--tls-cert`, `--tls-key`), as a TLS context that each new connection
/// takes: read again by the key reloader when the files change, so that a renewed certificate (certbot, a secret
/// store) is served without a restart. Connections already open keep the context they started with.
///
/// The context offers HTTP/2 and HTTP/1.1 by ALPN (`h2`, `http/1.1`).
final class TLSCredentials: Sendable {
    let certificatePath: String
    let keyPath: String
    private let state: Mutex<(context: NIOSSLContext, files: [UInt8])>

    /// Reads both files; throws a message that names the file at fault.
    init(certificatePath: String, keyPath: String) throws {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        let certificate = try Self.contents(certificatePath, "--tls-cert"), key = try Self.contents(keyPath, "--tls-key")
        state = Mutex((try Self.context(certificate: certificate, key: key, certificatePath: certificatePath, keyPath: keyPath),
                       certificate + key))
    }

    /// The context for a new connection.
    var context: NIOSSLContext { state.withLock { $0.context } }

    /// Reads the files again and, when they changed, uses them for new connections: true when they changed.
    /// Throws (keeping the context in use) when they do not make a context: a half-written renewal, say.
    func reloadIfChanged() throws -> Bool {
        let certificate = try Self.contents(certificatePath, "--tls-cert"), key = try Self.contents(keyPath, "--tls-key")
        guard certificate + key != state.withLock({ $0.files }) else { return false }
        let context = try Self.context(certificate: certificate, key: key, certificatePath: certificatePath, keyPath: keyPath)
        state.withLock { $0 = (context, certificate + key) }
        return true
    }

    static func contents(_ path: String, _ option: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TLSProblem("\(option) \(path): cannot read the file")
        }
        return Array(data)
    }

    /// The context of a PEM chain and key, read from the files named in messages.
    static func context(certificate certificateBytes: [UInt8], key keyBytes: [UInt8], certificatePath: String,
                        keyPath: String) throws -> NIOSSLContext {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(certificateBytes)
        } catch {
            throw TLSProblem("--tls-cert \(certificatePath): not a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else { throw TLSProblem("--tls-cert \(certificatePath): holds no certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            throw TLSProblem("--tls-key \(keyPath): not a PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                    privateKey: .privateKey(key))
        configuration.applicationProtocols = ["h2", "http/1.1"]
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSProblem("--tls-cert \(certificatePath) and --tls-key \(keyPath) do not make a TLS context (does the key "
                + "match the certificate?): \(error)")
        }
    }
}

/// A certificate or key that cannot be served, with the file at fault.
struct TLSProblem: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
