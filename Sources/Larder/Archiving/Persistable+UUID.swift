#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Persistable where ID == UUID {
    /// The identifier's `uuidString` (upper-case, with hyphens).
    public static func key(for id: ID) -> String { id.uuidString }
}
