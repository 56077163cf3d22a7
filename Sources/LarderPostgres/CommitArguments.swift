#if Extras
import Larder
import NIOCore
import PostgresNIO

/// What a commit sends the primary, in the columns the commit statement takes (the commit
/// procedure takes those of several, ``CommitBatch``): the rows set and removed, what the commit
/// wrote (for later commits' checks), what its transaction read, and the commit itself under its
/// token.
struct CommitArguments: Sendable {
    var position: UInt64
    var positionToken: String?
    var token: String
    var record: [UInt8]
    var removesEverything: Bool
    var cleared: [String]
    var putCollections: [String] = [], putKeys: [String] = [], objects: [ByteBuffer] = [], metadata: [ByteBuffer] = [], hasMetadata: [Bool] = []
    var removedCollections: [String] = [], removedKeys: [String] = []
    var writtenCollections: [String] = [], writtenKeys: [String] = []
    var readsEverything: Bool
    var readCollections: [String]
    var readKeyCollections: [String] = [], readKeys: [String] = []
    /// Whether it follows the commits before it in its batch (see ``PrimarySQL/commitProcedure``).
    var chained = false

    /// - Throws: `LarderError/Code/invalidConfiguration` for a collection or key holding NUL,
    ///   which PostgreSQL's `text` cannot.
    init(_ commit: ReplicatedCommit, reads: ReadSet, position: UInt64, positionToken: String?, token: String) throws {
        self.position = position
        // A replica at position 0 has nothing to compare.
        self.positionToken = position > 0 ? positionToken : nil
        self.token = token
        record = try commit.encoded()
        removesEverything = commit.removedEverything
        cleared = commit.cleared
        for row in commit.rows {
            try Self.checkText(row.collection, "collection")
            try Self.checkText(row.key, "key")
            writtenCollections.append(row.collection)
            writtenKeys.append(row.key)
            if let object = row.object {
                putCollections.append(row.collection)
                putKeys.append(row.key)
                objects.append(ByteBuffer(bytes: object))
                metadata.append(ByteBuffer(bytes: row.metadata ?? []))
                hasMetadata.append(row.metadata != nil)
            } else {
                removedCollections.append(row.collection)
                removedKeys.append(row.key)
            }
        }
        for collection in commit.cleared {
            // A cleared collection is marked by the key "": it conflicts with every key read in it.
            writtenCollections.append(collection)
            writtenKeys.append("")
        }
        readsEverything = reads.everything
        readCollections = reads.collections.sorted()
        for (collection, key) in reads.pointReads {
            readKeyCollections.append(collection)
            readKeys.append(key)
        }
    }

    /// PostgreSQL's `text` holds no NUL; a key with one cannot be replicated.
    private static func checkText(_ text: String, _ what: String) throws {
        if text.utf8.contains(0) {
            throw LarderError(.invalidConfiguration, "a \(what) that contains NUL cannot be stored on a PostgreSQL primary", operation: "commit")
        }
    }

    /// The statement's shape: only the checks and changes this commit has.
    var shape: CommitShape {
        var shape = CommitShape()
        shape.readsEverything = readsEverything
        shape.readsCollections = !readCollections.isEmpty
        shape.readsKeys = !readKeys.isEmpty
        shape.removesEverything = removesEverything
        shape.clears = !cleared.isEmpty
        shape.puts = !putKeys.isEmpty
        shape.removals = !removedKeys.isEmpty
        shape.checksToken = positionToken != nil
        return shape
    }

    /// Appends `value` to `binds`.
    func append(_ value: CommitShape.Value, to binds: inout PostgresBindings) {
        switch value {
        case .position: binds.append(Int64(position))
        case .readCollections: binds.append(readCollections)
        case .readKeyCollections: binds.append(readKeyCollections)
        case .readKeys: binds.append(readKeys)
        case .removesEverything: binds.append(removesEverything)
        case .cleared: binds.append(cleared)
        case .putCollections: binds.append(putCollections)
        case .putKeys: binds.append(putKeys)
        case .objects: binds.append(objects)
        case .metadata: binds.append(metadata)
        case .hasMetadata: binds.append(hasMetadata)
        case .removedCollections: binds.append(removedCollections)
        case .removedKeys: binds.append(removedKeys)
        case .writtenCollections: binds.append(writtenCollections)
        case .writtenKeys: binds.append(writtenKeys)
        case .record: binds.append(ByteBuffer(bytes: record))
        case .token: binds.append(token)
        // Null when there is no token to compare (the statement binds it only when there is).
        case .positionToken: binds.append(positionToken)
        }
    }

    /// The SQL type `value` is bound as.
    static func sqlType(of value: CommitShape.Value) -> String {
        switch value {
        case .position: "bigint"
        case .removesEverything: "boolean"
        case .hasMetadata: "boolean[]"
        case .objects, .metadata: "bytea[]"
        case .record: "bytea"
        case .token, .positionToken: "text"
        case .readCollections, .readKeyCollections, .readKeys, .cleared, .putCollections, .putKeys,
             .removedCollections, .removedKeys, .writtenCollections, .writtenKeys: "text[]"
        }
    }
}

/// The arguments of one call of the commit procedure (``PrimarySQL/commitProcedure``): the
/// commits of a batch, in order, each one's rows tagged with its (1-based) place.
struct CommitBatch: Sendable {
    let commits: [CommitArguments]

    init(_ commits: [CommitArguments]) {
        self.commits = commits
    }

    var tokens: [String] { commits.map(\.token) }

    /// The bindings, in ``PrimarySQL/BatchColumn``'s order.
    func bindings() -> PostgresBindings {
        var positions: [Int64] = [], readsEverything: [Bool] = [], removesEverything: [Bool] = []
        var records: [ByteBuffer] = [], tokens: [String] = [], positionTokens: [String] = [], chained: [Bool] = []
        var readCollectionsOf: [Int32] = [], readCollections: [String] = []
        var readKeysOf: [Int32] = [], readKeyCollections: [String] = [], readKeys: [String] = []
        var clearedOf: [Int32] = [], cleared: [String] = []
        var putsOf: [Int32] = [], putCollections: [String] = [], putKeys: [String] = []
        var objects: [ByteBuffer] = [], metadata: [ByteBuffer] = [], hasMetadata: [Bool] = []
        var removedOf: [Int32] = [], removedCollections: [String] = [], removedKeys: [String] = []
        var writtenOf: [Int32] = [], writtenCollections: [String] = [], writtenKeys: [String] = []
        for (offset, commit) in commits.enumerated() {
            let place = Int32(offset + 1)
            positions.append(Int64(commit.position))
            readsEverything.append(commit.readsEverything)
            removesEverything.append(commit.removesEverything)
            records.append(ByteBuffer(bytes: commit.record))
            tokens.append(commit.token)
            chained.append(commit.chained)
            positionTokens.append(commit.positionToken ?? "")  // "": none to compare
            readCollectionsOf += repeatElement(place, count: commit.readCollections.count)
            readCollections += commit.readCollections
            readKeysOf += repeatElement(place, count: commit.readKeys.count)
            readKeyCollections += commit.readKeyCollections
            readKeys += commit.readKeys
            clearedOf += repeatElement(place, count: commit.cleared.count)
            cleared += commit.cleared
            putsOf += repeatElement(place, count: commit.putKeys.count)
            putCollections += commit.putCollections
            putKeys += commit.putKeys
            objects += commit.objects
            metadata += commit.metadata
            hasMetadata += commit.hasMetadata
            removedOf += repeatElement(place, count: commit.removedKeys.count)
            removedCollections += commit.removedCollections
            removedKeys += commit.removedKeys
            writtenOf += repeatElement(place, count: commit.writtenKeys.count)
            writtenCollections += commit.writtenCollections
            writtenKeys += commit.writtenKeys
        }
        var binds = PostgresBindings(capacity: PrimarySQL.BatchColumn.allCases.count)
        for column in PrimarySQL.BatchColumn.allCases {
            switch column {
            case .positions: binds.append(positions)
            case .reads_everything: binds.append(readsEverything)
            case .removes_everything: binds.append(removesEverything)
            case .records: binds.append(records)
            case .tokens: binds.append(tokens)
            case .position_tokens: binds.append(positionTokens)
            case .chained: binds.append(chained)
            case .read_collections_of: binds.append(readCollectionsOf)
            case .read_collections: binds.append(readCollections)
            case .read_keys_of: binds.append(readKeysOf)
            case .read_key_collections: binds.append(readKeyCollections)
            case .read_keys: binds.append(readKeys)
            case .cleared_of: binds.append(clearedOf)
            case .cleared: binds.append(cleared)
            case .puts_of: binds.append(putsOf)
            case .put_collections: binds.append(putCollections)
            case .put_keys: binds.append(putKeys)
            case .objects: binds.append(objects)
            case .metadata: binds.append(metadata)
            case .has_metadata: binds.append(hasMetadata)
            case .removed_of: binds.append(removedOf)
            case .removed_collections: binds.append(removedCollections)
            case .removed_keys: binds.append(removedKeys)
            case .written_of: binds.append(writtenOf)
            case .written_collections: binds.append(writtenCollections)
            case .written_keys: binds.append(writtenKeys)
            }
        }
        return binds
    }
}

extension PrimarySQL {
    /// The commit statement for `arguments` (``commit(_:bind:)``), each value bound once.
    func commitQuery(_ arguments: CommitArguments) -> PostgresQuery {
        var binds = PostgresBindings(capacity: 18)
        var placeholders: [CommitShape.Value: String] = [:]
        let text = commit(arguments.shape) { value in
            if let placeholder = placeholders[value] { return placeholder }
            arguments.append(value, to: &binds)
            let placeholder = "$\(binds.count)::\(CommitArguments.sqlType(of: value))"
            placeholders[value] = placeholder
            return placeholder
        }
        return PostgresQuery(unsafeSQL: text, binds: binds)
    }
}

extension ReplicatedCommit {
    /// About how many bytes the commit sends: its keys and values.
    var payloadSize: Int {
        rows.reduce(0) { $0 + $1.collection.utf8.count + $1.key.utf8.count + ($1.object?.count ?? 0) + ($1.metadata?.count ?? 0) }
    }
}
#endif
