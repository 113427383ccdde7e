/// A shell-style pattern over relative paths: `*` and `?` stay within one path component,
/// `**/` spans any number of folders (including none).
public struct Glob: Equatable, Sendable {
    public let pattern: String
    private let parts: [Substring]

    public init(_ pattern: String) {
        self.pattern = pattern
        self.parts = pattern.split(separator: "/", omittingEmptySubsequences: true)
    }

    public func matches(_ relativePath: String) -> Bool {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        return Self.match(parts[...], components[...])
    }

    private static func match(_ pattern: ArraySlice<Substring>, _ path: ArraySlice<Substring>) -> Bool {
        guard let head = pattern.first else { return path.isEmpty }
        if head == "**" {
            let rest = pattern.dropFirst()
            return (path.startIndex...path.endIndex).contains { match(rest, path[$0...]) }
        }
        guard let component = path.first, matchComponent(Array(head), Array(component)) else { return false }
        return match(pattern.dropFirst(), path.dropFirst())
    }

    /// Classic wildcard matching within one component (iterative, backtracking on the last `*`).
    private static func matchComponent(_ pattern: [Character], _ text: [Character]) -> Bool {
        var p = 0, t = 0
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let starIndex = star {
                p = starIndex + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
