/// What every ``Ref`` is, whatever its target type.
protocol ReferenceToStoredValue {
    var index: YapDB.Index { get }
}

extension Ref: ReferenceToStoredValue {}
extension PolymorphicRef: ReferenceToStoredValue {}
