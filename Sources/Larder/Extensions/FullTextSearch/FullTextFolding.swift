import Foundation

/// Case and diacritic folding of the words that are not plain ASCII, so that "Ÿ", "ÿ" and "y",
/// or "café" written precomposed and decomposed, give one term.
///
/// What folds:
/// - case: each scalar's full lowercase mapping (so "İ" is "i" with a combining dot above, the
///   dotless "ı" stays itself), then "ß" -> "ss" and the final sigma "ς" -> "σ";
/// - width and ligatures: fullwidth ASCII ("ＡＢＣ１２３") to ASCII, the Latin ligatures "ﬁ"…"ﬆ"
///   to their letters;
/// - apostrophes: "’", "‘", "＇" and the modifier letter apostrophe "ʼ" to "'";
/// - ignorable scalars (soft hyphens, joiners, variation selectors) are dropped;
/// - with diacritic folding: canonical decomposition, then the combining diacritical marks go
///   (the blocks U+0300–036F, U+1AB0–1AFF, U+1DC0–1DFF, U+20D0–20FF, U+FE20–FE2F, used by the
///   Latin, Greek and Cyrillic scripts), then letters without a decomposition are spelled with
///   the letters they are read as: ø -> o, æ -> ae, œ -> oe, ł -> l, đ/ð -> d, þ -> th, ı -> i,
///   ŧ -> t, ħ -> h, ĳ -> ij, ǆ -> dz, ǉ -> lj, ǌ -> nj, ſ -> s;
/// - the result is in canonical composed form (NFC), so that canonically equivalent words give
///   the same term.
///
/// Marks outside those blocks stay, because there they are letters' vowels or change the
/// letter: Devanagari vowel signs, Thai tone marks, the kana voicing mark (か and が differ).
///
/// The reference is `slowFold(_:foldsDiacritics:)`, on Foundation's normalization (the standard
/// library has no public one). It costs about a microsecond and a half a word, so words made of
/// ASCII, of letters whose folding is in a table built once from it (the Latin, IPA, Greek,
/// Cyrillic and Armenian blocks), and of letters that folding leaves as they are (Han, kana,
/// Hangul syllables, Thai, Hebrew, Arabic) are folded scalar by scalar, without it; only the
/// others (Devanagari, vowel points, kana with separate voicing marks…) pay for it.
enum FullTextFolding {
    /// Appends the folded form of the word `word` (UTF-8) to `output`.
    static func fold(_ word: UnsafeBufferPointer<UInt8>, foldsDiacritics: Bool, into output: inout FullTextTermBuffer) {
        let start = output.count
        if foldFast(word, foldsDiacritics: foldsDiacritics, into: &output) { return }
        output.count = start
        output.append(slowFold(String(decoding: word, as: UTF8.self), foldsDiacritics: foldsDiacritics))
    }

    /// The folded form of `word`, computed with Foundation's normalization: the definition that
    /// the fast path and its tables follow.
    static func slowFold(_ word: String, foldsDiacritics: Bool) -> String {
        var lowered = String.UnicodeScalarView()
        for scalar in word.unicodeScalars {
            appendLowercased(scalar, to: &lowered)
        }
        guard foldsDiacritics else {
            return String(lowered).precomposedStringWithCanonicalMapping
        }
        var folded = String.UnicodeScalarView()
        var composes = false
        for scalar in String(lowered).decomposedStringWithCanonicalMapping.unicodeScalars {
            if isFoldedDiacritic(scalar.value) { continue }
            if let letters = spelledLetters(scalar.value) {
                folded.append(contentsOf: letters.unicodeScalars)
                continue
            }
            folded.append(scalar)
            // Only marks and Hangul vowel and final jamo combine with what precedes them.
            composes = composes || isMark(scalar) || isCombiningJamo(scalar.value)
        }
        return composes ? String(folded).precomposedStringWithCanonicalMapping : String(folded)
    }

    /// Appends `scalar` case-folded (lowercase, `ß`, final sigma, width, ligatures, apostrophes),
    /// or nothing when it is ignorable.
    private static func appendLowercased(_ scalar: Unicode.Scalar, to output: inout String.UnicodeScalarView) {
        let value = scalar.value
        if let replacement = caseFoldingReplacement(value) {
            output.append(contentsOf: replacement.unicodeScalars)
            return
        }
        if scalar.properties.isDefaultIgnorableCodePoint { return }
        guard scalar.properties.changesWhenLowercased else {
            output.append(scalar)
            return
        }
        for lowered in scalar.properties.lowercaseMapping.unicodeScalars {
            if let replacement = caseFoldingReplacement(lowered.value) {
                output.append(contentsOf: replacement.unicodeScalars)
            } else {
                output.append(lowered)
            }
        }
    }

    /// What case folding puts for the scalar `value` beyond its lowercase mapping, if anything.
    private static func caseFoldingReplacement(_ value: UInt32) -> String? {
        switch value {
        case 0x00DF: return "ss"
        case 0x03C2: return "σ"
        case 0x02BC, 0x2018, 0x2019: return "'"
        case 0xFB00: return "ff"
        case 0xFB01: return "fi"
        case 0xFB02: return "fl"
        case 0xFB03: return "ffi"
        case 0xFB04: return "ffl"
        case 0xFB05, 0xFB06: return "st"
        case 0xFF01...0xFF5E:
            var ascii = value - 0xFEE0
            if ascii >= 0x41 && ascii <= 0x5A { ascii += 0x20 }
            return String(Unicode.Scalar(UInt8(ascii)))
        default: return nil
        }
    }

    /// How diacritic folding spells the letters that have no decomposition (lowercase only: it
    /// runs after case folding).
    private static func spelledLetters(_ value: UInt32) -> String? {
        switch value {
        case 0x00F8: return "o"   // ø
        case 0x00E6: return "ae"  // æ
        case 0x0153: return "oe"  // œ
        case 0x0142: return "l"   // ł
        case 0x0111, 0x00F0: return "d"  // đ, ð
        case 0x00FE: return "th"  // þ
        case 0x0131: return "i"   // ı
        case 0x0167: return "t"   // ŧ
        case 0x0127: return "h"   // ħ
        case 0x0133: return "ij"  // ĳ
        case 0x01C6, 0x01F3: return "dz"  // ǆ, ǳ
        case 0x01C9: return "lj"  // ǉ
        case 0x01CC: return "nj"  // ǌ
        case 0x017F: return "s"   // ſ
        default: return nil
        }
    }

    /// Whether diacritic folding removes the scalar `value`: the combining diacritical mark
    /// blocks.
    static func isFoldedDiacritic(_ value: UInt32) -> Bool {
        switch value {
        case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x20D0...0x20FF, 0xFE20...0xFE2F: return true
        default: return false
        }
    }

    /// Whether `scalar` is a combining mark.
    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// Whether the scalar `value` is a Hangul vowel or final jamo, which compose with the jamo
    /// or syllable before them.
    private static func isCombiningJamo(_ value: UInt32) -> Bool {
        (0x1161...0x1175).contains(value) || (0x11A8...0x11C2).contains(value)
    }

    /// Whether folding leaves the scalar `value` as it is whatever surrounds it, in both modes:
    /// caseless letters that have no decomposition, or one whose parts compose back (Hangul
    /// syllables, Arabic letters with hamza or madda, voiced kana), and that never compose with
    /// what precedes them. The tests check each against `slowFold(_:foldsDiacritics:)`.
    static func isUnchangedByFolding(_ value: UInt32) -> Bool {
        switch value {
        case 0x05D0...0x05EA, 0x05EF...0x05F2,  // Hebrew letters
             0x0620...0x064A, 0x0660...0x0669,  // Arabic letters and digits
             0x0E01...0x0E30, 0x0E32, 0x0E33, 0x0E40...0x0E46, 0x0E50...0x0E59,  // Thai
             0x3005...0x3007,
             0x3041...0x3096, 0x309D...0x309F, 0x30A1...0x30FA, 0x30FC...0x30FF,  // kana
             0x3400...0x4DBF, 0x4E00...0x9FFF,  // Han
             0xAC00...0xD7A3,  // Hangul syllables
             0x20000...0x2A6DF, 0x2A700...0x2EBEF, 0x30000...0x323AF:  // Han extensions
            return true
        default:
            return false
        }
    }

    /// Whether the scalar `value` is a Thai or Lao vowel sign or tone mark: combining marks
    /// that folding keeps and that compose with nothing, so the fast path may copy them as long
    /// as they are in canonical order.
    static func isKeptMarkWithoutComposition(_ value: UInt32) -> Bool {
        switch value {
        case 0x0E31, 0x0E34...0x0E3A, 0x0E47...0x0E4E, 0x0EB1, 0x0EB4...0x0EBC, 0x0EC8...0x0ECE: return true
        default: return false
        }
    }

    /// Folds `word` scalar by scalar into `output`; `false`, with `output` in an unspecified
    /// state, when a scalar needs `slowFold(_:foldsDiacritics:)`.
    ///
    /// Scalar by scalar is the same as the whole word when no scalar's folding leaves a mark
    /// that could compose with or be reordered against its neighbours: the decomposition of a
    /// word is its scalars' decompositions, reordered only among marks, and the removed marks'
    /// order does not matter.
    private static func foldFast(_ word: UnsafeBufferPointer<UInt8>, foldsDiacritics: Bool,
                                 into output: inout FullTextTermBuffer) -> Bool {
        var index = 0
        var lastCombiningClass: UInt8 = 0
        while index < word.count {
            let byte = word[index]
            if byte < 0x80 {
                output.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
                index += 1
                lastCombiningClass = 0
                continue
            }
            let (value, length) = decodeScalar(word, at: index)
            let encoded = UnsafeBufferPointer(rebasing: word[index..<(index + length)])
            index += length
            if Table.covers(value) && (foldsDiacritics ? Table.withDiacritics : Table.caseOnly).appendFolded(value, to: &output) {
                lastCombiningClass = 0
            } else if isUnchangedByFolding(value) {
                output.append(encoded)
                lastCombiningClass = 0
            } else if foldsDiacritics && isFoldedDiacritic(value) {
                continue
            } else if isKeptMarkWithoutComposition(value) {
                let combiningClass = Unicode.Scalar(value)!.properties.canonicalCombiningClass.rawValue
                if combiningClass != 0 && combiningClass < lastCombiningClass { return false }
                output.append(encoded)
                lastCombiningClass = combiningClass
            } else if let replacement = caseFoldingReplacement(value) {
                output.append(replacement)
                lastCombiningClass = 0
            } else if Unicode.Scalar(value)!.properties.isDefaultIgnorableCodePoint {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// The scalar that starts at `index` of the valid UTF-8 `bytes`, and its length in bytes.
    @inline(__always)
    static func decodeScalar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (value: UInt32, length: Int) {
        let lead = UInt32(bytes[index])
        if lead < 0x80 { return (lead, 1) }
        if lead < 0xE0 {
            return (((lead & 0x1F) << 6) | (UInt32(bytes[index + 1]) & 0x3F), 2)
        }
        if lead < 0xF0 {
            return (((lead & 0x0F) << 12) | ((UInt32(bytes[index + 1]) & 0x3F) << 6) | (UInt32(bytes[index + 2]) & 0x3F), 3)
        }
        return (((lead & 0x07) << 18) | ((UInt32(bytes[index + 1]) & 0x3F) << 12)
                    | ((UInt32(bytes[index + 2]) & 0x3F) << 6) | (UInt32(bytes[index + 3]) & 0x3F), 4)
    }
}

extension FullTextFolding {
    /// The folded forms of the letters and digits of the Latin, IPA, Greek, Cyrillic and
    /// Armenian blocks (U+00A0–058F) and of Latin Extended Additional and Greek Extended
    /// (U+1E00–1FFF), computed once with `slowFold(_:foldsDiacritics:)`: for most European text
    /// the fast path then never calls Foundation.
    ///
    /// A scalar has an entry only when its folding ends in no mark or jamo, so that it folds the
    /// same alone and inside a word.
    struct Table: Sendable {
        /// The scalars covered (as `covers(_:)` and `appendFolded(_:to:)` say): the first
        /// range's entries come first in `entries`.
        private static let ranges: [Range<UInt32>] = [0x00A0..<0x0590, 0x1E00..<0x2000]

        /// For each covered scalar, where its folded form is in `bytes` (offset << 4 | length),
        /// or 0 when it has none.
        private let entries: [UInt32]
        /// The folded forms' UTF-8 bytes, one after the other.
        private let bytes: [UInt8]

        /// The table of the default tokenizer, which folds diacritics.
        static let withDiacritics = Table(foldsDiacritics: true)
        /// The table of a tokenizer that keeps diacritics.
        static let caseOnly = Table(foldsDiacritics: false)

        /// Computes the table (a few milliseconds, once per process and mode).
        private init(foldsDiacritics: Bool) {
            var entries: [UInt32] = []
            var bytes: [UInt8] = []
            for range in Self.ranges {
                for value in range {
                    entries.append(0)
                    guard let scalar = Unicode.Scalar(value), Self.hasEntry(scalar) else { continue }
                    let folded = FullTextFolding.slowFold(String(Character(scalar)), foldsDiacritics: foldsDiacritics)
                    let length = folded.utf8.count
                    let combines = folded.unicodeScalars.contains {
                        FullTextFolding.isMark($0) || FullTextFolding.isCombiningJamo($0.value)
                    }
                    guard length > 0, length < 16, !combines else { continue }
                    entries[entries.count - 1] = UInt32(bytes.count) << 4 | UInt32(length)
                    bytes.append(contentsOf: folded.utf8)
                }
            }
            self.entries = entries
            self.bytes = bytes
        }

        /// Whether the scalar gets an entry: letters and digits, which are what words are made
        /// of, but not marks or ignorable scalars, whose folding depends on their neighbours.
        private static func hasEntry(_ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            if properties.isDefaultIgnorableCodePoint || FullTextFolding.isMark(scalar) { return false }
            return properties.isAlphabetic || properties.generalCategory == .decimalNumber
        }

        /// Whether the scalar `value` is in the blocks the tables cover.
        @inline(__always)
        static func covers(_ value: UInt32) -> Bool {
            (0x00A0..<0x0590).contains(value) || (0x1E00..<0x2000).contains(value)
        }

        /// Appends the folded form of the scalar `value` to `output` if the table has it, and
        /// says whether it did.
        func appendFolded(_ value: UInt32, to output: inout FullTextTermBuffer) -> Bool {
            let slot: Int
            if value < 0x0590 {
                guard value >= 0x00A0 else { return false }
                slot = Int(value - 0x00A0)
            } else if value >= 0x1E00 && value < 0x2000 {
                slot = 0x0590 - 0x00A0 + Int(value - 0x1E00)
            } else {
                return false
            }
            let entry = entries[slot]
            guard entry != 0 else { return false }
            let offset = Int(entry >> 4)
            let length = Int(entry & 0xF)
            bytes.withUnsafeBufferPointer { all in
                output.append(UnsafeBufferPointer(rebasing: all[offset..<(offset + length)]))
            }
            return true
        }
    }
}
