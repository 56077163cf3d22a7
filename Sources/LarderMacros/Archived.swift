#if Extras
// `import LarderMacros` is enough for a type that uses `@Archived`: the generated code names
// Larder's `Saveable` and `Archiver`, so Larder comes along.
@_exported public import Larder

/// Generates a `Saveable` archiver for a `Codable` type, one that reads and writes the same
/// MessagePack map the `Codable` path (`MessagePackArchiver`) writes, byte for byte, without
/// going through `Codable`.
///
/// ```swift
/// import LarderMacros
///
/// @Archived
/// struct Item: Codable {
///     var id: String
///     var name: String
///     var price: Double
///     var note: String?
/// }
/// ```
///
/// The macro adds an extension that conforms the type to `ArchivedMessagePack` (and so to
/// `Saveable`, with `GeneratedArchiver` as its archiver): `setObject` and typed reads then use
/// the generated code. Values written by either path read back through the other and through any
/// MessagePack library:
///
/// - Fields are the stored properties `Codable` would encode, under the same keys (`CodingKeys`
///   renames and omissions honoured) and in the same order (the `CodingKeys` order when the type
///   declares one, the declaration order otherwise).
/// - An optional property that is `nil` is left out of the map, and a missing or `nil` entry reads
///   as `nil`; a missing non-optional entry throws, as `decode(_:forKey:)` does. Unknown entries
///   are skipped.
/// - Scalars (`String`, `Bool`, the integer types, `Double`, `Float`, `Date`, `Data`, `UUID`),
///   arrays and optionals of them, and types that are themselves `@Archived` are written and read
///   by generated code; a property of any other type goes through the `Codable` coder for that
///   property alone.
/// - An enum with a raw type is written as its raw value.
///
/// It applies to structs, final classes and enums with a raw type. It refuses (with an error at
/// the attribute) protocols, actors, classes that are not `final`, enums without a raw type,
/// types that write their own `init(from:)` or `encode(to:)` (the generated code could not know
/// their form), and stored properties without a type annotation.
///
/// The name says what the type becomes: archived by generated code. It is not `@Saveable`
/// because that would hide the protocol of the same name that hand-written archivers conform to.
@attached(extension, conformances: ArchivedMessagePack, names: named(archiver), named(writeMessagePack(to:)), named(init(messagePack:)))
@attached(member, names: named(init(messagePack:)))
public macro Archived() = #externalMacro(module: "LarderMacrosPlugin", type: "ArchivedMacro")

/// Generates a `Saveable` archiver as ``Archived()`` does, writing the map in `layout`.
///
/// ```swift
/// import LarderMacros
///
/// @Archived(layout: .numbered)
/// struct Reading: Codable {
///     var sensor: String
///     var celsius: Double
///     var note: String?
///
///     enum CodingKeys: Int, CodingKey {
///         case sensor = 1
///         case celsius = 2
///         case note = 3
///     }
/// }
/// ```
///
/// With ``ArchivedLayout/numbered``, each entry's key is its field's number, the raw value of its
/// `CodingKeys` case, written out for every case (an implicit number would change when the cases
/// move) and different for each: one byte for numbers 0 to 127 where the name took its length
/// plus one. The numbers are the type's promise: keep a field's number while the field lives,
/// and never give a retired number to another field.
///
/// Either layout reads both: a type whose `CodingKeys` are `Int` matches an entry by its name or
/// by its number, so values written before the switch read as they are (and are rewritten
/// numbered when next written, or all at once with
/// `MigrationStep(from:rearchiving:)`), and the `Codable` path (`MessagePackDecoder`) reads the
/// numbered map too. The `Codable` path writes names.
@attached(extension, conformances: ArchivedMessagePack, names: named(archiver), named(writeMessagePack(to:)), named(init(messagePack:)))
@attached(member, names: named(init(messagePack:)))
public macro Archived(layout: ArchivedLayout) = #externalMacro(module: "LarderMacrosPlugin", type: "ArchivedMacro")
#endif
