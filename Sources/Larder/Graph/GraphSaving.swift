/// Saving a graph of values in one call, and loading one to a depth.
///
/// Both work through the refs inside values while they are encoded or decoded: a ``Ref`` made
/// with ``Ref/init(carrying:)`` hands its target to ``ReadWriteTransaction/saveAll(_:)``; a ref
/// decoded inside ``ReadTransaction/load(_:key:depth:)`` loads its target. A ref is stored as its
/// key either way.
extension ReadWriteTransaction {
    /// Writes `value` and every value it reaches through refs that carry their targets
    /// (``Ref/init(carrying:)``), each once however many refs and cycles lead to it, and only
    /// when it is new or its stored bytes differ. Returns the indexes written, in the order they
    /// were written.
    ///
    /// ```swift
    /// let page = Page(id: "p1", layers: [Ref(carrying: layer)])
    /// let written = try db.write { try $0.saveAll(Document(id: "d", pages: [Ref(carrying: page)])) }
    /// ```
    ///
    /// A value already stored keeps its metadata; a new one has none. Values reached more than
    /// once are written as first met (refs that carry different versions of one value do not
    /// merge).
    /// - Throws: ``LarderError`` when a value does not encode or its key is invalid; the
    ///   transaction keeps what was written before (throw out of the closure to undo it all).
    @discardableResult
    public func saveAll<T: Persistable & Codable>(_ value: T) throws -> [YapDB.Index] {
        let context = GraphContext(saving: self)
        try context.saveValue(value)
        while context.next < context.pending.count {
            let carried = context.pending[context.next]
            context.next += 1
            try carried.save(in: context)
        }
        return context.written
    }
}

extension ReadTransaction {
    /// The value stored under `key`, with the refs inside it carrying their targets, and the refs
    /// inside those carrying theirs, to `depth` levels (0: the value alone, like
    /// ``read(_:key:)-1nexi``). Read a loaded target with ``Ref/target``.
    ///
    /// ```swift
    /// let document = try txn.load(Document.self, key: "d", depth: 2)
    /// let firstLayer = document?.pages[0].target?.layers[0].target
    /// ```
    ///
    /// Targets that are gone stay unloaded (`target` is `nil`). A target whose type is not
    /// `Codable` and `Sendable` is not loaded. Loading decodes afresh, not through the cache.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``, for the value and every target.
    public final func load<T: Persistable & Codable & Sendable>(_ type: T.Type, key: String, depth: Int) throws -> T? {
        try GraphContext(loading: self).load(T.self, key: key, depth: max(0, depth))
    }

    /// The target of `ref`, loaded to `depth` levels like ``load(_:key:depth:)``.
    /// - Throws: as ``load(_:key:depth:)``.
    public final func load<T: Persistable & Codable & Sendable>(_ ref: Ref<T>, depth: Int) throws -> T? {
        try load(T.self, key: ref.key, depth: depth)
    }
}

/// A ref's target, kept with the ref.
protocol CarriedValue: Sendable {
    var anyValue: Any { get }
    /// Saves the value through `context` (``ReadWriteTransaction/saveAll(_:)``).
    func save(in context: GraphContext) throws
}

final class Carried<T: Persistable & Codable & Sendable>: CarriedValue {
    let value: T

    init(_ value: T) {
        self.value = value
    }

    var anyValue: Any { value }

    func save(in context: GraphContext) throws {
        try context.saveValue(value)
    }
}

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
            throw LarderError(.encodingFailed, "the value of type \(T.self) could not be archived", operation: "saveAll", index: value.index, underlying: String(describing: error))
        }
        let stored = try txn.storedObject(forKey: key, inCollection: collection)
        if let stored, stored.format == archiver.format, stored.bytes == bytes { return }
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
            try transaction.withStoredValue(\.objects, collection: T.collection, key: key, operation: "load") { payload, format in
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
