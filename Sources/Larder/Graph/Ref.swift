/// A typed reference to a ``Persistable`` value: its key, with the collection implied by `T`.
///
/// Store refs inside your values instead of the values they point to, and resolve them when
/// you need the target, in a transaction:
///
/// ```swift
/// struct Venn: Codable, Persistable {
///     static let collection = "diagrams"
///     var id: String
///     var left: Ref<Circle>
///     var right: Ref<Circle>
/// }
/// let circle = try db.read { try $0.resolve(venn.left) }   // nil when the circle is gone
/// ```
///
/// A ref encodes as its key alone (a string), so it costs what the key costs. It is `Sendable`,
/// `Hashable` and `Codable` whatever `T` is: it holds no `T`.
public struct Ref<T: Persistable>: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The key of the target in `T.collection`.
    public let key: String

    /// A reference to the value stored under `key`.
    public init(key: String) {
        self.key = key
    }

    /// A reference to the value with identifier `id`.
    public init(id: T.ID) {
        self.key = T.key(for: id)
    }

    /// A reference to `value`.
    public init(_ value: T) {
        self.key = value.key
    }

    /// Where the target lives.
    public var index: YapDB.Index { T.index(forKey: key) }

    public var description: String { "Ref<\(T.self)>(\(index))" }

    /// Decodes the key (a single string).
    public init(from decoder: any Decoder) throws {
        key = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the key (a single string).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(key)
    }
}

extension ReadTransaction {
    /// The value `ref` points to, or `nil` when it is gone (removed, or never stored).
    /// - Throws: as ``object(forKey:inCollection:archiver:)`` (a target that does not decode as
    ///   `T` is an error, not `nil`).
    public final func resolve<T: Persistable & Saveable>(_ ref: Ref<T>) throws -> T? {
        try object(forKey: ref.key, inCollection: T.collection, as: T.self)
    }

    /// The value `ref` points to, or `nil` when it is gone (removed, or never stored).
    /// - Throws: as ``object(forKey:inCollection:archiver:)``.
    @_disfavoredOverload
    public final func resolve<T: Persistable & Codable>(_ ref: Ref<T>) throws -> T? {
        try object(forKey: ref.key, inCollection: T.collection, as: T.self)
    }

    /// Whether the value `ref` points to is stored.
    public final func exists<T: Persistable>(_ ref: Ref<T>) throws -> Bool {
        try hasObject(forKey: ref.key, inCollection: T.collection)
    }
}
