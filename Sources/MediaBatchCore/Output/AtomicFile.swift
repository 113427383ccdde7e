import Foundation
import PipelineModel

/// Writes an item's files so that they appear whole or not at all: each file's content goes to
/// a temporary file in the run's temporary folder (under the output root: same filesystem), and
/// only once every file of the item is written are they handed over, staged, for the run to
/// publish (`OutputPublisher`: synced, then one rename(2) each) with the batch the state
/// database records next. A failure before that leaves nothing staged. Temporary files are
/// tracked so that an interrupted run removes them; a killed run's are in one folder that the
/// next run empties before it starts. Both folders are reached through `OutputTree`, never
/// through a symlink inside the root.
enum AtomicFile {
    /// One file to publish: its path relative to the output root, and what writes its content
    /// at the temporary path it is given — and returns the path it goes to where that was known
    /// only once its bytes were (`{hash}`: the path given holds the placeholder), else nil.
    struct File {
        let relativePath: String
        let produce: (_ temporaryPath: String) throws -> String?
    }

    /// Publishes `relativePath` alone, at once (for files no commit follows, as the manifest);
    /// returns the published file's size.
    static func write(_ relativePath: String, under outputRoot: URL, via temporaryFolder: URL, durability: Durability,
                      _ produce: @escaping (_ temporaryPath: String) throws -> Void) throws -> Int {
        let file = File(relativePath: relativePath) { temporary in
            try produce(temporary)
            return nil
        }
        let staged = try stage([file], under: outputRoot, via: temporaryFolder)
        try OutputPublisher(outputRoot: outputRoot, temporaryFolder: temporaryFolder, durability: durability).publish(staged)
        return staged[0].bytes
    }

    /// Writes every file or, when one cannot be written, none, each to its temporary name.
    /// `beforeHandingOver` runs once every file is written: its failure stages none.
    static func stage(_ files: [File], under outputRoot: URL, via temporaryFolder: URL,
                      beforeHandingOver: () throws -> Void = {}) throws -> [StagedFile] {
        // Refused paths create nothing, not even the temporary folder.
        let components = try files.map { try OutputTree.components(of: $0.relativePath) }
        let root = try OutputTree.openRoot(outputRoot)
        defer { close(root) }
        let temporaries = try OutputTree.openFolder(OutputTree.components(of: temporaryFolder, under: outputRoot), under: root)
        defer { close(temporaries) }
        var staging: [Staging] = []
        defer { staging.forEach { $0.discard(in: temporaries) } }
        for (file, components) in zip(files, components) {
            staging.append(try Staging(file, components, root: root, temporaryFolder: temporaryFolder))
            // libvips and Foundation take a path: the walk above has just checked every folder on it.
            if let named = try file.produce(staging[staging.count - 1].temporaryPath) {
                try staging[staging.count - 1].rename(named, root: root)
            }
        }
        try beforeHandingOver()
        let staged = try staging.map { try $0.staged(in: temporaries) }
        for index in staging.indices { staging[index].handedOver = true }
        return staged
    }

    /// A file being written to its temporary name. Its destination folder is made (and checked
    /// for symlinks) before its content is, so that a refused path costs no encoding.
    private struct Staging {
        private(set) var relativePath: String
        let temporaryName: String
        let temporaryPath: String
        var handedOver = false

        init(_ file: File, _ components: [String], root: Int32, temporaryFolder: URL) throws {
            relativePath = file.relativePath
            // A folder named by the hash to come is made once it is known (`rename`).
            if !PathTemplate.awaitsOutputHash(components.dropLast().joined(separator: "/")) {
                close(try OutputTree.openFolder(components.dropLast(), under: root))
            }
            temporaryName = "\(getpid())-\(TemporaryFiles.shared.nextSerial())-\(components.last ?? "")"
            temporaryPath = temporaryFolder.appending(path: temporaryName).path
            TemporaryFiles.shared.register(temporaryPath)
        }

        /// Goes to `relativePath` instead: its folder made and checked as the first one's was.
        mutating func rename(_ relativePath: String, root: Int32) throws {
            close(try OutputTree.openFolder(OutputTree.components(of: relativePath).dropLast(), under: root))
            self.relativePath = relativePath
        }

        func staged(in temporaries: Int32) throws -> StagedFile {
            var status = stat()
            guard fstatat(temporaries, temporaryName, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw OutputTree.failure(errno, "cannot stage \(relativePath)")
            }
            return StagedFile(relativePath: relativePath, temporaryPath: temporaryPath, bytes: Int(status.st_size))
        }

        /// Removes the temporary file unless it was handed over (still registered: its publisher's now).
        func discard(in temporaries: Int32) {
            guard !handedOver else { return }
            unlinkat(temporaries, temporaryName, 0)
            TemporaryFiles.shared.unregister(temporaryPath)
        }
    }
}

/// An output written whole to its temporary name, waiting for the run to publish it.
struct StagedFile: Codable, Equatable, Sendable {
    /// Where it goes, relative to the output root.
    let relativePath: String
    /// Where it waits: in the run's temporary folder (the path `TemporaryFiles` knows it by).
    let temporaryPath: String
    let bytes: Int
    /// Another link to it, kept for a rerun until it is published (`RenditionCache`): removed then.
    var keptCopy: String?

    /// Its name in the temporary folder, which the publisher holds open.
    var temporaryName: String { (temporaryPath as NSString).lastPathComponent }
}
