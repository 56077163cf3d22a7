#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One commit in the history of an object or a metadata value, as the change log remembers it:
/// the commit's number and time, what the commit did to the value, and, when the writer kept
/// values (``Database/Configuration/keepsValueHistory``), the value it left.
///
/// ```swift
/// let history = try db.read { try $0.history(ofObjectAt: hammer.index) }   // newest first
/// let earlierPrices = try history.compactMap { try $0.value(as: Product.self)?.price }
/// ```
///
/// An entry is a value: `Sendable`, and valid after its transaction ends.
public struct HistoryEntry: Sendable {
    /// What a commit did to the value.
    public enum Event: Sendable, Hashable {
        /// The value was stored where there was none.
        case inserted
        /// The value was replaced (or touched: marked changed without being written).
        case updated
        /// The value was removed (for metadata: also when its object was removed or stored
        /// again without metadata).
        case removed
        /// Every object and metadata value of `collection`, the value's collection, was removed.
        case cleared(collection: String)
        /// Every object and metadata value of every collection was removed.
        case removedEverything

        /// Whether the two are the same event; the collections of two clears compare their UTF-8
        /// bytes, as the store tells collections apart.
        public static func == (a: Event, b: Event) -> Bool {
            switch (a, b) {
            case (.inserted, .inserted), (.updated, .updated), (.removed, .removed), (.removedEverything, .removedEverything): true
            case (.cleared(let x), .cleared(let y)): ExactString.bytesEqual(x, y)
            default: false
            }
        }

        /// Hashes the event, a clear's collection as its bytes.
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .inserted: hasher.combine(0)
            case .updated: hasher.combine(1)
            case .removed: hasher.combine(2)
            case .cleared(let collection):
                hasher.combine(3)
                ExactString.hashBytes(of: collection, into: &hasher)
            case .removedEverything: hasher.combine(4)
            }
        }
    }

    /// The collection and key of the value.
    public let index: YapDB.Index
    /// The number of the commit (see ``ReadTransaction/lastCommit``).
    public let commit: UInt64
    /// When the commit was made (``Changeset/time``); `nil` for commits logged before Larder
    /// recorded times.
    public let time: Date?
    /// What the commit did to the value.
    public let event: Event
    /// Whether the value after the commit is known: always after a removal or a clear (there is
    /// none); after an insertion or update only when the writer recorded values
    /// (``Database/Configuration/keepsValueHistory``).
    public let isValueKnown: Bool
    /// The value after the commit exactly as the store held it — the format byte, then the
    /// payload, as in the `objects` and `metadata` databases — or `nil` when there was none or it
    /// was not recorded (``isValueKnown``).
    public let framedBytes: [UInt8]?
    /// The archivers registered on the database the entry was read from.
    let archivers: ArchiverRegistry
    /// The versions declared on that database, which bring an old recorded value up to date.
    let migrations: MigrationRegistry
    /// Whether this is the history of a metadata value (otherwise of an object).
    let isMetadata: Bool

    init(index: YapDB.Index, commit: UInt64, time: Date?, event: Event, isValueKnown: Bool, framedBytes: [UInt8]?,
         archivers: ArchiverRegistry, migrations: MigrationRegistry, isMetadata: Bool) {
        self.migrations = migrations
        self.isMetadata = isMetadata
        self.index = index
        self.commit = commit
        self.time = time
        self.event = event
        self.isValueKnown = isValueKnown
        self.framedBytes = framedBytes
        self.archivers = archivers
    }

    /// The recorded value's format and payload (framing removed), in the form
    /// ``ReadTransaction/storedObject(forKey:inCollection:)`` returns; `nil` when there is no
    /// recorded value. A checksum in the framing (``Database/Configuration/checksumsValues``) is
    /// not verified here; ``value(archiver:)`` verifies it.
    public var stored: (format: ArchiveFormat, bytes: [UInt8])? {
        guard let framedBytes else { return nil }
        return framedBytes.withUnsafeBytes { bytes in
            ValueFraming.splitUnverified(bytes).map { ($0.format, [UInt8]($0.payload)) }
        }
    }

    /// The recorded value decoded with `archiver`; `nil` when there is no recorded value (it was
    /// removed, or not recorded: see ``isValueKnown``). A value recorded at an older version of
    /// its collection's values is migrated first (see ``ValueMigrations``).
    /// - Throws: ``LarderError/Code/decodingFailed`` (or the ``LarderError`` the archiver threw)
    ///   when the bytes do not decode as `A.Value`; ``LarderError/Code/corrupted`` when a
    ///   checksummed value does not match its checksum; ``LarderError/Code/newerValueVersion`` and
    ///   ``LarderError/Code/migrationFailed`` as for reads.
    public func value<A: Archiver>(archiver: A) throws -> A.Value? {
        guard let framedBytes, !framedBytes.isEmpty else { return nil }
        var format = ArchiveFormat.raw
        do {
            return try framedBytes.withUnsafeBytes { bytes in
                let value = try ValueFraming.unframe(bytes)
                format = value.format
                return try migrations.withCurrentVersion(of: value, collection: index.collection, metadata: isMetadata) { payload, current in
                    format = current
                    return try archiver.unarchive(payload, format: current)
                }
            }
        } catch let error as LarderError {
            throw error.adding(operation: "history", index: index)
        } catch {
            if let limit = MessagePackNestingLimit.find(in: error) {
                throw LarderError(.valueTooDeep, "the value of commit \(commit) nests too deep to read as \(A.Value.self) here: \(limit)",
                                  operation: "history", index: index, underlying: String(describing: error))
            }
            throw LarderError(
                .decodingFailed, "the value of commit \(commit) does not decode as \(A.Value.self) (format \(format))",
                operation: "history", index: index, underlying: String(describing: error), recoverySuggestion: LarderError.Advice.decoding)
        }
    }

    /// The recorded value decoded as `T`, with the archiver the store reads `T` with in the
    /// value's collection (a registered one, else `T`'s own); `nil` when there is no recorded
    /// value.
    /// - Throws: as ``value(archiver:)``.
    public func value<T: Saveable>(as type: T.Type = T.self) throws -> T? {
        let archiver: any Archiver<T> = archivers.archiver(for: index.collection, T.self) ?? T.archiver
        return try value(archiver: archiver)
    }

    /// The recorded value decoded as `T`, with the archiver the store reads `T` with in the
    /// value's collection (a registered one, else `T`'s own when it is ``Saveable``, else
    /// ``MessagePackArchiver``); `nil` when there is no recorded value.
    ///
    /// ```swift
    /// let earlier = try entry.value(as: Product.self)
    /// ```
    /// - Throws: as ``value(archiver:)``.
    @_disfavoredOverload
    public func value<T: Codable>(as type: T.Type = T.self) throws -> T? {
        let archiver = archivers.archiver(for: index.collection, T.self) ?? ArchiverLookup.codable(T.self)
        return try value(archiver: archiver)
    }
}
