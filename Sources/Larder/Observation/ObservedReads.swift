/// Records what an observed read reads, into a ``ReadSet`` that also names the extensions read.
final class ObservedReads: ReadObserver {
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
