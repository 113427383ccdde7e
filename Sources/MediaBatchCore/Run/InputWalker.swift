import Foundation
import PipelineModel

/// Lists the files under the root lazily, in a stable order, applying include/exclude globs.
/// Folders are read one at a time, so a million-file library is never held in memory. Entries
/// are judged by lstat(2): regular files are items; FIFOs, devices, sockets and symlinks that
/// lead out of the root, loop or dangle are listed with a refusal so the run reports them.
public struct InputWalker: Sequence {
    let root: URL
    let include: [Glob]
    let exclude: [Glob]
    /// Not descended into: the output root when it sits inside the input root.
    let skipping: URL?
    let followSymlinks: Bool
    /// The root with its own symlinks resolved: symlink targets are compared against it.
    let resolvedRoot: String

    public init(root: URL, include: [Glob], exclude: [Glob], skipping: URL?, followSymlinks: Bool = false) {
        self.root = root.standardizedFileURL
        self.include = include
        self.exclude = exclude
        self.skipping = skipping?.standardizedFileURL
        self.followSymlinks = followSymlinks
        resolvedRoot = Self.realPath(root.path) ?? root.standardizedFileURL.path
    }

    public func makeIterator() -> Iterator {
        Iterator(walker: self)
    }

    public struct Iterator: IteratorProtocol {
        let walker: InputWalker
        /// Folders still to read (relative paths), depth first; each entry's children are sorted.
        private var pendingFolders: [String] = [""]
        private var pendingFiles: [InputItem] = []
        /// When following symlinks: folders entered, by device and inode, so none is entered twice.
        private var visited: Set<[UInt64]> = []

        init(walker: InputWalker) {
            self.walker = walker
            var info = stat()
            if walker.followSymlinks, stat(walker.root.path, &info) == 0 { visited.insert(InputWalker.identity(info)) }
        }

        public mutating func next() -> InputItem? {
            while true {
                if let file = pendingFiles.popLast() {
                    if walker.selects(file.relativePath) { return file }
                    continue
                }
                guard let folder = pendingFolders.popLast() else { return nil }
                read(folder)
            }
        }

        private mutating func read(_ folder: String) {
            let folderURL = folder.isEmpty ? walker.root : walker.root.appending(path: folder)
            if let skipping = walker.skipping, folderURL.standardizedFileURL.path == skipping.path { return }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folderURL.path)) ?? []
            var files: [InputItem] = []
            var folders: [String] = []
            for name in names.sorted() {
                let relative = folder.isEmpty ? name : "\(folder)/\(name)"
                switch walker.entry(at: folderURL.appending(path: name).path) {
                case .file:
                    files.append(InputItem(root: walker.root, relativePath: relative))
                case .refused(let refusal):
                    files.append(InputItem(root: walker.root, relativePath: relative, refusal: refusal))
                case .folder(let identity):
                    // An excluded folder (e.g. ".thumbs" under "**/.*") is not entered.
                    guard !walker.excludes(relative) else { continue }
                    if let identity, !visited.insert(identity).inserted { continue }
                    folders.append(relative)
                case .vanished:
                    continue
                }
            }
            // Stacks pop from the end: push in reverse to visit in sorted order.
            pendingFiles = files.reversed()
            pendingFolders.append(contentsOf: folders.reversed())
        }
    }

    enum Entry {
        case file
        /// `identity` (device, inode) is set when following symlinks, to enter each folder once.
        case folder(identity: [UInt64]?)
        case refused(InputRefusal)
        /// Gone between listing the folder and looking at the entry.
        case vanished
    }

    func entry(at path: String) -> Entry {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .vanished }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .folder(identity: followSymlinks ? Self.identity(info) : nil)
        case S_IFLNK: return symlink(at: path)
        case S_IFIFO: return .refused(.notRegularFile("FIFO"))
        case S_IFSOCK: return .refused(.notRegularFile("socket"))
        case S_IFCHR: return .refused(.notRegularFile("character device"))
        case S_IFBLK: return .refused(.notRegularFile("block device"))
        default: return .refused(.notRegularFile("unknown file type"))
        }
    }

    private func symlink(at path: String) -> Entry {
        var target = stat()
        guard stat(path, &target) == 0 else { return .refused(errno == ELOOP ? .symlinkLoop : .danglingSymlink) }
        let resolved = Self.realPath(path) ?? path
        let inside = resolved == resolvedRoot || resolved.hasPrefix(resolvedRoot == "/" ? "/" : resolvedRoot + "/")
        let isFolder = target.st_mode & S_IFMT == S_IFDIR
        if followSymlinks {
            guard isFolder else { return target.st_mode & S_IFMT == S_IFREG ? .file : .refused(.notRegularFile("symlink to a special file")) }
            return .folder(identity: Self.identity(target))
        }
        guard inside else { return .refused(.symlinkOutsideRoot(resolved)) }
        if isFolder { return .refused(.symlinkedFolder) }
        return target.st_mode & S_IFMT == S_IFREG ? .file : .refused(.notRegularFile("symlink to a special file"))
    }

    static func identity(_ info: stat) -> [UInt64] {
        [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    func selects(_ relativePath: String) -> Bool {
        include.contains { $0.matches(relativePath) } && !excludes(relativePath)
    }

    func excludes(_ relativePath: String) -> Bool {
        exclude.contains { $0.matches(relativePath) }
    }
}
