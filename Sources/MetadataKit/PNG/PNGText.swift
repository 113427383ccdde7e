/// A PNG text chunk's keyword and text: `tEXt` (plain), `zTXt` (zlib-compressed) or `iTXt`
/// (UTF-8, compressed or not, with a language tag and a translated keyword).
struct PNGText {
    static let types: Set<String> = ["tEXt", "zTXt", "iTXt"]
    /// A keyword is 1 to 79 bytes, then a NUL.
    static let keywordFieldLimit = 80

    let keyword: String
    let text: [UInt8]

    /// The keyword at the start of a text chunk's data; nil when none ends within its limit.
    static func keyword(of data: ArraySlice<UInt8>) -> String? {
        guard let end = data.prefix(keywordFieldLimit).firstIndex(of: 0), end > data.startIndex else { return nil }
        return String(decoding: data[data.startIndex..<end], as: Unicode.ASCII.self)
    }

    /// - Throws: `MetadataFormatError` when the chunk's fields are cut short, it names an unknown
    ///   compression method, or its compressed text does not inflate.
    init(type: String, data: [UInt8]) throws {
        guard let keyword = Self.keyword(of: data[...]) else { throw MetadataFormatError(message: "no keyword") }
        self.keyword = keyword
        let rest = keyword.utf8.count + 1
        switch type {
        case "zTXt":
            guard data.count > rest, data[rest] == 0 else { throw MetadataFormatError(message: "unknown compression method") }
            text = try Zlib.decompress(Array(data[(rest + 1)...]))
        case "iTXt":
            // Compression flag and method, then the language tag and translated keyword, each NUL-ended.
            guard data.count >= rest + 2 else { throw MetadataFormatError(message: "iTXt fields cut short") }
            let compressed = data[rest] == 1
            // The method byte only counts when the flag is set, as exiftool reads it.
            guard data[rest] <= 1, !compressed || data[rest + 1] == 0 else {
                throw MetadataFormatError(message: "unknown compression method")
            }
            guard let language = data[(rest + 2)...].firstIndex(of: 0),
                  let translated = data[(language + 1)...].firstIndex(of: 0) else {
                throw MetadataFormatError(message: "iTXt fields cut short")
            }
            let body = Array(data[(translated + 1)...])
            text = compressed ? try Zlib.decompress(body) : body
        default:
            text = Array(data[rest...])
        }
    }

    /// An uncompressed `iTXt` chunk's data, without language tag or translation: how the XMP
    /// specification places a packet in PNG.
    static func iTXtData(keyword: String, text: [UInt8]) -> [UInt8] {
        Array(keyword.utf8) + [0, 0, 0, 0, 0] + text
    }

    /// A `zTXt` chunk's data: keyword, method 0 (zlib), the stream.
    static func zTXtData(keyword: String, text: [UInt8]) -> [UInt8] {
        Array(keyword.utf8) + [0, 0] + Zlib.compress(text)
    }

    /// The data of a new chunk of `type` holding `text` under `keyword`, written as `original`
    /// (a chunk of that type) was: compressed where it was, an `iTXt`'s language and translated
    /// keyword kept.
    static func data(keyword: String, text: [UInt8], like original: [UInt8], type: String) -> [UInt8] {
        let rest = keyword.utf8.count + 1
        switch type {
        case "zTXt": return zTXtData(keyword: keyword, text: text)
        case "iTXt":
            guard original.count >= rest + 2, let language = original[(rest + 2)...].firstIndex(of: 0),
                  let translated = original[(language + 1)...].firstIndex(of: 0) else { return iTXtData(keyword: keyword, text: text) }
            let compressed = original[rest] == 1
            return Array(original[...translated]) + (compressed ? Zlib.compress(text) : text)
        default: return Array(keyword.utf8) + [0] + text
        }
    }
}
