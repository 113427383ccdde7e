import Foundation

/// Publishes staged files (`AtomicFile.stage`) from the run's temporary folder: each file's data
/// synced (`Durability.full`), then renamed into its folder with one renameat(2). The run
/// publishes a batch of items at once, just before the state database records them, so that
/// syncs wait on one thread and no item's lane waits on the disk. Holds the output root and the
/// temporary folder open for the batch.
final class OutputPublisher {
    private let root: Int32
    private let temporaries: Int32
    private let durability: Durability

    init(outputRoot: URL, temporaryFolder: URL, durability: Durability) throws {
        root = try OutputTree.openRoot(outputRoot)
        do {
            temporaries = try OutputTree.openFolder(OutputTree.components(of: temporaryFolder, under: outputRoot), under: root)
        } catch {
            close(root)
            throw error
        }
        self.durability = durability
    }

    deinit {
        close(temporaries)
        close(root)
    }

    /// One item's files: every one synced, then every one renamed. A failure removes the files
    /// not yet renamed; those renamed before it stay (the item is not recorded: the next run
    /// redoes it and writes them again).
    func publish(_ files: [StagedFile]) throws {
        var published = 0
        defer { discard(files.dropFirst(published)) }
        for file in files { try durability.syncFile(file.temporaryName, in: temporaries, file.relativePath) }
        for file in files {
            try rename(file)
            published += 1
        }
    }

    /// Removes staged files that will not be published.
    func discard(_ files: some Sequence<StagedFile>) {
        for file in files {
            unlinkat(temporaries, file.temporaryName, 0)
            TemporaryFiles.shared.unregister(file.temporaryPath)
        }
    }

    /// rename(2) replaces a symlink at the destination itself: it never writes through it.
    private func rename(_ file: StagedFile) throws {
        var components = try OutputTree.components(of: file.relativePath)
        let name = components.removeLast()
        let folder = try OutputTree.openFolder(components, under: root)
        defer { close(folder) }
        guard renameat(temporaries, file.temporaryName, folder, name) == 0 else {
            throw OutputTree.failure(errno, "cannot publish \(file.relativePath)")
        }
        TemporaryFiles.shared.unregister(file.temporaryPath)
    }
}
