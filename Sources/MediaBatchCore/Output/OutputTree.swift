import Foundation

/// Folders under the output root, reached through file descriptors so that no output escapes
/// the root: each folder on the way is opened relative to its parent without following a
/// symlink (a symlink in the output tree fails the item rather than redirecting its output),
/// and missing folders are created as `mkdir -p` would. The root itself may be a symlink: the
/// user chose it.
enum OutputTree {
    /// The components of a path relative to the output root. `PathTemplate` already refuses
    /// absolute templates and `..`, but `{dir}` comes from input names: checked again here.
    static func components(of relativePath: String) throws -> [String] {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !components.contains(where: { ["", ".", ".."].contains($0) }) else {
            throw StageFailure(.writeFailed,
                "refusing to write \"\(relativePath)\": expected a path relative to the output root without empty, \".\" or \"..\" components")
        }
        return components
    }

    /// The components of `folder`, one of the run's own folders under `root`, relative to it.
    static func components(of folder: URL, under root: URL) throws -> [String] {
        let rootComponents = root.standardizedFileURL.pathComponents
        let folderComponents = folder.standardizedFileURL.pathComponents
        guard folderComponents.starts(with: rootComponents) else {
            throw StageFailure(.writeFailed, "the folder \(folder.path) is not under the output root \(root.path)")
        }
        return Array(folderComponents.dropFirst(rootComponents.count))
    }

    /// Opens the output root, creating it when missing. The caller closes the descriptor.
    static func openRoot(_ root: URL) throws -> Int32 {
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let descriptor = open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno, "cannot open the output root \(root.path)") }
        return descriptor
    }

    /// Opens the folder at `components` under the folder `parent`, creating missing folders with
    /// mode 0777 less the umask. The caller closes the descriptor. `walked`, the path to `parent`,
    /// names folders in messages.
    static func openFolder(_ components: some Collection<String>, under parent: Int32, walked: String = "",
                           creating: Bool = true) throws -> Int32 {
        guard let name = components.first else {
            let descriptor = openat(parent, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure(errno, "cannot open the folder \(walked.isEmpty ? "." : walked) in the output tree") }
            return descriptor
        }
        let path = walked.isEmpty ? name : "\(walked)/\(name)"
        let folder = try openSubfolder(name, in: parent, path: path, creating: creating)
        defer { close(folder) }
        return try openFolder(components.dropFirst(), under: folder, walked: path, creating: creating)
    }

    private static func openSubfolder(_ name: String, in parent: Int32, path: String, creating: Bool) throws -> Int32 {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        var folder = openat(parent, name, flags)
        if folder < 0, errno == ENOENT, creating {
            // Another worker may create it between the two calls: that is as good.
            guard mkdirat(parent, name, 0o777) == 0 || errno == EEXIST else {
                throw failure(errno, "cannot create the folder \(path) in the output tree")
            }
            folder = openat(parent, name, flags)
        }
        guard folder >= 0 else {
            let reason = errno
            var status = stat()
            if reason == ELOOP || reason == ENOTDIR, fstatat(parent, name, &status, AT_SYMLINK_NOFOLLOW) == 0,
               status.st_mode & S_IFMT == S_IFLNK {
                throw StageFailure(.writeFailed, "refusing to write through the symlink \(path) in the output tree")
            }
            throw failure(reason, "cannot open the folder \(path) in the output tree")
        }
        return folder
    }

    /// Removes an output (`--prune`) without following a symlink on the way: a symlink planted
    /// in the output tree cannot make mediabatch delete a file outside it. Best effort: an
    /// output already gone is what was wanted.
    static func remove(_ relativePath: String, under root: URL) {
        guard var components = try? components(of: relativePath), let name = components.popLast(),
              let rootFolder = try? openRoot(root) else { return }
        defer { close(rootFolder) }
        guard let folder = try? openFolder(components, under: rootFolder, creating: false) else { return }
        defer { close(folder) }
        unlinkat(folder, name, 0)
    }

    /// Empties one of the run's own folders (the temporary folder a killed run left), creating
    /// it when missing; refused, like any output, when a symlink leads there.
    static func empty(_ folder: URL, under root: URL) throws {
        let rootFolder = try openRoot(root)
        defer { close(rootFolder) }
        let descriptor = try openFolder(components(of: folder, under: root), under: rootFolder)
        defer { close(descriptor) }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            // Relative to the folder checked above, whatever its path leads to now.
            if unlinkat(descriptor, name, 0) != 0 { unlinkat(descriptor, name, AT_REMOVEDIR) }
        }
    }

    /// A write failure that names the system's reason ("No space left on device"). The errno
    /// comes first so that it is read before the message is built.
    static func failure(_ code: Int32, _ message: String) -> StageFailure {
        StageFailure(code == ENOSPC || code == EDQUOT ? .diskFull : .writeFailed, "\(message): \(String(cString: strerror(code)))")
    }
}
