import Foundation
import PipelineModel

/// One input file, named relative to the input root.
public struct InputItem: Sendable {
    public let root: URL
    public let relativePath: String
    /// Set when the item is half of a Live Photo (see `LivePhotoPairing`).
    public var livePhoto: LivePhotoPair?

    public init(root: URL, relativePath: String, livePhoto: LivePhotoPair? = nil) {
        self.root = root
        self.relativePath = relativePath
        self.livePhoto = livePhoto
    }

    public var url: URL { root.appendingPathComponent(relativePath) }
    public var path: String { url.path }
    /// The input's folder relative to the input root; "" for files at the top.
    public var relativeFolder: String { (relativePath as NSString).deletingLastPathComponent }
    public var stem: String { ((relativePath as NSString).lastPathComponent as NSString).deletingPathExtension }
    public var pathExtension: String { (relativePath as NSString).pathExtension.lowercased() }
}

/// Lists regular files under the root lazily, in a stable order, applying include/exclude globs.
/// Folders are read one at a time, so a million-file library is never held in memory.
public struct InputWalker: Sequence {
    let root: URL
    let include: [Glob]
    let exclude: [Glob]
    /// Not descended into: the output root when it sits inside the input root.
    let skipping: URL?

    public init(root: URL, include: [Glob], exclude: [Glob], skipping: URL?) {
        self.root = root.standardizedFileURL
        self.include = include
        self.exclude = exclude
        self.skipping = skipping?.standardizedFileURL
    }

    public func makeIterator() -> Iterator {
        Iterator(walker: self)
    }

    public struct Iterator: IteratorProtocol {
        let walker: InputWalker
        /// Folders still to read (relative paths), depth first; each entry's children are sorted.
        private var pendingFolders: [String] = [""]
        private var pendingFiles: [String] = []

        init(walker: InputWalker) {
            self.walker = walker
        }

        public mutating func next() -> InputItem? {
            while true {
                if let file = pendingFiles.popLast() {
                    if walker.selects(file) { return InputItem(root: walker.root, relativePath: file) }
                    continue
                }
                guard let folder = pendingFolders.popLast() else { return nil }
                read(folder)
            }
        }

        private mutating func read(_ folder: String) {
            let folderURL = folder.isEmpty ? walker.root : walker.root.appendingPathComponent(folder)
            if let skipping = walker.skipping, folderURL.standardizedFileURL.path == skipping.path { return }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folderURL.path)) ?? []
            var files: [String] = []
            var folders: [String] = []
            for name in names.sorted() {
                let relative = folder.isEmpty ? name : "\(folder)/\(name)"
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folderURL.appendingPathComponent(name).path, isDirectory: &isDirectory)
                else { continue }
                if !isDirectory.boolValue {
                    files.append(relative)
                } else if !walker.excludes(relative) {
                    folders.append(relative) // an excluded folder (e.g. ".thumbs" under "**/.*") is not entered
                }
            }
            // Stacks pop from the end: push in reverse to visit in sorted order.
            pendingFiles = files.reversed()
            pendingFolders.append(contentsOf: folders.reversed())
        }
    }

    func selects(_ relativePath: String) -> Bool {
        include.contains { $0.matches(relativePath) } && !excludes(relativePath)
    }

    func excludes(_ relativePath: String) -> Bool {
        exclude.contains { $0.matches(relativePath) }
    }
}
