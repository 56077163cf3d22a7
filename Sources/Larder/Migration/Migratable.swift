/// A ``Persistable`` type that declares the version of its stored values and how older ones
/// become current: register it with ``Database/registerMigrations(of:)``.
///
/// ```swift
/// struct Person: Codable, Persistable, Migratable {
///     static let collection = "people"
///     static let currentVersion = 1
///     static let migrationSteps = [MigrationStep(from: 0, changes: [.rename("name", to: "fullName")])]
///     var id: String
///     var fullName: String
/// }
/// ```
public protocol Migratable: Persistable {
    /// The version every write of this type records.
    static var currentVersion: Int { get }
    /// The steps from each older version (see ``ValueMigrations``).
    static var migrationSteps: [MigrationStep] { get }
}
