import Foundation

/// The process's peak resident set size so far (getrusage).
public enum PeakMemory {
    public static var bytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024 // Linux reports KiB
    }
}
