import Foundation

/// Files built to attack a decoder's limits: headers that promise more than any machine has,
/// animations with absurd frame counts. Each is small on disk.
public enum HostileFiles {
    /// A PNG whose IHDR claims `width` × `height` RGB pixels (valid CRC), with one tiny IDAT.
    public static func pngHeaderBomb(width: UInt32, height: UInt32) -> Data {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0])
        png += chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) // an empty zlib stream
        png += chunk("IEND", [])
        return Data(png)
    }

    /// A real JPEG with its frame header (SOF0/SOF2) patched to claim `width` × `height`.
    public static func jpegClaiming(width: UInt16, height: UInt16, from jpeg: Data) -> Data? {
        var bytes = [UInt8](jpeg)
        var offset = 2
        while offset + 9 < bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if marker == 0xC0 || marker == 0xC2 {
                bytes[offset + 5] = UInt8(height >> 8)
                bytes[offset + 6] = UInt8(height & 0xFF)
                bytes[offset + 7] = UInt8(width >> 8)
                bytes[offset + 8] = UInt8(width & 0xFF)
                return Data(bytes)
            }
            offset += 2 + length
        }
        return nil
    }

    /// `bytes` damaged one of four ways real files are, by `kind` (0–3): cut short at a random
    /// place; 64 bytes flipped after the first quarter (coded pixels); 8 flipped in the first `head`
    /// bytes (headers, directories, boxes); `head` bytes zeroed from a random place.
    public static func damaged(_ bytes: [UInt8], kind: Int, head: Int, using random: inout SplitMix) -> [UInt8] {
        var bytes = bytes
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch kind % 4 {
        case 0: bytes = Array(bytes.prefix(max(16, at)))
        case 1: for _ in 0..<64 { bytes[Int.random(in: bytes.count / 4..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
        case 2: for _ in 0..<8 { bytes[Int.random(in: 0..<min(bytes.count, head), using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
        default: for offset in at..<min(bytes.count, at + head) { bytes[offset] = 0 }
        }
        return bytes
    }

    /// A 1 × 1 GIF animation of `frames` frames.
    public static func gifAnimation(frames: Int) -> Data {
        var gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 0xFF, 0xFF, 0xFF] // 2-colour table
        gif += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0] // loop forever
        for _ in 0..<frames {
            gif += [0x21, 0xF9, 4, 0, 1, 0, 0, 0] // 10 ms delay
            gif += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0] // one pixel of colour 0
        }
        return Data(gif + [0x3B])
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    /// PNG's CRC-32 (ISO 3309), bit by bit: a few hundred bytes, so speed does not matter.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }
}
