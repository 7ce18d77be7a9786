import RouteTilesAllocator

/// The allocator the executable runs on (jemalloc, linked by `RouteTilesAllocator`), named in `--version` and in
/// `serve`'s start-up log, so that an operator can see which one a process uses (a preloaded allocator can take its
/// place).
enum Allocator {
    static var name: String {
        guard let version = routetiles_allocator_version() else { return "the system's malloc" }
        // "5.3.0-0-g54eaed1d8b56…": the release is enough.
        let release = String(cString: version).split(separator: "-").first.map(String.init) ?? ""
        return "jemalloc \(release)"
    }
}
