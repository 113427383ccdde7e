import Foundation

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
}
