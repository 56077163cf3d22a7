/// A ``PolymorphicMemberArchiver`` of any concrete type, as its ``PolymorphicArchiver`` uses it.
protocol PolymorphicMember: Sendable {
    /// Appends the envelope of `value`, whose dynamic type is the member's.
    func archive<Base>(base value: Base, into bytes: inout [UInt8]) throws
    /// Decodes the value half of an envelope that names the member, as a `Base`.
    func decodeValue<Base>(_ bytes: UnsafeRawBufferPointer, as base: Base.Type) throws -> Base
}
