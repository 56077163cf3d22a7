/// What one Unicode scalar is to the full-text tokenizer's word segmentation: a practical
/// version of the word-break classes of Unicode UAX #29.
///
/// The differences from UAX #29 are deliberate. Han, kana, Thai, Lao, Khmer, Myanmar and the
/// other scripts written without spaces (`single`) make one token per scalar, as simple search
/// engines do, because splitting them into words needs a dictionary. A connector (`_`) joins
/// only between word characters, so `__init__` is the term "init" and `snake_case` one term.
/// `;` is no number separator. Superscripts, fractions and circled numbers are not digits.
enum FullTextScalarClass: UInt8, Sendable {
    /// Separates words: spaces, punctuation, symbols, emoji, unassigned scalars.
    case other
    /// A letter of a script written with spaces between words (Latin, Greek, Cyrillic, Hangul…).
    case letter
    /// A Hebrew letter: a letter that `"` may join (the gershayim of `צה"ל`).
    case hebrewLetter
    /// A decimal digit of any script.
    case digit
    /// A letter that is a token on its own (Han, Hiragana, Katakana, Thai…).
    case single
    /// Belongs to whatever precedes it: combining marks, joiners, format and other ignorable
    /// characters (a soft hyphen does not split a word).
    case extend
    /// Joins two letters only (`:` in Swedish "k:a", the Catalan middle dot).
    case midLetter
    /// Joins two letters or two digits: apostrophes ("don't", "1'000") and `.` ("e.g", "3.14").
    case midNumLet
    /// Joins two digits only: `,` ("1,000").
    case midNum
    /// Connector punctuation (`_`): joins the word characters on either side of a run of them.
    case connector
    /// `"`: joins two Hebrew letters only.
    case doubleQuote

    /// Whether the scalar starts or continues a word of letters and digits.
    var isWordCharacter: Bool {
        self == .letter || self == .hebrewLetter || self == .digit
    }

    /// Whether the scalar is a letter for the rules that join two letters.
    var isLetter: Bool {
        self == .letter || self == .hebrewLetter
    }

    /// The class of the ASCII byte `byte` (below 0x80). Words are mostly ASCII, so this is the
    /// tokenizer's common case: a few comparisons and no Unicode property lookup.
    @inline(__always)
    static func ofASCII(_ byte: UInt8) -> FullTextScalarClass {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return .letter
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return .digit
        case UInt8(ascii: "'"), UInt8(ascii: "."): return .midNumLet
        case UInt8(ascii: ":"): return .midLetter
        case UInt8(ascii: ","): return .midNum
        case UInt8(ascii: "_"): return .connector
        case UInt8(ascii: "\""): return .doubleQuote
        default: return .other
        }
    }

    /// The class of the scalar `value` (any scalar; ASCII goes to `ofASCII(_:)`).
    static func of(_ value: UInt32) -> FullTextScalarClass {
        if value < 0x80 { return ofASCII(UInt8(truncatingIfNeeded: value)) }
        switch value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x3041...0x3096, 0x30A1...0x30FA:
            // The common Han and kana letters, every one assigned: no property lookup.
            return .single
        case 0xAC00...0xD7A3, 0x00C0...0x00D6, 0x00D8...0x00F6, 0x00F8...0x024F, 0x0410...0x044F:
            // Hangul syllables, and the common Latin and Cyrillic letters.
            return .letter
        case 0x00B7, 0x0387, 0x055F, 0x05F4, 0x2027, 0xFE13, 0xFE55, 0xFF1A:
            return .midLetter
        case 0x2018, 0x2019, 0x2024, 0xFE52, 0xFF07, 0xFF0E:
            return .midNumLet
        case 0x0589, 0x060C, 0x060D, 0x066B, 0x066C, 0x07F8, 0x2044, 0xFE10, 0xFE50, 0xFF0C:
            return .midNum
        case 0x05F3:
            // Hebrew geresh: a letter in UAX #29, inside abbreviations.
            return .hebrewLetter
        case 0x200B:
            // Zero width space is a format character that separates words.
            return .other
        case 0x115F, 0x1160, 0x3164, 0xFFA0:
            // Hangul fillers are letters that are ignorable: they never start a word.
            return .extend
        default:
            break
        }
        guard let scalar = Unicode.Scalar(value) else { return .other }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .format:
            return .extend
        case .decimalNumber:
            return .digit
        case .connectorPunctuation:
            return .connector
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .letterNumber:
            return letterClass(value)
        case .unassigned, .surrogate, .privateUse, .control:
            return .other
        default:
            // Symbols that are alphabetic (circled letters) still make words.
            return properties.isAlphabetic ? letterClass(value) : .other
        }
    }

    /// The class of the letter `value`: `single` for the scripts written without spaces,
    /// `hebrewLetter` for Hebrew, `letter` otherwise.
    private static func letterClass(_ value: UInt32) -> FullTextScalarClass {
        switch value {
        case 0x05D0...0x05F2, 0xFB1D...0xFB4F:
            return .hebrewLetter
        case 0x0E00...0x0EFF,            // Thai, Lao
             0x1000...0x109F,            // Myanmar
             0x1780...0x17FF,            // Khmer
             0x1980...0x19DF,            // New Tai Lue
             0x1A20...0x1AAF,            // Tai Tham
             0x3005...0x3007,            // ideographic iteration mark, closing mark, zero
             0x3021...0x3029, 0x3038...0x303C,
             0x3041...0x30FF,            // Hiragana, Katakana
             0x3100...0x312F, 0x31A0...0x31BF, // Bopomofo
             0x31F0...0x31FF,            // Katakana phonetic extensions
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, // Han
             0xA9E0...0xA9FF, 0xAA60...0xAADF, // Myanmar extensions, Tai Viet
             0xFF66...0xFF9F,            // halfwidth Katakana
             0x16FE0...0x18D8F,          // Tangut, Khitan and their marks
             0x1AFF0...0x1B2FF,          // kana supplements, Nüshu
             0x20000...0x3FFFF:          // Han extensions
            return .single
        default:
            return .letter
        }
    }
}
