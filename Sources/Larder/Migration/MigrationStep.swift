/// How a stored value goes from one version of its type to the next: one link of a
/// ``ValueMigrations`` chain.
///
/// A step works on the value's stored bytes and hands the next step (or the reader) bytes of the
/// next version. Choose the form that says it best:
///
/// ```swift
/// // Fields renamed, added or removed: no code, and `larder migrate` can apply it too.
/// MigrationStep(from: 0, changes: [.rename("name", to: "fullName"), .add("tags", value: .array([]))])
/// // Anything on the MessagePack tree (split a field in two, change a type).
/// MigrationStep(from: 1) { value in
///     let parts = (value["fullName"]?.text ?? "").split(separator: " ", maxSplits: 1)
///     value["givenName"] = .string(parts.first.map(String.init) ?? "")
///     value["familyName"] = .string(parts.count > 1 ? String(parts[1]) : "")
///     value["fullName"] = nil
/// }
/// // Decode as the old type, convert to the new one.
/// MigrationStep(from: 2, decoding: PersonV2.self) { old in PersonV3(old) }
/// ```
///
/// Steps must be pure functions of the value: a value may be migrated several times (by each
/// read until it is written again) and must come out the same.
public struct MigrationStep: Sendable {
    /// Bytes of version `fromVersion` in a format, to bytes of the next version and their format.
    typealias Transform = @Sendable (_ payload: UnsafeRawBufferPointer, _ format: ArchiveFormat) throws -> (bytes: [UInt8], format: ArchiveFormat)

    /// The version this step reads; it produces version `fromVersion + 1`.
    public let fromVersion: Int
    /// The field changes of a step made of them (empty for the other forms), for tools.
    public let fieldChanges: [FieldChange]
    let transform: Transform

    /// A step that makes `changes` to the fields of a MessagePack-encoded struct, in order.
    public init(from version: Int, changes: [FieldChange]) {
        self.init(from: version, fieldChanges: changes) { value in
            for change in changes { change.apply(to: &value) }
        }
    }

    /// A step that edits the value's MessagePack tree (see `MessagePackValue`; a Codable
    /// struct is a map from its property names, which `value["name"]` reads and writes).
    /// - Parameters:
    ///   - version: the version the step reads; it produces the next one.
    ///   - edit: may throw to refuse a value; the read or migration then fails with
    ///     ``LarderError/Code/migrationFailed``.
    public init(from version: Int, _ edit: @escaping @Sendable (_ value: inout MessagePackValue) throws -> Void) {
        self.init(from: version, fieldChanges: [], edit)
    }

    private init(from version: Int, fieldChanges: [FieldChange], _ edit: @escaping @Sendable (inout MessagePackValue) throws -> Void) {
        self.fromVersion = version
        self.fieldChanges = fieldChanges
        self.transform = { payload, format in
            guard format == .messagePack else {
                throw LarderError(.migrationFailed, "a step that edits the MessagePack tree met a value stored as \(format)", recoverySuggestion: "use a step that decodes the old type, MigrationStep(from:decoding:_:), which reads every format")
            }
            var value: MessagePackValue
            do {
                value = try MessagePackValue(reading: payload)
            } catch {
                throw LarderError(.migrationFailed, "the stored value is not valid MessagePack: \(error)", recoverySuggestion: LarderError.Advice.damaged)
            }
            try edit(&value)
            return (value.encoded(), .messagePack)
        }
    }

    /// A step that decodes the value as `old` (from MessagePack or JSON, as the Codable archivers
    /// read) and stores what `convert` makes of it, as MessagePack.
    public init<Old: Decodable & SendableMetatype, New: Encodable & SendableMetatype>(from version: Int, decoding old: Old.Type, _ convert: @escaping @Sendable (Old) throws -> New) {
        self.fromVersion = version
        self.fieldChanges = []
        self.transform = { payload, format in
            let decoded = try CodableFormats.decode(Old.self, from: payload, format: format, messagePack: MessagePackDecoder())
            return (try MessagePackEncoder().encode(try convert(decoded)), .messagePack)
        }
    }

    /// A step that reads the value with `type`'s archiver and writes it again with it: values
    /// come out in the form the archiver writes today, whatever form an earlier version of it
    /// wrote that it still reads. It moves a collection of an `@Archived` type to the numbered
    /// layout (its generated reader reads names and numbers; its writer writes numbers):
    ///
    /// ```swift
    /// // Version 1 was written with names; version 2 with numbers.
    /// MigrationStep(from: 1, rearchiving: Reading.self)
    /// ```
    public init<Value: Saveable & SendableMetatype>(from version: Int, rearchiving type: Value.Type) {
        self.fromVersion = version
        self.fieldChanges = []
        self.transform = { payload, format in
            let archiver = Value.archiver
            let value = try archiver.unarchive(payload, format: format)
            var bytes: [UInt8] = []
            try archiver.archive(value, into: &bytes)
            return (bytes, archiver.format)
        }
    }

    /// A step over the raw bytes, for values of your own archivers: it gets the payload and its
    /// format and returns those of the next version.
    public init(from version: Int, bytes transform: @escaping @Sendable (_ payload: UnsafeRawBufferPointer, _ format: ArchiveFormat) throws -> (bytes: [UInt8], format: ArchiveFormat)) {
        self.fromVersion = version
        self.fieldChanges = []
        self.transform = transform
    }
}
