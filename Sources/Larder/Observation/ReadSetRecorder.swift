/// Records a transaction's reads into a ``ReadSet`` (see ``ReadTransaction/readRecorder``): what a
/// replica's rehearsed write ships to its primary, and what an observed read
/// (`observe { txn in … }`) is woken by. The names of the extensions read are kept too; a
/// replica does not ship them (their collections stand for them).
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

    /// An extension's reads stand for its collections (`nil`: every collection).
    func extensionRead(_ name: String, collections: Set<ExactString>?) {
        reads.extensions.insert(name)
        guard let collections else { return everything() }
        for collection in collections { self.collection(collection.string) }
    }

    func everything() {
        let extensions = reads.extensions
        reads = ReadSet()
        reads.everything = true
        reads.extensions = extensions
    }
}
