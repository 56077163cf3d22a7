import Foundation

/// The undo history as stored in the `larder` database:
///
/// - `undo:step:` + number (`UInt64` big-endian) → one step (``StoredUndoStep``, MessagePack);
/// - `undo:position` → the number of the last step done (`UInt64` big-endian; 0 or absent: none).
///   Steps numbered up to it can be undone, those after it redone;
/// - `undo:next` → the number the next step gets (numbers are never reused).
enum UndoStack {
    static let stepPrefix = Array("undo:step:".utf8)
    static let positionKey = "undo:position"
    static let nextKey = "undo:next"

    /// How many steps are kept (``Database/Configuration/undoLimit``).
    static func limit(of configuration: Database.Configuration) -> Int {
        configuration.undoLimit
    }

    static func stepKey(_ number: UInt64) -> [UInt8] {
        stepPrefix + withUnsafeBytes(of: number.bigEndian) { Array($0) }
    }

    // MARK: Counters

    static func position(in lmdb: LMDBTransaction) throws -> UInt64 {
        try counter(positionKey, in: lmdb)
    }

    static func setPosition(_ number: UInt64, in lmdb: LMDBTransaction) throws {
        try setCounter(positionKey, number, in: lmdb)
    }

    private static func counter(_ key: String, in lmdb: LMDBTransaction) throws -> UInt64 {
        guard let stored = try lmdb.get(lmdb.databases.larder, key: key) else { return 0 }
        guard stored.count == 8 else {
            throw LarderError(.corruptValue, "the undo history's \(key) is not a 64-bit number", operation: "undo")
        }
        return UInt64(bigEndian: stored.loadUnaligned(as: UInt64.self))
    }

    private static func setCounter(_ key: String, _ number: UInt64, in lmdb: LMDBTransaction) throws {
        try withUnsafeBytes(of: number.bigEndian) { try lmdb.put(lmdb.databases.larder, key: key, value: $0) }
    }

    // MARK: Steps

    static func step(_ number: UInt64, in lmdb: LMDBTransaction) throws -> StoredUndoStep? {
        guard let stored = try stepKey(number).withUnsafeBytes({ try lmdb.get(lmdb.databases.larder, key: $0) }) else { return nil }
        do {
            return try MessagePackDecoder().decode(StoredUndoStep.self, from: stored)
        } catch {
            throw LarderError(.corruptValue, "undo step \(number) does not decode", operation: "undo", underlying: String(describing: error))
        }
    }

    static func write(_ step: StoredUndoStep, number: UInt64, in lmdb: LMDBTransaction) throws {
        let bytes = try step.messagePackBytes()
        try stepKey(number).withUnsafeBytes { key in
            try bytes.withUnsafeBytes { try lmdb.put(lmdb.databases.larder, key: key, value: $0) }
        }
    }

    static func delete(_ number: UInt64, in lmdb: LMDBTransaction) throws {
        _ = try stepKey(number).withUnsafeBytes { try lmdb.delete(lmdb.databases.larder, key: $0) }
    }

    /// The numbers of every stored step, in order.
    static func numbers(in lmdb: LMDBTransaction) throws -> [UInt64] {
        var numbers: [UInt64] = []
        try lmdb.forEachEntry(in: lmdb.databases.larder, withPrefix: stepPrefix) { key, _ in
            guard key.count == stepPrefix.count + 8 else {
                throw LarderError(.corruptValue, "an undo step key is not a step number", operation: "undo")
            }
            numbers.append(UInt64(bigEndian: UnsafeRawBufferPointer(rebasing: key[stepPrefix.count...]).loadUnaligned(as: UInt64.self)))
            return true
        }
        return numbers
    }

    // MARK: Recording

    /// Records a step made of `entries` (each with its images before and after) as the newest
    /// step: the steps that were undone are dropped, and the oldest beyond `limit`. A step of a
    /// group joins the group's step when that is still the newest.
    static func record(_ entries: [StoredUndoStep.Entry], name: String, group: UndoGroup?, limit: Int, in lmdb: LMDBTransaction) throws {
        let position = try position(in: lmdb)
        let numbers = try numbers(in: lmdb)
        if let group, let joined = group.stepNumber, joined == position, numbers.last == joined,
           var step = try step(joined, in: lmdb), step.group == group.token {
            step.merge(entries)
            step.time = Date()
            if step.entries.isEmpty {
                try delete(joined, in: lmdb)
                try setPosition(numbers.dropLast().last ?? 0, in: lmdb)
                group.stepNumber = nil
            } else {
                try write(step, number: joined, in: lmdb)
            }
            return
        }
        guard !entries.isEmpty else { return }
        for number in numbers where number > position { try delete(number, in: lmdb) }
        let number = max(try counter(nextKey, in: lmdb), (numbers.last ?? 0) + 1, 1)
        try write(StoredUndoStep(name: group?.name ?? name, time: Date(), entries: entries, group: group?.token), number: number, in: lmdb)
        try setCounter(nextKey, number + 1, in: lmdb)
        try setPosition(number, in: lmdb)
        group?.stepNumber = number
        let kept = numbers.filter { $0 <= position } + [number]
        for old in kept.dropLast(max(0, limit)) { try delete(old, in: lmdb) }
    }

    /// Forgets every step.
    static func clear(in lmdb: LMDBTransaction) throws {
        for number in try numbers(in: lmdb) { try delete(number, in: lmdb) }
        try setPosition(0, in: lmdb)
    }
}

extension UndoStack {
    enum Direction { case undo, redo }

    static func publicStep(_ number: UInt64, _ step: StoredUndoStep) -> UndoStep {
        UndoStep(id: number, name: step.name, time: step.time, indexes: step.entries.map(\.index))
    }

    /// The number of the step ``apply(direction:in:)`` would undo or redo, `nil` when none;
    /// reads no step.
    static func candidate(_ direction: Direction, in lmdb: LMDBTransaction) throws -> UInt64? {
        let position = try position(in: lmdb)
        let numbers = try numbers(in: lmdb)
        switch direction {
        case .undo: return position > 0 && numbers.contains(position) ? position : nil
        case .redo: return numbers.first { $0 > position }
        }
    }

    /// The name of the step ``apply(direction:in:)`` would undo or redo; decodes that step only.
    static func candidateName(_ direction: Direction, in lmdb: LMDBTransaction) throws -> String? {
        try candidate(direction, in: lmdb).flatMap { try step($0, in: lmdb)?.name }
    }

    static func history(in lmdb: LMDBTransaction) throws -> UndoHistory {
        let position = try position(in: lmdb)
        var undoable: [UndoStep] = [], redoable: [UndoStep] = []
        for number in try numbers(in: lmdb) {
            guard let step = try step(number, in: lmdb) else { continue }
            if number <= position { undoable.append(publicStep(number, step)) } else { redoable.append(publicStep(number, step)) }
        }
        return UndoHistory(undoable: undoable, redoable: redoable)
    }

    /// Undoes the newest done step, or redoes the oldest undone one, in `txn`; returns it, `nil`
    /// when there is none. Refuses, changing nothing, when a value the step covers is not what
    /// the step left (undo) or found (redo).
    static func apply(direction: Direction, in txn: ReadWriteTransaction) throws -> UndoStep? {
        let lmdb = txn.lmdb
        guard let number = try candidate(direction, in: lmdb), let step = try step(number, in: lmdb) else { return nil }
        let numbers = try numbers(in: lmdb)
        let action = direction == .undo ? "undo" : "redo"
        for entry in step.entries {
            let (expectedObject, expectedMetadata) = direction == .undo ? (entry.objectAfter, entry.metadataAfter) : (entry.objectBefore, entry.metadataBefore)
            let current = try StorageKey.with(collection: entry.collection, key: entry.key, maxKeySize: txn.maxKeySize, operation: action) { key in
                (try lmdb.get(lmdb.databases.objects, key: key).map { [UInt8]($0) }, try lmdb.get(lmdb.databases.metadata, key: key).map { [UInt8]($0) })
            }
            // A value rewritten by a migration since (see `ValueMigrations`) is the same value.
            let migrations = txn.database.migrations
            guard migrations.same(current.0, expectedObject, collection: entry.collection, metadata: false),
                  migrations.same(current.1, expectedMetadata, collection: entry.collection, metadata: true) else {
                throw LarderError(
                    .undoConflict,
                    "cannot \(action) “\(step.name)”: a value it covers in collection \(entry.collection) changed since (by a write that was not undoable, or another process; the error's index names it); nothing was changed",
                    operation: action, index: entry.index)
            }
        }
        let entries = direction == .undo ? step.entries.reversed() : step.entries
        for entry in entries {
            let (object, metadata) = direction == .undo ? (entry.objectBefore, entry.metadataBefore) : (entry.objectAfter, entry.metadataAfter)
            try txn.restore(entry.index, object: object, metadata: metadata)
        }
        try setPosition(direction == .undo ? numbers.last(where: { $0 < number }) ?? 0 : number, in: lmdb)
        let made = UndoAction(kind: direction == .undo ? .undo : .redo, stepID: number, stepName: step.name)
        txn.state.changes.annotate { $0.recordUndoAction(made) }
        return publicStep(number, step)
    }
}
