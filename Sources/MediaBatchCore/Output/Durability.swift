import Foundation

/// Whether a published output is on the disk before the state database records it. A rename
/// is durable only once its folder is synced, and a file's data only once the file is, so
/// `full` syncs the outputs' data before their renames (`OutputPublisher`, a batch at once) and, before every commit of
/// the state database, each folder the batch's outputs are in, with the folders above it up to
/// the output root (`RunLedger.commit`): one sync per folder per batch, not per file. Then an
/// item the database records is on the disk whatever the database's own sync level: SQLite in
/// WAL mode with `synchronous = NORMAL` may lose its last commits at a power cut (the next run
/// redoes those items), never order a commit before the writes it follows, so "recorded ⇒ on
/// disk" needs nothing stronger; `FULL` would only keep "written ⇒ recorded" too.
public enum Durability: String, CaseIterable, Codable, Sendable {
    /// Every output's data and folder reach the disk before the state database records it.
    case full
    /// No syncs: for scratch runs whose outputs a power cut may lose.
    case none

    /// Syncs the file system `folder` is on, when durable: every file written there reaches the
    /// disk with one journal commit, where a sync per file costs one each (a batch of staged
    /// files: the run's temporary folder is on the output volume). Whatever else is waiting to
    /// be written on that volume goes with them.
    func syncVolume(of folder: Int32) throws {
        guard self == .full else { return }
        guard Self.syncfs(folder) == 0 else { throw OutputTree.failure(errno, "cannot sync the output volume") }
    }

    /// glibc's syncfs(2) (since 2.14), which Swift's Glibc module leaves out: it is declared only
    /// under _GNU_SOURCE. Looked up once, by name, in the libc this process runs with.
    private static let syncfs: @convention(c) (Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { fatalError("glibc without syncfs") }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()

    /// Syncs the folders of `relativePaths` and every folder above them up to `root`, each once,
    /// so that the names renamed into them survive a power cut, when durable.
    func syncFolders(of relativePaths: some Sequence<String>, under root: URL) throws {
        guard self == .full else { return }
        var folders: Set<[String]> = [[]]
        for path in relativePaths {
            let components = try OutputTree.components(of: path).dropLast()
            for depth in stride(from: 1, through: components.count, by: 1) { folders.insert(Array(components.prefix(depth))) }
        }
        let rootFolder = try OutputTree.openRoot(root)
        defer { close(rootFolder) }
        for components in folders.sorted(by: { $0.count > $1.count }) {
            let folder = try OutputTree.openFolder(components, under: rootFolder, creating: false)
            defer { close(folder) }
            guard fsync(folder) == 0 else { throw OutputTree.failure(errno, "cannot sync the folder \(components.joined(separator: "/"))") }
        }
    }
}
