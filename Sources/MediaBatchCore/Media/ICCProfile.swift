/// Reads the description of an ICC profile, to skip converting images that are already sRGB:
/// an sRGB → sRGB transform costs a share of a photo's time and changes nothing.
enum ICCProfile {
    /// The profile's `desc` tag: ICC v2 `desc` (ASCII) or v4 `mluc` (first UTF-16BE record).
    static func description(_ profile: [UInt8]) -> String? {
        func uint32(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 4 <= profile.count else { return nil }
            return profile[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        guard let tagCount = uint32(128), tagCount < 1000 else { return nil }
        for index in 0..<tagCount {
            let entry = 132 + index * 12
            guard let signature = uint32(entry), let offset = uint32(entry + 4), let size = uint32(entry + 8) else { return nil }
            guard signature == 0x6465_7363 /* desc */, offset + size <= profile.count, size >= 12 else { continue }
            let type = uint32(offset)
            if type == 0x6465_7363, let length = uint32(offset + 8), length > 0, offset + 12 + length <= profile.count {
                return String(decoding: profile[(offset + 12)..<(offset + 12 + length)].prefix { $0 != 0 }, as: UTF8.self)
            }
            if type == 0x6D6C_7563 /* mluc */, let recordLength = uint32(offset + 20), let recordOffset = uint32(offset + 24),
               offset + recordOffset + recordLength <= profile.count {
                let bytes = Array(profile[(offset + recordOffset)..<(offset + recordOffset + recordLength)])
                let units = stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
                return String(decoding: units, as: UTF16.self)
            }
        }
        return nil
    }

    static func isSRGB(_ profile: [UInt8]) -> Bool {
        description(profile)?.hasPrefix("sRGB") ?? false
    }
}
