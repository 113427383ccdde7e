import Foundation
@testable import MetadataKit
import TestSupport
import XCTest

/// What the container tests share: the metadata fixtures, files as libvips writes them, and
/// exiftool's and libvips' readings of what was written.
enum ContainerFixtures {
    static let copyright = "(c) 2021 Lychee contributors, MIT licence"
    static let livePhotoIdentifier = "E905E6C6-C747-4805-942F-9904A0281F02"

    static func path(_ name: String) -> String {
        Fixtures.fixtures.appendingPathComponent("metadata/\(name)").path
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `input` saved by libvips' CLI as the given format: the encoder's own copies of every
    /// block it carries (libexif's EXIF without MakerNote, XMP, PNG comments).
    static func libvipsCopy(of input: String, as format: String, options: String = "") throws -> String {
        let output = Fixtures.temporaryFolder().appendingPathComponent("libvips.\(format)").path
        let made = try runProcess("vips", ["copy", input, output + options])
        guard made.exitCode == 0 else { throw MetadataFormatError(message: "vips copy: \(made.stderr)") }
        return output
    }

    /// Bytes from the hex a Python reference printed.
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8).compactMap { UInt8(String(UnicodeScalar($0)), radix: 16) }
        return stride(from: 0, to: digits.count - 1, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }

    static func write(_ bytes: [UInt8], as name: String) throws -> String {
        let path = Fixtures.temporaryFolder().appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every copy exiftool finds of one tag, in file order (`-a -s3`), e.g. both cities when two
    /// XMP packets differ.
    static func exiftoolValues(_ tag: String, in path: String) throws -> [String] {
        let result = try runProcess("exiftool", ["-a", "-s3", "-\(tag)", path])
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// The Apple MakerNote's bytes as exiftool extracts them (base64 in its JSON).
    static func makerNote(in path: String) throws -> String? {
        try exiftool(path, ["-b", "-MakerNoteApple"])["ExifIFD:MakerNoteApple"] as? String
    }

    /// What must survive every write: camera, date, rights, the Live Photo identifier (and with
    /// it the MakerNote, byte for byte) and the sRGB profile (`profile`: JPEG XL states its colour
    /// in the codestream, where exiftool does not look); and no warning.
    static func assertKept(in path: String, makerNoteOf original: String, profile: String? = "sRGB",
                           file: StaticString = #filePath, line: UInt = #line) throws {
        let tags = try exiftool(path, ["-Warning", "-Make", "-Model", "-DateTimeOriginal", "-IFD0:Copyright",
                                       "-Apple:MediaGroupUUID", "-ICC_Profile:ProfileDescription"])
        XCTAssertNil(tags["ExifTool:Warning"], "\(tags["ExifTool:Warning"] ?? "")", file: file, line: line)
        XCTAssertEqual(tags["IFD0:Make"] as? String, "Apple", file: file, line: line)
        XCTAssertEqual(tags["IFD0:Model"] as? String, "iPhone 6s", file: file, line: line)
        XCTAssertEqual(tags["ExifIFD:DateTimeOriginal"] as? String, "2021:04:10 11:44:00", file: file, line: line)
        XCTAssertEqual(tags["IFD0:Copyright"] as? String, copyright, file: file, line: line)
        XCTAssertEqual(tags["Apple:MediaGroupUUID"] as? String, livePhotoIdentifier, file: file, line: line)
        XCTAssertEqual(tags["ICC_Profile:ProfileDescription"] as? String, profile, file: file, line: line)
        let makerNote = try makerNote(in: path)
        XCTAssertNotNil(makerNote, file: file, line: line)
        XCTAssertEqual(makerNote, try self.makerNote(in: original), "MakerNote byte for byte", file: file, line: line)
    }

    /// Both files decode, through libvips, to the same pixels.
    static func assertSamePixels(_ first: String, _ second: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = Fixtures.temporaryFolder()
        let difference = folder.appendingPathComponent("difference.v").path, absolute = folder.appendingPathComponent("absolute.v").path
        for step in [["subtract", first, second, difference], ["abs", difference, absolute]] {
            let result = try runProcess("vips", step)
            XCTAssertEqual(result.exitCode, 0, result.stderr, file: file, line: line)
        }
        let largest = try runProcess("vips", ["max", absolute])
        XCTAssertEqual(Double(largest.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), 0, "largest difference", file: file, line: line)
    }
}
