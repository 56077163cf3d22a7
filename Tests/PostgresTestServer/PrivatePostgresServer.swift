import Foundation

/// A private PostgreSQL server for tests and benchmark runners: its own cluster in a fresh
/// temporary directory (`initdb`), started with `pg_ctl` on 127.0.0.1 and a free port, with
/// password authentication (SCRAM) for the user `larder` and durability switched off for speed.
///
/// The binaries come from `LARDER_PG_BINDIR` if set, else the newest
/// `/usr/lib/postgresql/<N>/bin`, else `pg_config --bindir`, else the `initdb` on `PATH`; with
/// none of them, ``start(name:)`` throws (install Debian's `postgresql` package: `Scripts/setup`).
///
/// PostgreSQL refuses to run as root: as root, `initdb` and `pg_ctl` run as the `postgres` user
/// (`runuser -u postgres --`), which owns the server's directory. `psql` has no such rule and
/// runs as the calling user.
///
/// A process that dies without ``destroy()`` (a crash, a signal, a test run killed at its time
/// limit) leaves nothing behind: a small watchdog shell started with each server then stops the
/// postmaster and removes the directory.
///
/// The lifecycle methods (``start()``, ``stop(immediately:)``, ``destroy()``) are serialized by a
/// lock; ``psql(_:database:)`` and ``createDatabase(_:)`` may run concurrently with each other.
public final class PrivatePostgresServer: @unchecked Sendable {
    /// The TCP port on 127.0.0.1; the same after ``stop(immediately:)`` and ``start()``.
    public let port: Int
    /// Always `"127.0.0.1"`.
    public let host: String
    /// Always `"larder"` (the cluster's superuser).
    public let username: String
    /// Random per server, letters and digits only.
    public let password: String
    /// Always `"postgres"`.
    public let database: String
    /// The server's private directory: `data/` (the cluster), `server.log` and the Unix socket.
    /// ``destroy()`` removes it.
    public let directory: URL

    /// The cluster's data directory (`directory/data`).
    public var dataDirectory: URL { directory.appendingPathComponent("data", isDirectory: true) }
    /// The server's log (`directory/server.log`), appended to by every start.
    public var logFile: URL { directory.appendingPathComponent("server.log", isDirectory: false) }

    private let binaries: PostgresBinaries
    private let lifecycleLock = NSLock()
    /// Guarded by `lifecycleLock`.
    private var destroyed = false
    /// The process that stops the server and removes its directory if this process dies without
    /// doing it (a crash, a signal, a test run killed at its time limit); nil if it could not run.
    private let watchdog: pid_t?

    private init(
        port: Int, password: String, directory: URL, binaries: PostgresBinaries, watchdog: pid_t?
    ) {
        self.port = port
        self.host = "127.0.0.1"
        self.username = "larder"
        self.password = password
        self.database = "postgres"
        self.directory = directory
        self.binaries = binaries
        self.watchdog = watchdog
    }

    // MARK: - URLs

    /// `postgresql://larder:<password>@127.0.0.1:<port>/postgres`.
    public var url: String { url(database: database) }

    /// `postgresql://larder:<password>@127.0.0.1:<port>/<database>`.
    public func url(database: String) -> String {
        let user = username.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? username
        let secret = password.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed) ?? password
        let segment = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))
        let path = database.addingPercentEncoding(withAllowedCharacters: segment) ?? database
        return "postgresql://\(user):\(secret)@\(host):\(port)/\(path)"
    }

    // MARK: - Creating and starting

    /// Creates a cluster in a new temporary directory (`initdb`) and starts it on a free port
    /// (trying another port, up to five in all, when the chosen one is taken meanwhile).
    ///
    /// - Parameter name: the prefix of the temporary directory's name.
    /// - Throws: ``PrivatePostgresServerError`` when PostgreSQL is not installed, or when `initdb`
    ///   or the start fails (the message holds the command's output and the tail of the log).
    public static func start(name: String = "larder-test") throws -> PrivatePostgresServer {
        let binaries = try PostgresBinaries.located.get()
        let owner = try ServerOwner.current()
        let directory = try makePrivateDirectory(name: name, owner: owner)
        do {
            let password = randomPassword()
            try initializeCluster(in: directory, password: password, binaries: binaries, owner: owner)
            var attempt = 1
            while true {
                let port = try PortAllocator.freePort()
                do {
                    try startCluster(in: directory, port: port, binaries: binaries, owner: owner)
                    return PrivatePostgresServer(
                        port: port, password: password, directory: directory, binaries: binaries,
                        watchdog: Watchdog.spawn(guarding: directory))
                } catch let error as StartFailure where error.portInUse && attempt < 5 {
                    attempt += 1
                }
            }
        } catch {
            // A postmaster that pg_ctl gave up waiting for may still be starting.
            signalPostmaster(in: directory.appendingPathComponent("data"))
            try? FileManager.default.removeItem(at: directory)
            if let failure = error as? StartFailure { throw failure.error }
            throw error
        }
    }

    /// Starts the server again after ``stop(immediately:)``: the same data directory and port.
    /// Does nothing when it is running.
    ///
    /// - Throws: ``PrivatePostgresServerError`` when the start fails (for instance, when another
    ///   process took the port meanwhile) or the server was destroyed.
    public func start() throws {
        lifecycleLock.lock()
        defer { lifecycleLock.unlock() }
        guard !destroyed else {
            throw PrivatePostgresServerError("the private PostgreSQL server at \(directory.path) was destroyed")
        }
        if isRunning { return }
        do {
            try Self.startCluster(
                in: directory, port: port, binaries: binaries, owner: try ServerOwner.current())
        } catch let failure as StartFailure {
            throw failure.error
        }
    }

    // MARK: - Stopping

    /// Whether the server is running: its `postmaster.pid` names a live process.
    public var isRunning: Bool {
        guard let pid = Self.postmasterPID(in: dataDirectory) else { return false }
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        // A postmaster that died without removing its file may be a zombie that nobody reaps (a
        // container's init may not): alive for kill(2), dead for Linux's /proc.
        if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let state = stat.range(of: ") ", options: .backwards).map({ stat[$0.upperBound...].first }) ?? nil
        {
            return state != "Z" && state != "X"
        }
        return true
    }

    /// Stops the server (`pg_ctl stop -w`): with `-m fast` (a clean shutdown), or with
    /// `-m immediate` (no checkpoint: the next start recovers, as after a crash). Does nothing when
    /// it is not running.
    public func stop(immediately: Bool = false) throws {
        lifecycleLock.lock()
        defer { lifecycleLock.unlock() }
        try stopLocked(immediately: immediately)
    }

    private func stopLocked(immediately: Bool) throws {
        guard isRunning else { return }
        try ChildProcess.run(
            binaries.pgCtl,
            ["-D", dataDirectory.path, "-m", immediately ? "immediate" : "fast", "-w", "-t", "60", "stop"],
            owner: try ServerOwner.current(), directory: directory
        ).check()
    }

    /// Stops the server if it is running (immediately: its data is thrown away) and removes its
    /// directory. Calling it again does nothing; ``start()`` throws afterwards.
    public func destroy() {
        lifecycleLock.lock()
        defer { lifecycleLock.unlock() }
        if destroyed { return }
        destroyed = true
        do {
            try stopLocked(immediately: true)
        } catch {
            Self.report("could not stop the private PostgreSQL server at \(directory.path): \(error)")
            Self.signalPostmaster(in: dataDirectory)
        }
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            Self.report("could not remove \(directory.path): \(error)")
        }
        if let watchdog { Watchdog.end(watchdog) }
    }

    // MARK: - Freezing

    /// Stops every process of the server with SIGSTOP (the postmaster and its backends): it
    /// keeps its connections and answers nothing, as a frozen machine or a network partition
    /// would. ``thaw()`` lets it go on. Does nothing when it is not running.
    public func freeze() { signalEveryProcess(SIGSTOP) }

    /// Lets a server stopped by ``freeze()`` go on (SIGCONT).
    public func thaw() { signalEveryProcess(SIGCONT) }

    private func signalEveryProcess(_ signal: Int32) {
        guard let postmaster = Self.postmasterPID(in: dataDirectory) else { return }
        var processes: [pid_t] = [postmaster]
        // The backends are the postmaster's children: field 4 of /proc/<pid>/stat.
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let end = stat.range(of: ") ", options: .backwards)
            else { continue }
            let fields = stat[end.upperBound...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { processes.append(pid) }
        }
        // Children first when stopping (none runs on after its parent stopped), the postmaster
        // first when going on.
        for pid in signal == SIGSTOP ? processes.reversed() : processes { kill(pid, signal) }
    }

    // MARK: - SQL

    /// Runs `sql` with `psql -At` (unaligned, tuples only; `ON_ERROR_STOP`) as `larder` over TCP,
    /// and returns its standard output without the final newline: a single value for a query of
    /// one row and one column, rows on lines and columns separated by `|` otherwise.
    ///
    /// - Throws: ``PrivatePostgresServerError`` (command and output) when `psql` fails, for
    ///   instance when the server is not running.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let result = try ChildProcess.run(
            binaries.psql,
            [
                "-X", "-w", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                "-h", host, "-p", String(port), "-U", username, "-d", database,
                "-c", sql,
            ],
            owner: .currentUser, directory: directory,
            environment: ["PGPASSWORD": password, "PGCONNECT_TIMEOUT": "10"]
        )
        try result.check()
        var output = result.standardOutput
        while output.hasSuffix("\n") { output.removeLast() }
        return output
    }

    /// `CREATE DATABASE <name>`.
    ///
    /// - Parameter name: letters `a`–`z`, digits and `_`, not starting with a digit.
    /// - Throws: ``PrivatePostgresServerError`` for another name, or when `psql` fails (for
    ///   instance, when the database exists).
    public func createDatabase(_ name: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_")
        guard let first = name.first, !first.isNumber, name.count <= 63, name.allSatisfy(allowed.contains) else {
            throw PrivatePostgresServerError(
                "invalid database name \"\(name)\": use a–z, 0–9 and _ (not first), at most 63 characters")
        }
        try psql("CREATE DATABASE \(name)")
    }

    // MARK: - The process-wide server

    /// The process's shared server: started on first use (`name` "larder-shared"), stopped
    /// immediately and removed when the process exits (`atexit`). A failed start is remembered:
    /// every later use throws the same error without trying again.
    public static var shared: PrivatePostgresServer {
        get throws { try SharedServer.slot.server() }
    }

    // MARK: - Implementation

    private static func makePrivateDirectory(name: String, owner: ServerOwner) throws -> URL {
        let prefix = String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
        // As root, the `postgres` user must reach the directory: /tmp (1777) does, a private
        // TMPDIR may not. The Unix socket's path must stay under sun_path's 104 bytes.
        var base = "/tmp"
        if case .currentUser = owner {
            let temporary = NSTemporaryDirectory()
            if !temporary.isEmpty, temporary.utf8.count + prefix.utf8.count + 30 < 100 {
                base = temporary
            }
        }
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!)
        }
        guard made != nil else {
            throw PrivatePostgresServerError(
                "could not create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if case .postgresUser(let uid, let gid) = owner, chown(path, uid, gid) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: path)
            throw PrivatePostgresServerError("could not give \(path) to the postgres user: \(reason)")
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    private static func initializeCluster(
        in directory: URL, password: String, binaries: PostgresBinaries, owner: ServerOwner
    ) throws {
        let passwordFile = directory.appendingPathComponent("password")
        guard FileManager.default.createFile(
            atPath: passwordFile.path, contents: Data(password.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw PrivatePostgresServerError("could not write \(passwordFile.path)")
        }
        defer { try? FileManager.default.removeItem(at: passwordFile) }
        if case .postgresUser(let uid, let gid) = owner, chown(passwordFile.path, uid, gid) != 0 {
            throw PrivatePostgresServerError(
                "could not give \(passwordFile.path) to the postgres user: \(String(cString: strerror(errno)))")
        }
        try ChildProcess.run(
            binaries.initdb,
            [
                "-D", directory.appendingPathComponent("data").path, "-U", "larder",
                "--auth=scram-sha-256", "--pwfile=\(passwordFile.path)", "-E", "UTF8", "--no-locale",
                "--no-sync",
            ],
            owner: owner, directory: directory
        ).check()
    }

    /// Runs `pg_ctl start -w`; a `StartFailure` says whether the port was in use.
    private static func startCluster(
        in directory: URL, port: Int, binaries: PostgresBinaries, owner: ServerOwner
    ) throws {
        let dataDirectory = directory.appendingPathComponent("data")
        let logFile = directory.appendingPathComponent("server.log")
        let logStart = (try? FileManager.default.attributesOfItem(atPath: logFile.path)[.size] as? Int) ?? 0
        let options = [
            "-c listen_addresses=127.0.0.1",
            "-c port=\(port)",
            "-c unix_socket_directories='\(directory.path)'",
            "-c fsync=off",
            "-c full_page_writes=off",
            "-c max_connections=200",
        ].joined(separator: " ")
        let result = try ChildProcess.run(
            binaries.pgCtl,
            ["-D", dataDirectory.path, "-w", "-t", "60", "-l", logFile.path, "-o", options, "start"],
            owner: owner, directory: directory
        )
        if result.succeeded { return }
        let log = Self.logText(logFile, from: logStart)
        let portInUse = log.contains("Address already in use") || log.contains("could not bind")
        let tail = log.split(separator: "\n", omittingEmptySubsequences: false).suffix(30).joined(separator: "\n")
        throw StartFailure(
            portInUse: portInUse,
            error: PrivatePostgresServerError(
                "could not start the private PostgreSQL server on 127.0.0.1:\(port)\n"
                    + result.failureDescription + "\n--- \(logFile.path) (tail) ---\n" + tail))
    }

    private static func logText(_ file: URL, from offset: Int) -> String {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return "(no log)" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: UInt64(offset))
        let data = (try? handle.readToEnd()) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    fileprivate static func postmasterPID(in dataDirectory: URL) -> pid_t? {
        let file = dataDirectory.appendingPathComponent("postmaster.pid")
        guard let data = FileManager.default.contents(atPath: file.path),
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first,
            let pid = pid_t(line.trimmingCharacters(in: .whitespaces)), pid > 0
        else { return nil }
        return pid
    }

    /// Stops the postmaster without a child process: SIGQUIT is `pg_ctl stop -m immediate`.
    /// Waits up to ten seconds for it to remove `postmaster.pid`. For `atexit` and as a fallback.
    fileprivate static func signalPostmaster(in dataDirectory: URL) {
        guard let pid = postmasterPID(in: dataDirectory), kill(pid, SIGQUIT) == 0 else { return }
        for _ in 0..<1000 {
            if postmasterPID(in: dataDirectory) == nil { return }
            usleep(10_000)
        }
    }

    fileprivate static func report(_ message: String) {
        FileHandle.standardError.write(Data("PrivatePostgresServer: \(message)\n".utf8))
    }

    private static func randomPassword() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}

/// An error of ``PrivatePostgresServer``: what failed, with the command's output or the log.
public struct PrivatePostgresServerError: Error, CustomStringConvertible, LocalizedError, Sendable {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
    public var errorDescription: String? { message }
}

/// A failed `pg_ctl start`, and whether the log blames the port.
private struct StartFailure: Error {
    let portInUse: Bool
    let error: PrivatePostgresServerError
}

// MARK: - The process-wide server

private final class SharedServer: @unchecked Sendable {
    static let slot = SharedServer()

    private let lock = NSLock()
    /// Guarded by `lock`.
    private var state: Result<PrivatePostgresServer, PrivatePostgresServerError>?

    func server() throws -> PrivatePostgresServer {
        lock.lock()
        defer { lock.unlock() }
        if let state { return try state.get() }
        do {
            let server = try PrivatePostgresServer.start(name: "larder-shared")
            state = .success(server)
            atexit { SharedServer.slot.tearDownAtExit() }
            return server
        } catch {
            let failure = error as? PrivatePostgresServerError ?? PrivatePostgresServerError("\(error)")
            state = .failure(failure)
            throw failure
        }
    }

    /// Stops the server immediately (SIGQUIT, which is what `pg_ctl stop -m immediate` sends: no
    /// child process at exit) and removes its directory. Gives up on the lock after five seconds
    /// rather than hang the exit behind a thread that holds it.
    private func tearDownAtExit() {
        guard lock.lock(before: Date(timeIntervalSinceNow: 5)) else { return }
        defer { lock.unlock() }
        guard case .success(let server) = state else { return }
        state = nil
        PrivatePostgresServer.signalPostmaster(in: server.dataDirectory)
        do {
            try FileManager.default.removeItem(at: server.directory)
        } catch {
            PrivatePostgresServer.report("could not remove \(server.directory.path): \(error)")
        }
    }
}

// MARK: - Cleaning up after a process that died

/// A shell, started with each server, that waits for this process to end. If the server's
/// directory is still there then (the process crashed, was killed, or exited without
/// ``PrivatePostgresServer/destroy()``), it stops the postmaster immediately (SIGQUIT) and removes
/// the directory. It ends by itself once the directory is gone.
private enum Watchdog {
    private static let script = #"""
        parent=$1 dir=$2
        alive() {
          kill -0 "$parent" 2>/dev/null || return 1
          state=$(sed 's/.*) //' "/proc/$parent/stat" 2>/dev/null | cut -c1)
          [ "$state" != Z ]
        }
        while alive && [ -d "$dir" ]; do sleep 1; done
        [ -d "$dir" ] || exit 0
        pid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null)
        if [ -n "$pid" ] && kill -QUIT "$pid" 2>/dev/null; then
          i=0
          while [ -f "$dir/data/postmaster.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        fi
        rm -rf "$dir"
        """#

    static func spawn(guarding directory: URL) -> pid_t? {
        let null = open("/dev/null", O_WRONLY)
        guard null >= 0 else { return nil }
        defer { _ = close(null) }
        return try? Spawn.spawn(
            ["/bin/sh", "-c", script, "larder-postgres-watchdog", String(getpid()), directory.path],
            environment: ["PATH=/usr/bin:/bin:/usr/sbin:/sbin"], directory: nil,
            standardOutput: null, standardError: null)
    }

    /// Ends a watchdog whose server is gone, and reaps it.
    static func end(_ pid: pid_t) {
        kill(pid, SIGKILL)
        _ = try? Spawn.wait(pid, until: .distantFuture)
    }
}

// MARK: - Binaries

private struct PostgresBinaries: Sendable {
    let binDirectory: String
    let initdb: String
    let pgCtl: String
    let psql: String

    static let located: Result<PostgresBinaries, PrivatePostgresServerError> = Result { try locate() }
        .mapError { $0 as? PrivatePostgresServerError ?? PrivatePostgresServerError("\($0)") }

    private static func locate() throws -> PostgresBinaries {
        let files = FileManager.default
        func has(_ tool: String, in directory: String) -> Bool {
            files.isExecutableFile(atPath: (directory as NSString).appendingPathComponent(tool))
        }
        let environment = ProcessInfo.processInfo.environment

        var found: String?
        if let configured = environment["LARDER_PG_BINDIR"], !configured.isEmpty {
            guard has("initdb", in: configured), has("pg_ctl", in: configured) else {
                throw PrivatePostgresServerError(
                    "LARDER_PG_BINDIR is \(configured), which has no initdb and pg_ctl")
            }
            found = configured
        }
        if found == nil {
            let versions = ((try? files.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
                .compactMap(Int.init)
                .sorted(by: >)
            found = versions.lazy.map { "/usr/lib/postgresql/\($0)/bin" }
                .first { has("initdb", in: $0) && has("pg_ctl", in: $0) }
        }
        if found == nil, let pgConfig = searchPath("pg_config"),
            let result = try? ChildProcess.run(pgConfig, ["--bindir"], owner: .currentUser, directory: nil),
            result.succeeded
        {
            let directory = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            if has("initdb", in: directory), has("pg_ctl", in: directory) { found = directory }
        }
        if found == nil, let initdb = searchPath("initdb") {
            let resolved = URL(fileURLWithPath: initdb).resolvingSymlinksInPath().deletingLastPathComponent().path
            let plain = (initdb as NSString).deletingLastPathComponent
            found = [resolved, plain].first { has("pg_ctl", in: $0) }
        }
        guard let binDirectory = found else {
            throw PrivatePostgresServerError(
                "PostgreSQL is not installed: no initdb in LARDER_PG_BINDIR, /usr/lib/postgresql/*/bin, "
                    + "pg_config --bindir or PATH. Install Debian's postgresql package "
                    + "(Scripts/setup does: apt-get install postgresql), or set LARDER_PG_BINDIR.")
        }
        let directory = binDirectory as NSString
        var psql = directory.appendingPathComponent("psql")
        if !files.isExecutableFile(atPath: psql) {
            psql = files.isExecutableFile(atPath: "/usr/bin/psql") ? "/usr/bin/psql" : (searchPath("psql") ?? psql)
        }
        return PostgresBinaries(
            binDirectory: binDirectory,
            initdb: directory.appendingPathComponent("initdb"),
            pgCtl: directory.appendingPathComponent("pg_ctl"),
            psql: psql)
    }
}

private func searchPath(_ tool: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    return path.split(separator: ":").lazy
        .map { ($0 as Substring).isEmpty ? tool : "\($0)/\(tool)" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}

// MARK: - Who runs the server

private enum ServerOwner: Sendable {
    /// Not root: the tools run as the calling user.
    case currentUser
    /// Root: the tools run as `postgres` (`runuser -u postgres --`), which owns the directory.
    case postgresUser(uid: uid_t, gid: gid_t)

    static func current() throws -> ServerOwner {
        guard geteuid() == 0 else { return .currentUser }
        guard let entry = getpwnam("postgres") else {
            throw PrivatePostgresServerError(
                "running as root, and there is no postgres user for the server to run as (PostgreSQL "
                    + "refuses root): install Debian's postgresql package, which creates it (Scripts/setup)")
        }
        return .postgresUser(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }
}

// MARK: - Free ports

private enum PortAllocator {
    private static let lock = NSLock()
    /// Guarded by `lock`: the ports handed out in this process, never handed out twice (another
    /// server of this process may not have bound its port yet).
    nonisolated(unsafe) private static var handedOut: Set<Int> = []

    /// A port that the kernel gave to a socket bound to 127.0.0.1 port 0, closed again.
    static func freePort() throws -> Int {
        for _ in 0..<20 {
            let port = try ephemeralPort()
            lock.lock()
            let fresh = handedOut.insert(port).inserted
            lock.unlock()
            if fresh { return port }
        }
        throw PrivatePostgresServerError("could not find a free TCP port on 127.0.0.1")
    }

    private static func ephemeralPort() throws -> Int {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, stream, 0)
        guard descriptor >= 0 else {
            throw PrivatePostgresServerError("socket(): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var address = sockaddr_in()
        #if !canImport(Glibc)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            throw PrivatePostgresServerError("binding 127.0.0.1:0: \(String(cString: strerror(errno)))")
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

// MARK: - Child processes

/// A finished child process: its command, exit status and output.
///
/// Not Foundation's `Process`: on Linux it learns that a child exited when a socket that the
/// child inherits closes, and `pg_ctl start` leaves the postmaster (a daemon) holding that socket,
/// so `waitUntilExit` never returned. Children here are spawned with `posix_spawn`, every
/// descriptor but the standard three closed (nor can a postmaster keep another test's descriptors
/// open), and waited for with `waitpid`.
private struct ChildProcess {
    let command: [String]
    /// The exit status; for a child killed by a signal, 128 + the signal's number.
    let status: Int32
    let standardOutput: String
    let standardError: String

    var succeeded: Bool { status == 0 }

    var failureDescription: String {
        let shown = command.map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }
        var text = "command failed (exit status \(status)): \(shown.joined(separator: " "))"
        let out = standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let err = standardError.trimmingCharacters(in: .whitespacesAndNewlines)
        if !out.isEmpty { text += "\n--- standard output ---\n" + out }
        if !err.isEmpty { text += "\n--- standard error ---\n" + err }
        return text
    }

    /// Throws the failure's description unless the command succeeded.
    func check() throws {
        if !succeeded { throw PrivatePostgresServerError(failureDescription) }
    }

    /// Runs `executable` (as `postgres` through `runuser` for `.postgresUser`) in `directory`,
    /// standard input from /dev/null, standard output and error to unlinked temporary files, the
    /// caller's environment without its `PG…` variables plus `extra`; waits for it, and kills it
    /// after `timeout` seconds.
    @discardableResult
    static func run(
        _ executable: String, _ arguments: [String], owner: ServerOwner, directory: URL?,
        environment extra: [String: String] = [:], timeout: TimeInterval = 180
    ) throws -> ChildProcess {
        var command = [executable] + arguments
        if case .postgresUser = owner {
            guard let runuser = ["/usr/sbin/runuser", "/sbin/runuser"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            }) ?? searchPath("runuser") else {
                throw PrivatePostgresServerError(
                    "running as root, and there is no runuser to run \(executable) as postgres")
            }
            command = [runuser, "-u", "postgres", "--"] + command
        }
        if let directory, Spawn.addChdir == nil {
            command = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory.path] + command
        }

        // Nothing of the caller's libpq settings (PGHOST, PGSERVICE, PGPASSFILE, ...) applies.
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment.merge(extra) { _, new in new }

        let output = try TemporaryOutput()
        defer { output.close() }
        let errors = try TemporaryOutput()
        defer { errors.close() }

        let pid = try Spawn.spawn(
            command, environment: environment.map { "\($0.key)=\($0.value)" },
            directory: directory?.path, standardOutput: output.descriptor, standardError: errors.descriptor)

        let deadline = Date(timeIntervalSinceNow: timeout)
        var status = try Spawn.wait(pid, until: deadline)
        var timedOut = false
        if status == nil {
            timedOut = true
            kill(pid, SIGTERM)
            status = try Spawn.wait(pid, until: Date(timeIntervalSinceNow: 5))
            if status == nil {
                kill(pid, SIGKILL)
                status = try Spawn.wait(pid, until: .distantFuture)
            }
        }
        let finished = ChildProcess(
            command: command, status: status ?? -1,
            standardOutput: output.contents(), standardError: errors.contents())
        if timedOut {
            throw PrivatePostgresServerError(
                "timed out after \(Int(timeout)) s and killed\n" + finished.failureDescription)
        }
        return finished
    }
}

/// An unlinked temporary file, close-on-exec, for a child's standard output or error.
private final class TemporaryOutput {
    let descriptor: Int32

    init() throws {
        var template = Array("\(FileManager.default.temporaryDirectory.path)/larder-pg-output-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw PrivatePostgresServerError("mkstemp: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.descriptor = descriptor
    }

    func contents() -> String {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { return "" }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        return String(decoding: data, as: UTF8.self)
    }

    func close() {
        _ = Foundation.close(descriptor)
    }
}

private enum Spawn {
    #if canImport(Glibc)
    typealias Actions = posix_spawn_file_actions_t
    typealias Attributes = posix_spawnattr_t
    #else
    typealias Actions = posix_spawn_file_actions_t?
    typealias Attributes = posix_spawnattr_t?
    #endif
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<Actions>, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<Actions>, UnsafePointer<CChar>) -> Int32

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np` (the Glibc module does not declare
    /// it); nil before, where the descriptors in /proc/self/fd are closed one by one.
    static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    /// glibc 2.29's and macOS's `posix_spawn_file_actions_addchdir_np`; nil before, where a shell
    /// changes the directory.
    static let addChdir: AddChdir? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }

    static func spawn(
        _ command: [String], environment: [String], directory: String?,
        standardOutput: Int32, standardError: Int32
    ) throws -> pid_t {
        var actions = Actions()
        var attributes = Attributes()
        guard posix_spawn_file_actions_init(&actions) == 0 else {
            throw PrivatePostgresServerError("posix_spawn_file_actions_init failed")
        }
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawnattr_init(&attributes) == 0 else {
            throw PrivatePostgresServerError("posix_spawnattr_init failed")
        }
        defer { posix_spawnattr_destroy(&attributes) }

        var failures: Int32 = 0
        failures |= posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        failures |= posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        failures |= posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        if let directory, let addChdir {
            failures |= directory.withCString { addChdir(&actions, $0) }
        }
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        #if canImport(Glibc)
        if let addCloseFrom {
            failures |= addCloseFrom(&actions, 3)
        } else {
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
                failures |= posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
        #else
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        failures |= posix_spawnattr_setsigmask(&attributes, &noSignals)
        failures |= posix_spawnattr_setsigdefault(&attributes, &allSignals)
        failures |= posix_spawnattr_setflags(&attributes, Int16(flags))
        guard failures == 0 else {
            throw PrivatePostgresServerError("could not prepare to spawn \(command.joined(separator: " "))")
        }

        let argv = command.map { strdup($0) }
        let envp = environment.map { strdup($0) }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { arguments in
            (envp + [nil]).withUnsafeBufferPointer { variables in
                posix_spawn(&pid, command[0], &actions, &attributes, arguments.baseAddress!, variables.baseAddress!)
            }
        }
        guard result == 0 else {
            throw PrivatePostgresServerError(
                "could not run \(command.joined(separator: " ")): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Waits for `pid` until `deadline`: its exit status (128 + the signal's number for a signal),
    /// or nil if it still runs.
    static func wait(_ pid: pid_t, until deadline: Date) throws -> Int32? {
        var pause: UInt32 = 1_000
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, deadline == .distantFuture ? 0 : WNOHANG)
            if result == pid {
                let signal = status & 0x7f
                return signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
            if result == -1 {
                if errno == EINTR { continue }
                throw PrivatePostgresServerError("waitpid(\(pid)): \(String(cString: strerror(errno)))")
            }
            if Date() >= deadline { return nil }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }
}
