import Foundation

/// Random values of the sample types, with edge values (empty, boundary integers, long strings,
/// non-ASCII text, every timestamp layout) drawn often.
enum ArchivedRandomValues {
    static func string(using rng: inout some RandomNumberGenerator) -> String {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return ""
        case 1: return String(repeating: "x", count: [31, 32, 255, 256, 70_000][Int.random(in: 0..<5, using: &rng)])
        case 2: return "é€🙂 \(Int.random(in: 0..<1000, using: &rng))"
        default:
            let length = Int.random(in: 1..<40, using: &rng)
            return String((0..<length).map { _ in Character(UnicodeScalar(UInt8.random(in: 0x20...0x7e, using: &rng))) })
        }
    }

    static func integer<T: FixedWidthInteger>(_ type: T.Type, using rng: inout some RandomNumberGenerator) -> T {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return [T.min, T.max, 0, T(truncatingIfNeeded: -1), T(truncatingIfNeeded: 127), T(truncatingIfNeeded: 128),
                        T(truncatingIfNeeded: -32), T(truncatingIfNeeded: -33)][Int.random(in: 0..<8, using: &rng)]
        case 1: return T(truncatingIfNeeded: Int.random(in: -200...200, using: &rng))
        default: return T(truncatingIfNeeded: rng.next())
        }
    }

    static func double(using rng: inout some RandomNumberGenerator) -> Double {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return [0, -0.0, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude][Int.random(in: 0..<6, using: &rng)]
        case 1: return Double(Int.random(in: -1000...1000, using: &rng))
        // Clearing the exponent's lowest bit keeps it below all-ones: never infinite, never NaN.
        default: return Double(bitPattern: rng.next() & ~(1 << 52))
        }
    }

    /// Dates that a timestamp holds exactly (whole microseconds of whole seconds), in all three layouts.
    static func date(using rng: inout some RandomNumberGenerator) -> Date {
        let seconds: Int64
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: seconds = Int64.random(in: 0...Int64(UInt32.max), using: &rng)
        case 1: seconds = Int64.random(in: 0..<(1 << 34), using: &rng)
        default: seconds = Int64.random(in: -5_000_000_000...(-1), using: &rng)
        }
        let withFraction = Bool.random(using: &rng)
        return Date(timeIntervalSince1970: Double(seconds) + (withFraction ? 0.5 : 0))
    }

    static func uuid(using rng: inout some RandomNumberGenerator) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &rng) }
        return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    static func data(using rng: inout some RandomNumberGenerator) -> Data {
        Data((0..<[0, 1, 255, 256, 40][Int.random(in: 0..<5, using: &rng)]).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    static func inner(using rng: inout some RandomNumberGenerator) -> Inner {
        Inner(label: string(using: &rng), weight: double(using: &rng), code: integer(Int8.self, using: &rng))
    }

    static func plain(using rng: inout some RandomNumberGenerator) -> Plain {
        // One key at most: a dictionary's order is not fixed, so two encodings of a bigger one
        // need not have equal bytes whichever path writes them.
        let counts = Bool.random(using: &rng) ? [:] : [string(using: &rng): Int.random(in: -5...5, using: &rng)]
        return Plain(counts: counts, set: Bool.random(using: &rng) ? [] : [Int.random(in: 0...9, using: &rng)])
    }

    static func record(using rng: inout some RandomNumberGenerator) -> Record {
        let innerCount = Int.random(in: 0..<4, using: &rng)
        var record = Record(
            id: uuid(using: &rng), name: string(using: &rng), nickname: nil,
            count: integer(Int.self, using: &rng), big: integer(UInt64.self, using: &rng),
            small: integer(Int16.self, using: &rng), unsigned: integer(UInt32.self, using: &rng),
            ratio: Float(Int.random(in: -1000...1000, using: &rng)) / 8, score: nil,
            tags: (0..<Int.random(in: 0..<20, using: &rng)).map { _ in string(using: &rng) },
            maybe: (0..<Int.random(in: 0..<5, using: &rng)).map { _ in (Bool.random(using: &rng) ? Int.random(in: -99...99, using: &rng) : nil) },
            when: date(using: &rng), blob: data(using: &rng), inner: inner(using: &rng),
            inners: (0..<innerCount).map { _ in inner(using: &rng) }, optionalInner: nil,
            colour: Colour.allCases.randomElement(using: &rng)!, level: nil, plain: plain(using: &rng), plainOptional: nil,
            shape: Bool.random(using: &rng) ? .square : .circle(radius: double(using: &rng)), flag: Bool.random(using: &rng))
        record.nickname = (Bool.random(using: &rng) ? string(using: &rng) : nil)
        record.score = (Bool.random(using: &rng) ? double(using: &rng) : nil)
        record.optionalInner = (Bool.random(using: &rng) ? inner(using: &rng) : nil)
        record.level = (Bool.random(using: &rng) ? Level.allCases.randomElement(using: &rng)! : nil)
        record.plainOptional = (Bool.random(using: &rng) ? plain(using: &rng) : nil)
        return record
    }

    static func renamed(using rng: inout some RandomNumberGenerator) -> Renamed {
        Renamed(first: integer(Int.self, using: &rng), second: (Bool.random(using: &rng) ? string(using: &rng) : nil),
                default: Bool.random(using: &rng), skipped: 7)
    }

    static func node(depth: Int, using rng: inout some RandomNumberGenerator) -> Node {
        let childCount = depth >= 3 ? 0 : Int.random(in: 0..<3, using: &rng)
        return Node(name: string(using: &rng), children: (0..<childCount).map { _ in node(depth: depth + 1, using: &rng) },
                    parentName: (Bool.random(using: &rng) ? string(using: &rng) : nil))
    }
}
