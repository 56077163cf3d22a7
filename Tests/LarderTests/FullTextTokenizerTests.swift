import Foundation
import Testing
@testable import Larder

/// The full-text tokenizer: word boundaries, case and diacritic folding, the Porter stemmer,
/// token ranges, and its fast paths checked against the slow definitions on random text.
@Suite struct FullTextTokenizerTests {
    /// The default tokenizer: diacritics folded, no stemming.
    let plain = FullTextTokenizer()
    /// A tokenizer that keeps diacritics.
    let accented = FullTextTokenizer(foldsDiacritics: false)
    /// A tokenizer that stems English.
    let english = FullTextTokenizer(stemming: .english)

    /// A string compared by its UTF-8 bytes. `String`'s `==` holds between canonically
    /// equivalent strings ("é" and "e\u{301}"), but the index keeps terms as bytes, so the tests
    /// must tell them apart.
    struct Bytes: Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The UTF-8 bytes.
        let utf8: [UInt8]

        /// The bytes of `string`.
        init(_ string: String) {
            utf8 = Array(string.utf8)
        }

        /// The bytes of the literal.
        init(stringLiteral value: String) {
            self.init(value)
        }

        /// The string, and its scalars in hexadecimal when it is not ASCII.
        var description: String {
            let string = String(decoding: utf8, as: UTF8.self)
            if utf8.allSatisfy({ $0 < 0x80 }) { return string.debugDescription }
            return "\(string.debugDescription) \(string.unicodeScalars.map { String($0.value, radix: 16) })"
        }
    }

    /// The terms of `text`.
    func terms(_ text: String, _ tokenizer: FullTextTokenizer = FullTextTokenizer()) -> [Bytes] {
        tokenizer.tokens(in: text).map { Bytes($0.term) }
    }

    /// The words of `text` as its tokens' ranges cut them out.
    func words(_ text: String, _ tokenizer: FullTextTokenizer = FullTextTokenizer()) -> [Bytes] {
        tokenizer.tokens(in: text).map { Bytes(String(text[$0.range])) }
    }

    /// The term `tokenizer` makes of the query word `word`.
    func term(_ word: String, _ tokenizer: FullTextTokenizer = FullTextTokenizer()) -> Bytes? {
        tokenizer.term(for: word).map { Bytes($0) }
    }

    /// `word` folded by `tokenizer`.
    func fold(_ word: String, _ tokenizer: FullTextTokenizer = FullTextTokenizer()) -> Bytes {
        Bytes(tokenizer.fold(word))
    }

    // MARK: Word boundaries

    @Test func englishWordsPositionsAndRanges() {
        let text = "The quick brown fox, jumping over 2 lazy dogs."
        let tokens = plain.tokens(in: text)
        #expect(tokens.map(\.term) == ["the", "quick", "brown", "fox", "jumping", "over", "2", "lazy", "dogs"])
        #expect(tokens.map(\.position) == Array(0..<9))
        #expect(tokens.map { String(text[$0.range]) } == ["The", "quick", "brown", "fox", "jumping", "over", "2", "lazy", "dogs"])
        #expect(text.utf8.distance(from: text.startIndex, to: tokens[3].range.lowerBound) == 16)
    }

    @Test func emptyAndSeparatorOnlyTextsHaveNoTokens() {
        for text in ["", " ", "   \n\t\r\n ", "!!! ... --- ???", "😀🎉👍🏽 ❤️ 🇫🇷", "+-*/=<>[]{}()#@&%$€£¥", "\u{200B}\u{00A0}\u{3000}", "'''", "___", ".,:;"] {
            #expect(plain.tokens(in: text).isEmpty, "\(text.debugDescription)")
            #expect(term(text, plain) == nil, "\(text.debugDescription)")
        }
    }

    @Test func apostrophesStayBetweenLettersAndFoldToASCII() {
        #expect(terms("Don't stop, O'Brien’s") == ["don't", "stop", "o'brien's"])
        #expect(words("Don't stop, O'Brien’s") == ["Don't", "stop", "O'Brien’s"])
        #expect(terms("don’t") == terms("don't"))
        #expect(terms("rock 'n' roll") == ["rock", "n", "roll"])
        #expect(terms("James' car 'quoted'") == ["james", "car", "quoted"])
        #expect(terms("l‘ami l＇ami") == ["l'ami", "l'ami"])
        #expect(terms("don''t") == ["don", "t"])
    }

    @Test func midLetterPunctuationJoinsLettersOnly() {
        #expect(terms("e.g. U.S.A. example.com k:a") == ["e.g", "u.s.a", "example.com", "k:a"])
        #expect(terms("10:30 a.1 1.a end.") == ["10", "30", "a", "1", "1", "a", "end"])
        #expect(terms("col·lecció") == ["col·leccio"])
        #expect(terms("word: next") == ["word", "next"])
        #expect(terms("a..b") == ["a", "b"])
    }

    @Test func numbersKeepTheirDecimalAndThousandsSeparators() {
        #expect(terms("π is 3.14, not 3,14; 1,000,000 or 1'000'000 (2024).") ==
                ["π", "is", "3.14", "not", "3,14", "1,000,000", "or", "1'000'000", "2024"])
        #expect(terms("1,a a,1 1, ,1 1;2") == ["1", "a", "a", "1", "1", "1", "1", "2"])
        #expect(terms("v1.2.3 abc123def 12abc") == ["v1.2.3", "abc123def", "12abc"])
        #expect(terms("٣٫١٤ ๑๒๓ ３．１４") == ["٣٫١٤", "๑๒๓", "3.14"])
    }

    @Test func connectorsJoinOnlyBetweenWordCharacters() {
        #expect(terms("snake_case __init__ foo_ _bar a__b x_1 1_000") == ["snake_case", "init", "foo", "bar", "a__b", "x_1", "1_000"])
        #expect(words("__init__") == ["init"])
        #expect(terms("a_ _") == ["a"])
        #expect(terms("a‿b") == ["a‿b"])
    }

    @Test func symbolsEmojiAndOtherPunctuationSeparate() {
        #expect(terms("hello😀world #tag @user a+b c/d e-f g&h i|j k~l “quoted” «guillemets» ¿qué? ¡sí!") ==
                ["hello", "world", "tag", "user", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l",
                 "quoted", "guillemets", "que", "si"])
        #expect(terms("x²+y½ ①②") == ["x", "y"])
        #expect(terms("I❤️NY 👨‍👩‍👧 ok👍🏽ok") == ["i", "ny", "ok", "ok"])
        #expect(terms("a\u{200B}b") == ["a", "b"])
        #expect(terms("semi;colon") == ["semi", "colon"])
    }

    @Test func ignorableCharactersStayInsideWordsAndLeaveTheTerm() {
        let softHyphen = "co\u{AD}operate"
        #expect(terms(softHyphen) == ["cooperate"])
        #expect(words(softHyphen) == [Bytes(softHyphen)])
        #expect(terms("a\u{200D}b a\u{2060}b a\u{FE0F}") == ["ab", "ab", "a"])
        #expect(terms("\u{AD}word") == ["word"])
    }

    @Test func hanKanaAndThaiAreOneTokenPerCharacter() {
        #expect(terms("東京タワーは2024年に") == ["東", "京", "タ", "ワ", "ー", "は", "2024", "年", "に"])
        #expect(terms("Swift言語とSQLite") == ["swift", "言", "語", "と", "sqlite"])
        #expect(terms("全文检索，东京。") == ["全", "文", "检", "索", "东", "京"])
        #expect(terms("ｶﾀｶﾅ") == ["ｶ", "ﾀ", "ｶ", "ﾅ"])
        #expect(terms("ภาษาไทย") == ["ภ", "า", "ษ", "า", "ไ", "ท", "ย"])
        // Vowel signs and tone marks belong to the consonant before them.
        #expect(terms("ที่นี่") == ["ที่", "นี่"])
        #expect(words("𠀋𠀋") == ["𠀋", "𠀋"])
    }

    @Test func hangulAndOtherScriptsWithSpacesMakeWords() {
        #expect(terms("한국어 텍스트 검색") == ["한국어", "텍스트", "검색"])
        #expect(terms("Москва — столица России") == ["москва", "столица", "россии"])
        #expect(terms("हिन्दी भाषा") == ["हिन्दी", "भाषा"])
        #expect(terms("العربية لغة") == ["العربية", "لغة"])
        #expect(terms("צה\"ל a\"b") == ["צה\"ל", "a", "b"])
    }

    // MARK: Folding

    @Test func frenchGermanAndSpanishAccentsFold() {
        #expect(terms("Crème Brûlée à l’école, garçon naïve") == ["creme", "brulee", "a", "l'ecole", "garcon", "naive"])
        #expect(terms("Größe STRASSE Straße ẞ Ärger über") == ["grosse", "strasse", "strasse", "ss", "arger", "uber"])
        #expect(terms("¿Mañana, señor? Éxito ÀÉÎÕÜ") == ["manana", "senor", "exito", "aeiou"])
        #expect(terms("Việt Nam Łódź Dvořák") == ["viet", "nam", "lodz", "dvorak"])
    }

    @Test func lettersWithoutDecompositionFoldByTable() {
        #expect(terms("Øl Æble œuvre Łuk đak Þór ðe ħ ŧ ĳs ǅemal ǈ ǋ ſ") ==
                ["ol", "aeble", "oeuvre", "luk", "dak", "thor", "de", "h", "t", "ijs", "dzemal", "lj", "nj", "s"])
        #expect(terms("Øl Æble", accented) == ["øl", "æble"])
    }

    @Test func keepingDiacriticsStillFoldsCase() {
        #expect(terms("Crème BRÛLÉE Straße Οδυσσεύς", accented) == ["crème", "brûlée", "strasse", "οδυσσεύσ"])
        #expect(terms("ÀÉÎÕÜ ÿŸ", accented) == ["àéîõü", "ÿÿ"])
    }

    @Test func turkishDottedAndDotlessIUseTheOrdinaryLowercaseMapping() {
        #expect(terms("İstanbul ISPARTA ıslak Iğdır") == ["istanbul", "isparta", "islak", "igdir"])
        #expect(terms("İstanbul ıslak Iğdır", accented) == ["i\u{307}stanbul", "ıslak", "iğdır"])
    }

    @Test func greekFoldsFinalSigmaAndTonos() {
        #expect(terms("ΟΔΥΣΣΕΥΣ Οδυσσεύς οδυσσευς") == ["οδυσσευσ", "οδυσσευσ", "οδυσσευσ"])
        #expect(terms("Ἀθῆναι ΐ") == ["αθηναι", "ι"])
        #expect(terms("Σίσυφος", accented) == ["σίσυφοσ"])
    }

    @Test func cyrillicFoldsYoAndShortI() {
        #expect(terms("Ёлка ёлка Йод") == ["елка", "елка", "иод"])
        #expect(terms("Ёлка Йод", accented) == ["ёлка", "йод"])
    }

    @Test func fullwidthLettersAndLigaturesFoldToASCII() {
        #expect(terms("ＡＢＣ１２３ ﬁnance ﬂow eﬀort") == ["abc123", "finance", "flow", "effort"])
        #expect(terms("ＡＢＣ ﬁ", accented) == ["abc", "fi"])
    }

    @Test func composedAndDecomposedTextGiveTheSameTerms() {
        let pairs: [(String, String)] = [
            ("café", "cafe\u{301}"),
            ("Å", "A\u{30A}"),
            ("\u{212B}ngstr\u{F6}m", "A\u{30A}ngstro\u{308}m"),
            ("Việt", "Vie\u{323}\u{302}t"),
            ("한국어", "\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}\u{110B}\u{1165}"),
            ("が", "か\u{3099}"),
            ("ώ", "ω\u{301}"),
            ("\u{1F71}", "\u{3AC}"),
            ("й", "и\u{306}"),
            ("क़", "क\u{93C}"),
        ]
        for (composed, decomposed) in pairs {
            for tokenizer in [plain, accented, english] {
                #expect(terms(composed, tokenizer) == terms(decomposed, tokenizer), "\(composed) \(tokenizer)")
                #expect(terms(composed, tokenizer).count == 1, "\(composed) \(tokenizer)")
            }
        }
        #expect(terms("cafe\u{301}", accented) == ["café"])
        #expect(terms("\u{1112}\u{1161}\u{11AB}") == ["한"])
        #expect(terms("か\u{3099}") == ["が"])
        #expect(terms("\u{212B}") == ["a"])
        #expect(words("cafe\u{301} ok") == ["cafe\u{301}", "ok"])
    }

    @Test func marksOutsideTheDiacriticBlocksStay() {
        // Devanagari vowel signs and virama, the kana voicing mark and Hebrew points are kept:
        // removing them would change the letters.
        #expect(terms("हिन्दी") == ["हिन्दी"])
        #expect(terms("が ぱ") == ["が", "ぱ"])
        #expect(terms("שָׁלוֹם") == [Bytes("שָׁלוֹם".precomposedStringWithCanonicalMapping)])
    }

    // MARK: Stemming

    /// Pairs from Porter's paper, each run through the whole algorithm (so "relational" ends as
    /// "relat": step 2 makes "relate", step 5a drops the "e").
    static let porterPairs: [(String, String)] = [
        ("caresses", "caress"), ("ponies", "poni"), ("ties", "ti"), ("caress", "caress"), ("cats", "cat"),
        ("feed", "feed"), ("agreed", "agre"), ("plastered", "plaster"), ("bled", "bled"), ("motoring", "motor"),
        ("sing", "sing"), ("conflated", "conflat"), ("troubled", "troubl"), ("sized", "size"), ("hopping", "hop"),
        ("tanned", "tan"), ("falling", "fall"), ("hissing", "hiss"), ("fizzed", "fizz"), ("failing", "fail"),
        ("filing", "file"), ("happy", "happi"), ("sky", "sky"), ("relational", "relat"), ("conditional", "condit"),
        ("rational", "ration"), ("valenci", "valenc"), ("hesitanci", "hesit"), ("digitizer", "digit"),
        ("conformabli", "conform"), ("radicalli", "radic"), ("differentli", "differ"), ("vileli", "vile"),
        ("analogousli", "analog"), ("vietnamization", "vietnam"), ("predication", "predic"), ("operator", "oper"),
        ("feudalism", "feudal"), ("decisiveness", "decis"), ("hopefulness", "hope"), ("callousness", "callous"),
        ("formaliti", "formal"), ("sensitiviti", "sensit"), ("sensibiliti", "sensibl"), ("triplicate", "triplic"),
        ("formative", "form"), ("formalize", "formal"), ("electriciti", "electr"), ("electrical", "electr"),
        ("hopeful", "hope"), ("goodness", "good"), ("revival", "reviv"), ("allowance", "allow"), ("inference", "infer"),
        ("airliner", "airlin"), ("gyroscopic", "gyroscop"), ("adjustable", "adjust"), ("defensible", "defens"),
        ("irritant", "irrit"), ("replacement", "replac"), ("adjustment", "adjust"), ("dependent", "depend"),
        ("adoption", "adopt"), ("homologou", "homolog"), ("communism", "commun"), ("activate", "activ"),
        ("angulariti", "angular"), ("homologous", "homolog"), ("effective", "effect"), ("bowdlerize", "bowdler"),
        ("probate", "probat"), ("rate", "rate"), ("cease", "ceas"), ("controll", "control"), ("roll", "roll"),
        ("generalization", "gener"), ("generalizations", "gener"), ("oscillators", "oscil"), ("oscillations", "oscil"),
        ("running", "run"), ("connect", "connect"), ("connected", "connect"), ("connecting", "connect"),
        ("connection", "connect"), ("connections", "connect"),
        // Only the longest matching suffix is tried: "ement" leaves "el" (m = 1), so nothing goes.
        ("element", "element"), ("cement", "cement"), ("onion", "onion"),
        // One- and two-letter words are left alone.
        ("as", "as"), ("is", "is"), ("s", "s"),
    ]

    @Test func porterStemmerMatchesThePublishedExamples() {
        #expect(Self.porterPairs.count >= 40)
        for (word, stem) in Self.porterPairs {
            #expect(Bytes(PorterStemmer.stem(word)) == Bytes(stem), "\(word)")
            #expect(term(word, english) == Bytes(stem), "\(word)")
            #expect(term(word.uppercased(), english) == Bytes(stem), "\(word)")
        }
    }

    @Test func stemmingAppliesToASCIILetterTermsOnly() {
        #expect(terms("Connections RUNNING quickly, generalizations!", english) == ["connect", "run", "quickli", "gener"])
        #expect(terms("don't O'Brien's 3.14 running_fast v2 relational", english) == ["don't", "o'brien's", "3.14", "running_fast", "v2", "relat"])
        // Folding comes first: a term that folds to ASCII letters is stemmed.
        #expect(terms("Cafés naïvely", english) == ["cafe", "naiv"])
        #expect(terms("Connections", accented) == ["connections"])
        #expect(terms("connexions accentuées", FullTextTokenizer(stemming: .english, foldsDiacritics: false)) == ["connexion", "accentuées"])
        #expect(terms("Οδυσσεύς 東京", english) == ["οδυσσευσ", "東", "京"])
    }

    // MARK: Query words

    @Test func termForAQueryWord() {
        #expect(term("Running", english) == "run")
        #expect(term("Running", plain) == "running")
        #expect(term("  Café! ", plain) == "cafe")
        #expect(term("!!!", plain) == nil)
        #expect(term("", plain) == nil)
        #expect(term("東京", plain) == "東")
        #expect(term("first second", plain) == "first")
    }

    @Test func foldNeverStems() {
        #expect(fold("Connections", english) == "connections")
        #expect(fold("Swi", english) == "swi")
        #expect(fold("CAFÉ", english) == "cafe")
        #expect(fold("CAFÉ", accented) == "café")
        #expect(fold("DON’T", english) == "don't")
        #expect(fold("", english) == "")
        #expect(fold("Stra\u{DF}e", english) == "strasse")
        #expect(fold("cafe\u{301}", english) == "cafe")
        #expect(fold("cafe\u{301}", accented) == "café")
    }

    @Test func wordsLongerThanTheTermBufferGrowIt() {
        let ascii = String(repeating: "Ab", count: 300)
        #expect(terms("x \(ascii) y") == ["x", Bytes(ascii.lowercased()), "y"])
        let english = "Re" + String(repeating: "la", count: 200) + "tionalIZATIONS"
        #expect(term(english, self.english) == Bytes(PorterStemmer.stem(english.lowercased())))
        #expect(term(english, self.english).map(\.utf8.count) ?? 0 > 400)
        let accented = String(repeating: "É", count: 200) + "\u{AD}"
        #expect(terms(accented + " " + accented) == [Bytes(String(repeating: "e", count: 200)), Bytes(String(repeating: "e", count: 200))])
        #expect(terms(accented, self.accented) == [Bytes(String(repeating: "é", count: 200))])
        #expect(fold(accented) == Bytes(String(repeating: "e", count: 200)))
    }

    @Test func forEachTokenAndTokensAgree() {
        let text = "One two, THREE: four’s five.6 七八"
        var seen: [FullTextToken] = []
        english.forEachToken(in: text) { seen.append($0) }
        #expect(seen == english.tokens(in: text))
        #expect(seen.count == 8)
    }

    // MARK: Properties on random text

    @Test func randomTextTokensAreOrderedAndRoundTrip() {
        var random = SplitMix(seed: 0x5EED)
        for _ in 0..<3_000 {
            let text = Self.randomText(&random)
            for tokenizer in [plain, accented, english] {
                Self.checkTokens(of: text, tokenizer)
            }
        }
    }

    @Test func randomTextIsNormalizationInsensitive() {
        var random = SplitMix(seed: 0xC0FFEE)
        for _ in 0..<2_000 {
            let text = Self.randomText(&random, pieces: Self.normalizationPieces)
            let composed = text.precomposedStringWithCanonicalMapping
            let decomposed = text.decomposedStringWithCanonicalMapping
            for tokenizer in [plain, accented] {
                let expected = terms(composed, tokenizer)
                #expect(terms(decomposed, tokenizer) == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
                #expect(terms(text, tokenizer) == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
    }

    @Test func fastFoldingAgreesWithTheFoundationDefinition() {
        var random = SplitMix(seed: 7)
        for _ in 0..<5_000 {
            let word = Self.randomText(&random, pieces: Self.normalizationPieces, maximumLength: 8)
            for foldsDiacritics in [true, false] {
                var bytes = Array(word.utf8)
                let fast = bytes.withUnsafeMutableBufferPointer { buffer in
                    var output = FullTextTermBuffer(capacity: 4)
                    FullTextFolding.fold(UnsafeBufferPointer(buffer), foldsDiacritics: foldsDiacritics, into: &output)
                    return output.makeString()
                }
                bytes.removeAll()
                let slow = FullTextFolding.slowFold(word, foldsDiacritics: foldsDiacritics)
                #expect(Bytes(fast) == Bytes(slow), "\(word.unicodeScalars.map { String($0.value, radix: 16) }) \(foldsDiacritics)")
            }
        }
    }

    /// Every scalar that the fast path folds through its tables, copies as it is or replaces
    /// folds that way by the Foundation definition, alone, after a letter and before a
    /// diacritic; and every scalar that it copies is left alone by the definition.
    @Test func fastPathTablesAgreeWithTheDefinition() {
        var mismatches: [String] = []
        var checked = 0
        func check(_ text: String, _ label: UInt32) {
            for foldsDiacritics in [true, false] {
                let fast = FullTextTokenizer(foldsDiacritics: foldsDiacritics).fold(text)
                let slow = FullTextFolding.slowFold(text, foldsDiacritics: foldsDiacritics)
                if Bytes(fast) != Bytes(slow) { mismatches.append("\(String(label, radix: 16)) \(foldsDiacritics)") }
            }
        }
        for value in UInt32(0x80)...0x323AF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.generalCategory != .unassigned else { continue }
            let alone = String(Character(scalar))
            if FullTextFolding.isUnchangedByFolding(value) {
                checked += 1
                for foldsDiacritics in [true, false] where Bytes(FullTextFolding.slowFold(alone, foldsDiacritics: foldsDiacritics)) != Bytes(alone) {
                    mismatches.append("unchanged \(String(value, radix: 16)) \(foldsDiacritics)")
                }
                // Han ideographs are many and alike: a sample of them is enough here.
                guard value < 0x3400 || value % 37 == 0 else { continue }
            } else if !(FullTextFolding.Table.covers(value) || (0xF900...0xFAFF).contains(value)
                        || (0xFB00...0xFB06).contains(value) || (0xFF01...0xFF5E).contains(value)
                        || FullTextFolding.isKeptMarkWithoutComposition(value) || FullTextFolding.isFoldedDiacritic(value)
                        || [0x2018, 0x2019, 0x02BC, 0x00AD, 0x200D, 0xFE0F].contains(value)) {
                continue
            }
            checked += 1
            check(alone, value)
            check(alone + "\u{301}", value)
            check("a" + alone, value)
            check("\u{E01}" + alone + "\u{E48}", value)
        }
        #expect(checked > 90_000)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }

    /// The classes agree with the Unicode properties they stand for, including the shortcuts
    /// taken for common scripts before any property lookup.
    @Test func scalarClassesFollowTheUnicodeProperties() {
        var wrong: [String] = []
        // Every scalar of the basic multilingual plane, where the shortcuts are, and a sample of
        // the others.
        for value in stride(from: UInt32(0), through: 0x10FFFF, by: 1) where value < 0x10000 || value % 11 == 0 {
            // The Hebrew geresh is punctuation that UAX #29 counts as a Hebrew letter.
            guard let scalar = Unicode.Scalar(value), value != 0x05F3 else { continue }
            let kind = FullTextScalarClass.of(value)
            let properties = scalar.properties
            let isLetterLike = kind == .letter || kind == .hebrewLetter || kind == .single
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                if kind != .extend { wrong.append(String(value, radix: 16)) }
            case .decimalNumber:
                if kind != .digit { wrong.append(String(value, radix: 16)) }
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .otherLetter:
                if !isLetterLike && !properties.isDefaultIgnorableCodePoint { wrong.append(String(value, radix: 16)) }
            default:
                if isLetterLike && !properties.isAlphabetic { wrong.append(String(value, radix: 16)) }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(20))")
        #expect(FullTextScalarClass.of(0x4E2D) == .single && FullTextScalarClass.of(0x3042) == .single
                && FullTextScalarClass.of(0xE01) == .single && FullTextScalarClass.of(0xD55C) == .letter
                && FullTextScalarClass.of(0x5D0) == .hebrewLetter && FullTextScalarClass.of(0x200B) == .other
                && FullTextScalarClass.of(0x3164) == .extend && FullTextScalarClass.of(0x2019) == .midNumLet)
    }

    /// Checks the tokens of `text`: positions from 0, ranges in order without overlap, each
    /// range's text one word that tokenizes alone to the same term, and `fold` agreeing.
    static func checkTokens(of text: String, _ tokenizer: FullTextTokenizer) {
        let tokens = tokenizer.tokens(in: text)
        #expect(tokens.map(\.position) == Array(tokens.indices))
        var previousEnd = text.startIndex
        let unstemmed = FullTextTokenizer(foldsDiacritics: tokenizer.foldsDiacritics)
        for token in tokens {
            #expect(previousEnd <= token.range.lowerBound && token.range.lowerBound < token.range.upperBound
                    && token.range.upperBound <= text.endIndex)
            previousEnd = token.range.upperBound
            #expect(!token.term.isEmpty)
            let word = String(text.unicodeScalars[token.range])
            #expect(Bytes(String(text[token.range])) == Bytes(word), "\(text.debugDescription)")
            let alone = tokenizer.tokens(in: word)
            #expect(alone.count == 1 && alone.first.map { Bytes($0.term) } == Bytes(token.term)
                    && alone.first?.range == word.startIndex..<word.endIndex,
                    "\(word.debugDescription) in \(text.debugDescription)")
            if tokenizer.stemming == .none {
                #expect(Bytes(tokenizer.fold(word)) == Bytes(token.term))
            } else {
                #expect(unstemmed.term(for: word).map { Bytes(PorterStemmer.stem($0)) } == Bytes(token.term))
            }
        }
    }

    /// Pieces that random texts are made of: every kind of character the tokenizer tells apart.
    static let pieces: [String] = [
        "a", "Z", "word", "Don", "7", "42", " ", "  ", "\n", "\t", "'", "’", ".", ",", ":", ";", "_", "\"", "-", "!", "?",
        "é", "É", "e\u{301}", "\u{301}", "\u{308}", "\u{327}", "ß", "ẞ", "ø", "Æ", "ı", "İ", "ς", "Σ", "ΐ", "ό", "Ё", "й",
        "ǅ", "ﬁ", "Ａ", "１", "．", "\u{AD}", "\u{200B}", "\u{200C}", "\u{200D}", "\u{FE0F}", "\u{2060}", "\u{FEFF}",
        "東", "京", "タ", "ー", "か", "\u{3099}", "が", "한", "\u{1100}", "\u{1161}", "\u{11A8}", "ภ", "\u{E35}", "\u{E48}",
        "ש", "\u{5B8}", "ع", "\u{64E}", "क", "\u{93F}", "\u{94D}", "\u{93C}", "١", "٫", "😀", "👍🏽", "👨‍👩‍👧", "🇫🇷",
        "1️⃣", "€", "²", "½", "‿", "·", "\u{600}", "\u{0E33}", "\u{1F71}", "\u{212B}", "\u{F900}", "\u{3164}", "ᄀ",
    ]

    /// Pieces for the normalization tests: letters, marks, and separators whose composed and
    /// decomposed forms differ.
    static let normalizationPieces: [String] = [
        "a", "E", "o", "i", "I", "u", " ", ".", "'", "é", "Å", "ñ", "Ü", "ǖ", "ș", "ạ", "ệ", "ῷ", "ά", "ΐ", "Ϊ", "ӑ", "й",
        "Ё", "\u{301}", "\u{300}", "\u{308}", "\u{323}", "\u{327}", "\u{345}", "\u{342}", "\u{338}", "\u{20D7}",
        "\u{212B}", "\u{2126}", "\u{1F71}", "ǅ", "İ", "ı", "ß", "ς", "ø", "æ", "ﬁ", "Ｂ", "ğ",
        "が", "か", "\u{3099}", "\u{309A}", "한", "\u{1112}", "\u{1161}", "\u{11AB}", "東", "\u{F91D}",
        "ภ", "\u{E38}", "\u{E48}", "\u{E4A}", "क", "\u{93C}", "\u{958}", "\u{94D}", "ש", "\u{5C1}", "\u{5BC}",
        "ا", "\u{653}", "\u{654}", "آ", "\u{AD}", "\u{200D}",
    ]

    /// A random text of up to `maximumLength` pieces, some of them random scalars of any plane.
    static func randomText(_ random: inout SplitMix, pieces: [String] = pieces, maximumLength: Int = 24) -> String {
        var text = ""
        for _ in 0..<Int.random(in: 0...maximumLength, using: &random) {
            if pieces.count == Self.pieces.count && Int.random(in: 0..<8, using: &random) == 0 {
                let value = UInt32.random(in: 0x80...0x10FFFF, using: &random)
                if let scalar = Unicode.Scalar(value) { text.unicodeScalars.append(scalar) }
            } else {
                text += pieces.randomElement(using: &random)!
            }
        }
        return text
    }
}
