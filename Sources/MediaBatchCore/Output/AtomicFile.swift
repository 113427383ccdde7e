import Foundation

/// Writes a file so that it either appears whole or not at all: the content goes to a temporary
/// file in the run's temporary folder (under the output root: same filesystem), then one
/// rename(2) publishes it. Temporary files are tracked so that an interrupted run removes
/// them; a killed run's are in one folder that the next run empties before it starts.
/// Both folders are reached through `OutputTree`, never through a symlink inside the root.
enum AtomicFile {
    /// Publishes `relativePath` under `outputRoot` with the content `produce` writes at the
    /// temporary path it is given; returns the published file's size.
    static func write(_ relativePath: String, under outputRoot: URL, via temporaryFolder: URL,
                      _ produce: (_ temporaryPath: String) throws -> Void) throws -> Int {
        var components = try OutputTree.components(of: relativePath)
        let name = components.removeLast()
        let root = try OutputTree.openRoot(outputRoot)
        defer { close(root) }
        let folder = try OutputTree.openFolder(components, under: root)
        defer { close(folder) }
        let temporaries = try OutputTree.openFolder(OutputTree.components(of: temporaryFolder, under: outputRoot), under: root)
        defer { close(temporaries) }
        let temporaryName = "\(getpid())-\(TemporaryFiles.shared.nextSerial())-\(name)"
        let temporary = temporaryFolder.appendingPathComponent(temporaryName).path
        TemporaryFiles.shared.register(temporary)
        defer { TemporaryFiles.shared.unregister(temporary) }
        do {
            // libvips and Foundation take a path: the walk above has just checked every folder on it.
            try produce(temporary)
            var status = stat()
            // rename(2) replaces a symlink at the destination itself: it never writes through it.
            guard fstatat(temporaries, temporaryName, &status, AT_SYMLINK_NOFOLLOW) == 0,
                  renameat(temporaries, temporaryName, folder, name) == 0 else {
                throw OutputTree.failure(errno, "cannot publish \(relativePath)")
            }
            return Int(status.st_size)
        } catch {
            unlinkat(temporaries, temporaryName, 0)
            throw error
        }
    }
}
