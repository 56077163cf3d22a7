/// An archiver of values of several concrete types behind one base type — usually a protocol
/// existential such as `any Shape` — each registered under a name that is stored with the value.
///
/// ```swift
/// protocol Shape: Sendable { var area: Double { get } }
/// struct Circle: Shape, Codable { var radius: Double; var area: Double { .pi * radius * radius } }
/// struct Square: Shape, Codable { var side: Double; var area: Double { side * side } }
///
/// let shapes = PolymorphicArchiver<any Shape>(["circle": Circle.self, "square": Square.self])
/// db.register(shapes, forCollection: "shapes")
/// try db.write { txn in
///     try txn.setObject(Circle(radius: 1) as any Shape, forKey: "c", inCollection: "shapes", archiver: shapes)
///     try txn.setObject(Square(side: 2), forKey: "s", inCollection: "shapes")  // a concrete type works too
/// }
/// let shape = try db.read { try $0.object(forKey: "s", inCollection: "shapes", archiver: shapes) }
/// ```
///
/// A value is stored as the MessagePack array `[name, value]`, the value in its own `Codable`
/// form, so any MessagePack tool can read it (StorageLayout.md gives the bytes). The names, not
/// the Swift type names, are what is stored: rename a type freely, but keep its name.
///
/// Registered for a collection (``Database/register(_:forCollection:)``), the archiver also
/// registers one archiver per concrete type there, so that writes of a concrete type store the
/// same envelope and reads as a concrete type check the stored name; a value of the base type
/// whose concrete type is not registered cannot be written to that collection at all. The
/// collection thus always reads back as the base type.
///
/// Swift cannot check that each registered type is a `Base`; a type that is not can never be
/// written, and reading one throws ``LarderError/Code/decodingFailed``.
public struct PolymorphicArchiver<Base>: Archiver {
    /// The archivers of the concrete types, by name (its bytes, as stored in each value) and by
    /// type; each is also registered beside this one, for its own type.
    private let byName: [ExactString: any PolymorphicMember]
    private let byType: [ObjectIdentifier: any PolymorphicMember]
    private let catalog: PolymorphicCatalog
    /// Each name with its type: what the connection cache tells two of these archivers apart by.
    private let typeByName: [ExactString: ObjectIdentifier]

    /// An archiver of the concrete types `types`, each stored under its name.
    ///
    /// ```swift
    /// let shapes = PolymorphicArchiver<any Shape>(["circle": Circle.self, "square": Square.self])
    /// ```
    /// - Precondition: names are unique, and so are types (a type has one name).
    public init(_ types: KeyValuePairs<String, any Codable.Type>) {
        let catalog = PolymorphicCatalog(base: "\(Base.self)", entries: types.map { ($0.key, "\($0.value)") })
        var byName: [ExactString: any PolymorphicMember] = [:]
        var byType: [ObjectIdentifier: any PolymorphicMember] = [:]
        var typeByName: [ExactString: ObjectIdentifier] = [:]
        for (name, type) in types {
            let member = Self.member(type, name: name, catalog: catalog)
            precondition(byName[ExactString(name)] == nil, "Larder misuse: the name \"\(name)\" is given twice to PolymorphicArchiver<\(Base.self)>")
            precondition(byType[member.type] == nil, "Larder misuse: \(type) is given two names in PolymorphicArchiver<\(Base.self)>")
            byName[ExactString(name)] = member.archiver
            byType[member.type] = member.archiver
            typeByName[ExactString(name)] = member.type
        }
        self.typeByName = typeByName
        self.byName = byName
        self.byType = byType
        self.catalog = catalog
    }

    private static func member<T: Codable>(_ type: T.Type, name: String, catalog: PolymorphicCatalog) -> (type: ObjectIdentifier, archiver: any PolymorphicMember) {
        (ObjectIdentifier(T.self), PolymorphicMemberArchiver<T>(name: name, catalog: catalog))
    }

    /// The names registered, in the order given.
    public var names: [String] { catalog.entries.map(\.name) }

    /// MessagePack: a stored polymorphic value is one MessagePack array.
    public var format: ArchiveFormat { .messagePack }

    /// Appends the envelope `[name, value]` of `value`, named after its concrete type.
    /// - Throws: ``LarderError/Code/unregisteredType`` when the concrete type of `value` is not
    ///   registered (the error names it); what the concrete type's `encode(to:)` throws.
    public func archive(_ value: Base, into bytes: inout [UInt8]) throws {
        // Through `Any`, `type(of:)` gives the dynamic type even when `Base` is an existential.
        let concrete = type(of: value as Any)
        guard let member = byType[ObjectIdentifier(concrete)] else {
            throw LarderError(.unregisteredType, "\(concrete) is not registered with PolymorphicArchiver<\(Base.self)>, which knows \(catalog.listing)")
        }
        try member.archive(base: value, into: &bytes)
    }

    /// Reads an envelope back as the concrete type its name is registered for.
    /// - Throws: ``LarderError/Code/unregisteredType`` when the stored name is not registered
    ///   (the error names it); ``LarderError/Code/decodingFailed`` when the bytes are not an
    ///   envelope or the value does not decode as the named type;
    ///   ``LarderError/Code/unknownFormat`` when the value is not MessagePack.
    public func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> Base {
        let stored = try PolymorphicEnvelope.open(bytes, format: format, reading: "\(Base.self)")
        guard let member = byName[ExactString(stored.name)] else { throw catalog.unregistered(name: stored.name) }
        return try member.decodeValue(stored.value, as: Base.self)
    }
}

extension PolymorphicArchiver: ArchiverFamily {
    var memberArchivers: [(type: ObjectIdentifier, archiver: any Sendable)] {
        byType.map { ($0.key, $0.value) }
    }

    func refusal(toArchive value: Any) -> LarderError? {
        guard value is Base else { return nil }
        return LarderError(.unregisteredType, "\(type(of: value)) is a \(Base.self) but is not registered with the collection's PolymorphicArchiver<\(Base.self)>, which knows \(catalog.listing)")
    }
}

extension PolymorphicArchiver: CacheIdentifiedArchiver {
    var cacheConfiguration: AnyHashable { AnyHashable(typeByName) }
}
