import Synchronization

/// Coder objects kept between calls, so that an encode or decode reuses one
/// object, its state and its scratch memory instead of allocating them.
///
/// One pool per kind of object serves every `MessagePackEncoder` or
/// `MessagePackDecoder` in the process (the public structs stay plain values
/// that cost nothing to create). A call takes an object out and puts it back
/// when done, so each object is used by one thread at a time; at most
/// `capacity` objects wait here, one per thread coding at once.
final class MessagePackObjectPool<Object: AnyObject>: Sendable {
    /// An idle object. Only objects nothing else refers to are put in, and
    /// `take()` hands each to one caller, so no object is ever shared.
    private struct Idle: @unchecked Sendable {
        let object: Object
    }

    /// Enough for the threads of a busy process; beyond it, calls simply allocate.
    let capacity: Int
    private let idle: Mutex<[Idle]>

    init(capacity: Int) {
        self.capacity = capacity
        var objects: [Idle] = []
        objects.reserveCapacity(capacity)
        idle = Mutex(objects)
    }

    /// An idle object, if there is one.
    func take() -> Object? {
        idle.withLock { objects in objects.popLast() }?.object
    }

    /// Keeps `object` for a later `take()`, unless anything besides the
    /// caller's variable still refers to it (a type that kept its coder or a
    /// container past `init(from:)` or `encode(to:)`): such an object is left
    /// to the one who kept it, and the pool never hands it out again.
    /// The caller must not use its variable afterwards.
    func recycle(_ object: inout Object) {
        guard isKnownUniquelyReferenced(&object) else { return }
        let kept = Idle(object: object)
        idle.withLock { objects in
            if objects.count < capacity { objects.append(kept) }
        }
    }
}
