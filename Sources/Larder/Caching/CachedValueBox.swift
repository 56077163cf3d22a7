/// A value a connection's cache keeps (or a write hands its participants), boxed as the type it
/// was decoded or written as: always a ``CachedValue``.
///
/// A read of that type takes the value back after comparing one type identifier, where a value
/// kept as `Any` needed Swift's dynamic cast: about 300 instructions of a cached read's 3,000
/// (callgrind, larder-bench row 4). Nor does the read look up the metadata of the generic box.
/// A read of another type (a protocol the value's type conforms to, a superclass) casts
/// ``anyValue``.
@usableFromInline
class CachedValueBox: @unchecked Sendable {  // holds decoded values of any type, shared as the cache shares them (see ConnectionCache)
    /// The type the value was boxed as.
    @usableFromInline let valueType: ObjectIdentifier

    @usableFromInline
    init(valueType: ObjectIdentifier) {
        self.valueType = valueType
    }

    /// The value, as `Any` (``CachedValue`` provides it).
    @usableFromInline var anyValue: Any {
        preconditionFailure("CachedValueBox is abstract: every box is a CachedValue")
    }

    /// The value as a `T`, `nil` when it is not one.
    @inlinable
    final func value<T>(as type: T.Type) -> T? {
        if valueType == ObjectIdentifier(T.self) { return unsafeDowncast(self, to: CachedValue<T>.self).value }
        return anyValue as? T
    }
}
