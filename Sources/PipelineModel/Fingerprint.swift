import Foundation
import MediaFormats

/// Canonical text of the typed pipeline: the same options give the same text whatever the
/// file's whitespace, key order or spelled-out defaults. The state database hashes it to tell
/// which items a pipeline change affects.
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

extension Stage {
    public var fingerprint: String {
        switch self {
        case .filter(let filter): return "filter(\(filter.match.fingerprint),livePhotoVideo=\(filter.livePhotoVideo.rawValue))"
        case .decode(let options):
            // raw at its default: the text from before the option.
            return "decode(animated=\(options.animated)\(options.raw == Defaults.rawSource ? "" : ",raw=\(options.raw.rawValue)"))"
        case .poster(let poster):
            // movie at its default: the text from before the option.
            return "poster(at=\(poster.at.fingerprint)\(poster.movie == Defaults.posterMovie ? "" : ",movie=\(poster.movie.rawValue)"))"
        case .video(let video):
            return "video(\(video.renditions.map(\.fingerprint).joined(separator: ";")),maxPixelSize=\(video.maxPixelSize.map(String.init) ?? "*"),"
                + "maxFps=\(video.maxFps),reencode=\(video.reencode.rawValue))"
        case .downsample(let options):
            // A square box fitted inside is maxPixelSize's: the same text as before the other fits.
            if let side = options.box.width, options.box.height == side, options.fit == Fit() { return "downsample(\(side))" }
            return "downsample(width=\(options.box.width.map(String.init) ?? "*"),height=\(options.box.height.map(String.init) ?? "*")"
                + "\(options.fit.fingerprint))"
        case .transcode(let options):
            let from = options.from.map { $0.map(\.rawValue).sorted().joined(separator: ",") } ?? "*"
            let effort = options.effort.map { ",effort=\($0)" } ?? ""
            return "transcode(\(from)->\(options.to.rawValue),q=\(options.quality)\(effort)\(options.hdr.fingerprint))"
        case .variants(let variants):
            func listed(_ values: [MediaFormat: Int]) -> String {
                values.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue):\($0.value)" }.joined(separator: ",")
            }
            return "variants(sizes=\(variants.sizes.map(\.text).joined(separator: ",")),"
                + "formats=\(variants.formats.map(\.rawValue).joined(separator: ",")),quality=\(listed(variants.quality)),"
                + "effort=\(listed(variants.effort)),placeholder=\(variants.placeholder?.rawValue ?? "none")\(variants.hdr.fingerprint)"
                + "\(variants.fit.fingerprint))"
        case .stripMetadata(.remove(let groups)): return "stripMetadata(\(groups.map(\.rawValue).sorted().joined(separator: ",")))"
        case .stripMetadata(.keep(let kept)): return "stripMetadata(keep:\(kept.map(\.rawValue).sorted().joined(separator: ",")))"
        case .write(let options):
            // The poster's path only where it is not the default, so pipelines written before posters keep their fingerprints.
            let poster = options.posterPath.text == Defaults.posterPath ? "" : ",posterPath=\(options.posterPath.text)"
            return "write(\(options.path.text)\(poster))"
        }
    }
}

extension Stage.Rendition {
    /// One rendition's settings: what its output depends on besides the stage's size and rate.
    public var fingerprint: String { "\(codec.rawValue),q=\(quality),audio=\(audio.rawValue),hdr=\(hdr.rawValue)" }
}

extension Stage.PosterTime {
    public var fingerprint: String {
        switch self {
        case .auto: return "auto"
        case .seconds(let seconds): return "\(seconds)s"
        case .percent(let percent): return "\(percent)%"
        }
    }
}

extension Stage.HDR {
    /// Empty for the default, so pipelines written before the option keep their fingerprints.
    var fingerprint: String { self == Defaults.hdr ? "" : ",hdr=\(rawValue)" }
}

extension Fit {
    /// Empty for the default (`inside`), so pipelines written before fits keep their fingerprints.
    var fingerprint: String {
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
