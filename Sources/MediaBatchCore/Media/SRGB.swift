import Foundation
import VipsKit

/// The colour every web output is in. An embedded profile (Display P3 on iPhones, Adobe RGB on
/// cameras) is applied, not dropped, and CMYK is converted; an image whose profile already says
/// sRGB is left as it is (an sRGB → sRGB transform costs time and changes nothing).
/// A matrix-shaper profile (Display P3, Adobe RGB) converts through `ICCMatrixShaper`'s tables, Little CMS'
/// own arithmetic for 8-bit RGB in a loop of mediabatch's: the same pixels, several times faster than libvips'
/// icc_transform, whose per-pixel loop is a large share of a photo's item.
enum SRGB {
    static func converting(_ image: VImage) throws -> VImage {
        guard image.isCMYK || image.iccProfile.map({ !ICCProfile.isSRGB($0) }) ?? false else { return image }
        do {
            if let tables = tables(for: image) { return try image.convertedToSRGB(using: tables) }
            return try image.convertedToSRGB()
        } catch let error as VipsError {
            throw StageFailure(.decodeFailed, "cannot convert colour to sRGB: \(error.message)")
        }
    }

    /// The tables for 8-bit RGB(A) with a matrix-shaper profile; nil for anything libvips converts.
    static func tables(for image: VImage) -> MatrixShaperTables? {
        guard !image.isCMYK, image.bitsPerSample == 8, image.bands == 3 || image.bands == 4, let profile = image.iccProfile,
              let sRGB = ICCMatrixShaper.sRGB else { return nil }
        return cache.tables(for: profile) { ICCMatrixShaper($0)?.tables(to: sRGB.profile, output: sRGB.output) }
    }

    /// The last profile's tables: a worker converts thousands of photos with the same few profiles.
    private static let cache = TablesCache()
}

private final class TablesCache: @unchecked Sendable {
    private let lock = NSLock()
    private var last: (profile: [UInt8], tables: MatrixShaperTables?)?

    func tables(for profile: [UInt8], _ make: ([UInt8]) -> MatrixShaperTables?) -> MatrixShaperTables? {
        lock.lock()
        defer { lock.unlock() }
        if let last, last.profile == profile { return last.tables }
        let tables = make(profile)
        last = (profile, tables)
        return tables
    }
}
