import Foundation

/// What a sidecar file is.
public enum SidecarKind: String, Codable, Sendable {
    /// An XMP file of its own: darktable's, digiKam's, Lightroom's, Capture One's.
    case xmp
    /// Apple's adjustments of a photo, exported with its unmodified original.
    case aae
    /// Google Takeout's JSON (or any JSON: one that names no photo is an orphan).
    case takeout
}

/// How a sidecar's name is made from its photo's, so that a copy is named in the same style.
public enum SidecarStyle: String, Codable, Sendable {
    /// `NAME.EXT.xmp` (darktable, digiKam), `NAME.EXT.json` (Takeout, with its cut and moved forms),
    /// `NAME.EXT.supplemental-metadata.json`.
    case appended
    /// `NAME.xmp` (Lightroom, Capture One), `NAME.AAE` (Apple).
    case replaced
}

/// A sidecar and the media file of its folder it belongs to, both by file name.
public struct SidecarMatch: Equatable, Sendable {
    /// What a sidecar's name says beyond its kind and style, which its copy's name keeps.
    public enum Mark: Equatable, Sendable {
        /// darktable's duplicate: `_01` of `IMG_1234_01.CR2.xmp`, the second version of `IMG_1234.CR2`.
        case duplicate(suffix: String)
        /// Takeout's `NAME.EXT.supplemental-metadata.json`, whole or cut.
        case supplemental
        /// Apple's `IMG_O1234.AAE` (iOS 16 on): the original's own adjustments, beside `IMG_1234.AAE`'s edits.
        case original
    }

    public let sidecar: String
    public let media: String
    public let kind: SidecarKind
    public let style: SidecarStyle
    public let mark: Mark?

    init(sidecar: String, media: String, kind: SidecarKind, style: SidecarStyle, mark: Mark? = nil) {
        self.sidecar = sidecar
        self.media = media
        self.kind = kind
        self.style = style
        self.mark = mark
    }
}

/// Finds which files of one folder are sidecars of which media file, by the naming rules of the
/// tools that write them, and names a sidecar's copy for an output. Names only: it reads no file.
/// Extensions and stems compare case-insensitively, as cameras and file systems spell them variously.
enum SidecarNaming {
    /// Camera RAW extensions: mirrors the camera RAW rows of `FormatTable` (a test keeps them in step).
    static let rawExtensions: Set = ["cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "raf", "orf", "rw2", "rwl", "pef",
                                     "dng", "srw", "3fr", "fff", "iiq", "x3f", "erf", "mef", "mos", "dcr", "kdc", "mrw"]
    /// The movies an iPhone writes under a still's stem (a Live Photo's), which an AAE goes with only when no still does.
    static let movieExtensions: Set = ["mov", "mp4"]
    /// Takeout cuts a JSON's name before `.json` (and before a moved counter) to this many characters,
    /// counted here as Unicode scalars.
    static let takeoutNameLimit = 46
    /// What Takeout's newer JSON names add after the photo's name, before `.json`.
    static let supplemental = "supplemental-metadata"
    /// Google Photos' suffix for an edited copy, in English (other languages' are not recognised).
    static let editedSuffix = "-edited"

    /// Whether a file name is a sidecar's, by its extension alone: a JSON that is not Takeout's is
    /// still sidecar-shaped (and an orphan).
    static func kind(ofName name: String) -> SidecarKind? {
        switch parts(name).ext.lowercased() {
        case "xmp": return .xmp
        case "aae": return .aae
        case "json": return .takeout
        default: return nil
        }
    }

    /// Matches the folder's sidecars to its media files, in the order of `names` (every file name in
    /// the folder); `isMedia` says which names are media files. Every sidecar-shaped name that
    /// matches no media file is an orphan: Takeout's album files (`metadata.json`) too.
    static func match(_ names: [String], isMedia: (String) -> Bool) -> (matches: [SidecarMatch], orphans: [String]) {
        let media = MediaFiles(names.filter { kind(ofName: $0) == nil && isMedia($0) })
        let takeout = TakeoutNames(media)
        var matches: [SidecarMatch] = [], orphans: [String] = []
        for name in names {
            guard let kind = kind(ofName: name) else { continue }
            let found: SidecarMatch?
            switch kind {
            case .xmp: found = xmpMatch(name, in: media)
            case .aae: found = aaeMatch(name, in: media)
            case .takeout: found = takeout.match(name)
            }
            if let found { matches.append(found) } else { orphans.append(name) }
        }
        return (matches, orphans)
    }

    /// The name of the sidecar's copy beside an output named `outputName`, in the sidecar's style and
    /// with its extension as spelled (`.XMP` stays `.XMP`), never cut as Takeout cuts. An `IMG_O` AAE's
    /// copy is `IMG_O…` beside an `IMG_…` output and `<stem>_O.AAE` beside any other, so that it
    /// never takes the name of the edits' `<stem>.AAE`.
    static func name(for match: SidecarMatch, outputName: String) -> String {
        let (stem, ext) = parts(outputName)
        let sidecarExtension = "." + parts(match.sidecar).ext
        switch (match.style, match.mark) {
        case (.replaced, .original?):
            return (appleName(stem, adding: "O") ?? stem + "_O") + sidecarExtension
        case (.replaced, _):
            return stem + sidecarExtension
        case (.appended, .duplicate(let suffix)?):
            return stem + suffix + (ext.isEmpty ? "" : "." + ext) + sidecarExtension
        case (.appended, .supplemental?):
            return outputName + "." + supplemental + sidecarExtension
        case (.appended, _):
            return outputName + sidecarExtension
        }
    }

    /// `NAME.EXT.xmp` for `NAME.EXT`, darktable's `NAME_01.EXT.xmp` for it too; else `NAME.xmp` for
    /// the file of stem `NAME`: of a RAW+JPEG pair the RAW, for which Lightroom writes it.
    private static func xmpMatch(_ sidecar: String, in media: MediaFiles) -> SidecarMatch? {
        let base = parts(sidecar).stem
        if let photo = media.named(base) {
            return SidecarMatch(sidecar: sidecar, media: photo, kind: .xmp, style: .appended)
        }
        if let (original, suffix) = darktableDuplicate(base), let photo = media.named(original) {
            return SidecarMatch(sidecar: sidecar, media: photo, kind: .xmp, style: .appended, mark: .duplicate(suffix: suffix))
        }
        let sharing = media.withStem(base)
        guard let photo = sharing.first(where: { rawExtensions.contains(parts($0).ext.lowercased()) }) ?? sharing.first else { return nil }
        return SidecarMatch(sidecar: sidecar, media: photo, kind: .xmp, style: .replaced)
    }

    /// `IMG_1234.CR2` and `_01` for darktable's `IMG_1234_01.CR2` (its duplicates count from `_01`).
    private static func darktableDuplicate(_ base: String) -> (original: String, suffix: String)? {
        let (stem, ext) = parts(base)
        guard !ext.isEmpty, let underscore = stem.lastIndex(of: "_"), underscore > stem.startIndex else { return nil }
        let number = stem[stem.index(after: underscore)...]
        guard number.count >= 2, isDigits(number) else { return nil }
        return (String(stem[..<underscore]) + "." + ext, String(stem[underscore...]))
    }

    /// `IMG_1234.AAE`, and `IMG_O1234.AAE` the original's, for `IMG_1234.*`, a still before a movie;
    /// for the edited render `IMG_E1234.*` when the original is not there.
    private static func aaeMatch(_ sidecar: String, in media: MediaFiles) -> SidecarMatch? {
        let stem = parts(sidecar).stem
        let original = appleName(stem, removing: "O")
        let target = original ?? stem
        var sharing = media.withStem(target)
        if sharing.isEmpty, let edited = appleName(target, adding: "E") { sharing = media.withStem(edited) }
        guard let photo = sharing.first(where: { !movieExtensions.contains(parts($0).ext.lowercased()) }) ?? sharing.first
        else { return nil }
        return SidecarMatch(sidecar: sidecar, media: photo, kind: .aae, style: .replaced, mark: original == nil ? nil : .original)
    }

    /// Apple's `IMG_1234` with `letter` after `IMG_` (`IMG_E1234`); nil for a name not Apple's.
    private static func appleName(_ stem: String, adding letter: Character) -> String? {
        guard stem.uppercased().hasPrefix("IMG_"), stem.dropFirst(4).first?.isASCIIDigit == true else { return nil }
        return String(stem.prefix(4)) + String(letter) + stem.dropFirst(4)
    }

    /// Apple's `IMG_1234` for `IMG_O1234` when `letter` is `O`; nil for a name without it.
    private static func appleName(_ stem: String, removing letter: Character) -> String? {
        guard stem.uppercased().hasPrefix("IMG_" + String(letter)), stem.dropFirst(5).first?.isASCIIDigit == true else { return nil }
        return String(stem.prefix(4) + stem.dropFirst(5))
    }

    /// A file name's stem and extension, split at its last dot (a leading dot starts no extension).
    static func parts(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }

    /// Whether `text` is a run of ASCII digits, at least one.
    static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy(\.isASCIIDigit)
    }
}

/// `Character.isNumber` takes other scripts' digits too; names count in ASCII ones.
private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// A folder's media files, looked up case-insensitively by name and by stem, in listing order.
private struct MediaFiles {
    let names: [String]
    private let byName: [String: String]
    private let byStem: [String: [String]]

    init(_ names: [String]) {
        self.names = names
        byName = Dictionary(names.map { ($0.lowercased(), $0) }) { first, _ in first }
        byStem = Dictionary(grouping: names) { SidecarNaming.parts($0).stem.lowercased() }
    }

    /// The media file of that name, as the folder spells it.
    func named(_ name: String) -> String? { byName[name.lowercased()] }

    /// The media files of that stem, in listing order (grouping keeps it).
    func withStem(_ stem: String) -> [String] { byStem[stem.lowercased()] ?? [] }
}

/// The names Takeout gives a folder's media files' JSONs, for a JSON to look its media file up by.
/// Takeout names `IMG_1234.jpg`'s JSON `IMG_1234.jpg.json` or `IMG_1234.jpg.supplemental-metadata.json`;
/// cuts that name (before `.json`) to 46 characters; names a duplicate `IMG_1234(1).jpg`'s
/// `IMG_1234.jpg(1).json` (`….supplemental-metadata(1).json`), the counter moved and never cut;
/// and gives an edited copy `IMG_1234-edited.jpg` no JSON: it uses its original's.
private struct TakeoutNames {
    /// A media file and the name its JSON is made from (`IMG_1234.jpg` for `IMG_1234(1).jpg`).
    private struct Entry {
        let media: String
        let original: String
    }

    /// By the lowercased name and counter: `img_1234.jpg(1)`.
    private var whole: [String: Entry] = [:]
    /// By the lowercased name as Takeout cuts it, with the supplemental form, and counter.
    private var cut: [String: Entry] = [:]

    /// Media files' own names before edited copies' borrowed ones, so that an edited copy takes its
    /// original's JSON only when the original is not there; and the first media file in listing
    /// order before a later one, so that a cut name two files share goes to the first listed.
    init(_ media: MediaFiles) {
        let sources = media.names.flatMap(Self.ownNames) + media.names.compactMap(Self.borrowedName)
        for (entry, counter) in sources {
            whole[entry.original.lowercased() + counter] = whole[entry.original.lowercased() + counter] ?? entry
            let extended = entry.original + "." + SidecarNaming.supplemental
            let clipped = String(String.UnicodeScalarView(extended.unicodeScalars.prefix(SidecarNaming.takeoutNameLimit)))
            cut[clipped.lowercased() + counter] = cut[clipped.lowercased() + counter] ?? entry
        }
    }

    /// The match of a JSON named `sidecar`, nil when it names no media file. A name that ends in a
    /// counter is looked up as a duplicate's, then as a name of its own (`Urlaub (38).JPG.json`).
    func match(_ sidecar: String) -> SidecarMatch? {
        let stem = SidecarNaming.parts(sidecar).stem
        let readings = Self.splittingCounter(stem).map { [$0, (stem, "")] } ?? [(stem, "")]
        for (body, counter) in readings {
            if let (media, mark) = find(body, counter: counter) {
                return SidecarMatch(sidecar: sidecar, media: media, kind: .takeout, style: .appended, mark: mark)
            }
        }
        return nil
    }

    /// The media file of a JSON name without `.json` and its counter: whole, with `.supplemental-metadata`
    /// or a cut of it, or cut at 46 characters (supplemental when some of `.supplemental-metadata` is left).
    private func find(_ body: String, counter: String) -> (String, SidecarMatch.Mark?)? {
        let key = body.lowercased()
        if let entry = whole[key + counter] { return (entry.media, nil) }
        if let dot = key.lastIndex(of: "."), Self.isSupplementalCut(key[key.index(after: dot)...]),
           let entry = whole[String(key[..<dot]) + counter] {
            return (entry.media, .supplemental)
        }
        guard body.unicodeScalars.count == SidecarNaming.takeoutNameLimit, let entry = cut[key + counter] else { return nil }
        return (entry.media, body.unicodeScalars.count > entry.original.unicodeScalars.count ? .supplemental : nil)
    }

    /// A media file's own names: its name, and a duplicate's original name with its counter.
    private static func ownNames(of media: String) -> [(Entry, counter: String)] {
        let (stem, ext) = SidecarNaming.parts(media)
        let own = (Entry(media: media, original: media), "")
        guard let (original, counter) = splittingCounter(stem) else { return [own] }
        return [own, (Entry(media: media, original: original + (ext.isEmpty ? "" : "." + ext)), counter)]
    }

    /// An edited copy's original's name.
    private static func borrowedName(of media: String) -> (Entry, counter: String)? {
        let (stem, ext) = SidecarNaming.parts(media)
        guard stem.count > SidecarNaming.editedSuffix.count, stem.lowercased().hasSuffix(SidecarNaming.editedSuffix) else { return nil }
        let original = String(stem.dropLast(SidecarNaming.editedSuffix.count)) + (ext.isEmpty ? "" : "." + ext)
        return (Entry(media: media, original: original), "")
    }

    /// `supplemental-metadata` or a cut of it (`suppl`), lowercased.
    private static func isSupplementalCut(_ tail: Substring) -> Bool {
        !tail.isEmpty && SidecarNaming.supplemental.hasPrefix(tail)
    }

    /// `IMG_1234` and `(1)` of `IMG_1234(1)`; nil without a counter.
    private static func splittingCounter(_ name: String) -> (name: String, counter: String)? {
        guard name.hasSuffix(")"), let open = name.lastIndex(of: "("), open > name.startIndex,
              SidecarNaming.isDigits(name[name.index(after: open)..<name.index(before: name.endIndex)]) else { return nil }
        return (String(name[..<open]), String(name[open...]))
    }
}
