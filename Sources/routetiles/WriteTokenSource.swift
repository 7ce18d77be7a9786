import ArgumentParser
import Foundation

/// The write token of `serve` and where it came from: `--write-token`, else `--write-token-file`, else the
/// environment variable `ROUTETILES_WRITE_TOKEN`. The file and the variable keep the token out of the process list,
/// which every local user can read; a Kubernetes secret mounts as either.
struct WriteTokenSource: Equatable {
    static let environmentVariable = "ROUTETILES_WRITE_TOKEN"
    static let minimumLength = 8

    /// The token, without surrounding whitespace (a file's final newline, say).
    let token: String
    /// Where it came from, as a message names it: `--write-token`, `--write-token-file PATH` or the variable.
    let origin: String

    /// The token given, or nil when none of the three is there.
    ///
    /// Errors (all `ValidationError`s, exit status 64): both options; a file that cannot be read, is empty or holds
    /// more than one line; a variable that is set but empty; a token shorter than `minimumLength`.
    static func resolve(option: String?, file: String?, environment: [String: String]) throws -> WriteTokenSource? {
        if option != nil && file != nil {
            throw ValidationError("give --write-token or --write-token-file, not both")
        }
        let source: WriteTokenSource
        if let option {
            source = WriteTokenSource(token: option, origin: "--write-token")
        } else if let file {
            source = WriteTokenSource(token: try read(file), origin: "--write-token-file \(file)")
        } else if let value = environment[environmentVariable] {
            let token = value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else {
                throw ValidationError("\(environmentVariable) is set but empty: set it to the write token, or unset it")
            }
            source = WriteTokenSource(token: token, origin: environmentVariable)
        } else {
            return nil
        }
        guard source.token.count >= minimumLength else {
            throw ValidationError("the write token from \(source.origin) must be at least \(minimumLength) characters")
        }
        return source
    }

    /// The token a file holds: its text without surrounding whitespace, on one line.
    private static func read(_ path: String) throws -> String {
        // open(2) first, for the system's reason when it fails ("No such file or directory", "Permission denied").
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw ValidationError("--write-token-file \(path): cannot read the file (\(String(cString: strerror(errno))))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & 0o170000 == 0o040000 {  // S_IFMT, S_IFDIR
            throw ValidationError("--write-token-file \(path): a folder, not a file")
        }
        let data: Data
        do {
            data = try handle.readToEnd() ?? Data()
        } catch {
            throw ValidationError("--write-token-file \(path): cannot read the file (\(error.localizedDescription))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("--write-token-file \(path): the file is not UTF-8 text")
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else {
            throw ValidationError("--write-token-file \(path): the file is empty; it must hold the write token")
        }
        guard !token.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) else {
            throw ValidationError("--write-token-file \(path): the file holds more than one line (or a control "
                + "character); it must hold the write token alone")
        }
        return token
    }
}
