import Foundation
import PostgresTestServer
import Testing

/// The private PostgreSQL server that the scale-out tests and the replica runner start: it must
/// really start, authenticate, stop, start again and go away without a trace.
@Suite("PrivatePostgresServer")
struct PrivateServerTests {
    @Test("start, create a database, stop, fail, start again, destroy")
    func lifecycle() throws {
        let server = try PrivatePostgresServer.start(name: "larder-private-lifecycle")
        defer { server.destroy() }

        #expect(server.host == "127.0.0.1")
        #expect(server.username == "larder")
        #expect(server.database == "postgres")
        #expect(server.password.count >= 16)
        #expect(server.password.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect((1...65535).contains(server.port))
        #expect(server.url == "postgresql://larder:\(server.password)@127.0.0.1:\(server.port)/postgres")
        #expect(server.url(database: "larder_one") == "postgresql://larder:\(server.password)@127.0.0.1:\(server.port)/larder_one")
        #expect(server.isRunning)

        #expect(try server.psql("SELECT 1") == "1")
        try server.createDatabase("larder_one")
        #expect(try server.psql("SELECT current_database()", database: "larder_one") == "larder_one")
        try server.psql("CREATE TABLE kept (id int PRIMARY KEY); INSERT INTO kept VALUES (7)", database: "larder_one")

        try server.stop()
        #expect(!server.isRunning)
        #expect(FileManager.default.fileExists(atPath: server.dataDirectory.path))
        #expect(throws: PrivatePostgresServerError.self) { try server.psql("SELECT 1") }
        try server.stop()  // Stopping a stopped server does nothing.

        let port = server.port
        try server.start()
        #expect(server.isRunning)
        #expect(server.port == port)
        #expect(try server.psql("SELECT 1") == "1")
        #expect(try server.psql("SELECT id FROM kept", database: "larder_one") == "7")
        try server.start()  // Starting a running server does nothing.

        let directory = server.directory
        #expect(FileManager.default.fileExists(atPath: directory.path))
        server.destroy()
        #expect(!server.isRunning)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        #expect(throws: PrivatePostgresServerError.self) { try server.psql("SELECT 1") }
        #expect(throws: PrivatePostgresServerError.self) { try server.start() }
        server.destroy()  // Destroying twice does nothing.
    }

    @Test("an immediate stop loses nothing committed: the next start recovers")
    func immediateStopRecovers() throws {
        let server = try PrivatePostgresServer.start(name: "larder-private-immediate")
        defer { server.destroy() }

        try server.psql("CREATE TABLE t (v text); INSERT INTO t VALUES ('kept')")
        try server.stop(immediately: true)
        #expect(!server.isRunning)
        #expect(throws: PrivatePostgresServerError.self) { try server.psql("SELECT 1") }

        try server.start()
        #expect(try server.psql("SELECT v FROM t") == "kept")
        let log = try String(contentsOf: server.logFile, encoding: .utf8)
        #expect(log.contains("was not properly shut down"), "an immediate stop leaves recovery to the next start")
    }

    @Test("the server is configured as promised: TCP on 127.0.0.1, SCRAM, UTF-8, no fsync")
    func configuration() throws {
        let server = try PrivatePostgresServer.start(name: "larder-private-config")
        defer { server.destroy() }

        #expect(try server.psql("SELECT current_user") == "larder")
        #expect(try server.psql("SHOW listen_addresses") == "127.0.0.1")
        #expect(try server.psql("SHOW port") == String(server.port))
        #expect(try server.psql("SHOW server_encoding") == "UTF8")
        #expect(try server.psql("SHOW fsync") == "off")
        #expect(try server.psql("SHOW full_page_writes") == "off")
        #expect(try server.psql("SHOW max_connections") == "200")
        #expect(try server.psql("SHOW unix_socket_directories") == server.directory.path)
        // The password is set and stored as a SCRAM verifier; every connection must present it.
        #expect(try server.psql("SELECT rolpassword LIKE 'SCRAM-SHA-256$%' FROM pg_authid WHERE rolname = 'larder'") == "t")
        #expect(try server.psql("SELECT string_agg(DISTINCT auth_method, ',') FROM pg_hba_file_rules") == "scram-sha-256")
        // Multiple rows come back one per line, columns separated by |.
        #expect(try server.psql("SELECT g, g * 2 FROM generate_series(1, 3) g") == "1|2\n2|4\n3|6")
    }

    @Test("a failed statement throws with psql's message; a bad database name is refused")
    func failures() throws {
        let server = try PrivatePostgresServer.start(name: "larder-private-failures")
        defer { server.destroy() }

        let error = #expect(throws: PrivatePostgresServerError.self) {
            try server.psql("SELECT * FROM no_such_table")
        }
        #expect(error?.message.contains("no_such_table") == true)
        #expect(throws: PrivatePostgresServerError.self) { try server.psql("SELECT 1", database: "no_such_db") }

        try server.createDatabase("larder_twice")
        #expect(throws: PrivatePostgresServerError.self) { try server.createDatabase("larder_twice") }
        for bad in ["", "Upper", "with space", "semi;colon", "9starts_with_digit", "x; DROP DATABASE postgres"] {
            #expect(throws: PrivatePostgresServerError.self, "\(bad)") { try server.createDatabase(bad) }
        }
        #expect(try server.psql("SELECT count(*) FROM pg_database WHERE datname = 'postgres'") == "1")
    }

    @Test("two servers run side by side on their own ports and directories")
    func twoServers() throws {
        let first = try PrivatePostgresServer.start(name: "larder-private-first")
        defer { first.destroy() }
        let second = try PrivatePostgresServer.start(name: "larder-private-second")
        defer { second.destroy() }

        #expect(first.port != second.port)
        #expect(first.directory != second.directory)
        #expect(first.password != second.password)
        try first.psql("CREATE TABLE only_first (x int)")
        #expect(try first.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'only_first'") == "1")
        #expect(try second.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'only_first'") == "0")
        try first.stop()
        #expect(try second.psql("SELECT 1") == "1")
    }

    @Test("the shared server is one per process and running")
    func shared() throws {
        let server = try PrivatePostgresServer.shared
        #expect(try PrivatePostgresServer.shared === server)
        #expect(server.isRunning)
        #expect(try server.psql("SELECT 1") == "1")
    }
}
