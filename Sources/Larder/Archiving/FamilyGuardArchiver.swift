/// The archiver of a type that has none registered in a collection that has families: the
/// type's own archiver, except that it refuses values a family claims.
struct FamilyGuardArchiver<Value>: Archiver {
    let fallback: any Archiver<Value>
    let families: [any ArchiverFamily]

    /// The guard of `Value` in a collection with `families`, or `nil` when `Value` has no archiver
    /// of its own (then the caller's fallback is used as usual).
    init?(_ type: Value.Type, families: [any ArchiverFamily]) {
        guard let fallback = Self.ownArchiver() else { return nil }
        self.fallback = fallback
        self.families = families
    }

    /// What the typed reads and writes fall back to: a `Saveable` type's own archiver, else
    /// MessagePack for a `Codable` type.
    private static func ownArchiver() -> (any Archiver<Value>)? {
        if let saveable = Value.self as? any Saveable.Type, let own = saveable.archiver as? any Archiver<Value> { return own }
        if let codable = Value.self as? any Codable.Type { return messagePackArchiver(codable) as? any Archiver<Value> }
        return nil
    }

    private static func messagePackArchiver<T: Codable>(_ type: T.Type) -> any Sendable {
        MessagePackArchiver<T>()
    }

    var format: ArchiveFormat { fallback.format }

    func archive(_ value: Value, into bytes: inout [UInt8]) throws {
        for family in families {
            if let refusal = family.refusal(toArchive: value) { throw refusal }
        }
        try fallback.archive(value, into: &bytes)
    }

    func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Value {
        try fallback.unarchive(bytes, format: format)
    }
}
