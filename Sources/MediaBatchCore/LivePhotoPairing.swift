import Foundation
import MetadataKit
import PipelineModel
import VipsKit

/// How an item belongs to a Live Photo: which half it is and where the other half is.
public struct LivePhotoPair: Codable, Equatable, Sendable {
    public enum Role: String, Codable, Sendable {
        case still, video
    }

    public let role: Role
    /// The other half, relative to the input root.
    public let partner: String
    /// The identifier both halves carry; nil when they were paired by name because neither
    /// carries one.
    public let contentIdentifier: String?
}

/// Pairs Live Photo halves among the files of one folder: a still (HEIC or JPEG) and a QuickTime
/// movie carrying the same content identifier (Apple MakerNote tag 0x11 in the still,
/// `com.apple.quicktime.content.identifier` in the movie). Halves carrying no identifier pair by
/// stem (`IMG_0001.HEIC` + `IMG_0001.MOV`) only when neither carries one.
///
/// Pairs are looked for within a folder, where cameras, Image Capture, iCloud and Takeout exports
/// put them; only folders holding both a still and a movie cost any header reads.
public struct LivePhotoPairing<Base: Sequence>: Sequence where Base.Element == InputItem {
    let base: Base
    let known: (InputItem) -> LivePhotoPairer.KnownHalf?
    let identifier: LivePhotoPairer.IdentifierReader

    /// `known` answers from the state database for files unchanged since the last run;
    /// `identifier` reads a half's content identifier (in a worker process for untrusted input).
    init(_ base: Base, known: @escaping (InputItem) -> LivePhotoPairer.KnownHalf? = { _ in nil },
         identifier: @escaping LivePhotoPairer.IdentifierReader = LivePhotoPairer.readIdentifier) {
        self.base = base
        self.known = known
        self.identifier = identifier
    }

    public func makeIterator() -> Iterator {
        Iterator(base: base.makeIterator(), known: known, identifier: identifier)
    }

    public struct Iterator: IteratorProtocol {
        var base: Base.Iterator
        let known: (InputItem) -> LivePhotoPairer.KnownHalf?
        let identifier: LivePhotoPairer.IdentifierReader
        private var lookahead: InputItem?
        private var ready: [InputItem] = []

        init(base: Base.Iterator, known: @escaping (InputItem) -> LivePhotoPairer.KnownHalf?,
             identifier: @escaping LivePhotoPairer.IdentifierReader) {
            self.base = base
            self.known = known
            self.identifier = identifier
        }

        public mutating func next() -> InputItem? {
            if ready.isEmpty {
                guard let first = lookahead ?? base.next() else { return nil }
                lookahead = nil
                var folder = [first]
                while let item = base.next() {
                    guard item.relativeFolder == first.relativeFolder else {
                        lookahead = item
                        break
                    }
                    folder.append(item)
                }
                ready = LivePhotoPairer.pair(folder, known: known, identifier: identifier).reversed()
            }
            return ready.popLast()
        }
    }
}

enum LivePhotoPairer {
    /// A file's format and content identifier as an earlier run read them.
    struct KnownHalf {
        let format: MediaFormat?
        let contentIdentifier: String?
    }

    private struct Half {
        let index: Int
        let stem: String
        let format: MediaFormat
        let contentIdentifier: String?

        func sameStem(_ other: Half) -> Bool {
            stem.lowercased() == other.stem.lowercased()
        }
    }

    static func canBeHalf(_ format: MediaFormat) -> Bool {
        format == .heic || format == .jpeg || format == .mov
    }

    /// Reads the content identifier of the file at a path, a still or a movie as its format says.
    typealias IdentifierReader = (_ path: String, _ format: MediaFormat) -> String?

    static func readIdentifier(path: String, format: MediaFormat) -> String? {
        format.isVideo ? movieIdentifier(path) : stillIdentifier(path)
    }

    /// The folder's items with their `livePhoto` set where a pair was found.
    static func pair(_ items: [InputItem], known: (InputItem) -> KnownHalf? = { _ in nil },
                     identifier: IdentifierReader = readIdentifier) -> [InputItem] {
        var stills: [Half] = []
        var movies: [Half] = []
        var knownHalves: [Int: KnownHalf] = [:]
        for (index, item) in items.enumerated() where item.refusal == nil {
            let remembered = known(item)
            knownHalves[index] = remembered
            guard let format = remembered?.format ?? (try? FormatSniffer.format(of: item.path)) ?? nil, canBeHalf(format)
            else { continue }
            let half = Half(index: index, stem: item.stem, format: format, contentIdentifier: nil)
            if format.isVideo { movies.append(half) } else { stills.append(half) }
        }
        guard !stills.isEmpty, !movies.isEmpty else { return items }
        func identified(_ half: Half) -> Half {
            let known = knownHalves[half.index].map(\.contentIdentifier)
            return Half(index: half.index, stem: half.stem, format: half.format,
                        contentIdentifier: known ?? identifier(items[half.index].path, half.format))
        }
        stills = stills.map(identified)
        movies = movies.map(identified)

        var paired = items
        var takenStills: Set<Int> = []
        var pairedMovies: Set<Int> = []
        // Same identifier and stem first, so an edited copy (IMG_E0001.JPG) carrying the
        // original's identifier cannot take the movie from its original; then identifier alone;
        // then, for halves carrying none, the stem alone.
        let passes: [(Half, Half) -> Bool] = [
            { still, movie in movie.contentIdentifier != nil && still.contentIdentifier == movie.contentIdentifier && still.sameStem(movie) },
            { still, movie in movie.contentIdentifier != nil && still.contentIdentifier == movie.contentIdentifier },
            { still, movie in movie.contentIdentifier == nil && still.contentIdentifier == nil && still.sameStem(movie) },
        ]
        for matches in passes {
            for movie in movies where !pairedMovies.contains(movie.index) {
                guard let still = stills.first(where: { !takenStills.contains($0.index) && matches($0, movie) }) else { continue }
                takenStills.insert(still.index)
                pairedMovies.insert(movie.index)
                paired[still.index].livePhoto = LivePhotoPair(
                    role: .still, partner: items[movie.index].relativePath, contentIdentifier: movie.contentIdentifier)
                paired[movie.index].livePhoto = LivePhotoPair(
                    role: .video, partner: items[still.index].relativePath, contentIdentifier: movie.contentIdentifier)
            }
        }
        return paired
    }

    private static func stillIdentifier(_ path: String) -> String? {
        let exif = (try? VImage.open(path))?.blob("exif-data").flatMap(ExifData.init)
        return exif?.appleMakerNote?.contentIdentifier
    }

    private static func movieIdentifier(_ path: String) -> String? {
        (try? MovieMetadata(contentsOfFile: path))?.contentIdentifier
    }
}

/// The Live Photo pairs of the folders `inspect` looks at, each folder paired once.
public final class LivePhotoIndex {
    private var folders: [String: [String: LivePhotoPair]] = [:]

    public init() {}

    /// `path` as an item of its folder, with its pair when it is half of a Live Photo.
    func item(at path: String, format: MediaFormat) -> InputItem {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let folder = url.deletingLastPathComponent()
        let item = InputItem(root: folder, relativePath: url.lastPathComponent)
        guard LivePhotoPairer.canBeHalf(format) else { return item }
        if folders[folder.path] == nil {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.sorted() ?? []
            let files = names.map { InputItem(root: folder, relativePath: $0) }.filter {
                (try? $0.url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
            }
            folders[folder.path] = Dictionary(uniqueKeysWithValues: LivePhotoPairer.pair(files).compactMap { file in
                file.livePhoto.map { (file.relativePath, $0) }
            })
        }
        return InputItem(root: folder, relativePath: item.relativePath, livePhoto: folders[folder.path]?[item.relativePath])
    }
}
