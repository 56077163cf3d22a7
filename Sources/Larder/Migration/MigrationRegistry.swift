import Synchronization

/// The ``ValueMigrations`` registered with a ``Database``, by collection and half.
final class MigrationRegistry: Sendable {
    /// A collection (its bytes: versions declared for one collection are not those of another
    /// whose name Swift calls equal) and a half.
    private struct Slot: Hashable {
        let collection: ExactString
        let metadata: Bool

        init(collection: String, metadata: Bool) {
            self.collection = ExactString(collection)
            self.metadata = metadata
        }
    }

    private let declarations = Mutex<[Slot: ValueMigrations]>([:])
    /// Lets reads and writes skip the lock while nothing is registered (the common case).
    private let isEmptyFlag = Atomic<Bool>(true)

    /// How many registrations there have been: a connection's cache holding values decoded
    /// under another number flushes them (see `ConnectionCache.prepare`).
    var generation: Int { generationCounter.load(ordering: .acquiring) }
    private let generationCounter = Atomic<Int>(0)

    /// Whether nothing was ever registered: every value is read and written as it is.
    @inline(__always)
    var isEmpty: Bool { isEmptyFlag.load(ordering: .acquiring) }

    /// Registers `migrations`, replacing those of the same collection and half.
    func register(_ migrations: ValueMigrations) {
        declarations.withLock { $0[Slot(collection: migrations.collection, metadata: migrations.metadata)] = migrations }
        isEmptyFlag.store(false, ordering: .releasing)
        generationCounter.add(1, ordering: .releasing)
    }

    /// The migrations declared for `collection`'s objects (or metadata); `nil` when none are.
    func migrations(for collection: String, metadata: Bool) -> ValueMigrations? {
        if isEmpty { return nil }
        return declarations.withLock { $0[Slot(collection: collection, metadata: metadata)] }
    }

    /// The version a value written to `collection`'s objects (or metadata) records: 0 when the
    /// collection declares none.
    @inline(__always)
    func currentVersion(for collection: String, metadata: Bool) -> UInt32 {
        if isEmpty { return 0 }
        return migrations(for: collection, metadata: metadata).map { UInt32($0.currentVersion) } ?? 0
    }
}
