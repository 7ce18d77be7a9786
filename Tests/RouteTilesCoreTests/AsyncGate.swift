import Synchronization

/// A gate that tasks wait at until it is opened; once open it stays open. For holding work back in concurrency
/// tests while the test arranges what must happen meanwhile.
package final class AsyncGate: Sendable {
    private let state = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    package func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiting.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    package func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// A counter shared between tasks.
package final class SharedCounter: Sendable {
    private let value = Mutex(0)

    @discardableResult
    package func increment() -> Int { value.withLock { $0 += 1; return $0 } }

    package var count: Int { value.withLock { $0 } }
}
