import ArgumentParser
import ChatCore
import ChatServer
import ChatSync
import Foundation
import Logging

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Run the demo server in this process (accounts me/alice/bob/carol).")
    @Option(help: "Port (0 = a free one).") var port = 0
    @Option(name: .customLong("server-dir"), help: "Where the demo server keeps its data.") var serverDir: String?

    func run() async throws {
        var config = ServerConfig()
        config.port = port
        config.demo = true
        config.dataDir = serverDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("tongban-demo-\(getuid())").path
        var logger = Logger(label: "tongban-demo")
        logger.logLevel = .warning
        config.logger = logger
        let server = try await ChatServerApp.start(config: config)
        out(L.string("cli.demoStarted", ["url": server.baseURL, "dir": config.dataDir]))
        let (stream, cont) = AsyncStream<Void>.makeStream()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT)
        source.setEventHandler { cont.finish() }
        source.resume()
        for await _ in stream {}
        await server.stop()
    }
}
