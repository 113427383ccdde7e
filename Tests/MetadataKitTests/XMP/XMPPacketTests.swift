@testable import MetadataKit
import TestSupport
import XCTest

final class XMPPacketTests: XCTestCase {
    private func packet(_ body: String, wrapped: Bool = true) -> [UInt8] {
        let rdf = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        \(body)
         </rdf:RDF>
        </x:xmpmeta>
        """
        guard wrapped else { return Array(rdf.utf8) }
        return Array("<?xpacket begin=\"\u{FEFF}\" id=\"custom-id\"?>\n\(rdf)\n\(String(repeating: " ", count: 64))\n<?xpacket end=\"r\"?>".utf8)
    }

    private func text(_ removal: MetadataRemoval?) -> String {
        String(decoding: removal?.bytes ?? [], as: UTF8.self)
    }

    func testRemovesAttributeFormPropertiesByNamespaceNotPrefix() throws {
        let removal = try XMPPacket.removingLocation(from: packet("""
          <rdf:Description rdf:about="" xmlns:ns1="http://ns.adobe.com/exif/1.0/" xmlns:ps="http://ns.adobe.com/photoshop/1.0/"
            xmlns:other="http://example.com/other/"
            ns1:GPSLatitude="48,53.3N" ns1:GPSLongitude="21,2.5E" ns1:ExposureTime="1/125"
            ps:City="Mainz" ps:Headline="Kyra" other:City="not a photo location"/>
        """))
        XCTAssertEqual(removal?.removed, ["exif:GPSLatitude", "exif:GPSLongitude", "photoshop:City"])
        let output = text(removal)
        for gone in ["GPSLatitude", "GPSLongitude", "Mainz"] { XCTAssertFalse(output.contains(gone), gone) }
        for kept in ["ns1:ExposureTime=\"1/125\"", "ps:Headline=\"Kyra\"", "other:City=\"not a photo location\""] {
            XCTAssertTrue(output.contains(kept), kept)
        }
    }

    /// Found by the corpus run (exiftool's own XMP.jpg): FoundationXML crashed on the old
    /// unprefixed `about` attribute.
    func testUnprefixedNodesAreKeptWithoutCrashing() throws {
        let removal = try XMPPacket.removingLocation(from: packet("""
          <rdf:Description about="uuid:1" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/">
            <photoshop:City>Kingston</photoshop:City><plain>kept</plain></rdf:Description>
        """))
        XCTAssertEqual(removal?.removed, ["photoshop:City"])
        XCTAssertTrue(text(removal).contains("about=\"uuid:1\""))
        XCTAssertTrue(text(removal).contains("<plain>kept</plain>"))
    }

    func testRemovesElementFormPropertiesAndKeepsArrays() throws {
        let removal = try XMPPacket.removingLocation(from: packet("""
          <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/"
            xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
            xmlns:Iptc4xmpCore="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/">
           <exif:GPSAltitude>324145/1000</exif:GPSAltitude>
           <photoshop:Country>Deutschland</photoshop:Country>
           <Iptc4xmpCore:CountryCode>DE</Iptc4xmpCore:CountryCode>
           <Iptc4xmpCore:CreatorContactInfo rdf:parseType="Resource">
            <Iptc4xmpCore:CiAdrCity>Creator's city</Iptc4xmpCore:CiAdrCity>
           </Iptc4xmpCore:CreatorContactInfo>
           <dc:subject><rdf:Bag><rdf:li>kyra</rdf:li><rdf:li>studio</rdf:li></rdf:Bag></dc:subject>
           <dc:rights><rdf:Alt><rdf:li xml:lang="x-default">© Peter</rdf:li></rdf:Alt></dc:rights>
          </rdf:Description>
        """))
        XCTAssertEqual(removal?.removed, ["exif:GPSAltitude", "photoshop:Country", "Iptc4xmpCore:CountryCode"])
        let output = text(removal)
        for gone in ["324145", "Deutschland", ">DE<"] { XCTAssertFalse(output.contains(gone), gone) }
        for kept in ["Creator's city", "<rdf:li>kyra</rdf:li><rdf:li>studio</rdf:li>", "xml:lang=\"x-default\">© Peter<"] {
            XCTAssertTrue(output.contains(kept), kept)
        }
        XCTAssertFalse(output.contains("\n\n"), "a removed property leaves no blank line")
    }

    func testRemovesLocationStructuresWholeAndReadsTheirFields() throws {
        let xmp = packet("""
          <rdf:Description rdf:about="" xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/">
           <Iptc4xmpExt:LocationCreated>
            <rdf:Bag>
             <rdf:li rdf:parseType="Resource">
              <Iptc4xmpExt:City>Mainz</Iptc4xmpExt:City>
              <Iptc4xmpExt:CountryCode>DE</Iptc4xmpExt:CountryCode>
             </rdf:li>
            </rdf:Bag>
           </Iptc4xmpExt:LocationCreated>
           <Iptc4xmpExt:LocationShown>
            <rdf:Bag><rdf:li><rdf:Description Iptc4xmpExt:City="Wiesbaden"/></rdf:li></rdf:Bag>
           </Iptc4xmpExt:LocationShown>
           <Iptc4xmpExt:Event>Fair</Iptc4xmpExt:Event>
          </rdf:Description>
        """)
        XCTAssertEqual(try XMPPacket.locationValues(in: xmp), [
            "Iptc4xmpExt:LocationCreated": "Mainz; DE", "Iptc4xmpExt:LocationShown": "Wiesbaden",
        ])
        let removal = try XMPPacket.removingLocation(from: xmp)
        XCTAssertEqual(removal?.removed, ["Iptc4xmpExt:LocationCreated", "Iptc4xmpExt:LocationShown"])
        let output = text(removal)
        for gone in ["Mainz", "Wiesbaden", "Location"] { XCTAssertFalse(output.contains(gone), gone) }
        XCTAssertTrue(output.contains("<Iptc4xmpExt:Event>Fair</Iptc4xmpExt:Event>"))
    }

    /// exiftool files a DJI drone's position, attitude, speed and RTK accuracy under Location, and
    /// the properties it does not define (a rangefinder's target among them); its calibration,
    /// which photogrammetry needs, under Image: that stays, matched by exact name.
    func testRemovesTheDroneTelemetryAndKeepsItsCalibration() throws {
        let removal = try XMPPacket.removingLocation(from: packet("""
          <rdf:Description rdf:about="" xmlns:drone-dji="http://www.dji.com/drone-dji/1.0/"
            drone-dji:GpsLatitude="22.5" drone-dji:GpsLongitude="113.9" drone-dji:AbsoluteAltitude="+96.1"
            drone-dji:RelativeAltitude="+30.0" drone-dji:FlightYawDegree="-12.3" drone-dji:CalibratedFocalLength="2953.4"
            drone-dji:CalibratedOpticalCenterX="2736.0" drone-dji:CalibratedOpticalCenterY="1824.0" drone-dji:DewarpFlag="0"
            drone-dji:DewarpData="2022-06-08;3678.0,3678.0" drone-dji:SelfData="Undefined" drone-dji:LRFTargetLat="22.51"
            drone-dji:calibratedFocalLength="1"/>
        """))
        XCTAssertEqual(removal?.removed, ["drone-dji:GpsLatitude", "drone-dji:GpsLongitude", "drone-dji:AbsoluteAltitude",
                                          "drone-dji:RelativeAltitude", "drone-dji:FlightYawDegree", "drone-dji:LRFTargetLat",
                                          "drone-dji:calibratedFocalLength"])
        for kept in ["CalibratedFocalLength=\"2953.4\"", "CalibratedOpticalCenterX=\"2736.0\"", "CalibratedOpticalCenterY=\"1824.0\"",
                     "DewarpFlag=\"0\"", "DewarpData=\"2022-06-08;3678.0,3678.0\"", "SelfData=\"Undefined\""] {
            XCTAssertTrue(text(removal).contains("drone-dji:\(kept)"), kept)
        }
    }

    func testKeepingOnlyNamedPropertiesLeavesTheirFieldsWhole() throws {
        let source = packet("""
          <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:Iptc4xmpCore="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/" xmp:Rating="4" xmp:CreateDate="2024-01-02">
           <dc:rights><rdf:Alt><rdf:li xml:lang="x-default">(c) Kyra</rdf:li></rdf:Alt></dc:rights>
           <dc:subject><rdf:Bag><rdf:li>harbour</rdf:li></rdf:Bag></dc:subject>
           <Iptc4xmpCore:CreatorContactInfo rdf:parseType="Resource"><Iptc4xmpCore:CiAdrCity>Mainz</Iptc4xmpCore:CiAdrCity>
           </Iptc4xmpCore:CreatorContactInfo>
          </rdf:Description>
        """)
        let kept: Set = [XMPPacket.PropertyName("http://purl.org/dc/elements/1.1/", "rights"),
                         XMPPacket.PropertyName("http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/", "CreatorContactInfo")]
        let removal = try XCTUnwrap(XMPPacket.keepingOnly(kept, from: source))
        XCTAssertEqual(removal.removed, ["xmp:Rating", "xmp:CreateDate", "dc:subject"])
        let names = try XMPPacket.properties(in: removal.bytes).map(\.name)
        XCTAssertEqual(Set(names), ["rights", "CreatorContactInfo", "CiAdrCity"], "a kept structure keeps its fields")
        XCTAssertNil(try XMPPacket.keepingOnly(kept, from: removal.bytes), "nothing more to remove")
    }

    func testKeepsTheOriginalWrapperAndWrapsABarePacket() throws {
        let body = "<rdf:Description rdf:about=\"\" xmlns:exif=\"http://ns.adobe.com/exif/1.0/\" exif:GPSAltitude=\"1\"/>"
        let rewrapped = text(try XMPPacket.removingLocation(from: packet(body)))
        XCTAssertTrue(rewrapped.hasPrefix("<?xpacket begin=\"\u{FEFF}\" id=\"custom-id\"?>\n<x:xmpmeta"))
        XCTAssertTrue(rewrapped.hasSuffix("</x:xmpmeta>\n<?xpacket end=\"r\"?>"))

        // A bare rdf:RDF root, NUL-terminated as some writers leave it.
        let bare = Array("""
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\(body)</rdf:RDF>
        """.utf8) + [0, 0]
        let wrapped = text(try XMPPacket.removingLocation(from: bare))
        XCTAssertTrue(wrapped.hasPrefix("<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n<rdf:RDF"))
        XCTAssertTrue(wrapped.hasSuffix("</rdf:RDF>\n<?xpacket end=\"w\"?>"))
    }

    func testPacketWithoutLocationIsLeftAlone() throws {
        let xmp = packet("""
          <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="3"/>
        """, wrapped: false)
        XCTAssertNil(try XMPPacket.removingLocation(from: xmp))
        XCTAssertEqual(try XMPPacket.locationValues(in: xmp), [:])
    }

    /// A packet that may name a place and cannot be read is refused (the caller drops it); one
    /// whose bytes name no place is not parsed at all, and has no location to remove.
    func testRefusesMalformedXMLAndDTDs() {
        XCTAssertThrowsError(try XMPPacket.removingLocation(from: Array("<x:xmpmeta xmlns:exif='http://ns.adobe.com/exif/1.0/'><rdf:RDF exif:GPSLatitude='1'>".utf8))) {
            XCTAssertTrue($0 is MetadataFormatError)
        }
        XCTAssertNil(try XMPPacket.removingLocation(from: Array("<x:xmpmeta><rdf:RDF>".utf8)))
        XCTAssertFalse(XMPPacket.mayPlacePhoto(Array("<x:xmpmeta><rdf:RDF>".utf8)))
        // Inputs libxml2 cannot make a document of at all.
        for garbage in [[], [0, 0], Array("   ".utf8), [0xFF, 0xD8, 0xFF, 0xE1]] as [[UInt8]] {
            XCTAssertThrowsError(try XMPPacket.locationValues(in: garbage))
        }
        let withDTD = Array("""
        <!DOCTYPE x [<!ENTITY city "Mainz">]>
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>
        """.utf8)
        XCTAssertThrowsError(try XMPPacket.removingLocation(from: withDTD)) {
            XCTAssertEqual(($0 as? MetadataFormatError)?.message, "XMP packet declares a DTD, which XMP forbids")
        }
    }

    /// The streaming reader lists attribute and element properties by namespace URI, nested
    /// ones too, and refuses what `parse` refuses.
    func testPropertiesListEveryPropertyByNamespace() throws {
        let packet = Array("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
         <rdf:Description rdf:about="" xmlns:g="http://ns.google.com/photos/1.0/camera/"
           xmlns:C="http://ns.google.com/photos/1.0/container/" xmlns:I="http://ns.google.com/photos/1.0/container/item/"
           xmlns:e="http://ns.adobe.com/exif/1.0/" g:MotionPhoto="1">
          <e:UserComment><rdf:Alt><rdf:li xml:lang="x-default">Screenshot</rdf:li></rdf:Alt></e:UserComment>
          <C:Directory><rdf:Seq><rdf:li rdf:parseType="Resource">
           <C:Item I:Semantic="MotionPhoto" I:Length="2197"/></rdf:li></rdf:Seq></C:Directory>
         </rdf:Description></rdf:RDF></x:xmpmeta>
        """.utf8)
        let properties = try XMPPacket.properties(in: packet)
        func values(_ namespace: String, _ name: String) -> [String]? {
            properties.first { $0.namespace == namespace && $0.name == name }?.values
        }
        XCTAssertEqual(values("http://ns.google.com/photos/1.0/camera/", "MotionPhoto"), ["1"])
        XCTAssertEqual(values("http://ns.adobe.com/exif/1.0/", "UserComment"), ["Screenshot"])
        XCTAssertEqual(values("http://ns.google.com/photos/1.0/container/item/", "Length"), ["2197"])
        XCTAssertEqual(values("http://ns.google.com/photos/1.0/container/", "Directory").map(Set.init), ["MotionPhoto", "2197"])
        XCTAssertFalse(XMPPacket.placesPhoto(properties))
        XCTAssertFalse(XMPPacket.carriesLocation(packet))

        let located = try XCTUnwrap(JPEGMetadata.readMetadata(path: Fixtures.sample("jpeg/nikon_d5000_xmp_gps_only.jpg")).xmp)
        XCTAssertTrue(XMPPacket.placesPhoto(try XMPPacket.properties(in: located)))

        for refused in ["", "<x:xmpmeta><rdf:RDF>", "<!DOCTYPE x [<!ENTITY c \"Mainz\">]><r/>"] {
            XCTAssertThrowsError(try XMPPacket.properties(in: Array(refused.utf8)), refused)
            // What cannot be read counts as location where its bytes may name a place (a DTD may).
            XCTAssertEqual(XMPPacket.carriesLocation(Array(refused.utf8)), refused.hasPrefix("<!"), refused)
        }
        for end in stride(from: 0, to: located.count, by: 7) {
            _ = try? XMPPacket.properties(in: Array(located[..<end]))
        }
    }

    func testTruncatedPacketsAnswerOrThrowWithoutTrapping() throws {
        let xmp = try XCTUnwrap(JPEGMetadata.readMetadata(path: Fixtures.sample("jpeg/nikon_d5000_xmp_gps_only.jpg")).xmp)
        for end in stride(from: 0, to: xmp.count, by: 7) {
            _ = try? XMPPacket.removingLocation(from: Array(xmp[..<end]))
        }
        // Cut inside the GPS properties; a cut in the trailing padding would still be well-formed.
        let marker = Array("<exif:GPSLatitude".utf8)
        let cut = try XCTUnwrap(xmp.indices.first { xmp[$0...].starts(with: marker) })
        XCTAssertThrowsError(try XMPPacket.removingLocation(from: Array(xmp[..<cut])))
    }

    func testReadsLocationFromARealPacket() throws {
        let xmp = try XCTUnwrap(JPEGMetadata.readMetadata(path: Fixtures.sample("jpeg/canon_eos_7d_iptc_city.jpg")).xmp)
        XCTAssertEqual(try XMPPacket.locationValues(in: xmp), [
            "photoshop:City": "Mainz", "photoshop:State": "Rheinland-Pfalz", "photoshop:Country": "Deutschland",
            "Iptc4xmpCore:Location": "Fotostudio HS", "Iptc4xmpCore:CountryCode": "DE",
        ])
    }

    func testHEICPacketWithoutLocationIsLeftAlone() throws {
        let dump = try runProcess("exiftool", ["-xmp", "-b", Fixtures.sample("heic/L_exif_xmp_iptc.heic")])
        XCTAssertTrue(dump.stdout.contains("<x:xmpmeta"))
        XCTAssertNil(try XMPPacket.removingLocation(from: Array(dump.stdout.utf8)))
    }

    /// Location goes in both forms, nested structures whole; everything else stays byte for byte:
    /// the output is the input's root with exactly the location lines taken out.
    func testCutsLocationOutAndKeepsEverythingElseByteForByte() throws {
        let lines: [(text: String, isLocation: Bool)] = [
            ("  <rdf:Description rdf:about=\"\"", false),
            ("    xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\"", false),
            ("    xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\" xmlns:exif=\"http://ns.adobe.com/exif/1.0/\"", false),
            ("    xmlns:Iptc4xmpExt=\"http://iptc.org/std/Iptc4xmpExt/2008-02-29/\"", false),
            ("    xmlns:apple-fi=\"http://ns.apple.com/faceinfo/1.0/\" xmlns:HDRGainMap=\"http://ns.apple.com/HDRGainMap/1.0/\"", false),
            ("    xmp:CreateDate='2024-05-01T10:00:00.123+02:00'", false),
            ("    exif:GPSLatitude=\"48,0.0N\"", true),
            ("    exif:GPSLongitude = '8,16.2E'", true),
            ("    photoshop:DateCreated=\"2024-05-01T10:00:00+02:00\"", false),
            ("    HDRGainMap:HDRGainMapVersion=\"65536\"", false),
            ("    exif:GPSAltitude=\"1\"", true),
            ("    exif:ExposureTime=\"1/125\">", false),
            ("   <dc:creator>", false),
            ("    <rdf:Seq>", false),
            ("     <rdf:li>Kyra &amp; Peter</rdf:li>", false),
            ("    </rdf:Seq>", false),
            ("   </dc:creator>", false),
            ("   <exif:GPSTimeStamp>2024-05-01T08:00:00Z</exif:GPSTimeStamp>", true),
            ("   <Iptc4xmpExt:LocationShown>", true),
            ("    <rdf:Bag>", true),
            ("     <rdf:li rdf:parseType=\"Resource\">", true),
            ("      <Iptc4xmpExt:City>Mainz</Iptc4xmpExt:City>", true),
            ("      <Iptc4xmpExt:LocationId><rdf:Bag><rdf:li>https://sws.geonames.org/2874225/</rdf:li></rdf:Bag></Iptc4xmpExt:LocationId>", true),
            ("     </rdf:li>", true),
            ("    </rdf:Bag>", true),
            ("   </Iptc4xmpExt:LocationShown>", true),
            ("   <apple-fi:Regions rdf:parseType=\"Resource\">", false),
            ("    <apple-fi:RegionList><rdf:Seq>", false),
            ("     <rdf:li apple-fi:AngleInfoYaw=\"0\" apple-fi:FaceID=\"7\" exif:GPSDOP=\"5\"/>", false),
            ("    </rdf:Seq></apple-fi:RegionList>", false),
            ("   </apple-fi:Regions>", false),
            ("   <!-- kept, and the location after it goes with its indentation -->", false),
            ("   <exif:GPSDestLatitude rdf:resource=\"urn:x\"/>", true),
            ("   <Iptc4xmpExt:Event><![CDATA[Fair <2024>]]></Iptc4xmpExt:Event>", false),
            ("  </rdf:Description>", false),
        ]
        let input = packet(lines.map(\.text).joined(separator: "\n"))
        let removal = try XCTUnwrap(XMPPacket.removingLocation(from: input))
        XCTAssertEqual(removal.removed, [
            "exif:GPSLatitude", "exif:GPSLongitude", "exif:GPSAltitude", "exif:GPSTimeStamp",
            "Iptc4xmpExt:LocationShown", "exif:GPSDOP", "exif:GPSDestLatitude",
        ])
        // The attribute on the face region's rdf:li goes on its own, with the space before it.
        let kept = lines.filter { !$0.isLocation }.map { $0.text.replacingOccurrences(of: " exif:GPSDOP=\"5\"", with: "") }
        XCTAssertEqual(text(removal), """
        <?xpacket begin="\u{FEFF}" id="custom-id"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        \(kept.joined(separator: "\n"))
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="r"?>
        """)
        XCTAssertEqual(try XMPPacket.locationValues(in: input), [
            "exif:GPSLatitude": "48,0.0N", "exif:GPSLongitude": "8,16.2E", "exif:GPSAltitude": "1",
            "exif:GPSTimeStamp": "2024-05-01T08:00:00Z", "exif:GPSDOP": "5", "exif:GPSDestLatitude": "",
            "Iptc4xmpExt:LocationShown": "Mainz; https://sws.geonames.org/2874225/",
        ])
        XCTAssertNil(try XMPPacket.removingLocation(from: removal.bytes), "nothing left to remove")
    }

    func testCutsInlineAttributesWithTheSpaceBeforeThem() throws {
        let removal = try XMPPacket.removingLocation(from: packet("""
          <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="1" exif:Make="X"	exif:GPSLongitude="2"/>
        """))
        XCTAssertTrue(text(removal).contains("""
          <rdf:Description rdf:about="" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:Make="X"/>
        """))
    }

    /// References are read as libxml2 reads them: entities, character references, CDATA, and
    /// attribute whitespace normalised.
    func testLocationValuesAreDecoded() throws {
        let xmp = packet("""
          <rdf:Description rdf:about="" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
            photoshop:City="M&amp;inz&#10;am Rhein	DE">
           <photoshop:State>Rheinland-<!-- c -->Pfalz</photoshop:State>
           <photoshop:Country>K&#246;ln <![CDATA[<&>]]></photoshop:Country>
          </rdf:Description>
        """)
        XCTAssertEqual(try XMPPacket.locationValues(in: xmp), [
            "photoshop:City": "M&inz\nam Rhein DE", "photoshop:State": "Rheinland-; Pfalz", "photoshop:Country": "Köln; <&>",
        ])
    }

    /// A location property in a default namespace places the photo for `properties(in:)`, so it
    /// goes too (`XMLDocument` could only be asked about prefixed nodes).
    func testRemovesLocationInADefaultNamespace() throws {
        let xmp = packet("""
          <rdf:Description rdf:about="">
           <GPSLatitude xmlns="http://ns.adobe.com/exif/1.0/">48,0.0N</GPSLatitude>
           <Rating xmlns="http://ns.adobe.com/xap/1.0/">3</Rating>
          </rdf:Description>
        """)
        XCTAssertTrue(XMPPacket.placesPhoto(try XMPPacket.properties(in: xmp)))
        let removal = try XCTUnwrap(XMPPacket.removingLocation(from: xmp))
        XCTAssertEqual(removal.removed, ["exif:GPSLatitude"])
        XCTAssertFalse(text(removal).contains("48,0.0N"))
        XCTAssertTrue(text(removal).contains("<Rating xmlns=\"http://ns.adobe.com/xap/1.0/\">3</Rating>"))
        XCTAssertFalse(XMPPacket.placesPhoto(try XMPPacket.properties(in: removal.bytes)))
    }

    /// A prefix re-bound inside an element means another namespace there, and the outer one again after it.
    func testPrefixesAreScoped() throws {
        let removal = try XMPPacket.removingLocation(from: packet("""
          <rdf:Description rdf:about="" xmlns:e="http://example.com/">
           <e:Wrapper xmlns:e="http://ns.adobe.com/exif/1.0/"><e:GPSLatitude>1</e:GPSLatitude></e:Wrapper>
           <e:GPSLongitude>2</e:GPSLongitude>
          </rdf:Description>
        """))
        XCTAssertEqual(removal?.removed, ["exif:GPSLatitude"])
        XCTAssertTrue(text(removal).contains("<e:Wrapper xmlns:e=\"http://ns.adobe.com/exif/1.0/\"></e:Wrapper>"))
        XCTAssertTrue(text(removal).contains("<e:GPSLongitude>2</e:GPSLongitude>"))
    }

    /// exiftool's own XMP.jpg carries UTF-16; the edited packet is UTF-8, as a JPEG's must be.
    /// The trailing NULs are stripped by whole characters: a UTF-16LE packet's last `>` is `3E 00`.
    func testUTF16PacketsComeBackAsUTF8() throws {
        let body = "<rdf:Description rdf:about=\"\" xmlns:photoshop=\"http://ns.adobe.com/photoshop/1.0/\" photoshop:City=\"Köln\" photoshop:Headline=\"Dom\"/>"
        let utf8 = packet(body)
        let expected = try XCTUnwrap(XMPPacket.removingLocation(from: utf8))
        XCTAssertTrue(text(expected).contains("photoshop:Headline=\"Dom\"/>"))
        let string = String(decoding: utf8, as: UTF8.self)
        // Not UTF-32LE: libxml2 2.9 refuses it (as it did under XMLDocument).
        for encoding in [String.Encoding.utf16BigEndian, .utf16LittleEndian, .utf16, .utf32BigEndian] {
            let utf16 = try Array(XCTUnwrap(string.data(using: encoding))) + [0, 0]
            XCTAssertEqual(try XMPPacket.removingLocation(from: utf16), expected, "\(encoding)")
            XCTAssertEqual(try XMPPacket.locationValues(in: utf16), ["photoshop:City": "Köln"], "\(encoding)")
        }
        let latin1 = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n".utf8)
            + Array(String(decoding: packet(body, wrapped: false), as: UTF8.self).data(using: .isoLatin1)!)
        XCTAssertEqual(try XMPPacket.locationValues(in: latin1), ["photoshop:City": "Köln"])
        XCTAssertTrue(text(try XMPPacket.removingLocation(from: latin1)).contains("photoshop:Headline=\"Dom\"/>"))
        XCTAssertThrowsError(try XMPPacket.locationValues(in: Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><a/>".utf8)))
    }

    /// An unbound prefix is a namespace error (libxml2's 201): what it names cannot be known, so
    /// the packet goes whole, as it did with `XMLDocument`.
    func testRefusesUnboundPrefixes() {
        let xmp = packet("<rdf:Description rdf:about=\"\" exif:GPSLatitude=\"1\"/>")
        XCTAssertThrowsError(try XMPPacket.removingLocation(from: xmp)) { XCTAssertTrue($0 is MetadataFormatError) }
        XCTAssertTrue(XMPPacket.carriesLocation(xmp))
    }

    /// The committed samples' packets lose exactly their location lines, and truncated or
    /// corrupted copies are edited or refused, never trapped on; an edit leaves no location.
    func testRealPacketsKeepEveryOtherLineAndSurviveDamage() throws {
        for sample in ["jpeg/nikon_d5000_xmp_gps_only.jpg", "jpeg/canon_eos_7d_iptc_city.jpg", "jpeg/iptc_reference_2019.jpg"] {
            let xmp = try XCTUnwrap(JPEGMetadata.readMetadata(path: Fixtures.sample(sample)).xmp)
            let removal = try XCTUnwrap(XMPPacket.removingLocation(from: xmp), sample)
            var original = String(decoding: xmp, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)[...]
            let edited = String(decoding: removal.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            for line in edited.dropFirst().dropLast() {
                guard let match = original.firstIndex(of: line) else { return XCTFail("\(sample): \(line) is not the input's") }
                original = original[(match + 1)...]
            }
            XCTAssertFalse(XMPPacket.placesPhoto(try XMPPacket.properties(in: removal.bytes)), sample)

            // 75 places in each packet: cut there, or a byte flipped there.
            for offset in stride(from: 0, to: xmp.count, by: xmp.count / 75) {
                var flipped = xmp
                flipped[offset] ^= 0x5A
                for damaged in [Array(xmp[..<offset]), flipped] {
                    _ = try? XMPPacket.locationValues(in: damaged)
                    guard let edit = try? XMPPacket.removingLocation(from: damaged) else { continue }
                    XCTAssertFalse(XMPPacket.placesPhoto(try XMPPacket.properties(in: edit.bytes)), "\(sample) at \(offset)")
                    XCTAssertNil(try XMPPacket.removingLocation(from: edit.bytes), "\(sample) at \(offset)")
                }
            }
        }
    }
}
