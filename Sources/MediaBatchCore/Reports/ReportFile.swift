import Foundation

/// Where a report is written as it is rendered, a piece at a time.
public protocol TextSink: AnyObject {
    func write(_ text: String) throws
}

/// A report file (JSON, JUnit, metrics) written as it is rendered: buffered, under a temporary
/// name in its own folder, and renamed into place once whole, so a killed run leaves the previous
/// file or none, never half of one; a failed rendering leaves nothing.
public final class ReportFile: TextSink {
    private let writer: JSONLinesWriter

    private init(_ temporary: URL) throws {
        writer = try JSONLinesWriter(temporary)
    }

    /// Renders into `path` (its folder made if need be).
    public static func write(_ path: String, _ render: (ReportFile) throws -> Void) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).\(getpid()).tmp")
        do {
            try fill(temporary, render)
            guard rename(temporary.path, url.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// Renders into `url`, a name that is already temporary (an output `AtomicFile` publishes).
    static func fill(_ url: URL, _ render: (ReportFile) throws -> Void) throws {
        let file = try ReportFile(url)
        try render(file)
        try file.writer.close()
    }

    public func write(_ text: String) throws {
        try writer.write(Data(text.utf8))
    }
}
