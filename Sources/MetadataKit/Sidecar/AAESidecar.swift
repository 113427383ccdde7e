import Foundation

/// Apple Photos' `.AAE` sidecar (`IMG_1234.AAE`): an XML property list of the edits made to a photo
/// or video on an iPhone. Its keys are `adjustmentFormatIdentifier` and `adjustmentFormatVersion`,
/// `adjustmentEditorBundleID`, `adjustmentBaseVersion`, `adjustmentRenderTypes`, the edit's
/// `adjustmentTimestamp`, and `adjustmentData`: a base64 blob of the adjustments themselves (crop,
/// tone, filters, red eye, slow-motion and trim ranges; see neilpa/photohack's schema of them).
///
/// No location lives in it: none of those keys, nor any adjustment, places the photo. So a run
/// copies an AAE as it is, only checking that it is one.
public enum AAESidecar {
    /// - Throws: `MetadataFormatError` when `bytes` are not a property list dictionary, in XML or
    ///   binary form. The OpenStep text form is refused too: nearly any text parses as one.
    public static func check(_ bytes: [UInt8]) throws {
        var format = PropertyListSerialization.PropertyListFormat.xml
        let list: Any
        do {
            list = try PropertyListSerialization.propertyList(from: Data(bytes), format: &format)
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw MetadataFormatError(message: "AAE sidecar is not a property list: \(reason)")
        }
        guard format != .openStep, list is [String: Any] else {
            throw MetadataFormatError(message: "AAE sidecar is not a property list dictionary in XML or binary form")
        }
    }
}
