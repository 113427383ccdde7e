import ArgumentParser
import Foundation
import MediaBatchCore

/// Prints each item of a manifest as the markup a web page shows it with (a `<picture>` for each
/// shape of a photo's variants, a `<video>` for a movie), or as JSON for a template engine; items as the manifest lists them,
/// each printed as it is read. Exits 2 when the file is not a manifest.
struct HTMLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "html",
        abstract: "Print <picture> and <video> markup (or JSON) for every item of a manifest.")

    @Argument(help: "The manifest (`run --manifest`, output.manifest, or merge-manifests).")
    var manifest: String

    @Option(help: "The sizes attribute of each picture: how wide it is laid out.")
    var sizes = "100vw"

    @Option(name: .customLong("class"), help: "A class attribute for each <img>.")
    var className: String?

    @Option(help: "Put before each output's path to make its URL (default: the path as the manifest gives it).")
    var baseURL = ""

    @Flag(help: "Print a JSON array of each item's sources and image, for a template engine, instead of HTML.")
    var json = false

    func run() throws {
        var options = PictureMarkup.Options()
        (options.sizes, options.className, options.baseURL) = (sizes, className, baseURL)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var first = true
        do {
            if json { print("[") }
            try ShardManifests([manifest]).items { item in
                for markup in PictureMarkup.of(item, options) {
                    if json {
                        print((first ? "" : ",\n") + String(decoding: try encoder.encode(markup), as: UTF8.self), terminator: "")
                    } else {
                        print(markup.html(options))
                    }
                    first = false
                }
            }
            if json { print(first ? "]" : "\n]") }
        } catch let error as ReportMergeError {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalid)
        }
    }
}
