import Foundation
import TestSupport
import VipsKit

extension DevelopableDNG {
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
