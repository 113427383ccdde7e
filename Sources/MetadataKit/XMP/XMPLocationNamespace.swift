/// One namespace's location-bearing XMP properties. Properties are matched by namespace URI and
/// local name, never by prefix: writers pick their own prefixes (`xap:` vs `xmp:`, `exif:` vs `ns1:`).
struct XMPLocationNamespace: Sendable {
    enum LocalNameRule: Sendable {
        case named(Set<String>)
        case prefixed(String)
        /// Every property in the namespace but these.
        case everyExcept(Set<String>)
    }

    let uri: String
    /// The conventional prefix; it only names removed properties in reports.
    let prefix: String
    let rule: LocalNameRule

    func placesPhoto(_ localName: String) -> Bool {
        switch rule {
        case .named(let names): names.contains(localName)
        case .prefixed(let start): localName.hasPrefix(start)
        case .everyExcept(let names): !names.contains(localName)
        }
    }
}
