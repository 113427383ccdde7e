@testable import MetadataKit
import XCTest

final class AAESidecarTests: XCTestCase {
    /// An iPhone's AAE for a slow-motion video, as the Camera app writes it.
    private let aae = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \t<key>adjustmentBaseVersion</key>
    \t<integer>0</integer>
    \t<key>adjustmentData</key>
    \t<data>
    \tYnBsaXN0MDDRAQJac2xvd01vdGlvbtIDBAUXV3JlZ2lvbnNUcmF0ZaEG0QcIWXRpbWVS
    \tYW5nZdIJCgsUVXN0YXJ0WGR1cmF0aW9u1AwNDg8QERITVWZsYWdzVXZhbHVlWXRpbWVz
    \t</data>
    \t<key>adjustmentEditorBundleID</key>
    \t<string>com.apple.camera</string>
    \t<key>adjustmentFormatIdentifier</key>
    \t<string>com.apple.video.slomo</string>
    \t<key>adjustmentFormatVersion</key>
    \t<string>1.1</string>
    \t<key>adjustmentTimestamp</key>
    \t<date>2023-12-24T17:31:02Z</date>
    </dict>
    </plist>

    """

    func testAcceptsAnAAE() throws {
        XCTAssertNoThrow(try AAESidecar.check(Array(aae.utf8)))
    }

    func testRefusesWhatIsNotAPropertyListDictionary() {
        let truncated = String(aae.prefix(aae.count * 2 / 3))
        let array = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><array/></plist>"
        for input in [truncated, "", "IMG_1234", "{adjustmentData = <00>;}", array] {
            XCTAssertThrowsError(try AAESidecar.check(Array(input.utf8)), input) { error in
                XCTAssertTrue((error as? MetadataFormatError)?.message.hasPrefix("AAE sidecar is not a property list") ?? false, "\(error)")
            }
        }
    }
}
