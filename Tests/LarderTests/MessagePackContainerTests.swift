import Foundation
import Synchronization
import Testing
@testable import Larder
@testable import LarderMessagePack

/// How the coders behave when containers are used in unusual orders, and what
/// coding paths, user info and errors the values see.
@Suite("MessagePack containers")
struct MessagePackContainerTests {
    /// The fallback encoder on its own, to compare with the streaming encoder.
    static func treeEncode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try MessagePackTreeEncoder.encode(value, userInfo: [:], appendingTo: &bytes)
        return bytes
    }

    // MARK: Streaming vs fallback

    @Test func treeEncoderProducesTheSameBytesAsTheStreamingEncoder() throws {
        let company = MPTestCompany.make()
        #expect(try Self.treeEncode(company) == MPTest.encoder.encode(company))
        #expect(try Self.treeEncode(MPEverything.sample) == MPTest.encoder.encode(MPEverything.sample))
        #expect(try Self.treeEncode(MPDog(name: "a", breed: "b")) == MPTest.encoder.encode(MPDog(name: "a", breed: "b")))
        #expect(try Self.treeEncode(MPBird(name: "a", wingspan: 1)) == MPTest.encoder.encode(MPBird(name: "a", wingspan: 1)))
        #expect(try Self.treeEncode(MPCat(name: "a", indoor: true)) == MPTest.encoder.encode(MPCat(name: "a", indoor: true)))
        #expect(try Self.treeEncode(MPExplicitNils(number: nil, text: "t")) == MPTest.encoder.encode(MPExplicitNils(number: nil, text: "t")))
        let points = (0..<70).map { MPPoint(x: $0, y: 1) }
        #expect(try Self.treeEncode(points) == MPTest.encoder.encode(points))
        #expect(try Self.treeEncode(MPUnkeyedIntegers(.boundaries)) == MPTest.encoder.encode(MPUnkeyedIntegers(.boundaries)))
        #expect(try Self.treeEncode(5) == [0x05])
    }

    @Test func interleavedNestedContainers() throws {
        struct Interleaved: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                var first = container.nestedUnkeyedContainer(forKey: MPAnyKey("a"))
                var second = container.nestedUnkeyedContainer(forKey: MPAnyKey("b"))
                try first.encode(1)
                try second.encode(2)
                try first.encode(3)
                try second.encode(4)
                #expect(first.count == 2 && second.count == 2)
            }
        }
        // {"a": [1, 3], "b": [2, 4]}
        let expected = MPTest.bytes("82 a1 61 92 01 03 a1 62 92 02 04")
        #expect(try MPTest.encoder.encode(Interleaved()) == expected)
        #expect(try MPTest.encoder.encode([Interleaved(), Interleaved()]) == [0x92] + expected + expected)
    }

    @Test func writingToTheParentClosesANestedContainer() throws {
        struct Sequential: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                var nested = container.nestedContainer(keyedBy: MPAnyKey.self, forKey: MPAnyKey("n"))
                try nested.encode(1, forKey: MPAnyKey("x"))
                try container.encode(2, forKey: MPAnyKey("after"))
                var list = container.nestedUnkeyedContainer(forKey: MPAnyKey("l"))
                try list.encodeNil()
            }
        }
        // {"n": {"x": 1}, "after": 2, "l": [nil]}
        #expect(try MPTest.encoder.encode(Sequential()) == MPTest.bytes("83 a1 6e 81 a1 78 01 a5 61 66 74 65 72 02 a1 6c 91 c0"))
    }

    @Test func returningToAClosedNestedContainer() throws {
        struct Reopening: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                var nested = container.nestedContainer(keyedBy: MPAnyKey.self, forKey: MPAnyKey("n"))
                try nested.encode(1, forKey: MPAnyKey("x"))
                try container.encode(2, forKey: MPAnyKey("after"))
                try nested.encode(3, forKey: MPAnyKey("y"))
            }
        }
        // {"n": {"x": 1, "y": 3}, "after": 2}
        #expect(try MPTest.encoder.encode(Reopening()) == MPTest.bytes("82 a1 6e 82 a1 78 01 a1 79 03 a5 61 66 74 65 72 02"))
    }

    @Test func superEncoderUsedAfterItsSlotWasClosed() throws {
        struct LateSuper: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                let superEncoder = container.superEncoder()
                try container.encode(1, forKey: MPAnyKey("a"))
                var superContainer = superEncoder.container(keyedBy: MPAnyKey.self)
                try superContainer.encode(true, forKey: MPAnyKey("s"))
            }
        }
        // {"super": {"s": true}, "a": 1}
        #expect(try MPTest.encoder.encode(LateSuper()) == MPTest.bytes("82 a5 73 75 70 65 72 81 a1 73 c3 a1 61 01"))
    }

    @Test func unusedSuperEncoderBecomesAnEmptyMap() throws {
        struct UnusedSuper: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                _ = container.superEncoder()
                var list = container.nestedUnkeyedContainer(forKey: MPAnyKey("l"))
                _ = list.superEncoder()
                try list.encode(1)
            }
        }
        // {"super": {}, "l": [{}, 1]}
        #expect(try MPTest.encoder.encode(UnusedSuper()) == MPTest.bytes("82 a5 73 75 70 65 72 80 a1 6c 92 80 01"))
    }

    @Test func superEncoderWithSingleValueAndUnkeyedContent() throws {
        struct SuperShapes: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                var single = container.superEncoder(forKey: MPAnyKey("s")).singleValueContainer()
                try single.encode("v")
                var list = container.superEncoder(forKey: MPAnyKey("l")).unkeyedContainer()
                try list.encode(MPPoint(x: 1, y: 2))
                var fromList = encoder.container(keyedBy: MPAnyKey.self)
                try MPPoint(x: 3, y: 4).encode(to: fromList.superEncoder(forKey: MPAnyKey("p")))
            }
        }
        // {"s": "v", "l": [{"x": 1, "y": 2}], "p": {"x": 3, "y": 4}}
        let expected = MPTest.bytes("83 a1 73 a1 76 a1 6c 91 82 a1 78 01 a1 79 02 a1 70 82 a1 78 03 a1 79 04")
        #expect(try MPTest.encoder.encode(SuperShapes()) == expected)
        #expect(try Self.treeEncode(SuperShapes()) == expected)
    }

    @Test func singleValueContainerDelegatingToAnotherValue() throws {
        struct Wrapper<Inner: Codable & Equatable>: Codable, Equatable {
            var inner: Inner
            init(_ inner: Inner) { self.inner = inner }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(inner)
            }
            init(from decoder: any Decoder) throws {
                inner = try decoder.singleValueContainer().decode(Inner.self)
            }
        }
        let wrapped = Wrapper(Wrapper(MPPoint(x: 1, y: 2)))
        #expect(try MPTest.encoder.encode(wrapped) == MPTest.encoder.encode(MPPoint(x: 1, y: 2)))
        #expect(try MPTest.roundTrip(wrapped) == wrapped)
        #expect(try MPTest.roundTrip([Wrapper([1, 2]), Wrapper([])]) == [Wrapper([1, 2]), Wrapper([])])
    }

    // MARK: Misuse and errors

    @Test func requestingTwoKindsOfContainerThrows() {
        struct Confused: Encodable {
            func encode(to encoder: any Encoder) throws {
                var keyed = encoder.container(keyedBy: MPAnyKey.self)
                try keyed.encode(1, forKey: MPAnyKey("a"))
                var unkeyed = encoder.unkeyedContainer()
                try unkeyed.encode(2)
            }
        }
        #expect(throws: EncodingError.self) { try MPTest.encoder.encode(Confused()) }
    }

    @Test func encodingTwoSingleValuesThrows() {
        struct Twice: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(1)
                try container.encode(2)
            }
        }
        #expect(throws: EncodingError.self) { try MPTest.encoder.encode(Twice()) }
        #expect(throws: EncodingError.self) { try MPTest.encoder.encode(["k": Twice()]) }
    }

    struct MPBoom: Error, Equatable { var code: Int }

    struct Throwing: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: MPAnyKey.self)
            try container.encode(1, forKey: MPAnyKey("partial"))
            throw MPBoom(code: 42)
        }
    }

    @Test func aThrowingValueIsEncodedOnlyOnce() throws {
        final class Counter: Sendable {
            let calls = Mutex(0)
        }
        struct Counted: Encodable {
            let counter: Counter
            func encode(to encoder: any Encoder) throws {
                counter.calls.withLock { $0 += 1 }
                var container = encoder.container(keyedBy: MPAnyKey.self)
                try container.encode(Throwing(), forKey: MPAnyKey("t"))
            }
        }
        let counter = Counter()
        #expect(throws: MPBoom(code: 42)) { try MPTest.encoder.encode([Counted(counter: counter)]) }
        #expect(counter.calls.withLock { $0 } == 1)
    }

    @Test func errorsFromValuesPropagateUnchanged() throws {
        #expect(throws: MPBoom(code: 42)) { try MPTest.encoder.encode(Throwing()) }
        #expect(throws: MPBoom(code: 42)) { try MPTest.encoder.encode([["x": [Throwing()]]]) }
        var buffer: [UInt8] = [9, 9]
        try MPTest.encoder.encode([MPPoint(x: 1, y: 1)], into: &buffer)
        #expect(throws: MPBoom(code: 42)) { try MPTest.encoder.encode(Throwing(), into: &buffer) }
        #expect(throws: MPBoom(code: 42)) { try MPTest.encoder.encode(["x": [Throwing()]], into: &buffer) }
        // A failed call leaves the buffer exactly as it was before it.
        #expect(buffer == MPTest.bytes("09 09 91 82 a1 78 01 a1 79 01"))
    }

    @Test func swallowedErrorsStillProduceValidOutput() throws {
        struct Forgiving: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                try? container.encode(Throwing(), forKey: MPAnyKey("bad"))
                try container.encode(1, forKey: MPAnyKey("good"))
            }
        }
        let bytes = try MPTest.encoder.encode(Forgiving())
        // The failed value keeps what it wrote before throwing, like JSONEncoder.
        #expect(bytes == MPTest.bytes("82 a3 62 61 64 81 a7 70 61 72 74 69 61 6c 01 a4 67 6f 6f 64 01"))
        let decoded = try MPTest.decoder.decode([String: MPAny].self, from: bytes)
        #expect(decoded["good"] == .int(1))
    }

    @Test func unrepresentableDatesThrowWithTheirPath() {
        struct Event: Encodable { var name = "x"; var when: Date }
        for interval in [Double.nan, .infinity, -.infinity, 1e300] {
            do {
                _ = try MPTest.encoder.encode([Event(when: Date(timeIntervalSinceReferenceDate: interval))])
                Issue.record("encoding \(interval) should fail")
            } catch EncodingError.invalidValue(_, let context) {
                #expect(MPTest.pathStrings(context.codingPath) == ["Index 0", "when"])
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    // MARK: Coding paths and user info

    @Test func codingPathsSeenByValues() throws {
        struct Holder: Codable {
            var list: [MPPathProbe]
            var map: [String: MPPathProbe]
            var single: MPPathProbe

            enum CodingKeys: String, CodingKey { case list, map, single, outer }
            enum InnerKeys: String, CodingKey { case inner }

            init(list: [MPPathProbe], map: [String: MPPathProbe], single: MPPathProbe) {
                self.list = list
                self.map = map
                self.single = single
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(list, forKey: .list)
                try container.encode(map, forKey: .map)
                var outer = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .outer)
                try outer.encode(single, forKey: .inner)
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                list = try container.decode([MPPathProbe].self, forKey: .list)
                map = try container.decode([String: MPPathProbe].self, forKey: .map)
                let outer = try container.nestedContainer(keyedBy: InnerKeys.self, forKey: .outer)
                single = try outer.decode(MPPathProbe.self, forKey: .inner)
            }
        }
        let holder = Holder(list: [MPPathProbe(id: 1), MPPathProbe(id: 2)], map: ["k": MPPathProbe(id: 3)], single: MPPathProbe(id: 4))
        let expected = [["list", "Index 0"], ["list", "Index 1"], ["map", "k"], ["outer", "inner"]]

        let encodeLog = MPPathProbe.Log()
        var encoder = MessagePackEncoder()
        encoder.userInfo[MPPathProbe.logKey] = encodeLog
        let bytes = try encoder.encode(holder)
        #expect(encodeLog.all == expected)

        let decodeLog = MPPathProbe.Log()
        var decoder = MessagePackDecoder()
        decoder.userInfo[MPPathProbe.logKey] = decodeLog
        let decoded = try decoder.decode(Holder.self, from: bytes)
        #expect(decodeLog.all == expected)
        #expect(decoded.single.id == 4 && decoded.list.map(\.id) == [1, 2] && decoded.map["k"]?.id == 3)

        // The fallback encoder reports the same paths.
        let treeLog = MPPathProbe.Log()
        var treeBytes: [UInt8] = []
        try MessagePackTreeEncoder.encode(holder, userInfo: [MPPathProbe.logKey: treeLog], appendingTo: &treeBytes)
        #expect(treeLog.all == expected)
        #expect(treeBytes == bytes)
    }

    @Test func containerCodingPaths() throws {
        struct Paths: Encodable {
            let log: MPPathProbe.Log
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                log.record(container.codingPath)
                var nested = container.nestedContainer(keyedBy: MPAnyKey.self, forKey: MPAnyKey("a"))
                log.record(nested.codingPath)
                var list = nested.nestedUnkeyedContainer(forKey: MPAnyKey("b"))
                log.record(list.codingPath)
                let deeper = list.nestedContainer(keyedBy: MPAnyKey.self)
                log.record(deeper.codingPath)
                try nested.encode(1, forKey: MPAnyKey("c"))
                log.record(nested.codingPath)
                let superEncoder = container.superEncoder()
                log.record(superEncoder.codingPath)
                log.record(container.codingPath)
            }
        }
        let expected = [["Index 0"], ["Index 0", "a"], ["Index 0", "a", "b"], ["Index 0", "a", "b", "Index 0"],
                        ["Index 0", "a"], ["Index 0", "super"], ["Index 0"]]
        let log = MPPathProbe.Log()
        let bytes = try MPTest.encoder.encode([Paths(log: log)])
        #expect(log.all == expected)
        let treeLog = MPPathProbe.Log()
        #expect(try Self.treeEncode([Paths(log: treeLog)]) == bytes)
        #expect(treeLog.all == expected)
    }

    @Test func userInfoReachesValues() throws {
        struct Echo: Codable, Equatable {
            static let key = CodingUserInfoKey(rawValue: "MPEcho")!
            var text: String
            init(text: String) { self.text = text }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode((encoder.userInfo[Self.key] as? String) ?? "missing")
            }
            init(from decoder: any Decoder) throws {
                let stored = try decoder.singleValueContainer().decode(String.self)
                text = stored + ((decoder.userInfo[Self.key] as? String) ?? "missing")
            }
        }
        var encoder = MessagePackEncoder()
        encoder.userInfo[Echo.key] = "enc"
        var decoder = MessagePackDecoder()
        decoder.userInfo[Echo.key] = "+dec"
        let bytes = try encoder.encode(["a": [Echo(text: "")]])
        #expect(try decoder.decode([String: [Echo]].self, from: bytes) == ["a": [Echo(text: "enc+dec")]])
    }

    // MARK: Decoding containers

    @Test func keyedDecodingContainerQueries() throws {
        struct Probe: Decodable {
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: MPAnyKey.self)
                #expect(Set(container.allKeys.map(\.stringValue)) == ["a", "n", "list", "super"])
                #expect(container.contains(MPAnyKey("a")))
                #expect(!container.contains(MPAnyKey("zzz")))
                #expect(try container.decodeNil(forKey: MPAnyKey("n")))
                #expect(try !container.decodeNil(forKey: MPAnyKey("a")))
                #expect(try container.decodeIfPresent(Int.self, forKey: MPAnyKey("n")) == nil)
                #expect(try container.decodeIfPresent(Int.self, forKey: MPAnyKey("zzz")) == nil)
                #expect(try container.decodeIfPresent(Int.self, forKey: MPAnyKey("a")) == 1)
                #expect(try container.decodeIfPresent(MPPoint.self, forKey: MPAnyKey("n")) == nil)
                #expect(throws: DecodingError.self) { try container.decodeIfPresent(String.self, forKey: MPAnyKey("a")) }
                #expect(throws: DecodingError.self) { try container.decodeNil(forKey: MPAnyKey("zzz")) }
                // Out-of-order lookups work too.
                var list = try container.nestedUnkeyedContainer(forKey: MPAnyKey("list"))
                #expect(list.count == 3)
                #expect(try !list.decodeNil()) // not nil: does not advance
                #expect(try list.decode(Int.self) == 7)
                #expect(try list.decodeNil())
                let nested = try list.nestedContainer(keyedBy: MPAnyKey.self)
                #expect(try nested.decode(Int.self, forKey: MPAnyKey("x")) == 1)
                #expect(list.isAtEnd && list.currentIndex == 3)
                #expect(throws: DecodingError.self) { try list.decode(Int.self) }
                #expect(try container.decode(Int.self, forKey: MPAnyKey("a")) == 1)
                let superDecoder = try container.superDecoder()
                #expect(try superDecoder.singleValueContainer().decode(String.self) == "s")
                #expect(MPTest.pathStrings(superDecoder.codingPath) == ["super"])
            }
        }
        struct Source: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: MPAnyKey.self)
                try container.encode(1, forKey: MPAnyKey("a"))
                try container.encodeNil(forKey: MPAnyKey("n"))
                var list = container.nestedUnkeyedContainer(forKey: MPAnyKey("list"))
                try list.encode(7)
                try list.encodeNil()
                try list.encode(MPPoint(x: 1, y: 2))
                var single = container.superEncoder().singleValueContainer()
                try single.encode("s")
            }
        }
        _ = try MPTest.decoder.decode(Probe.self, from: MPTest.encoder.encode(Source()))
    }

    @Test func decodingTheSameKeyedValueTwice() throws {
        // Subclass and superclass both read from one decoder; lookups must not consume entries.
        let cat = MPCat(name: "Tom", indoor: false)
        let decoded = try MPTest.decoder.decode(MPCat.self, from: MPTest.encoder.encode(cat))
        #expect(decoded.name == "Tom" && decoded.indoor == false)
    }

    @Test func mapsWrittenByOtherEncodersWithIntegerKeys() throws {
        // {1: "a", -2: "b", 300: "c"} as Python writes it.
        let bytes = MPTest.bytes("83 01 a1 61 fe a1 62 cd 01 2c a1 63")
        #expect(try MPTest.decoder.decode([Int: String].self, from: bytes) == [1: "a", -2: "b", 300: "c"])
        #expect(try MPTest.decoder.decode([String: String].self, from: bytes) == ["1": "a", "-2": "b", "300": "c"])
        struct Numbered: Decodable, Equatable {
            var one: String
            enum CodingKeys: String, CodingKey { case one = "1" }
        }
        #expect(try MPTest.decoder.decode(Numbered.self, from: bytes) == Numbered(one: "a"))
    }

    @Test func decodersAndContainersSmuggledOutCannotReadTheFreedBuffer() throws {
        struct Smuggler: Decodable {
            let decoder: any Decoder
            let keyed: KeyedDecodingContainer<MPAnyKey>
            let single: any SingleValueDecodingContainer
            let superDecoder: any Decoder
            init(from decoder: any Decoder) throws {
                self.decoder = decoder
                keyed = try decoder.container(keyedBy: MPAnyKey.self)
                single = try decoder.singleValueContainer()
                superDecoder = try keyed.superDecoder()
                // While decoding, everything works.
                #expect(try keyed.decode(Int.self, forKey: MPAnyKey("x")) == 1)
            }
        }
        let bytes = MPTest.bytes("82 a1 78 01 a5 73 75 70 65 72 92 01 02")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
        let smuggler = try MPTest.decoder.decode(Smuggler.self, from: UnsafeRawBufferPointer(buffer))
        buffer.deallocate()
        // The decoder forgot the buffer when decode returned: every read now fails cleanly.
        #expect(throws: DecodingError.self) { try smuggler.decoder.container(keyedBy: MPAnyKey.self) }
        #expect(throws: DecodingError.self) { try smuggler.keyed.decode(Int.self, forKey: MPAnyKey("x")) }
        #expect(smuggler.keyed.allKeys.isEmpty)
        #expect(throws: DecodingError.self) { try smuggler.single.decode(Int.self) }
        #expect(throws: DecodingError.self) { try smuggler.superDecoder.unkeyedContainer() }
        #expect(throws: DecodingError.self) { try smuggler.decoder.singleValueContainer().decode(MPPoint.self) }
    }

    @Test func concurrentUseFromManyTasks() async throws {
        let encoder = MessagePackEncoder()
        let decoder = MessagePackDecoder()
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    var person = MPPerson.ada
                    person.age = index
                    person.tags = (0..<index).map(String.init)
                    let company = MPTestCompany.make()
                    let decodedPerson = try decoder.decode(MPPerson.self, from: encoder.encode(person))
                    let decodedCompany = try decoder.decode(MPCompany.self, from: encoder.encode(company))
                    return decodedPerson == person && decodedCompany == company
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
    }

    @Test func superDecoderOfUnkeyedContainer() throws {
        struct Pair: Codable, Equatable {
            var point: MPPoint
            var label: String
            init(point: MPPoint, label: String) { self.point = point; self.label = label }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try point.encode(to: container.superEncoder())
                try container.encode(label)
            }
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                point = try MPPoint(from: container.superDecoder())
                label = try container.decode(String.self)
            }
        }
        let pair = Pair(point: MPPoint(x: 5, y: 6), label: "p")
        #expect(try MPTest.encoder.encode(pair) == MPTest.bytes("92 82 a1 78 05 a1 79 06 a1 70"))
        #expect(try MPTest.roundTrip(pair) == pair)
    }
}
