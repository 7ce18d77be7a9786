import Foundation
import RouteTilesModel

/// Where a tileset is written before it is finished: a hidden sibling `.NAME.partial-PID` of the destination (a
/// file for an archive, a folder for a pyramid), renamed over it at the end (one atomic `rename`), so that readers
/// see the old tileset or the new one, never a part. Scratch files `.NAME.spill-PID` go beside it, and a replaced
/// pyramid is moved aside to `.NAME.old-PID` before it is removed. Leftovers of killed processes are swept.
struct StagingPlace: Sendable {
    let destination: URL
    let staging: URL
    /// A scratch file beside the staging file, for stores that spill data before laying it out.
    let scratch: URL
    /// Where a replaced pyramid waits while the new one moves into place.
    let aside: URL

    /// Unless `replace`, an existing destination is an error; an archive (not `folder`) cannot replace a folder.
    /// Staging files of this process are removed; a folder's staging folder is left to its store.
    init(destination: URL, replace: Bool, folder: Bool = false) throws {
        self.destination = destination.standardizedFileURL
        let parent = self.destination.deletingLastPathComponent()
        let name = self.destination.lastPathComponent
        staging = parent.appendingPathComponent(".\(name).partial-\(getpid())")
        scratch = parent.appendingPathComponent(".\(name).spill-\(getpid())")
        aside = parent.appendingPathComponent(".\(name).old-\(getpid())")
        let fm = FileManager.default
        var isFolder: ObjCBool = false
        if fm.fileExists(atPath: self.destination.path, isDirectory: &isFolder) {
            if !replace {
                throw StoreError(path: self.destination.path, message: StoreError.alreadyExists)
            }
            if isFolder.boolValue && !folder {
                throw StoreError(path: self.destination.path, message: "is a folder; an archive cannot replace it")
            }
        }
        do {
            try fm.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw StoreError(path: parent.path, message: "cannot create folder: \(error.localizedDescription)")
        }
        Self.sweepAbandoned(in: parent, name: name)
        if !folder { discard() }
    }

    /// The error of a write to a store whose build was aborted.
    var aborted: StoreError { StoreError(path: staging.path, message: "the build was aborted") }

    /// Moves the finished staging file over the destination.
    func commit() throws {
        guard rename(staging.path, destination.path) == 0 else {
            throw StoreError(path: destination.path, message: "cannot move the archive into place: \(String(cString: strerror(errno)))")
        }
        unlink(scratch.path)
    }

    /// Removes the staging and scratch files (and any SQLite journal beside them).
    func discard() {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(staging.path + suffix) }
        unlink(scratch.path)
    }

    /// Removes staging files and folders, scratch files and pyramids moved aside of `name` left by processes that no
    /// longer exist (after `kill -9`).
    static func sweepAbandoned(in parent: URL, name: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent.path) else { return }
        for entry in entries {
            for prefix in [".\(name).partial-", ".\(name).spill-", ".\(name).old-"] where entry.hasPrefix(prefix) {
                let digits = entry.dropFirst(prefix.count).prefix(while: \.isNumber)
                guard let pid = Int32(digits), pid != getpid() else { continue }
                if kill(pid, 0) != 0 && errno == ESRCH {
                    try? FileManager.default.removeItem(at: parent.appendingPathComponent(entry))
                }
            }
        }
    }
}
