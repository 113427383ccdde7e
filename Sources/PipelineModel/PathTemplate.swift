import Foundation

/// The `write.path` template: literal text with placeholders, always relative to the output
/// root and never able to climb out of it.
///
/// - `{dir}`, `{stem}`, `{ext}`: the input's folder (relative to the input root), its name
///   without extension, the output format's extension; `{inputExt}` the input's own extension,
///   lowercased (`IMG_0001.cr2.jpg` beside `IMG_0001.jpg.jpg` for a RAW+JPEG pair);
/// - `{date:yyyy}`, `{date:MM}`, `{date:yyyy-MM-dd}`…: the capture time, whatever its source (EXIF,
///   XMP, QuickTime, a sidecar, Takeout, the file name; the file's time last), as the capturing
///   clock read it: a time known only in UTC on `input.timeZone`'s clock (tokens `yyyy`, `MM`, `dd`,
///   `HH`, `mm`, `ss`);
/// - `{hash}`: the first 10 hex digits of the SHA-256 of the output's own bytes (`{hash:N}`: N, 4–64), so
///   that a name changes exactly when its file does (a CDN may cache it for ever); known only once the
///   output is encoded: until then the path keeps the placeholder (`awaitsOutputHash`);
/// - `{inputHash}`: the input's SHA-256, all 64 hex digits (`{inputHash:N}`: the first N), the same
///   for every output of an item;
/// - `{size}`, `{width}`, `{height}`: with `variants`, the variant's size as listed (`1280`, or a
///   box's `1200x630`) and its pixels;
/// - `{codec}`: with `video`, a rendition's codec (`h264`, `av1`…).
public struct PathTemplate: Equatable, Sendable {
    enum Piece: Equatable, Sendable {
        case literal(String)
        case dir, stem, ext, inputExt, size, width, height, codec
        case date([DateToken])
        /// The output's own bytes'.
        case hash(length: Int)
        case inputHash(length: Int)
    }

    enum DateToken: Equatable, Sendable {
        case literal(String)
        case field(Calendar.Component, digits: Int)

        static let fields: [(String, Calendar.Component)] = [
            ("yyyy", .year), ("MM", .month), ("dd", .day), ("HH", .hour), ("mm", .minute), ("ss", .second),
        ]
    }

    /// What one item fills the placeholders with.
    public struct Values: Sendable {
        public var dir: String
        public var stem: String
        public var ext: String
        /// The input's own extension, lowercased.
        public var inputExt: String
        /// The capture instant and the UTC offset its clock was set to (nil: read as UTC).
        public var captured: (date: Date, utcOffsetSeconds: Int?)?
        /// The input's SHA-256 in hex.
        public var inputHash: String?
        /// A variant's size as listed, width and height in pixels.
        public var size: VariantSize?
        public var width: Int?
        public var height: Int?
        /// A video rendition's codec.
        public var codec: String?

        public init(dir: String, stem: String, ext: String, inputExt: String, captured: (date: Date, utcOffsetSeconds: Int?)? = nil,
                    inputHash: String? = nil, size: VariantSize? = nil, width: Int? = nil, height: Int? = nil, codec: String? = nil) {
            self.dir = dir
            self.stem = stem
            self.ext = ext
            self.inputExt = inputExt
            self.captured = captured
            self.inputHash = inputHash
            self.size = size
            self.width = width
            self.height = height
            self.codec = codec
        }
    }

    public let text: String
    let pieces: [Piece]

    /// Parses a template; the error message says what is wrong with it.
    public init(_ text: String) throws {
        guard !text.isEmpty else { throw TemplateError("expected a non-empty path template") }
        guard !text.hasPrefix("/") else { throw TemplateError("expected a path relative to the output root, found \"\(text)\"") }
        guard !text.split(separator: "/").contains("..") else {
            throw TemplateError("\"..\" would leave the output root, found \"\(text)\"")
        }
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            if open > rest.startIndex { pieces.append(.literal(String(rest[..<open]))) }
            guard let close = rest[open...].firstIndex(of: "}") else { throw TemplateError("unclosed \"{\" in \"\(text)\"") }
            pieces.append(try Self.placeholder(String(rest[rest.index(after: open)..<close])))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.literal(String(rest))) }
        self.text = text
        self.pieces = pieces
        guard pieces.contains(.stem) || awaitsOutputHash || usesInputHash else {
            throw TemplateError("expected {stem}, {hash} or {inputHash} in \"\(text)\", or every item would be written to the same file")
        }
    }

    /// Placeholders without an argument, by name.
    static let simplePlaceholders: [(String, Piece)] = [("dir", .dir), ("stem", .stem), ("ext", .ext), ("inputExt", .inputExt),
                                                        ("hash", .hash(length: 10)), ("inputHash", .inputHash(length: 64)),
                                                        ("size", .size), ("width", .width), ("height", .height), ("codec", .codec)]
    /// The placeholders that take a length: `{hash:N}`, `{inputHash:N}`.
    static let hashes: [(String, (Int) -> Piece)] = [("hash", { .hash(length: $0) }), ("inputHash", { .inputHash(length: $0) })]
    /// How many hex digits `{hash:N}` may take.
    static let hashLengths = 4...64
    /// What may separate the fields of `{date:...}`.
    static let dateSeparators = "-_. "

    private static func placeholder(_ name: String) throws -> Piece {
        if let (_, piece) = simplePlaceholders.first(where: { $0.0 == name }) { return piece }
        if let (hash, piece) = hashes.first(where: { name.hasPrefix($0.0 + ":") }) {
            guard let length = Int(name.dropFirst(hash.count + 1)), hashLengths.contains(length) else {
                throw TemplateError("{\(name)}: expected {\(hash):N} with N from \(hashLengths.lowerBound) to \(hashLengths.upperBound) hex digits")
            }
            return piece(length)
        }
        if name.hasPrefix("date:") {
            return .date(try dateTokens(String(name.dropFirst(5)), placeholder: name))
        }
        throw TemplateError("unknown placeholder {\(name)}; expected {dir}, {stem}, {ext}, {inputExt}, {date:yyyy-MM-dd}, {hash:N}, "
                            + "{inputHash:N}, {size}, {width}, {height} or {codec}")
    }

    private static func dateTokens(_ pattern: String, placeholder: String) throws -> [DateToken] {
        var tokens: [DateToken] = []
        var rest = Substring(pattern)
        while !rest.isEmpty {
            if let (spelling, component) = DateToken.fields.first(where: { rest.hasPrefix($0.0) }) {
                tokens.append(.field(component, digits: spelling.count))
                rest = rest.dropFirst(spelling.count)
            } else if let separator = rest.first, dateSeparators.contains(separator) {
                tokens.append(.literal(String(separator)))
                rest = rest.dropFirst()
            } else {
                throw TemplateError("{\(placeholder)}: expected date fields yyyy, MM, dd, HH, mm, ss separated by - _ . or space")
            }
        }
        guard tokens.contains(where: { if case .field = $0 { return true } else { return false } }) else {
            throw TemplateError("{\(placeholder)}: expected at least one date field (yyyy, MM, dd, HH, mm, ss)")
        }
        return tokens
    }

    public struct TemplateError: Error {
        public let message: String
        init(_ message: String) { self.message = message }
    }


    /// Whether the template has `{inputHash}` or `{inputHash:N}`: only then is the input hashed for it.
    public var usesInputHash: Bool {
        pieces.contains { if case .inputHash = $0 { return true } else { return false } }
    }

    /// Whether the template has `{hash}` or `{hash:N}`: its paths are known only once each output is encoded.
    public var awaitsOutputHash: Bool {
        pieces.contains { if case .hash = $0 { return true } else { return false } }
    }

    /// Whether a rendered path still holds `{hash:N}`, the output's hash to come.
    public static func awaitsOutputHash(_ path: String) -> Bool {
        path.contains("{hash:")
    }

    /// A rendered path with each `{hash:N}` replaced by the first N hex digits of `hash`, the
    /// output's SHA-256.
    public static func resolvingOutputHash(_ path: String, hash: String) -> String {
        var resolved = "", rest = Substring(path)
        while let open = rest.range(of: "{hash:"), let close = rest[open.upperBound...].firstIndex(of: "}"),
              let length = Int(rest[open.upperBound..<close]) {
            resolved += rest[..<open.lowerBound] + hash.prefix(length)
            rest = rest[rest.index(after: close)...]
        }
        return resolved + rest
    }

    /// Whether the template has the placeholder `name` ("ext", "size", …; not the parametrised date and hash).
    /// Whether the template has a `{date:…}`: only then does an output's folder depend on the capture time.
    public var usesDate: Bool {
        pieces.contains { if case .date = $0 { return true } else { return false } }
    }

    public func uses(_ name: String) -> Bool {
        guard let piece = Self.simplePlaceholders.first(where: { $0.0 == name })?.1 else { return false }
        return pieces.contains(piece)
    }

    /// Expands the template. A variant's placeholder for an output that is no variant (a movie
    /// beside its poster's variants), or `{codec}` for one that is no rendition, takes the
    /// separator before it along: `IMG_1-{size}.mov` is `IMG_1.mov`.
    public func render(_ values: Values) -> String {
        var expanded = ""
        for piece in pieces {
            switch piece {
            case .literal(let text): expanded += text
            case .dir: expanded += values.dir
            case .stem: expanded += values.stem
            case .ext: expanded += values.ext
            case .inputExt: expanded += values.inputExt
            case .size, .width, .height, .codec:
                let value = piece == .size ? values.size?.text : piece == .codec ? values.codec
                    : (piece == .width ? values.width : values.height).map(String.init)
                if let value { expanded += value } else if let last = expanded.last, "-_. ".contains(last) { expanded.removeLast() }
            case .hash(let length): expanded += "{hash:\(length)}" // until the output is encoded: `resolvingOutputHash`
            case .inputHash(let length): expanded += String((values.inputHash ?? String(repeating: "0", count: 64)).prefix(length))
            case .date(let tokens): expanded += Self.format(values.captured, tokens)
            }
        }
        // An empty {dir} leaves "/stem.jpg" or "a//b": collapse the empty components. A placeholder
        // can complete a ".." ("{dir}../{stem}" at the input root, a file named "...jpg"): its dots
        // become underscores, or the path would climb out of the output root.
        return expanded.split(separator: "/", omittingEmptySubsequences: true)
            .map { $0 == ".." ? "__" : $0 }.joined(separator: "/")
    }

    /// The wall-clock fields of the capture date; "unknown" when the item has none.
    private static func format(_ captured: (date: Date, utcOffsetSeconds: Int?)?, _ tokens: [DateToken]) -> String {
        guard let captured else { return "unknown" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: captured.utcOffsetSeconds ?? 0) ?? TimeZone(secondsFromGMT: 0)!
        return tokens.map { token -> String in
            switch token {
            case .literal(let text): return text
            case .field(let component, let digits):
                let value = String(calendar.component(component, from: captured.date))
                return String(repeating: "0", count: max(0, digits - value.count)) + value
            }
        }.joined()
    }
}

extension PathTemplate {
    /// The templates `init` accepts, as JSON Schema: its grammar (literal text and the known
    /// placeholders, from the same tables `init` reads) and its three rules.
    public static var schema: JSONValue {
        let names = simplePlaceholders.map(\.0).joined(separator: "|")
        let lengths = hashLengths.map(String.init).joined(separator: "|")
        let hashed = hashes.map(\.0).joined(separator: "|")
        let fields = DateToken.fields.map(\.0).joined(separator: "|")
        let separator = "[\(dateSeparators)]" // "-" comes first, so the class reads it literally
        let date = "date:\(separator)*(\(fields))(\(fields)|\(separator))*"
        return [
            "type": "string",
            "pattern": .string(#"^([^{]|\{("# + "\(names)|(\(hashed))" + #":\+?0*("# + lengths + ")|" + date + #")\})*$"#),
            "allOf": [
                ["pattern": #"\{(stem|hash[^}]*|inputHash[^}]*)\}"#],
                ["not": ["pattern": "^/"]],
                ["not": ["pattern": #"(^|/)\.\.(/|$)"#]],
            ],
        ]
    }
}
