/// Weak references to the class instances a connection handed out, by index: loading an index
/// again returns the instance already loaded while it lives (see ``Connection/keepsIdentityMap``).
///
/// Not thread-safe by itself: its ``ConnectionCache`` guards it with its lock, and moves it across
/// commits together with the object cache. An entry is *current* when its instance holds the state
/// stored at every commit from its `since` through the cache's commit, so a transaction at any of
/// those commits (a pinned snapshot included) may have it; *stale* when a later commit changed the
/// index and the instance (which is ``IdentityRefreshable``) waits for its refresh at the next load.
struct IdentityMap {
    struct Entry {
        weak var instance: AnyObject?
        /// The commit the instance's state was decoded, refreshed or written at.
        var since: UInt64
        var isStale = false
    }

    /// What a load should return, after a decode at the map's commit.
    enum Adoption {
        /// The instance the map already had, current: the decoded value is not needed.
        case existing(AnyObject)
        /// The instance the map had, stale and of the decoded type: refresh it, then return it.
        case refresh(AnyObject)
        /// The decoded value, now in the map.
        case fresh
    }

    /// Below this many entries the map is never pruned.
    static let pruneFloor = 128

    private var entries: [ConnectionCache.Key: Entry] = [:]
    /// The count at which dead entries are next swept out: twice the live entries after a sweep,
    /// so sweeping costs O(1) per insertion, amortized, and the map stays within twice the live
    /// instances (plus the floor).
    private var pruneAt = pruneFloor

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The live instance at `key` if it is current and holds the state a transaction at `commit`
    /// (no newer than the map's) sees; forgets a dead one.
    mutating func current(at key: ConnectionCache.Key, readAt commit: UInt64) -> AnyObject? {
        guard let entry = entries[key] else { return nil }
        guard let instance = entry.instance else {
            entries[key] = nil
            return nil
        }
        return !entry.isStale && entry.since <= commit ? instance : nil
    }

    /// The live instance at `key`, current or stale.
    func live(at key: ConnectionCache.Key) -> AnyObject? {
        entries[key]?.instance
    }

    /// Decides what a load of `key` returns, given `decoded`, just decoded at `commit`, the map's
    /// commit: the current instance when another load registered one meanwhile (and it is `T`),
    /// the stale one to refresh when it is refreshable and of the decoded type, else `decoded`,
    /// which becomes the entry.
    mutating func adopt<T>(_ decoded: AnyObject, at key: ConnectionCache.Key, commit: UInt64, as type: T.Type) -> Adoption {
        if let entry = entries[key], let instance = entry.instance {
            if !entry.isStale, instance is T { return .existing(instance) }
            if entry.isStale, instance is any IdentityRefreshable, Swift.type(of: instance) == Swift.type(of: decoded) {
                entries[key] = Entry(instance: instance, since: commit)
                return .refresh(instance)
            }
        }
        set(decoded, at: key, since: commit)
        return .fresh
    }

    /// Makes `instance`, holding the state stored at `since`, the current entry at `key`.
    mutating func set(_ instance: AnyObject, at key: ConnectionCache.Key, since: UInt64) {
        entries[key] = Entry(instance: instance, since: since)
        if entries.count >= pruneAt { prune() }
    }

    /// A commit changed the object at `key`: a refreshable instance becomes stale (refreshed at
    /// its next load), any other is forgotten, and so is every instance of a removed object.
    mutating func objectChanged(at key: ConnectionCache.Key, removed: Bool) {
        guard let entry = entries[key] else { return }
        if !removed, entry.instance is any IdentityRefreshable {
            entries[key]?.isStale = true
        } else {
            entries[key] = nil
        }
    }

    /// Forgets the entries whose index satisfies `shouldRemove`.
    mutating func removeAll(where shouldRemove: (ConnectionCache.Key) -> Bool) {
        entries = entries.filter { !shouldRemove($0.key) }
    }

    mutating func removeAll() {
        entries.removeAll()
        pruneAt = Self.pruneFloor
    }

    /// Sweeps out the entries whose instance is gone.
    private mutating func prune() {
        entries = entries.filter { $0.value.instance != nil }
        pruneAt = max(Self.pruneFloor, 2 * entries.count)
    }
}

extension IdentityMap {
    /// `value` as a class instance, `nil` for a value of any other kind (struct, enum, optional,
    /// tuple). Avoids `as AnyObject`, which would box a struct rather than fail.
    @inline(__always)
    static func classInstance<T>(_ value: T) -> AnyObject? {
        Swift.type(of: value as Any) is AnyObject.Type ? value as AnyObject : nil
    }

    /// Copies `decoded` into `instance`, which is ``IdentityRefreshable`` and of the same type.
    static func refresh(_ instance: AnyObject, from decoded: AnyObject) {
        guard let refreshable = instance as? any IdentityRefreshable else { return }
        refreshOpened(refreshable, from: decoded)
    }

    private static func refreshOpened<R: IdentityRefreshable>(_ instance: R, from decoded: AnyObject) {
        guard let newer = decoded as? R else { return }
        instance.refresh(from: newer)
    }
}
