#if Extras
import Foundation
import Larder
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// One connection to the primary, made again after it breaks, and the exchanges a replica has
/// with the primary over it.
///
/// Exchanges run one at a time, each to its end (a commit's `BEGIN` … `COMMIT` holds the
/// connection throughout), and each within a deadline (``PrimaryConfiguration/requestTimeout``):
/// a primary that does not answer gives an error, never a wait without end.
actor PrimaryClient {
    /// What the primary said to a commit.
    enum CommitOutcome: Sendable, Equatable {
        /// Made, and its `COMMIT` completed, under this number and token.
        case committed(number: UInt64, token: String)
        /// A commit after the replica's position wrote what the transaction read.
        case conflict
        /// The log no longer holds the commits after the replica's position.
        case behind
    }

    /// Commits after a position, with the head of the log.
    struct Commits: Sendable {
        var commits: [(number: UInt64, record: [UInt8], token: String)]
        /// The number of the primary's last commit.
        var head: UInt64
        /// The first commit the log still holds.
        var retainedFrom: UInt64
        /// The token of the primary's commit at the position asked after; `nil` when the log
        /// does not hold that commit (position 0, pruned, or past the head).
        var tokenAtPosition: String?
        /// The primary's identity (made with its tables).
        var identity: String
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

    // MARK: One exchange at a time

    /// Whether an exchange holds the connection.
    private var busy = false
    /// The exchanges waiting for it, in order.
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` when no other exchange holds the connection. The actor alone does not keep
    /// exchanges apart: it runs another call at each `await`, and a statement sent between a
    /// commit's `BEGIN` and its `COMMIT` would run inside that transaction.
    private func exclusively<T>(_ body: () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }

    // MARK: The connection

    /// The open connection, made when there is none, within
    /// ``PrimaryConfiguration/connectTimeout``.
    /// - Throws: `LarderError/Code/primaryUnavailable` when the primary cannot be reached.
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
            let limit = configuration.connectTimeout
            options.options.connectTimeout = .nanoseconds(Self.nanoseconds(limit))
            let id = connectionCount, logger = self.logger, settings = options
            // The whole handshake has the deadline: a server that accepts the TCP connection
            // and then says nothing (SIGSTOP) is never reached by PostgresNIO's own timeout.
            let made = try await Deadline.run(limit, late: { Self.discard($0) }) {
                let made = try await PostgresConnection.connect(configuration: settings, id: id, logger: logger)
                do {
                    try await made.query("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE", logger: logger)
                } catch {
                    Self.discard(made)
                    throw error
                }
                return made
            }
            guard !isShutDown else {
                Self.discard(made)
                throw LarderError(.databaseClosed, "the replica was closed", operation: "connect")
            }
            connection = made
            return made
        } catch {
            throw Self.failure(error, operation: "connect", configuration: configuration)
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
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

    /// Runs `work` on the connection (made if there is none) within `limit` (the request
    /// timeout by default). A broken connection, or one that did not answer in time, is dropped,
    /// to be made again by the next exchange. Errors come as PostgresNIO's or ``DeadlinePassed``.
    ///
    /// With `pinned`, the work runs on that connection or not at all (a transaction's later
    /// statements: on another connection, `COMMIT` would find no transaction and succeed).
    private func onConnection<T: Sendable>(
        pinned: PostgresConnection? = nil, limit: Duration? = nil,
        _ work: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws -> T {
        let connection: PostgresConnection
        if let pinned {
            guard !pinned.isClosed, pinned === self.connection else { throw ConnectionLost() }
            connection = pinned
        } else {
            connection = try await connected()
        }
        let logger = self.logger
        do {
            return try await Deadline.run(limit ?? configuration.requestTimeout) { try await work(connection, logger) }
        } catch {
            if error is DeadlinePassed || connection.isClosed || Self.isConnectionFailure(error) {
                drop(connection)
            }
            throw error
        }
    }

    /// The connection a transaction began on broke before the transaction ended.
    private struct ConnectionLost: Error, CustomStringConvertible {
        var description: String { "the connection the transaction began on was closed" }
    }

    /// Forgets `connection` (closing it) if it is the current one.
    private func drop(_ connection: PostgresConnection) {
        Self.discard(connection)
        if self.connection === connection { self.connection = nil }
    }

    /// Runs one statement and hands its rows to `rows`, as an exchange of its own; every error
    /// comes as a `LarderError` for `operation`.
    private func statement<T: Sendable>(
        _ query: PostgresQuery, operation: String, _ rows: @escaping @Sendable (PostgresRowSequence) async throws -> T
    ) async throws -> T {
        do {
            return try await exclusively {
                try await onConnection { connection, logger in try await rows(try await connection.query(query, logger: logger)) }
            }
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
        let identity = try await statement(PostgresQuery(unsafeSQL: sql.identity), operation: "prepare the primary") { rows in
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
    private func runCreating(_ text: String, binds: PostgresBindings = PostgresBindings()) async throws {
        var attempt = 0
        while true {
            attempt += 1
            do {
                try await exclusively {
                    try await onConnection { connection, logger in
                        _ = try await connection.query(PostgresQuery(unsafeSQL: text, binds: binds), logger: logger)
                    }
                }
                return
            } catch {
                let state = Self.sqlState(error)
                let raced = state == "23505" || state == "42P07" || state == "42710" || Self.isSerializationFailure(error)
                guard raced, attempt < 20 else { throw Self.failure(error, operation: "prepare the primary", configuration: configuration) }
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...50)))
            }
        }
    }

    /// What the commit statement decided, before its `COMMIT`.
    private enum Decision: Sendable {
        case made(UInt64)
        case conflict
        case behind
        case ahead
        case foreign
    }

    /// A commit a replica sends: what its transaction changed and read, and the position it ran
    /// on with that position's token.
    struct CommitRequest: Sendable {
        var commit: ReplicatedCommit
        var reads: ReadSet
        var position: UInt64
        var positionToken: String?
        /// The token to send it with; a new one when `nil` (a pending commit keeps its own).
        var token: String? = nil
        /// Whether it follows the requests before it (pending commits sent in their order):
        /// see ``PrimarySQL/commitProcedure``.
        var chained = false
    }

    /// Sends `requests` as commits, each made on top of its position with what its transaction
    /// read, and returns, for each, once the primary has committed it or refused it.
    ///
    /// They go together, in one round trip and one transaction, through the commit procedure;
    /// where there is none, one after the other, each as a statement between `BEGIN` and
    /// `COMMIT`. Either way each is acknowledged only once its `COMMIT` has completed: PostgreSQL
    /// can refuse a transaction at `COMMIT`, and an autocommit statement's commit comes after its
    /// rows, where PostgresNIO no longer looks. A refusal on serializability (another commit was
    /// being made) is a retry, wherever it comes. Each request is checked on its own: one
    /// refused on a conflict does not keep the others from being made.
    ///
    /// Each result's failure is `LarderError/Code/primaryUnavailable` when the primary cannot
    /// be reached or does not answer before `COMMIT` is sent (nothing was committed);
    /// `LarderError/Code/commitOutcomeUnknown` when the connection broke, or the deadline
    /// passed, after `COMMIT` was sent and the outcome cannot be found;
    /// `LarderError/Code/replicaMismatch` when the primary's history is not the replica's;
    /// `LarderError/Code/primaryRefused`; `LarderError/Code/invalidConfiguration` for a key
    /// PostgreSQL cannot hold.
    func commit(_ requests: [CommitRequest]) async -> [Result<CommitOutcome, LarderError>] {
        var results = [Result<CommitOutcome, LarderError>?](repeating: nil, count: requests.count)
        var sent: [(index: Int, arguments: CommitArguments)] = []
        for (index, request) in requests.enumerated() {
            do {
                var arguments = try CommitArguments(request.commit, reads: request.reads, position: request.position,
                                                    positionToken: request.positionToken, token: request.token ?? UUID().uuidString.lowercased())
                arguments.chained = request.chained
                sent.append((index, arguments))
            } catch {
                results[index] = .failure(Self.failure(error, operation: "commit", configuration: configuration))
            }
        }
        do {
            if !sent.isEmpty, try await commitProcedureAvailable(),
               let outcomes = try await commitByProcedure(CommitBatch(sent.map(\.arguments))) {
                for (place, outcome) in outcomes.enumerated() { results[sent[place].index] = .success(outcome) }
                sent = []
            }
        } catch {
            let failure = Self.failure(error, operation: "commit", configuration: configuration)
            for (index, _) in sent { results[index] = .failure(failure) }
            sent = []
        }
        var chainBroken = false
        for (index, arguments) in sent {
            if arguments.chained && chainBroken {
                // It may have read what a refused commit before it wrote: not sent.
                results[index] = .success(.conflict)
                continue
            }
            do {
                let outcome = try await commitByStatement(arguments)
                results[index] = .success(outcome)
                if case .committed = outcome {} else { chainBroken = true }
            } catch {
                results[index] = .failure(Self.failure(error, operation: "commit", configuration: configuration))
                chainBroken = true
            }
        }
        return results.map { $0! }
    }

    // MARK: Committing through the procedure

    /// Whether commits go through the commit procedure: `nil` until it was made (or found), or
    /// could not be; `false` for good once the engine refused to make or call it.
    private var procedureAvailable: Bool?

    /// Makes the commit procedure the first time it is needed, and says whether commits go
    /// through it.
    /// - Throws: `LarderError/Code/primaryUnavailable` when the primary cannot be reached.
    private func commitProcedureAvailable() async throws -> Bool {
        guard configuration.usesCommitProcedure else { return false }
        if let procedureAvailable { return procedureAvailable }
        do {
            try await runCreating(sql.commitProcedure)
            procedureAvailable = true
        } catch let error as LarderError where error.code == .primaryRefused {
            // An engine without such procedures (or a user who may not make one): the
            // three-round-trip commit needs neither.
            logger.notice("Larder: the primary refused the commit procedure; committing in three round trips", metadata: ["error": "\(error)"])
            procedureAvailable = false
        }
        return procedureAvailable ?? false
    }

    /// Sends the batch as one `CALL` of the commit procedure (see
    /// ``PrimarySQL/commitProcedure``) and returns each commit's outcome; `nil` when the engine
    /// refused the call itself, which then commits by statement from now on.
    ///
    /// The call's row comes only once the procedure's `COMMIT` completed, so it is read to its
    /// end before anything is concluded: a serialization failure there arrives as the call's
    /// error, and is a retry. A connection that breaks (or a deadline that passes) once the call
    /// was sent is the same whether the procedure committed or not: the tokens say which (the
    /// batch is one transaction: made whole or not at all).
    private func commitByProcedure(_ batch: CommitBatch) async throws -> [CommitOutcome]? {
        let query = PostgresQuery(unsafeSQL: sql.callCommit, binds: batch.bindings())
        return try await exclusively {
            var brokenBeforeSent = 0, insideTransaction = 0, endedBackends = 0
            while true {
                let connection: PostgresConnection
                do {
                    connection = try await connected()
                } catch {
                    throw Self.failure(error, operation: "commit", configuration: configuration)
                }
                let decisions: [Decision]
                do {
                    decisions = try await onConnection(pinned: connection) { connection, logger in
                        var decisions: [Decision] = []
                        for try await (numbers, hits, behind, ahead, diverged) in try await connection.query(query, logger: logger)
                            .decode(([Int64], [Bool], [Bool], [Bool], [Bool]).self) {
                            decisions = numbers.indices.map { index in
                                Self.decision(number: numbers[index] > 0 ? numbers[index] : nil, hit: hits[index], behind: behind[index],
                                              ahead: ahead[index], foreign: diverged[index])
                            }
                        }
                        return decisions
                    }
                } catch is ConnectionLost {
                    // The connection closed before the call was sent: nothing was committed.
                    brokenBeforeSent += 1
                    if brokenBeforeSent < 3 { continue }
                    throw LarderError(.primaryUnavailable, "the connection to the primary \(configuration) broke before the commit was sent", operation: "commit")
                } catch {
                    if Self.isSerializationFailure(error) { continue }
                    switch Self.sqlState(error) {
                    case "2D000"? where insideTransaction < 2:
                        // The connection was inside a transaction, where a procedure cannot
                        // commit: nothing was done; end it and call again. (Again and again: a
                        // pooler that runs each statement in a transaction of its own; commit
                        // by statement.)
                        insideTransaction += 1
                        await rollBack(connection)
                        continue
                    case "2D000"?:
                        await rollBack(connection)
                        procedureAvailable = false
                        return nil
                    case "0A000"?, "42883"?, "42P13"?:
                        // The engine cannot run the procedure: commit by statement from now on.
                        procedureAvailable = false
                        return nil
                    default:
                        break
                    }
                    if error is DeadlinePassed || Self.isConnectionFailure(error) {
                        switch await lookUp(tokens: batch.tokens) {
                        case .answered(let made) where !made.isEmpty:
                            // The batch's transaction committed: what it did not make, it refused.
                            return batch.commits.map { commit in
                                made[commit.token].map { .committed(number: $0, token: commit.token) } ?? .conflict
                            }
                        case .answered where Self.backendEnded(error) && endedBackends < 3:
                            // The server said it ended the backend that ran the call: its
                            // transaction was committed before (and the log would show it) or
                            // ended with it. Not in the log, so not made: send it again.
                            endedBackends += 1
                            continue
                        default:
                            throw LarderError(
                                .commitOutcomeUnknown,
                                "the connection to the primary broke (or the primary stopped answering) after the commit was sent, and whether it was made could not be found out; if it was, the replica shows it once it reaches the primary again",
                                operation: "commit", underlying: Self.describe(error))
                        }
                    }
                    throw Self.failure(error, operation: "commit", configuration: configuration)
                }
                guard decisions.count == batch.commits.count else {
                    throw LarderError(.primaryRefused, "the commit procedure answered \(decisions.count) outcomes for \(batch.commits.count) commits", operation: "commit")
                }
                var outcomes: [CommitOutcome] = []
                for (decision, commit) in zip(decisions, batch.commits) {
                    switch decision {
                    case .made(let number): outcomes.append(.committed(number: number, token: commit.token))
                    case .conflict: outcomes.append(.conflict)
                    case .behind: outcomes.append(.behind)
                    case .ahead: throw Self.primaryLostCommits(commit.position)
                    case .foreign: throw Self.foreignHistory(commit.position)
                    }
                }
                return outcomes
            }
        }
    }

    /// What a commit's answer decided.
    private static func decision(number: Int64?, hit: Bool, behind: Bool, ahead: Bool, foreign: Bool) -> Decision {
        if let number { return .made(UInt64(number)) }
        if ahead { return .ahead }
        if foreign { return .foreign }
        if behind && !hit { return .behind }
        return .conflict
    }

    // MARK: Committing by statement

    /// The commit in three round trips: `BEGIN ISOLATION LEVEL SERIALIZABLE`, the commit
    /// statement, `COMMIT` (awaited), on one connection.
    private func commitByStatement(_ arguments: CommitArguments) async throws -> CommitOutcome {
        let (token, position) = (arguments.token, arguments.position)
        let query = sql.commitQuery(arguments)
        return try await exclusively {
            var brokenBeforeCommit = 0
            while true {
                let decision: Decision
                // Every statement of the transaction goes to the connection it began on.
                let connection: PostgresConnection
                do {
                    connection = try await connected()
                } catch {
                    throw Self.failure(error, operation: "commit", configuration: configuration)
                }
                do {
                    decision = try await onConnection(pinned: connection) { connection, logger in
                        try await connection.query("BEGIN ISOLATION LEVEL SERIALIZABLE", logger: logger)
                        var decision = Decision.conflict
                        for try await (number, hit, behind, ahead, foreign, _) in try await connection.query(query, logger: logger)
                            .decode((Int64?, Bool, Bool, Bool, Bool, Int64).self) {
                            decision = Self.decision(number: number, hit: hit, behind: behind, ahead: ahead, foreign: foreign)
                        }
                        return decision
                    }
                } catch {
                    // COMMIT was not sent: nothing was committed.
                    await rollBack(connection)
                    if Self.isSerializationFailure(error) { continue }
                    if error is DeadlinePassed || Self.isConnectionFailure(error) {
                        // A terminated backend, a restart: once more on a new connection.
                        brokenBeforeCommit += 1
                        if brokenBeforeCommit < 3 && !(error is DeadlinePassed) { continue }
                    }
                    throw Self.failure(error, operation: "commit", configuration: configuration)
                }
                guard case .made(let number) = decision else {
                    await rollBack(connection)
                    switch decision {
                    case .conflict: return .conflict
                    case .behind: return .behind
                    case .ahead: throw Self.primaryLostCommits(position)
                    default: throw Self.foreignHistory(position)
                    }
                }
                do {
                    try await onConnection(pinned: connection) { connection, logger in
                        _ = try await connection.query("COMMIT", logger: logger)
                    }
                    return .committed(number: number, token: token)
                } catch is ConnectionLost {
                    // The connection closed before COMMIT was sent: the server ends the
                    // transaction without committing it.
                    brokenBeforeCommit += 1
                    if brokenBeforeCommit < 3 { continue }
                    throw LarderError(.primaryUnavailable, "the connection to the primary \(configuration) broke before the commit was sent", operation: "commit")
                } catch {
                    // A serialization failure at COMMIT rolled the transaction back: retry.
                    if Self.isSerializationFailure(error) { continue }
                    if error is DeadlinePassed || Self.isConnectionFailure(error) {
                        if let number = try await committedNumber(ofToken: token) {
                            return .committed(number: number, token: token)
                        }
                        throw LarderError(
                            .commitOutcomeUnknown,
                            "the connection to the primary broke (or the primary stopped answering) after the commit was sent, and whether it was made could not be found out; if it was, the replica shows it once it reaches the primary again",
                            operation: "commit", underlying: Self.describe(error))
                    }
                    throw Self.failure(error, operation: "commit", configuration: configuration)
                }
            }
        }
    }

    /// Ends the transaction open on `connection` without committing it; a connection where
    /// that fails is dropped (its transaction ends with it).
    private func rollBack(_ connection: PostgresConnection) async {
        guard !connection.isClosed, connection === self.connection else { return }
        do {
            try await onConnection(pinned: connection) { connection, logger in _ = try await connection.query("ROLLBACK", logger: logger) }
        } catch {
            drop(connection)
        }
    }

    static func primaryLostCommits(_ position: UInt64) -> LarderError {
        LarderError(.replicaMismatch, "the replica shows the primary's commit \(position), which the primary no longer has: the primary lost commits it had acknowledged (restored from an older backup?); call rebootstrap() to replace the replica's contents with the primary's", operation: "commit")
    }

    static func foreignHistory(_ position: UInt64) -> LarderError {
        LarderError(.replicaMismatch, "the primary's commit \(position) is not the commit \(position) this replica applied: the primary's history is not the replica's (restored from an older backup and written since, or a failover that lost commits); call rebootstrap() to replace the replica's contents with the primary's", operation: "replicate")
    }

    /// The number of the commit sent with `token`, if the primary has it; `nil` when it has not
    /// or cannot be asked (a new connection, within the request timeout).
    private func committedNumber(ofToken token: String) async throws -> UInt64? {
        if case .answered(let made) = await lookUp(tokens: [token]) { return made[token] }
        return nil
    }

    /// What the primary's log says of commits sent with some tokens.
    enum TokenLookup: Equatable {
        /// The primary answered: the commits it holds, by token, with their numbers.
        case answered([String: UInt64])
        /// The primary could not be asked (a new connection, within the request timeout).
        case unanswered
    }

    /// The commits among those sent with `tokens` that the primary's log holds, with their
    /// numbers.
    /// - Throws: `LarderError/Code/primaryUnavailable` when the primary cannot be asked.
    func madeCommits(tokens: [String]) async throws -> [String: UInt64] {
        guard case .answered(let made) = try await exclusively({ await lookUp(tokens: tokens) }) else {
            throw LarderError(.primaryUnavailable, "the primary \(configuration) could not be asked which commits it has", operation: "replicate")
        }
        return made
    }

    /// Looks the commits sent with `tokens` up in the primary's log.
    private func lookUp(tokens: [String]) async -> TokenLookup {
        var binds = PostgresBindings()
        binds.append(tokens)
        let query = PostgresQuery(unsafeSQL: sql.committedTokens, binds: binds)
        do {
            return try await onConnection { connection, logger in
                var made: [String: UInt64] = [:]
                for try await (token, number) in try await connection.query(query, logger: logger).decode((String, Int64).self) {
                    made[token] = UInt64(number)
                }
                return .answered(made)
            }
        } catch {
            return .unanswered
        }
    }

    /// Whether `error` is the server saying it ended the session's backend (an administrator's
    /// `pg_terminate_backend`, a fast shutdown, a crash of another backend): a transaction it
    /// was running is then committed or gone for good, never committed later.
    static func backendEnded(_ error: any Error) -> Bool {
        let state = sqlState(error)
        return state == "57P01" || state == "57P02"
    }


    /// Up to `limit` commits after `position`, with the head of the log.
    func commits(after position: UInt64, limit: Int) async throws -> Commits {
        var binds = PostgresBindings()
        binds.append(Int64(position))
        binds.append(Int64(limit))
        return try await statement(PostgresQuery(unsafeSQL: sql.commitsAfter, binds: binds), operation: "follow") { rows in
            var result = Commits(commits: [], head: 0, retainedFrom: 1, identity: "")
            for try await (number, record, token, head, retainedFrom, tokenAtPosition, identity) in rows.decode((Int64?, ByteBuffer?, String?, Int64, Int64, String?, String).self) {
                result.identity = identity
                result.head = UInt64(head)
                result.retainedFrom = UInt64(retainedFrom)
                result.tokenAtPosition = tokenAtPosition
                if let number, let record, let token { result.commits.append((UInt64(number), Array(buffer: record), token)) }
            }
            return result
        }
    }

    /// Every object of the primary, and the commit (number and token) they are as of, read in
    /// one snapshot, within ``PrimaryConfiguration/snapshotTimeout``.
    func snapshot() async throws -> (position: UInt64, token: String?, commit: ReplicatedCommit) {
        let headPosition = PostgresQuery(unsafeSQL: sql.headPosition), allObjects = PostgresQuery(unsafeSQL: sql.allObjects)
        do {
            return try await exclusively {
                let connection = try await connected()
                do {
                    return try await onConnection(pinned: connection, limit: configuration.snapshotTimeout) { connection, logger in
                        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                        var position: UInt64 = 0
                        var token: String?
                        for try await (_, number, headToken) in try await connection.query(headPosition, logger: logger).decode((String, Int64, String?).self) {
                            position = UInt64(number)
                            token = headToken
                        }
                        var commit = ReplicatedCommit()
                        commit.removedEverything = true
                        let rows = try await connection.query(allObjects, logger: logger)
                        for try await (collection, key, object, metadata) in rows.decode((String, String, ByteBuffer, ByteBuffer?).self) {
                            commit.rows.append(ReplicatedCommit.Row(
                                collection: collection, key: key, object: Array(buffer: object), metadata: metadata.map { Array(buffer: $0) },
                                objectChanged: true, metadataChanged: metadata != nil))
                        }
                        try await connection.query("COMMIT", logger: logger)
                        return (position, token, commit)
                    }
                } catch {
                    await rollBack(connection)
                    throw error
                }
            }
        } catch {
            throw Self.failure(error, operation: "bootstrap", configuration: configuration)
        }
    }

    /// Forgets the commits before `retainedFrom`.
    func prune(before retainedFrom: UInt64) async throws {
        var binds = PostgresBindings()
        binds.append(Int64(retainedFrom))
        _ = try await statement(PostgresQuery(unsafeSQL: sql.prune, binds: binds), operation: "prune") { _ in () }
    }

    // MARK: Errors

    static func sqlState(_ error: any Error) -> String? {
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
        if let passed = error as? DeadlinePassed {
            return LarderError(.primaryUnavailable, "the primary \(configuration) did not answer within \(passed.limit)", operation: operation)
        }
        if let error = error as? PSQLError {
            // Settings the server turned down are not an outage: say which.
            switch error.code {
            case .authMechanismRequiresPassword:
                return LarderError(.invalidConfiguration, "the primary \(configuration) asks for a password and the configuration has none (add it to the URL or set PGPASSWORD)", operation: operation)
            case .unsupportedAuthMechanism, .saslError:
                return LarderError(.invalidConfiguration, "the primary \(configuration) asks for an authentication method PostgresNIO does not support, or the exchange failed", operation: operation, underlying: describe(error))
            case .sslUnsupported:
                return LarderError(.invalidConfiguration, "the primary \(configuration) does not offer TLS, which the configuration requires (sslmode=require); enable TLS on the server or choose sslmode=prefer", operation: operation)
            default:
                break
            }
            if let state = error.serverInfo?[.sqlState], state.hasPrefix("28") {
                // Class 28: invalid authorization (a wrong password, an unknown user, pg_hba.conf).
                let message = error.serverInfo?[.message] ?? "authentication failed"
                return LarderError(.invalidConfiguration, "the primary \(configuration) refused the login (SQLSTATE \(state)): \(message)", operation: operation)
            }
        }
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
#endif
