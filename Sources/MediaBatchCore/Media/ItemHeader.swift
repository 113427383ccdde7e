import LibAVKit
import Foundation
import LibRawKit
import MediaFormats
import MetadataKit
import PipelineModel
import VipsKit

/// An item's headers, read once before any stage runs: classification decides on them, `decode`
/// hands them on, `inspect` prints them. Pixels and video frames are never decoded here.
struct ItemHeader {
    enum Content {
        case image(VImage, ImageMetadata, ImageStructure)
        /// A camera's RAW: what LibRaw reads of its headers (or why it cannot: the file may still
        /// be copied), its metadata, read by its container where mediabatch has one, and why its
        /// sensor data cannot be developed when its own directories say it is cut off; its pixels
        /// are never handed to libvips, whose TIFF loader would read the thumbnail.
        case cameraRaw(Result<RawFacts, LibRawError>, ImageMetadata, cutOff: String?)
        case video(VideoProbe, MovieMetadata?)
    }

    let content: Content

    /// An image's or a camera RAW's metadata, every copy merged; nil for a movie.
    var metadata: ImageMetadata? {
        switch content {
        case .image(_, let metadata, _), .cameraRaw(_, let metadata, _): return metadata
        case .video: return nil
        }
    }

    /// - Throws: `StageFailure` (`decodeFailed`) when libvips or libavformat cannot read the header
    ///   (and, for a HEIC, neither can mediabatch's own loader).
    init(path: String, format: MediaFormat) throws {
        if format.isVideo {
            let probe: VideoProbe
            do {
                probe = try LibAV.probe(path: path)
            } catch let error as LibAVError {
                throw StageFailure(.decodeFailed, "not a readable \(format.rawValue) video: \(error.message)")
            }
            // libavformat has read the streams; a moov the box walker rejects just has no tags to show.
            content = .video(probe, try? MovieMetadata(contentsOfFile: path))
        } else if format.isCameraRaw {
            content = .cameraRaw(RawFile.facts(ofFile: path), ImageMetadata(format: format, path: path), cutOff: Self.rawCutOff(path: path, format: format))
        } else {
            if let decoder = format.row.decoder, !decoder.hasLoader {
                throw StageFailure(.unsupportedFormat, "unsupported format: \(format.rawValue) (\(format.row.help)): this libvips has no loader for it")
            }
            let image: VImage
            do {
                let opened = try VImage.open(path, expecting: format.row.decoder)
                if let decoder = format.row.decoder, !opened.wasRead(by: decoder) {
                    // Its own loader refused it and another claimed it: a file reaches its format's decoder only.
                    throw StageFailure(.decodeFailed, "cannot read the \(format.rawValue) header: its own loader refuses it")
                }
                image = opened
            } catch let error as VipsError {
                guard let own = try Self.ownHEIFHeader(path: path, format: format) else {
                    throw StageFailure(.decodeFailed, "cannot read the \(format.rawValue) header: \(error.message)")
                }
                image = own
            }
            try Self.refuseCutOffHEIF(path: path, format: format)
            content = .image(image, ImageMetadata(format: format, path: path), ImageStructure(path: path, format: format))
        }
    }

    /// A HEIC that libheif 1.15 refuses outright (recent iPhones': "Too many auxiliary image
    /// references", an auxiliary image referring to more than one) but mediabatch's own loader
    /// reads: its picture's header from the file's structure, where its first tile decodes; its pixels
    /// come from that loader alone.
    private static func ownHEIFHeader(path: String, format: MediaFormat) throws -> VImage? {
        guard format == .heic, case .hevc(let coded) = HEIFCoding.read(path: path), HEIFPicture.decodesFirstTile(path: path, coded) else { return nil }
        let shown = coded.displayedSize
        return try VImage.header(width: shown.width, height: shown.height, bands: coded.alpha == nil ? 3 : 4,
                                 depth: .init(holding: coded.bitDepth), iccProfile: coded.iccProfile)
    }

    /// A HEIF/AVIF shorter than its own structure says fails here, as libheif 1.15 makes it fail
    /// when reading the header: libheif 1.23 reads it and decodes the missing tiles as green.
    private static func refuseCutOffHEIF(path: String, format: MediaFormat) throws {
        guard format == .heic || format == .avif, let extent = try? HEIFDataExtent.claimedEnd(path: path),
              extent.claimed > extent.size else { return }
        throw StageFailure(.decodeFailed, "cannot read the \(format.rawValue) header: the file is cut off "
                                          + "(its boxes and items reach byte \(extent.claimed), it has \(extent.size) bytes)")
    }

    /// A TIFF-based RAW cut off or emptied of its sensor data: LibRaw would develop the missing
    /// part as black without a word (`TIFFDataExtent`).
    private static func rawCutOff(path: String, format: MediaFormat) -> String? {
        format.row.container == .tiff ? TIFFDataExtent.read(path: path)?.damage : nil
    }

    /// The Live Photo content identifier, kept in the state database so that pairing an
    /// unchanged folder reads no header.
    var contentIdentifier: String? {
        switch content {
        case .image(_, let metadata, _), .cameraRaw(_, let metadata, _): return metadata.exif?.appleMakerNote?.contentIdentifier
        case .video(_, let movie): return movie?.contentIdentifier
        }
    }
}
