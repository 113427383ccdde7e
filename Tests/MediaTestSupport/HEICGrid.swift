import Foundation
import TestSupport

/// A true HEIC grid made at test time (`Tests/TestSupport/make_heic_grid.py`, pillow-heif's libheif
/// 1.23): a phone's panorama, of any size, beside the PNG it was encoded from.
public enum HEICGrid {
    public static func make(width: Int, height: Int, tile: Int, in folder: URL) throws -> (heic: String, png: String) {
        let heic = folder.appending(path: "grid-\(width)x\(height).heic").path, png = folder.appending(path: "grid-\(width)x\(height).png").path
        let script = Fixtures.repositoryRoot.appending(path: "Tests/TestSupport/make_heic_grid.py").path
        let made = try runProcess(try PythonReference.python(), [script, "\(tile)", heic, png, "\(width)", "\(height)"])
        guard made.exitCode == 0 else { throw PythonReferenceError(message: made.stderr) }
        return (heic, png)
    }

    /// `heic` as libheif 1.23 decodes it (pillow-heif, with libde265), as a PNG beside it: for libvips' own
    /// thumbnail of the picture where Debian 12's libheif 1.15 cannot read the file.
    public static func decodedByLibheif(_ heic: String) throws -> String {
        let png = heic + ".libheif.png"
        _ = try PythonReference.run("import sys, pillow_heif; pillow_heif.open_heif(sys.argv[1]).to_pillow().save(sys.argv[2])", [heic, png])
        return png
    }
}
