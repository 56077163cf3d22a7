import LarderBenchKit

/// Rows 9-at-scale, 9u-update, 9s-growth, 11-at-scale, 14-disk (and 14-disk-numbered, issue 35)
/// and 15-view-page (issue 17):
/// extensions measured on a store that already holds many items (`Scale.scaleItems`: 100 k at
/// medium and large), where the empty-store rows 9 and 11 cannot see their cost grow.
/// The sizes are placeholders in the text (`{items}`, `{growthSmall}`, `{growthLarge}`), filled
/// in by ``Comparison/sized(_:)`` for the run's scale.
var scaleComparisons: [Comparison] { [
    Comparison(id: "9-at-scale", workload: "9. insert new keys into a store of {items} items, one write txn",
               larder: "with 1 view + 1 index", reference: "Larder, no extensions",
               body: .timed { fixtures in
                   let scale = fixtures.scale
                   let work = try InsertAtScaleWorkload(items: scale.scaleItems, inserts: scale.scaleWrites, extensions: .viewAndIndex)
                   return (Side(operations: scale.scaleWrites) { try restoring(work.restore, after: work.withExtensions()) },
                           Side(operations: scale.scaleWrites) { try restoring(work.restore, after: work.plain()) })
               }),
    Comparison(id: "9u-update", workload: "9u. update moving items in their group, {items} items, one write txn",
               larder: "with 1 view + 1 index", reference: "Larder, no extensions",
               body: .timed { fixtures in
                   let scale = fixtures.scale
                   let work = try UpdateAtScaleWorkload(items: scale.scaleItems, updates: scale.scaleWrites)
                   return (Side(operations: scale.scaleWrites) { try restoring(work.restore, after: work.withViewAndIndex()) },
                           Side(operations: scale.scaleWrites) { try restoring(work.restore, after: work.plain()) })
               }),
    Comparison(id: "9s-growth", workload: "9s. insert with 1 view + 1 index, one write txn",
               larder: "into {growthLarge} items", reference: "into {growthSmall} items",
               body: .timed { fixtures in
                   let scale = fixtures.scale
                   let work = try InsertGrowthWorkload(small: scale.growthSmall, large: scale.growthLarge, inserts: scale.scaleWrites)
                   return (Side(operations: scale.scaleWrites) { try restoring(work.restore, after: work.large()) },
                           Side(operations: scale.scaleWrites) { try restoring(work.restore, after: work.small()) })
               }),
    Comparison(id: "11-at-scale", workload: "11. insert new keys into a store of {items} items, one write txn",
               larder: "with relationships (1 edge each)", reference: "Larder, no extensions",
               body: .timed { fixtures in
                   let scale = fixtures.scale
                   let work = try InsertAtScaleWorkload(items: scale.scaleItems, inserts: scale.scaleWrites, extensions: .relationships)
                   return (Side(operations: scale.scaleWrites) { try restoring(work.restore, after: work.withExtensions()) },
                           Side(operations: scale.scaleWrites) { try restoring(work.restore, after: work.plain()) })
               }),
    Comparison(id: "14-disk", workload: "14. bytes on disk, {items} items with 1 view + 1 index",
               larder: "data.mdb", reference: "SQLite file, index (category, price)",
               body: .bytes { fixtures in
                   let work = try DiskSizeWorkload(items: fixtures.scale.scaleItems)
                   return (Double(work.larderBytes), Double(work.sqliteBytes))
               }),
    Comparison(id: "14-disk-numbered", workload: "14n. bytes on disk, {items} items with 1 view + 1 index, numbered layout",
               larder: "data.mdb, @Archived(layout: .numbered)", reference: "SQLite file, index (category, price)",
               body: .bytes { fixtures in
                   let work = try DiskSizeWorkload(items: fixtures.scale.scaleItems, layout: .numbered)
                   return (Double(work.larderBytes), Double(work.sqliteBytes))
               }),
    Comparison(id: "15-view-page", workload: "15. page of 50 at a random position in a {items}-item group, cache off",
               larder: "view objects(inGroup:positions:)", reference: "GRDB ORDER BY … LIMIT 50 OFFSET k",
               body: .timed { fixtures in
                   let scale = fixtures.scale
                   let work = try ViewPageWorkload(items: scale.scaleItems, pages: scale.viewPages)
                   return (.timing(scale.viewPages) { try work.larder() }, .timing(scale.viewPages) { try work.grdbPages() })
               }),
] }

/// A run's time, after `restore` put the store back as the run found it (untimed).
private func restoring(_ restore: () throws -> Void, after elapsed: @autoclosure () throws -> Duration) throws -> Duration {
    let duration = try elapsed()
    try restore()
    return duration
}
