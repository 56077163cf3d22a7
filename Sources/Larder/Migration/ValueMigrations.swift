/// The versions of the values of one collection: the current one, and the steps that bring a
/// value written at an older version up to it.
///
/// ```swift
/// let people = ValueMigrations(collection: "people", currentVersion: 2, steps: [
///     MigrationStep(from: 0, changes: [.rename("name", to: "fullName")]),
///     MigrationStep(from: 1, decoding: PersonV1.self) { old in Person(old) },
/// ])
/// try db.register(people)
/// ```
///
/// Once registered, every value written to the collection records `currentVersion`, and every
/// read of a value written at an older one (values written before any version was declared are
/// at version 0) migrates it in memory, step by step, before it is decoded; views, indexes and
/// relationships see the migrated value. A value written at a version newer than
/// `currentVersion` is not read: ``LarderError/Code/newerValueVersion``. To rewrite the old
/// values once and for all, call ``Database/migrate(collection:metadata:chunkSize:progress:)``
/// or run `larder migrate`.
///
/// Versions are declared per collection, for objects or (with `metadata`) for metadata; a
/// collection without a declaration reads its values as they are stored, whatever their version.
public struct ValueMigrations: Sendable {
    /// The collection whose values these are.
    public let collection: String
    /// Whether these are the versions of the metadata (otherwise of the objects).
    public let metadata: Bool
    /// The version every write records.
    public let currentVersion: Int
    /// The steps, by the version each reads.
    let steps: [Int: MigrationStep]

    /// The versions of `collection`'s objects (or, with `metadata`, its metadata): written at
    /// `currentVersion`, and read from an older one through `steps`.
    ///
    /// Each step reads one version and writes the next; a value at a version from which no chain
    /// of steps reaches `currentVersion` fails to read with ``LarderError/Code/migrationFailed``.
    /// - Precondition: `currentVersion` is 0 or more and fits 32 bits; each step starts at a
    ///   version below `currentVersion`, and no two at the same one.
    public init(collection: String, metadata: Bool = false, currentVersion: Int, steps: [MigrationStep]) {
        precondition(currentVersion >= 0 && currentVersion <= Int(UInt32.max), "Larder misuse: a value version is between 0 and \(UInt32.max); \(currentVersion) is not")
        var byVersion: [Int: MigrationStep] = [:]
        for step in steps {
            precondition(step.fromVersion >= 0 && step.fromVersion < currentVersion, "Larder misuse: a migration step of collection \"\(collection)\" starts at version \(step.fromVersion), which is not below the current version \(currentVersion)")
            precondition(byVersion[step.fromVersion] == nil, "Larder misuse: two migration steps of collection \"\(collection)\" start at version \(step.fromVersion)")
            byVersion[step.fromVersion] = step
        }
        self.collection = collection
        self.metadata = metadata
        self.currentVersion = currentVersion
        self.steps = byVersion
    }

    /// Whether a step starts at `version`.
    func hasStep(from version: Int) -> Bool { steps[version] != nil }

    /// The versions of `T`'s collection, as `T` declares them.
    public init<T: Migratable>(of type: T.Type) {
        self.init(collection: T.collection, currentVersion: T.currentVersion, steps: T.migrationSteps)
    }

    /// The bytes of `payload`, stored in `format` at `version` (below the current one), at the
    /// current version.
    /// - Throws: ``LarderError/Code/migrationFailed`` when no step starts at a version on the way,
    ///   or a step throws.
    func migrate(_ payload: UnsafeRawBufferPointer, format: ArchiveFormat, from version: UInt32) throws(LarderError) -> (bytes: [UInt8], format: ArchiveFormat) {
        var current: (bytes: [UInt8], format: ArchiveFormat)?
        var at = Int(version)
        while at < currentVersion {
            guard let step = steps[at] else {
                throw LarderError(.migrationFailed, "the value is at version \(at) of collection \"\(collection)\"\(metadata ? " (metadata)" : ""), and no migration step starts there (the current version is \(currentVersion))", recoverySuggestion: LarderError.Advice.noStep(from: at, current: currentVersion))
            }
            do {
                if let previous = current {
                    current = try previous.bytes.withUnsafeBytes { try step.transform($0, previous.format) }
                } else {
                    current = try step.transform(payload, format)
                }
            } catch let error as LarderError where error.code == .migrationFailed {
                throw error
            } catch {
                throw LarderError(.migrationFailed, "the migration step from version \(at) to \(at + 1) of collection \"\(collection)\"\(metadata ? " (metadata)" : "") failed", underlying: String(describing: error), recoverySuggestion: LarderError.Advice.stepFailed)
            }
            at += 1
        }
        return current ?? ([UInt8](payload), format)
    }
}
