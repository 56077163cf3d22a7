import Foundation
import Larder

// Rows 3g, 5g, 6g and 8g: workloads 3, 5, 6 and 8 with `GeneratedItem`, whose archiver is
// generated. Reads and scans use the store the `Codable` rows wrote: the bytes are the same.

extension RecordReadWorkload {
    /// Row 3g: the random reads of `larderUncached()`, decoded by the generated archiver.
    public func larderUncachedGenerated() throws -> Int {
        try uncached.read { txn in
            var sum = 0
            for key in keys {
                if let item = try txn.object(forKey: key, inCollection: Item.collection, as: GeneratedItem.self) { sum &+= item.stock }
            }
            return sum
        }
    }

    /// Row 8g: every item of the collection, decoded by the generated archiver, in an array.
    public func larderScanGenerated() throws -> Int {
        try uncached.read { txn in try txn.objects(inCollection: Item.collection, as: GeneratedItem.self).count }
    }
}

/// Row 5g: workload 5's items, inserted through the generated archiver.
public final class GeneratedInsertWorkload {
    let items: [GeneratedItem]

    public init(count: Int) {
        items = Keys.shuffled(count, seed: 5).enumerated().map { GeneratedItem(Item(key: $1, seed: $0)) }
    }

    public func larder() throws -> Duration {
        let scratch = try Scratch("generated-insert")
        let db = try Larder.Database(path: scratch.path, configuration: benchConfiguration())
        return try timed {
            try db.write { txn in
                for item in items { try txn.setObject(item, forKey: item.id, inCollection: Item.collection) }
            }
        }
    }
}

/// Row 6g: workload 6's round trip (encode into a new array, then decode) through the generated
/// archiver.
public final class GeneratedArchiverWorkload {
    let items: [GeneratedItem]

    public init(count: Int) {
        items = (0..<count).map { GeneratedItem(Item(key: Keys.key($0), seed: $0)) }
    }

    public func generated() throws -> Int {
        let archiver = GeneratedItem.archiver
        var sum = 0
        for item in items {
            // A new array per value, as `MessagePackEncoder.encode(_:)` makes in `messagePack()`.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(128)
            try archiver.archive(item, into: &bytes)
            sum &+= try bytes.withUnsafeBytes { try archiver.unarchive($0, format: .messagePack) }.stock
        }
        return sum
    }
}
