import LarderBenchKit

/// A hand-written MessagePack decoder for `Item`, with no `Codable` in it: the floor of
/// decoding (row 4 compares a warm-cache read against `mdb_get` plus this, the fastest uncached
/// read there can be). It reads the map that Larder's Codable path writes (field names as keys,
/// in any order), bounds-checks every read, and allocates only the two heap strings.
enum ItemFloorDecoder {
    struct Malformed: Error {}

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(Malformed) -> Item {
        var reader = Reader(bytes: bytes)
        let count = try reader.mapCount()
        var id = "", name = "", category = ""
        var price = 0.0, rating = 0.0
        var stock = 0
        for _ in 0..<count {
            let key = try reader.string()
            switch (key.count, key.first) {
            case (2, UInt8(ascii: "i")): id = try reader.text()
            case (4, UInt8(ascii: "n")): name = try reader.text()
            case (8, UInt8(ascii: "c")): category = try reader.text()
            case (5, UInt8(ascii: "p")): price = try reader.double()
            case (5, UInt8(ascii: "s")): stock = Int(try reader.integer())
            case (6, UInt8(ascii: "r")): rating = try reader.double()
            default: try reader.skipScalar()
            }
        }
        guard reader.offset == bytes.count else { throw Malformed() }
        return Item(id: id, name: name, category: category, price: price, stock: stock, rating: rating)
    }

    struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func byte() throws(Malformed) -> UInt8 {
            guard offset < bytes.count else { throw Malformed() }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func bigEndian<T: FixedWidthInteger>(_ type: T.Type) throws(Malformed) -> T {
            guard bytes.count - offset >= MemoryLayout<T>.size else { throw Malformed() }
            defer { offset += MemoryLayout<T>.size }
            return T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }

        mutating func mapCount() throws(Malformed) -> Int {
            let head = try byte()
            switch head {
            case 0x80...0x8F: return Int(head & 0x0F)
            case 0xDE: return Int(try bigEndian(UInt16.self))
            case 0xDF: return Int(try bigEndian(UInt32.self))
            default: throw Malformed()
            }
        }

        /// The bytes of a string, lent from the buffer.
        mutating func string() throws(Malformed) -> UnsafeRawBufferPointer {
            let head = try byte()
            let length: Int
            switch head {
            case 0xA0...0xBF: length = Int(head & 0x1F)
            case 0xD9: length = Int(try byte())
            case 0xDA: length = Int(try bigEndian(UInt16.self))
            case 0xDB: length = Int(try bigEndian(UInt32.self))
            default: throw Malformed()
            }
            guard bytes.count - offset >= length else { throw Malformed() }
            defer { offset += length }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
        }

        mutating func text() throws(Malformed) -> String {
            String(decoding: try string(), as: UTF8.self)
        }

        mutating func integer() throws(Malformed) -> Int64 {
            let head = try byte()
            switch head {
            case 0x00...0x7F: return Int64(head)
            case 0xE0...0xFF: return Int64(Int8(bitPattern: head))
            case 0xCC: return Int64(try byte())
            case 0xCD: return Int64(try bigEndian(UInt16.self))
            case 0xCE: return Int64(try bigEndian(UInt32.self))
            case 0xCF:
                let value = try bigEndian(UInt64.self)
                guard value <= UInt64(Int64.max) else { throw Malformed() }
                return Int64(value)
            case 0xD0: return Int64(Int8(bitPattern: try byte()))
            case 0xD1: return Int64(try bigEndian(Int16.self))
            case 0xD2: return Int64(try bigEndian(Int32.self))
            case 0xD3: return try bigEndian(Int64.self)
            default: throw Malformed()
            }
        }

        mutating func double() throws(Malformed) -> Double {
            guard offset < bytes.count else { throw Malformed() }
            switch bytes[offset] {
            case 0xCB:
                offset += 1
                return Double(bitPattern: try bigEndian(UInt64.self))
            case 0xCA:
                offset += 1
                return Double(Float(bitPattern: try bigEndian(UInt32.self)))
            default:
                return Double(try integer())
            }
        }

        /// Skips a string or a number (an unknown field of `Item` is never anything else).
        mutating func skipScalar() throws(Malformed) {
            guard offset < bytes.count else { throw Malformed() }
            switch bytes[offset] {
            case 0xA0...0xBF, 0xD9, 0xDA, 0xDB: _ = try string()
            case 0xCA, 0xCB: _ = try double()
            case 0xC0, 0xC2, 0xC3: offset += 1
            default: _ = try integer()
            }
        }
    }
}
