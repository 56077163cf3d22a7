extension MessagePackValue {
    /// The MessagePack timestamp (extension type -1) of `seconds` since 1970 (UTC) and
    /// `nanoseconds`, which ``encoded()`` writes in the smallest of its three layouts, as
    /// ``MessagePackEncoder`` writes a `Date`.
    ///
    /// `nanoseconds` must be below 1,000,000,000.
    public static func timestamp(seconds: Int64, nanoseconds: UInt32) -> MessagePackValue {
        precondition(nanoseconds < 1_000_000_000, "MessagePackValue.timestamp misuse: \(nanoseconds) nanoseconds is a second or more")
        func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        // The three layouts of the timestamp extension: 32-bit seconds; 30-bit nanoseconds with
        // 34-bit seconds; 32-bit nanoseconds with signed 64-bit seconds.
        if seconds >= 0 && seconds >> 34 == 0 {
            if nanoseconds == 0 && seconds <= Int64(UInt32.max) { return .ext(type: -1, data: bigEndian(UInt32(seconds))) }
            return .ext(type: -1, data: bigEndian(UInt64(nanoseconds) << 34 | UInt64(seconds)))
        }
        return .ext(type: -1, data: bigEndian(nanoseconds) + bigEndian(UInt64(bitPattern: seconds)))
    }

    /// The seconds since 1970 (UTC) and nanoseconds of a well-formed timestamp (extension type -1
    /// with a 4-, 8- or 12-byte payload and fewer than 1,000,000,000 nanoseconds); `nil` for
    /// anything else.
    public var timestamp: (seconds: Int64, nanoseconds: UInt32)? {
        guard case .ext(-1, let data) = self else { return nil }
        func number(_ range: Range<Int>) -> UInt64 { data[range].reduce(0) { $0 << 8 | UInt64($1) } }
        let seconds: Int64
        let nanoseconds: UInt64
        switch data.count {
        case 4:
            seconds = Int64(number(0..<4))
            nanoseconds = 0
        case 8:
            let packed = number(0..<8)
            nanoseconds = packed >> 34
            seconds = Int64(packed & 0x3_ffff_ffff)
        case 12:
            nanoseconds = number(0..<4)
            seconds = Int64(bitPattern: number(4..<12))
        default:
            return nil
        }
        guard nanoseconds < 1_000_000_000 else { return nil }
        return (seconds, UInt32(nanoseconds))
    }
}
