/// How an object or metadata value is laid out in the store (see Documentation/StorageLayout.md):
///
/// - plain: `[version] ‖ format byte ‖ payload`;
/// - checksummed (``Database/Configuration/checksumsValues``): `0x3F ‖ CRC-32C (4 bytes,
///   little-endian) ‖ [version] ‖ format byte ‖ payload`, the checksum taken over everything
///   after it;
/// - `[version]`, present only for a value of a collection that declares versions (see
///   ``ValueMigrations``) at version 1 or more: `0x3E ‖ the version as an unsigned LEB128`.
///   A value without it is at version 0, which is how every value written before versions
///   existed reads.
///
/// Reads accept all of them, whatever the configuration says, and verify a checksum when there
/// is one.
enum ValueFraming {
    /// The first byte of a checksummed value: a format tag Larder reserves for this framing.
    static let checksummedTag: UInt8 = 0x3F
    /// The bytes in front of the format byte in a checksummed value.
    static let checksumHeaderSize = 5
    /// The first byte of a value's version (after the checksum framing, if any): a format tag
    /// Larder reserves for it.
    static let versionTag: UInt8 = 0x3E

    /// A value with its framing removed.
    struct Unframed {
        /// The archived bytes.
        var payload: UnsafeRawBufferPointer
        /// The archiver's format byte.
        var format: ArchiveFormat
        /// The version of the value's type it was written with (0: none recorded).
        var version: UInt32
    }

    /// The format and payload of `stored`, a value as the store holds it; verifies the checksum
    /// of a checksummed value.
    /// - Throws: ``LarderError/Code/corruptValue`` for an empty value or a checksummed one too
    ///   short to hold its framing; ``LarderError/Code/corrupted`` when the checksum does not
    ///   match the bytes (they were damaged after they were written).
    ///   A version framing that does not end before the value does, or holds 0 or more than
    ///   32 bits, is ``LarderError/Code/corruptValue`` too.
    @inline(__always)
    static func unframe(_ stored: UnsafeRawBufferPointer) throws(LarderError) -> Unframed {
        guard let tag = stored.first else {
            throw LarderError(.corruptValue, "the stored value is empty (it has no format byte)", recoverySuggestion: LarderError.Advice.damaged)
        }
        if tag < versionTag || tag > checksummedTag {
            return Unframed(payload: UnsafeRawBufferPointer(rebasing: stored[1...]), format: ArchiveFormat(rawValue: tag), version: 0)
        }
        let framed = tag == checksummedTag ? try unframeChecksummed(stored) : stored
        return try unframeVersion(framed)
    }

    /// `framed` (what follows the checksum framing, or the whole value) split into its version,
    /// format and payload.
    private static func unframeVersion(_ framed: UnsafeRawBufferPointer) throws(LarderError) -> Unframed {
        guard framed[0] == versionTag else {
            return Unframed(payload: UnsafeRawBufferPointer(rebasing: framed[1...]), format: ArchiveFormat(rawValue: framed[0]), version: 0)
        }
        var version: UInt64 = 0
        var offset = 1
        var shift: UInt64 = 0
        while true {
            guard offset < framed.count, shift < 35 else {
                throw LarderError(.corruptValue, "the stored value's version framing is damaged (it does not end, or holds more than 32 bits)", recoverySuggestion: LarderError.Advice.damaged)
            }
            let byte = framed[offset]
            offset += 1
            version |= UInt64(byte & 0x7F) << shift
            shift += 7
            if byte & 0x80 == 0 { break }
        }
        guard version > 0, version <= UInt64(UInt32.max), offset < framed.count else {
            throw LarderError(.corruptValue, "the stored value's version framing is damaged (version \(version), \(framed.count - offset) bytes after it)", recoverySuggestion: LarderError.Advice.damaged)
        }
        let format = framed[offset]
        guard format != versionTag, format != checksummedTag else {
            throw LarderError(.corruptValue, "the stored value has its framing twice", recoverySuggestion: LarderError.Advice.damaged)
        }
        return Unframed(payload: UnsafeRawBufferPointer(rebasing: framed[(offset + 1)...]), format: ArchiveFormat(rawValue: format), version: UInt32(version))
    }

    /// The bytes after a checksummed value's checksum, verified.
    private static func unframeChecksummed(_ stored: UnsafeRawBufferPointer) throws(LarderError) -> UnsafeRawBufferPointer {
        guard stored.count > checksumHeaderSize else {
            throw LarderError(.corruptValue, "the stored value is \(stored.count) bytes long, too short for its checksum framing (at least 6)", recoverySuggestion: LarderError.Advice.damaged)
        }
        let framed = UnsafeRawBufferPointer(rebasing: stored[checksumHeaderSize...])
        let recorded = UInt32(littleEndian: stored.loadUnaligned(fromByteOffset: 1, as: UInt32.self))
        let computed = CRC32C.checksum(framed)
        guard recorded == computed else {
            throw LarderError(.corrupted, "the stored value does not match its checksum (recorded 0x\(hex(recorded)), computed 0x\(hex(computed))): its bytes were damaged after they were written", recoverySuggestion: LarderError.Advice.damaged)
        }
        guard framed[0] != checksummedTag else {
            throw LarderError(.corruptValue, "the stored value has two checksum framings", recoverySuggestion: LarderError.Advice.damaged)
        }
        return framed
    }

    /// The format, payload and version of `stored` without verifying a checksum; `nil` when the
    /// framing is damaged.
    static func splitUnverified(_ stored: UnsafeRawBufferPointer) -> Unframed? {
        guard let tag = stored.first else { return nil }
        guard tag == checksummedTag else { return try? unframe(stored) }
        guard stored.count > checksumHeaderSize else { return nil }
        return try? unframeVersion(UnsafeRawBufferPointer(rebasing: stored[checksumHeaderSize...]))
    }

    /// Whether `stored`, a whole stored value, records a version.
    static func hasVersion(_ stored: [UInt8]?) -> Bool {
        guard let stored, let tag = stored.first else { return false }
        if tag == versionTag { return true }
        return tag == checksummedTag && stored.count > checksumHeaderSize && stored[checksumHeaderSize] == versionTag
    }

    /// Starts a value in `buffer` (emptied first): the checksum framing's header when `checksummed`,
    /// the version framing when `version` is not 0, then the format byte. The payload is appended
    /// after it, then ``seal(_:checksummed:)`` is called.
    @inline(__always)
    static func begin(_ buffer: inout [UInt8], format: ArchiveFormat, checksummed: Bool, version: UInt32 = 0) {
        buffer.removeAll(keepingCapacity: true)
        if checksummed { buffer.append(contentsOf: [checksummedTag, 0, 0, 0, 0]) }
        if version != 0 { appendVersion(version, to: &buffer) }
        buffer.append(format.rawValue)
    }

    /// Appends the version framing of `version` (not 0) to `buffer`.
    static func appendVersion(_ version: UInt32, to buffer: inout [UInt8]) {
        buffer.append(versionTag)
        var rest = version
        while rest >= 0x80 {
            buffer.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        buffer.append(UInt8(rest))
    }

    /// `payload` in `format` framed as a stored value at `version`.
    static func framed(_ payload: UnsafeRawBufferPointer, format: ArchiveFormat, version: UInt32, checksummed: Bool) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(payload.count + 12)
        begin(&buffer, format: format, checksummed: checksummed, version: version)
        buffer.append(contentsOf: payload)
        seal(&buffer, checksummed: checksummed)
        return buffer
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
