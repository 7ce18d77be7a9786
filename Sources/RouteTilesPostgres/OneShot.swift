import Synchronization

/// A value set once, by whichever of several tasks comes first, and awaited by one reader; later values are
/// dropped. `PostgresRouteStore` races a call against its deadline with it.
final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Never>)
        case resolved(Value)
        case taken
    }

    private let state = Mutex<State>(.empty)

    /// Sets the value, if none was set; wakes the reader.
    func resolve(_ value: Value) {
        let waiting = state.withLock { state -> CheckedContinuation<Value, Never>? in
            switch state {
            case .empty:
                state = .resolved(value)
                return nil
            case let .waiting(continuation):
                state = .taken
                return continuation
            case .resolved, .taken:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }

    /// The value, once set. Only one reader may wait.
    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value? in
                    if case let .resolved(value) = state {
                        state = .taken
                        return value
                    }
                    state = .waiting(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
