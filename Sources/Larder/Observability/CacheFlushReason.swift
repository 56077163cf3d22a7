/// Why ``DatabaseEvent/cachesFlushed(commit:reason:)`` says a connection's caches were emptied:
/// something the store did on purpose, unlike ``DatabaseEvent/cachesReset(commit:)``, whose
/// changes were lost from the change log.
///
/// New cases may be added in later versions: give a `switch` over them a `default`.
public enum CacheFlushReason: Sendable, Equatable {
    /// ``ValueMigrations`` were registered with the database since the values were cached: a
    /// value decoded before may be one the new declaration migrates.
    case valueMigrationsRegistered
    /// More commits than are worth reading one by one had been made since the caches were filled
    /// (a connection idle for long): emptying them was cheaper than reading the changes.
    case manyCommitsBehind
    /// A commit removed every object and every value of metadata of the store
    /// (``ReadWriteTransaction/removeAllObjectsInAllCollections()``).
    case everythingRemoved
}
