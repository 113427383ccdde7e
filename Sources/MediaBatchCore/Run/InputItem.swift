import Foundation

/// One input file, named relative to the input root.
public struct InputItem: Codable, Sendable {
    public let root: URL
    public let relativePath: String
    /// Set when the item is half of a Live Photo (see `LivePhotoPairer`).
    public var livePhoto: LivePhotoPair?
    /// Set when the item is a camera's RAW or the JPEG written beside it (see `RawJpegPairer`).
    public var rawJpegPair: RawJpegPair?
    /// Set when the walker lists the entry only to report why it is not read.
    public var refusal: InputRefusal?
    /// The files beside it that belong to it (see `SidecarPairer`).
    public var sidecars: [Sidecar] = []

    public init(root: URL, relativePath: String, livePhoto: LivePhotoPair? = nil, refusal: InputRefusal? = nil) {
        self.root = root
        self.relativePath = relativePath
        self.livePhoto = livePhoto
        self.refusal = refusal
    }

    public var url: URL { root.appending(path: relativePath) }
    public var path: String { url.path }
    /// The input's folder relative to the input root; "" for files at the top.
    public var relativeFolder: String { (relativePath as NSString).deletingLastPathComponent }
    public var stem: String { ((relativePath as NSString).lastPathComponent as NSString).deletingPathExtension }
    public var pathExtension: String { (relativePath as NSString).pathExtension.lowercased() }
}

/// Why a listed entry is not read. Opening a FIFO blocks forever and a device never ends, so
/// these are decided from lstat(2) before anything opens the entry.
public enum InputRefusal: Codable, Equatable, Sendable {
    /// A FIFO, socket, or character or block device.
    case notRegularFile(String)
    /// A symlink leading out of the input root (not followed unless `input.followSymlinks`).
    case symlinkOutsideRoot(String)
    /// A symlink to a folder inside the root: its files are listed under their own path already.
    case symlinkedFolder
    case symlinkLoop
    case danglingSymlink
    /// `input.duplicates: keeper`: a copy of the photo another file (the keeper) is: "duplicateOf: KEEPER (tier)".
    case duplicate(String)
    /// An XMP, AAE or Takeout JSON whose photo is not beside it: listed once, never copied.
    case sidecarWithoutPhoto

    /// Refused entries that are broken (the run fails them) rather than merely not for reading.
    public var isBroken: Bool {
        self == .symlinkLoop || self == .danglingSymlink
    }

    public var reason: String {
        switch self {
        case .notRegularFile(let kind): return "not a regular file (\(kind))"
        case .symlinkOutsideRoot(let target): return "a symlink to \(target), outside the input root (see input.followSymlinks)"
        case .symlinkedFolder: return "a symlink to a folder inside the input root, whose files are listed where they are"
        case .symlinkLoop: return "a symlink loop"
        case .danglingSymlink: return "a symlink to nothing"
        case .duplicate(let reason): return reason
        case .sidecarWithoutPhoto: return "a sidecar without its photo: not copied"
        }
    }
}
