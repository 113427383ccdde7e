import Foundation

/// Makes a worker crash or hang on a named file, so that tests can prove the run survives a
/// decoder fault and a stuck decode without a real exploit at hand. Set by the environment
/// variable `MEDIABATCH_FAULT_INJECTION=phase:fault:file name` (e.g. `pixels:crash:IMG_1.jpg`,
/// `header:hang:bomb.png`, `pixels:kill:big.heic` for the OOM killer's SIGKILL,
/// `pixels:truncate:a.jpg` for another program cutting the input short after it was listed);
/// unset in normal runs, where it does nothing.
struct FaultInjection {
    enum Phase: String { case header, pixels }
    private let rules: [(phase: Phase, fault: String, name: String)]

    init(_ environment: [String: String]) {
        rules = (environment["MEDIABATCH_FAULT_INJECTION"] ?? "").split(separator: ",").compactMap { rule in
            let parts = rule.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3, let phase = Phase(rawValue: parts[0]) else { return nil }
            return (phase, parts[1], parts[2])
        }
    }

    func strike(_ phase: Phase, _ job: ItemJob) {
        let name = (job.input.relativePath as NSString).lastPathComponent
        for rule in rules where rule.phase == phase && rule.name == name {
            switch rule.fault {
            case "crash": raise(SIGSEGV)
            case "kill": raise(SIGKILL)
            case "truncate": _ = truncate(job.input.path, off_t(job.bytesIn / 2))
            case "hang": while true { sleep(60) }
            default: break
            }
        }
    }
}
