import PostgresNIO
import RouteTiles

/// The PostgreSQL store's calls: each bounded by the store's time limit, its failure said in one line.
extension PostgresRouteStore {
    /// Runs `body` within `timeout`; any failure becomes a `RouteStoreError` that says what failed and why.
    ///
    /// The caller gets its answer at the deadline even when `body` does not end there: a query on a connection
    /// whose server went away can ignore cancellation until the socket closes, and a task group would wait for
    /// it. `body` is cancelled and left to end on its own; a write it was making either commits or not, and the
    /// caller, told it failed, acknowledges nothing (the feed brings it if it committed).
    func call<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let outcome = OneShot<Result<T, any Error>>()
        let timeout = self.timeout
        let work = Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.resolve(result)
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            outcome.resolve(.failure(CallTimedOut()))
        }
        let result = await withTaskCancellationHandler {
            await outcome.value
        } onCancel: {
            outcome.resolve(.failure(CancellationError()))
        }
        timer.cancel()
        work.cancel()
        switch result {
        case let .success(value):
            return value
        case let .failure(error as RouteStoreError):
            throw error
        case let .failure(error as RouteChangesPruned):
            throw error
        case .failure(is CallTimedOut):
            throw RouteStoreError(store: displayName, message: "\(what): no answer within \(timeout)")
        case let .failure(error):
            throw RouteStoreError(store: displayName, message: "\(what): \(Self.describe(error))")
        }
    }

    private struct CallTimedOut: Error {}

    /// What PostgreSQL or the connection said, without the query's values.
    static func describe(_ error: any Error) -> String {
        if let transaction = error as? PostgresTransactionError {
            // What went wrong inside the transaction, not the wrapper (whose description dumps every query).
            if let inner = transaction.beginError ?? transaction.closureError ?? transaction.commitError {
                return describe(inner)
            }
            return transaction.rollbackError.map { "rollback: " + describe($0) } ?? "the transaction failed"
        }
        if let error = error as? RouteStoreError { return error.message }
        if let error = error as? RouteChangesPruned { return "\(error)" }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + state
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
