/// The archiver of one concrete type of a ``PolymorphicArchiver`` in the collection it is
/// registered for: it writes the same envelope as the polymorphic archiver, so that a value
/// written as its concrete type (`txn.write(circle)`) still reads back as the base type, and it
/// reads back only values stored under its own name.
struct PolymorphicMemberArchiver<Value: Codable>: Archiver {
    /// The name `Value` is registered under.
    let name: String
    /// The opening of every envelope this archiver writes.
    let opening: [UInt8]
    let catalog: PolymorphicCatalog
    private let encoder = MessagePackEncoder()
    private let decoder = MessagePackDecoder()

    init(name: String, catalog: PolymorphicCatalog) {
        self.name = name
        self.opening = PolymorphicEnvelope.opening(for: name)
        self.catalog = catalog
    }

    var format: ArchiveFormat { .messagePack }

    /// The cause of the error a read of another member of the family throws: what `readAll`
    /// skips.
    static var otherMember: String { "a value of another type of the collection's polymorphic family" }

    func archive(_ value: Value, into bytes: inout [UInt8]) throws {
        let start = bytes.count
        bytes.append(contentsOf: opening)
        do {
            try encoder.encode(value, into: &bytes)
        } catch {
            bytes.removeSubrange(start...)
            throw error
        }
    }

    func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Value {
        let stored = try PolymorphicEnvelope.open(bytes, format: format, reading: "\(Value.self)")
        guard ExactString.bytesEqual(stored.name, name) else {
            guard let other = catalog.typeName(for: stored.name) else { throw catalog.unregistered(name: stored.name) }
            throw LarderError(.decodingFailed, "the stored value is a \"\(stored.name)\" (\(other)), not a \"\(name)\" (\(Value.self)); read it as \(catalog.base)",
                              underlying: Self.otherMember)
        }
        return try decodeValue(stored.value)
    }

    /// Decodes the value half of an envelope already opened.
    func decodeValue(_ bytes: UnsafeRawBufferPointer) throws -> Value {
        do {
            return try decoder.decode(Value.self, from: bytes)
        } catch {
            throw LarderError(.decodingFailed, "the stored \"\(name)\" does not decode as \(Value.self)", underlying: String(describing: error))
        }
    }
}

extension PolymorphicMemberArchiver: PolymorphicMember {
    func archive<Base>(base value: Base, into bytes: inout [UInt8]) throws {
        // The polymorphic archiver picked this member by the value's dynamic type.
        try archive(value as! Value, into: &bytes)
    }

    func decodeValue<Base>(_ bytes: UnsafeRawBufferPointer, as base: Base.Type) throws -> Base {
        guard let value = try decodeValue(bytes) as? Base else {
            throw LarderError(.decodingFailed, "\(Value.self) is registered as \"\(name)\" with PolymorphicArchiver<\(Base.self)> but is not a \(Base.self)")
        }
        return value
    }
}

extension PolymorphicMemberArchiver: CacheIdentifiedArchiver {
    /// By bytes: two names Swift's `String ==` calls equal are two names in stored values.
    var cacheConfiguration: AnyHashable { AnyHashable(([name, catalog.base] + catalog.entries.flatMap { [$0.name, $0.type] }).map { ExactString($0) }) }
}
