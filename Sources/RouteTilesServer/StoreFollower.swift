import RouteTiles
import ServiceLifecycle

/// Runs `LiveRouteSync.follow()` beside the HTTP server, so that changes other servers and programs commit to the
/// store reach this one, until the service group shuts down.
struct StoreFollower: Service {
    let sync: LiveRouteSync

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await sync.follow()
        }
    }
}
