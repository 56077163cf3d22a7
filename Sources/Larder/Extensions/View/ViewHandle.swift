/// The name of a registered ``AutoView`` or ``FilteredView``: what `txn[handle]` reads through.
public struct ViewHandle<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable, Hashable {
    /// The name the view was registered under.
    public let name: String
}
