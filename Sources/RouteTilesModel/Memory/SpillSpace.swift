#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// Memory for a build's large columns that lives in temporary files, so that the build's resident memory is set by a
/// budget instead of by the size of its input.
///
/// A column (x, y, distance and importance per vertex) of 1 MB or more is allocated in a file of its own in
/// `directory`, unlinked at once and mapped shared into memory; the code that reads and writes it is unchanged.
/// Its pages live in the kernel's page cache. While they are mapped into the process they count in its resident set,
/// so a watcher (`startWatching`) reads the resident set every `interval` and, past the budget, unmaps every
/// region's pages (`madvise(MADV_DONTNEED)`): the data stays in the file and the page cache, and the next read maps
/// it back. The page cache is the kernel's to evict under memory pressure and to read back from disk, which is how
/// tippecanoe's temporary files behave too. A read-only `MappedFile` (an input) can be registered the same way.
///
/// Space is reserved with `posix_fallocate` before it is mapped, so a full disk is an allocation that falls back to
/// ordinary memory, never a SIGBUS in the middle of a build. With `directory` on tmpfs the files are memory too:
/// point it at a disk (`--temp-dir`) when the data is larger than the memory to spare.
///
/// Columns pick up the space bound as `SpillSpace.current` (a task-local) while they are allocated.
package final class SpillSpace: Sendable {
    @TaskLocal package static var current: SpillSpace?

    package let directory: String
    /// The resident set, in bytes, past which the regions' pages are unmapped.
    package let budget: Int
    /// Allocations smaller than this stay in ordinary memory.
    package static let minimumBytes = 1 << 20

    /// A mapping, by address (raw pointers are not `Sendable`; they are rebuilt only to pass them to the kernel).
    private struct Region {
        var address: UInt
        var length: Int
        var owned: Bool
        var start: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: address) }
    }

    private struct State {
        var regions: [Int: Region] = [:]
        var next = 0
        var trims = 0
        var fallbacks = 0
        var peakResident = 0
        var watching = false
        var spilledBytes = 0
        var peakSpilledBytes = 0
    }

    private let state = Mutex<State>(State())
    private let stopSignal = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    package init(directory: String, budget: Int) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SpillError(message: "temporary folder \(directory) does not exist")
        }
        guard access(directory, W_OK) == 0 else {
            throw SpillError(message: "temporary folder \(directory) is not writable")
        }
        self.directory = directory
        self.budget = budget
    }

    /// The system's temporary folder: `TMPDIR`, else `/tmp`.
    package static var systemDirectory: String {
        var directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        return directory
    }

    /// A region of `bytes` in a temporary file, or nil when the file cannot be made or its space reserved (the
    /// caller then uses ordinary memory).
    func allocate(bytes: Int) -> (pointer: UnsafeMutableRawPointer, id: Int)? {
        let template = directory + "/routetiles-spill-XXXXXX"
        var path = Array(template.utf8CString)
        let descriptor = path.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return fallback() }
        defer { close(descriptor) }
        _ = path.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        guard posix_fallocate(descriptor, 0, off_t(bytes)) == 0,
              let start = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
              start != MAP_FAILED else { return fallback() }
        // No fault-around or read-ahead: a fault maps the page asked for, not its neighbours.
        madvise(start, bytes, MADV_RANDOM)
        let address = UInt(bitPattern: start)
        let id = state.withLock { state -> Int in
            state.next += 1
            state.regions[state.next] = Region(address: address, length: bytes, owned: true)
            state.spilledBytes += bytes
            state.peakSpilledBytes = max(state.peakSpilledBytes, state.spilledBytes)
            return state.next
        }
        return (start, id)
    }

    private func fallback() -> (pointer: UnsafeMutableRawPointer, id: Int)? {
        state.withLock { $0.fallbacks += 1 }
        return nil
    }

    /// Registers memory that someone else mapped (a `MappedFile`), so that trims include it.
    func register(_ start: UnsafeMutableRawPointer, length: Int) -> Int {
        let address = UInt(bitPattern: start)
        return state.withLock { state in
            state.next += 1
            state.regions[state.next] = Region(address: address, length: length, owned: false)
            return state.next
        }
    }

    /// Unmaps an allocated region. Under the lock, so that a trim never advises an address range that has been
    /// given back and perhaps reused.
    func release(_ id: Int) {
        state.withLock { state in
            guard let region = state.regions.removeValue(forKey: id), region.owned else { return }
            state.spilledBytes -= region.length
            munmap(region.start, region.length)
        }
    }

    /// Forgets a registered region; `unmap` (its owner's) runs under the lock for the same reason.
    func unregister(_ id: Int, unmapping unmap: () -> Void) {
        state.withLock { state in
            state.regions.removeValue(forKey: id)
            unmap()
        }
    }

    static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Unmaps pages of a region its owner holds (whole pages); their contents stay in the file.
    static func adviseDontNeed(_ start: UnsafeMutableRawPointer, _ length: Int) {
        madvise(start, length, MADV_DONTNEED)
    }

    /// Unmaps the pages of every region from the process; their contents stay in the files.
    package func trim() {
        state.withLock { state in
            for region in state.regions.values { madvise(region.start, region.length, MADV_DONTNEED) }
            state.trims += 1
        }
    }

    /// What the space did: for the build's summary and for tests.
    package struct Report: Sendable {
        package var trims: Int
        package var fallbacks: Int
        package var peakResident: Int
        /// Bytes in temporary files now, and at most at once.
        package var spilledBytes: Int
        package var peakSpilledBytes: Int
    }

    package var report: Report {
        state.withLock { Report(trims: $0.trims, fallbacks: $0.fallbacks, peakResident: $0.peakResident, spilledBytes: $0.spilledBytes,
                                   peakSpilledBytes: $0.peakSpilledBytes) }
    }

    /// Watches the process's resident set every `interval` seconds from a thread of its own, trimming past the
    /// budget, until `stopWatching`.
    package func startWatching(interval: Double = 0.005) {
        let start = state.withLock { state -> Bool in
            defer { state.watching = true }
            return !state.watching
        }
        guard start else { return }
        let thread = Thread { [self] in
            while stopSignal.wait(timeout: .now() + interval) == .timedOut {
                watchOnce()
            }
            stopped.signal()
        }
        thread.name = "routetiles-spill-watch"
        thread.start()
    }

    package func stopWatching() {
        let running = state.withLock { state -> Bool in
            defer { state.watching = false }
            return state.watching
        }
        guard running else { return }
        stopSignal.signal()
        stopped.wait()
    }

    /// How far above what a trim cannot give back the trims start again.
    static let headroom = 32 << 20

    private func watchOnce() {
        guard let (resident, mapped) = Self.residentBytes() else { return }
        state.withLock { $0.peakResident = max($0.peakResident, resident) }
        // Memory proper (resident, less mapped files) cannot be given back: when it nears the budget, trims would
        // come back at once and every read would fault again, so the limit stays `headroom` above it.
        let limit = max(budget, resident - mapped + Self.headroom)
        guard resident > limit, mapped > Self.minimumBytes * 4 else { return }
        trim()
    }

    /// The process's resident set and the part of it that is mapped files (`/proc/self/statm`'s resident and
    /// shared), in bytes; nil where there is no `/proc`.
    package static func residentBytes() -> (resident: Int, mapped: Int)? {
        let descriptor = open("/proc/self/statm", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = buffer[0..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 2, let resident = Int(String(decoding: fields[1], as: UTF8.self)),
              let shared = Int(String(decoding: fields[2], as: UTF8.self)) else { return nil }
        return (resident * pageSize, shared * pageSize)
    }
}

/// A temporary folder that cannot hold the build's columns.
package struct SpillError: Error, CustomStringConvertible, Sendable {
    package var message: String
    package var description: String { message }
}
