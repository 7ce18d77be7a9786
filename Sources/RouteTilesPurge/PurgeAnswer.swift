/// What a cache's answer to a purge (or a ban) means for the purger.
enum PurgeAnswer: Equatable {
    /// Done: 2xx, or 404 (the cache held nothing under that URL, which some caches answer so).
    case done
    /// Refused for good (405, 403, 401 and the other 4xx): logged and counted, never retried, since asking again
    /// gets the same answer.
    case refused(status: Int)
    /// Worth retrying after a backoff: a 5xx or 429, a timeout, a connection error.
    case retry(reason: String)

    init(status: Int) {
        switch status {
        case 200..<300, 404: self = .done
        case 429, 500...: self = .retry(reason: "HTTP \(status)")
        default: self = .refused(status: status)
        }
    }
}
