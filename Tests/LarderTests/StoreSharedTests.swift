import Foundation
import Testing
@testable import Larder

/// The Store-level state the environment registry keeps beside each open environment.
@Suite("Store shared state")
struct StoreSharedTests {
    @Test func databasesOfOneStoreShareTheStateTheFirstMade() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        var first = Database.Configuration()
        first.changeLogLimit = 5
        var second = Database.Configuration()
        second.changeLogLimit = 50
        do {
            let a = try Database(path: path, configuration: first)
            let b = try Database(path: path, configuration: second)
            #expect(a.shared === b.shared)
            #expect(b.shared.configuration.changeLogLimit == 5)
            #expect(b.configuration.changeLogLimit == 50)
        }
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
        // Once every Database closed, the next open makes new state from its own settings.
        let c = try Database(path: path, configuration: second)
        #expect(c.shared.configuration.changeLogLimit == 50)
    }

    @Test func theChangeHubStartsAtTheLastCommitReadAtOpen() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            for i in 0..<3 { try db.write { try $0.setObject(i, forKey: "k\(i)", inCollection: "c") } }
        }
        let db = try Database(path: path)
        #expect(db.shared.changeHub.lastPublishedCommit == 3)
    }

    @Test func aLastCommitThatCannotBeReadFailsTheOpenAndKeepsNothingOpen() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("store")
        do {
            let db = try Database(path: path)
            try db.write { try $0.setObject(1, forKey: "k", inCollection: "c") }
            try db.environment.write { lmdb in
                try [UInt8](repeating: 0, count: 3).withUnsafeBytes { try lmdb.put(.main, key: LMDBTransaction.lastCommitRecordKey, value: $0) }
            }
        }
        do {
            _ = try Database(path: path)
            Issue.record("a store whose last commit number is 3 bytes long opened")
        } catch let error as LarderError {
            #expect(error.code == .corruptValue)
        }
        #expect(EnvironmentRegistry.openCount(path: path) == 0)
    }
}
