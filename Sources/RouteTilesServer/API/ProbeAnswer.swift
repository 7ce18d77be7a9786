/// `GET /health/live` (`{"status": "ok"}`) and `GET /health/ready` (`{"status": "ready"}`, or
/// `{"status": "unavailable", "reason": …}` with 503): `Probe` in `openapi.json`.
struct ProbeAnswer: Encodable, Sendable {
    var status: String
    /// Why the server is not ready.
    var reason: String?
}
