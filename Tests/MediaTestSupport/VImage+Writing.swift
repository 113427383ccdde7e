import Foundation
import TestSupport
import MediaFormats
import VipsKit

extension VImage {
    /// Encodes as `codec` and writes the bytes to `path`: how tests make files from images.
    public func write(to path: String, as codec: Codec, quality: Int = 80) throws {
        try Data(encoded(as: codec, quality: quality)).write(to: URL(fileURLWithPath: path))
    }
}
