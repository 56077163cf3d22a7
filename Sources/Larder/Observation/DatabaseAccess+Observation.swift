extension Database {
    /// The changesets of every commit from now on (of this process and others), as an async
    /// sequence; with `collection`, only those that change something in it.
    ///
    /// ```swift
    /// for await changes in db.changes(inCollection: "products") {
    ///     print("commit \(changes.commit) changed \(changes.changedKeys(inCollection: "products"))")
    /// }
    /// ```
    public func changes(inCollection collection: String? = nil) -> ChangeStream {
        ChangeStream(lease: SubscriptionLease(database: self, collection: collection))
    }

    /// Looks for commits of other processes now, instead of at the next poll: observers receive
    /// them before this returns. (Reads and writes of this process find them anyway when they see
    /// a newer commit.)
    public func checkForExternalChanges() {
        let hub = shared.changeHub
        environment.whileOpen { hub.poll(environment) }
    }

    /// How many change observers are live (for tests and diagnostics).
    var observerCount: Int { shared.changeHub.subscriberCount }
}

extension DatabaseAccess {
    /// The object `id` of type `T`, now and after every commit that changes it, read through
    /// this database or connection (and its cache). On a connection with a pinned snapshot the
    /// values come from the pinned snapshot: observe through an unpinned connection to follow the
    /// newest commit.
    ///
    /// ```swift
    /// for try await product in db.observe(Product.self, id: "p1") {
    ///     show(product)  // nil while there is no such product
    /// }
    /// ```
    public func observe<T: Persistable & Saveable & Sendable>(_ type: T.Type, id: T.ID) -> ObjectObservation<T> {
        observeObject(T.self, id: id) { txn, key in try txn.object(forKey: key, inCollection: T.collection, as: T.self) }
    }

    /// The object `id` of type `T`, now and after every commit that changes it.
    @_disfavoredOverload
    public func observe<T: Persistable & Codable & Sendable>(_ type: T.Type, id: T.ID) -> ObjectObservation<T> {
        observeObject(T.self, id: id) { txn, key in try txn.object(forKey: key, inCollection: T.collection, as: T.self) }
    }

    /// The observation of the object `id` of type `T`, read by `read`: the one body of both forms
    /// of `observe(_:id:)`, which differ only in how they read the object.
    private func observeObject<T: Persistable & Sendable>(
        _ type: T.Type, id: T.ID, read: @escaping @Sendable (ReadTransaction, String) throws -> T?
    ) -> ObjectObservation<T> {
        let key = T.key(for: id)
        return ObjectObservation(
            lease: SubscriptionLease(database: database, collection: T.collection, keepsDetails: false), index: T.index(forKey: key),
            reader: self, read: { try read($0, key) })
    }
}
