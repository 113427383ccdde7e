import Foundation

/// Runs a program to completion and captures what it printed.
public struct ProcessResult {
    public let exitCode: Int32
    public let stdout: String
    public let stderr: String
}

public func runProcess(_ executable: String, _ arguments: [String], in folder: URL? = nil,
                       environment: [String: String] = [:]) throws -> ProcessResult {
    if executable == "exiftool", folder == nil, environment.isEmpty, !arguments.contains(where: { $0.contains("\n") }) {
        return try ExifToolServer.shared.run(arguments)
    }
    let process = Process()
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
    process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
    if let folder { process.currentDirectoryURL = folder }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes before waiting, or a chatty child blocks on a full pipe.
    final class Collected: @unchecked Sendable { var data = Data() }
    let collected = Collected()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        collected.data = out.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    let outData = collected.data
    process.waitUntilExit()
    return ProcessResult(exitCode: process.terminationStatus,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}

/// exiftool started once a test process and kept open (`-stay_open`), each call one command to it: a Perl start and
/// exiftool's modules cost some 0.2 s of CPU, and the tests' thousands of calls were 17% of the suite's CPU. Each
/// command's output ends with exiftool's `{ready}`, its errors with its exit status (`-echo4`), as a process's would.
final class ExifToolServer: @unchecked Sendable {
    static let shared = ExifToolServer()
    private let lock = NSLock()
    private var process: Process?
    private var input: FileHandle?
    private var output: FileHandle?
    private var errors: FileHandle?
    private var commands = 0

    func run(_ arguments: [String]) throws -> ProcessResult {
        try lock.withLock {
            if process?.isRunning != true { try start() }
            // A numbered -execute: exiftool leaves out an unnumbered `{ready}` after a command with -q.
            commands += 1
            let ready = Data("{ready\(commands)}\n".utf8)
            let command = arguments + ["-echo4", "{done ${status}}", "-execute\(commands)"]
            input?.write(Data((command.joined(separator: "\n") + "\n").utf8))
            final class Collected: @unchecked Sendable { var data = Data() }
            let stderr = Collected(), group = DispatchGroup(), errors = self.errors
            group.enter()
            DispatchQueue.global().async {
                stderr.data = Self.read(errors, until: { Self.lastLine(of: $0).starts(with: Data("{done ".utf8)) })
                group.leave()
            }
            let stdout = Self.read(output, until: { $0.suffix(ready.count) == ready })
            group.wait()
            let errorText = String(decoding: stderr.data, as: UTF8.self)
            guard let marker = errorText.range(of: "{done ", options: .backwards) else { throw ExifToolServerError() }
            let status = Int32(errorText[marker.upperBound...].prefix { $0.isNumber }) ?? 1
            return ProcessResult(exitCode: status, stdout: String(decoding: stdout.dropLast(ready.count), as: UTF8.self),
                                 stderr: String(errorText[..<marker.lowerBound]))
        }
    }

    /// exiftool waits on for more arguments at the end of its input, a poll that never ends: it is killed with the
    /// thread that started it (`setpriv --pdeathsig`; the test process's main thread, which runs the tests), and
    /// asked to stop when the test process exits; one left running spun 6% of a CPU each.
    private func start() throws {
        let process = Process(), input = Pipe(), output = Pipe(), errors = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--pdeathsig", "KILL", "exiftool", "-stay_open", "True", "-@", "-"]
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        try process.run()
        if self.process == nil { atexit { ExifToolServer.shared.stop() } }
        (self.process, self.input, self.output, self.errors) = (process, input.fileHandleForWriting, output.fileHandleForReading,
                                                                errors.fileHandleForReading)
    }

    /// Ends exiftool's `-stay_open` loop.
    func stop() {
        lock.withLock {
            input?.write(Data("-stay_open\nFalse\n".utf8))
            try? input?.close()
            process?.waitUntilExit()
        }
    }

    /// The last whole line of `data` (empty until one ends it).
    private static func lastLine(of data: Data) -> Data {
        guard data.last == 0x0A else { return Data() }
        let body = data.dropLast()
        return Data(body[(body.lastIndex(of: 0x0A).map { body.index(after: $0) } ?? body.startIndex)...])
    }

    /// What `handle` gives until `done` says the command's part has all come.
    private static func read(_ handle: FileHandle?, until done: (Data) -> Bool) -> Data {
        var data = Data()
        while let handle, !done(data) {
            let more = handle.availableData
            if more.isEmpty { break }
            data += more
        }
        return data
    }
}

struct ExifToolServerError: Error, CustomStringConvertible {
    var description: String { "exiftool -stay_open ended without its status" }
}

/// exiftool's view of a file: `-j -G1 -a` tags, plus any extra arguments (e.g. `-gps:all`), under
/// the names exiftool 12.57 (Debian 12) gives them.
public func exiftool(_ path: String, _ arguments: [String] = []) throws -> [String: Any] {
    try exiftoolFiles([path], arguments).first ?? [:]
}

/// exiftool's view of several files from one exiftool process (a process a file costs a Perl start each),
/// by path as given: each as `exiftool(_:_:)` reads it.
public func exiftool(_ paths: [String], _ arguments: [String] = []) throws -> [String: [String: Any]] {
    Dictionary(try exiftoolFiles(paths, arguments).map { ($0["SourceFile"] as? String ?? "", $0) }) { first, _ in first }
}

private func exiftoolFiles(_ paths: [String], _ arguments: [String]) throws -> [[String: Any]] {
    guard !paths.isEmpty else { return [] }
    let asked = arguments.flatMap { argument in
        [argument] + exiftoolRenamedTags.filter { "-\($0.value)" == argument }.map { "-\($0.key)" }
    }
    let result = try runProcess("exiftool", ["-j", "-G1", "-a"] + asked + paths)
    let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
    return parsed.map { file in
        var tags = file
        for (newer, older) in exiftoolRenamedTags where tags[older] == nil {
            tags[older] = tags.removeValue(forKey: newer)
        }
        return tags
    }
}

/// exiftool's major version: 12 on Debian 12, 13 on Debian 13, for the few readings that differ.
public func exiftoolMajorVersion() throws -> Int {
    let version = try runProcess("exiftool", ["-ver"]).stdout
    return Int(version.prefix { $0 != "." }) ?? 0
}

/// Tags exiftool 13 (Debian 13) names differently: Apple MakerNote 0x0011, the Live Photo content
/// identifier, is `MediaGroupUUID` in 12.57 and `ContentIdentifier` in 13.25.
let exiftoolRenamedTags = ["Apple:ContentIdentifier": "Apple:MediaGroupUUID"]

/// Location tags exiftool finds anywhere in the file (EXIF, XMP, IPTC, QuickTime).
public func locationTags(_ path: String) throws -> [String] {
    try exiftool(path, ["-location:all", "-gps:all"]).keys.filter { $0 != "SourceFile" }.sorted()
}

/// The location tags of several files, by path, from one exiftool process.
public func locationTags(_ paths: [String]) throws -> [String: [String]] {
    try exiftool(paths, ["-location:all", "-gps:all"]).mapValues { $0.keys.filter { $0 != "SourceFile" }.sorted() }
}
