import ArgumentParser
import Foundation
import MediaBatchCore

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what photos and videos say about themselves, from their headers (pixels are never decoded).",
        discussion: """
            Exit codes: 0 every file was read; 1 at least one file could not be read (each is \
            reported on standard error, the others are still shown); 2 the command line is invalid.
            """)

    @Argument(help: "The photos and videos to inspect.")
    var files: [String]

    @Flag(help: "Print a JSON array, one object per readable file, for scripts.")
    var json = false

    func run() throws {
        var inspections: [Inspection] = []
        var anyFailed = false
        let livePhotos = LivePhotoIndex()
        for file in files {
            do {
                let inspection = try Inspection.read(path: file, livePhotos: livePhotos)
                inspections.append(inspection)
                if !json {
                    if inspections.count > 1 { print() }
                    print(InspectionText.render(inspection), terminator: "")
                }
            } catch let error as InspectionError {
                printError("error: \(file): \(error.message)")
                anyFailed = true
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(inspections), as: UTF8.self))
        }
        if anyFailed { throw ExitCode(ExitStatus.itemsFailed) }
    }
}
