import ArgumentParser

/// How much work each comparison does. `smoke` is for CI (seconds); `small`, the default, takes a
/// few minutes on a 2-core machine; `medium` and `large` give steadier figures.
enum Size: String, CaseIterable, ExpressibleByArgument {
    case smoke, small, medium, large
}

struct Scale {
    var rounds: Int
    /// Workload 1: entries stored, reads per run.
    var rawEntries: Int
    var rawReads: Int
    /// Workload 2: inserts per run (into a new store).
    var rawInserts: Int
    /// Workloads 3, 4, 8: items stored, reads per run, hot keys (4).
    var items: Int
    var itemReads: Int
    var hotItems: Int
    /// Workload 5: inserts per run.
    var itemInserts: Int
    /// Workload 6: round trips per run.
    var archiverValues: Int
    /// Workload 7: durable commits per run; writes per writer (8 writers).
    var durableCommits: Int
    var writesPerWriter: Int
    /// Workload 9: writes per run.
    var extensionWrites: Int
    /// Workload 10: items in the small and the large store; registrations per run.
    var registrationSmall: Int
    var registrationLarge: Int
    var registrations: Int
    /// Rows 9-at-scale, 9u, 11-at-scale, 14-disk and 15 (issue 17): the items of the store the row
    /// starts from (or writes, 14-disk); inserts or updates per run.
    var scaleItems: Int
    var scaleWrites: Int
    /// Row 9s: items in the small and the large store.
    var growthSmall: Int
    var growthLarge: Int
    /// Row 15: pages of 50 items read per run.
    var viewPages: Int

    static func of(_ size: Size) -> Scale {
        switch size {
        case .smoke:
            Scale(rounds: 3, rawEntries: 10_000, rawReads: 20_000, rawInserts: 5_000,
                  items: 2_000, itemReads: 2_000, hotItems: 200, itemInserts: 1_000, archiverValues: 1_000,
                  durableCommits: 30, writesPerWriter: 5, extensionWrites: 500,
                  registrationSmall: 1_000, registrationLarge: 5_000, registrations: 5,
                  scaleItems: 5_000, scaleWrites: 500, growthSmall: 2_000, growthLarge: 20_000, viewPages: 100)
        case .small:
            Scale(rounds: 11, rawEntries: 100_000, rawReads: 200_000, rawInserts: 50_000,
                  items: 20_000, itemReads: 10_000, hotItems: 1_000, itemInserts: 10_000, archiverValues: 10_000,
                  durableCommits: 300, writesPerWriter: 40, extensionWrites: 5_000,
                  registrationSmall: 1_000, registrationLarge: 100_000, registrations: 20,
                  scaleItems: 20_000, scaleWrites: 2_000, growthSmall: 5_000, growthLarge: 50_000, viewPages: 500)
        case .medium:
            Scale(rounds: 9, rawEntries: 500_000, rawReads: 300_000, rawInserts: 100_000,
                  items: 100_000, itemReads: 20_000, hotItems: 1_000, itemInserts: 30_000, archiverValues: 20_000,
                  durableCommits: 500, writesPerWriter: 60, extensionWrites: 10_000,
                  registrationSmall: 1_000, registrationLarge: 300_000, registrations: 20,
                  scaleItems: 100_000, scaleWrites: 5_000, growthSmall: 10_000, growthLarge: 100_000, viewPages: 300)
        case .large:
            Scale(rounds: 11, rawEntries: 1_000_000, rawReads: 1_000_000, rawInserts: 200_000,
                  items: 200_000, itemReads: 50_000, hotItems: 1_000, itemInserts: 50_000, archiverValues: 50_000,
                  durableCommits: 1_000, writesPerWriter: 120, extensionWrites: 20_000,
                  registrationSmall: 1_000, registrationLarge: 1_000_000, registrations: 20,
                  scaleItems: 100_000, scaleWrites: 10_000, growthSmall: 10_000, growthLarge: 1_000_000, viewPages: 500)
        }
    }
}
