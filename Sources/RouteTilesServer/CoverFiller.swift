import Foundation
import RouteTiles
import ServiceLifecycle
import Synchronization

/// Finds the covers of the live routes after start-up, on a background thread (`LiveRouteSet.fillCovers`), so that
/// the server answers as soon as its routes are loaded and the first writes find their covers ready. Stops between
/// two routes at graceful shutdown, then waits for the shutdown like the other services.
struct CoverFiller: Service {
    let routes: LiveRouteSet

    func run() async throws {
        let stop = Atomic<Bool>(false)
        await withGracefulShutdownHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let thread = Thread {
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
