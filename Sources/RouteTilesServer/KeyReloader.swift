import Logging
import RouteTilesAccess
import ServiceLifecycle
import UnixSignals

/// Keeps the credential keys and the TLS certificate current without a restart: on SIGHUP, and every `interval`
/// (so within that time of a key file's change), it asks `source` for the keys and, when they differ from those in
/// use, hands them to the verifier, which forgets every token verified with the old ones; and it reads the TLS files
/// again, which new connections then use. A source that fails (a file half-written, a JWKS URL down) is logged and
/// what is in use is kept.
struct KeyReloader: Service {
    let verifier: CredentialVerifier
    /// The keys as their files (and URL) give them now; `force` on SIGHUP, to fetch a URL again at once. Nil: the
    /// keys never change.
    let source: (@Sendable (_ force: Bool) async throws -> CredentialKeys)?
    let tls: TLSCredentials?
    let interval: Duration
    let logger: Logger

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in signals { await reload(force: true, cause: "SIGHUP") }
                }
                group.addTask {
                    while true {
                        do { try await Task.sleep(for: interval) } catch { return }
                        await reload(force: false, cause: "a key file changed")
                    }
                }
            }
        }
    }

    func reload(force: Bool, cause: String) async {
        if let tls {
            do {
                if try tls.reloadIfChanged() { logger.notice("TLS: certificate and key reloaded (\(cause)); new connections use them") }
            } catch {
                logger.error("TLS: cannot use the files (\(error)); the certificate in use is kept")
            }
        }
        guard let source else { return }
        let keys: CredentialKeys
        do {
            keys = try await source(force)
        } catch {
            logger.error("credential keys: cannot read them again (\(error)); the keys in use are kept")
            return
        }
        guard keys != verifier.keys else {
            if force { logger.notice("credential keys: reread on \(cause); unchanged") }
            return
        }
        do {
            try await verifier.reload(keys)
            logger.notice("credential keys: reloaded (\(cause)); tokens verified with the old keys are forgotten")
        } catch {
            logger.error("credential keys: the new keys cannot be used (\(error)); the keys in use are kept")
        }
    }
}
