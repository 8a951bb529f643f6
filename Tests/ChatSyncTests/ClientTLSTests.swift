@testable import ChatSync
import Foundation
import Testing

/// Trusting a CA file (`--ca-file`): what is accepted as one, and that a
/// login made with one keeps it.
@Suite struct ClientTLSTests {
    /// `wss://` to an address: the push socket names no address as SNI
    /// (NIOSSL refuses to), and a host name is sent as it is.
    @Test func pushToAnIPAddressSendsNoAddressAsServerName() {
        for url in ["wss://127.0.0.1:8443/chat/ws", "wss://[::1]:8443/chat/ws", "ws://10.0.0.7/chat/ws"] {
            #expect(SyncEngine.pushConfiguration(url: url).sniHostname == SyncEngine.ipHostSNI, "\(url)")
        }
        for url in ["wss://chat.example.org/chat/ws", "wss://localhost:8443/chat/ws", "wss://1.2.3.4.example.org/x",
                    "wss://bücher.example/chat/ws", "wss://xn--bcher-kva.example/chat/ws"] {
            #expect(SyncEngine.pushConfiguration(url: url).sniHostname == nil, "\(url)")
        }
    }

    @Test func aCAFileMustHoldAPEMCertificate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tongban-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        let missing = dir.appendingPathComponent("nope.pem").path
        #expect(throws: ClientTLS.Problem.self) { try ClientTLS.validated(missing) }
        let text = dir.appendingPathComponent("notes.pem")
        try Data("not a certificate\n".utf8).write(to: text)
        let error = #expect(throws: ClientTLS.Problem.self) { try ClientTLS.validated(text.path) }
        #expect(error?.description.contains(text.path) == true, "the error names the file")
        #expect(error?.description.contains("PEM") == true)

        let pem = dir.appendingPathComponent("ca.pem")
        try Data(Self.selfSigned.utf8).write(to: pem)
        #expect(try ClientTLS.validated(pem.path) == pem.standardizedFileURL.path)
    }

    @Test func aLoginKeepsItsCAFileAndAnOlderLoginReadsWithout() throws {
        let creds = Session.Credentials(server: "https://chat.example", account: "me", uid: 1, imUid: "tb_1", username: "我",
                                        token: "t", caFile: "/etc/tongban/ca.pem")
        let back = try JSONDecoder().decode(Session.Credentials.self, from: JSONEncoder().encode(creds))
        #expect(back.caFile == "/etc/tongban/ca.pem")
        let older = #"{"server":"http://127.0.0.1:8080","account":"me","uid":1,"imUid":"tb_1","username":"我","token":"t"}"#
        let old = try JSONDecoder().decode(Session.Credentials.self, from: Data(older.utf8))
        #expect(old.caFile == nil && old.account == "me", "a session.json from before --ca-file still loads")
    }

    /// A throwaway self-signed certificate (openssl req -x509, EC P-256).
    static let selfSigned = """
        -----BEGIN CERTIFICATE-----
        MIIBjTCCATOgAwIBAgIUVOAJwvYMxvP2+ng7DLxmFuMKOEkwCgYIKoZIzj0EAwIw
        HDEaMBgGA1UEAwwRdG9uZ2JhbiB1bml0IHRlc3QwHhcNMjYxMTI1MTA0NzU3WhcN
        MzYxMTIyMTA0NzU3WjAcMRowGAYDVQQDDBF0b25nYmFuIHVuaXQgdGVzdDBZMBMG
        ByqGSM49AgEGCCqGSM49AwEHA0IABCs1i6etL0/K2ju3fPPh16vE64jvpSbACu5+
        U57gMYwpSj4v3c/KJCETqgNfqcMJw2UmZibhueshMJi/x2XyzBOjUzBRMB0GA1Ud
        DgQWBBRdAbncWL62yfej9GTrRQ8daAk1KzAfBgNVHSMEGDAWgBRdAbncWL62yfej
        9GTrRQ8daAk1KzAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIDZb
        RXVNufNfsYIMRvU6VEcAQTIjhzYkUzqvD+sN8wF1AiEAgW5KhtyckouZprueWyGS
        wCSIMtUlVHkzGNpfOFCRxa4=
        -----END CERTIFICATE-----
        """
}
