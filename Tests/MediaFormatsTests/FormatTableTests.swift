import Foundation
import MediaFormats
import TestSupport
import XCTest

/// The table's rows agree with each other and with the lists built from them.
final class FormatTableTests: XCTestCase {
    func testEveryFormatHasOneRowAndEveryListedFormatWhatItsListNeeds() {
        XCTAssertEqual(FormatTable.rows.map(\.format).sorted { $0.rawValue < $1.rawValue },
                       MediaFormat.allCases.sorted { $0.rawValue < $1.rawValue })
        for format in MediaFormat.inputs {
            XCTAssertTrue(format.isVideo || format.isCameraRaw || format.row.decoder != nil, "\(format) is read: by libavformat or a codec")
        }
        for format in MediaFormat.outputs {
            XCTAssertNotNil(format.row.encoder, "\(format) is written")
            XCTAssertNotNil(format.row.container, "\(format) carries metadata")
        }
        XCTAssertEqual(Set(MediaFormat.outputs).intersection([.mov, .mp4, .threeGP, .gif, .tiff]), [],
                       "movies are not encoded; GIF and TIFF are written only as their own format")
    }

    /// Every row is an input: a `{"format": …}` filter and `input.formats` accept each one.
    /// A camera's RAW is never handed to a decoder (libvips' TIFF loader would read its thumbnail).
    func testEveryFormatIsReadAndNoCameraRawIsDecoded() {
        XCTAssertEqual(Set(MediaFormat.inputs), Set(MediaFormat.allCases))
        XCTAssertEqual(MediaFormat.inputs.count, MediaFormat.allCases.count, "listed once each")
        for format in MediaFormat.allCases where format.isCameraRaw {
            XCTAssertNil(format.row.decoder, "\(format)")
            XCTAssertTrue([nil, .tiff, .cr3].contains(format.row.container), "\(format): edited in place as a TIFF or a CR3, or not at all")
        }
        XCTAssertEqual(MediaFormat.allCases.filter(\.isCameraRaw).count, 16)
    }

    func testEncoderSettingsDefaultInsideTheirRange() {
        for format in MediaFormat.allCases {
            for setting in [format.quality, format.effort].compactMap({ $0 }) {
                XCTAssertTrue(setting.range.contains(setting.default), "\(format): \(setting)")
            }
        }
        XCTAssertEqual([MediaFormat.jpeg, .webp, .avif, .heic, .jxl].map { $0.quality?.default }, [80, 80, 62, 44, 82])
        XCTAssertFalse(MediaFormat.png.isLossy)
        XCTAssertEqual(FormatTable.defaults(\.effort), "webp 4, avif 2, jxl 4")
        XCTAssertEqual(FormatTable.ranges(\.effort), "webp 0–6, avif 0–9, jxl 1–9")
    }

    func testExtensionsPromiseOneInputFormatEach() {
        var seen: [String: MediaFormat] = [:]
        for format in MediaFormat.allCases {
            for name in format.row.extensions {
                XCTAssertNil(seen.updateValue(format, forKey: name), "\(name) is claimed twice")
                XCTAssertEqual(MediaFormat.promised(byExtension: name.uppercased()), MediaFormat.inputs.contains(format) ? format : nil, name)
            }
        }
        XCTAssertEqual([MediaFormat.jpeg, .tiff, .heic, .threeGP].map(\.fileExtension), ["jpg", "tif", "heic", "3gp"])
    }

    /// HEIF, AVIF and JPEG XL take EXIF's orientation as information only (their own transforms
    /// are what readers apply): pictures go into them upright.
    func testOnlyTheFormatsWhoseReadersApplyExifOrientationKeepIt() {
        XCTAssertEqual(MediaFormat.allCases.filter { !$0.row.honoursExifOrientation }, [.heic, .avif, .jxl])
    }

    /// The formats table of the docs (`docs/formats.md`) is the table's rows, rendered.
    func testTheDocsFormatsTableIsTheFormatTable() throws {
        let page = Fixtures.repositoryRoot.appendingPathComponent("docs/formats.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let (start, end) = ("<!-- formats table: generated -->\n", "<!-- end of formats table -->")
        let from = try XCTUnwrap(text.range(of: start)), to = try XCTUnwrap(text.range(of: end))
        let rendered = Self.formatsTable()
        if ProcessInfo.processInfo.environment["MEDIABATCH_RECORD_GOLDENS"] == "1" {
            try text.replacingCharacters(in: from.upperBound..<to.lowerBound, with: rendered).write(to: page, atomically: true, encoding: .utf8)
            return
        }
        XCTAssertEqual(String(text[from.upperBound..<to.lowerBound]), rendered, "docs/formats.md's formats table; MEDIABATCH_RECORD_GOLDENS=1 writes it again")
    }

    /// One line a format: its name for `input.formats` and `{"format": …}`, its file names, how it
    /// is read and written, its row's help, and what `stripLocation` does to a copy.
    static func formatsTable() -> String {
        let lines = MediaFormat.inputs.map { format -> String in
            let row = format.row
            let read = switch row.kind {
            case .still: "decoded"
            case .cameraRaw: "developed by LibRaw, or its embedded preview"
            case .movie: "probed"
            }
            let location = if let container = row.container {
                "removes " + container.locationPlaces
            } else if row.keepsUneditableMetadata {
                "fails the item (`unsupportedMetadata`): no editor for its metadata"
            } else {
                "nothing to remove: copied byte for byte"
            }
            let names = row.extensions.map { "`.\($0)`" }.joined(separator: " ")
            let limit = row.encoder.map { $0.maxSide < FormatRow.Encoder.libvipsMaxSide ? " (at most \($0.maxSide) px a side)" : "" } ?? ""
            let written = MediaFormat.outputs.contains(format) ? "encoded\(limit) or copied" : "copied"
            return "| `\(format.rawValue)` | \(names) | \(read) | \(written) | \(row.help) | \(location) |\n"
        }
        return "| format | file names | read | written | what it is | `stripLocation` in a copy |\n| --- | --- | --- | --- | --- | --- |\n"
            + lines.joined()
    }
}
