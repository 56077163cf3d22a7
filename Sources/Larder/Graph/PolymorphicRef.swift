/// A reference to a value of any concrete type of `Base` — usually a protocol existential such
/// as `any Shape` — stored in a collection with a ``PolymorphicArchiver`` of `Base` registered.
///
/// Where ``Ref`` points at one type, whose collection it knows, a polymorphic reference points at
/// whatever is stored at its index, and resolves as `Base`:
///
/// ```swift
/// struct Drawing: Codable, Persistable {
///     static let collection = "drawings"
///     var id: String
///     var highlight: PolymorphicRef<any Shape>
/// }
/// let drawing = Drawing(id: "d", highlight: PolymorphicRef(circle))
/// let shape = try db.read { try $0.resolve(drawing.highlight) }   // a Circle; nil when it is gone
/// ```
///
/// It encodes as the two-string array `[collection, key]`. It is `Sendable`, `Hashable` and
/// `Codable` whatever `Base` is: it holds no `Base`.
public struct PolymorphicRef<Base>: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where the target lives.
    public let index: YapDB.Index

    /// The collection of the target.
    public var collection: String { index.collection }
    /// The key of the target in ``collection``.
    public var key: String { index.key }

    /// A reference to the value stored under `key` in `collection`.
    public init(collection: String, key: String) {
        self.index = YapDB.Index(collection: collection, key: key)
    }

    /// A reference to `value`, in its collection under its key.
    /// - Precondition: `value` is a `Base`.
    public init<T: Persistable>(_ value: T) {
        precondition(value is Base, "Larder misuse: a PolymorphicRef<\(Base.self)> was made to a \(T.self), which is not a \(Base.self)")
        self.index = value.index
    }

    /// The base type and the index: `PolymorphicRef<Shape>(shapes/s)`.
    public var description: String { "PolymorphicRef<\(Base.self)>(\(index))" }

    /// Decodes the collection and the key (an array of two strings).
    /// - Throws: `DecodingError` when the value is not an array of exactly two strings.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let collection = try container.decode(String.self)
        let key = try container.decode(String.self)
        guard container.isAtEnd else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a PolymorphicRef is an array of two strings, [collection, key]")
        }
        self.init(collection: collection, key: key)
    }

    /// Encodes the collection and the key (an array of two strings).
    /// - Throws: what `encoder` throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(index.collection)
        try container.encode(index.key)
    }
}

extension ReadTransaction {
    /// The value `ref` points to, read with the archiver of `Base` registered for its collection
    /// (a ``PolymorphicArchiver``), or `nil` when it is gone (removed, or never stored).
    /// - Throws: ``LarderError/Code/archiverNotRegistered`` when no archiver of `Base` is
    ///   registered for the collection; otherwise as ``object(forKey:inCollection:archiver:)``
    ///   (a stored type name that is not registered is ``LarderError/Code/unregisteredType``).
    public final func resolve<Base>(_ ref: PolymorphicRef<Base>) throws -> Base? {
        guard let archiver = database.archivers.archiver(for: ref.collection, Base.self) else {
            throw LarderError(
                .archiverNotRegistered, "no archiver of \(Base.self) is registered for the collection; register a PolymorphicArchiver<\(Base.self)> with Database.register(_:forCollection:)",
                operation: "resolve", index: ref.index)
        }
        return try object(forKey: ref.key, inCollection: ref.collection, archiver: archiver)
    }

    /// The value `ref` points to, read with `archiver`, or `nil` when it is gone.
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    public final func resolve<A: Archiver>(_ ref: PolymorphicRef<A.Value>, archiver: A) throws -> A.Value? {
        try object(forKey: ref.key, inCollection: ref.collection, archiver: archiver)
    }

    /// Whether the value `ref` points to is stored.
    /// - Throws: ``LarderError`` for an invalid collection or key.
    public final func exists<Base>(_ ref: PolymorphicRef<Base>) throws -> Bool {
        try hasObject(forKey: ref.key, inCollection: ref.collection)
    }
}
