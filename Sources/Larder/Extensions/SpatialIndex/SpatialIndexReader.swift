/// Queries of a spatial index inside one transaction (see ``SpatialIndex``). In a write
/// transaction they see its writes.
///
/// Each query walks the R-tree from its root into the nodes whose boxes can hold an answer:
/// O(log n + k) for n objects and k answers when the boxes are spread out, more when many
/// overlap the query.
public struct SpatialIndexReader<Object: Codable & Sendable, Metadata: Codable & Sendable> {
    let transaction: ReadTransaction
    let runtime: SpatialIndexRuntime<Object, Metadata>

    private func checked(_ rectangle: SpatialBox) throws -> SpatialBox {
        guard rectangle.isValid else {
            throw LarderError(.invalidQuery, "the rectangle \(rectangle) is not finite, or its minimum passes its maximum", operation: "spatialIndex", extensionName: runtime.name)
        }
        return rectangle
    }

    /// The objects whose boxes share a point with `rectangle` (edges included), in no set order.
    /// - Throws: ``LarderError/Code/invalidQuery`` for a rectangle that is not
    ///   ``SpatialBox/isValid``; ``LarderError/Code/corrupted`` for a damaged tree.
    public func indexes(intersecting rectangle: SpatialBox) throws -> [YapDB.Index] {
        transaction.checkActive()
        let rectangle = try checked(rectangle)
        var found: [YapDB.Index] = []
        try runtime.tree(transaction.lmdb).search(descend: { $0.intersects(rectangle) }, accept: { $0.intersects(rectangle) }) { _, key in
            found.append(try SpatialIndexRuntime<Object, Metadata>.index(ofObjectKey: key))
        }
        return found
    }

    /// The objects whose boxes lie inside `rectangle` (edges included), in no set order.
    /// - Throws: as ``indexes(intersecting:)``.
    public func indexes(within rectangle: SpatialBox) throws -> [YapDB.Index] {
        transaction.checkActive()
        let rectangle = try checked(rectangle)
        var found: [YapDB.Index] = []
        try runtime.tree(transaction.lmdb).search(descend: { $0.intersects(rectangle) }, accept: { rectangle.contains($0) }) { _, key in
            found.append(try SpatialIndexRuntime<Object, Metadata>.index(ofObjectKey: key))
        }
        return found
    }

    /// The `count` objects whose boxes are nearest to (`x`, `y`), nearest first, with their
    /// distances (0 for a box that holds the point). Objects at the same distance come in no set
    /// order.
    /// - Throws: ``LarderError/Code/invalidQuery`` for a point that is not finite or a negative
    ///   count; ``LarderError/Code/corrupted`` for a damaged tree.
    public func nearest(toX x: Double, y: Double, count: Int) throws -> [(index: YapDB.Index, distance: Double)] {
        transaction.checkActive()
        guard x.isFinite, y.isFinite, count >= 0 else {
            throw LarderError(.invalidQuery, "nearest(toX: \(x), y: \(y), count: \(count)) needs a finite point and a count of at least 0", operation: "spatialIndex", extensionName: runtime.name)
        }
        return try runtime.tree(transaction.lmdb).nearest(toX: x, y: y, count: count).map { entry in
            (try SpatialIndexRuntime<Object, Metadata>.index(ofObjectKey: entry.key), entry.distanceSquared.squareRoot())
        }
    }

    /// The box the index keeps for the object at `index`, `nil` when it keeps none.
    /// - Throws: ``LarderError/Code/corrupted`` for a damaged stored box; LMDB failures.
    public func box(of index: YapDB.Index) throws -> SpatialBox? {
        transaction.checkActive()
        return try runtime.storedBox(SpatialIndexRuntime<Object, Metadata>.objectKey(index), in: transaction.lmdb)
    }

    /// How many objects the index holds.
    /// - Throws: LMDB failures.
    public func count() throws -> Int {
        transaction.checkActive()
        return try transaction.lmdb.count(runtime.parts["boxes"])
    }
}
