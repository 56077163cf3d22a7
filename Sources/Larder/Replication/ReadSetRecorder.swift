/// Records a transaction's reads into a ``ReadSet`` (see ``ReadTransaction/readRecorder``).
final class ReadSetRecorder: ReadObserver {
    private(set) var reads = ReadSet()

    func key(_ key: String, inCollection collection: String) {
        guard !reads.everything, !reads.collections.contains(collection) else { return }
        reads.keys[ExactString(collection), default: []].insert(key)
    }

    func collection(_ collection: String) {
        guard !reads.everything else { return }
        reads.collections.insert(collection)
        reads.keys[ExactString(collection)] = nil
    }

    /// An extension's reads stand for its collections (`nil`: every collection): what a
    /// primary checks.
    func extensionRead(_ name: String, collections: Set<ExactString>?) {
        guard let collections else { return everything() }
        for collection in collections { self.collection(collection.string) }
    }

    func everything() {
        reads = ReadSet()
        reads.everything = true
    }
}
