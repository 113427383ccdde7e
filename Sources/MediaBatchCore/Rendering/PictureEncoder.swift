import Foundation
import MetadataKit
import PipelineModel
import VipsKit

/// An output's file from its rendered picture, as the output's format writes one: pixels (and the
/// ICC profile, unless a keep-list dropped it) through the format's codec, then the item's
/// metadata through the format's container, each block once; then, for an HDR photo in a format
/// that carries one, its gain map (JPEG: Ultra HDR, the map in MPF with its hdrgm and ISO 21496-1
/// metadata).
enum PictureEncoder {
    /// The file's bytes, and what the format has no place for (for the report).
    static func encode(_ image: VImage, _ metadata: ImageMetadata?, as output: PlannedOutput,
                       gainMap: (jpeg: [UInt8], metadata: GainMapMetadata)? = nil) throws -> (bytes: [UInt8], notCarried: [String]) {
        let encoded = try encodePicture(image, metadata, as: output)
        guard let gainMap else { return encoded }
        do {
            return (try UltraHDR.assemble(primary: encoded.bytes, gainMap: gainMap.jpeg, metadata: gainMap.metadata), encoded.notCarried)
        } catch let error as MetadataFormatError {
            throw StageFailure(.encodeFailed, "cannot write the gain map into \(output.path ?? ""): \(error.message)")
        }
    }

    private static func encodePicture(_ image: VImage, _ metadata: ImageMetadata?, as output: PlannedOutput) throws -> (bytes: [UInt8], notCarried: [String]) {
        guard let codec = output.format.row.encoder?.codec else {
            throw StageFailure(.encodeFailed, "cannot encode an image as \(output.format.rawValue)")
        }
        // Readers of HEIF, AVIF and JPEG XL take EXIF's orientation as information only.
        let image = output.format.row.honoursExifOrientation || image.orientation == 1 ? image : try decoding { try image.upright() }
        let bare = try decoding { try image.withoutMetadataBlocks(keepingICC: metadata?.keepsICC ?? true) }
        let encoded: [UInt8]
        do {
            encoded = try bare.encoded(as: codec, quality: output.quality, effort: output.effort ?? 0)
        } catch let error as VipsError {
            switch error.side {
            case .decode: throw StageFailure(.decodeFailed, error.message)
            case .encode: throw StageFailure(.encodeFailed, "cannot encode \(output.path ?? ""): \(error.message)")
            }
        }
        guard let metadata, let container = output.format.row.container?.metadata.blocks else { return (encoded, []) }
        do {
            let written = try container.writingMetadata(metadata.blocks(for: image), into: encoded)
            return (written.bytes, written.notCarried.map { "\($0): \(output.format.rawValue) has no place for it" })
        } catch let error as MetadataFormatError {
            throw StageFailure(.encodeFailed, "cannot write the metadata into \(output.path ?? ""): \(error.message)")
        }
    }

    /// A libvips step on the way to the encoder; its failure is the decode's.
    private static func decoding<T>(_ step: () throws -> T) throws -> T {
        do {
            return try step()
        } catch let error as VipsError {
            throw StageFailure(.decodeFailed, error.message)
        }
    }
}
