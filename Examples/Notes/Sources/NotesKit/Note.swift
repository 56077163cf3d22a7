import Foundation
import Larder
import LarderMacros

/// A note: a title, a body, any number of tags, and when it was last modified.
///
/// `@Archived` generates its archiver (the same MessagePack bytes `Codable` writes, without
/// going through `Codable`); `Persistable` stores it in the collection `notes` under its `id`;
/// `Migratable` declares the version of its stored values and how older ones become current.
@Archived
public struct Note: Codable, Sendable, Equatable, Persistable, Migratable {
    public static let collection = "notes"
    public static let currentVersion = 1
    public static let migrationSteps = [
        // 0 → 1: the first release kept one tag (`NoteV1`); now a note has a list of them.
        MigrationStep(from: 0, decoding: NoteV1.self) { old in
            Note(id: old.id, title: old.title, body: old.body, tags: old.tag.isEmpty ? [] : [old.tag], modified: old.modified)
        },
    ]

    public var id: String
    public var title: String
    public var body: String
    public var tags: [String]
    public var modified: Date

    /// A note; a new one gets a fresh identifier and the current time.
    public init(id: String = UUID().uuidString, title: String, body: String, tags: [String], modified: Date = .now) {
        self.id = id
        self.title = title
        self.body = body
        self.tags = tags
        self.modified = modified
    }
}

/// A note as the first release of the app stored it: one tag. That release declared no version,
/// so its values are at version 0, which `Note.migrationSteps` reads.
public struct NoteV1: Codable, Sendable {
    public var id: String
    public var title: String
    public var body: String
    public var tag: String
    public var modified: Date

    /// A note of the first release.
    public init(id: String, title: String, body: String, tag: String, modified: Date) {
        self.id = id
        self.title = title
        self.body = body
        self.tag = tag
        self.modified = modified
    }
}
