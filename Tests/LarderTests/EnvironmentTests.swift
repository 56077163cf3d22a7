import Foundation
import Testing
@testable import Larder

@Suite("Environment: configuration, layout, durability")
struct EnvironmentTests {
    @Test(arguments: [Durability.full, .noMetaSync, .deferred(interval: .milliseconds(20))])
    func everyDurabilityCommitsAndReopens(durability: Durability) throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        var configuration = Database.Configuration()
        configuration.durability = durability
        do {
            let db = try Database(path: path, configuration: configuration)
            try db.write { txn throws in
                for i in 0..<100 { try txn.setObject(i, forKey: "k\(i)", inCollection: "n") }
            }
            try db.sync()
            if case .deferred = durability { Thread.sleep(forTimeInterval: 0.05) }  // let the timer run
        }
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
        let db = try Database(path: path)
        try db.read { txn throws in
            #expect(try txn.numberOfKeys(inCollection: "n") == 100)
            #expect(try txn.object(forKey: "k99", inCollection: "n", as: Int.self) == 99)
        }
    }

    @Test func singleFileLayout() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store.larder")
        var configuration = Database.Configuration()
        configuration.singleFile = true
        do {
            let db = try Database(path: path, configuration: configuration)
            try db.write { try $0.setObject("v", forKey: "k", inCollection: "c") }
        }
        var isDirectory: ObjCBool = true
        #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue)
        #expect(FileManager.default.fileExists(atPath: path + "-lock"))
        // An existing regular file is opened as a single-file store without being told.
        let db = try Database(path: path)
        #expect(try db.read { try $0.object(forKey: "k", inCollection: "c", as: String.self) } == "v")
    }

    @Test func emptyFileBecomesAStoreOnlyWhenAsked() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("empty")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect { try Database(path: path) } throws: { ($0 as? LarderError)?.code == .notAStore }
        #expect(FileIdentity.size(path) == 0)
        #expect(!FileManager.default.fileExists(atPath: path + "-lock"))
        var configuration = Database.Configuration()
        configuration.singleFile = true
        let db = try Database(path: path, configuration: configuration)
        try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
        #expect(try db.read { try $0.object(forKey: "k", inCollection: "c", as: Int.self) } == 1)
    }

    @Test(arguments: [
        { (c: inout Database.Configuration) in c.initialMapSize = 0 },
        { (c: inout Database.Configuration) in c.maxReaders = 0 },
        { (c: inout Database.Configuration) in c.changeLogLimit = 0 },
        { (c: inout Database.Configuration) in c.changePollInterval = .zero },
        { (c: inout Database.Configuration) in c.objectCacheLimit = -1 },
        { (c: inout Database.Configuration) in c.metadataCacheLimit = -5 },
    ] as [@Sendable (inout Database.Configuration) -> Void])
    func invalidConfigurationIsRefused(_ spoil: @Sendable (inout Database.Configuration) -> Void) {
        let directory = TemporaryDirectory()
        var configuration = Database.Configuration()
        spoil(&configuration)
        #expect { try Database(path: directory.file("store"), configuration: configuration) } throws: { error in
            (error as? LarderError)?.code == .invalidConfiguration
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("store")))
    }

    @Test func mapGrowsAheadOfNeedAcrossManyTransactions() throws {
        var configuration = Database.Configuration()
        configuration.initialMapSize = 256 << 10
        try withStore(configuration) { db, _ in
            let value = [UInt8](repeating: 0xAB, count: 2_000)
            for batch in 0..<40 {
                try db.write { txn throws in
                    for i in 0..<50 { try txn.setObject(value, forKey: "k\(batch)-\(i)", inCollection: "big") }
                }
            }
            #expect(db.environment.resizeCount > 0)
            #expect(db.environment.mapUsage().mapSize > 256 << 10)
            try db.read { txn throws in
                #expect(try txn.numberOfKeys(inCollection: "big") == 2_000)
                #expect(try txn.object(forKey: "k39-49", inCollection: "big", as: [UInt8].self) == value)
            }
        }
    }

    @Test func mapFullInsideAWriteWithAReadOpenOnTheSameThreadIsAClearError() throws {
        var configuration = Database.Configuration()
        configuration.initialMapSize = 128 << 10
        try withStore(configuration) { db, _ in
            let value = [UInt8](repeating: 1, count: 4_000)
            do {
                try db.read { _ in
                    try db.write { txn in
                        for i in 0..<200 { try txn.setObject(value, forKey: "k\(i)", inCollection: "c") }
                    }
                }
                Issue.record("expected mapFull")
            } catch let error as LarderError {
                #expect(error.code == .mapFull)
                #expect(error.message.contains("holds another transaction open"))
            }
            // Nothing was stored, and without the outer read the same write succeeds.
            #expect(try db.read { try $0.numberOfKeys(inCollection: "c") } == 0)
            try db.write { txn in
                for i in 0..<200 { try txn.setObject(value, forKey: "k\(i)", inCollection: "c") }
            }
            #expect(try db.read { try $0.numberOfKeys(inCollection: "c") } == 200)
        }
    }

    @Test func asyncWritesFromOneTaskRunInOrder() async throws {
        let directory = TemporaryDirectory()
        let db = try Database(path: directory.file("store"))
        for i in 0..<50 {
            try await db.write { txn in
                let previous = try txn.object(forKey: "last", inCollection: "seq", as: Int.self) ?? -1
                #expect(previous == i - 1)
                try txn.setObject(i, forKey: "last", inCollection: "seq")
            }
        }
        #expect(try await db.read { try $0.object(forKey: "last", inCollection: "seq", as: Int.self) } == 49)
    }
}
