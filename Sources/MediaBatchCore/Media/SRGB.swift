import VipsKit

/// The colour every web output is in. An embedded profile (Display P3 on iPhones, Adobe RGB on
/// cameras) is applied, not dropped, and CMYK is converted; an image whose profile already says
/// sRGB is left as it is (an sRGB → sRGB transform costs a fifth of a 12 MP JPEG's time).
enum SRGB {
    static func converting(_ image: VImage) throws -> VImage {
        guard image.isCMYK || image.iccProfile.map({ !ICCProfile.isSRGB($0) }) ?? false else { return image }
        do {
            return try image.convertedToSRGB()
        } catch let error as VipsError {
            throw StageFailure(.decodeFailed, "cannot convert colour to sRGB: \(error.message)")
        }
    }
}
