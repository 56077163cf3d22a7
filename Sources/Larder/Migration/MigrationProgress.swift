/// How far ``Database/migrate(collection:metadata:chunkSize:progress:)`` has come.
public struct MigrationProgress: Sendable, Hashable {
    /// The collection being migrated.
    public let collection: String
    /// The values looked at so far.
    public let scanned: Int
    /// The values in the collection when the migration began (values added since are written at
    /// the current version, and those removed are not looked at, so `scanned` may end up
    /// elsewhere).
    public let total: Int
    /// The values rewritten at the current version so far.
    public let migrated: Int
}
