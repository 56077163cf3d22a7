/// Martin Porter's suffix-stripping algorithm for English (1980, "An algorithm for suffix
/// stripping", steps 1a to 5b), so that "connect", "connected", "connecting" and "connections"
/// share one term in the full-text index.
///
/// Written from the published description, the original algorithm rather than its later
/// revisions: step 2 has `abli -> able` (not `bli -> ble`) and no `logi -> log`. Where the paper
/// is silent, it follows Porter's own reference implementation: words of one or two letters are
/// left alone (so "as" and "is" stay as they are instead of losing their "s").
///
/// It works in place on lowercase ASCII letters, without allocating: the tokenizer stems every
/// English term it makes, on the insert path.
enum PorterStemmer {
    /// The stem of `word`, or `word` itself when it is not made of lowercase ASCII letters only.
    static func stem(_ word: String) -> String {
        var letters = Array(word.utf8)
        guard letters.allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else { return word }
        let count = letters.withUnsafeMutableBufferPointer { buffer in
            stem(buffer.baseAddress!, count: buffer.count)
        }
        return String(decoding: letters[..<count], as: UTF8.self)
    }

    /// Stems the `count` lowercase ASCII letters at `letters` in place and returns the stem's
    /// length. The stem is never longer than the word, so the caller's buffer always suffices.
    static func stem(_ letters: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        guard count > 2 else { return count }
        var word = Word(letters: letters, count: count)
        word.step1a()
        word.step1b()
        word.step1c()
        word.step2()
        word.step3()
        word.step4()
        word.step5a()
        word.step5b()
        return word.count
    }
}

extension PorterStemmer {
    /// The word being stemmed, with the paper's vocabulary: consonants and vowels, the measure
    /// `m` of a stem (the number of vowel-consonant sequences in `[C](VC)^m[V]`), and the stem
    /// that the last matched suffix leaves (`stemEnd`).
    private struct Word {
        /// The letters; only the first `count` are the word.
        let letters: UnsafeMutablePointer<UInt8>
        /// The word's current length.
        var count: Int
        /// Where the suffix that `ends(_:)` last matched begins: the stem is `letters[0..<stemEnd]`.
        var stemEnd = 0

        /// Whether the letter at `index` is a consonant: anything but a, e, i, o, u, and "y" only
        /// when it does not follow a consonant ("y" in "toy" is a consonant, in "syzygy" a vowel).
        @inline(__always)
        func isConsonant(_ index: Int) -> Bool {
            switch letters[index] {
            case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"):
                return false
            case UInt8(ascii: "y"):
                return index == 0 || !isConsonant(index - 1)
            default:
                return true
            }
        }

        /// The measure `m` of `letters[0..<end]`: how many times a run of vowels is followed by a
        /// run of consonants.
        @inline(__always)
        func measure(_ end: Int) -> Int {
            var index = 0
            while index < end && isConsonant(index) { index += 1 }
            var measure = 0
            while index < end {
                while index < end && !isConsonant(index) { index += 1 }
                guard index < end else { break }
                measure += 1
                while index < end && isConsonant(index) { index += 1 }
            }
            return measure
        }

        /// The paper's `*v*`: whether `letters[0..<end]` holds a vowel.
        @inline(__always)
        func hasVowel(_ end: Int) -> Bool {
            for index in 0..<end where !isConsonant(index) { return true }
            return false
        }

        /// The paper's `*d` for the letter at `index`: it ends a double consonant ("tt", "ss").
        @inline(__always)
        func endsDoubleConsonant(_ index: Int) -> Bool {
            index >= 1 && letters[index] == letters[index - 1] && isConsonant(index)
        }

        /// The paper's `*o` for the letter at `index`: consonant-vowel-consonant ending there, the
        /// last consonant not w, x or y ("hop", not "snow" or "box"); it tells where a removed "e"
        /// must come back ("hoping" -> "hope").
        @inline(__always)
        func endsCVC(_ index: Int) -> Bool {
            guard index >= 2, isConsonant(index), !isConsonant(index - 1), isConsonant(index - 2) else { return false }
            let last = letters[index]
            return last != UInt8(ascii: "w") && last != UInt8(ascii: "x") && last != UInt8(ascii: "y")
        }

        /// The last letter.
        var last: UInt8 { letters[count - 1] }

        /// Whether the word ends with `suffix`; when it does, `stemEnd` is where the suffix begins.
        @inline(__always)
        mutating func ends(_ suffix: StaticString) -> Bool {
            let length = suffix.utf8CodeUnitCount
            guard length <= count else { return false }
            let start = count - length
            let bytes = suffix.utf8Start
            // Backwards: words differ from a suffix mostly in its last letters.
            for offset in (0..<length).reversed() where letters[start + offset] != bytes[offset] {
                return false
            }
            stemEnd = start
            return true
        }

        /// Replaces the suffix matched by `ends(_:)` with `replacement`.
        @inline(__always)
        mutating func replaceSuffix(with replacement: StaticString) {
            let bytes = replacement.utf8Start
            for offset in 0..<replacement.utf8CodeUnitCount {
                letters[stemEnd + offset] = bytes[offset]
            }
            count = stemEnd + replacement.utf8CodeUnitCount
        }

        /// The rule `(m > 0) suffix -> replacement` of steps 2 and 3, for the suffix just matched.
        mutating func replaceSuffixIfMeasured(with replacement: StaticString) {
            if measure(stemEnd) > 0 { replaceSuffix(with: replacement) }
        }

        /// Step 1a, plurals: sses -> ss, ies -> i, ss -> ss, s -> (nothing).
        mutating func step1a() {
            guard last == UInt8(ascii: "s") else { return }
            if ends("sses") {
                count -= 2
            } else if ends("ies") {
                replaceSuffix(with: "i")
            } else if !ends("ss") {
                count -= 1
            }
        }

        /// Step 1b, past participles and gerunds: (m > 0) eed -> ee; (*v*) ed and (*v*) ing go,
        /// and then the stem is tidied up so that later steps see a word ("conflat" ->
        /// "conflate", "hopp" -> "hop", "fil" -> "file").
        mutating func step1b() {
            guard last == UInt8(ascii: "d") || last == UInt8(ascii: "g") else { return }
            if ends("eed") {
                if measure(stemEnd) > 0 { count -= 1 }
                return
            }
            guard (ends("ed") || ends("ing")) && hasVowel(stemEnd) else { return }
            count = stemEnd
            if ends("at") {
                replaceSuffix(with: "ate")
            } else if ends("bl") {
                replaceSuffix(with: "ble")
            } else if ends("iz") {
                replaceSuffix(with: "ize")
            } else if endsDoubleConsonant(count - 1)
                        && last != UInt8(ascii: "l") && last != UInt8(ascii: "s") && last != UInt8(ascii: "z") {
                count -= 1
            } else if measure(count) == 1 && endsCVC(count - 1) {
                letters[count] = UInt8(ascii: "e")
                count += 1
            }
        }

        /// Step 1c: (*v*) y -> i ("happy" -> "happi", but "sky" stays).
        mutating func step1c() {
            if last == UInt8(ascii: "y") && ends("y") && hasVowel(stemEnd) {
                letters[count - 1] = UInt8(ascii: "i")
            }
        }

        /// Step 2, double suffixes to single ones, (m > 0): "relational" -> "relate". Only the
        /// longest matching suffix is considered, so each branch tests longer suffixes first and
        /// stops at the first match whether or not its condition holds.
        mutating func step2() {
            guard count > 2 else { return }
            switch letters[count - 2] {
            case UInt8(ascii: "a"):
                if ends("ational") { replaceSuffixIfMeasured(with: "ate") }
                else if ends("tional") { replaceSuffixIfMeasured(with: "tion") }
            case UInt8(ascii: "c"):
                if ends("enci") { replaceSuffixIfMeasured(with: "ence") }
                else if ends("anci") { replaceSuffixIfMeasured(with: "ance") }
            case UInt8(ascii: "e"):
                if ends("izer") { replaceSuffixIfMeasured(with: "ize") }
            case UInt8(ascii: "l"):
                if ends("entli") { replaceSuffixIfMeasured(with: "ent") }
                else if ends("ousli") { replaceSuffixIfMeasured(with: "ous") }
                else if ends("abli") { replaceSuffixIfMeasured(with: "able") }
                else if ends("alli") { replaceSuffixIfMeasured(with: "al") }
                else if ends("eli") { replaceSuffixIfMeasured(with: "e") }
            case UInt8(ascii: "o"):
                if ends("ization") { replaceSuffixIfMeasured(with: "ize") }
                else if ends("ation") { replaceSuffixIfMeasured(with: "ate") }
                else if ends("ator") { replaceSuffixIfMeasured(with: "ate") }
            case UInt8(ascii: "s"):
                if ends("iveness") { replaceSuffixIfMeasured(with: "ive") }
                else if ends("fulness") { replaceSuffixIfMeasured(with: "ful") }
                else if ends("ousness") { replaceSuffixIfMeasured(with: "ous") }
                else if ends("alism") { replaceSuffixIfMeasured(with: "al") }
            case UInt8(ascii: "t"):
                if ends("biliti") { replaceSuffixIfMeasured(with: "ble") }
                else if ends("aliti") { replaceSuffixIfMeasured(with: "al") }
                else if ends("iviti") { replaceSuffixIfMeasured(with: "ive") }
            default:
                break
            }
        }

        /// Step 3, (m > 0): icate -> ic, ative -> (nothing), alize -> al, iciti -> ic, ical -> ic,
        /// ful -> (nothing), ness -> (nothing).
        mutating func step3() {
            switch last {
            case UInt8(ascii: "e"):
                if ends("icate") { replaceSuffixIfMeasured(with: "ic") }
                else if ends("ative") { replaceSuffixIfMeasured(with: "") }
                else if ends("alize") { replaceSuffixIfMeasured(with: "al") }
            case UInt8(ascii: "i"):
                if ends("iciti") { replaceSuffixIfMeasured(with: "ic") }
            case UInt8(ascii: "l"):
                if ends("ical") { replaceSuffixIfMeasured(with: "ic") }
                else if ends("ful") { replaceSuffixIfMeasured(with: "") }
            case UInt8(ascii: "s"):
                if ends("ness") { replaceSuffixIfMeasured(with: "") }
            default:
                break
            }
        }

        /// Step 4, (m > 1): the remaining suffixes go ("adjustable" -> "adjust"); "ion" only after
        /// "s" or "t" ("adoption" -> "adopt", but "onion" stays).
        mutating func step4() {
            guard count > 2 else { return }
            let matched: Bool
            switch letters[count - 2] {
            case UInt8(ascii: "a"): matched = ends("al")
            case UInt8(ascii: "c"): matched = ends("ance") || ends("ence")
            case UInt8(ascii: "e"): matched = ends("er")
            case UInt8(ascii: "i"): matched = ends("ic")
            case UInt8(ascii: "l"): matched = ends("able") || ends("ible")
            case UInt8(ascii: "n"): matched = ends("ant") || ends("ement") || ends("ment") || ends("ent")
            case UInt8(ascii: "o"):
                if ends("ion") {
                    let before = stemEnd > 0 ? letters[stemEnd - 1] : 0
                    matched = before == UInt8(ascii: "s") || before == UInt8(ascii: "t")
                } else {
                    matched = ends("ou")
                }
            case UInt8(ascii: "s"): matched = ends("ism")
            case UInt8(ascii: "t"): matched = ends("ate") || ends("iti")
            case UInt8(ascii: "u"): matched = ends("ous")
            case UInt8(ascii: "v"): matched = ends("ive")
            case UInt8(ascii: "z"): matched = ends("ize")
            default: matched = false
            }
            if matched && measure(stemEnd) > 1 { count = stemEnd }
        }

        /// Step 5a: a final "e" goes when (m > 1), or when (m = 1) and the stem does not end
        /// consonant-vowel-consonant ("probate" -> "probat", but "cease" -> "ceas", "hope" stays).
        mutating func step5a() {
            guard last == UInt8(ascii: "e"), ends("e") else { return }
            let measure = measure(stemEnd)
            if measure > 1 || (measure == 1 && !endsCVC(stemEnd - 1)) {
                count -= 1
            }
        }

        /// Step 5b: (m > 1 and *d and *L) -> single letter ("controll" -> "control", "roll" stays).
        mutating func step5b() {
            if last == UInt8(ascii: "l") && endsDoubleConsonant(count - 1) && measure(count) > 1 {
                count -= 1
            }
        }
    }
}
