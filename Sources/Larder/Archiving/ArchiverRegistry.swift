import Synchronization

/// Archivers registered per collection and value type, which override a type's own archiver there.
final class ArchiverRegistry: Sendable {
    /// A collection (its bytes: an archiver registered for one collection is not used in
    /// another whose name Swift calls equal) and a value type.
    private struct Slot: Hashable {
        let collection: ExactString
        let type: ObjectIdentifier

        init(collection: String, type: ObjectIdentifier) {
            self.collection = ExactString(collection)
            self.type = type
        }
    }

    private struct State {
        var archivers: [Slot: any Sendable] = [:]
        /// The families (polymorphic archivers) registered, by slot, and the slots of each collection's.
        var families: [Slot: any ArchiverFamily] = [:]
        var familySlots: [ExactString: [Slot]] = [:]
    }

    private let state = Mutex(State())
    /// Lets the read path skip the lock while nothing is registered (the common case).
    private let isEmptyFlag = Atomic<Bool>(true)

    func register<A: Archiver>(_ archiver: A, forCollection collection: String) {
        let slot = Slot(collection: collection, type: ObjectIdentifier(A.Value.self))
        state.withLock { state in
            // A family's member archivers go with it when it is replaced.
            if let replaced = state.families.removeValue(forKey: slot) {
                for member in replaced.memberArchivers { state.archivers[Slot(collection: collection, type: member.type)] = nil }
                state.familySlots[slot.collection]?.removeAll { $0 == slot }
            }
            state.archivers[slot] = archiver
            if let family = archiver as? any ArchiverFamily {
                for member in family.memberArchivers { state.archivers[Slot(collection: collection, type: member.type)] = member.archiver }
                state.families[slot] = family
                state.familySlots[slot.collection, default: []].append(slot)
            }
        }
        isEmptyFlag.store(false, ordering: .releasing)
    }

    /// Whether nothing was ever registered: every type reads with its own archiver everywhere.
    var isEmpty: Bool { isEmptyFlag.load(ordering: .acquiring) }

    /// The archiver registered for values of type `T` in `collection`; in a collection with a
    /// family, a type without one gets its own archiver guarded by the families.
    @inline(__always)
    func archiver<T>(for collection: String, _ type: T.Type) -> (any Archiver<T>)? {
        if isEmpty { return nil }
        let (registered, families) = state.withLock { state -> ((any Sendable)?, [any ArchiverFamily]) in
            if let registered = state.archivers[Slot(collection: collection, type: ObjectIdentifier(T.self))] { return (registered, []) }
            return (nil, state.familySlots[ExactString(collection)]?.compactMap { state.families[$0] } ?? [])
        }
        if let registered { return registered as? any Archiver<T> }
        return families.isEmpty ? nil : FamilyGuardArchiver(T.self, families: families)
    }
}
