// larder-fuzz: libFuzzer targets for the decoders that read bytes from disk or from other
// programs. Built two ways:
//
//   swift build -c debug --product larder-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
//       -Xswiftc -use-ld=lld --scratch-path .build-fuzz
//   .build-fuzz/debug/larder-fuzz Fuzz/work Fuzz/corpus -max_total_time=600
//
// (Debian's gold linker crashes on the sanitizer build: lld links it.)
//
// (libFuzzer provides `main` and calls `LLVMFuzzerTestOneInput`), or normally, as a replayer that
// runs every file of the seed corpus through the same targets (`larder-fuzz <files or dirs>`), which
// the tests do to keep the corpus passing.
//
// The first byte of an input picks the target; the rest is the input. Every target must return
// (an error is fine) and never crash, hang, or trip a sanitizer.

import Foundation
import Larder
import LarderMessagePack

/// Values the MessagePack decoder is asked to produce from arbitrary bytes.
struct FuzzRecord: Codable {
    var id: Int
    var name: String?
    var tags: [String]
    var scores: [String: Double]
    var nested: [FuzzRecord]?
    var data: Data?
    var date: Date?
    var flag: Bool?
    var small: Int8?
    var unsigned: UInt64?
}

enum FuzzTarget: UInt8, CaseIterable {
    case messagePack = 0
    case tupleKey = 1
    case changeLog = 2
    case treeNode = 3
    case extensionRecord = 4
    case framedValue = 5
    case fullTextQuery = 6
    case fullTextDocument = 7
    case spatialNode = 8
    case relationshipEdge = 9
    case replicatedCommit = 10

    var name: String { String(describing: self) }

    func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .messagePack:
            let decoder = MessagePackDecoder()
            _ = try? decoder.decode(FuzzRecord.self, from: bytes)
            _ = try? decoder.decode([Int].self, from: bytes)
            _ = try? decoder.decode([String: [Double]].self, from: bytes)
            _ = try? decoder.decode(String.self, from: bytes)
            _ = try? decoder.decode(Data.self, from: bytes)
            _ = try? decoder.decode(Date.self, from: bytes)
            if let record = try? decoder.decode(FuzzRecord.self, from: bytes) {
                // What decodes must encode and decode again to the same shape.
                if let again = try? MessagePackEncoder().encode(record) {
                    _ = again.withUnsafeBytes { try? decoder.decode(FuzzRecord.self, from: $0) }
                }
            }
            // A top-level map is validated in the walk that indexes it: it must report exactly
            // what the separate validation pass reports (or nothing when that pass finds none).
            let expected = FuzzChecks.validationPassMessage(bytes)
            for outcome in [FuzzChecks.corruption { try decoder.decode(FuzzRecord.self, from: bytes) },
                            FuzzChecks.corruption { try decoder.decode([String: [Double]].self, from: bytes) }] {
                if let expected {
                    precondition(outcome == expected, "the decoder reports \(outcome ?? "no error") where the validation pass reports \(expected)")
                } else {
                    precondition(outcome.map { !$0.contains("after the top-level") && !$0.contains("Unexpected end") } ?? true,
                                 "the decoder reports \(outcome ?? "") where the validation pass finds the input well-formed")
                }
            }
            // The same bytes through the value tree the `larder` tool reads: what reads must
            // write back in the smallest layouts, and those bytes must read and write unchanged.
            if let value = try? MessagePackValue(reading: bytes) {
                let canonical = value.encoded()
                let reread = try? MessagePackValue(reading: canonical)
                precondition(reread?.encoded() == canonical, "a MessagePack value tree does not read back what it wrote")
            }
        case .tupleKey:
            if let key = try? TupleKey(decoding: bytes) {
                precondition(key.bytes.elementsEqual(bytes), "a decoded tuple key does not re-encode to its bytes")
            }
        case .changeLog:
            try? DecoderEntryPoints.changeLogEntry(bytes)
            try? DecoderEntryPoints.historyRecord(bytes)
        case .treeNode:
            try? DecoderEntryPoints.treeNode(bytes)
        case .extensionRecord:
            try? DecoderEntryPoints.extensionRecord(bytes)
            try? DecoderEntryPoints.undoStep(bytes)
        case .framedValue:
            _ = try? DecoderEntryPoints.framedValue(bytes, as: FuzzRecord.self)
            _ = try? DecoderEntryPoints.framedValue(bytes, as: [String: Int].self)
        case .fullTextQuery:
            // A search box is user input: parsed, planned and run against a small index, it
            // must give results or `invalidQuery`, never a crash.
            let text = String(decoding: bytes, as: UTF8.self)
            FuzzSearchStore.shared.run(text)
        case .fullTextDocument:
            try? DecoderEntryPoints.fullTextDocument(bytes)
        case .spatialNode:
            try? DecoderEntryPoints.spatialNode(bytes)
        case .relationshipEdge:
            try? DecoderEntryPoints.relationshipEdge(bytes)
        case .replicatedCommit:
            try? DecoderEntryPoints.replicatedCommit(bytes)
        }
    }
}

/// A store with a full-text search over a few notes, made once per process, that the query
/// target searches.
final class FuzzSearchStore: Sendable {
    struct Note: Codable, Sendable {
        var title: String
        var body: String
    }

    static let shared = FuzzSearchStore()

    let database: Database
    let search: FullTextSearchHandle<Note, NoMetadata>

    init() {
        let path = FileManager.default.temporaryDirectory.path + "/larder-fuzz-search-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: path)
        do {
            database = try Database(path: path)
            search = try database.register(
                FullTextSearch<Note, NoMetadata>(collections: ["notes"], versionTag: "1", columnNames: ["title", "body"]) { _, note in [note.title, note.body] },
                named: "search")
            let texts = ["swift lmdb store", "the quick brown fox jumps", "café naïve résumé 東京 emoji 🦊", "a b c d e f g", "swift swift swift"]
            try database.write { txn in
                for (number, text) in texts.enumerated() {
                    try txn.setObject(Note(title: text, body: texts.reversed()[number] + " " + text), forKey: "n\(number)", inCollection: "notes")
                }
            }
        } catch {
            fatalError("the fuzzing store could not be made: \(error)")
        }
    }

    func run(_ text: String) {
        try? database.read { txn in
            let reader = try txn[search]
            _ = try? reader.search(text)
            _ = try? reader.search(text, limit: 2, offset: 1)
            _ = try? reader.count(matching: text)
        }
    }
}

/// Differential checks of the MessagePack decoder against the reader's validation pass.
enum FuzzChecks {
    /// The message of the separate validation pass over `bytes` (then the trailing-bytes check),
    /// as the decoder reported it before a top-level map was validated while being indexed.
    static func validationPassMessage(_ bytes: UnsafeRawBufferPointer) -> String? {
        var spans: [MessagePackContainerSpan]? = nil
        do throws(MessagePackReadError) {
            let end = try MessagePackReader(bytes: bytes).validateValue(at: 0, spans: &spans)
            guard end == bytes.count else {
                return "Found \(bytes.count - end) unexpected bytes after the top-level MessagePack value, which ends at offset \(end)."
            }
            return nil
        } catch {
            return error.message
        }
    }

    /// The description of the top-level `dataCorrupted` error `body` throws, if that is what it throws.
    static func corruption(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            return context.debugDescription
        } catch {
            return nil
        }
    }
}

/// The target named by `LARDER_FUZZ_TARGET` (e.g. `tupleKey`), which then gets whole inputs.
let fixedTarget: FuzzTarget? = ProcessInfo.processInfo.environment["LARDER_FUZZ_TARGET"].flatMap { name in
    FuzzTarget.allCases.first { $0.name == name }
}

/// Runs the target the first byte names on the rest (or the fixed target on all of it).
func fuzzOne(_ input: UnsafeRawBufferPointer) {
    if let fixedTarget {
        fixedTarget.run(input)
        return
    }
    guard let selector = input.first else { return }
    let target = FuzzTarget(rawValue: selector % UInt8(FuzzTarget.allCases.count))!
    target.run(UnsafeRawBufferPointer(rebasing: input.dropFirst()))
}

#if FUZZING
/// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The function libFuzzer calls with each input.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzOne(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// The entry point: SwiftPM links an executable's `main` to `<target>_main`, so hand the process
/// to libFuzzer's driver from here.
@_cdecl("larder_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzerTestOneInput)
}
#else
@main
enum Replayer {
    static func main() {
        var files: [String] = []
        for argument in CommandLine.arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("larder-fuzz: no such file \(argument)\n".utf8))
                exit(2)
            }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                files += names.sorted().map { argument + "/" + $0 }
            } else {
                files.append(argument)
            }
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            data.withUnsafeBytes { fuzzOne($0) }
        }
        print("replayed \(files.count) inputs")
    }
}
#endif
