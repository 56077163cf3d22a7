import Larder
import LarderBenchKit

/// Row 4's reference, the uncached floor: the items of the record workload stored as Larder's
/// Codable path writes them (MessagePack, without Larder's framing byte) in raw LMDB, read with C
/// `mdb_get` and decoded by ``ItemFloorDecoder``, no `Codable`. It lives in the harness, built
/// from LarderBenchKit's public API only, so `Scripts/compare-bench` can still build revisions
/// from before it.
final class HandDecodedFloor {
    let floor: LMDBFloor
    let keyBytes: [[UInt8]]

    /// `items` items (the record workload's), read at `keys`.
    init(items count: Int, keys: [String]) throws {
        floor = try LMDBFloor(label: "records-messagepack")
        let encoder = MessagePackEncoder()
        let packed = try (0..<count).map { Array(try encoder.encode(Item(key: Keys.key($0), seed: $0))) }
        try floor.put(keys: Keys.bytes((0..<count).map(Keys.key))) { packed[$0] }
        keyBytes = Keys.bytes(keys)
        // The floor must read what Larder wrote; a decoder that got it wrong would be no floor.
        let first: Item? = try floor.read { get in
            try keyBytes[0].withUnsafeBytes { key throws -> Item? in
                guard let bytes = get(key) else { return nil }
                return try ItemFloorDecoder.decode(bytes)
            }
        }
        precondition(first == Item(key: keys[0], seed: Int(keys[0].dropFirst()) ?? -1), "the hand-written decoder misread an item")
    }

    /// The reads: a checksum of the stock of each item read.
    func read() throws -> Int {
        try floor.read { get in
            var sum = 0
            for key in keyBytes {
                guard let bytes = key.withUnsafeBytes({ get($0) }) else { continue }
                sum &+= try ItemFloorDecoder.decode(bytes).stock
            }
            return sum
        }
    }
}
