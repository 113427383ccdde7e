import Foundation

/// Runs a program to completion and captures what it printed.
public struct ProcessResult {
    public let exitCode: Int32
    public let stdout: String
    public let stderr: String
}

public func runProcess(_ executable: String, _ arguments: [String], in folder: URL? = nil,
                       environment: [String: String] = [:]) throws -> ProcessResult {
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
