#if Extras
import Foundation
import Larder

/// A write a replica committed on its own store while its primary could not be reached
/// (``Replica/Configuration/writesOffline``), kept in the store (in the transaction that
/// applied it) until the primary has made it or turned it down.
///
/// It holds what the write changed, what it read, what the rows it changed held before it (to
/// take it off the store again), the primary's commit its reads have been checked through
/// (`base`), and the token it is sent with, by which the primary's log tells whether it was made.
struct PendingCommit: ReplicaRecord {
    static let prefix = "replica:pending:"

    /// Its place in the order of the replica's pending commits (they reach the primary in it).
    var sequence: UInt64
    var token: String
    /// When the write was made (seconds since 1970).
    var madeAt: Double
    /// The commit of the primary that the write's reads were made on, or have been checked
    /// through since (each time the replica applies the primary's commits below its pending ones).
    var base: UInt64
    var commit: ReplicatedCommit
    /// The rows the commit changed as they were before it: applied, it takes the commit off.
    var undo: ReplicatedCommit
    var readsEverything: Bool
    var readCollections: [String]
    /// (collection, key) pairs.
    var readKeys: [[String]]

    init(sequence: UInt64, token: String, madeAt: Date, base: UInt64, commit: ReplicatedCommit, undo: ReplicatedCommit, reads: ReadSet) {
        self.sequence = sequence
        self.token = token
        self.madeAt = madeAt.timeIntervalSince1970
        self.base = base
        self.commit = commit
        self.undo = undo
        readsEverything = reads.everything
        readCollections = reads.collections.sorted()
        readKeys = reads.pointReads.map { [$0.collection, $0.key] }
    }

    var key: String { Self.key(sequence) }

    static func key(_ sequence: UInt64) -> String {
        let digits = String(sequence)
        return prefix + String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    static func sequence(ofKey key: String) -> UInt64? {
        key.hasPrefix(prefix) ? UInt64(key.dropFirst(prefix.count)) : nil
    }

    /// What the write read.
    var reads: ReadSet {
        var reads = ReadSet()
        reads.everything = readsEverything
        reads.collections = NameSet(readCollections)
        for pair in readKeys where pair.count == 2 {
            _ = reads.keys[ExactString(pair[0]), default: []].insert(pair[1])
        }
        return reads
    }

    static let what = "a pending commit"
}

/// A write the replica made while its primary was away that the primary did not take: it was
/// taken off the replica's store again, and is kept here, with what it changed, for the program
/// to show or make again (``Replica/rejectedCommits()``, ``ReplicaEvent/commitRejected(_:)``).
public struct RejectedCommit: Sendable, Identifiable {
    /// Why a pending write was not made.
    public enum Reason: String, Sendable, Codable {
        /// Commits of other replicas that it had not seen wrote what it read (or a pending write
        /// before it, which was rejected, did): made now, it would not be serializable.
        case conflict
        /// It could not be checked: the primary's log no longer holds the commits made since
        /// it was written (the replica was away for longer than the log keeps them), or the
        /// replica was loaded again from the primary's tables (``Replica/rebootstrap()``).
        case unverifiable
    }

    /// One row it changed, and what it left there.
    public struct Change: Sendable {
        /// The collection of the row.
        public var collection: String
        /// The key of the row.
        public var key: String
        /// The object it wrote (its format and archived bytes, as
        /// `ReadTransaction.storedObject(forKey:inCollection:)` gives them); `nil` for a removal.
        public var object: (format: ArchiveFormat, bytes: [UInt8])?
        /// The metadata it left, as stored; `nil` for none.
        public var metadata: (format: ArchiveFormat, bytes: [UInt8])?

        /// The object decoded as `T` (an object archived as MessagePack or JSON by `Codable`);
        /// `nil` for a removal.
        /// - Throws: `LarderError/Code/decodingFailed` when it is not a `T`, or was archived
        ///   in another format (decode ``object`` with its archiver).
        public func object<T: Decodable>(as type: T.Type = T.self) throws -> T? {
            guard let object else { return nil }
            return try Self.decode(object, as: T.self)
        }

        /// The metadata decoded as `T`; `nil` when there is none.
        public func metadata<T: Decodable>(as type: T.Type = T.self) throws -> T? {
            guard let metadata else { return nil }
            return try Self.decode(metadata, as: T.self)
        }

        private static func decode<T: Decodable>(_ value: (format: ArchiveFormat, bytes: [UInt8]), as type: T.Type) throws -> T {
            do {
                switch value.format {
                case .messagePack: return try MessagePackDecoder().decode(T.self, from: value.bytes)
                case .json: return try JSONDecoder().decode(T.self, from: Data(value.bytes))
                default: break
                }
            } catch {
                throw LarderError(.decodingFailed, "a rejected change does not decode as \(T.self)", operation: "RejectedCommit", underlying: String(describing: error))
            }
            throw LarderError(.decodingFailed, "a rejected change was archived as \(value.format), not by Codable; decode its bytes with its archiver", operation: "RejectedCommit")
        }
    }

    /// The token the write was sent with (unique).
    public let id: String
    /// When the write was made on the replica.
    public let madeAt: Date
    /// When the replica found that the primary would not take it.
    public let rejectedAt: Date
    /// Why it was rejected.
    public let reason: Reason
    /// Whether it emptied every collection, and the collections it emptied, before its rows.
    public let removedEverything: Bool
    public let clearedCollections: [String]
    /// The rows it set or removed.
    public let changes: [Change]
    private let info: [[UInt8]]

    /// The commit information the write set (`ReadWriteTransaction/setCommitInfo(_:)`), as `T`.
    public func commitInfo<T: Decodable>(as type: T.Type = T.self) throws -> [T] {
        try info.map { bytes in
            do {
                return try MessagePackDecoder().decode(T.self, from: bytes)
            } catch {
                throw LarderError(.decodingFailed, "the commit information does not decode as \(T.self)", operation: "commitInfo", underlying: String(describing: error))
            }
        }
    }

    init(_ record: RejectedRecord) throws {
        id = record.token
        madeAt = Date(timeIntervalSince1970: record.madeAt)
        rejectedAt = Date(timeIntervalSince1970: record.rejectedAt)
        reason = record.reason
        removedEverything = record.commit.removedEverything
        clearedCollections = record.commit.cleared
        info = record.commit.info
        changes = try record.commit.rows.map { row in
            func unframed(_ bytes: [UInt8]?) throws -> (format: ArchiveFormat, bytes: [UInt8])? {
                guard let bytes else { return nil }
                let value = try ReplicatedCommit.unframe(bytes)
                return (value.format, value.payload)
            }
            return Change(collection: row.collection, key: row.key, object: try unframed(row.object), metadata: try unframed(row.metadata))
        }
    }
}

/// How a rejected commit is kept in the replica's store, until the program removes it.
struct RejectedRecord: ReplicaRecord {
    static let prefix = "replica:rejected:"

    var sequence: UInt64
    var token: String
    var madeAt: Double
    var rejectedAt: Double
    var reason: RejectedCommit.Reason
    var commit: ReplicatedCommit

    /// Its place among the rejected commits (its own numbering: pending commits' numbers start
    /// again once none is left).
    var key: String { Self.prefix + String(PendingCommit.key(sequence).dropFirst(PendingCommit.prefix.count)) }

    static let what = "a rejected commit"

    init(_ pending: PendingCommit, sequence: UInt64, reason: RejectedCommit.Reason, at date: Date) {
        self.sequence = sequence
        token = pending.token
        madeAt = pending.madeAt
        rejectedAt = date.timeIntervalSince1970
        self.reason = reason
        commit = pending.commit
    }
}

/// A record a replica keeps in its store (MessagePack, in its `larder` database).
protocol ReplicaRecord: Codable, Sendable {
    /// What it is, for errors.
    static var what: String { get }
}

extension ReplicaRecord {
    func encoded() throws -> [UInt8] {
        do {
            return try MessagePackEncoder().encode(self)
        } catch {
            throw LarderError(.encodingFailed, "\(Self.what) could not be encoded", operation: "replicate", underlying: String(describing: error))
        }
    }

    init(decoding bytes: [UInt8]) throws {
        do {
            self = try MessagePackDecoder().decode(Self.self, from: bytes)
        } catch {
            throw LarderError(.corrupted, "\(Self.what) recorded in the replica's store does not decode", operation: "replicate", underlying: String(describing: error))
        }
    }
}

extension ReadTransaction {
    /// The replica's pending commits, in order.
    func pendingCommits() throws -> [PendingCommit] {
        try replicaRecords(withPrefix: PendingCommit.prefix).map { try PendingCommit(decoding: $0.value) }
    }

    /// The sequence number of the replica's last pending commit; `nil` when there is none.
    func lastPendingSequence() throws -> UInt64? {
        try lastReplicaRecordKey(withPrefix: PendingCommit.prefix).flatMap(PendingCommit.sequence(ofKey:))
    }

    /// The replica's rejected commits, oldest first.
    func rejectedRecords() throws -> [RejectedRecord] {
        try replicaRecords(withPrefix: RejectedRecord.prefix).map { try RejectedRecord(decoding: $0.value) }
    }
}

extension ReadWriteTransaction {
    /// Takes `pending`'s record off the store and keeps it as rejected, with `reason`.
    func reject(_ pending: PendingCommit, reason: RejectedCommit.Reason, now: Date) throws -> RejectedRecord {
        let last = try lastReplicaRecordKey(withPrefix: RejectedRecord.prefix).flatMap { UInt64($0.dropFirst(RejectedRecord.prefix.count)) } ?? 0
        let record = RejectedRecord(pending, sequence: last + 1, reason: reason, at: now)
        try setReplicaRecord(nil, forKey: pending.key)
        try setReplicaRecord(try record.encoded(), forKey: record.key)
        return record
    }

    /// The rows `commit` changes as they are now: applied after it, they take it off again.
    func undoImage(of commit: ReplicatedCommit) throws -> ReplicatedCommit {
        var keys: [(String, String)] = commit.rows.map { ($0.collection, $0.key) }
        let emptied = commit.removedEverything ? try collections() : commit.cleared
        for collection in emptied {
            for key in try self.keys(inCollection: collection) { keys.append((collection, key)) }
        }
        var undo = ReplicatedCommit()
        var seen = Set<[UInt8]>()
        for (collection, key) in keys {
            // Told apart by their bytes, as the store tells names apart.
            guard seen.insert(Array(collection.utf8) + [0] + Array(key.utf8)).inserted else { continue }
            let image = try replicatedImage(forKey: key, inCollection: collection)
            undo.rows.append(ReplicatedCommit.Row(collection: collection, key: key, object: image.object, metadata: image.metadata,
                                                  objectChanged: true, metadataChanged: true))
        }
        return undo
    }

    /// Takes the replica's pending commits off the store (newest first), so that the
    /// primary's commits can be applied beneath them; returns them, in order.
    func takeOffPendingCommits() throws -> [PendingCommit] {
        let pending = try pendingCommits()
        for commit in pending.reversed() { try apply(commit.undo) }
        return pending
    }

    /// Puts `pending` back on top of the primary's commits `applied` (just applied, the store now
    /// at `position`): a pending commit the primary made (its token is among them) is dropped,
    /// its changes being the primary's now; one whose reads another replica's commit among them
    /// wrote (or a rejected pending commit before it wrote) is rejected: kept as a
    /// ``RejectedRecord``, not applied; every other one is applied again, checked through
    /// `position`.
    func putBack(_ pending: [PendingCommit], above applied: [(number: UInt64, commit: ReplicatedCommit, token: String)],
                 at position: UInt64, now: Date) throws -> [RejectedRecord] {
        guard !pending.isEmpty else { return [] }
        let pendingTokens = Set(pending.map(\.token))
        let made = Set(applied.map(\.token)).intersection(pendingTokens)
        var rejected: [RejectedRecord] = []
        for var commit in pending {
            if made.contains(commit.token) {
                try setReplicaRecord(nil, forKey: commit.key)
                continue
            }
            let reads = commit.reads
            let others = applied.lazy.filter { $0.number > commit.base && !pendingTokens.contains($0.token) }
            if others.contains(where: { $0.commit.wrote(into: reads) }) || rejected.contains(where: { $0.commit.wrote(into: reads) }) {
                rejected.append(try reject(commit, reason: .conflict, now: now))
                continue
            }
            commit.undo = try undoImage(of: commit.commit)
            try apply(commit.commit)
            commit.base = position
            try setReplicaRecord(try commit.encoded(), forKey: commit.key)
        }
        return rejected
    }

    /// Rejects every pending commit but those in `made` (which the primary has), with `reason`,
    /// without touching the data (the caller replaces it).
    func rejectPendingCommits(except made: Set<String>, reason: RejectedCommit.Reason, now: Date) throws -> [RejectedRecord] {
        var rejected: [RejectedRecord] = []
        for commit in try pendingCommits() {
            if made.contains(commit.token) {
                try setReplicaRecord(nil, forKey: commit.key)
            } else {
                rejected.append(try reject(commit, reason: reason, now: now))
            }
        }
        return rejected
    }
}

extension ReplicatedCommit {
    /// Whether this commit wrote anything `reads` covers: the rule the primary checks a commit's
    /// reads by (``PrimarySQL/commitProcedure``), so that the replica's own check of a pending
    /// commit turns down no less than the primary would.
    func wrote(into reads: ReadSet) -> Bool {
        if reads.everything || removedEverything { return true }
        for collection in cleared where reads.collections.contains(collection) || reads.keys[ExactString(collection)] != nil {
            return true
        }
        for row in rows where reads.collections.contains(row.collection) || reads.keys[ExactString(row.collection)]?.contains(row.key) == true {
            return true
        }
        return false
    }
}
#endif
