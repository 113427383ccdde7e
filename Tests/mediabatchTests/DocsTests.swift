import Foundation
import TestSupport
import XCTest

/// The README and the pages under `docs/` stay true to the tool: every pipeline they show in a `json`
/// block is one `mediabatch validate` accepts, and every relative link leads to a file, and a heading,
/// that is there. An example meant to be partial is marked `jsonc` instead, and is not validated.
final class DocsTests: XCTestCase {
    /// README.md and docs/*.md, relative to the repository root.
    static let pages: [String] = {
        let docs = Fixtures.repositoryRoot.appendingPathComponent("docs").path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: docs)) ?? []
        return ["README.md"] + names.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }()

    func testEveryPipelineInAJSONBlockValidates() throws {
        var validated: [String] = []
        for page in Self.pages {
            for block in try Self.page(page).blocks where block.language == "json" {
                // Manifests, reports and stage snippets are JSON too; a pipeline has both keys.
                guard block.text.contains("\"version\""), block.text.contains("\"stages\"") else { continue }
                // Relative roots resolve against the file's folder, and validate does not ask whether
                // folders exist: the block is validated as it stands, from a file of its own.
                let file = Fixtures.temporaryFolder("docs-pipeline").appendingPathComponent("pipeline.json")
                try block.text.write(to: file, atomically: true, encoding: .utf8)
                let result = try runProcess(Fixtures.executable.path, ["validate", file.path])
                XCTAssertEqual(result.exitCode, 0, "\(page):\(block.line): \(result.stderr)")
                validated.append("\(page):\(block.line)")
            }
        }
        XCTAssertTrue(validated.contains { $0.hasPrefix("README.md:") }, "the README's pipeline: \(validated)")
        XCTAssertGreaterThanOrEqual(validated.count, 3, "\(validated)")
    }

    func testEveryRelativeLinkLeadsToAFileAndHeadingThatAreThere() throws {
        var links = 0
        for page in Self.pages {
            let folder = (page as NSString).deletingLastPathComponent
            for target in try Self.page(page).links where !target.contains("://") && !target.hasPrefix("mailto:") {
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let path = parts[0].isEmpty ? page : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                let url = Fixtures.repositoryRoot.appendingPathComponent(path)
                XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), "\(page): \(target): no \(path)")
                if parts.count == 2, path.hasSuffix(".md"), FileManager.default.fileExists(atPath: url.path) {
                    XCTAssertTrue(try Self.page(path).anchors.contains(parts[1]), "\(page): \(target): no heading #\(parts[1]) in \(path)")
                }
                links += 1
            }
        }
        XCTAssertGreaterThan(links, 30, "the scan finds the links")
    }

    /// A markdown page read for what these tests check: its fenced blocks (language and first line),
    /// the targets of its links and images outside them, and the anchors its headings get.
    struct Page {
        var blocks: [(language: String, line: Int, text: String)] = []
        var links: [String] = []
        var anchors: Set<String> = []
    }

    static func page(_ path: String) throws -> Page {
        let text = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
        var page = Page(), prose: [String] = [], open: (language: String, line: Int, lines: [String])?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                if let block = open {
                    page.blocks.append((block.language, block.line, block.lines.joined(separator: "\n")))
                    open = nil
                } else {
                    open = (String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces), index + 1, [])
                }
            } else if open != nil {
                open!.lines.append(line)
            } else {
                prose.append(line)
                if line.hasPrefix("#") { page.anchors.insert(uniqueAnchor(for: line, among: page.anchors)) }
            }
        }
        page.links = linkTargets(in: prose.joined(separator: "\n"))
        return page
    }

    /// `[text](target)` and `![alt](target)`, inline code left out (`[r, g, b]` is no link).
    static func linkTargets(in prose: String) -> [String] {
        let code = try! NSRegularExpression(pattern: "`[^`\n]*`")
        let bare = code.stringByReplacingMatches(in: prose, range: NSRange(prose.startIndex..., in: prose), withTemplate: "")
        let link = try! NSRegularExpression(pattern: #"\[[^\]]*\]\(([^)\s]+)\)"#)
        return link.matches(in: bare, range: NSRange(bare.startIndex..., in: bare)).map {
            String(bare[Range($0.range(at: 1), in: bare)!])
        }
    }

    /// GitHub's anchor for a heading: lower case, only letters, digits, spaces, `-` and `_` kept, spaces
    /// as `-`; a repeated one gets `-1`, `-2`…
    static func uniqueAnchor(for heading: String, among taken: Set<String>) -> String {
        let title = heading.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
        let kept = title.unicodeScalars.filter {
            CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_"
        }
        let anchor = String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-")
        var candidate = anchor, count = 0
        while taken.contains(candidate) {
            count += 1
            candidate = "\(anchor)-\(count)"
        }
        return candidate
    }
}
