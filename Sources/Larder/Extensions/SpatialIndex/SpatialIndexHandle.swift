/// The name of a registered ``SpatialIndex``: what `txn[handle]` reads through.
public struct SpatialIndexHandle<Object: Codable & Sendable, Metadata: Codable & Sendable>: Sendable, Hashable {
    /// The name the index was registered under.
    public let name: String

    /// Whether the two handles name the same extension: the same UTF-8 bytes, as the store tells
    /// extensions apart.
    public static func == (a: Self, b: Self) -> Bool { ExactString.bytesEqual(a.name, b.name) }

    /// Hashes the name's UTF-8 bytes, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) { ExactString.hashBytes(of: name, into: &hasher) }
}

extension ReadTransaction {
    /// Reads the spatial index `handle` in this transaction.
    /// - Throws: ``LarderError/Code/extensionNotRegistered`` when it is not registered in this process.
    public subscript<Object, Metadata>(handle: SpatialIndexHandle<Object, Metadata>) -> SpatialIndexReader<Object, Metadata> {
        get throws {
            SpatialIndexReader(transaction: self, runtime: try extensionRuntime(named: handle.name, as: SpatialIndexRuntime<Object, Metadata>.self))
        }
    }
}
