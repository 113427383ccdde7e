/// The `write.path` template: literal text with `{dir}`, `{stem}` and `{ext}` placeholders,
/// always relative to the output root and never able to climb out of it.
public struct PathTemplate: Equatable, Sendable {
    public enum Placeholder: String, CaseIterable, Sendable {
        case dir, stem, ext
    }

    enum Piece: Equatable, Sendable {
        case literal(String)
        case placeholder(Placeholder)
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
            let name = String(rest[rest.index(after: open)..<close])
            guard let placeholder = Placeholder(rawValue: name) else {
                let known = Placeholder.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", ")
                throw TemplateError("unknown placeholder {\(name)}; expected \(known)")
            }
            pieces.append(.placeholder(placeholder))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.literal(String(rest))) }
        guard pieces.contains(.placeholder(.stem)) else {
            throw TemplateError("expected {stem} in \"\(text)\", or every item would be written to the same file")
        }
        self.text = text
        self.pieces = pieces
    }

    struct TemplateError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// Expands the template. `dir` is the input's folder relative to the input root ("" at the top).
    public func render(dir: String, stem: String, ext: String) -> String {
        let expanded = pieces.map { piece -> String in
            switch piece {
            case .literal(let text): return text
            case .placeholder(.dir): return dir
            case .placeholder(.stem): return stem
            case .placeholder(.ext): return ext
            }
        }.joined()
        // An empty {dir} leaves "/stem.jpg" or "a//b": collapse the empty components.
        return expanded.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }
}
