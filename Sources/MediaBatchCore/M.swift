import VipsKit
import AVFormatKit
public func hello() throws { try Vips.start(); print(Vips.version) }
