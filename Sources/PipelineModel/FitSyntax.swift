import Foundation

/// How pipeline files write a fit's values (`FitKeys`) and a `variants` size.
extension ValueSyntax where Value == Fit.Position {
    public static let position: ValueSyntax = {
        let names = Fit.Gravity.allCases.map { ($0.rawValue, Fit.Position.gravity($0)) }
            + Fit.Interest.allCases.map { ($0.rawValue, Fit.Position.interesting($0)) }
        let expected = "a position (one of \(names.map(\.0).joined(separator: ", ")), or {\"focus\": [x, y]})"
        let fraction: JSONValue = ["type": "number", "minimum": 0, "maximum": 1]
        let focus = objectSchema([DescribedKey(name: "focus", required: true,
                                               schema: ["type": "array", "items": fraction, "minItems": 2, "maxItems": 2])])
        return ValueSyntax(schema: ["anyOf": [["type": "string", "enum": .array(names.map { .string($0.0) })], focus]], read: { reader in
            if case .string(let text) = reader.value, let named = names.first(where: { $0.0 == text }) { return named.1 }
            guard case .object = reader.value else { throw reader.expected(expected) }
            let object = try reader.object()
            let point = try object.required("focus")
            let items = try point.array()
            guard items.count == 2 else { throw point.expected("[x, y]: fractions of the image's width and height, from 0 to 1") }
            let (x, y) = (try items[0].fraction(), try items[1].fraction())
            try object.finish()
            return .focus(x: x, y: y)
        }, json: { position in
            guard case .gravity(let gravity) = position else { return .null }
            return .string(gravity.rawValue)
        })
    }()
}

extension ValueSyntax where Value == Fit.Background {
    public static let background: ValueSyntax = {
        let channel = ValueSyntax<Int>.integer(in: 0...255)
        let hex = "^#[0-9a-fA-F]{6}$"
        let expected = "a colour: [r, g, b], [r, g, b, a] (0 to 255) or \"#rrggbb\""
        return ValueSyntax(schema: ["anyOf": [["type": "array", "items": channel.schema, "minItems": 3, "maxItems": 4],
                                              ["type": "string", "pattern": .string(hex)]]], read: { reader in
            switch reader.value {
            case .array:
                let items = try reader.array()
                guard (3...4).contains(items.count) else { throw reader.expected(expected) }
                let values = try items.map(channel.read)
                return Fit.Background(red: values[0], green: values[1], blue: values[2], alpha: values.count == 4 ? values[3] : 255)
            case .string(let text):
                guard text.range(of: hex, options: .regularExpression) != nil, let rgb = Int(text.dropFirst(), radix: 16) else {
                    throw reader.expected(expected)
                }
                return Fit.Background(red: rgb >> 16, green: rgb >> 8 & 0xFF, blue: rgb & 0xFF)
            default: throw reader.expected(expected)
            }
        }, json: nil)
    }()
}

extension ValueSyntax where Value == VariantSize {
    /// `1280`, or `{"width": 1200, "height": 630}`.
    public static let variantSize: ValueSyntax = {
        let side = ValueSyntax<Int>.positiveInteger
        let box = objectSchema([DescribedKey(name: "width", required: true, schema: side.schema),
                                DescribedKey(name: "height", required: true, schema: side.schema)])
        return ValueSyntax(schema: ["anyOf": [side.schema, box]], read: { reader in
            guard case .object = reader.value else {
                guard case .number = reader.value else { throw reader.expected("a positive integer or {\"width\": W, \"height\": H}") }
                return .longestSide(try side.read(reader))
            }
            let object = try reader.object()
            let size = VariantSize.box(width: try side.read(object.required("width")), height: try side.read(object.required("height")))
            try object.finish()
            return size
        }, json: nil)
    }()
}

extension JSONReader {
    /// A number from 0 to 1.
    func fraction() throws -> Double {
        guard case .number(let number) = value, (0...1).contains(number) else { throw expected("a number from 0 to 1") }
        return number
    }
}

extension ObjectReader {
    /// `fit`, with `position` for `cover` only and `background` for `contain` only.
    public func fit() throws -> Fit {
        let mode = try value(FitKeys.fit)
        let position = optional(FitKeys.position.name), background = optional(FitKeys.background.name)
        if let position, mode != .cover {
            throw position.fail("position applies to fit \"cover\" only (fit is \"\(mode.rawValue)\")")
        }
        if let background, mode != .contain {
            throw background.fail("background applies to fit \"contain\" only (fit is \"\(mode.rawValue)\")")
        }
        return Fit(mode: mode, position: try position.map(FitKeys.position.syntax.read) ?? Defaults.position,
                   background: try background.map(FitKeys.background.syntax.read))
    }
}

extension Fit {
    /// The fit in words, for `validate`: `cover: cut to the box at centre`, `contain: padded…`.
    public var explanation: String {
        switch mode {
        case .inside: return "inside: aspect ratio kept"
        case .outside: return "outside: aspect ratio kept, covering the box"
        case .fill: return "fill: stretched to the box"
        case .cover:
            switch position {
            case .gravity(let gravity): return "cover: cut to the box at \(gravity.rawValue)"
            case .interesting(let interest): return "cover: cut to the box where libvips' smartcrop finds \(interest.rawValue)"
            case .focus(let x, let y): return "cover: cut to the box around the focus \(x), \(y)"
            }
        case .contain:
            let on = background.map { "rgba \($0.red), \($0.green), \($0.blue), \($0.alpha)" } ?? "white, or transparent where the format has alpha"
            return "contain: padded to the box with \(on)"
        }
    }
}

/// How `downsample` and `variants` fit pictures to their boxes, as sharp's `fit`.
public enum FitKeys {
    public static let fit = Key("fit", ValueSyntax<Fit.Mode>.choice("a fit"), .value(Defaults.fit),
                         "inside: within the box; cover: filling it, cut at position; contain: within it, padded with background; "
                         + "fill: stretched to it; outside: covering it, nothing cut. Aspect ratio kept but by fill; never upscaled "
                         + "(a box larger than the image shrinks, keeping its own aspect ratio).")
    public static let position = Key("position", .position, .value(Defaults.position),
                              "With fit cover, the part kept: centre, a compass point (north, northeast, …, northwest), "
                              + "entropy or attention (libvips' smartcrop), or {\"focus\": [x, y]} (fractions of the upright image).")
    public static let background = Key("background", .background, .noDefault,
                                "With fit contain, the padding: [r, g, b], [r, g, b, a] (0–255) or \"#rrggbb\"; by default white, "
                                + "or transparent where the output format has alpha.")

    public static var described: [DescribedKey] { [fit.described, position.described, background.described] }

    /// position with cover only, background with contain only.
    public static let rules: [String: JSONValue] = {
        func only(_ key: String, with mode: Fit.Mode) -> JSONValue {
            let fitIs: JSONValue = ["required": [.string(fit.name)], "properties": .object([fit.name: ["const": .string(mode.rawValue)]])]
            return ["if": ["not": fitIs], "then": ["not": ["required": [.string(key)]]]]
        }
        return ["allOf": [only(position.name, with: .cover), only(background.name, with: .contain)]]
    }()
}
