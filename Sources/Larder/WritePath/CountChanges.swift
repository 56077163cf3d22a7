/// The changes of collection counts a write transaction has not yet written to the
/// `collections` database, with the collection written last held apart (as in
/// ``ChangeRecorder``).
struct CountChanges {
    private var settled: [String: Int] = [:]
    private var collection: String?
    private var delta = 0

    mutating func add(_ change: Int, to name: String) {
        if name != collection {
            settle()
            collection = name
        }
        delta += change
    }

    /// The change of `name`'s count.
    subscript(name: String) -> Int {
        (settled[name] ?? 0) + (name == collection ? delta : 0)
    }

    /// Every collection whose count changed, with the change (`0` included when a collection's
    /// changes cancelled out).
    func all() -> [String: Int] {
        guard let collection else { return settled }
        var all = settled
        all[collection, default: 0] += delta
        return all
    }

    mutating func removeAll() {
        settled.removeAll()
        collection = nil
        delta = 0
    }

    private mutating func settle() {
        if let collection { settled[collection, default: 0] += delta }
        collection = nil
        delta = 0
    }
}
