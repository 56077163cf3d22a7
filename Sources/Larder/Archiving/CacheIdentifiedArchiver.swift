/// An archiver whose instances of one type may read the same bytes differently (a
/// ``PolymorphicArchiver`` knows the types it was given), saying what sets them apart.
protocol CacheIdentifiedArchiver {
    /// Equal for two instances exactly when they decode every stored value alike.
    var cacheConfiguration: AnyHashable { get }
}
