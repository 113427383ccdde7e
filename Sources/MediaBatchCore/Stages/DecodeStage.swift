import AVFormatKit
import PipelineModel
import VipsKit

/// Opens the item header-first: libvips reads only the header of an image (pixels come when
/// `write` saves), libavformat probes a video's container and streams.
struct DecodeStage: PipelineStage {
    let maxPixels: Int
    var name: Stage.Name { .decode }
    var readsPixels: Bool { false }

    func run(_ item: ItemContext) throws {
        switch item.format.kind {
        case .videos:
            do {
                item.video = try AVFormat.probe(path: item.input.path)
            } catch let error as AVFormatError {
                throw StageFailure(.decodeFailed, "not a readable \(item.format.rawValue) video: \(error.message)")
            }
        case .images:
            let image: VImage
            do {
                image = try VImage.open(item.input.path)
            } catch let error as VipsError {
                throw StageFailure(.decodeFailed, "cannot read the \(item.format.rawValue) header: \(error.message)")
            }
            let pixels = image.width * image.height
            guard pixels <= maxPixels else {
                throw StageFailure(.tooManyPixels,
                    "\(image.width)×\(image.height) is \(pixels) pixels, over limits.maxPixels (\(maxPixels))")
            }
            item.image = image
            item.metadata = ImageMetadata(of: image, path: item.input.path)
        }
    }
}
