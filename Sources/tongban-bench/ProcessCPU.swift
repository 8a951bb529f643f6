import Foundation
import Glibc

/// CPU time of a PostgreSQL cluster: what its processes cost a send is
/// part of what a send costs on PostgreSQL.
enum PostgresCPU {
    /// CPU seconds used so far by every PostgreSQL process of this
    /// machine's clusters: each live process's own time, plus the time of
    /// the children a postmaster has already reaped (a backend that ended
    /// during the run is counted there). The bench's cluster is the only one
    /// on the machine while it runs.
    static func seconds(procRoot: String = "/proc") -> Double {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: procRoot) else { return .nan }
        var ticks = 0.0
        var found = false
        for entry in entries where entry.allSatisfy(\.isNumber) {
            guard let stat = try? String(contentsOfFile: "\(procRoot)/\(entry)/stat", encoding: .utf8),
                  let s = ProcStat(stat), s.comm == "postgres" else { continue }
            found = true
            ticks += s.utime + s.stime
            // Only a postmaster reaps postgres children; its parent is not a postgres.
            if let parent = try? String(contentsOfFile: "\(procRoot)/\(s.ppid)/stat", encoding: .utf8),
               ProcStat(parent)?.comm != "postgres" {
                ticks += s.cutime + s.cstime
            }
        }
        return found ? ProcStat.seconds(ticks: ticks) : .nan
    }
}

/// The fields of `/proc/PID/stat` the bench reads.
struct ProcStat {
    var comm: Substring
    var ppid: Int
    var utime, stime, cutime, cstime: Double

    init?(_ text: String) {
        // "pid (comm) state ppid …": comm may hold spaces and parentheses, so
        // it ends at the last ")".
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close else { return nil }
        comm = text[text.index(after: open)..<close]
        let f = text[text.index(after: close)...].split(separator: " ")
        // After the comm: state [0], ppid [1], … utime [11], stime [12], cutime [13], cstime [14].
        guard f.count > 14, let ppid = Int(f[1]), let u = Double(f[11]), let s = Double(f[12]),
              let cu = Double(f[13]), let cs = Double(f[14]) else { return nil }
        (self.ppid, utime, stime, cutime, cstime) = (ppid, u, s, cu, cs)
    }

    /// Clock ticks in seconds.
    static func seconds(ticks: Double) -> Double {
        let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ticks / (hz > 0 ? hz : 100)
    }
}
