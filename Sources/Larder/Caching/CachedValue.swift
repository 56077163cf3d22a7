/// A value of type `Value` in the cache's box (see ``CachedValueBox``).
@usableFromInline
final class CachedValue<Value>: CachedValueBox, @unchecked Sendable {
    @usableFromInline let value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
        super.init(valueType: ObjectIdentifier(Value.self))
    }

    @usableFromInline override var anyValue: Any { value }
}
