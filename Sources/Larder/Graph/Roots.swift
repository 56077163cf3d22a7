/// Named roots: well-known entry points into a graph of values ("main", "currentDocument"),
/// each naming one index. Stored in the collection `larder.roots`, a root's key being its name and
/// its value the index it names (the later garbage collection keeps what the roots reach).
extension ReadWriteTransaction {
    /// The collection roots live in.
    public static var rootsCollection: String { "larder.roots" }

    /// Makes `ref` the root called `name`, replacing what that root named before.
    /// - Throws: ``LarderError`` for an invalid name (empty, or too long with the collection).
    public func setRoot<T: Persistable>(_ ref: Ref<T>, named name: String) throws {
        try setObject(ref.index, forKey: name, inCollection: Self.rootsCollection)
    }

    /// Removes the root called `name` (not what it names); returns whether there was one.
    /// - Throws: ``LarderError`` for an invalid name (empty, or too long with the collection).
    @discardableResult
    public func removeRoot(named name: String) throws -> Bool {
        try removeObject(forKey: name, inCollection: Self.rootsCollection)
    }
}

extension ReadTransaction {
    /// The root called `name` as a reference to a `T`, `nil` when there is no such root.
    /// - Throws: ``LarderError/Code/decodingFailed`` when the root names an index in another
    ///   collection than `T`'s (it names something else).
    public final func root<T: Persistable>(named name: String, as type: T.Type = T.self) throws -> Ref<T>? {
        guard let index = try rootIndex(named: name) else { return nil }
        guard ExactString.bytesEqual(index.collection, T.collection) else {
            throw LarderError(.decodingFailed, "the root \(name) names a value in collection \(index.collection), not a value of \(T.self) (collection \(T.collection))", operation: "root", index: index)
        }
        return Ref(key: index.key)
    }

    /// The index the root called `name` names, `nil` when there is no such root.
    /// - Throws: ``LarderError`` for an invalid name, or with ``LarderError/Code/decodingFailed``
    ///   when the stored root is not an index.
    public final func rootIndex(named name: String) throws -> YapDB.Index? {
        try object(forKey: name, inCollection: ReadWriteTransaction.rootsCollection, as: YapDB.Index.self)
    }

    /// The names of every root, in UTF-8 order.
    /// - Throws: ``LarderError`` with an LMDB failure.
    public final func rootNames() throws -> [String] {
        try keys(inCollection: ReadWriteTransaction.rootsCollection)
    }
}
