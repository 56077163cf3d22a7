import Larder

/// Row 14-disk-numbered's item: the benchmark's `Item` with a generated archiver in the numbered
/// layout (`@Archived(layout: .numbered)`): the same fields, each stored under a one-byte number
/// instead of its name.
///
/// The conformance below is the macro's expansion written out, as in `GeneratedItem` (no
/// swift-syntax in the benchmarks' release build);
/// `ArchivedExpansionTests.theBenchmarksNumberedItemIsTheMacrosExpansion` checks it.
public struct NumberedItem: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var category: String
    public var price: Double
    public var stock: Int
    public var rating: Double

    enum CodingKeys: Int, CodingKey {
        case id = 1
        case name = 2
        case category = 3
        case price = 4
        case stock = 5
        case rating = 6
    }

    /// The numbered twin of `item`.
    public init(_ item: Item) {
        id = item.id
        name = item.name
        category = item.category
        price = item.price
        stock = item.stock
        rating = item.rating
    }
}

// @Archived expansion
extension NumberedItem: Larder.ArchivedMessagePack {
    public func writeMessagePack(to writer: inout Larder.MessagePackFieldWriter) throws {
        try writer.beginMap(count: 6)
        try writer.write(self.id, field: 1)
        try writer.write(self.name, field: 2)
        try writer.write(self.category, field: 3)
        try writer.write(self.price, field: 4)
        try writer.write(self.stock, field: 5)
        try writer.write(self.rating, field: 6)
    }

    public init(messagePack reader: inout Larder.MessagePackFieldReader) throws {
        var _id: Optional<String> = nil
        var _name: Optional<String> = nil
        var _category: Optional<String> = nil
        var _price: Optional<Double> = nil
        var _stock: Optional<Int> = nil
        var _rating: Optional<Double> = nil
        let count = try reader.beginMap(of: Self.self)
        for _ in 0 ..< count {
            try reader.readKey()
            if reader.keyIs(field: 1) || reader.keyIs("id") {
                _id = try reader.read((String).self, forKey: "id")
            } else if reader.keyIs(field: 2) || reader.keyIs("name") {
                _name = try reader.read((String).self, forKey: "name")
            } else if reader.keyIs(field: 3) || reader.keyIs("category") {
                _category = try reader.read((String).self, forKey: "category")
            } else if reader.keyIs(field: 4) || reader.keyIs("price") {
                _price = try reader.read((Double).self, forKey: "price")
            } else if reader.keyIs(field: 5) || reader.keyIs("stock") {
                _stock = try reader.read((Int).self, forKey: "stock")
            } else if reader.keyIs(field: 6) || reader.keyIs("rating") {
                _rating = try reader.read((Double).self, forKey: "rating")
            } else {
                try reader.skipValue()
            }
        }
        guard let _id else {
            throw reader.keyNotFound("id", in: Self.self)
        }
        self.id = _id
        guard let _name else {
            throw reader.keyNotFound("name", in: Self.self)
        }
        self.name = _name
        guard let _category else {
            throw reader.keyNotFound("category", in: Self.self)
        }
        self.category = _category
        guard let _price else {
            throw reader.keyNotFound("price", in: Self.self)
        }
        self.price = _price
        guard let _stock else {
            throw reader.keyNotFound("stock", in: Self.self)
        }
        self.stock = _stock
        guard let _rating else {
            throw reader.keyNotFound("rating", in: Self.self)
        }
        self.rating = _rating
    }
}
