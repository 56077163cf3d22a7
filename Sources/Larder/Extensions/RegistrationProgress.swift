/// How far the (re)building of an extension has come, reported during registration.
public struct RegistrationProgress: Sendable, Equatable {
    /// The extension being built.
    public let extensionName: String
    /// Items processed so far.
    public let processed: Int
    /// Items to process in all.
    public let total: Int
}
