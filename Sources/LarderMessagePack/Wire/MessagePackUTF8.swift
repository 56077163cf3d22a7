/// Strict UTF-8 validation (the well-formed byte sequences of the Unicode
/// standard, table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
package enum MessagePackUTF8 {
    /// A `String` of `bytes`, or nil when they are not valid UTF-8.
    ///
    /// `String(validating:as:)` is generic and looks up type metadata on every call; checking
    /// here and then decoding (which repairs nothing once the bytes are known to be valid) is
    /// several times faster for short strings.
    package static func string(_ bytes: UnsafeRawBufferPointer) -> String? {
        if bytes.isEmpty { return "" }
        guard isValid(bytes) else { return nil }
        // Bytes are only ever read as UInt8, so viewing the raw memory that way is sound.
        return String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    /// Whether `bytes` are well-formed UTF-8 (table 3-7 of the Unicode standard).
    package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            // Skip runs of ASCII eight bytes at a time.
            if count - index >= 8 {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                    continue
                }
            }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lowerBound: UInt8 = 0x80
            var upperBound: UInt8 = 0xbf
            switch lead {
            case 0xc2...0xdf:
                length = 2
            case 0xe0:
                length = 3
                lowerBound = 0xa0 // below is an overlong form
            case 0xed:
                length = 3
                upperBound = 0x9f // above are UTF-16 surrogates
            case 0xe1...0xec, 0xee...0xef:
                length = 3
            case 0xf0:
                length = 4
                lowerBound = 0x90 // below is an overlong form
            case 0xf1...0xf3:
                length = 4
            case 0xf4:
                length = 4
                upperBound = 0x8f // above is beyond U+10FFFF
            default:
                return false // a continuation byte, an overlong 2-byte lead, or 0xf5...0xff
            }
            guard count - index >= length else { return false }
            let second = bytes[index + 1]
            guard second >= lowerBound && second <= upperBound else { return false }
            var next = index + 2
            while next < index + length {
                guard bytes[next] & 0xc0 == 0x80 else { return false }
                next += 1
            }
            index += length
        }
        return true
    }
}
