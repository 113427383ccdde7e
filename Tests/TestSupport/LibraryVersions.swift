import VipsKit

/// Whether the libvips mediabatch runs with is newer than `major.minor`: for the few tests that
/// state what each libvips does where Debian 12's (8.14) and 13's (8.16) differ.
public func libvipsIsNewer(than major: Int, _ minor: Int) -> Bool {
    let version = Vips.version.split(separator: ".").compactMap { Int($0) }
    return version.lexicographicallyPrecedes([major, minor + 1]) == false
}
