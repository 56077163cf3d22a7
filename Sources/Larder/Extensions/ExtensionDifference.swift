/// A difference between an extension's stored state and its state recomputed from the objects,
/// found by ``Database/verifyExtensions()``.
public struct ExtensionDifference: Sendable, Equatable, CustomStringConvertible {
    /// The extension.
    public let extensionName: String
    /// The part of its state that differs.
    public let part: String
    /// What differs.
    public let detail: String

    /// `extension.part: detail`, one line.
    public var description: String { "\(extensionName).\(part): \(detail)" }
}
