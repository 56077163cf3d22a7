import Synchronization

/// The extensions registered in this process on one store, in registration order (so an
/// extension's dependencies come before it). Shared by every `Database` on the file, like the
/// environment, because every write must update every extension whichever `Database` makes it.
/// Names are told apart by their bytes, as the store's databases (`x.<name>.<part>`) are.
final class ExtensionRegistry: Sendable {
    private let runtimes = Mutex<[any ExtensionRuntime]>([])
    /// Lets every write skip the lock while nothing is registered (the common case).
    private let isEmpty = Atomic<Bool>(true)

    /// The registered extensions, dependencies first.
    var all: [any ExtensionRuntime] {
        if isEmpty.load(ordering: .acquiring) { return [] }
        return runtimes.withLock { $0 }
    }

    func runtime(named name: String) -> (any ExtensionRuntime)? {
        if isEmpty.load(ordering: .acquiring) { return nil }
        return runtimes.withLock { list in list.first { ExactString.bytesEqual($0.name, name) } }
    }

    /// Adds `runtime`, replacing one of the same name in place.
    func add(_ runtime: any ExtensionRuntime) {
        runtimes.withLock { list in
            if let position = list.firstIndex(where: { ExactString.bytesEqual($0.name, runtime.name) }) {
                list[position] = runtime
            } else {
                list.append(runtime)
            }
            isEmpty.store(false, ordering: .releasing)
        }
    }

    func remove(named name: String) {
        runtimes.withLock { list in
            list.removeAll { ExactString.bytesEqual($0.name, name) }
            isEmpty.store(list.isEmpty, ordering: .releasing)
        }
    }
}
