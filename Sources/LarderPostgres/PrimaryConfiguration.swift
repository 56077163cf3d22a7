#if Extras
import Foundation
import Larder

/// Where a replica's PostgreSQL primary is and how to reach it, in the settings libpq uses:
/// a `postgresql://` URL (``init(url:tablePrefix:)``) or the `PG…` environment variables (``init(environment:tablePrefix:)``).
///
/// The password never appears in ``description``, in errors or in logs.
public struct PrimaryConfiguration: Sendable, CustomStringConvertible {
    /// Whether the connection is encrypted (libpq's `sslmode`).
    public enum TLSMode: String, Sendable {
        /// Never (`sslmode=disable`).
        case disable
        /// When the server offers it (`sslmode=prefer`, libpq's default), without verifying the
        /// server's certificate.
        case prefer
        /// Always, verifying the server's certificate against the system's trust roots
        /// (`sslmode=require`, `verify-ca` and `verify-full` all mean this here).
        case require
    }

    /// The server's host name or address (libpq's `host`).
    public var host: String
    /// The server's port (libpq's `port`, 5432 by default).
    public var port: Int
    /// The user to connect as (libpq's `user`).
    public var username: String
    /// The user's password, if the server asks for one; never shown in ``description``.
    public var password: String?
    /// The database that holds the primary's tables (libpq's `dbname`).
    public var database: String
    /// Whether the connection is encrypted (libpq's `sslmode`).
    public var tls: TLSMode
    /// The prefix of the primary's tables: `<prefix>_head`, `<prefix>_objects`, `<prefix>_log`
    /// and `<prefix>_writes`. Lower-case letters, digits and `_`, starting with a letter, at most
    /// 40 characters; one prefix per replicated store, so that one PostgreSQL database can hold
    /// several. Upper-case letters are refused: PostgreSQL folds unquoted names to lower case,
    /// so `Shop` and `shop` would name the same tables.
    public var tablePrefix: String
    /// How long a connection attempt may take (10 s by default); after it the caller gets
    /// `LarderError/Code/primaryUnavailable`.
    public var connectTimeout: Duration
    /// How long one exchange with the primary may take once connected: a statement and its
    /// rows, a commit's `COMMIT`, a catch-up's fetch (10 s by default). A primary that does not
    /// answer within it (stopped, frozen, cut off) gives `LarderError/Code/primaryUnavailable`,
    /// or `LarderError/Code/commitOutcomeUnknown` when a commit was sent and its outcome cannot
    /// be found; the connection is dropped and made again by the next exchange. Loading a
    /// snapshot of the primary's tables, which can be large, gets ``snapshotTimeout`` instead.
    public var requestTimeout: Duration = .seconds(10)
    /// How long loading a snapshot of the primary's tables may take (a replica that starts
    /// empty or fell behind the retained log); 10 minutes by default.
    public var snapshotTimeout: Duration = .seconds(600)
    /// Whether the engine has LISTEN/NOTIFY (PostgreSQL does; CockroachDB does not): each commit
    /// then notifies the replicas that follow. Without it they learn of commits by polling
    /// (``Replica/Configuration/pollInterval``).
    public var notifies = true
    /// Whether replicas commit through a stored procedure they make on the primary
    /// (`<prefix>_commit_v1`), in one round trip, with the server keeping the statements' plans
    /// (on by default). It needs procedures that end transactions (PostgreSQL 11 or later); where
    /// the procedure cannot be made or called, replicas commit with `BEGIN`, one statement and
    /// `COMMIT` (three round trips) by themselves. Off, they always do.
    public var usesCommitProcedure = true

    /// Settings given one by one; the defaults are a server on this machine and libpq's `prefer`.
    public init(host: String = "127.0.0.1", port: Int = 5432, username: String, password: String? = nil, database: String,
                tls: TLSMode = .prefer, tablePrefix: String = "larder", connectTimeout: Duration = .seconds(10)) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.tablePrefix = tablePrefix
        self.connectTimeout = connectTimeout
    }

    /// Reads a libpq connection URL: `postgresql://user:password@host:port/database?sslmode=…`
    /// (`postgres://` too). Missing parts take libpq's defaults: host `localhost`, port 5432,
    /// user and database from ``init(environment:tablePrefix:)``'s rules. Percent-escapes are decoded.
    /// - Throws: `LarderError/Code/invalidConfiguration` for another scheme, a bad port, an
    ///   unknown `sslmode`, or a malformed `%` escape (libpq refuses them too, rather than drop
    ///   the part that holds one).
    public init(url: String, tablePrefix: String = "larder") throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
              scheme == "postgresql" || scheme == "postgres" else {
            throw LarderError(.invalidConfiguration, "a primary's URL starts with postgresql:// (or postgres://)", operation: "PrimaryConfiguration")
        }
        // Foundation mends a malformed escape (it reads `%ZZ` as `%25ZZ`): check the text itself.
        let bytes = Array(url.utf8)
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "%") {
            let isHex = { (i: Int) in i < bytes.count && (bytes[i].isHexDigitASCII) }
            guard isHex(offset + 1), isHex(offset + 2) else {
                throw LarderError(.invalidConfiguration, "the primary's URL has a malformed % escape at character \(offset + 1) (write % as %25)", operation: "PrimaryConfiguration")
            }
        }
        /// A part of the URL with its escapes decoded.
        func decoded(_ part: String?, _ name: String) throws -> String? {
            guard let part else { return nil }
            guard let decoded = part.removingPercentEncoding else {
                throw LarderError(.invalidConfiguration, "the primary's URL has a malformed % escape in its \(name) (write % as %25)", operation: "PrimaryConfiguration")
            }
            return decoded
        }
        let defaults = PrimaryConfiguration.defaults(from: [:])
        let user = try decoded(components.percentEncodedUser, "user name")
        let path = try decoded(String(components.percentEncodedPath.drop { $0 == "/" }), "database name")
        self.init(host: try decoded(components.percentEncodedHost, "host").flatMap { $0.isEmpty ? nil : $0 } ?? "localhost",
                  port: components.port ?? 5432,
                  username: user ?? defaults.username,
                  password: try decoded(components.percentEncodedPassword, "password"),
                  database: path.flatMap { $0.isEmpty ? nil : $0 } ?? user ?? defaults.database,
                  tablePrefix: tablePrefix)
        if let port = components.port, !(1...65535).contains(port) {
            throw LarderError(.invalidConfiguration, "the primary's port \(port) is not between 1 and 65535", operation: "PrimaryConfiguration")
        }
        if let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value {
            tls = try Self.tlsMode(mode)
        }
    }

    /// The settings libpq reads from the environment: `PGHOST` (`localhost`), `PGPORT` (5432),
    /// `PGUSER` (the user running the program), `PGPASSWORD`, `PGDATABASE` (the user name) and
    /// `PGSSLMODE` (`prefer`).
    /// - Throws: `LarderError/Code/invalidConfiguration` for a `PGPORT` that is not a port
    ///   number or a `PGSSLMODE` libpq does not know (libpq refuses both).
    public init(environment variables: [String: String] = ProcessInfo.processInfo.environment, tablePrefix: String = "larder") throws {
        // Empty means unset, as in libpq.
        if let port = variables["PGPORT"], !port.isEmpty, Int(port).map({ (1...65535).contains($0) }) != true {
            throw LarderError(.invalidConfiguration, "PGPORT is \"\(port.prefix(40))\", not a port number between 1 and 65535", operation: "PrimaryConfiguration")
        }
        self = Self.defaults(from: variables, tablePrefix: tablePrefix)
        if let mode = variables["PGSSLMODE"] { tls = try Self.tlsMode(mode) }
    }

    /// The settings libpq reads from the environment, with an unreadable `PGPORT` taken as 5432
    /// and an unknown `PGSSLMODE` as `require`.
    @available(*, deprecated, message: "use init(environment:tablePrefix:), which refuses a PGPORT or PGSSLMODE libpq would refuse")
    public static func environment(_ variables: [String: String] = ProcessInfo.processInfo.environment, tablePrefix: String = "larder") -> PrimaryConfiguration {
        var configuration = defaults(from: variables, tablePrefix: tablePrefix)
        configuration.tls = variables["PGSSLMODE"].map { (try? tlsMode($0)) ?? .require } ?? .prefer
        return configuration
    }

    private static func defaults(from variables: [String: String], tablePrefix: String = "larder") -> PrimaryConfiguration {
        let user = variables["PGUSER"] ?? variables["USER"] ?? "postgres"
        return PrimaryConfiguration(
            host: variables["PGHOST"].flatMap { $0.isEmpty ? nil : $0 } ?? "localhost", port: variables["PGPORT"].flatMap(Int.init) ?? 5432,
            username: user, password: variables["PGPASSWORD"], database: variables["PGDATABASE"] ?? user,
            tablePrefix: tablePrefix)
    }

    private static func tlsMode(_ mode: String) throws -> TLSMode {
        switch mode {
        case "disable", "allow": return .disable
        case "prefer": return .prefer
        case "require", "verify-ca", "verify-full": return .require
        default: throw LarderError(.invalidConfiguration, "sslmode \(mode) is not one of disable, allow, prefer, require, verify-ca, verify-full", operation: "PrimaryConfiguration")
        }
    }

    /// The settings without the password: `postgresql://user@host:port/database (tls: prefer)`.
    public var description: String {
        "postgresql://\(username)@\(host):\(port)/\(database) (tls: \(tls.rawValue), tables: \(tablePrefix)_*)"
    }

    /// Refuses a table prefix that is not a plain lower-case SQL identifier, and deadlines that
    /// are not positive.
    func validated() throws -> PrimaryConfiguration {
        let lower: ClosedRange<UInt8> = 0x61...0x7a
        let valid = tablePrefix.utf8.first.map { lower.contains($0) } == true
            && tablePrefix.utf8.allSatisfy { lower.contains($0) || (0x30...0x39).contains($0) || $0 == 0x5f }
            && tablePrefix.utf8.count <= 40
        guard valid else {
            let folded = tablePrefix.utf8.contains { (0x41...0x5a).contains($0) }
                ? "; PostgreSQL folds unquoted names to lower case, so \"\(tablePrefix)\" would name the tables of \"\(tablePrefix.lowercased())\": use that"
                : ""
            throw LarderError(.invalidConfiguration, "the table prefix must be lower-case letters, digits and _, starting with a letter, at most 40 characters\(folded)", operation: "Replica.open")
        }
        for (name, limit) in [("connectTimeout", connectTimeout), ("requestTimeout", requestTimeout), ("snapshotTimeout", snapshotTimeout)] where limit <= .zero {
            throw LarderError(.invalidConfiguration, "the primary's \(name) must be positive", operation: "Replica.open")
        }
        return self
    }
}

private extension UInt8 {
    var isHexDigitASCII: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
#endif
