/// The coding-path keys the MessagePack coders create themselves: array
/// positions ("Index 3", like Foundation's coders) and the "super" key.
///
/// Kept to two words so that boxing one into `any CodingKey` stays inline.
struct MessagePackCodingKey: CodingKey {
    private let index: Int
    private let isSuper: Bool

    init(index: Int) {
        self.index = index
        self.isSuper = false
    }

    static let `super` = MessagePackCodingKey(superKey: ())

    private init(superKey: Void) {
        self.index = 0
        self.isSuper = true
    }

    init?(stringValue: String) {
        guard stringValue == "super" else { return nil }
        self.init(superKey: ())
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }

    var stringValue: String { isSuper ? "super" : "Index \(index)" }
    var intValue: Int? { isSuper ? nil : index }
}
