#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import Larder
import LarderMessagePack

/// The stack of the threads these tests run on: a secondary thread's on Darwin, and a sixteenth
/// of the main thread's on Linux. A server runs queries on threads like these.
let smallStack = 512 * 1024

/// A body for a thread of its own; the thread takes it once.
private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Runs `body` on a new thread whose stack is `stackSize` bytes, waits for it (at most `timeout`)
/// and returns what it returned, or throws what it threw. A body that overflows the stack kills
/// the test process: that is how these tests fail.
func onSmallStack<R: Sendable>(
    stackSize: Int = smallStack, timeout: DispatchTimeInterval = .seconds(600), sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () throws -> R
) throws -> R {
    let outcome = LockedBox<Result<R, any Error>?>(nil)
    let finished = DispatchSemaphore(value: 0)
    let work = ThreadBody {
        let result = Result { try body() }
        outcome.withLock { $0 = result }
        finished.signal()
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    try #require(pthread_attr_setstacksize(&attributes, stackSize) == 0, sourceLocation: sourceLocation)
    #if canImport(Darwin)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let context = Unmanaged.passRetained(work).toOpaque()
    let created = pthread_create(&thread, &attributes, { context in
        #if canImport(Darwin)
        Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().run()
        #else
        Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
        #endif
        return nil
    }, context)
    guard created == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        Issue.record("pthread_create failed: \(created)", sourceLocation: sourceLocation)
        throw CancellationError()
    }
    guard finished.wait(timeout: .now() + timeout) == .success else {
        Issue.record("the body did not finish in time on its small stack", sourceLocation: sourceLocation)
        throw CancellationError()
    }
    #if canImport(Darwin)
    if let thread { pthread_join(thread, nil) }
    #else
    pthread_join(thread, nil)
    #endif
    return try outcome.withLock { $0 }!.get()
}

/// The size of the calling thread's stack, as the system reports it (on Linux through glibc's
/// `pthread_getattr_np`, which Swift's Glibc module leaves out: found with `dlsym`).
func currentStackSize() -> Int {
    #if canImport(Darwin)
    return pthread_get_stacksize_np(pthread_self())
    #else
    typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
    guard let symbol = dlsym(nil, "pthread_getattr_np") else { return -1 }
    let getAttributes = unsafeBitCast(symbol, to: GetAttributes.self)
    var attributes = pthread_attr_t()
    guard getAttributes(pthread_self(), &attributes) == 0 else { return -1 }
    defer { pthread_attr_destroy(&attributes) }
    var size = 0
    pthread_attr_getstacksize(&attributes, &size)
    return size
    #endif
}

/// Hostile inputs — deep nesting, long phrases, huge queries — on a thread with a small stack:
/// each ends with a clear error, never a crash, and what is just within the limits still works
/// there. (Issue 31: a search box is user input.)
@Suite("Deep input")
struct DeepInputTests {
    struct Page: Codable, Sendable {
        var title: String
        var body: String
    }

    /// A word of letters only, different for each `number`.
    static func word(_ number: Int) -> String {
        var letters = ""
        var rest = number
        repeat {
            letters.append(Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(rest % 26))))
            rest /= 26
        } while rest > 0
        return "q" + letters
    }

    /// The words of the long page, which a phrase of the longest length allowed is cut from.
    static let longText = (0..<600).map(word).joined(separator: " ")

    /// A store with a full-text search over four pages: "swift" in the title of `a` and the body
    /// of `c`, "bread" in `b`, and the 600 words of ``longText`` in `long`.
    static func withPages(_ body: (Database, FullTextSearchHandle<Page, NoMetadata>) throws -> Void) throws {
        try withStore { db, _ in
            let definition = FullTextSearch<Page, NoMetadata>(versionTag: "1", columnNames: ["title", "body"]) { _, page in
                [page.title, page.body]
            }
            let search = try db.register(definition, named: "pages")
            try db.write { txn in
                try txn.setObject(Page(title: "Swift on the server", body: "fast key value store"), forKey: "a", inCollection: "pages")
                try txn.setObject(Page(title: "Cooking", body: "bread and water"), forKey: "b", inCollection: "pages")
                try txn.setObject(Page(title: "Storage", body: "swift lmdb"), forKey: "c", inCollection: "pages")
                try txn.setObject(Page(title: "Long", body: longText), forKey: "long", inCollection: "pages")
            }
            try body(db, search)
        }
    }

    /// The error that counting the matches of `query` throws, run on a small stack.
    static func refusal(
        _ db: Database, _ search: FullTextSearchHandle<Page, NoMetadata>, _ query: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> LarderError? {
        let error = #expect(throws: LarderError.self, sourceLocation: sourceLocation) {
            try onSmallStack { try db.read { try $0[search].count(matching: query) } }
        }
        #expect(error?.code == .invalidQuery, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect((error?.message.utf8.count ?? 0) < 1_000, "a message of \(error?.message.utf8.count ?? 0) bytes", sourceLocation: sourceLocation)
        return error
    }

    /// The same for a query built in code.
    static func refusal(
        _ db: Database, _ search: FullTextSearchHandle<Page, NoMetadata>, _ query: FullTextQuery, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> LarderError? {
        let error = #expect(throws: LarderError.self, sourceLocation: sourceLocation) {
            try onSmallStack { try db.read { try $0[search].count(matching: query) } }
        }
        #expect(error?.code == .invalidQuery, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect((error?.message.utf8.count ?? 0) < 1_000, "a message of \(error?.message.utf8.count ?? 0) bytes", sourceLocation: sourceLocation)
        return error
    }

    /// The number of matches of `query`, counted on a small stack.
    static func count(_ db: Database, _ search: FullTextSearchHandle<Page, NoMetadata>, _ query: String) throws -> Int {
        try onSmallStack { try db.read { try $0[search].count(matching: query) } }
    }

    @Test func theHelperRunsOnASmallStack() throws {
        let size = try onSmallStack { currentStackSize() }
        #expect(size == smallStack, "\(size)")
        // And a body's error comes back.
        #expect(throws: CancellationError.self) { try onSmallStack { throw CancellationError() } }
    }

    // MARK: Full-text queries

    @Test(arguments: [3_500, 100_000])
    func nestedParenthesesAreRefused(_ depth: Int) throws {
        try Self.withPages { db, search in
            let query = String(repeating: "(", count: depth) + "swift" + String(repeating: ")", count: depth)
            let error = try Self.refusal(db, search, query)
            #expect(error?.message.contains("\(FullTextQuery.maximumDepth)") == true)
            // Column filters before each group nest the same way.
            let fields = String(repeating: "title:(", count: depth) + "swift" + String(repeating: ")", count: depth)
            _ = try Self.refusal(db, search, fields)
            // Unbalanced, too: the nesting is refused before the missing ) is found.
            _ = try Self.refusal(db, search, String(repeating: "(", count: depth) + "swift")
        }
    }

    @Test(arguments: [14_000, 100_000])
    func chainedNotsAreRefused(_ count: Int) throws {
        try Self.withPages { db, search in
            let query = "swift" + String(repeating: " NOT bread", count: count)
            let error = try Self.refusal(db, search, query)
            #expect(error?.message.contains("\(FullTextQuery.maximumDepth)") == true)
            // The same nesting of groups and NOTs: a NOT (b NOT (c …)).
            let nested = String(repeating: "swift NOT (", count: count / 2) + "bread" + String(repeating: ")", count: count / 2)
            _ = try Self.refusal(db, search, nested)
        }
    }

    @Test(arguments: [21_000, 100_000])
    func longPhrasesAreRefused(_ words: Int) throws {
        try Self.withPages { db, search in
            let phrase = (0..<words).map { Self.word($0 % 600) }.joined(separator: " ")
            let error = try Self.refusal(db, search, "\"" + phrase + "\"")
            #expect(error?.message.contains("\(FullTextQuery.maximumPhraseWords)") == true)
            _ = try Self.refusal(db, search, .phrase(phrase))
            // A word the tokenizer splits is a phrase of its parts.
            _ = try Self.refusal(db, search, .word(phrase.replacingOccurrences(of: " ", with: "-")))
        }
    }

    @Test func hugeQueriesAreRefusedWithShortMessages() throws {
        try Self.withPages { db, search in
            // 400 KB of words: more terms than a query may have.
            let words = (0..<40_000).map { Self.word($0) }.joined(separator: " ")
            #expect(words.utf8.count > 200_000)
            let error = try Self.refusal(db, search, words)
            #expect(error?.message.contains("\(FullTextQuery.maximumTerms)") == true)
            #expect(error?.message.contains("…") == true)
            // 400 KB in a quote that never closes, a column filter, a word, a prefix.
            let blob = String(repeating: "x", count: 400_000)
            _ = try Self.refusal(db, search, "\"" + blob)
            _ = try Self.refusal(db, search, blob + ":swift")
            _ = try Self.refusal(db, search, "swift " + blob + ")")
            _ = try Self.refusal(db, search, "swift OR " + blob + " (")
            _ = try Self.refusal(db, search, blob + "-" + blob + "*")
            // Built in code: a column the search does not have, many terms.
            _ = try Self.refusal(db, search, .column(blob, .word("swift")))
            _ = try Self.refusal(db, search, .or((0..<40_000).map { .word(Self.word($0)) }))
        }
    }

    @Test func deepQueriesBuiltInCodeAreRefused() throws {
        try Self.withPages { db, search in
            // Built, searched for and dropped on the small stack: the check walks without
            // recursion, and the tree is small enough to free.
            let error = #expect(throws: LarderError.self) {
                try onSmallStack {
                    var query = FullTextQuery.word("swift")
                    for number in 0..<1_000 {
                        query = number.isMultiple(of: 2) ? .and([query, .word("swift")]) : query.excluding(.word("bread"))
                    }
                    return try db.read { try $0[search].count(matching: query) }
                }
            }
            #expect(error?.code == .invalidQuery)
            #expect(error?.message.contains("\(FullTextQuery.maximumDepth)") == true)
            #expect((error?.message.utf8.count ?? 0) < 1_000)
        }
    }

    @Test func queriesAtTheLimitsWorkOnASmallStack() throws {
        try Self.withPages { db, search in
            let limit = FullTextQuery.maximumDepth
            // As many groups as allowed, and one more.
            let grouped = String(repeating: "(", count: limit) + "swift lmdb" + String(repeating: ")", count: limit)
            #expect(try Self.count(db, search, grouped) == 1)
            _ = try Self.refusal(db, search, "(" + grouped + ")")
            // As many NOTs in a chain as allowed (the last excludes c), and one more.
            let chain = "swift" + (1..<limit).map { " NOT \(Self.word(1_000 + $0))" }.joined() + " NOT lmdb"
            #expect(try Self.count(db, search, chain) == 1)
            _ = try Self.refusal(db, search, chain + " NOT bread")
            // Column filters and groups inside each other: title:(a OR (b OR (c …))).
            let columns = "title:(" + String(repeating: "swift OR (", count: limit - 2) + "swift" + String(repeating: ")", count: limit - 1)
            #expect(try Self.count(db, search, columns) == 1)
            // A phrase as long as allowed finds the page it was cut from; one more word is refused.
            let phrase = (0..<FullTextQuery.maximumPhraseWords).map(Self.word)
            #expect(try Self.count(db, search, "\"" + phrase.joined(separator: " ") + "\"") == 1)
            #expect(try Self.count(db, search, "\"" + phrase.dropFirst().joined(separator: " ") + " qzz\"") == 0)
            _ = try Self.refusal(db, search, "\"" + (0...FullTextQuery.maximumPhraseWords).map(Self.word).joined(separator: " ") + "\"")
            // As many terms as allowed, and one more.
            let terms = (0..<FullTextQuery.maximumTerms - 1).map { Self.word(10_000 + $0) } + ["swift"]
            #expect(try Self.count(db, search, terms.joined(separator: " OR ")) == 2)
            _ = try Self.refusal(db, search, (terms + ["bread"]).joined(separator: " OR "))
        }
    }

    @Test func aQueryBuiltInCodeAtTheDepthLimitMatchesAsAFlatOne() throws {
        try Self.withPages { db, search in
            // AND, OR and NOT in turn, 255 levels, under a column filter: 256 in all.
            var query = FullTextQuery.word("swift")
            for number in 0..<(FullTextQuery.maximumDepth - 1) {
                switch number % 3 {
                case 0: query = .and([query, .word("swift")])
                case 1: query = .or([query, .word("qnothing")])
                default: query = query.excluding(.word("bread"))
                }
            }
            let deep = FullTextQuery.column("body", query)
            let flat = FullTextQuery.column("body", .word("swift"))
            let (found, expected) = try onSmallStack {
                try db.read { txn in
                    (try txn[search].search(deep).map(\.index), try txn[search].search(flat).map(\.index))
                }
            }
            #expect(found == expected)
            #expect(found == [YapDB.Index(collection: "pages", key: "c")])
            // It renders, and reads back, as deep as it is.
            let again = try onSmallStack { try FullTextQuery(parsing: deep.description) }
            #expect(try onSmallStack { try db.read { try $0[search].search(again).map(\.index) } } == expected)
            // One level more is refused.
            _ = try Self.refusal(db, search, FullTextQuery.and([deep, .word("swift")]))
        }
    }
}

/// A type whose value is an array of its own values: its `init(from:)` recurses as deep as its
/// input nests.
struct NestedArrays: Decodable, Sendable {
    var children: [NestedArrays]

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var children: [NestedArrays] = []
        while !container.isAtEnd { children.append(try container.decode(NestedArrays.self)) }
        self.children = children
    }

    /// How many arrays nest in it, itself included.
    var depth: Int {
        var depth = 1
        var level = children
        while let first = level.first {
            depth += 1
            level = first.children
        }
        return depth
    }
}

extension DeepInputTests {
    // MARK: MessagePack, tuple keys, change log entries

    /// `levels` arrays of one element each, the innermost holding nil (or empty, with `empty`).
    static func nestedArrays(_ levels: Int, empty: Bool = false) -> [UInt8] {
        empty ? [UInt8](repeating: 0x91, count: levels - 1) + [0x90] : [UInt8](repeating: 0x91, count: levels) + [0xc0]
    }

    /// `levels` maps of one entry `"k"` each, the innermost holding nil.
    static func nestedMaps(_ levels: Int) -> [UInt8] {
        Array([[UInt8]](repeating: [0x81, 0xa1, 0x6b], count: levels).joined()) + [0xc0]
    }

    @Test func deepMessagePackIsRefused() throws {
        for bytes in [Self.nestedArrays(100_000), Self.nestedMaps(100_000), Self.nestedArrays(MessagePackReader.maximumDepth + 1, empty: true)] {
            let error = #expect(throws: MessagePackValue.ReadError.self) { try onSmallStack { try MessagePackValue(reading: bytes) } }
            #expect(error?.reason.contains("\(MessagePackReader.maximumDepth)") == true, "\(String(describing: error))")
            #expect(throws: DecodingError.self) { try onSmallStack { try MessagePackDecoder().decode(NestedArrays.self, from: bytes) } }
            // What a change log entry is read with.
            let logError = #expect(throws: LarderError.self) { try onSmallStack { _ = try bytes.withUnsafeBytes { try Changeset(logBytes: $0) } } }
            #expect(logError?.code == .corruptValue)
        }
    }

    @Test func theDecoderStopsATypeThatRecursesBeforeTheStackRunsOut() throws {
        let limit = MessagePackReader.maximumDepth
        let deepest = Self.nestedArrays(limit, empty: true)
        // On a 512 KiB thread the type's own recursion would overflow the stack: an error.
        let error = #expect(throws: DecodingError.self) { try onSmallStack { try MessagePackDecoder().decode(NestedArrays.self, from: deepest).depth } }
        if case .dataCorrupted(let context) = error {
            #expect(context.debugDescription.contains("larger stack"), "\(context.debugDescription)")
        } else {
            Issue.record("\(String(describing: error))")
        }
        // What fits decodes there, and on a thread with 8 MiB everything the format allows does.
        #expect(try onSmallStack { try MessagePackDecoder().decode(NestedArrays.self, from: Self.nestedArrays(100, empty: true)).depth } == 100)
        #expect(try onSmallStack(stackSize: 8 << 20) { try MessagePackDecoder().decode(NestedArrays.self, from: deepest).depth } == limit)
        // The decoder, reused from its pool, looks the stack up again on another thread.
        for _ in 0..<3 {
            #expect(throws: DecodingError.self) { try onSmallStack { try MessagePackDecoder().decode(NestedArrays.self, from: deepest).depth } }
            #expect(try onSmallStack(stackSize: 8 << 20) { try MessagePackDecoder().decode(NestedArrays.self, from: deepest).depth } == limit)
        }
    }

    @Test func messagePackAtTheDepthLimitReadsOnASmallStack() throws {
        let limit = MessagePackReader.maximumDepth
        for bytes in [Self.nestedArrays(limit), Self.nestedArrays(limit, empty: true), Self.nestedMaps(limit)] {
            let (same, equal) = try onSmallStack {
                let value = try MessagePackValue(reading: bytes)
                return (value.encoded() == bytes, value == (try MessagePackValue(reading: bytes)))
            }
            #expect(same && equal)
        }
    }

    @Test func deepTupleKeysAreRefused() throws {
        let limit = TupleKeyDecoder.maximumNesting
        let open = [UInt8](repeating: TupleTypeByte.nestedStart, count: 100_000)
        let closed = open + [UInt8](repeating: TupleTypeByte.nestedEnd, count: 100_000)
        let justOver = [UInt8](repeating: TupleTypeByte.nestedStart, count: limit + 1) + [UInt8](repeating: TupleTypeByte.nestedEnd, count: limit + 1)
        for bytes in [open, closed, justOver, open + [0xAA]] {
            let error = #expect(throws: LarderError.self) { try onSmallStack { try TupleKey(decoding: bytes) } }
            #expect(error?.code == .corruptValue)
        }
        // As deep as allowed: it decodes, encodes to the same bytes, compares and prints.
        let deepest = [UInt8](repeating: TupleTypeByte.nestedStart, count: limit) + [TupleTypeByte.true]
            + [UInt8](repeating: TupleTypeByte.nestedEnd, count: limit)
        let (bytes, equal, text) = try onSmallStack {
            let key = try TupleKey(decoding: deepest)
            return (key.bytes, key == (try TupleKey(decoding: deepest)), key.description)
        }
        #expect(bytes == deepest && equal)
        #expect(text.hasPrefix(String(repeating: "(", count: limit + 1) + "true)"))
    }

    // MARK: The command-line tool's JSON

    /// Runs `larder` with `arguments` as a process whose main thread may use 512 KiB of stack.
    static func larderOnSmallStack(_ arguments: [String], input: String? = nil) throws -> ProcessTestSupport.Run {
        try larderOnSmallStack(arguments, bytes: input.map { Array($0.utf8) })
    }

    /// The same, with `bytes` on standard input.
    static func larderOnSmallStack(_ arguments: [String], bytes: [UInt8]?) throws -> ProcessTestSupport.Run {
        let limited = ["-c", "ulimit -s \(smallStack / 1024) && exec \"$0\" \"$@\"", try CLI.executable()] + arguments
        return try ProcessTestSupport.run("/bin/sh", limited, input: bytes)
    }

    /// A store with one value in `people`.
    static func withToolStore(_ body: (String) throws -> Void) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        let db = try Database(path: path)
        try db.write { try $0.setObject(["name": "Ada"], forKey: "p1", inCollection: "people") }
        db.close()
        try body(path)
    }

    @Test func theToolRefusesDeepJSON() throws {
        try Self.withToolStore { path in
            let arrays = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
            let objects = String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)
            for deep in [arrays, objects, String(repeating: "[", count: 100_000)] {
                let put = try Self.larderOnSmallStack(["put", path, "deep", "k", "-"], input: deep)
                #expect(put.status == CLI.Status.badInput && put.standardError.contains("512"), "\(put.status) \(put.standardError.prefix(300))")
                let record = #"{"collection":"deep","key":"k","object":"# + deep + "}\n"
                let imported = try Self.larderOnSmallStack(["import", path, "-"], input: record)
                #expect(imported.status == CLI.Status.badInput && imported.standardError.contains("512"), "\(imported.status) \(imported.standardError.prefix(300))")
            }
            // An argument holds at most 128 KiB on Linux.
            let added = try Self.larderOnSmallStack(["migrate", path, "people", "--to", "1", "--add", "x=" + String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000)])
            #expect(added.status == CLI.Status.badInput && added.standardError.contains("512"), "\(added.status) \(added.standardError.prefix(300))")
            let db = try Database(path: path)
            defer { db.close() }
            #expect(try db.read { try $0.numberOfKeys(inCollection: "deep") } == 0)
            #expect(try db.storedVersions(inCollection: "people") == [0: 1])
        }
    }

    @Test func theToolReadsAndWritesJSONAtItsDepthLimitOnASmallStack() throws {
        try Self.withToolStore { path in
            let limit = 512
            let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
            let put = try Self.larderOnSmallStack(["put", path, "deep", "json"], input: deepest)
            #expect(put.status == CLI.Status.ok, "\(put.status) \(put.standardError)")
            let messagePack = try Self.larderOnSmallStack(["put", path, "deep", "bytes", "--format", "messagepack"], bytes: Self.nestedArrays(limit, empty: true))
            #expect(messagePack.status == CLI.Status.ok, "\(messagePack.status) \(messagePack.standardError)")
            for key in ["json", "bytes"] {
                let shown = try Self.larderOnSmallStack(["get", path, "deep", key])
                #expect(shown.status == CLI.Status.ok && shown.standardOutput == deepest + "\n", "\(shown.status) \(shown.standardError)")
            }
            let added = try Self.larderOnSmallStack(["migrate", path, "people", "--to", "1", "--add", "x=" + String(deepest.dropFirst().dropLast())])
            #expect(added.status == CLI.Status.ok, "\(added.status) \(added.standardError)")
            // Export, then import into a new store: the same bytes.
            let exported = try Self.larderOnSmallStack(["export", path])
            #expect(exported.status == CLI.Status.ok, "\(exported.status) \(exported.standardError)")
            let directory = TemporaryDirectory()
            let copy = directory.file("copy")
            let imported = try Self.larderOnSmallStack(["import", copy, "-", "--create"], input: exported.standardOutput)
            #expect(imported.status == CLI.Status.ok, "\(imported.status) \(imported.standardError)")
            let original = try Database(path: path)
            let restored = try Database(path: copy)
            defer {
                original.close()
                restored.close()
            }
            #expect(try CLI.storedBytes(original) == CLI.storedBytes(restored))
        }
    }
}
