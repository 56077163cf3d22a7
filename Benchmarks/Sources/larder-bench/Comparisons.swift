import Foundation
import LarderBenchKit

/// One line of the table: Larder against a reference, measured in the same run.
struct Comparison {
    enum Body {
        /// Two timed sides, interleaved.
        case timed((Fixtures) async throws -> (larder: Side, reference: Side))
        /// Allocations per operation, counted by `larder-alloc-probe`: (Larder, reference).
        case allocations((Scale) throws -> (larder: Double, reference: Double)?)
        /// Bytes, measured once (sizes do not vary from run to run): (Larder, reference).
        case bytes((Fixtures) throws -> (larder: Double, reference: Double))
    }

    /// The key of the comparison's target in the targets file.
    let id: String
    let workload: String
    let larder: String
    let reference: String
    let body: Body

    /// The comparison with the sizes of `scale` written into its text in place of the
    /// placeholders `{items}`, `{growthSmall}` and `{growthLarge}` (rows measured at a size say which).
    func sized(_ scale: Scale) -> Comparison {
        func fill(_ text: String) -> String {
            text.replacingOccurrences(of: "{items}", with: count(scale.scaleItems))
                .replacingOccurrences(of: "{growthSmall}", with: count(scale.growthSmall))
                .replacingOccurrences(of: "{growthLarge}", with: count(scale.growthLarge))
        }
        return Comparison(id: id, workload: fill(workload), larder: fill(larder), reference: fill(reference), body: body)
    }

    /// "5 k", "100 k", "1 M".
    private func count(_ value: Int) -> String {
        if value >= 1_000_000, value.isMultiple(of: 1_000_000) { return "\(value / 1_000_000) M" }
        if value >= 1_000, value.isMultiple(of: 1_000) { return "\(value / 1_000) k" }
        return String(value)
    }

    /// Whether `filters` select this comparison: a number selects a workload by number (every row
    /// whose id starts with it: 9 selects 9-extension-writes, 9-at-scale, 9u-update and 9s-growth),
    /// `=` and an id that comparison alone, other text any comparison whose id or description
    /// contains it (ignoring case).
    func matches(_ filters: [String]) -> Bool {
        filters.isEmpty || filters.contains { filter in
            if filter.allSatisfy(\.isNumber) { return String(id.prefix { $0.isNumber }) == filter }
            if filter.hasPrefix("=") { return id == filter.dropFirst() }
            let text = (id + " " + workload + " " + larder + " " + reference).lowercased()
            return text.contains(filter.lowercased())
        }
    }
}

/// Every comparison of the issue, in order.
var comparisons: [Comparison] { [
    Comparison(id: "1-raw-read", workload: "1. random read, raw bytes, one read txn",
               larder: "withStoredObject", reference: "C mdb_get",
               body: .timed { fixtures in
                   let store = try fixtures.rawRead
                   let reads = fixtures.scale.rawReads
                   return (.timing(reads) { try store.larder() }, .timing(reads) { try store.floorReads() })
               }),
    Comparison(id: "1-raw-read-allocations", workload: "1. allocations per raw read",
               larder: "withStoredObject", reference: "C mdb_get",
               body: .allocations { scale in try AllocationProbe.run(entries: scale.rawEntries, reads: scale.rawReads) }),
    Comparison(id: "2-raw-insert", workload: "2. insert, raw bytes, one write txn",
               larder: "setObject([UInt8])", reference: "C mdb_put",
               body: .timed { fixtures in
                   let count = fixtures.scale.rawInserts
                   let work = RawInsertWorkload(count: count)
                   return (Side(operations: count) { try work.larder() }, Side(operations: count) { try work.floorInserts() })
               }),
    Comparison(id: "3-vs-json", workload: "3. random read, Codable, uncached",
               larder: "MessagePack, cache off", reference: "LMDB + JSONDecoder",
               body: .timed { fixtures in
                   let store = try fixtures.records
                   let reads = fixtures.scale.itemReads
                   return (.timing(reads) { try store.larderUncached() }, .timing(reads) { try store.lmdbJSON() })
               }),
    Comparison(id: "3-vs-grdb", workload: "3. random read, Codable, uncached",
               larder: "MessagePack, cache off", reference: "GRDB fetchOne, cached stmt",
               body: .timed { fixtures in
                   let store = try fixtures.records
                   let reads = fixtures.scale.itemReads
                   return (.timing(reads) { try store.larderUncached() }, .timing(reads) { try store.grdbFetch() })
               }),
    Comparison(id: "4-cached", workload: "4. random read, Codable, cache warm",
               larder: "cache warm", reference: "C mdb_get + hand-written decode",
               body: .timed { fixtures in
                   let store = try fixtures.records
                   let reads = fixtures.scale.itemReads
                   let floor = try fixtures.handDecoded
                   return (.timing(reads) { try store.larderCached() }, .timing(reads) { try floor.read() })
               }),
    Comparison(id: "5-insert-vs-grdb", workload: "5. insert, Codable, one write txn",
               larder: "setObject (MessagePack)", reference: "GRDB insert",
               body: .timed { fixtures in
                   let count = fixtures.scale.itemInserts
                   let work = RecordInsertWorkload(count: count)
                   return (Side(operations: count) { try work.larder() }, Side(operations: count) { try work.grdbInsert() })
               }),
    Comparison(id: "6-archiver", workload: "6. archiver: encode + decode",
               larder: "MessagePack", reference: "JSONEncoder + JSONDecoder",
               body: .timed { fixtures in
                   let count = fixtures.scale.archiverValues
                   let work = ArchiverWorkload(count: count)
                   return (.timing(count) { try work.messagePack() }, .timing(count) { try work.json() })
               }),
    Comparison(id: "7-durable-commit", workload: "7. one put per durable commit",
               larder: "write { setObject }", reference: "C txn+put+commit",
               body: .timed { fixtures in
                   let stores = try fixtures.durable
                   let count = fixtures.scale.durableCommits
                   return (Side(operations: count) { try stores.larder(count: count) },
                           Side(operations: count) { try stores.floorCommits(count: count) })
               }),
    Comparison(id: "7-group-commit", workload: "7. 8 writers, durable, per write",
               larder: "async, group commit", reference: "8 sequential commits",
               body: .timed { fixtures in
                   let store = try fixtures.group
                   let each = fixtures.scale.writesPerWriter
                   return (Side(operations: 8 * each) { try await store.concurrent(writers: 8, each: each) },
                           Side(operations: 8 * each) { try store.sequential(writers: 8, each: each) })
               }),
    Comparison(id: "8-scan", workload: "8. full scan, decode every value",
               larder: "objects(inCollection:)", reference: "GRDB fetchAll",
               body: .timed { fixtures in
                   let store = try fixtures.records
                   let count = fixtures.scale.items
                   return (.timing(count) { try store.larderScan() }, .timing(count) { try store.grdbScan() })
               }),
    Comparison(id: "9-extension-writes", workload: "9. insert, Codable, one write txn",
               larder: "with 1 view + 1 index", reference: "Larder, no extensions",
               body: .timed { fixtures in
                   let count = fixtures.scale.extensionWrites
                   let work = ExtensionWriteWorkload(count: count)
                   return (Side(operations: count) { try work.withViewAndIndex() }, Side(operations: count) { try work.plain() })
               }),
    Comparison(id: "9t-three-groups", workload: "9t. insert, Codable, one write txn",
               larder: "view, 3 groups per item", reference: "view, 1 group per item",
               body: .timed { fixtures in
                   let count = fixtures.scale.extensionWrites
                   let work = MultiGroupWriteWorkload(count: count)
                   return (Side(operations: count) { try work.threeGroupsPerItem() }, Side(operations: count) { try work.oneGroupPerItem() })
               }),
    Comparison(id: "10-registration", workload: "10. register view + index, tag unchanged",
               larder: "large store", reference: "small store",
               body: .timed { fixtures in
                   let scale = fixtures.scale
                   let large = try RegistrationWorkload(items: scale.registrationLarge, label: "large")
                   let small = try RegistrationWorkload(items: scale.registrationSmall, label: "small")
                   return (Side(operations: scale.registrations) { try large.register(count: scale.registrations) },
                           Side(operations: scale.registrations) { try small.register(count: scale.registrations) })
               }),
    Comparison(id: "11-relationship-writes", workload: "11. insert, Codable, one write txn",
               larder: "with relationships (1 edge each)", reference: "Larder, no extensions",
               body: .timed { fixtures in
                   let count = fixtures.scale.extensionWrites
                   let work = RelationshipWriteWorkload(count: count)
                   return (Side(operations: count) { try work.withRelationships() }, Side(operations: count) { try work.plain() })
               }),
    Comparison(id: "12-cascade-delete", workload: "12. delete an owner and its items",
               larder: "by a delete rule", reference: "by key, no extensions",
               body: .timed { fixtures in
                   let count = fixtures.scale.extensionWrites
                   let work = CascadeDeleteWorkload(count: count)
                   return (Side(operations: count) { try work.cascade() }, Side(operations: count) { try work.byKey() })
               }),
    Comparison(id: "13-undoable-writes", workload: "13. update, Codable, one write txn",
               larder: "undoable", reference: "Larder, plain write",
               body: .timed { fixtures in
                   let count = fixtures.scale.extensionWrites
                   let work = UndoableWriteWorkload(count: count)
                   return (Side(operations: count) { try work.undoable() }, Side(operations: count) { try work.plain() })
               }),
    Comparison(id: "14-checksum-reads", workload: "14. random read, Codable, uncached",
               larder: "checksumsValues on", reference: "checksums off",
               body: .timed { fixtures in
                   let work = try fixtures.checksums
                   let reads = fixtures.scale.itemReads
                   return (.timing(reads) { try work.read(checksums: true) }, .timing(reads) { try work.read(checksums: false) })
               }),
    Comparison(id: "14-checksum-writes", workload: "14. insert, Codable, one write txn",
               larder: "checksumsValues on", reference: "checksums off",
               body: .timed { fixtures in
                   let work = try fixtures.checksums
                   let count = fixtures.scale.items
                   return (Side(operations: count) { try work.insert(checksums: true) }, Side(operations: count) { try work.insert(checksums: false) })
               }),
    Comparison(id: "16-observed-commits", workload: "16. one put per commit, sync deferred",
               larder: "100 idle observations + 1 re-run", reference: "no observation",
               body: .timed { fixtures in
                   let count = fixtures.scale.extensionWrites
                   let work = try ObservationWorkload(idle: 100)
                   return (Side(operations: count) { try work.observedCommits(count) }, Side(operations: count) { try work.plainCommits(count) })
               }),
] + generatedComparisons + scaleComparisons }

/// Runs `larder-alloc-probe` (built beside this executable by `swift build -c release`), which
/// counts allocations under package-benchmark's malloc interposer, away from this process's timings.
enum AllocationProbe {
    static func run(entries: Int, reads: Int) throws -> (larder: Double, reference: Double)? {
        guard let directory = Bundle.main.executableURL?.deletingLastPathComponent() else { return nil }
        let probe = directory.appendingPathComponent("larder-alloc-probe")
        guard FileManager.default.isExecutableFile(atPath: probe.path) else { return nil }
        let process = Process()
        process.executableURL = probe
        process.arguments = [String(entries), String(reads)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        // The probe's last line: "<Larder allocations per read> <C floor allocations per read>".
        let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).last?.split(separator: " ") ?? []
        guard fields.count == 2, let larder = Double(fields[0]), let reference = Double(fields[1]) else { return nil }
        return (larder, reference)
    }
}
