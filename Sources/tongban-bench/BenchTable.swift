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
