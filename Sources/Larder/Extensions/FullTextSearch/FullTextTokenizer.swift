/// How text becomes terms, for the full-text index and for the queries run against it.
///
/// **Words** follow Unicode's word boundaries (UAX #29), in a practical version (see
/// `FullTextScalarClass`): a word is a run of letters and digits of any script, with the combining
/// marks and ignorable characters that follow them; apostrophes, `.` and `:` between two letters
/// stay inside it ("don't", "O'Brien", "e.g"), so do `.`, `,` and apostrophes between two digits
/// ("3.14", "1,000"), and `_` between word characters ("snake_case"). Everything else separates
/// words: spaces, other punctuation, symbols, emoji. Han, Hiragana, Katakana, Thai and the other
/// scripts written without spaces make one token per character ("東京" is "東" then "京"), so a
/// phrase query finds a run of them anywhere.
///
/// **Terms** are the words folded (see `FullTextFolding`): lowercase ("ß" -> "ss", "ς" -> "σ"),
/// apostrophes as `'` ("don’t" -> "don't"), fullwidth letters as ASCII, and, unless
/// `foldsDiacritics` is off, without accents ("Crème Brûlée" -> "creme", "brulee"; ø -> o, æ -> ae,
/// ł -> l…). The same text gives the same terms whether it is composed (NFC) or decomposed (NFD).
/// With English stemming, a term made of ASCII letters only is then reduced to its Porter stem
/// ("connections" -> "connect"); terms with digits, apostrophes or other letters are left as they
/// are.
///
/// Plain ASCII words, the common case on the insert path, are read byte by byte from the text's
/// UTF-8 and never touch Foundation or `Character`.
public struct FullTextTokenizer: Sendable, Hashable {
    /// Whether terms are reduced to their stems.
    public enum Stemming: Sendable, Hashable {
        /// Terms are the folded words.
        case none
        /// Terms are stemmed with the Porter algorithm for English ("connections" -> "connect").
        case english
    }

    /// Whether terms are stemmed.
    public var stemming: Stemming
    /// Whether accents and other diacritics are removed ("café" -> "cafe").
    public var foldsDiacritics: Bool

    /// A tokenizer that folds case and, unless told otherwise, diacritics, and stems when asked.
    public init(stemming: Stemming = .none, foldsDiacritics: Bool = true) {
        self.stemming = stemming
        self.foldsDiacritics = foldsDiacritics
    }

    /// The tokens of `text`, in order.
    public func tokens(in text: String) -> [FullTextToken] {
        var tokens: [FullTextToken] = []
        forEachToken(in: text) { tokens.append($0) }
        return tokens
    }

    /// Calls `body` with each token of `text`, in order.
    public func forEachToken(in text: String, _ body: (FullTextToken) -> Void) {
        scan(text) { token in
            body(token)
            return true
        }
    }

    /// The term one query word stands for: folded and, when the tokenizer stems, stemmed; `nil`
    /// when the word holds no letter or digit.
    public func term(for word: String) -> String? {
        var term: String?
        scan(word) { token in
            term = token.term
            return false
        }
        return term
    }

    /// `word` folded as terms are, but not stemmed: what a prefix query (`swi*`) matches terms
    /// against.
    ///
    /// The whole of `word` is folded, separators included: pass one word. For a word that makes
    /// one token, it is that token's term as a tokenizer without stemming makes it.
    public func fold(_ word: String) -> String {
        var word = word
        return word.withUTF8 { bytes in
            var output = FullTextTermBuffer(capacity: bytes.count)
            FullTextFolding.fold(bytes, foldsDiacritics: foldsDiacritics, into: &output)
            return output.makeString()
        }
    }
}

extension FullTextTokenizer {
    /// Calls `body` with each token of `text` until it returns `false`.
    ///
    /// Native strings are read in place; others (bridged ones) from a contiguous copy, with the
    /// token ranges still indices of `text`.
    func scan(_ text: String, _ body: (FullTextToken) -> Bool) {
        let scanned: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            scan(bytes, of: text, body)
        }
        guard scanned == nil else { return }
        var copy = text
        copy.makeContiguousUTF8()
        copy.utf8.withContiguousStorageIfAvailable { bytes in
            scan(bytes, of: text, body)
        }
    }

    /// Finds the words in `bytes` (the UTF-8 of `text`) and calls `body` with their tokens until
    /// it returns `false`.
    private func scan(_ bytes: UnsafeBufferPointer<UInt8>, of text: String, _ body: (FullTextToken) -> Bool) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { storage in
            var term = FullTextTermBuffer(lending: storage)
            scan(bytes, of: text, into: &term, body)
        }
    }

    /// `scan(_:of:_:)`, with `term` to build the terms in.
    private func scan(_ bytes: UnsafeBufferPointer<UInt8>, of text: String, into term: inout FullTextTermBuffer,
                      _ body: (FullTextToken) -> Bool) {
        var indices = IndexCursor(text)
        var position = 0
        var index = 0
        while index < bytes.count {
            let (kind, length) = Self.classify(bytes, at: index)
            let end: Int
            var word = WordShape()
            switch kind {
            case .letter, .hebrewLetter, .digit:
                end = Self.endOfWord(bytes, from: index, shape: &word)
            case .single:
                end = Self.endOfSingle(bytes, from: index + length)
                word.isASCII = false
            default:
                index += length
                continue
            }
            let wordBytes = UnsafeBufferPointer(rebasing: bytes[index..<end])
            makeTerm(of: wordBytes, shape: word, into: &term)
            if term.count > 0 {
                let range = indices.index(at: index)..<indices.index(at: end)
                guard body(FullTextToken(term: term.makeString(), position: position, range: range)) else { return }
                position += 1
            }
            index = end
        }
    }

    /// Puts the term of the word `word` into `term`.
    private func makeTerm(of word: UnsafeBufferPointer<UInt8>, shape: WordShape, into term: inout FullTextTermBuffer) {
        term.count = 0
        if shape.isASCII {
            term.reserve(word.count)
            if shape.hasUppercase {
                for offset in 0..<word.count {
                    let byte = word[offset]
                    term.bytes[offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                }
                term.count = word.count
            } else {
                term.append(word)
            }
            if stemming == .english && shape.isLettersOnly {
                term.count = PorterStemmer.stem(term.bytes, count: term.count)
            }
            return
        }
        FullTextFolding.fold(word, foldsDiacritics: foldsDiacritics, into: &term)
        if stemming == .english && term.isASCIILetters {
            term.count = PorterStemmer.stem(term.bytes, count: term.count)
        }
    }

    /// The class of the scalar at `index` of `bytes`, and its length in bytes.
    @inline(__always)
    private static func classify(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (FullTextScalarClass, Int) {
        let byte = bytes[index]
        if byte < 0x80 { return (FullTextScalarClass.ofASCII(byte), 1) }
        let (value, length) = FullTextFolding.decodeScalar(bytes, at: index)
        return (FullTextScalarClass.of(value), length)
    }

    /// Where the word of letters and digits that starts at `start` ends, noting in `shape` what
    /// the term needs to know about it.
    private static func endOfWord(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, shape: inout WordShape) -> Int {
        var index = start
        // The last letter or digit (UAX #29 looks through marks to it).
        var last = FullTextScalarClass.other
        while index < bytes.count {
            let byte = bytes[index]
            // The common case first: ASCII letters (either case: setting bit 5 lowercases them
            // and maps no other byte into a...z) and digits.
            if (byte | 0x20) &- UInt8(ascii: "a") < 26 {
                if byte < UInt8(ascii: "a") { shape.hasUppercase = true }
                last = .letter
                index += 1
                continue
            }
            if byte &- UInt8(ascii: "0") < 10 {
                shape.isLettersOnly = false
                last = .digit
                index += 1
                continue
            }
            let (kind, length) = classify(bytes, at: index)
            switch kind {
            case .letter, .hebrewLetter, .digit:
                shape.isASCII = false
                if kind == .digit { shape.isLettersOnly = false }
                last = kind
                index += length
            case .extend:
                shape.isASCII = false
                index += length
            case .midLetter, .midNumLet, .midNum, .doubleQuote:
                guard index + length < bytes.count else { return index }
                let (next, _) = classify(bytes, at: index + length)
                let joins: Bool
                switch kind {
                case .midLetter: joins = last.isLetter && next.isLetter
                case .midNumLet: joins = (last.isLetter && next.isLetter) || (last == .digit && next == .digit)
                case .midNum: joins = last == .digit && next == .digit
                default: joins = last == .hebrewLetter && next == .hebrewLetter
                }
                guard joins else { return index }
                if byte >= 0x80 { shape.isASCII = false }
                shape.isLettersOnly = false
                // The letter or digit after it is taken by the next turn of the loop.
                index += length
            case .connector:
                // A run of connectors (and marks) joins only when a word character follows it.
                var after = index + length
                while after < bytes.count {
                    let (next, nextLength) = classify(bytes, at: after)
                    if next.isWordCharacter {
                        for offset in index..<after where bytes[offset] >= 0x80 { shape.isASCII = false }
                        shape.isLettersOnly = false
                        index = after
                        break
                    }
                    guard next == .connector || next == .extend else { return index }
                    after += nextLength
                }
                if after >= bytes.count { return index }
            case .other, .single:
                return index
            }
        }
        return index
    }

    /// Where the one-scalar token whose scalar ends at `start` ends: after the marks that belong
    /// to it.
    private static func endOfSingle(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            let (kind, length) = classify(bytes, at: index)
            guard kind == .extend else { break }
            index += length
        }
        return index
    }
}

extension FullTextTokenizer {
    /// What the term of a word depends on, noted while its end is found.
    private struct WordShape {
        /// Whether all its bytes are ASCII, so that lowercasing bytes is all the folding it needs.
        var isASCII = true
        /// Whether it has an ASCII capital letter.
        var hasUppercase = false
        /// Whether, as far as the ASCII scan saw, it is letters only (no digit, apostrophe, `.`,
        /// `_`): what the English stemmer takes.
        var isLettersOnly = true
    }

    /// Turns UTF-8 offsets of a string into its indices, walking forward from the last one: an
    /// offset is O(1) to reach in a native string, but O(n) from the start in a bridged one.
    private struct IndexCursor {
        /// The string whose indices are made.
        let text: String
        /// The last offset asked for.
        var offset = 0
        /// Its index.
        var index: String.Index

        /// A cursor at the start of `text`.
        init(_ text: String) {
            self.text = text
            index = text.utf8.startIndex
        }

        /// The index of the UTF-8 offset `target`, which is never before the last one asked for.
        mutating func index(at target: Int) -> String.Index {
            index = text.utf8.index(index, offsetBy: target - offset)
            offset = target
            return index
        }
    }
}
