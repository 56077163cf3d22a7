import Foundation
import LarderMessagePack
import Synchronization
import Testing
@testable import Larder

/// Values that nest deep: what the encoder writes the decoder reads, deeper ones are refused on
/// write with `valueTooDeep` (never a crash, never a value stored that cannot be read back), and
/// an extension never skips a previous value it could not decode for its depth.
@Suite("Deep values")
struct DeepValueTests {
    struct Tree: Codable, Sendable, Equatable {
        var name: String
        var kids: [Tree]

        /// A chain `levels` deep: each tree holds one kid, the last none.
        static func chain(_ levels: Int) -> Tree {
            var tree = Tree(name: "leaf", kids: [])
            for level in 1..<max(1, levels) { tree = Tree(name: "t\(level)", kids: [tree]) }
            return tree
        }
    }

    indirect enum Nest: Codable, Equatable {
        case leaf
        case node(Nest)

        static func chain(_ levels: Int) -> Nest {
            var nest = Nest.leaf
            for _ in 0..<levels { nest = .node(nest) }
            return nest
        }
    }

    /// Every depth the encoder takes, the decoder reads; past the deepest, the encoder throws a
    /// nesting limit (the old encoder wrote trees of 300 levels that nothing could read back).
    @Test func whatTheEncoderWritesTheDecoderReads() throws {
        var deepestWritten = 0
        for levels in stride(from: 240, through: 270, by: 1) {
            let tree = Tree.chain(levels)
            do {
                let bytes = try MessagePackEncoder().encode(tree)
                #expect(try MessagePackDecoder().decode(Tree.self, from: bytes) == tree, "\(levels) levels")
                #expect(try MessagePackValue(reading: bytes).encoded() == bytes, "\(levels) levels")
                deepestWritten = levels
            } catch {
                #expect(MessagePackNestingLimit.find(in: error)?.kind == .depth, "\(levels) levels: \(error)")
            }
        }
        #expect(deepestWritten >= 250 && deepestWritten < 270, "deepest written: \(deepestWritten)")
        for levels in [100, 300, 400, 600] {
            let nest = Nest.chain(levels)
            if let bytes = try? MessagePackEncoder().encode(nest) {
                #expect(try MessagePackDecoder().decode(Nest.self, from: bytes) == nest, "\(levels) levels")
            } else {
                #expect(levels >= 300)
            }
        }
    }

    /// Ten thousand levels: an error, not a stack overflow (the old encoder crashed).
    @Test func tenThousandLevelsAreAnErrorNotACrash() throws {
        let tree = Tree.chain(10_000)
        #expect { _ = try MessagePackEncoder().encode(tree) } throws: { error in MessagePackNestingLimit.find(in: error)?.kind == .depth }
        let nest = Nest.chain(10_000)
        #expect { _ = try MessagePackEncoder().encode(nest) } throws: { error in MessagePackNestingLimit.isNestingLimit(error) }
        try withStore { db, _ in
            let error = #expect(throws: LarderError.self) { try db.write { try $0.setObject(tree, forKey: "t", inCollection: "trees") } }
            #expect(error?.code == .valueTooDeep)
            #expect(error?.index == YapDB.Index(collection: "trees", key: "t"))
            let count = try db.read { try $0.numberOfKeys(inCollection: "trees") }
            #expect(count == 0)
        }
    }

    @Test func aValueTooDeepToReadBackIsNotStored() throws {
        try withStore { db, _ in
            let error = #expect(throws: LarderError.self) { try db.write { try $0.setObject(Tree.chain(300), forKey: "t", inCollection: "trees") } }
            #expect(error?.code == .valueTooDeep)
            // A legal one is stored and reads back through another connection (not the cache).
            let tree = Tree.chain(200)
            try db.write { try $0.setObject(tree, forKey: "t", inCollection: "trees") }
            #expect(try db.newConnection().read { try $0.object(forKey: "t", inCollection: "trees", as: Tree.self) } == tree)
            #expect(try db.checkStructure().problems.isEmpty)
        }
    }

    /// Writes stored MessagePack bytes as they are, as other software (or an earlier Larder,
    /// whose encoder had no limit) could have.
    struct StoredMessagePack: Archiver {
        var format: ArchiveFormat { .messagePack }
        func archive(_ value: [UInt8], into bytes: inout [UInt8]) throws { bytes.append(contentsOf: value) }
        func unarchive(_ bytes: UnsafeRawBufferPointer, format: ArchiveFormat) throws -> [UInt8] { Array(bytes) }
    }

    /// The MessagePack of `Tree.chain(levels)`, built without the encoder's limit.
    static func treeBytes(_ levels: Int) -> [UInt8] {
        func key(_ name: String) -> MessagePackValue { .string(Array(name.utf8)) }
        var tree = MessagePackValue.map([.init(key: key("name"), value: key("leaf")), .init(key: key("kids"), value: .array([]))])
        for level in 1..<levels {
            tree = .map([.init(key: key("name"), value: key("t\(level)")), .init(key: key("kids"), value: .array([tree]))])
        }
        return tree.encoded()
    }

    static func byName() -> AutoView<Tree, NoMetadata> {
        AutoView(collections: ["trees"], versionTag: "1", grouping: { _, tree in "all" }, sorting: { _, tree in TupleKey(tree.name) })
    }

    /// A value the extension cannot decode for its depth is not "another type": the write that
    /// needs it fails and changes nothing (the old code skipped it and kept the view's entry of
    /// the value it replaced).
    @Test func anExtensionFailsTheWriteInsteadOfSkippingAValueTooDeep() throws {
        try withStore { db, _ in
            let view = try db.register(Self.byName(), named: "byName")
            try db.write { try $0.setObject(Tree.chain(3), forKey: "t", inCollection: "trees") }
            let error = #expect(throws: LarderError.self) {
                try db.write { try $0.setObject(Self.treeBytes(300), forKey: "t", inCollection: "trees", archiver: StoredMessagePack(), metadata: nil as [UInt8]?, metadataArchiver: StoredMessagePack()) }
            }
            #expect(error?.code == .valueTooDeep)
            // Nothing changed: the old tree and its view entry stay, and they agree.
            #expect(try db.read { try $0.object(forKey: "t", inCollection: "trees", as: Tree.self) } == Tree.chain(3))
            #expect(try db.read { try $0[view].indexes(inGroup: "all").map(\.key) } == ["t"])
            #expect(try db.verifyExtensions().isEmpty)
            // A registration over a collection holding such a value says so rather than leave it out.
            try db.unregisterExtension(named: "byName")
            try db.write { try $0.setObject(Self.treeBytes(300), forKey: "deep", inCollection: "trees", archiver: StoredMessagePack(), metadata: nil as [UInt8]?, metadataArchiver: StoredMessagePack()) }
            let registration = #expect(throws: LarderError.self) { try db.register(Self.byName(), named: "byName") }
            #expect(registration?.code == .valueTooDeep)
            // Reading it says why.
            let read = #expect(throws: LarderError.self) { try db.newConnection().read { try $0.object(forKey: "deep", inCollection: "trees", as: Tree.self) } }
            #expect(read?.code == .valueTooDeep && read?.index == YapDB.Index(collection: "trees", key: "deep"))
            try db.write { _ = try $0.removeObject(forKey: "deep", inCollection: "trees") }
        }
    }

    /// Removing a legal value from a thread whose stack is too small to decode it fails with
    /// `valueTooDeep` and leaves the view as it was (the old code removed the object and kept
    /// its view entry); from a thread with a larger stack the same removal goes through.
    @Test func aSmallStackFailsTheWriteInsteadOfLeavingEntriesBehind() throws {
        try withStore { db, _ in
            let view = try db.register(Self.byName(), named: "byName")
            try db.write { try $0.setObject(Tree.chain(150), forKey: "t", inCollection: "trees") }
            let outcome = Mutex<(any Error)?>(nil)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                do { try db.write { _ = try $0.removeObject(forKey: "t", inCollection: "trees") } } catch { outcome.withLock { $0 = error } }
                done.signal()
            }
            thread.stackSize = 192 * 1024
            thread.start()
            done.wait()
            let error = try #require(outcome.withLock { $0 } as? LarderError)
            #expect(error.code == .valueTooDeep, "\(error)")
            #expect(try db.read { try $0.numberOfKeys(inCollection: "trees") } == 1)
            #expect(try db.read { try $0[view].indexes(inGroup: "all").map(\.key) } == ["t"])
            #expect(try db.verifyExtensions().isEmpty)
            try db.write { _ = try $0.removeObject(forKey: "t", inCollection: "trees") }
            #expect(try db.read { try $0[view].indexes(inGroup: "all").map(\.key) }.isEmpty)
            #expect(try db.verifyExtensions().isEmpty)
        }
    }

    /// Encoding on a thread with a small stack throws for the stack instead of overflowing it.
    @Test func aSmallStackIsAnErrorNotACrash() throws {
        let tree = Tree.chain(250)
        let outcome = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            do { _ = try MessagePackEncoder().encode(tree) } catch { outcome.withLock { $0 = error } }
            done.signal()
        }
        thread.stackSize = 128 * 1024
        thread.start()
        done.wait()
        let error = try #require(outcome.withLock { $0 })
        #expect(MessagePackNestingLimit.find(in: error)?.kind == .stack)
    }
}
