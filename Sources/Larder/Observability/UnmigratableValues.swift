/// Values a collection holds that its declared versions cannot read: told to
/// ``Database/Configuration/onEvent`` as ``DatabaseEvent/unmigratableValues(_:)`` when a program
/// registers ``ValueMigrations`` from which no chain of steps leads from a version the collection
/// holds to the current one — typically `currentVersion > 0` with no step from version 0 while
/// values written before versions were declared (or by a tool) are still there. Reading one of
/// them fails with ``LarderError/Code/migrationFailed``.
public struct UnmigratableValues: Sendable, Equatable {
    /// The collection.
    public let collection: String
    /// Whether these are metadata values (otherwise objects).
    public let metadata: Bool
    /// The version the registration declares.
    public let currentVersion: Int
    /// How many values are stored at each version from which no chain of steps reaches
    /// ``currentVersion``.
    public let counts: [Int: Int]
    /// The first such value's key, in the collection's order.
    public let firstKey: String
}
