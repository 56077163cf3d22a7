/// The changes of collection counts a write transaction has not yet written to the store's
/// count records, with the collection written last held apart (as in
/// ``ChangeRecorder``). Collections are told apart by their bytes (``ExactString``): two names
/// Swift calls equal are two counts.
struct CountChanges {
    private var settled: [ExactString: Int] = [:]
    private var collection: String?
    private var delta = 0

    mutating func add(_ change: Int, to name: String) {
        if !isCurrent(name) {
            settle()
            collection = name
        }
        delta += change
    }

    /// The change of `name`'s count.
    subscript(name: String) -> Int {
        (settled[ExactString(name)] ?? 0) + (isCurrent(name) ? delta : 0)
    }

    /// Every collection whose count changed, with the change (`0` included when a collection's
    /// changes cancelled out).
    func all() -> [ExactString: Int] {
        guard let collection else { return settled }
        var all = settled
        all[ExactString(collection), default: 0] += delta
        return all
    }

    mutating func removeAll() {
        settled.removeAll()
        collection = nil
        delta = 0
    }

    @inline(__always)
    private func isCurrent(_ name: String) -> Bool {
        guard let collection else { return false }
        return ExactString.bytesEqual(name, collection)
    }

    private mutating func settle() {
        if let collection { settled[ExactString(collection), default: 0] += delta }
        collection = nil
        delta = 0
    }
}
