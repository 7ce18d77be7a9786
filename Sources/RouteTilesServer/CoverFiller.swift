import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RouteTiles
import ServiceLifecycle
import Synchronization

/// Finds the covers of the live routes after start-up, on a background thread of the lowest priority
/// (`LiveRouteSet.fillCovers`), so that the server answers as soon as its routes are loaded and the first writes find
/// their covers ready, without taking CPU from requests. Stops between two routes at graceful shutdown, then waits
/// for the shutdown like the other services.
struct CoverFiller: Service {
    let routes: LiveRouteSet

    func run() async throws {
        let stop = Atomic<Bool>(false)
        await withGracefulShutdownHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let thread = Thread {
                    // The lowest priority: serving comes first. On Linux a nice value is per thread, and 0 names this one.
                    setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
                    routes.fillCovers(while: { !stop.load(ordering: .relaxed) })
                    continuation.resume()
                }
                thread.name = "routetiles-covers"
                thread.qualityOfService = .utility
                thread.start()
            }
        } onGracefulShutdown: {
            stop.store(true, ordering: .relaxed)
        }
        try? await gracefulShutdown()
    }
}
