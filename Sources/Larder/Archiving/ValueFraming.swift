/// How an object or metadata value is laid out in the store (see Documentation/StorageLayout.md):
///
/// - plain: `format byte ‖ payload`;
/// - checksummed (``Database/Configuration/checksumsValues``): `0x3F ‖ CRC-32C (4 bytes,
///   little-endian) ‖ format byte ‖ payload`, the checksum taken over `format byte ‖ payload`.
///
/// Reads accept both, whatever the configuration says, and verify a checksum when there is one.
enum ValueFraming {
    /// The first byte of a checksummed value: a format tag Larder reserves for this framing.
    static let checksummedTag: UInt8 = 0x3F
    /// The bytes in front of the format byte in a checksummed value.
    static let checksumHeaderSize = 5

    /// The format and payload of `stored`, a value as the store holds it; verifies the checksum
    /// of a checksummed value.
    /// - Throws: ``LarderError/Code/corruptValue`` for an empty value or a checksummed one too
    ///   short to hold its framing; ``LarderError/Code/corrupted`` when the checksum does not
    ///   match the bytes (they were damaged after they were written).
    @inline(__always)
    static func unframe(_ stored: UnsafeRawBufferPointer) throws(LarderError) -> (payload: UnsafeRawBufferPointer, format: ArchiveFormat) {
        guard let tag = stored.first else {
            throw LarderError(.corruptValue, "the stored value is empty (it has no format byte)")
        }
        guard tag == checksummedTag else { return (UnsafeRawBufferPointer(rebasing: stored[1...]), ArchiveFormat(rawValue: tag)) }
        return try unframeChecksummed(stored)
    }

    private static func unframeChecksummed(_ stored: UnsafeRawBufferPointer) throws(LarderError) -> (payload: UnsafeRawBufferPointer, format: ArchiveFormat) {
        guard stored.count > checksumHeaderSize else {
            throw LarderError(.corruptValue, "the stored value is \(stored.count) bytes long, too short for its checksum framing (at least 6)")
        }
        let framed = UnsafeRawBufferPointer(rebasing: stored[checksumHeaderSize...])
        let recorded = UInt32(littleEndian: stored.loadUnaligned(fromByteOffset: 1, as: UInt32.self))
        let computed = CRC32C.checksum(framed)
        guard recorded == computed else {
            throw LarderError(.corrupted, "the stored value does not match its checksum (recorded 0x\(hex(recorded)), computed 0x\(hex(computed))): its bytes were damaged after they were written")
        }
        let tag = framed[0]
        guard tag != checksummedTag else {
            throw LarderError(.corruptValue, "the stored value has two checksum framings")
        }
        return (UnsafeRawBufferPointer(rebasing: framed[1...]), ArchiveFormat(rawValue: tag))
    }

    /// The format and payload of `stored` without verifying a checksum; `nil` when the framing is
    /// too short to hold them.
    static func splitUnverified(_ stored: UnsafeRawBufferPointer) -> (payload: UnsafeRawBufferPointer, format: ArchiveFormat)? {
        guard let tag = stored.first else { return nil }
        guard tag == checksummedTag else { return (UnsafeRawBufferPointer(rebasing: stored[1...]), ArchiveFormat(rawValue: tag)) }
        guard stored.count > checksumHeaderSize else { return nil }
        return (UnsafeRawBufferPointer(rebasing: stored[(checksumHeaderSize + 1)...]), ArchiveFormat(rawValue: stored[checksumHeaderSize]))
    }

    /// Starts a value in `buffer` (emptied first): the checksum framing's header when `checksummed`,
    /// then the format byte. The payload is appended after it, then ``seal(_:checksummed:)`` is called.
    @inline(__always)
    static func begin(_ buffer: inout [UInt8], format: ArchiveFormat, checksummed: Bool) {
        buffer.removeAll(keepingCapacity: true)
        if checksummed { buffer.append(contentsOf: [checksummedTag, 0, 0, 0, 0]) }
        buffer.append(format.rawValue)
    }

    /// Completes a value begun with ``begin(_:format:checksummed:)``: writes the checksum of the
    /// format byte and payload into the header.
    @inline(__always)
    static func seal(_ buffer: inout [UInt8], checksummed: Bool) {
        guard checksummed else { return }
        buffer.withUnsafeMutableBytes { bytes in
            let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[checksumHeaderSize...]))
            bytes.storeBytes(of: crc.littleEndian, toByteOffset: 1, as: UInt32.self)
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
