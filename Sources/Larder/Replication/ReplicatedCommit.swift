import LarderMessagePack

/// The data one commit changed, as a replica ships it to the primary and as every replica applies
/// it: the stored bytes each changed index was left with, and the collections emptied whole.
///
/// Only data: objects and metadata (Larder's own records that are data, roots, `Persistent`
/// values and edges added by hand, are objects in `larder.` collections). What extensions derive
/// is not in it: each replica derives its own from the changes. The commit information set with
/// ``ReadWriteTransaction/setCommitInfo(_:)`` travels with it.
package struct ReplicatedCommit: Sendable, Equatable, Codable {
    /// One changed index and what it was left with.
    package struct Row: Sendable, Equatable, Codable {
        package var collection: String
        package var key: String
        /// The object as stored (framing and format byte included), `nil` when it was removed.
        package var object: [UInt8]?
        /// The metadata as stored, `nil` when there is none.
        package var metadata: [UInt8]?
        /// Whether the object, and whether the metadata, is among what changed (a touch changes
        /// nothing but is a change: views and observers treat it as an update).
        package var objectChanged: Bool
        package var metadataChanged: Bool

        package init(collection: String, key: String, object: [UInt8]?, metadata: [UInt8]?, objectChanged: Bool, metadataChanged: Bool) {
            self.collection = collection
            self.key = key
            self.object = object
            self.metadata = metadata
            self.objectChanged = objectChanged
            self.metadataChanged = metadataChanged
        }
    }

    /// The version of this encoding; a replica refuses a commit of a higher one.
    package static let version = 1

    package var version = ReplicatedCommit.version
    /// Every collection was emptied first.
    package var removedEverything = false
    /// Collections emptied whole, before the rows were written.
    package var cleared: [String] = []
    /// The indexes changed, each once, with the bytes it was left with.
    package var rows: [Row] = []
    /// The commit information of the transaction (MessagePack), if it set any.
    package var info: [[UInt8]] = []

    package init() {}

    /// Whether the commit changes nothing.
    package var isEmpty: Bool { !removedEverything && cleared.isEmpty && rows.isEmpty && info.isEmpty }

    /// The MessagePack form shipped to the primary and stored in its log.
    package func encoded() throws -> [UInt8] {
        do {
            return try MessagePackEncoder().encode(self)
        } catch {
            throw LarderError(.encodingFailed, "a replicated commit could not be encoded", operation: "replicate", underlying: String(describing: error))
        }
    }

    /// Reads the form ``encoded()`` writes.
    /// - Throws: ``LarderError/Code/corruptValue`` when `bytes` are not a replicated commit, or
    ///   ``LarderError/Code/newerFormatVersion`` when a newer Larder wrote them.
    package init(decoding bytes: some Collection<UInt8>) throws {
        let decoded: ReplicatedCommit
        do {
            decoded = try MessagePackDecoder().decode(ReplicatedCommit.self, from: [UInt8](bytes))
        } catch {
            throw LarderError(.corruptValue, "a commit of the primary's log does not decode", operation: "replicate", underlying: String(describing: error))
        }
        guard decoded.version <= Self.version else {
            throw LarderError(.newerFormatVersion, "a commit of the primary's log was written by a newer Larder (version \(decoded.version); this one reads up to \(Self.version))", operation: "replicate")
        }
        self = decoded
    }
}
