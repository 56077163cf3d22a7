/// How a store keeps one extension, as its definition describes it
/// (``ExtensionDefinition/registration(named:in:)``): its kind as the store records it, the
/// collections it reads, the extensions it depends on, the databases it keeps, how to make the
/// object that maintains it in write transactions, and the handle registering it returns.
///
/// Opaque outside Larder: only Larder's kinds make one.
public struct ExtensionRegistration<Handle: Sendable> {
    /// The kind's name in the store's extension records (stores written earlier carry it: it
    /// never changes).
    let kind: String
    /// The collections whose changes it receives, by their bytes; `nil` for all.
    let collections: Set<ExactString>?
    /// Extensions that must be registered first.
    let dependencies: [String]
    /// The names of its databases (`x.<name>.<part>`).
    let parts: [String]
    /// The handle registration returns.
    let handle: Handle
    /// Makes the runtime over its opened databases.
    let make: (ExtensionParts) throws -> any ExtensionRuntime

    init(kind: String, collections: Set<ExactString>?, dependencies: [String] = [], parts: [String], handle: Handle,
         make: @escaping (ExtensionParts) throws -> any ExtensionRuntime) {
        self.kind = kind
        self.collections = collections
        self.dependencies = dependencies
        self.parts = parts
        self.handle = handle
        self.make = make
    }
}
