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
