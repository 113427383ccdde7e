import PipelineModel

extension Picture {
    /// `cover` and `contain`: the whole upright image resized to `scaled`, then cut to the
    /// picture's size or padded to it.
    struct Framing: Codable, Hashable, Sendable {
        let scaled: PixelSize
        let placement: Placement

        enum Placement: Codable, Hashable, Sendable {
            /// The part of the scaled image at `left`, `top` (a gravity, a focus point).
            case crop(left: Int, top: Int)
            /// The part libvips' smartcrop finds most interesting: known once rendered.
            case smartCrop(Fit.Interest)
            /// The scaled image at `left`, `top` on `background` (nil: white, or transparent
            /// where the output format has alpha).
            case pad(left: Int, top: Int, background: Fit.Background?)
        }

        /// For an output's recipe: what was cut or padded, and with what in a format with `alpha` or without.
        func spec(alpha: Bool) -> String {
            let from = "\(scaled.width)x\(scaled.height)"
            switch placement {
            case .crop(let left, let top): return "crop \(left),\(top) of \(from)"
            case .smartCrop(let interest): return "\(interest.rawValue) crop of \(from)"
            case .pad(let left, let top, let background):
                let colour = background ?? (alpha ? .transparent : .white)
                return "pad \(from) at \(left),\(top) on \(colour.red).\(colour.green).\(colour.blue).\(colour.alpha)"
            }
        }
    }
}

/// Where an upright image fitted to a box ends, as sharp's `fit` says, but never upscaled: a box
/// the image cannot fill at its own scale shrinks, keeping its aspect ratio, until it can (a
/// 1200 × 630 `cover` of an 800 px wide photo is 800 × 420). With one side only, every fit
/// scales the image to it. Sides are rounded to the nearest pixel, at least 1, as libvips'
/// thumbnail rounds them.
struct FitGeometry {
    let size: PixelSize
    /// The whole image resized, before framing.
    let scaled: PixelSize
    let framing: Picture.Framing?

    init(upright: PixelSize, box: Box, fit: Fit) {
        let width = Double(upright.width), height = Double(upright.height)
        guard let boxWidth = box.width.map(Double.init), let boxHeight = box.height.map(Double.init) else {
            scaled = Self.scale(upright, by: min(1, box.width.map { Double($0) / width } ?? Double(box.height ?? 1) / height))
            (size, framing) = (scaled, nil)
            return
        }
        let (byWidth, byHeight) = (boxWidth / width, boxHeight / height)
        // The box at a scale the image can fill without being upscaled.
        func shrunkBox(_ scale: Double) -> PixelSize {
            let factor = min(1, 1 / scale)
            return PixelSize(width: max(1, Int((boxWidth * factor).rounded())), height: max(1, Int((boxHeight * factor).rounded())))
        }
        switch fit.mode {
        case .inside, .outside:
            let scale = fit.mode == .inside ? min(byWidth, byHeight) : max(byWidth, byHeight)
            scaled = Self.scale(upright, by: min(1, scale))
            (size, framing) = (scaled, nil)
        case .fill:
            scaled = shrunkBox(max(byWidth, byHeight))
            (size, framing) = (scaled, nil)
        case .cover:
            let scale = max(byWidth, byHeight)
            scaled = Self.scale(upright, by: min(1, scale))
            let target = shrunkBox(scale)
            size = PixelSize(width: min(target.width, scaled.width), height: min(target.height, scaled.height))
            framing = size == scaled ? nil : .init(scaled: scaled, placement: Self.crop(size, of: scaled, at: fit.position))
        case .contain:
            let scale = min(byWidth, byHeight)
            scaled = Self.scale(upright, by: min(1, scale))
            let target = shrunkBox(scale)
            size = PixelSize(width: max(target.width, scaled.width), height: max(target.height, scaled.height))
            framing = size == scaled ? nil : .init(scaled: scaled, placement: .pad(left: (size.width - scaled.width) / 2,
                                                                                   top: (size.height - scaled.height) / 2,
                                                                                   background: fit.background))
        }
    }

    private static func scale(_ size: PixelSize, by scale: Double) -> PixelSize {
        PixelSize(width: max(1, Int((Double(size.width) * scale).rounded())), height: max(1, Int((Double(size.height) * scale).rounded())))
    }

    /// Where `size` is cut from `scaled`: a gravity as libvips' `gravity` places it (centred on
    /// an axis it does not name), a focus point as near the middle as the edges allow.
    private static func crop(_ size: PixelSize, of scaled: PixelSize, at position: Fit.Position) -> Picture.Framing.Placement {
        let spare = (width: scaled.width - size.width, height: scaled.height - size.height)
        switch position {
        case .interesting(let interest):
            return .smartCrop(interest)
        case .focus(let x, let y):
            func offset(_ fraction: Double, _ whole: Int, _ part: Int, _ spare: Int) -> Int {
                min(spare, max(0, Int((fraction * Double(whole) - Double(part) / 2).rounded())))
            }
            return .crop(left: offset(x, scaled.width, size.width, spare.width), top: offset(y, scaled.height, size.height, spare.height))
        case .gravity(let gravity):
            // -1 the left or top edge, 1 the right or bottom, 0 the middle.
            let (across, down): (Int, Int)
            switch gravity {
            case .centre: (across, down) = (0, 0)
            case .north: (across, down) = (0, -1)
            case .northeast: (across, down) = (1, -1)
            case .east: (across, down) = (1, 0)
            case .southeast: (across, down) = (1, 1)
            case .south: (across, down) = (0, 1)
            case .southwest: (across, down) = (-1, 1)
            case .west: (across, down) = (-1, 0)
            case .northwest: (across, down) = (-1, -1)
            }
            func offset(_ edge: Int, _ spare: Int) -> Int { edge < 0 ? 0 : edge > 0 ? spare : spare / 2 }
            let (left, top) = (offset(across, spare.width), offset(down, spare.height))
            return .crop(left: left, top: top)
        }
    }
}
