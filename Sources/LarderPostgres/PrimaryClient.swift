import Foundation
import Larder
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// One connection to the primary, made again after it breaks, and the statements a replica
/// sends over it. Its statements run one at a time.
actor PrimaryClient {
    /// What the primary said to a commit.
    enum CommitOutcome: Sendable, Equatable {
        /// Made, under this number.
        case committed(UInt64)
        /// A commit after the replica's position wrote what the transaction read.
        case conflict
        /// The log no longer holds the commits after the replica's position.
        case behind
    }

    /// Commits after a position, with the head of the log.
    struct Commits: Sendable {
        var commits: [(number: UInt64, record: [UInt8])]
        /// The number of the primary's last commit.
        var head: UInt64
        /// The first commit the log still holds.
        var retainedFrom: UInt64
    }

    let configuration: PrimaryConfiguration
    let sql: PrimarySQL
    private let logger: Logger
    private var connection: PostgresConnection?
    private var connectionCount = 0

    init(configuration: PrimaryConfiguration, logger: Logger) {
        self.configuration = configuration
        self.sql = PrimarySQL(prefix: configuration.tablePrefix, notifies: configuration.notifies)
        self.logger = logger
    }

    deinit {
        // A replica dropped without close(): the connection is closed.
        if let connection { Self.discard(connection) }
    }

    /// Closes `connection` without waiting for it. PostgresNIO closes a connection through its
    /// state machine, which can hold the close back (a LISTEN being set up, a statement in
    /// flight) for as long as the server does not answer; nobody should wait on that. The
    /// connection is kept until it is closed (PostgresNIO stops a program that drops an open one).
    static func discard(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in _ = connection }
    }

    // MARK: The connection

    /// The open connection, made when there is none.
    /// - Throws: ``LarderError/Code/primaryUnavailable`` when the primary cannot be reached.
    func connected() async throws -> PostgresConnection {
        guard !isShutDown else {
            throw LarderError(.databaseClosed, "the replica was closed", operation: "connect")
        }
        if let connection, !connection.isClosed { return connection }
        if let connection { Self.discard(connection) }
        connection = nil
        connectionCount += 1
        do {
            var options = PostgresConnection.Configuration(
                host: configuration.host, port: configuration.port, username: configuration.username,
                password: configuration.password, database: configuration.database, tls: try tls())
            options.options.connectTimeout = .nanoseconds(Int64(configuration.connectTimeout.components.seconds) * 1_000_000_000
                                                           + configuration.connectTimeout.components.attoseconds / 1_000_000_000)
            let made = try await PostgresConnection.connect(configuration: options, id: connectionCount, logger: logger)
            do {
                try await made.query("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE", logger: logger)
            } catch {
                Self.discard(made)
                throw error
            }
            connection = made
            return made
        } catch {
            throw Self.failure(error, operation: "connect", configuration: configuration)
        }
    }

    /// The TLS setting of every connection, made once (a context loads the system's trust
    /// roots when it is made).
    private func tls() throws -> PostgresConnection.Configuration.TLS {
        if let madeTLS { return madeTLS }
        let made: PostgresConnection.Configuration.TLS
        switch configuration.tls {
        case .disable:
            made = .disable
        case .prefer:
            // Without verification, as libpq's `prefer`: no trust roots to load.
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            tls.trustRoots = .certificates([])
            made = .prefer(try NIOSSLContext(configuration: tls))
        case .require:
            made = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        madeTLS = made
        return made
    }

    private var madeTLS: PostgresConnection.Configuration.TLS?

    /// Closes the connection; with `finally`, for good: no statement makes another one (the
    /// replica is closing, and a statement in flight must not keep it open).
    func close(finally: Bool = false) async {
        if finally { isShutDown = true }
        if let connection { Self.discard(connection) }
        connection = nil
    }

    /// Set by ``close(finally:)``.
    private var isShutDown = false

    /// Runs `query`; a broken connection is dropped, to be made again by the next statement.
    private func run(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        let connection = try await connected()
        do {
            return try await connection.query(query, logger: logger)
        } catch {
            if connection.isClosed || Self.isConnectionFailure(error) { self.connection = nil }
            throw error
        }
    }

    private func runCollecting<T: Sendable>(_ query: PostgresQuery, operation: String, _ rows: (PostgresRowSequence) async throws -> T) async throws -> T {
        do {
            return try await rows(try await run(query))
        } catch {
            throw Self.failure(error, operation: operation, configuration: configuration)
        }
    }

    // MARK: Statements

    /// Makes the primary's tables when they are missing and returns the primary's identity.
    func prepareSchema() async throws -> String {
        for statement in sql.schema { try await runCreating(statement) }
        var binds = PostgresBindings()
        binds.append(UUID().uuidString.lowercased())
        try await runCreating(sql.createHead, binds: binds)
        let identity = try await runCollecting(PostgresQuery(unsafeSQL: sql.identity), operation: "prepare the primary") { rows in
            var identity: String?
            for try await name in rows.decode(String.self) { identity = name }
            return identity
        }
        guard let identity else {
            throw LarderError(.primaryRefused, "the primary's head table has no row", operation: "prepare the primary")
        }
        return identity
    }

    /// Runs one statement that makes something if it is missing. Replicas that make the tables at
    /// the same moment can fail on the catalog's unique indexes (`IF NOT EXISTS` is checked before
    /// the catalog row is written): the statement is sent again, after a short random pause,
    /// and then finds what the other made.
    private func runCreating(_ statement: String, binds: PostgresBindings = PostgresBindings()) async throws {
        var attempt = 0
        while true {
            attempt += 1
            do {
                _ = try await run(PostgresQuery(unsafeSQL: statement, binds: binds))
                return
            } catch {
                let state = Self.sqlState(error)
                let raced = state == "23505" || state == "42P07" || state == "42710" || Self.isSerializationFailure(error)
                guard raced, attempt < 20 else { throw Self.failure(error, operation: "prepare the primary", configuration: configuration) }
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...50)))
            }
        }
    }

    /// Sends `record` as a commit made on top of `position`, with what the transaction read.
    /// Sends it again while it fails only on serializability (another commit was being made).
    /// - Throws: ``LarderError/Code/primaryUnavailable`` when the primary cannot be reached (the
    ///   commit was not sent), ``LarderError/Code/commitOutcomeUnknown`` when the connection broke
    ///   after it was sent and the outcome cannot be found, ``LarderError/Code/primaryRefused``.
    func commit(_ record: ReplicatedCommit, reads: ReadSet, basedOn position: UInt64) async throws -> CommitOutcome {
        let token = UUID().uuidString.lowercased()
        let query = try commitQuery(record, reads: reads, position: position, token: token)
        while true {
            let connection = try await connected()
            let rows: PostgresRowSequence
            do {
                rows = try await connection.query(query, logger: logger)
                var outcome: CommitOutcome = .conflict
                for try await (number, hit, behind, ahead, _) in rows.decode((Int64?, Bool, Bool, Bool, Int64).self) {
                    if let number {
                        outcome = .committed(UInt64(number))
                    } else if ahead {
                        throw LarderError(.replicaMismatch, "the replica shows the primary's commit \(position), which the primary no longer has: the primary lost commits it had acknowledged (restored from an older backup?); make a new replica", operation: "commit")
                    } else if behind && !hit {
                        outcome = .behind
                    }
                }
                return outcome
            } catch let error as LarderError {
                throw error
            } catch {
                if Self.isSerializationFailure(error) { continue }
                if Self.isConnectionFailure(error) || connection.isClosed {
                    self.connection = nil
                    return try await outcome(ofToken: token, after: error)
                }
                throw Self.failure(error, operation: "commit", configuration: configuration)
            }
        }
    }

    /// Finds out whether the commit sent with `token` was made, after its connection broke.
    private func outcome(ofToken token: String, after failure: any Error) async throws -> CommitOutcome {
        var binds = PostgresBindings()
        binds.append(token)
        do {
            let number = try await runCollecting(PostgresQuery(unsafeSQL: sql.committedToken, binds: binds), operation: "commit") { rows in
                var number: Int64?
                for try await value in rows.decode(Int64.self) { number = value }
                return number
            }
            if let number { return .committed(UInt64(number)) }
        } catch {}
        throw LarderError(
            .commitOutcomeUnknown,
            "the connection to the primary broke after the commit was sent, and whether it was made could not be found out; if it was, the replica shows it once it reaches the primary again",
            operation: "commit", underlying: Self.describe(failure))
    }

    private func commitQuery(_ record: ReplicatedCommit, reads: ReadSet, position: UInt64, token: String) throws -> PostgresQuery {
        var putCollections: [String] = [], putKeys: [String] = [], objects: [ByteBuffer] = [], metadata: [ByteBuffer] = [], hasMetadata: [Bool] = []
        var removedCollections: [String] = [], removedKeys: [String] = []
        var writtenCollections: [String] = [], writtenKeys: [String] = []
        for row in record.rows {
            try Self.checkText(row.collection, "collection")
            try Self.checkText(row.key, "key")
            writtenCollections.append(row.collection)
            writtenKeys.append(row.key)
            if let object = row.object {
                putCollections.append(row.collection)
                putKeys.append(row.key)
                objects.append(ByteBuffer(bytes: object))
                metadata.append(ByteBuffer(bytes: row.metadata ?? []))
                hasMetadata.append(row.metadata != nil)
            } else {
                removedCollections.append(row.collection)
                removedKeys.append(row.key)
            }
        }
        for collection in record.cleared {
            writtenCollections.append(collection)
            writtenKeys.append("")
        }
        var readKeysCollections: [String] = [], readKeys: [String] = []
        for (collection, key) in reads.pointReads {
            readKeysCollections.append(collection)
            readKeys.append(key)
        }
        let readCollections = reads.collections.sorted()
        var shape = CommitShape()
        shape.readsEverything = reads.everything
        shape.readsCollections = !readCollections.isEmpty
        shape.readsKeys = !readKeys.isEmpty
        shape.removesEverything = record.removedEverything
        shape.clears = !record.cleared.isEmpty
        shape.puts = !putKeys.isEmpty
        shape.removals = !removedKeys.isEmpty
        var binds = PostgresBindings(capacity: 18)
        var placeholders: [CommitShape.Value: String] = [:]
        let encoded = try record.encoded()
        let text = sql.commit(shape) { value in
            if let placeholder = placeholders[value] { return placeholder }
            let type: String
            switch value {
            case .position: binds.append(Int64(position)); type = "bigint"
            case .readCollections: binds.append(readCollections); type = "text[]"
            case .readKeyCollections: binds.append(readKeysCollections); type = "text[]"
            case .readKeys: binds.append(readKeys); type = "text[]"
            case .removesEverything: binds.append(record.removedEverything); type = "boolean"
            case .cleared: binds.append(record.cleared); type = "text[]"
            case .putCollections: binds.append(putCollections); type = "text[]"
            case .putKeys: binds.append(putKeys); type = "text[]"
            case .objects: binds.append(objects); type = "bytea[]"
            case .metadata: binds.append(metadata); type = "bytea[]"
            case .hasMetadata: binds.append(hasMetadata); type = "boolean[]"
            case .removedCollections: binds.append(removedCollections); type = "text[]"
            case .removedKeys: binds.append(removedKeys); type = "text[]"
            case .writtenCollections: binds.append(writtenCollections); type = "text[]"
            case .writtenKeys: binds.append(writtenKeys); type = "text[]"
            case .record: binds.append(ByteBuffer(bytes: encoded)); type = "bytea"
            case .token: binds.append(token); type = "text"
            }
            let placeholder = "$\(binds.count)::\(type)"
            placeholders[value] = placeholder
            return placeholder
        }
        return PostgresQuery(unsafeSQL: text, binds: binds)
    }

    /// PostgreSQL's `text` holds no NUL; a key with one cannot be replicated.
    private static func checkText(_ text: String, _ what: String) throws {
        if text.utf8.contains(0) {
            throw LarderError(.invalidConfiguration, "a \(what) that contains NUL cannot be stored on a PostgreSQL primary", operation: "commit")
        }
    }

    /// Up to `limit` commits after `position`, with the head of the log.
    func commits(after position: UInt64, limit: Int) async throws -> Commits {
        var binds = PostgresBindings()
        binds.append(Int64(position))
        binds.append(Int64(limit))
        return try await runCollecting(PostgresQuery(unsafeSQL: sql.commitsAfter, binds: binds), operation: "follow") { rows in
            var result = Commits(commits: [], head: 0, retainedFrom: 1)
            for try await (number, record, head, retainedFrom) in rows.decode((Int64?, ByteBuffer?, Int64, Int64).self) {
                result.head = UInt64(head)
                result.retainedFrom = UInt64(retainedFrom)
                if let number, let record { result.commits.append((UInt64(number), Array(buffer: record))) }
            }
            return result
        }
    }

    /// Every object of the primary and the commit they are as of, read in one snapshot.
    func snapshot() async throws -> (position: UInt64, commit: ReplicatedCommit) {
        let connection = try await connected()
        do {
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
            do {
                var position: UInt64 = 0
                for try await (_, number) in try await connection.query(PostgresQuery(unsafeSQL: sql.headPosition), logger: logger).decode((String, Int64).self) {
                    position = UInt64(number)
                }
                var commit = ReplicatedCommit()
                commit.removedEverything = true
                let rows = try await connection.query(PostgresQuery(unsafeSQL: sql.allObjects), logger: logger)
                for try await (collection, key, object, metadata) in rows.decode((String, String, ByteBuffer, ByteBuffer?).self) {
                    commit.rows.append(ReplicatedCommit.Row(
                        collection: collection, key: key, object: Array(buffer: object), metadata: metadata.map { Array(buffer: $0) },
                        objectChanged: true, metadataChanged: metadata != nil))
                }
                try await connection.query("COMMIT", logger: logger)
                return (position, commit)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        } catch {
            if Self.isConnectionFailure(error) || connection.isClosed { self.connection = nil }
            throw Self.failure(error, operation: "bootstrap", configuration: configuration)
        }
    }

    /// Forgets the commits before `retainedFrom`.
    func prune(before retainedFrom: UInt64) async throws {
        var binds = PostgresBindings()
        binds.append(Int64(retainedFrom))
        _ = try await runCollecting(PostgresQuery(unsafeSQL: sql.prune, binds: binds), operation: "prune") { _ in () }
    }

    // MARK: Errors

    private static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    static func isSerializationFailure(_ error: any Error) -> Bool {
        let state = sqlState(error)
        return state == "40001" || state == "40P01"
    }

    static func isConnectionFailure(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return !(error is LarderError) }
        if let state = error.serverInfo?[.sqlState] {
            // Class 08 (connection exception), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now).
            return state.hasPrefix("08") || state.hasPrefix("57P")
        }
        return error.code != .server
    }

    /// What the replica's caller sees of a failure of the primary: never the password.
    static func failure(_ error: any Error, operation: String, configuration: PrimaryConfiguration) -> LarderError {
        if let error = error as? LarderError { return error }
        if let state = sqlState(error), !isConnectionFailure(error) {
            let message = (error as? PSQLError)?.serverInfo?[.message] ?? "refused"
            return LarderError(.primaryRefused, "the primary refused the statement (SQLSTATE \(state)): \(message)", operation: operation)
        }
        return LarderError(.primaryUnavailable, "the primary \(configuration) could not be reached", operation: operation, underlying: describe(error))
    }

    /// A description of `error` that holds no secret: PostgresNIO's errors carry the query and
    /// its bindings; only the code and the server's message are kept.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            var text = "PSQLError \(error.code)"
            if let state = error.serverInfo?[.sqlState] { text += " SQLSTATE \(state)" }
            if let message = error.serverInfo?[.message] { text += ": \(message)" }
            if let underlying = error.underlying { text += " (\(type(of: underlying)): \(underlying))" }
            return text
        }
        return String(describing: error)
    }
}
