/// How often a connection's caches answered a read, and how often they did not (so the value
/// was read from the store and decoded).
public struct CacheStatistics: Sendable, Equatable {
    /// Object reads answered by the object cache.
    public var objectHits = 0
    /// Object reads that decoded the stored bytes.
    public var objectMisses = 0
    /// Metadata reads answered by the metadata cache.
    public var metadataHits = 0
    /// Metadata reads that decoded the stored bytes.
    public var metadataMisses = 0
    /// Times the caches were emptied while they held something: because the changes since they
    /// were filled were not known (see ``Changeset/isReset``), or on purpose (see
    /// ``CacheFlushReason``).
    public var flushes = 0
    /// Object reads answered by the identity map (``Connection/keepsIdentityMap``); they are
    /// counted in ``objectHits`` too.
    public var identityMapHits = 0
    /// Instances the identity map refreshed in place (``IdentityRefreshable``) because a commit
    /// changed their index; each such read is counted in ``objectMisses`` too, as it decoded.
    public var identityMapRefreshes = 0

    /// No hits, no misses.
    public init() {}
}
