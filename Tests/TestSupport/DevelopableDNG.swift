import Foundation
import VipsKit

/// DNGs LibRaw really develops, made by `scripts/make-dng.py` (in the tests' venv) from a real
/// photo mosaicked through a known camera, with an embedded JPEG preview stored unturned, an
/// orientation and GPS as asked; and `dcraw_emu`'s develop of them, the reference.
public enum DevelopableDNG {
    /// The photo every DNG is made from: a 4032×3024 iPhone picture.
    public static let photo = Fixtures.sample("livephoto/train.jpg")

    /// Writes a DNG of `width` px (landscape, as stored) to `url`; `preview`: the longest side of
    /// its embedded JPEG (0: none), which carries EXIF orientation `previewOrientation`;
    /// `truncate`: the fraction of the sensor data kept; `emptySensorData`: 16 bytes of it, said to
    /// be all; `brokenPreview`: the preview's JPEG cut in half.
    public static func write(to url: URL, width: Int = 600, orientation: Int = 1, preview: Int = 0, previewOrientation: Int = 1,
                             gps: Bool = false, truncate: Double? = nil, emptySensorData: Bool = false, brokenPreview: Bool = false) throws {
        var arguments = [Fixtures.repositoryRoot.appendingPathComponent("scripts/make-dng.py").path, photo, url.path,
                         "--width", "\(width)", "--orientation", "\(orientation)", "--preview", "\(preview)",
                         "--preview-orientation", "\(previewOrientation)"]
        if gps { arguments.append("--gps") }
        if brokenPreview { arguments.append("--broken-preview") }
        if emptySensorData { arguments.append("--empty-sensor-data") }
        if let truncate { arguments += ["--truncate", "\(truncate)"] }
        let result = try runProcess(try PythonReference.python(), arguments)
        guard result.exitCode == 0 else { throw PythonReferenceError(message: result.stderr) }
    }

    /// `dcraw_emu -w -o 1 -q 3` (with `-h` at half size): camera white balance, sRGB, AHD, 8 bits (as a TIFF).
    public static func reference(_ path: String, halfSize: Bool = false) throws -> VImage {
        let tiff = Fixtures.temporaryFolder().appendingPathComponent("reference.tiff").path
        let result = try runProcess("dcraw_emu", ["-w", "-o", "1", "-q", "3"] + (halfSize ? ["-h"] : []) + ["-T", "-Z", tiff, path])
        guard result.exitCode == 0, FileManager.default.fileExists(atPath: tiff) else {
            throw PythonReferenceError(message: "dcraw_emu: \(result.stderr)")
        }
        return try VImage.decode(tiff)
    }

    /// The photo the DNG was made from at its `width`, turned by `orientation` and fitted to `longestSide`:
    /// what its preview shows, upright.
    public static func photoAsShown(width: Int, orientation: Int, longestSide: Int) throws -> VImage {
        let folder = Fixtures.temporaryFolder()
        let stored = folder.appendingPathComponent("stored.png").path, turned = folder.appendingPathComponent("turned.png").path
        let shown = folder.appendingPathComponent("shown.png").path
        for command in [["vipsthumbnail", photo, "--size", "\(width)", "-o", stored],
                        ["vips", "rot", stored, turned, orientation == 6 ? "d90" : orientation == 8 ? "d270" : orientation == 3 ? "d180" : "d0"],
                        ["vipsthumbnail", turned, "--size", "\(longestSide)", "-o", shown]] {
            let result = try runProcess(command[0], Array(command.dropFirst()))
            guard result.exitCode == 0 else { throw PythonReferenceError(message: result.stderr) }
        }
        return try VImage.decode(shown)
    }
}
