/// CRC-32C (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78), the checksum of iSCSI,
/// ext4 and SCTP, computed eight bytes at a time with eight 256-entry tables ("slicing-by-8").
///
/// `CRC32C.checksum("123456789".utf8) == 0xE306_9283`.
enum CRC32C {
    /// Eight tables of 256 entries, one after the other: table `k` gives the CRC of a byte
    /// followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            for table in 1..<8 {
                let previous = tables[(table - 1) * 256 + byte]
                tables[table * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The CRC-32C of `bytes`.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            var crc: UInt32 = 0xFFFF_FFFF
            var offset = 0
            let count = bytes.count
            while count - offset >= 8 {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) ^ UInt64(crc)
                crc = table[7 * 256 + Int(word & 0xFF)]
                    ^ table[6 * 256 + Int((word >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((word >> 16) & 0xFF)]
                    ^ table[4 * 256 + Int((word >> 24) & 0xFF)]
                    ^ table[3 * 256 + Int((word >> 32) & 0xFF)]
                    ^ table[2 * 256 + Int((word >> 40) & 0xFF)]
                    ^ table[1 * 256 + Int((word >> 48) & 0xFF)]
                    ^ table[Int(word >> 56)]
                offset += 8
            }
            while offset < count {
                crc = (crc >> 8) ^ table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)]
                offset += 1
            }
            return ~crc
        }
    }

    /// The CRC-32C of `bytes`.
    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        let copy = Array(bytes)
        return copy.withUnsafeBytes { checksum($0) }
    }
}
