import Foundation
import Larder

/// Where a replica's PostgreSQL primary is and how to reach it, in the settings libpq uses:
/// a `postgresql://` URL (``init(url:)``) or the `PG…` environment variables (``environment(_:)``).
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
    /// and `<prefix>_writes`. Letters, digits and `_`, starting with a letter; one prefix per
    /// replicated store, so that one PostgreSQL database can hold several.
    public var tablePrefix: String
    /// How long a connection attempt may take.
    public var connectTimeout: Duration
    /// Whether the engine has LISTEN/NOTIFY (PostgreSQL does; CockroachDB does not): each commit
    /// then notifies the replicas that follow. Without it they learn of commits by polling
    /// (``Replica/Configuration/pollInterval``).
    public var notifies = true

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
    /// user and database from ``environment(_:)``'s rules. Percent-escapes are decoded.
    /// - Throws: ``LarderError/Code/invalidConfiguration`` for another scheme, a bad port or an
    ///   unknown `sslmode`.
    public init(url: String, tablePrefix: String = "larder") throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme,
              scheme == "postgresql" || scheme == "postgres" else {
            throw LarderError(.invalidConfiguration, "a primary's URL starts with postgresql:// (or postgres://)", operation: "PrimaryConfiguration")
        }
        let defaults = PrimaryConfiguration.environment([:])
        self.init(host: components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost",
                  port: components.port ?? 5432,
                  username: components.user?.removingPercentEncoding ?? defaults.username,
                  password: components.password?.removingPercentEncoding,
                  database: String(components.path.drop { $0 == "/" }).removingPercentEncoding.flatMap { $0.isEmpty ? nil : $0 }
                      ?? components.user ?? defaults.database,
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
    /// `PGSSLMODE` (`prefer`). An unknown `PGSSLMODE` is read as `require`: the safer guess.
    public static func environment(_ variables: [String: String] = ProcessInfo.processInfo.environment, tablePrefix: String = "larder") -> PrimaryConfiguration {
        let user = variables["PGUSER"] ?? variables["USER"] ?? "postgres"
        return PrimaryConfiguration(
            host: variables["PGHOST"] ?? "localhost", port: variables["PGPORT"].flatMap(Int.init) ?? 5432,
            username: user, password: variables["PGPASSWORD"], database: variables["PGDATABASE"] ?? user,
            tls: variables["PGSSLMODE"].map { (try? tlsMode($0)) ?? .require } ?? .prefer, tablePrefix: tablePrefix)
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

    /// Refuses a table prefix that is not a plain SQL identifier.
    func validated() throws -> PrimaryConfiguration {
        let valid = tablePrefix.utf8.first.map { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7a } == true
            && tablePrefix.utf8.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7a || (0x30...0x39).contains($0) || $0 == 0x5f }
            && tablePrefix.utf8.count <= 40
        guard valid else {
            throw LarderError(.invalidConfiguration, "the table prefix must be letters, digits and _, starting with a letter, at most 40 characters", operation: "Replica.open")
        }
        return self
    }
}
