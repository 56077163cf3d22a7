/// An axis-aligned rectangle in the plane, as a ``SpatialIndex`` keeps it: from (`minX`, `minY`)
/// to (`maxX`, `maxY`), edges included. A point is a box of zero size (``init(x:y:)``).
public struct SpatialBox: Sendable, Hashable, Codable {
    /// The left edge.
    public var minX: Double
    /// The bottom edge.
    public var minY: Double
    /// The right edge.
    public var maxX: Double
    /// The top edge.
    public var maxY: Double

    /// The box with these edges. A box whose edges are not finite or whose minimum passes its
    /// maximum is not ``isValid``: an index refuses it.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The point (`x`, `y`), a box of zero size.
    public init(x: Double, y: Double) {
        self.init(minX: x, minY: y, maxX: x, maxY: y)
    }

    /// Whether every edge is finite and each minimum is at most its maximum.
    public var isValid: Bool {
        minX.isFinite && minY.isFinite && maxX.isFinite && maxY.isFinite && minX <= maxX && minY <= maxY
    }

    /// Whether the two boxes share a point (edges included).
    public func intersects(_ other: SpatialBox) -> Bool {
        minX <= other.maxX && other.minX <= maxX && minY <= other.maxY && other.minY <= maxY
    }

    /// Whether `other` lies inside this box (edges included).
    public func contains(_ other: SpatialBox) -> Bool {
        minX <= other.minX && other.maxX <= maxX && minY <= other.minY && other.maxY <= maxY
    }

    /// The square of the distance from (`x`, `y`) to the nearest point of the box (0 inside).
    public func distanceSquared(toX x: Double, y: Double) -> Double {
        let dx = x < minX ? minX - x : (x > maxX ? x - maxX : 0)
        let dy = y < minY ? minY - y : (y > maxY ? y - maxY : 0)
        return dx * dx + dy * dy
    }

    /// The smallest box holding both.
    func union(_ other: SpatialBox) -> SpatialBox {
        SpatialBox(minX: Swift.min(minX, other.minX), minY: Swift.min(minY, other.minY),
                   maxX: Swift.max(maxX, other.maxX), maxY: Swift.max(maxY, other.maxY))
    }

    var area: Double { (maxX - minX) * (maxY - minY) }

    /// How much the area grows to hold `other` too.
    func enlargement(toHold other: SpatialBox) -> Double { union(other).area - area }
}
