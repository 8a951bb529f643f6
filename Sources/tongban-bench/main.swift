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

let env = ProcessInfo.processInfo.environment
let arguments = Array(CommandLine.arguments.dropFirst())
let tools: [String: @Sendable ([String]) async throws -> Void] = [
    "flood": ClientTools.flood, "mkstore": ClientTools.mkstore, "mkgroup": ClientTools.mkgroup,
]
if let tool = arguments.first, let run = tools[tool] {
    do {
        try await run(arguments)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(tool) failed: \(error)\n".utf8))
        exit(1)
    }
}
let what = CommandLine.arguments.dropFirst().first ?? "all"
let cores = ProcessInfo.processInfo.activeProcessorCount
print("# tongban bench — \(Date()) — \(cores) cores, \(ProcessInfo.processInfo.physicalMemory / 1_048_576) MiB")
do {
    if what == "all" || what == "store" {
        let n = Int(env["TONGBAN_BENCH_MESSAGES"] ?? "") ?? 1_000_000
        let c = Int(env["TONGBAN_BENCH_CONVERSATIONS"] ?? "") ?? 1_000
        printTable("Store", try StoreBench(messages: n, conversations: c).run())
    }
    if what == "all" || what == "server" {
        printTable("Server", try await ServerBench.fromEnvironment(env).run())
    }
    if what == "all" || what == "group" {
        printTable("Group", try await GroupBench.fromEnvironment(env).run())
    }
    if what == "all" || what == "postgres" {
        if let admin = env["TONGBAN_BENCH_PG"], !admin.isEmpty {
            let bench = PostgresBench(bench: ServerBench.fromEnvironment(env), adminURL: admin)
            printTable("PostgreSQL and two nodes", try await bench.run())
        } else {
            print("\n(PostgreSQL section skipped: TONGBAN_BENCH_PG names no cluster; make bench starts one)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("bench failed: \(error)\n".utf8))
    exit(1)
}
