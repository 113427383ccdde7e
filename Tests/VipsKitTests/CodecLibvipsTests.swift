import MediaFormats
@testable import VipsKit
import XCTest

/// Each codec's saver (`Codec.saver`, an entry of the shim's one list of savers, `MB_SAVERS`) against
/// the saver libvips itself picks for the codec's files.
final class CodecLibvipsTests: XCTestCase {
    override class func setUp() {
        try! Vips.start()
    }

    /// Every format with an encoder, each output format among them, is encoded by the saver libvips picks
    /// for a file of its extension: a codec mapped to another's saver (HEIC's and AVIF's are one libvips
    /// operation apart by an option) fails here. The savers are unblocked as the encoding process
    /// unblocks them (libvips 8.16 marks JPEG XL's untrusted, and finds no blocked saver).
    func testEachEncoderIsTheSaverLibvipsPicksForItsExtension() {
        let encoding = MediaFormat.allCases.filter { $0.row.encoder != nil }
        XCTAssertTrue(Set(MediaFormat.outputs).isSubset(of: encoding))
        Vips.allowSavers(for: encoding.map { $0.row.encoder!.codec })
        for format in encoding {
            let codec = format.row.encoder!.codec
            XCTAssertEqual(codec.saverNickname, Codec.libvipsSaver(forExtension: format.fileExtension), "\(format)")
        }
    }
}
