import Foundation

/// One line of the benchmark table.
struct BenchRow {
    var figure: String
    var ours: Double
    var reference: Double? = nil
    var referenceName: String = ""
    var goal: String
    var met: Bool?
}

extension BenchRow {
    /// A paced run's CPU per delivery, the server's against the bench's
    /// clients': both share the two cores, and what each spends says which
    /// one is the limit. `what`: "group", "room".
    static func cpuPerDelivery(_ r: LoadResult, deliveries: Double, offered: Double, _ what: String) -> [BenchRow] {
        [
            BenchRow(figure: "server CPU per delivery at \(fmt(offered)) \(what) sends/s (µs)", ours: r.serverCPU / deliveries * 1e6,
                     reference: r.benchCPU / deliveries * 1e6, referenceName: "the bench's clients", goal: "reported", met: nil),
            BenchRow(figure: "CPU of server and clients at \(fmt(offered)) \(what) sends/s (cores)", ours: (r.serverCPU + r.benchCPU) / r.seconds,
                     reference: Double(ProcessInfo.processInfo.activeProcessorCount), referenceName: "cores", goal: "reported", met: nil),
        ]
    }
}

extension BenchRow {
    /// OpenIM's stress reports: about 220 acknowledged sends/s per core,
    /// about 4,500 µs of CPU per send.
    static let openIMMicrosPerSend = 4_500.0

    /// The server process's own CPU per acknowledged send: a figure that
    /// does not swing with what else the machine runs, as sends/s per core do.
    static func cpuPerSend(_ r: LoadResult, _ deployment: String, goalMicros: Double) -> BenchRow {
        let micros = r.serverCPU / Double(r.messages) * 1e6
        return BenchRow(figure: "server's own CPU per acknowledged send, \(deployment) (µs)", ours: micros,
                        reference: openIMMicrosPerSend, referenceName: "OpenIM, published", goal: "≤ \(fmt(goalMicros)) µs",
                        met: micros <= goalMicros)
    }

    /// On PostgreSQL a send costs the nodes' CPU and the database's: both,
    /// per acknowledged send.
    static func cpuPerSendWithDatabase(_ r: LoadResult, _ deployment: String, goalMicros: Double) -> BenchRow {
        let micros = (r.serverCPU + r.databaseCPU) / Double(r.messages) * 1e6
        return BenchRow(figure: "CPU per acknowledged send, \(deployment), server and PostgreSQL's processes (µs)", ours: micros,
                        reference: openIMMicrosPerSend, referenceName: "OpenIM, published", goal: "≤ \(fmt(goalMicros)) µs",
                        met: micros <= goalMicros)
    }
}

func fmt(_ v: Double) -> String {
    if v.isNaN { return "n/a" }
    return v >= 100 ? String(format: "%.0f", v) : String(format: "%.2f", v)
}

func printTable(_ title: String, _ rows: [BenchRow]) {
    print("\n## \(title)\n")
    print("| figure | ours | reference | ratio (ours/ref) | goal | met |")
    print("|---|---|---|---|---|---|")
    for r in rows {
        let ref = r.reference.map { "\(fmt($0)) (\(r.referenceName))" } ?? "—"
        let ratio = r.reference.map { fmt(r.ours / $0) } ?? "—"
        let met = r.met.map { $0 ? "yes" : "NO" } ?? "—"
        print("| \(r.figure) | \(fmt(r.ours)) | \(ref) | \(ratio) | \(r.goal) | \(met) |")
    }
}
