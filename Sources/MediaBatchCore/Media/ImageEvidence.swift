import MediaFormats
import MetadataKit
import PipelineModel
import VipsKit

/// The kinds an image header shows, one rule per kind.
struct ImageEvidence {
    let path: String
    let image: VImage
    let metadata: ImageMetadata
    let structure: ImageStructure
    let format: MediaFormat
    /// The primary image's XMP properties, and those of a JPEG's auxiliary pictures.
    private let xmp: [XMPPacket.Property]
    private let auxiliaryXMP: [XMPPacket.Property]
    private let customRendered: Int?

    init(path: String, image: VImage, metadata: ImageMetadata, structure: ImageStructure, format: MediaFormat) {
        self.path = path
        self.image = image
        self.metadata = metadata
        self.structure = structure
        self.format = format
        xmp = metadata.xmp.flatMap { Self.mentions($0, Self.primaryEvidence) ? try? XMPPacket.properties(in: $0) : nil } ?? []
        if case .jpeg(let jpeg) = structure {
            auxiliaryXMP = jpeg.auxiliaryXMP.flatMap { Self.mentions($0, [Evidence.apple]) ? (try? XMPPacket.properties(in: $0)) ?? [] : [] }
        } else {
            auxiliaryXMP = []
        }
        customRendered = metadata.exif?.number(ExifTag.customRendered, in: .exif).map(Int.init)
    }

    /// What a primary XMP packet must mention for any rule below to find evidence in it: it is
    /// parsed only then (most photos' packets tell none of these, and parsing is most of reading one).
    private static let primaryEvidence = ["Screenshot", Evidence.google, Evidence.adobeGainMap]

    /// Whether `packet` holds one of `mentions`, or is written in a way a search of its bytes
    /// cannot see through (UTF-16).
    private static func mentions(_ packet: [UInt8], _ mentions: [String]) -> Bool {
        packet.contains(0) || mentions.contains { mention in packet.firstOffset(of: Array(mention.utf8)) != nil }
    }

    var kinds: Set<MediaKind> {
        let rules: [(MediaKind, Bool)] = [
            (.screenshots, isScreenshot), (.panoramas, isPanorama), (.bursts, isBurst),
            (.depthEffectPhotos, hasDepth), (.hdrPhotos, isHDR), (.animatedImages, isAnimated),
            (.motionPhotos, isMotionPhoto), (.spatialMedia, isStereo),
        ]
        return Set(rules.filter(\.1).map(\.0))
    }

    private var heif: HEIFStructure? {
        if case .heif(let structure) = structure { return structure }
        return nil
    }

    private var jpeg: JPEGStructure? {
        if case .jpeg(let structure) = structure { return structure }
        return nil
    }

    /// Values of the property `name` in `namespace` (of any property there when `name` is nil).
    private static func values(_ properties: [XMPPacket.Property], _ namespace: String, _ name: String? = nil) -> [String] {
        properties.filter { $0.namespace == namespace && (name == nil || $0.name == name) }.flatMap(\.values)
    }

    private func xmpValues(_ namespace: String, _ name: String? = nil) -> [String] {
        Self.values(xmp, namespace, name)
    }

    private func xmpHas(_ namespace: String, _ name: String? = nil) -> Bool {
        xmp.contains { $0.namespace == namespace && (name == nil || $0.name == name) }
    }

    /// Apple's auxiliary image types, from HEIF `auxC` boxes or a JPEG's auxiliary XMP.
    private var auxiliaryTypes: [String] {
        (heif?.auxiliaryTypes ?? []) + Self.values(auxiliaryXMP, Evidence.applePixelDataInfo, "AuxiliaryImageType")
    }

    var isScreenshot: Bool {
        metadata.exif?.userComment == "Screenshot" || xmpValues(Evidence.exif, "UserComment").contains("Screenshot")
    }

    var isPanorama: Bool {
        customRendered == Evidence.CustomRendered.panorama || xmpHas(Evidence.googlePanorama, "ProjectionType")
            || jpeg?.pictures.contains { $0.type == Evidence.MultiPicture.panoramaFrame } == true
    }

    var isBurst: Bool {
        metadata.exif?.appleMakerNote?.burstUUID != nil || xmpHas(Evidence.googleCamera, "BurstID")
    }

    var hasDepth: Bool {
        customRendered.map(Evidence.CustomRendered.portrait.contains) == true
            || auxiliaryTypes.contains(where: Evidence.depthAuxiliaryTypes.contains)
            || xmpHas(Evidence.googleDepthMap) || xmpHas(Evidence.dynamicDepthMap)
    }

    var isHDR: Bool {
        customRendered.map(Evidence.CustomRendered.hdr.contains) == true
            || metadata.exif?.appleMakerNote?.hdrImageType == Evidence.appleHDRCapture
            || auxiliaryTypes.contains(where: Evidence.gainMapAuxiliaryTypes.contains)
            || heif?.itemTypes.contains("tmap") == true
            || xmpHas(Evidence.adobeGainMap) || !Self.values(auxiliaryXMP, Evidence.appleGainMap).isEmpty
            || xmpValues(Evidence.googleContainerItem, "Semantic").contains("GainMap")
    }

    var isAnimated: Bool {
        switch structure {
        case .png(let png): return (png.animationFrames ?? 1) > 1
        case .heif(let heif): return HEIFStructure.isSequence(heif)
        default: return (format == .gif || format == .webp) && image.pageCount > 1
        }
    }

    /// Google's XMP says where the video is; it counts only if a movie is really there.
    var isMotionPhoto: Bool {
        if jpeg?.samsungTrailerTypes.contains(JPEGStructure.samsungMotionPhotoData) == true
            || heif?.topLevelBoxTypes.contains("mpvd") == true {
            return true
        }
        let declared = xmpValues(Evidence.googleCamera, "MotionPhoto").contains("1")
            ? xmpValues(Evidence.googleContainerItem, "Length")
            : xmpValues(Evidence.googleCamera, "MicroVideo").contains("1") ? xmpValues(Evidence.googleCamera, "MicroVideoOffset") : []
        return declared.compactMap { Int($0) }.contains { JPEGStructure.endsWithMovie(path, length: $0) }
    }

    var isStereo: Bool {
        heif?.entityGroupTypes.contains("ster") == true
            || jpeg?.pictures.contains { Evidence.MultiPicture.stereo.contains($0.type) } == true
    }
}
