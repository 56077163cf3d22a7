/// Payloads every extension may put in a changeset besides its own changes.
enum ExtensionPayload {
    /// The extension was (re)built: consumers reload everything it shows.
    static let rebuilt: [UInt8] = [0xA7] + Array("rebuilt".utf8)  // MessagePack "rebuilt"
    /// The extension was unregistered.
    static let removed: [UInt8] = [0xA7] + Array("removed".utf8)
    /// The extension's changes were dropped to bound a slow observer's buffer: consumers reload
    /// everything it shows.
    static let dropped = Changeset.droppedExtensionChanges
}
