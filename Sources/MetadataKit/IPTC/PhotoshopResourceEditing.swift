import DigestKit

extension CopyEditor {
    /// Photoshop image resources (with or without their `Photoshop 3.0` header), edited resource
    /// by resource: IPTC-IIM (0x0404), and the EXIF (0x0422) and XMP (0x0424) copies Photoshop
    /// keeps, each as its kind; the IIM digest (0x0425, its MD5) follows what IIM became; the others stay
    /// byte for byte unless the edit drops Photoshop resources altogether.
    ///
    /// `inPlace`: each resource keeps its length, edited data padded (see `InPlace`), so that the
    /// block does too; throws `InPlace.DoesNotFit` when a resource would have to go.
    /// Bare IIM (no resources around it) is edited as IIM.
    mutating func photoshop(_ block: [UInt8], place: String, inPlace: Bool = false) throws -> Outcome {
        if block.first == IPTCBlock.datasetTag { return iim(block, place: place) }
        let start = block.starts(with: IPTCBlock.photoshopHeader) ? IPTCBlock.photoshopHeader.count : 0
        guard let resources = try? IPTCBlock.resources(in: block, from: start).resources else {
            drop("IPTC in \(place) (its image resources do not add up): unreadable, dropped")
            return .removed
        }
        let keepsOthers = keepsOtherResources(resources.filter { !Self.edited.contains($0.id) }, in: block)
        var outcomes: [Outcome] = resources.map { resource -> Outcome in
            let data = Array(block[resource.data])
            switch resource.id {
            case IPTCBlock.iimResourceID: return iim(data, place: place)
            case 0x0422: return exif(data, place: "\(place) resource 0x0422")
            case 0x0424: return xmp(data, place: "\(place) resource 0x0424")
            default: return keepsOthers ? .unchanged : .removed
            }
        }
        guard outcomes.contains(where: { $0 != .unchanged }) else { return .unchanged }
        if !keepsOthers { noteChange() }
        if inPlace { outcomes = try zip(resources, outcomes).map { try Self.padded($1, to: $0.data.count, id: $0.id) } }
        let iimOutcome = resources.firstIndex { $0.id == IPTCBlock.iimResourceID }.map { outcomes[$0] }
        for (index, resource) in resources.enumerated() where resource.id == IPTCBlock.iimDigestResourceID {
            switch iimOutcome {
            case .replaced(let data)?: outcomes[index] = .replaced(Digest.md5(data))
            case .removed?: outcomes[index] = .removed
            default: break
            }
        }
        let kept = zip(resources, outcomes).flatMap { Self.resource($0, in: block, as: $1) }
        return kept.isEmpty ? .removed : .replaced(Array(block[..<start]) + kept)
    }

    /// A resource's edited data in its own length.
    private static func padded(_ outcome: Outcome, to length: Int, id: UInt16) throws -> Outcome {
        switch outcome {
        case .unchanged: return outcome
        case .removed: throw InPlace.DoesNotFit()
        case .replaced(let data):
            guard let padded = InPlace.padded(data, to: length, as: id == 0x0424 ? .xmp : .iptc) else { throw InPlace.DoesNotFit() }
            return .replaced(padded)
        }
    }

    /// Resources edited as blocks of their own; the rest go through the edit as `photoshop`.
    private static let edited: Set<UInt16> = [IPTCBlock.iimResourceID, 0x0422, 0x0424]

    /// Whether the edit keeps Photoshop's other resources (a keep-list without `iptc` does not).
    private func keepsOtherResources(_ others: [IPTCBlock.Resource], in block: [UInt8]) -> Bool {
        guard !others.isEmpty else { return true }
        var blocks = MetadataBlocks(photoshop: others.flatMap { Array(block[$0.bytes]) })
        edit.apply(&blocks)
        return blocks.photoshop != nil
    }

    /// A resource as `outcome` leaves it: its own bytes, its header around new data, or nothing.
    private static func resource(_ resource: IPTCBlock.Resource, in block: [UInt8], as outcome: Outcome) -> [UInt8] {
        switch outcome {
        case .unchanged: return Array(block[resource.bytes])
        case .removed: return []
        case .replaced(let data):
            let header = Array(block[resource.bytes.lowerBound..<resource.data.lowerBound - 4])
            var bytes = header + [0, 0, 0, 0] + data
            bytes.setUInt32(UInt32(data.count), at: header.count)
            if data.count % 2 == 1 { bytes.append(0) }
            return bytes
        }
    }
}
