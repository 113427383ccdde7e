import Foundation

/// Smaller copies of sample photos, made once a test process by the libvips and libheif CLIs, for
/// tests whose point is not the photo's size: each decode of a 12 MP HEIC costs about a second of CPU.
public enum SmallerSamples {
    /// `heic/IMG_1034.heic` (the iPhone 8's 4032×3024 grid of tiles in Display P3) a third the size:
    /// see `heic(_:)`.
    public static var iPhoneHEIC: String { heic("heic/IMG_1034.heic") }

    /// A sample HEIC (a path under `samples/`) at a third of its size, 1344×1008 for a 12 MP photo, as
    /// `heif-enc` codes it: one 8-bit 4:2:0 HEVC image, not a grid of tiles, upright (no `irot`), with
    /// the photo's colour profile and EXIF (camera, date, location); no thumbnail item (libheif
    /// makes one by nearest neighbour: another picture than the photo's resized) nor auxiliary
    /// images. Which decoder mediabatch picks for it can differ from the photo's (on Debian 13,
    /// libheif); libvips reads it with libheif. Under the photo's own name, in a folder of its own.
    public static func heic(_ sample: String) -> String {
        lock.lock()
        defer { lock.unlock() }
        if let made = made[sample] { return made }
        let name = ((sample as NSString).lastPathComponent as NSString).deletingPathExtension
        let folder = Fixtures.temporaryFolder("smaller-\(name)")
        let png = folder.appendingPathComponent("\(name).png").path, heic = folder.appendingPathComponent("\(name).heic").path
        let scaled = try! runProcess("vips", ["thumbnail", Fixtures.sample(sample), png, "1344"])
        precondition(scaled.exitCode == 0, scaled.stderr)
        // Lossless (of its 4:2:0 samples): every x265 makes the same pixels, which are the PNG's but for
        // chroma; x265's fastest preset, the file being made every run.
        let coded = try! runProcess("heif-enc", ["-L", "-p", "preset=ultrafast", "-o", heic, png])
        precondition(coded.exitCode == 0, coded.stderr)
        try! FileManager.default.removeItem(atPath: png)
        made[sample] = heic
        return heic
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [String: String] = [:]
}
