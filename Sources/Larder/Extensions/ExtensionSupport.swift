/// A metadata type for extensions that do not read metadata: their closures take no metadata
/// argument, and changes of metadata alone pass them by.
public struct NoMetadata: Codable, Sendable, Hashable {}

extension ReadTransaction {
    /// The object at `index` as a `T` for an extension: the value just written when it is one,
    /// else the stored value decoded; `nil` when there is none or it is not a `T` (a collection
    /// may hold several types; an extension sees those of its own).
    func extensionObject<T: Codable>(_ type: T.Type, at index: YapDB.Index, written: CachedValueBox?) throws -> T? {
        if let value = written?.value(as: T.self) { return value }
        do {
            return try object(forKey: index.key, inCollection: index.collection, archiver: metadataArchiver(T.self, in: index.collection))
        } catch let error as LarderError where error.code == .decodingFailed || error.code == .unknownFormat {
            return nil
        }
    }

    /// The metadata at `index` as an `M` for an extension, like ``extensionObject(_:at:written:)``.
    func extensionMetadata<M: Codable>(_ type: M.Type, at index: YapDB.Index, written: CachedValueBox??) throws -> M? {
        if M.self == NoMetadata.self { return nil }
        if let written {
            guard let value = written else { return nil }
            if let metadata = value.value(as: M.self) { return metadata }
        }
        do {
            return try metadata(forKey: index.key, inCollection: index.collection, archiver: metadataArchiver(M.self, in: index.collection))
        } catch let error as LarderError where error.code == .decodingFailed || error.code == .unknownFormat {
            return nil
        }
    }

    /// The value whose stored bytes (framing included) are `stored`, the object (or `metadata`) at
    /// `index`, as a `T` for an extension, at its collection's current version: `nil` when it is
    /// not a `T`, as ``extensionObject(_:at:written:)`` says.
    /// - Throws: a damaged value (``LarderError/Code/corruptValue``: a checksum that does not
    ///   match, a framing that is not one).
    func extensionValue<T: Codable>(_ type: T.Type, stored: [UInt8], metadata: Bool, at index: YapDB.Index) throws -> T? {
        do {
            return try stored.withUnsafeBytes { stored in
                try withCurrentVersion(of: try ValueFraming.unframe(stored), collection: index.collection, metadata: metadata) { payload, format in
                    try unarchive(payload, format: format, with: metadataArchiver(T.self, in: index.collection), operation: "extension",
                                  collection: index.collection, key: index.key)
                }
            }
        } catch let error as LarderError where error.code == .decodingFailed || error.code == .unknownFormat {
            return nil
        } catch let error as LarderError {
            throw error.adding(operation: "extension", index: index)
        }
    }

    /// The number of objects in `collections` (`nil`: all), for progress reports.
    func objectCount(in collections: Set<ExactString>?) throws -> Int {
        guard let collections else { return try numberOfKeysInAllCollections() }
        return try collections.reduce(0) { $0 + (try numberOfKeys(inCollection: $1.string)) }
    }

    /// Calls `body` with the index of every object in `collections` (`nil`: all), in storage order.
    /// `body` may write to extension databases, not to objects.
    func forEachObjectIndex(in collections: Set<ExactString>?, _ body: (YapDB.Index) throws -> Void) throws {
        if let collections {
            for collection in collections.sorted().lazy.map(\.string) {
                try enumerateKeys(inCollection: collection) { key, _ in try body(YapDB.Index(collection: collection, key: key)) }
            }
        } else {
            try enumerateKeysInAllCollections { index, _ in try body(index) }
        }
    }
}
