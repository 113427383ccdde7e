import Foundation
import MediaFormats

/// Canonical text of the values stages share (see `Stage.fingerprint`): the same options give the
/// same text whatever the file's whitespace, key order or spelled-out defaults.
extension MediaMatch {
    public var fingerprint: String {
        switch self {
        case .kind(let kind): return "kind(\(kind.rawValue))"
        case .format(let formats): return "format(\(formats.map(\.rawValue).sorted().joined(separator: ",")))"
        case .hasLocation(let value): return "hasLocation(\(value))"
        case .hasGainMap(let value): return "hasGainMap(\(value))"
        case .minPixels(let value): return "minPixels(\(value))"
        case .maxPixels(let value): return "maxPixels(\(value))"
        case .capturedAfter(let date): return "capturedAfter(\(Int64(date.timeIntervalSince1970)))"
        case .capturedBefore(let date): return "capturedBefore(\(Int64(date.timeIntervalSince1970)))"
        case .camera(let glob): return "camera(\(glob.pattern))"
        case .name(let glob): return "name(\(glob.pattern))"
        case .any(let matches): return "any(\(matches.map(\.fingerprint).joined(separator: ",")))"
        case .all(let matches): return "all(\(matches.map(\.fingerprint).joined(separator: ",")))"
        case .not(let match): return "not(\(match.fingerprint))"
        }
    }
}

extension Fit {
    /// Empty for the default (`inside`), so pipelines that name no fit keep the fingerprint their
    /// items were recorded with (the state database redoes an item when it changes).
    public var fingerprint: String {
        switch mode {
        case .inside: return ""
        case .outside, .fill: return ",fit=\(mode.rawValue)"
        case .cover: return ",fit=cover,position=\(position.fingerprint)"
        case .contain:
            return ",fit=contain,background=" + (background.map { "\($0.red).\($0.green).\($0.blue).\($0.alpha)" } ?? "default")
        }
    }
}

extension Fit.Position {
    var fingerprint: String {
        switch self {
        case .gravity(let gravity): return gravity.rawValue
        case .interesting(let interest): return interest.rawValue
        case .focus(let x, let y): return "focus(\(x),\(y))"
        }
    }
}
