/// A corpus of short documents for the full-text benchmarks: a vocabulary of about 30 000 words,
/// the first hundred real English function words and the rest made of syllables, drawn with a
/// Zipf–Mandelbrot distribution (rank r has weight 1 / (r + 2.7)), as word frequencies in real
/// text fall. Every document has a title of 3 to 6 words and a body of 8 to 20.
public struct FullTextCorpus: Sendable {
    public struct Document: Sendable {
        public let key: String
        public let title: String
        public let body: String

        /// A document under `key` with its two columns.
        public init(key: String, title: String, body: String) {
            self.key = key
            self.title = title
            self.body = body
        }
    }

    public let vocabulary: [String]
    public let documents: [Document]
    private let cumulative: [Double]

    static let common = """
        the of and to a in is it you that he was for on are with as his they be at one have this \
        from or had by word but what some we can out other were all there when up use your how said \
        an each she which do their time if will way about many then them write would like so these \
        her long make thing see him two has look more day could go come did number sound no most \
        people my over know water than call first who may down side been now find any new work part
        """.split(separator: " ").map { String($0.trimmingCharacters()) }.filter { !$0.isEmpty }

    /// `count` documents drawn with `seed`.
    public init(count: Int, seed: UInt64 = 0x5EED_F75) {
        var random = SplitMix64(seed: seed)
        var words = Self.common
        var seen = Set(words)
        let onsets = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "sl", "st", "tr", "th", "wh"]
        let vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "oo", "ou", "y"]
        let codas = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "ng", "x"]
        while words.count < 30_000 {
            var word = ""
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                word += onsets.randomElement(using: &random)! + vowels.randomElement(using: &random)! + codas.randomElement(using: &random)!
            }
            if seen.insert(word).inserted { words.append(word) }
        }
        vocabulary = words
        var total = 0.0
        cumulative = words.indices.map { rank in
            total += 1 / (Double(rank) + 2.7)
            return total
        }
        var documents: [Document] = []
        documents.reserveCapacity(count)
        var draw = Drawing(cumulative: cumulative, vocabulary: words)
        for number in 0..<count {
            let title = draw.words(Int.random(in: 3...6, using: &random), using: &random)
            let body = draw.words(Int.random(in: 8...20, using: &random), using: &random)
            documents.append(Document(key: "d\(number)", title: title, body: body))
        }
        self.documents = documents
    }

    /// A document for `key` drawn like the corpus's, with `seed`.
    public func document(key: String, seed: UInt64) -> Document {
        var random = SplitMix64(seed: seed)
        var draw = Drawing(cumulative: cumulative, vocabulary: vocabulary)
        return Document(key: key, title: draw.words(Int.random(in: 3...6, using: &random), using: &random),
                        body: draw.words(Int.random(in: 8...20, using: &random), using: &random))
    }

    /// Query terms at several frequency ranks: common (rank 100–300), middling (1 000–3 000) and
    /// rare (10 000–20 000), `count` of each kind, drawn with `seed`.
    public func terms(_ count: Int, ranks: ClosedRange<Int>, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in vocabulary[Int.random(in: ranks, using: &random)] }
    }

    /// Two-word phrases that occur in the corpus: consecutive words of random bodies.
    public func phrases(_ count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let words = documents.randomElement(using: &random)!.body.split(separator: " ")
            let start = Int.random(in: 0..<(words.count - 1), using: &random)
            return "\"\(words[start]) \(words[start + 1])\""
        }
    }

    /// Prefixes of three letters of middling words, as `pre*`.
    public func prefixes(_ count: Int, seed: UInt64) -> [String] {
        terms(count, ranks: 1_000...3_000, seed: seed).map { String($0.prefix(3)) + "*" }
    }
}

/// Draws words by the corpus's distribution.
private struct Drawing {
    let cumulative: [Double]
    let vocabulary: [String]

    mutating func words(_ count: Int, using random: inout SplitMix64) -> String {
        var text = ""
        for position in 0..<count {
            let target = Double.random(in: 0..<cumulative[cumulative.count - 1], using: &random)
            var low = 0, high = cumulative.count - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            if position > 0 { text += " " }
            text += vocabulary[low]
        }
        return text
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> Substring {
        var text = self
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}
