import Foundation

/// Whether the system's libvips is newer than `major.minor`: for the few tests that state what
/// each libvips does where Debian 12's (8.14) and 13's (8.16) differ. Read from its command line
/// tool (`vips --version`: "vips-8.14.1"), the same library mediabatch links, so that tests of
/// modules that link no C library can ask too.
public func libvipsIsNewer(than major: Int, _ minor: Int) -> Bool {
    libvipsVersion.lexicographicallyPrecedes([major, minor + 1]) == false
}

private let libvipsVersion: [Int] = {
    let printed = (try? runProcess("vips", ["--version"]).stdout) ?? ""
    return printed.drop { !$0.isNumber }.prefix { !$0.isWhitespace }.split(separator: ".").compactMap { Int($0) }
}()
