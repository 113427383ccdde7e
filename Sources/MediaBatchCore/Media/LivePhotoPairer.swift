import Foundation
import MediaFormats
import MetadataKit
import PipelineModel
import VipsKit

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
        format.isVideo ? movieIdentifier(path) : stillIdentifier(path, format)
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

    private static func stillIdentifier(_ path: String, _ format: MediaFormat) -> String? {
        ImageMetadata(format: format, path: path).exif?.appleMakerNote?.contentIdentifier
    }

    private static func movieIdentifier(_ path: String) -> String? {
        (try? MovieMetadata(contentsOfFile: path))?.contentIdentifier
    }
}
