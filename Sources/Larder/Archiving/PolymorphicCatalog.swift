/// The names and types of one ``PolymorphicArchiver``, for error messages.
struct PolymorphicCatalog: Sendable {
    /// The base type, as written in Swift (`any Shape`).
    let base: String
    /// Each registered name with its Swift type, in registration order.
    let entries: [(name: String, type: String)]

    /// The Swift type registered as `name`.
    func typeName(for name: String) -> String? {
        entries.first { ExactString.bytesEqual($0.name, name) }?.type
    }

    /// "circle (Circle), square (Square)".
    var listing: String {
        entries.isEmpty ? "no types" : entries.map { "\($0.name) (\($0.type))" }.joined(separator: ", ")
    }

    /// The error for a stored name that is not registered.
    func unregistered(name: String) -> LarderError {
        LarderError(.unregisteredType, "the stored type name \"\(name)\" is not registered with PolymorphicArchiver<\(base)>, which knows \(listing)")
    }
}
