import Foundation
import TestSupport
import XCTest

/// The rules of the tree that the compiler does not enforce (see ARCHITECTURE.md), checked on
/// the sources as text, in the spirit of rust-analyzer's tidy tests.
final class TidyTests: XCTestCase {
    static let sources = Fixtures.repositoryRoot.appendingPathComponent("Sources")

    /// Every Swift file under `Sources/`, by its path relative to `Sources/`.
    static let files: [(path: String, lines: [String])] = {
        let enumerator = FileManager.default.enumerator(atPath: sources.path)!
        return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { path in
            let text = (try? String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)) ?? ""
            return (path, text.components(separatedBy: "\n"))
        }
    }()

    static func module(_ path: String) -> String { String(path.prefix { $0 != "/" }) }

    func testOnlyTheKitsImportC() {
        let cModules = ["CVips", "CLibAV", "CMediaShim", "CZlib", "CHeif", "CLibRaw", "CCrypto"]
        // VipsKit and LibAVKit may import any of them but libheif, which is VipsKit's alone (HEIC's
        // auxiliary images), and LibRaw, which is LibRawKit's alone (nothing else); MetadataKit calls zlib and nothing else in C.
        let allowed = ["VipsKit": ["CVips", "CLibAV", "CMediaShim", "CZlib", "CHeif"], "LibAVKit": ["CVips", "CLibAV", "CMediaShim", "CZlib"],
                       "LibRawKit": ["CLibRaw"], "MetadataKit": ["CZlib"], "DigestKit": ["CCrypto"]]
        for file in Self.files {
            let forbidden = cModules.filter { !(allowed[Self.module(file.path)] ?? []).contains($0) }
            for line in file.lines where forbidden.contains(where: { line.hasPrefix("import \($0)") }) {
                XCTFail("\(file.path): \(line)")
            }
        }
    }

    /// libvips' field, loader and class names are VipsKit's business: elsewhere they are typed.
    func testLibvipsNamesStayInVipsKit() {
        let names = ["exif-data", "xmp-data", "iptc-data", "icc-profile-data", "heif-mime-", "heif-iptc-", "exif-ifd",
                     "VipsForeign", "n-pages", "vips-loader", "jpegload", "heifload", "pngload", "webpload", "tiffload"]
        for file in Self.files where Self.module(file.path) != "VipsKit" {
            for (number, line) in file.lines.enumerated() where !Self.isComment(line) {
                for name in names where line.contains(name) { XCTFail("\(file.path):\(number + 1) names libvips' \(name)") }
            }
        }
    }

    /// libheif's C names (`heif_context_alloc`, `heif_error`, ...) are VipsKit's too: elsewhere
    /// there are `HEIFAuxiliary` and `HEIFError`.
    func testLibheifNamesStayInVipsKit() {
        for file in Self.files where Self.module(file.path) != "VipsKit" {
            for (number, line) in file.lines.enumerated() where !Self.isComment(line) && line.contains("heif_") {
                XCTFail("\(file.path):\(number + 1) names libheif's \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
    }

    func testNoFunctionIsLongerThanSixtyLines() {
        for file in Self.files {
            for function in Self.functions(in: file.lines) where function.length > 60 {
                XCTFail("\(file.path):\(function.line) \(function.name) is \(function.length) lines")
            }
        }
        XCTAssertGreaterThan(Self.files.flatMap { Self.functions(in: $0.lines) }.count, 500, "the scan finds functions")
    }

    /// Each module has its test target, and each stage in `StageList` its file and its test file.
    func testTestsMirrorModulesAndStages() throws {
        let tests = Fixtures.repositoryRoot.appendingPathComponent("Tests")
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { !$0.hasPrefix("C") }
        for module in modules {
            XCTAssertTrue(FileManager.default.fileExists(atPath: tests.appendingPathComponent("\(module)Tests").path), module)
        }
        let list = try String(contentsOf: Self.sources.appendingPathComponent("MediaBatchCore/Stages/StageList.swift"), encoding: .utf8)
        let stages = try NSRegularExpression(pattern: #"(\w+Stage)\.self"#).matches(in: list, range: NSRange(list.startIndex..., in: list))
            .map { String(list[Range($0.range(at: 1), in: list)!]) }
        XCTAssertGreaterThanOrEqual(stages.count, 9, "the scan finds the stage list")
        for stage in stages {
            XCTAssertTrue(FileManager.default.fileExists(atPath: Self.sources.appendingPathComponent("MediaBatchCore/Stages/\(stage).swift").path), stage)
            let testFiles = ["MediaBatchCoreTests", "PipelineTests"].map { tests.appendingPathComponent("\($0)/Stages/\(stage)Tests.swift").path }
            XCTAssertTrue(testFiles.contains(where: FileManager.default.fileExists), "\(stage) has no test file")
        }
    }

    /// A test file sits where the source file it covers sits: `Tests/MediaBatchCoreTests/Run/RunLedgerTests.swift`
    /// (and, for whole pipelines, `Tests/PipelineTests/Run/RunLedgerTests.swift`) for `Sources/MediaBatchCore/Run/RunLedger.swift`.
    func testTestFilesMirrorTheirSources() throws {
        let tests = Fixtures.repositoryRoot.appendingPathComponent("Tests")
        // Tests of what several files do together, named after what they check.
        let together: Set = ["CameraVideoTests.swift", "LivePhotoPairingTests.swift", "ReportFormatsTests.swift", "FitSyntaxTests.swift",
                             "StageSchemaTests.swift", "PipelineFuzzFindingsTests.swift", "StateUpgradeTests.swift"]
        for target in ["MediaBatchCoreTests", "PipelineTests"] {
            let folder = tests.appendingPathComponent(target)
            for path in FileManager.default.enumerator(atPath: folder.path)!.compactMap({ $0 as? String }) where path.hasSuffix("Tests.swift") {
                let name = (path as NSString).lastPathComponent
                guard !together.contains(name) else { continue }
                let source = "MediaBatchCore/" + path.replacingOccurrences(of: "Tests.swift", with: ".swift")
                XCTAssertTrue(FileManager.default.fileExists(atPath: Self.sources.appendingPathComponent(source).path),
                              "\(target)/\(path) covers no Sources/\(source)")
            }
        }
    }

    static func isComment(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("//") || trimmed.hasPrefix("*") || trimmed.hasPrefix("/*")
    }

    /// Functions, initialisers and computed properties with a body: where each starts and how
    /// many lines it spans, from its declaration to its closing brace.
    static func functions(in lines: [String]) -> [(name: String, line: Int, length: Int)] {
        let declaration = try! NSRegularExpression(pattern: #"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|static|class|override|mutating|final|nonisolated|convenience|required)(?:\(set\))?\s+)*(func\s+[^\s(<]+|init[?!]?|deinit)"#)
        var found: [(name: String, line: Int, length: Int)] = []
        for (index, line) in lines.enumerated() {
            let range = NSRange(line.startIndex..., in: line)
            guard let match = declaration.firstMatch(in: line, range: range), let name = Range(match.range(at: 1), in: line),
                  let end = closingLine(from: index, in: lines) else { continue }
            found.append((String(line[name]), index + 1, end - index + 1))
        }
        return found
    }

    /// The line of the brace that closes the body opened on or after `start`; nil for a
    /// declaration without a body (a protocol requirement).
    static func closingLine(from start: Int, in lines: [String]) -> Int? {
        var depth = 0, opened = false
        for index in start..<lines.count {
            for character in code(lines[index]) {
                if character == "{" { depth += 1; opened = true }
                if character == "}" { depth -= 1 }
                if opened && depth == 0 { return index }
            }
            if !opened && (index > start + 8 || lines[index].contains("}")) { return nil }
        }
        return nil
    }

    /// A line without its string literals and trailing comment, roughly: enough to count braces.
    static func code(_ line: String) -> String {
        var result = "", inString = false, previous: Character = " "
        for character in line {
            if character == "\"" && previous != "\\" { inString.toggle() }
            else if !inString {
                if character == "/" && previous == "/" { result.removeLast(); break }
                result.append(character)
            }
            previous = character
        }
        return result
    }
}
