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
    /// The target, when the ref carries it (see ``init(carrying:)`` and
    /// ``ReadTransaction/load(_:key:depth:)``).
    let carried: (any CarriedValue)?

    /// A reference to the value stored under `key`.
    public init(key: String) {
        self.key = key
        self.carried = nil
    }

    /// A reference to the value with identifier `id`.
    public init(id: T.ID) {
        self.init(key: T.key(for: id))
    }

    /// A reference to `value` (its key only; see ``init(carrying:)`` to carry the value too).
    public init(_ value: T) {
        self.init(key: value.key)
    }

    /// Where the target lives.
    public var index: YapDB.Index { T.index(forKey: key) }

    /// `Ref<Type>(collection/key)`.
    public var description: String { "Ref<\(T.self)>(\(index))" }

    /// Two refs are equal when they point at the same key, byte for byte (two keys that Swift's
    /// `String ==` calls equal are two values in the store), whether or not they carry the target.
    public static func == (a: Ref, b: Ref) -> Bool { ExactString.bytesEqual(a.key, b.key) }

    /// Hashes the key's bytes alone, as ``==(_:_:)`` compares it.
    public func hash(into hasher: inout Hasher) { ExactString.hashBytes(of: key, into: &hasher) }

    /// Decodes the key (a single string). Inside ``ReadTransaction/load(_:key:depth:)`` it also
    /// loads the target, to the depth asked.
    /// - Throws: `DecodingError` when the value is not a string; inside a load, what reading the
    ///   target throws (a target that is gone is not an error).
    public init(from decoder: any Decoder) throws {
        key = try decoder.singleValueContainer().decode(String.self)
        carried = try GraphContext.current?.loadTarget(of: T.self, key: key)
    }

    /// Encodes the key (a single string). Inside ``ReadWriteTransaction/saveAll(_:)`` it also
    /// hands the carried target, if any, to be saved.
    /// - Throws: what `encoder` throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(key)
        if let carried, let context = GraphContext.current { context.save(carried) }
    }
}

extension Ref where T: Codable & Sendable {
    /// A reference to `value` that carries it, so that ``ReadWriteTransaction/saveAll(_:)`` of a
    /// value holding this ref writes `value` too. Stored, it is the key alone, like any ref.
    public init(carrying value: T) {
        self.key = value.key
        self.carried = Carried(value)
    }

    /// The target this ref carries: the value it was made with (``init(carrying:)``) or the one
    /// loaded with it (``ReadTransaction/load(_:key:depth:)``); `nil` when it carries none.
    public var target: T? {
        carried?.anyValue as? T
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
    /// - Throws: ``LarderError`` when `ref`'s key is not a valid key (empty, or too long).
    public final func exists<T: Persistable>(_ ref: Ref<T>) throws -> Bool {
        try hasObject(forKey: ref.key, inCollection: T.collection)
    }
}
