import Larder

/// The benchmark's `Item` with a generated archiver (`@Archived`): the same fields, so the same
/// MessagePack bytes. It reads the items the `Codable` path stored, which is what rows 3g and 8g do.
///
/// The conformance below is `@Archived`'s expansion of this declaration, written out so that the
/// release build of the benchmarks does not build swift-syntax (a compiler plugin is built in the
/// configuration of the build, and swift-syntax in release takes longer than the rest of CI).
/// `ArchivedExpansionTests.theBenchmarksItemIsTheMacrosExpansion` expands the declaration with the
/// macro and fails when the two differ.
public struct GeneratedItem: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var category: String
    public var price: Double
    public var stock: Int
    public var rating: Double

    /// The generated twin of `item`.
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
extension GeneratedItem: Larder.ArchivedMessagePack {
    public func writeMessagePack(to writer: inout Larder.MessagePackFieldWriter) throws {
        try writer.beginMap(count: 6)
        try writer.write(self.id, forKey: "id")
        try writer.write(self.name, forKey: "name")
        try writer.write(self.category, forKey: "category")
        try writer.write(self.price, forKey: "price")
        try writer.write(self.stock, forKey: "stock")
        try writer.write(self.rating, forKey: "rating")
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
            if reader.keyIs("id") {
                _id = try reader.read((String).self, forKey: "id")
            } else if reader.keyIs("name") {
                _name = try reader.read((String).self, forKey: "name")
            } else if reader.keyIs("category") {
                _category = try reader.read((String).self, forKey: "category")
            } else if reader.keyIs("price") {
                _price = try reader.read((Double).self, forKey: "price")
            } else if reader.keyIs("stock") {
                _stock = try reader.read((Int).self, forKey: "stock")
            } else if reader.keyIs("rating") {
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
