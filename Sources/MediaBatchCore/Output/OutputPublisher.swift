import Foundation

/// Publishes staged files (`AtomicFile.stage`) from the run's temporary folder: their data synced
/// (`Durability.full`: one sync of the volume for a whole batch), then each renamed into its
/// folder with one renameat(2). The run publishes a batch of items at once, just before the
/// state database records them, so that syncs wait on one thread and no item's lane waits on
/// the disk. Holds the output root and the temporary folder open.
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

    /// One item's files.
    func publish(_ files: [StagedFile]) throws {
        if let failure = publish([files])[0] { throw failure }
    }

    /// Each item's files, synced together, then renamed item by item; each item's failure, if
    /// any. An item's failure removes its files not yet renamed; those renamed before it stay
    /// (the item is not recorded: the next run redoes it and writes them again).
    func publish(_ items: [[StagedFile]]) -> [StageFailure?] {
        do {
            if items.contains(where: { !$0.isEmpty }) { try durability.syncVolume(of: temporaries) }
        } catch {
            items.forEach(discard)
            return items.map { _ in Self.failure(error) }
        }
        return items.map { files in
            var published = 0
            defer { discard(files.dropFirst(published)) }
            do {
                for file in files {
                    try rename(file)
                    published += 1
                }
                return nil
            } catch {
                return Self.failure(error)
            }
        }
    }

    /// Removes staged files that will not be published.
    func discard(_ files: some Sequence<StagedFile>) {
        for file in files {
            unlinkat(temporaries, file.temporaryName, 0)
            TemporaryFiles.shared.unregister(file.temporaryPath)
        }
    }

    private static func failure(_ error: Error) -> StageFailure {
        error as? StageFailure ?? StageFailure(.writeFailed, "\(error)")
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
        if let kept = file.keptCopy { unlink(kept) }
    }
}
