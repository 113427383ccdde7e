import ArgumentParser
import MediaBatchCore

/// `mediabatch worker`: started by `run` for untrusted input, never by hand. It decodes items
/// the run sends it over stdin, so a decoder crash ends this process and not the run.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Decode items for a run (started by `mediabatch run`; not for direct use).",
        shouldDisplay: false)

    func run() throws {
        WorkerService.serve()
    }
}
