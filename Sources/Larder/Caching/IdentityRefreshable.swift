/// A class whose instances a connection's identity map updates in place when a commit changes
/// what they were loaded from, so that everything holding an instance sees the new state.
///
/// Without this conformance, an instance whose index a commit changes is dropped from the map and
/// the next load returns a new instance; with it, the next load decodes the new state, hands it to
/// ``refresh(from:)`` of the instance already loaded, and returns that instance.
///
/// ```swift
/// final class Note: Codable, IdentityRefreshable {
///     var text: String
///     init(text: String) { self.text = text }
///     func refresh(from newer: Note) { text = newer.text }
/// }
/// ```
///
/// ## Caveats
/// - The refresh happens at the next load of the index through the connection (not when the
///   commit happens): until then the instance keeps the state it had.
/// - `refresh(from:)` runs while the connection's cache is locked. Copy state and return: do not
///   use the connection (that stops the program with a message) or block.
/// - Only instances of exactly the type decoded are refreshed; an instance of another type (a
///   subclass, say) is replaced by the new one.
public protocol IdentityRefreshable: AnyObject {
    /// Copies the state of `newer`, just decoded from the store, into this instance.
    ///
    /// `newer` is discarded afterwards: take what you need from it, share what you like.
    func refresh(from newer: Self)
}
