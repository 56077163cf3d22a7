/// What a ``ReadWriteTransaction/saveAll(_:)`` or a ``ReadTransaction/load(_:key:depth:)`` in
/// progress knows, reachable from refs while they are encoded or decoded (a task-local value).
///
/// It is only ever used by the one thread running the save or load.
final class GraphContext: @unchecked Sendable {  // a task-local value, used only by the one thread running the save or load
    @TaskLocal static var current: GraphContext?

    private let transaction: ReadTransaction
    private let saving: Bool
    // Saving
    private var visited = Set<YapDB.Index>()
    var pending: [any CarriedValue] = []
    var next = 0
    private(set) var written: [YapDB.Index] = []
    // Loading
    /// How many more levels the refs being decoded load.
    private var depth = 0
    private var loaded: [LoadKey: any CarriedValue] = [:]

    private struct LoadKey: Hashable {
        let index: YapDB.Index
        let depth: Int
    }

    init(saving transaction: ReadWriteTransaction) {
        self.transaction = transaction
        self.saving = true
    }

    init(loading transaction: ReadTransaction) {
        self.transaction = transaction
        self.saving = false
    }

    // MARK: Saving

    /// Called by a ref being encoded: its target is saved next.
    func save(_ carried: any CarriedValue) {
        if saving { pending.append(carried) }
    }

    /// Writes `value` if it is new or changed, queueing the targets its refs carry.
    func saveValue<T: Persistable & Codable>(_ value: T) throws {
        guard let txn = transaction as? ReadWriteTransaction, visited.insert(value.index).inserted else { return }
        let collection = T.collection, key = value.key
        let archiver = txn.archiver(T.self, in: collection, fallback: ArchiverLookup.codable(T.self))
        var bytes: [UInt8] = []
        do {
            try GraphContext.$current.withValue(self) { try archiver.archive(value, into: &bytes) }
        } catch let error as LarderError {
            throw error.adding(operation: "saveAll", index: value.index)
        } catch {
            if let limit = MessagePackNestingLimit.find(in: error) {
                throw LarderError(.valueTooDeep, "the value of type \(T.self) nests too deep to store: \(limit)", operation: "saveAll", index: value.index, underlying: String(describing: error))
            }
            throw LarderError(.encodingFailed, "the value of type \(T.self) could not be archived", operation: "saveAll", index: value.index, underlying: String(describing: error))
        }
        let stored = try txn.storedValue(metadata: false, forKey: key, inCollection: collection)
        if let stored, stored.format == archiver.format, stored.bytes == bytes,
           stored.version == txn.database.migrations.currentVersion(for: collection, metadata: false) { return }
        if stored == nil {
            try txn.setObject(value, forKey: key, inCollection: collection)
        } else {
            try txn.replaceObject(value, forKey: key, inCollection: collection)
        }
        written.append(value.index)
    }

    // MARK: Loading

    /// Decodes the value at `key` with the refs inside it loading `depth` more levels.
    func load<T: Persistable & Codable & Sendable>(_ type: T.Type, key: String, depth: Int) throws -> T? {
        let archiver = transaction.archiver(T.self, in: T.collection, fallback: ArchiverLookup.codable(T.self))
        let outer = self.depth
        self.depth = depth
        defer { self.depth = outer }
        return try GraphContext.$current.withValue(self) {
            try transaction.withStoredValue(metadata: false, collection: T.collection, key: key, operation: "load") { payload, format in
                try transaction.unarchive(payload, format: format, with: archiver, operation: "load", collection: T.collection, key: key)
            }
        }
    }

    /// Called by a ref being decoded: its target, loaded one level less deep, when there are
    /// levels left.
    func loadTarget<T: Persistable>(of type: T.Type, key: String) throws -> (any CarriedValue)? {
        guard !saving, depth > 0, let loadable = T.self as? any (Persistable & Codable & Sendable).Type else { return nil }
        return try loadCarried(loadable, key: key)
    }

    private func loadCarried<U: Persistable & Codable & Sendable>(_ type: U.Type, key: String) throws -> (any CarriedValue)? {
        let memo = LoadKey(index: U.index(forKey: key), depth: depth - 1)
        if let known = loaded[memo] { return known }
        guard let value = try load(U.self, key: key, depth: depth - 1) else { return nil }
        let carried = Carried(value)
        loaded[memo] = carried
        return carried
    }
}
