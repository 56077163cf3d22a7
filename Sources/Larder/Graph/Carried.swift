/// The ``CarriedValue`` of a ref made with ``Ref/init(carrying:)``: its target, with its type.
final class Carried<T: Persistable & Codable & Sendable>: CarriedValue {
    let value: T

    init(_ value: T) {
        self.value = value
    }

    var anyValue: Any { value }

    func save(in context: GraphContext) throws {
        try context.saveValue(value)
    }
}
