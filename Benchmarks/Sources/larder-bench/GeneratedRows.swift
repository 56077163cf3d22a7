import LarderBenchKit

/// Rows 3g, 5g, 6g and 8g (issue 16): rows 3, 5, 6 and 8 with a generated archiver
/// (`GeneratedItem`, `@Archived`) against the same references.
var generatedComparisons: [Comparison] { [
    Comparison(id: "3g-vs-grdb", workload: "3g. random read, generated archiver, uncached",
               larder: "@Archived, cache off", reference: "GRDB fetchOne, cached stmt",
               body: .timed { fixtures in
                   let store = try fixtures.records
                   let reads = fixtures.scale.itemReads
                   return (.timing(reads) { try store.larderUncachedGenerated() }, .timing(reads) { try store.grdbFetch() })
               }),
    Comparison(id: "5g-insert-vs-grdb", workload: "5g. insert, generated archiver, one write txn",
               larder: "setObject (@Archived)", reference: "GRDB insert",
               body: .timed { fixtures in
                   let count = fixtures.scale.itemInserts
                   let generated = GeneratedInsertWorkload(count: count)
                   let work = RecordInsertWorkload(count: count)
                   return (Side(operations: count) { try generated.larder() }, Side(operations: count) { try work.grdbInsert() })
               }),
    Comparison(id: "6g-archiver", workload: "6g. archiver: encode + decode",
               larder: "@Archived", reference: "JSONEncoder + JSONDecoder",
               body: .timed { fixtures in
                   let count = fixtures.scale.archiverValues
                   let generated = GeneratedArchiverWorkload(count: count)
                   let work = ArchiverWorkload(count: count)
                   return (.timing(count) { try generated.generated() }, .timing(count) { try work.json() })
               }),
    Comparison(id: "8g-scan", workload: "8g. full scan, generated archiver",
               larder: "objects(inCollection:) @Archived", reference: "GRDB fetchAll",
               body: .timed { fixtures in
                   let store = try fixtures.records
                   let count = fixtures.scale.items
                   return (.timing(count) { try store.larderScanGenerated() }, .timing(count) { try store.grdbScan() })
               }),
] }
