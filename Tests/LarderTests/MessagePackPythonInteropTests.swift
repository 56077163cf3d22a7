import Foundation
import Testing
@testable import Larder

/// Checks the bytes against an independent implementation: Python's `msgpack`
/// package (`pip install msgpack`). These tests fail, never skip, when Python
/// or the package is missing.
@Suite("MessagePack Python interop")
struct MessagePackPythonInteropTests {
    static let installHint = "The MessagePack interop tests need python3 with the msgpack module: run `pip install msgpack`."

    struct PythonRun {
        var status: Int32
        var output: String
    }

    /// Runs `python3 -c script arguments...` and returns its exit status and combined output.
    static func runPython(_ script: String, _ arguments: [String]) throws -> PythonRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return PythonRun(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
    }

    /// Records a failure (with the install hint) unless python3 can import msgpack.
    static func requireMsgpack() throws -> Bool {
        let probe: PythonRun
        do {
            probe = try runPython("import msgpack; print(msgpack.version)", [])
        } catch {
            Issue.record("Could not start /usr/bin/env python3 (\(error)). \(installHint)")
            return false
        }
        guard probe.status == 0 else {
            Issue.record("python3 could not import msgpack (exit \(probe.status)): \(probe.output) \(installHint)")
            return false
        }
        return true
    }

    static func temporaryFile(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("larder-msgpack-\(name)-\(UUID().uuidString).bin")
    }

    // MARK: Swift -> Python

    struct Inner: Codable, Equatable {
        var label: String
        var weights: [Double]
    }

    struct Record: Encodable {
        var tiny = 7
        var byte: UInt8 = 200
        var short: Int16 = -300
        var word: UInt32 = 70_000
        var wide: Int64 = 5_000_000_000
        var huge = UInt64.max
        var negative = -33
        var minimum = Int64.min
        var ratio = 3.25
        var single: Float = 1.5
        var flag = true
        var nothing: Int? = nil
        var name = "Grüße, 世界 🌍"
        var long = String(repeating: "ab", count: 200)
        var blob = Data([0, 1, 2, 255])
        var emptyBlob = Data()
        var list = [1, -1, 1_000, -100_000]
        var mixed: [Inner?] = [Inner(label: "a", weights: [0.5, -2]), nil]
        var nested = ["outer": ["inner": 1, "other": -2]]
        var numbered = [10: "ten", -1: "minus one"]
        var when = Date(timeIntervalSince1970: 1_700_000_000.5)
        var before1970 = Date(timeIntervalSince1970: -1_000_000.25)
        var far = Date(timeIntervalSince1970: 20_000_000_000)
        var id = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        var many = (0..<20).map { $0 }
        var color = MPColor.blue

        enum CodingKeys: String, CodingKey {
            case tiny, byte, short, word, wide, huge, negative, minimum, ratio, single, flag, nothing, name, long
            case blob, emptyBlob, list, mixed, nested, numbered, when, before1970, far, id, many, color
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(tiny, forKey: .tiny)
            try container.encode(byte, forKey: .byte)
            try container.encode(short, forKey: .short)
            try container.encode(word, forKey: .word)
            try container.encode(wide, forKey: .wide)
            try container.encode(huge, forKey: .huge)
            try container.encode(negative, forKey: .negative)
            try container.encode(minimum, forKey: .minimum)
            try container.encode(ratio, forKey: .ratio)
            try container.encode(single, forKey: .single)
            try container.encode(flag, forKey: .flag)
            try container.encodeNil(forKey: .nothing)
            try container.encode(name, forKey: .name)
            try container.encode(long, forKey: .long)
            try container.encode(blob, forKey: .blob)
            try container.encode(emptyBlob, forKey: .emptyBlob)
            try container.encode(list, forKey: .list)
            try container.encode(mixed, forKey: .mixed)
            try container.encode(nested, forKey: .nested)
            try container.encode(numbered, forKey: .numbered)
            try container.encode(when, forKey: .when)
            try container.encode(before1970, forKey: .before1970)
            try container.encode(far, forKey: .far)
            try container.encode(id, forKey: .id)
            try container.encode(many, forKey: .many)
            try container.encode(color, forKey: .color)
        }
    }

    static let checkSwiftBytes = #"""
import sys, datetime, msgpack
data = open(sys.argv[1], "rb").read()
obj = msgpack.unpackb(data, raw=False, timestamp=3)
utc = datetime.timezone.utc
expected = {
    "tiny": 7, "byte": 200, "short": -300, "word": 70000, "wide": 5000000000,
    "huge": 18446744073709551615, "negative": -33, "minimum": -9223372036854775808,
    "ratio": 3.25, "single": 1.5, "flag": True, "nothing": None,
    "name": "Grüße, 世界 🌍", "long": "ab" * 200,
    "blob": b"\x00\x01\x02\xff", "emptyBlob": b"",
    "list": [1, -1, 1000, -100000],
    "mixed": [{"label": "a", "weights": [0.5, -2.0]}, None],
    "nested": {"outer": {"inner": 1, "other": -2}},
    "numbered": {"10": "ten", "-1": "minus one"},
    "when": datetime.datetime(2023, 11, 14, 22, 13, 20, 500000, tzinfo=utc),
    "before1970": datetime.datetime(1969, 12, 20, 10, 13, 19, 750000, tzinfo=utc),
    "far": datetime.datetime(2603, 10, 11, 11, 33, 20, tzinfo=utc),
    "id": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
    "many": list(range(20)),
    "color": "blue",
}
problems = []
if list(obj.keys()) != list(expected.keys()):
    problems.append("key order %r" % (list(obj.keys()),))
for key, want in expected.items():
    got = obj.get(key, "<missing>")
    if got != want or type(got) is not type(want):
        problems.append("%s: got %r (%s), want %r (%s)" % (key, got, type(got).__name__, want, type(want).__name__))
# Smallest representations, checked on the raw bytes of a few fields.
def packed(value):
    return msgpack.packb(value, use_bin_type=True)
for fragment, label in [(packed("tiny") + b"\x07", "tiny as fixint"),
                        (packed("byte") + b"\xcc\xc8", "byte as uint8"),
                        (packed("short") + b"\xd1\xfe\xd4", "short as int16"),
                        (packed("single") + b"\xca\x3f\xc0\x00\x00", "single as float32"),
                        (packed("when") + b"\xd7\xff", "when as timestamp64"),
                        (packed("before1970") + b"\xc7\x0c\xff", "before1970 as timestamp96"),
                        (packed("many") + b"\xdc\x00\x14", "many as array16")]:
    if fragment not in data:
        problems.append("missing encoding: " + label)
if problems:
    print("\n".join(problems))
    sys.exit(1)
"""#

    @Test func pythonReadsWhatSwiftWrites() throws {
        guard try Self.requireMsgpack() else { return }
        let file = Self.temporaryFile("swift-to-python")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(MPTest.encoder.encode(Record())).write(to: file)
        let run = try Self.runPython(Self.checkSwiftBytes, [file.path])
        #expect(run.status == 0, "Python found mismatches:\n\(run.output)")
    }

    // MARK: Python -> Swift

    struct FromPython: Decodable, Equatable {
        var id: Int64
        var negative: Int8
        var huge: UInt64
        var ratio: Double
        var narrow: Float
        var whole: Double
        var flag: Bool
        var name: String
        var raw: Data
        var when: Date
        var exact: Date
        var old: Date
        var counts: [Int: String]
        var items: [Int]
        var people: [Inner]
        var maybe: String?
        var absentIsFine: Int?
        var nested: [String: [String: Int]]
    }

    static let packForSwift = #"""
import sys, msgpack
obj = {
    "id": 12345678901, "negative": -5, "huge": 2**64 - 1,
    "ratio": 0.1, "narrow": 1.5, "whole": 3,
    "flag": False, "name": "héllo wörld", "raw": b"\x00\xff\x10",
    "when": msgpack.Timestamp(1700000000, 250000000),
    "exact": msgpack.Timestamp(1, 0),
    "old": msgpack.Timestamp(-86400, 500000000),
    "counts": {1: "one", 2: "two", -3: "minus three", 300: "many"},
    "items": [1, 2, 65536, -1],
    "people": [{"label": "x", "weights": [1.0, 2.5]}, {"weights": [], "label": ""}],
    "maybe": None,
    "nested": {"a": {"b": 1}},
}
with open(sys.argv[1], "wb") as f:
    f.write(msgpack.packb(obj, use_bin_type=True))
"""#

    @Test func swiftReadsWhatPythonWrites() throws {
        guard try Self.requireMsgpack() else { return }
        let file = Self.temporaryFile("python-to-swift")
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try Self.runPython(Self.packForSwift, [file.path])
        try #require(run.status == 0, "Python failed to pack: \(run.output)")
        let bytes = [UInt8](try Data(contentsOf: file))
        let decoded = try MPTest.decoder.decode(FromPython.self, from: bytes)
        let expected = FromPython(
            id: 12_345_678_901, negative: -5, huge: .max, ratio: 0.1, narrow: 1.5, whole: 3, flag: false,
            name: "héllo wörld", raw: Data([0x00, 0xff, 0x10]),
            when: Date(timeIntervalSince1970: 1_700_000_000.25), exact: Date(timeIntervalSince1970: 1),
            old: Date(timeIntervalSince1970: -86_399.5),
            counts: [1: "one", 2: "two", -3: "minus three", 300: "many"], items: [1, 2, 65_536, -1],
            people: [Inner(label: "x", weights: [1, 2.5]), Inner(label: "", weights: [])],
            maybe: nil, absentIsFine: nil, nested: ["a": ["b": 1]])
        #expect(decoded == expected)
        // Python chose timestamp64 for "when" and timestamp96 for "old"; both decode exactly.
        #expect(decoded.when.timeIntervalSince1970 == 1_700_000_000.25)
        #expect(decoded.old.timeIntervalSince1970 == -86_399.5)
    }
}
