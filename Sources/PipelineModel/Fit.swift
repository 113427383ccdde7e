/// How a picture is fitted to a box, as sharp's `fit` says: `downsample`'s options and every
/// `variants` size. Nothing is ever upscaled: a box larger than the picture allows shrinks,
/// keeping its own aspect ratio, until the picture fills it at its own scale.
public struct Fit: Hashable, Sendable {
    public var mode: Mode = Defaults.fit
    /// Which part `cover` keeps.
    public var position: Position = Defaults.position
    /// What `contain` pads with; nil: white, or transparent where the output format has alpha.
    public var background: Background? = nil

    public init(mode: Mode = Defaults.fit, position: Position = Defaults.position, background: Background? = nil) {
        self.mode = mode
        self.position = position
        self.background = background
    }

    /// Whether every picture fitted to `box` is at most `side` pixels a side: both sides given and
    /// within it, and not `outside`, which overflows its box.
    public func keeps(_ box: Box, within side: Int) -> Bool {
        mode != .outside && [box.width, box.height].allSatisfy { $0.map { $0 <= side } ?? false }
    }

    public enum Mode: String, CaseIterable, Codable, Sendable {
        /// Within the box, aspect ratio kept (what `maxPixelSize` does).
        case inside
        /// Fills the box, aspect ratio kept, what overflows cut off at `position`.
        case cover
        /// Within the box, aspect ratio kept, padded to the box with `background`.
        case contain
        /// Exactly the box, the aspect ratio ignored.
        case fill
        /// At least the box, aspect ratio kept (one side fits, the other overflows).
        case outside
    }

    /// Where `cover` cuts: a compass gravity, what libvips' smartcrop finds interesting, or the
    /// region centred as near as it can be on a point of the upright picture.
    public enum Position: Hashable, Codable, Sendable {
        case gravity(Gravity)
        case interesting(Interest)
        /// Fractions of the upright picture's width and height, 0...1.
        case focus(x: Double, y: Double)
    }

    public enum Gravity: String, CaseIterable, Codable, Sendable {
        case centre, north, northeast, east, southeast, south, southwest, west, northwest
    }

    /// libvips' smartcrop strategies.
    public enum Interest: String, CaseIterable, Codable, Sendable {
        /// The region with the most information (Shannon entropy).
        case entropy
        /// The region a viewer looks at first: skin tones, saturated colour, edges.
        case attention
    }

    /// 8-bit sRGB, alpha 255 when opaque.
    public struct Background: Hashable, Codable, Sendable {
        public let red, green, blue, alpha: Int

        public init(red: Int, green: Int, blue: Int, alpha: Int = 255) {
            (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
        }

        public static let white = Background(red: 255, green: 255, blue: 255)
        /// White with nothing of it showing: what a format with alpha pads with by default.
        public static let transparent = Background(red: 255, green: 255, blue: 255, alpha: 0)
    }
}

/// A box: either side, or both (`downsample`'s `width` and `height`; `maxPixelSize` is a square).
public struct Box: Hashable, Codable, Sendable {
    public let width: Int?
    public let height: Int?

    public init(width: Int?, height: Int?) {
        precondition(width != nil || height != nil, "a box has a side")
        self.width = width
        self.height = height
    }
}

/// One `variants` size as the pipeline lists it: a number (the box N × N: with `inside`, the
/// longest side) or a box.
public enum VariantSize: Hashable, Sendable {
    case longestSide(Int)
    case box(width: Int, height: Int)

    public var box: Box {
        switch self {
        case .longestSide(let side): return Box(width: side, height: side)
        case .box(let width, let height): return Box(width: width, height: height)
        }
    }

    /// `{size}` in a path: `1280`, or `1200x630`.
    public var text: String {
        switch self {
        case .longestSide(let side): return String(side)
        case .box(let width, let height): return "\(width)x\(height)"
        }
    }

    /// Which of two sizes that give the same output names it: the smaller box.
    public var area: Int { (box.width ?? 0) * (box.height ?? 0) }
}

/// As written: a number, or `{"width": W, "height": H}` (the manifest gives it back so).
extension VariantSize: Codable {
    private enum Keys: String, CodingKey { case width, height }

    public init(from decoder: Decoder) throws {
        if let side = try? decoder.singleValueContainer().decode(Int.self) {
            self = .longestSide(side)
            return
        }
        let box = try decoder.container(keyedBy: Keys.self)
        self = .box(width: try box.decode(Int.self, forKey: .width), height: try box.decode(Int.self, forKey: .height))
    }

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .longestSide(let side):
            var single = encoder.singleValueContainer()
            try single.encode(side)
        case .box(let width, let height):
            var box = encoder.container(keyedBy: Keys.self)
            try box.encode(width, forKey: .width)
            try box.encode(height, forKey: .height)
        }
    }
}

/// `1280` is the number size 1280, as a pipeline writes it.
extension VariantSize: ExpressibleByIntegerLiteral {
    public init(integerLiteral side: Int) {
        self = .longestSide(side)
    }
}
