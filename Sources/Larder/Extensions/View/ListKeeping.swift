/// An extension runtime that keeps a sorted list (``ListRuntime``): a view or a filtered view.
///
/// The runtimes hold their list rather than inherit it, so each is a final class of immutable,
/// `Sendable` parts that the compiler checks; readers find the list through this protocol.
protocol ListKeeping<Object, Metadata>: ExtensionRuntime {
    associatedtype Object: Codable & Sendable
    associatedtype Metadata: Codable & Sendable

    var list: ListRuntime<Object, Metadata> { get }
}

extension ListKeeping {
    var name: String { list.name }
    var parts: ExtensionParts { list.parts }
    var derivesFromPreviousValues: Bool { true }

    func apply(_ change: WriteChange, in txn: ReadWriteTransaction) throws {
        try list.apply(change, in: txn)
    }

    func finish(in txn: ReadWriteTransaction) throws -> [UInt8]? {
        try list.finish(in: txn)
    }

    func logicalContents(in txn: ReadTransaction) throws -> [String: [[UInt8]]] {
        try list.logicalContents(in: txn)
    }
}
