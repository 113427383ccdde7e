import Foundation
import MediaFormats

/// A manifest item as a web page shows it (`mediabatch html`): a photo as a `<picture>` for each
/// shape its variants come in (a 16:9 hero and a square thumbnail are two pictures: one `srcset`
/// must not mix shapes) — one `<source>` per format the browser may not show, smallest files
/// first (a browser takes the first it can show), each listing every width; then the `<img>`
/// every browser shows (JPEG, else PNG, else GIF), sized, lazy, with the photo's caption as its
/// alt text and its ThumbHash as `data-thumbhash` — or a movie as a `<video>`, one `<source>` per
/// output. Items with neither (outputs of no known type) make nothing.
public struct PictureMarkup: Encodable, Equatable, Sendable {
    public struct Options: Sendable {
        /// The `sizes` attribute: how wide the picture is laid out (`100vw`: the viewport's width).
        public var sizes = "100vw"
        public var className: String?
        /// Put before each output's path (relative to the output root) to make its URL.
        public var baseURL = ""

        public init() {}
    }

    public struct Source: Encodable, Equatable, Sendable {
        public let type: String
        public let srcset: String
    }

    public struct Image: Encodable, Equatable, Sendable {
        public let src: String
        public let srcset: String?
        public let width: Int?
        public let height: Int?
    }

    public struct Video: Encodable, Equatable, Sendable {
        public let sources: [VideoSource]
        /// The movie as shown (its first output's size), where the manifest knows it.
        public let width: Int?
        public let height: Int?
        /// The poster every browser shows (the largest JPEG, else PNG, else GIF of the `poster` outputs), with its size.
        public let poster: Image?
    }

    public struct VideoSource: Encodable, Equatable, Sendable {
        public let src: String
        public let type: String
    }

    /// What a template engine needs (`--json`); `html` renders the same.
    public let input: String
    public let alt: String
    public let placeholder: String?
    public let sources: [Source]?
    public let img: Image?
    public let video: Video?

    /// A browser plays the first `<source>` it can: the smallest codecs first, H.264 (which every
    /// browser plays) last; other movies (a copy) after, as listed.
    static let videoCodecs = ["av1", "hevc", "vp9", "h264"]

    static func preferred<Typed>(_ movies: [(Manifest.Variant, MediaFormat, Typed)]) -> [(Manifest.Variant, MediaFormat, Typed)] {
        movies.enumerated().sorted { first, second in
            let rank = { (movie: Manifest.Variant) in movie.codec.flatMap(videoCodecs.firstIndex) ?? videoCodecs.count }
            return (rank(first.element.0), first.offset) < (rank(second.element.0), second.offset)
        }.map(\.element)
    }

    /// The container's media type, with the rendition's RFC 6381 codecs where known.
    static func type(_ movie: Manifest.Variant, _ mediaType: String) -> String {
        movie.codecs.map { "\(mediaType); codecs=\"\($0)\"" } ?? mediaType
    }

    /// Formats every browser shows, the `<img>`'s, in the order they are preferred.
    static let fallbacks: [MediaFormat] = [.jpeg, .png, .gif]

    /// The item's pictures, widest first, or its video (with its poster, when it has one).
    public static func of(_ item: Manifest.Item, _ options: Options) -> [PictureMarkup] {
        guard item.variants.contains(where: { $0.role == .video }) else {
            return shapes(of: item.variants).compactMap { PictureMarkup(item, $0, options) }
        }
        return [PictureMarkup(item, item.variants.filter { $0.role != .poster }, options, poster: item.variants.filter { $0.role == .poster })]
            .compactMap { $0 }
    }

    /// Variants grouped by their proportions, within 1% (sizes rounded to whole pixels differ a
    /// little), each in the manifest's order, the group with the widest variant first; variants
    /// of unknown size are a group of their own.
    static func shapes(of variants: [Manifest.Variant]) -> [[Manifest.Variant]] {
        var groups: [(ratio: Double?, variants: [Manifest.Variant])] = []
        for variant in variants {
            let ratio = variant.width.flatMap { width in variant.height.map { Double(width) / Double(max($0, 1)) } }
            let index = groups.firstIndex { group in
                guard let ratio, let other = group.ratio else { return ratio == nil && group.ratio == nil }
                return abs(other / ratio - 1) < 0.01
            }
            if let index { groups[index].variants.append(variant) } else { groups.append((ratio, [variant])) }
        }
        let widest = { (group: [Manifest.Variant]) in group.map { $0.width ?? 0 }.max() ?? 0 }
        return groups.map(\.variants).sorted { widest($0) > widest($1) }
    }

    init?(_ item: Manifest.Item, _ variants: [Manifest.Variant], _ options: Options, poster: [Manifest.Variant] = []) {
        let typed = variants.compactMap { variant in
            variant.format.flatMap(MediaFormat.init(rawValue:)).flatMap { format in format.row.mediaType.map { (variant, format, $0) } }
        }
        input = item.input
        alt = item.caption ?? ""
        placeholder = item.placeholder
        let byFormat = Dictionary(grouping: typed.filter { $0.1.row.kind == .still }) { $0.1 }
        // Formats of equal bytes by name: never by the dictionary's per-process order.
        let smallestFirst = byFormat.sorted { (total($0.value), $0.key.rawValue) < (total($1.value), $1.key.rawValue) }.map(\.key)
        if let fallback = Self.fallbacks.first(where: byFormat.keys.contains) ?? smallestFirst.first {
            let others = smallestFirst.filter { $0 != fallback }.map { byFormat[$0]! }
            sources = others.map { Source(type: $0[0].2, srcset: Self.srcset($0.map(\.0), options)) }
            img = Self.image(byFormat[fallback]?.map(\.0) ?? [], options)
            video = nil
        } else if case let movies = typed.filter({ $0.1.row.kind == .movie }), !movies.isEmpty {
            (sources, img) = (nil, nil)
            let stills = poster.filter { $0.format.flatMap(MediaFormat.init(rawValue:)).map(Self.fallbacks.contains) ?? false }
            let preferred = Self.fallbacks.lazy.map { format in stills.filter { $0.format == format.rawValue } }.first { !$0.isEmpty } ?? []
            video = Video(sources: Self.preferred(movies).map { VideoSource(src: Self.url($0.0.path, options), type: Self.type($0.0, $0.2)) },
                          width: movies[0].0.width, height: movies[0].0.height, poster: preferred.max { ($0.width ?? 0) < ($1.width ?? 0) }.map {
                              Image(src: Self.url($0.path, options), srcset: nil, width: $0.width, height: $0.height)
                          })
        } else {
            return nil
        }
    }

    /// The element, on one line per tag.
    public func html(_ options: Options) -> String {
        let escape = JUnitReport.escape
        if let video {
            let tags = video.sources.map { "  <source src=\"\(escape($0.src))\" type=\"\(escape($0.type))\">" }
            // With a poster to show, nothing of the movie is fetched until it is played.
            let poster = video.poster.map { ["preload=\"none\"", "poster=\"\(escape($0.src))\""] } ?? ["preload=\"metadata\""]
            let size = [(video.width ?? video.poster?.width).map { "width=\"\($0)\"" },
                        (video.height ?? video.poster?.height).map { "height=\"\($0)\"" }].compactMap { $0 }
            let classAttribute = options.className.map { [" class=\"\(escape($0))\""] } ?? []
            return (["<video controls \((poster + size).joined(separator: " "))\(classAttribute.joined())>"] + tags + ["</video>"])
                .joined(separator: "\n")
        }
        let sizes = " sizes=\"\(escape(options.sizes))\""
        let sourceTags = (sources ?? []).map { "  <source type=\"\(escape($0.type))\" srcset=\"\(escape($0.srcset))\"\(sizes)>" }
        var attributes = img.map { img in
            ["src=\"\(escape(img.src))\""] + (img.srcset.map { ["srcset=\"\(escape($0))\"", sizes.dropFirst().description] } ?? [])
                + [img.width.map { "width=\"\($0)\"" }, img.height.map { "height=\"\($0)\"" }].compactMap { $0 }
        } ?? []
        attributes += ["alt=\"\(escape(alt))\"", "loading=\"lazy\"", "decoding=\"async\""]
        if let className = options.className { attributes.append("class=\"\(escape(className))\"") }
        if let placeholder { attributes.append("data-thumbhash=\"\(escape(placeholder))\"") }
        return (["<picture>"] + sourceTags + ["  <img \(attributes.joined(separator: " "))>", "</picture>"]).joined(separator: "\n")
    }

    /// The `<img>`: its largest file as `src`, every width in `srcset` where there are several.
    private static func image(_ variants: [Manifest.Variant], _ options: Options) -> Image? {
        guard let largest = variants.max(by: { ($0.width ?? 0) < ($1.width ?? 0) }) else { return nil }
        return Image(src: url(largest.path, options), srcset: variants.count > 1 ? srcset(variants, options) : nil,
                     width: largest.width, height: largest.height)
    }

    /// `URL WIDTHw, …`, narrowest first; a file of unknown width is listed alone.
    private static func srcset(_ variants: [Manifest.Variant], _ options: Options) -> String {
        let sized = variants.filter { $0.width != nil }.sorted { $0.width! < $1.width! }
        guard sized.count == variants.count else { return url(variants[0].path, options) }
        return sized.map { "\(url($0.path, options)) \($0.width!)w" }.joined(separator: ", ")
    }

    /// The output's URL: its path percent-encoded (a space, a comma that would split `srcset`).
    static func url(_ path: String, _ options: Options) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ",;")
        let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        guard !options.baseURL.isEmpty else { return encoded }
        return options.baseURL.hasSuffix("/") ? options.baseURL + encoded : options.baseURL + "/" + encoded
    }
}

private func total(_ variants: [(Manifest.Variant, MediaFormat, String)]) -> Int {
    variants.reduce(0) { $0 + $1.0.bytes }
}
