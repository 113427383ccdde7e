import Foundation

/// The number of CPUs this process may actually use: the smallest of the host's online CPUs,
/// the affinity mask (`taskset`, container cpusets) and the cgroup CPU quota (`docker --cpus`,
/// Kubernetes limits). Containers report the host's cores through sysconf; this does not.
public enum AvailableCPUs {
    public static var count: Int {
        var limit = ProcessInfo.processInfo.processorCount
        #if os(Linux)
        if let affinity = affinityCount() { limit = min(limit, affinity) }
        if let quota = cgroupQuota() { limit = min(limit, quota) }
        #endif
        return max(1, limit)
    }

    #if os(Linux)
    /// The affinity mask as the kernel reports it in /proc/self/status (e.g. "0-3,6"); reading it
    /// there avoids sched_getaffinity, which Glibc does not export to Swift.
    private static func affinityCount() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return nil }
        let list = line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
        var count = 0
        for range in list.split(separator: ",") {
            let bounds = range.split(separator: "-").compactMap { Int($0) }
            guard let low = bounds.first, let high = bounds.last, high >= low else { return nil }
            count += high - low + 1
        }
        return count > 0 ? count : nil
    }

    /// cgroup v2 `cpu.max` ("max 100000" or "150000 100000"), then cgroup v1's quota and period.
    private static func cgroupQuota() -> Int? {
        if let line = try? String(contentsOfFile: "/sys/fs/cgroup/cpu.max", encoding: .utf8) {
            let fields = line.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            if fields.count == 2, let quota = Double(fields[0]), let period = Double(fields[1]), period > 0 {
                return max(1, Int((quota / period).rounded(.up)))
            }
            return nil
        }
        let read = { (name: String) in
            (try? String(contentsOfFile: "/sys/fs/cgroup/cpu/\(name)", encoding: .utf8))
                .flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        if let quota = read("cpu.cfs_quota_us"), let period = read("cpu.cfs_period_us"), quota > 0, period > 0 {
            return max(1, Int((quota / period).rounded(.up)))
        }
        return nil
    }
    #endif
}
