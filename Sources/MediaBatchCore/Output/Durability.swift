import Foundation

/// Whether a published output is on the disk before the state database records it. A rename
/// is durable only once its folder is synced, and a file's data only once the file is, so
/// `full` syncs each output's data before its rename (`OutputPublisher`) and, before every commit of
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

    /// Syncs the file `name` in the folder `folder` (its data and size), when durable.
    func syncFile(_ name: String, in folder: Int32, _ relativePath: String) throws {
        guard self == .full else { return }
        let descriptor = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw OutputTree.failure(errno, "cannot sync \(relativePath)") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw OutputTree.failure(errno, "cannot sync \(relativePath)") }
    }

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
