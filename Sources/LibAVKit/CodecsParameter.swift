import CLibAV
import Foundation

/// The RFC 6381 `codecs` parameter of a stream as written (`avc1.64001F`, `hvc1.2.4.L93.B0`,
/// `av01.0.05M.10`, `vp9`), read from its parameter sets, for `<source type="video/mp4;
/// codecs=…">`: a browser that cannot play one rendition skips to the next.
enum CodecsParameter {
    static func of(_ parameters: AVCodecParameters) -> String? {
        let extradata = parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) } ?? []
        switch parameters.codec_id {
        case AV_CODEC_ID_H264: return h264(extradata)
        case AV_CODEC_ID_HEVC: return hevc(extradata)
        case AV_CODEC_ID_AV1: return av1(extradata, tenBit: parameters.format == AV_PIX_FMT_YUV420P10LE.rawValue)
        case AV_CODEC_ID_VP9: return "vp9"
        default: return nil
        }
    }

    /// From `avcC` (profile, compatibility, level at bytes 1–3) or an Annex B SPS (the three bytes after its NAL header).
    static func h264(_ data: [UInt8]) -> String? {
        let fields: ArraySlice<UInt8>
        if data.first == 1, data.count >= 4 {
            fields = data[1..<4]
        } else if let sps = annexBUnit(data, where: { $0[0] & 0x1F == 7 }), sps.count >= 4 {
            fields = sps[1..<4]
        } else {
            return nil
        }
        return "avc1." + fields.map { String(format: "%02X", $0) }.joined()
    }

    /// From `hvcC` or an Annex B SPS: the general profile, tier and level (ISO/IEC 14496-15 E.3).
    static func hevc(_ data: [UInt8]) -> String? {
        let tierLevel: [UInt8]
        if data.first == 1, data.count >= 13 {
            tierLevel = Array(data[1..<13])
        } else if let sps = annexBUnit(data, where: { ($0[0] >> 1) & 0x3F == 33 }).map(withoutEmulationPrevention), sps.count >= 15 {
            tierLevel = Array(sps[3..<15]) // after the 2-byte NAL header and the byte of VPS id and sub-layers
        } else {
            return nil
        }
        let space = ["", "A", "B", "C"][Int(tierLevel[0] >> 6)], tier = tierLevel[0] & 0x20 != 0 ? "H" : "L"
        let compatibility = tierLevel[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var constraints = Array(tierLevel[5..<11])
        while constraints.last == 0 { constraints.removeLast() }
        return "hvc1.\(space)\(tierLevel[0] & 0x1F).\(String(reversing: compatibility, radix: 16)).\(tier)\(tierLevel[11])"
            + constraints.map { "." + String($0, radix: 16, uppercase: true) }.joined()
    }

    /// From `av1C` (profile, level, tier) or a sequence header OBU without timing information.
    static func av1(_ data: [UInt8], tenBit: Bool) -> String? {
        var profile = 0, level = 0, tier = 0
        if data.count >= 4, data[0] == 0x81 {
            (profile, level, tier) = (Int(data[1] >> 5), Int(data[1] & 0x1F), Int(data[2] >> 7))
        } else if let header = sequenceHeader(data) {
            var bits = BitReader(header)
            profile = bits.read(3)
            _ = bits.read(1)
            if bits.read(1) == 1 {
                level = bits.read(5)
            } else {
                guard bits.read(1) == 0 else { return nil } // timing information: not read here
                _ = bits.read(1)
                _ = bits.read(5)
                _ = bits.read(12)
                level = bits.read(5)
                tier = level > 7 ? bits.read(1) : 0
            }
        } else {
            return nil
        }
        return String(format: "av01.%d.%02d%@.%02d", profile, level, tier == 1 ? "H" : "M", tenBit ? 10 : 8)
    }

    /// The first Annex B NAL unit (after a start code) that `matches` its header.
    private static func annexBUnit(_ data: [UInt8], where matches: (ArraySlice<UInt8>) -> Bool) -> ArraySlice<UInt8>? {
        var starts: [Int] = []
        var index = 0
        while index + 3 <= data.count {
            if data[index] == 0, data[index + 1] == 0, data[index + 2] == 1 { starts.append(index + 3); index += 3 } else { index += 1 }
        }
        for (position, start) in starts.enumerated() where start < data.count {
            let end = position + 1 < starts.count ? starts[position + 1] - 3 : data.count
            let unit = data[start..<max(start, end)]
            if !unit.isEmpty, matches(unit) { return unit }
        }
        return nil
    }

    private static func withoutEmulationPrevention(_ unit: ArraySlice<UInt8>) -> [UInt8] {
        var bytes: [UInt8] = []
        for byte in unit {
            if byte == 3, bytes.count >= 2, bytes[bytes.count - 1] == 0, bytes[bytes.count - 2] == 0 { continue }
            bytes.append(byte)
        }
        return bytes
    }

    /// The payload of the first sequence header OBU (type 1) in a run of OBUs with sizes.
    private static func sequenceHeader(_ data: [UInt8]) -> [UInt8]? {
        var offset = 0
        while offset < data.count {
            let header = data[offset], type = (header >> 3) & 0xF, extended = header & 0x4 != 0
            guard header & 0x2 != 0 else { return nil } // without a size field, nothing to walk
            offset += extended ? 2 : 1
            var size = 0, shift = 0
            while offset < data.count {
                let byte = data[offset]
                offset += 1
                size |= Int(byte & 0x7F) << shift
                shift += 7
                if byte & 0x80 == 0 { break }
            }
            guard offset + size <= data.count else { return nil }
            if type == 1 { return Array(data[offset..<offset + size]) }
            offset += size
        }
        return nil
    }
}

private struct BitReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            let byte = position / 8 < bytes.count ? bytes[position / 8] : 0
            value = value << 1 | Int(byte >> (7 - position % 8) & 1)
            position += 1
        }
        return value
    }
}

private extension String {
    /// The hex of `value` with its bits in reverse order, as RFC 6381 writes HEVC's compatibility flags.
    init(reversing value: UInt32, radix: Int) {
        var reversed: UInt32 = 0
        for bit in 0..<32 where value & (1 << bit) != 0 { reversed |= 1 << (31 - bit) }
        self = String(reversed, radix: radix, uppercase: true)
    }
}
