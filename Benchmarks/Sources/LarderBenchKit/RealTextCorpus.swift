import Foundation
import Larder

/// A corpus of real English text for the full-text benchmarks: the paragraphs of a directory of
/// text files, reStructuredText above all (Debian's `python3.11-doc` ships the sources of Python's
/// documentation under `/usr/share/doc/python3.11/html/_sources`).
///
/// Every file (sorted by path) is split into paragraphs at blank lines; what is markup or code is
/// left out: directives and comments (`..`, with the block indented under them unless the
/// directive holds prose, as `.. note::` or `.. function::` do), section titles and their
/// underlines, literal blocks (the indented block after a paragraph that ends with `::`),
/// interactive sessions (`>>>`), table borders and field markers (`:param x:`). Inline markup
/// loses its roles, backticks, link targets and escapes (`` :func:`open <io.open>` `` reads
/// `open`). A paragraph is kept when it has at least 5 words and at least half its words are
/// words of letters, not code. Each becomes a document: key `p000001`, … in order, title the
/// file's first section title (or its name), body the paragraph.
///
/// The two indexes must see the same tokens: Larder's tokenizer keeps `os.path`, `don't` or `e.g`
/// whole, where FTS5's `unicode61` splits them at the punctuation. So each such word loses its
/// inner punctuation in the documents both sides index (`ospath`, `dont`, `eg`), which both
/// tokenizers then read as one token; everything else is the text as written. (`joinedWords`
/// counts them.)
///
/// The query terms are drawn from the corpus's own term frequencies, counted over the bodies with
/// Larder's tokenizer (no stemming), among terms of ASCII letters only.
public struct RealTextCorpus: Sendable {
    /// A term and how many times the bodies hold it.
    public struct Term: Sendable {
        public let text: String
        public let occurrences: Int
    }

    public let documents: [FullTextCorpus.Document]
    /// How many files the paragraphs came from.
    public let files: Int
    /// The tokens of the bodies, by Larder's tokenizer.
    public let words: Int
    /// The words of the bodies and titles that Larder keeps whole and FTS5 would split in two or
    /// more (with `.`, `,`, `:`, `_` or an apostrophe inside), which lost that punctuation.
    public let joinedWords: Int
    /// The distinct terms of the bodies.
    public let distinctTerms: Int
    /// The terms of ASCII letters only (two or more), most frequent first (ties by text).
    public let vocabulary: [Term]

    /// Reads the files under `directory`; keeps the first `limit` documents when it is given.
    public init(directory: String, limit: Int? = nil) throws {
        let paths = try FileManager.default.subpathsOfDirectory(atPath: directory).sorted().map { directory + "/" + $0 }
        var documents: [FullTextCorpus.Document] = []
        var files = 0
        reading: for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { continue }
            let (heading, paragraphs) = RestructuredText.paragraphs(of: text)
            guard !paragraphs.isEmpty else { continue }
            files += 1
            let name = path.split(separator: "/").last.map(String.init) ?? path
            let title = heading ?? name.split(separator: ".").first.map(String.init) ?? name
            for paragraph in paragraphs {
                if let limit, documents.count >= limit { break reading }
                documents.append(FullTextCorpus.Document(key: Self.key(documents.count + 1), title: title, body: paragraph))
            }
        }
        self.files = files

        let tokenizer = FullTextTokenizer()
        var joinedWords = 0
        documents = documents.map { document in
            let (body, joined) = Self.unjoined(document.body, tokenizer: tokenizer)
            joinedWords += joined
            return FullTextCorpus.Document(key: document.key, title: Self.unjoined(document.title, tokenizer: tokenizer).text, body: body)
        }
        self.documents = documents

        var occurrences: [String: Int] = [:]
        var words = 0
        for document in documents {
            tokenizer.forEachToken(in: document.body) { token in
                words += 1
                occurrences[token.term, default: 0] += 1
            }
        }
        self.words = words
        self.joinedWords = joinedWords
        distinctTerms = occurrences.count
        vocabulary = occurrences.filter { $0.key.utf8.count >= 2 && Self.isLetters($0.key) }
            .map { Term(text: $0.key, occurrences: $0.value) }
            .sorted { $0.occurrences != $1.occurrences ? $0.occurrences > $1.occurrences : $0.text < $1.text }
    }

    /// The key of the `number`th document: `p000001`, …
    static func key(_ number: Int) -> String {
        let digits = String(number)
        return "p" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// `text` with the punctuation inside each word that Larder's tokenizer keeps whole taken out,
    /// so that FTS5's `unicode61` reads the word as one token too; and how many words changed.
    static func unjoined(_ text: String, tokenizer: FullTextTokenizer) -> (text: String, joined: Int) {
        let joinedRanges = tokenizer.tokens(in: text).filter { $0.term.utf8.contains(where: joiners.contains) }.map(\.range)
        guard !joinedRanges.isEmpty else { return (text, 0) }
        var result = ""
        var rest = text.startIndex
        for range in joinedRanges {
            result += text[rest..<range.lowerBound]
            result += text[range].filter { !$0.isASCII || !joiners.contains($0.asciiValue!) }
            rest = range.upperBound
        }
        result += text[rest...]
        return (result, joinedRanges.count)
    }

    /// The bytes inside a term of Larder's that FTS5's `unicode61` takes for separators.
    private static let joiners: Set<UInt8> = [UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "_"), UInt8(ascii: "'")]

    static func isLetters(_ term: some StringProtocol) -> Bool {
        term.utf8.allSatisfy { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
    }

    /// `count` terms of the vocabulary at frequency ranks `ranks` (0 the most frequent), drawn with
    /// `seed`.
    public func terms(_ count: Int, ranks: ClosedRange<Int>, seed: UInt64) -> [String] {
        let ranks = ranks.clamped(to: 0...(vocabulary.count - 1))
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in vocabulary[Int.random(in: ranks, using: &random)].text }
    }

    /// `count` terms of the vocabulary that occur `occurrences` times, drawn with `seed`.
    public func terms(_ count: Int, occurrences: ClosedRange<Int>, seed: UInt64) -> [String] {
        let candidates = vocabulary.filter { occurrences.contains($0.occurrences) }
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in candidates.randomElement(using: &random)!.text }
    }

    /// The frequency ranks of the vocabulary that occur `occurrences` times.
    public func ranks(occurrences: ClosedRange<Int>) -> ClosedRange<Int>? {
        guard let first = vocabulary.firstIndex(where: { $0.occurrences <= occurrences.upperBound }),
              let last = vocabulary.lastIndex(where: { $0.occurrences >= occurrences.lowerBound }), first <= last else { return nil }
        return first...last
    }

    /// Two-word phrases that occur in the corpus: two adjacent terms of a random body, both of
    /// ASCII letters only, as `"a b"`.
    public func phrases(_ count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let tokenizer = FullTextTokenizer()
        var phrases: [String] = []
        while phrases.count < count {
            let terms = tokenizer.tokens(in: documents.randomElement(using: &random)!.body).map(\.term)
            let pairs = terms.indices.dropLast().filter { Self.isLetters(terms[$0]) && Self.isLetters(terms[$0 + 1]) }
            guard let start = pairs.randomElement(using: &random) else { continue }
            phrases.append("\"\(terms[start]) \(terms[start + 1])\"")
        }
        return phrases
    }

    /// Prefixes of three letters of terms at frequency ranks `ranks` (of four letters or more), as
    /// `pre*`.
    public func prefixes(_ count: Int, ranks: ClosedRange<Int>, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let candidates = vocabulary[ranks.clamped(to: 0...(vocabulary.count - 1))].filter { $0.text.utf8.count >= 4 }
        return (0..<count).map { _ in String(candidates.randomElement(using: &random)!.text.prefix(3)) + "*" }
    }
}

/// The prose of a reStructuredText file, paragraph by paragraph (see `RealTextCorpus`).
enum RestructuredText {
    /// Directives whose indented block is not prose: code, tables, lists of files, indexes.
    static let skippedDirectives: Set<Substring> = [
        "index", "code-block", "code", "sourcecode", "doctest", "testcode", "testoutput", "testsetup", "testcleanup",
        "productionlist", "toctree", "include", "literalinclude", "highlight", "tabularcolumns", "list-table",
        "csv-table", "table", "image", "figure", "raw", "math", "parsed-literal", "contents", "module", "currentmodule",
        "sectionauthor", "moduleauthor", "audit-event", "program",
    ]

    /// The file's first section title and its paragraphs of prose.
    static func paragraphs(of text: String) -> (title: String?, paragraphs: [String]) {
        var title: String?
        var paragraphs: [String] = []
        var lines: [Substring] = []
        var indentation = 0
        /// While set, lines indented deeper than this (and blank lines) are skipped.
        var skippingDeeperThan: Int?
        /// Whether lines are skipped up to the next blank line (an interactive session).
        var skippingToBlank = false

        func finish() {
            defer { lines = [] }
            guard !lines.isEmpty else { return }
            var paragraph = lines.joined(separator: " ")
            if paragraph.hasSuffix("::") {
                skippingDeeperThan = indentation
                paragraph.removeLast()
            }
            let cleaned = clean(paragraph)
            if isProse(cleaned) { paragraphs.append(cleaned) }
        }

        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }.trimmingTrailingWhitespace()
            let indent = rawLine.prefix { $0 == " " || $0 == "\t" }.reduce(0) { $0 + ($1 == "\t" ? 8 : 1) }
            if line.isEmpty {
                finish()
                skippingToBlank = false
                continue
            }
            if let depth = skippingDeeperThan {
                if indent > depth { continue }
                skippingDeeperThan = nil
            }
            if skippingToBlank { continue }
            if isAdornment(line) {
                // The line above, if any, is a section title: the document's title if it is the first.
                if title == nil, lines.count == 1 { title = clean(String(lines[0])) }
                lines = []
                continue
            }
            if line.hasPrefix("..") {
                finish()
                if let name = directiveName(line), !skippedDirectives.contains(name) { continue }
                skippingDeeperThan = indent
                continue
            }
            if line.hasPrefix(">>>") {
                finish()
                skippingToBlank = true
                continue
            }
            if line.hasPrefix("+-") || line.hasPrefix("+=") || line.hasPrefix("|") {
                finish()
                continue
            }
            var content = line
            if let rest = afterFieldMarker(line) {
                if rest.isEmpty { continue }
                content = rest
            }
            if lines.isEmpty { indentation = indent }
            lines.append(content)
        }
        finish()
        return (title, paragraphs)
    }

    /// The name of the directive `line` starts (`.. note::` is `note`), `nil` for a comment or a
    /// target (`.. _label:`).
    static func directiveName(_ line: Substring) -> Substring? {
        let rest = line.dropFirst(2).drop { $0 == " " }
        guard let end = rest.range(of: "::") else { return nil }
        let name = rest[..<end.lowerBound]
        return name.isEmpty || name.contains(" ") ? nil : name
    }

    /// Whether `line` is a section underline or overline, a transition or a simple table's border:
    /// one punctuation character repeated (spaces allowed after the first), at least 3 times.
    static func isAdornment(_ line: Substring) -> Bool {
        guard let first = line.first, "=-`:'\"~^_*+#<>.".contains(first), line.count >= 3 else { return false }
        return line.allSatisfy { $0 == first || $0 == " " }
    }

    /// For a line that starts with a field marker (`:param name: text`, `:noindex:`), what follows
    /// it; `nil` for other lines, roles (`` :func:`open` ``, `` :c:func:`f` ``) among them: a
    /// marker is followed by a space or the end of the line.
    static func afterFieldMarker(_ line: Substring) -> Substring? {
        guard line.first == ":" else { return nil }
        let rest = line.dropFirst()
        guard let end = rest.firstIndex(of: ":"), end > rest.startIndex else { return nil }
        let after = rest[rest.index(after: end)...]
        guard after.isEmpty || after.first == " " else { return nil }
        return after.drop { $0 == " " }
    }

    /// Whether a paragraph is prose: at least 5 words, at least half of them words of letters.
    static func isProse(_ paragraph: String) -> Bool {
        let words = paragraph.split(whereSeparator: \.isWhitespace)
        let lettered = words.filter { word in
            let core = word.drop { !$0.isLetter }.reversed().drop { !$0.isLetter }
            return !core.isEmpty && core.allSatisfy { $0.isLetter || $0 == "-" || $0 == "'" || $0 == "’" }
        }
        return lettered.count >= 5 && lettered.count * 2 >= words.count
    }

    /// `text` without inline markup: roles (`:func:`), backticks, link targets (`<...>` inside
    /// backticks), the `!`/`~` that start a role's text, reference underscores (`` `x`_ ``),
    /// footnote references (`[#]_`) and backslash escapes; spaces collapsed.
    static func clean(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        var inBackticks = false
        func isWordByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: ":") where !inBackticks && (index == 0 || !isWordByte(bytes[index - 1])):
                // A role: `:name:` (letters, digits, `:` and `-`) right before a backtick.
                var end = index + 1
                while end < bytes.count, isWordByte(bytes[end]) || bytes[end] == UInt8(ascii: ":") || bytes[end] == UInt8(ascii: "-") { end += 1 }
                if end < bytes.count, bytes[end] == UInt8(ascii: "`"), bytes[end - 1] == UInt8(ascii: ":"), end - index > 2 {
                    index = end
                } else {
                    output.append(byte)
                    index += 1
                }
            case UInt8(ascii: "`"):
                while index < bytes.count, bytes[index] == UInt8(ascii: "`") { index += 1 }
                inBackticks.toggle()
                if inBackticks {
                    while index < bytes.count, bytes[index] == UInt8(ascii: "!") || bytes[index] == UInt8(ascii: "~") { index += 1 }
                } else {
                    while index < bytes.count, bytes[index] == UInt8(ascii: "_") { index += 1 }
                }
            case UInt8(ascii: "<") where inBackticks && index > 0 && bytes[index - 1] == UInt8(ascii: " "):
                // A link target: up to `>`.
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: ">"), bytes[end] != UInt8(ascii: "`") { end += 1 }
                index = end < bytes.count && bytes[end] == UInt8(ascii: ">") ? end + 1 : index + 1
            case UInt8(ascii: "[") where index + 2 < bytes.count:
                // A footnote reference: `[#]_`, `[#name]_`, `[1]_`.
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "]"), bytes[end] != UInt8(ascii: " ") { end += 1 }
                if end + 1 < bytes.count, bytes[end] == UInt8(ascii: "]"), bytes[end + 1] == UInt8(ascii: "_") {
                    index = end + 2
                } else {
                    output.append(byte)
                    index += 1
                }
            case UInt8(ascii: "\\"):
                index += 1
            case UInt8(ascii: " "):
                if output.last != UInt8(ascii: " ") { output.append(byte) }
                index += 1
            default:
                output.append(byte)
                index += 1
            }
        }
        while output.last == UInt8(ascii: " ") { output.removeLast() }
        while output.first == UInt8(ascii: " ") { output.removeFirst() }
        return String(decoding: output, as: UTF8.self)
    }
}

extension Substring {
    fileprivate func trimmingTrailingWhitespace() -> Substring {
        var text = self
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}
