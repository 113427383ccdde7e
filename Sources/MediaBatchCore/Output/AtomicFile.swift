import Foundation

/// Writes an item's files so that they appear whole or not at all: each file's content goes to
/// a temporary file in the run's temporary folder (under the output root: same filesystem), and
/// only once every file of the item is written does one rename(2) per file publish them. A
/// failure before that leaves nothing published. Temporary files are tracked so that an
/// interrupted run removes them; a killed run's are in one folder that the next run empties
/// before it starts. Both folders are reached through `OutputTree`, never through a symlink
/// inside the root. With `Durability.full`, each file's data is synced before its rename (its
/// folder, once a batch, before the state database records it: see `Durability`).
enum AtomicFile {
    /// One file to publish: its path relative to the output root, and what writes its content
    /// at the temporary path it is given.
    struct File {
        let relativePath: String
        let produce: (_ temporaryPath: String) throws -> Void
    }

    /// Publishes `relativePath` alone; returns the published file's size.
    static func write(_ relativePath: String, under outputRoot: URL, via temporaryFolder: URL, durability: Durability,
                      _ produce: @escaping (_ temporaryPath: String) throws -> Void) throws -> Int {
        try write([File(relativePath: relativePath, produce: produce)], under: outputRoot, via: temporaryFolder, durability: durability)[0]
    }

    /// Publishes every file or, when one cannot be written, none; returns their sizes in order.
    /// `beforePublishing` runs once every file is written, before the first is synced or renamed:
    /// its failure publishes none.
    static func write(_ files: [File], under outputRoot: URL, via temporaryFolder: URL, durability: Durability,
                      beforePublishing: () throws -> Void = {}) throws -> [Int] {
        // Refused paths create nothing, not even the temporary folder.
        let components = try files.map { try OutputTree.components(of: $0.relativePath) }
        let root = try OutputTree.openRoot(outputRoot)
        defer { close(root) }
        let temporaries = try OutputTree.openFolder(OutputTree.components(of: temporaryFolder, under: outputRoot), under: root)
        defer { close(temporaries) }
        var staged: [Staged] = []
        defer { staged.forEach { $0.discard(in: temporaries) } }
        for (file, components) in zip(files, components) {
            staged.append(try Staged(file, components, root: root, temporaryFolder: temporaryFolder))
            // libvips and Foundation take a path: the walk above has just checked every folder on it.
            try staged[staged.count - 1].produce(file)
        }
        try beforePublishing()
        for file in staged { try durability.syncFile(file.temporaryName, in: temporaries, file.relativePath) }
        return try staged.indices.map { index in try staged[index].publish(from: temporaries) }
    }

    /// A file written to its temporary name, with its destination folder held open.
    private struct Staged {
        let relativePath: String
        let name: String
        let folder: Int32
        let temporaryName: String
        let temporaryPath: String
        private(set) var published = false

        init(_ file: File, _ components: [String], root: Int32, temporaryFolder: URL) throws {
            var components = components
            relativePath = file.relativePath
            name = components.removeLast()
            folder = try OutputTree.openFolder(components, under: root)
            temporaryName = "\(getpid())-\(TemporaryFiles.shared.nextSerial())-\(name)"
            temporaryPath = temporaryFolder.appendingPathComponent(temporaryName).path
            TemporaryFiles.shared.register(temporaryPath)
        }

        func produce(_ file: File) throws {
            try file.produce(temporaryPath)
        }

        /// rename(2) replaces a symlink at the destination itself: it never writes through it.
        mutating func publish(from temporaries: Int32) throws -> Int {
            var status = stat()
            guard fstatat(temporaries, temporaryName, &status, AT_SYMLINK_NOFOLLOW) == 0,
                  renameat(temporaries, temporaryName, folder, name) == 0 else {
                throw OutputTree.failure(errno, "cannot publish \(relativePath)")
            }
            published = true
            return Int(status.st_size)
        }

        /// Removes the temporary file unless it was published, and lets the folder go.
        func discard(in temporaries: Int32) {
            if !published { unlinkat(temporaries, temporaryName, 0) }
            TemporaryFiles.shared.unregister(temporaryPath)
            close(folder)
        }
    }
}
