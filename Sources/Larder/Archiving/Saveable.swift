/// A type that names the archiver Larder uses for it.
///
/// `Codable` types need not conform: Larder archives them with ``MessagePackArchiver`` unless a
/// collection has another archiver registered (``Database/register(_:forCollection:)``). When a
/// type is both `Codable` and `Saveable`, its `Saveable` archiver wins.
///
/// ```swift
/// extension Temperature: Saveable {
///     static var archiver: CelsiusArchiver { CelsiusArchiver() }
/// }
/// ```
public protocol Saveable {
    /// The archiver's type.
    associatedtype ValueArchiver: Archiver where ValueArchiver.Value == Self
    /// The archiver Larder uses to store values of this type.
    static var archiver: ValueArchiver { get }
}
