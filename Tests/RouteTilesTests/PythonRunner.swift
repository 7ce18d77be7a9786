import Foundation

/// Runs `python3 -c script` for interoperability tests, passing bytes through temporary files (no pipe deadlocks).
enum PythonRunner {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
    }

    /// True when `python3` runs and can import every module named.
    static func canImport(_ modules: String...) -> Bool {
        let script = modules.isEmpty ? "pass" : "import " + modules.joined(separator: ", ")
        return (try? run(script).status) == 0
    }

    static func run(_ script: String, stdin: [UInt8] = [], arguments: [String] = []) throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("routetiles-python-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("stdin")
        let outputURL = directory.appendingPathComponent("stdout")
        let errorURL = directory.appendingPathComponent("stderr")
        try Data(stdin).write(to: inputURL)
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)

        let input = try FileHandle(forReadingFrom: inputURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? input.close()
            try? output.close()
            try? error.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: [UInt8](try Data(contentsOf: outputURL)),
                      stderr: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
    }
}
