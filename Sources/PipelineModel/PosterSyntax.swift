import Foundation

extension ValueSyntax where Value == Stage.PosterTime {
    /// `poster.at`: "auto", seconds (a number, 0 or more) or "N%" (0–100).
    static let posterTime: ValueSyntax = {
        let expected = "\"auto\", seconds from the start (a number, 0 or more) or a percent of the duration (\"N%\", 0–100)"
        let percent: JSONValue = ["type": "string", "pattern": "^(100(\\.0+)?|[0-9]{1,2}(\\.[0-9]+)?)%$"]
        let schema: JSONValue = ["anyOf": [["const": "auto"], ["type": "number", "minimum": 0], percent]]
        return ValueSyntax(schema: schema, read: { reader in
            switch reader.value {
            case .string("auto"): return .auto
            case .number(let seconds) where seconds >= 0 && seconds.isFinite: return .seconds(seconds)
            case .string(let text) where text.hasSuffix("%"):
                guard let value = Double(text.dropLast()), (0...100).contains(value), text.dropLast().allSatisfy({ $0.isNumber || $0 == "." })
                else { throw reader.expected(expected) }
                return .percent(value)
            default: throw reader.expected(expected)
            }
        }, json: { time in
            switch time {
            case .auto: return .string("auto")
            case .seconds(let seconds): return .number(seconds)
            case .percent(let percent): return .string("\(percent)%")
            }
        })
    }()
}
