/// A value a write transaction wrote, kept for its connection's cache after the commit (see
/// ``ConnectionCache/commitWrites(_:from:snapshotID:objects:metadata:)``).
struct WrittenValue {
    /// The connection core that wrote it.
    let owner: ObjectIdentifier
    let value: CachedValueBox
    /// The archiver that wrote it: the cache hands it only to reads with the same one.
    let writer: ArchiverIdentity
}
