/// The parts of a `meta` box that carry tags: its handler, the `keys` list of an `mdta`
/// (QuickTime keyed) handler and the `ilst` items. Offsets are into the bytes it was read from.
struct QuickTimeMetaBox {
    /// Where children start: ISO/iTunes `meta` is a full box (4 bytes of version and flags
    /// first), QuickTime's is not.
    let childrenStart: Int
    let children: [ISOBox]
    let handler: String?
    let keys: ISOBox?
    /// The `keys` entries in order (entry `n` is key index `n + 1`); each is box-shaped, with the
    /// key namespace (`mdta`) as its type and the key name as its payload.
    let keyEntries: [ISOBox]
    let itemList: ISOBox?
    let items: [ISOBox]

    static let keyedHandler = "mdta"

    init(_ box: ISOBox, in bytes: [UInt8]) throws {
        // QuickTime's `meta` begins with its `hdlr` child at once; the full box puts 4 bytes first.
        childrenStart = bytes.fourCC(at: box.payloadStart + 4) == "hdlr" ? box.payloadStart : min(box.payloadStart + 4, box.end)
        children = try ISOBox.boxes(in: bytes, childrenStart..<box.end)
        if let hdlr = children.first(where: { $0.type == "hdlr" }), hdlr.payloadStart + 12 <= hdlr.end {
            handler = bytes.fourCC(at: hdlr.payloadStart + 8)
        } else {
            handler = nil
        }
        keys = children.first { $0.type == "keys" }
        if let keys {
            // version and flags, then a 32-bit entry count, then the entries
            guard let count = bytes.uint32(at: keys.payloadStart + 4), keys.payloadStart + 8 <= keys.end else {
                throw MovieFileError("'keys' box at offset \(keys.start) is cut off")
            }
            keyEntries = try ISOBox.boxes(in: bytes, keys.payloadStart + 8..<keys.end)
            guard keyEntries.count == Int(count) else {
                throw MovieFileError("'keys' box at offset \(keys.start) declares \(count) keys but holds \(keyEntries.count)")
            }
        } else {
            keyEntries = []
        }
        itemList = children.first { $0.type == "ilst" }
        items = try itemList.map { try ISOBox.boxes(in: bytes, $0.payloadStart..<$0.end) } ?? []
    }

    var isKeyed: Bool { handler == Self.keyedHandler }

    func keyNames(in bytes: [UInt8]) -> [String] {
        keyEntries.map { String(decoding: bytes[$0.payloadStart..<$0.end], as: UTF8.self) }
    }

    /// The key an `ilst` item of a keyed `meta` stands for: its type is a 1-based key index.
    static func keyIndex(of item: ISOBox, in bytes: [UInt8]) -> Int {
        Int(bytes.uint32(at: item.start + 4) ?? 0)
    }
}
