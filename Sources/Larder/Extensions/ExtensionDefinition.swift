/// The definition of an extension: what ``Database/register(_:named:progress:)`` takes. Every
/// kind of extension Larder offers is one: ``AutoView``, ``FilteredView``, ``SecondaryIndex``,
/// ``SpatialIndex``, ``Relationships``, ``FullTextSearch``.
///
/// A definition says how the extension derives its state from the objects (its closures) and
/// which version of that logic it is (``versionTag``); its ``registration(named:in:)`` tells the
/// store the rest: the kind, the collections it reads, the extensions it depends on, and how to
/// keep it. Only Larder's kinds can make an ``ExtensionRegistration``, so only they conform.
public protocol ExtensionDefinition: Sendable {
    /// What registering the definition returns, to read the extension with.
    associatedtype Handle: Sendable

    /// Change it whenever the definition's logic changes: a new tag rebuilds the extension.
    var versionTag: String { get }

    /// How a store keeps this definition registered under `name`. ``Database/register(_:named:progress:)``
    /// calls it; there is no need to call it yourself.
    /// - Throws: ``LarderError`` when the definition cannot be registered on `database` (an
    ///   invalid configuration, a dependency that is not registered).
    func registration(named name: String, in database: Database) throws -> ExtensionRegistration<Handle>
}
