import LarderBenchKit

/// The stores the comparisons share, built on first use (building them is never timed).
final class Fixtures {
    let scale: Scale

    init(scale: Scale) { self.scale = scale }

    private var rawReadStore: RawReadWorkload?
    private var recordStore: RecordReadWorkload?
    private var durableStores: DurableCommitWorkload?
    private var groupStore: GroupCommitWorkload?
    private var checksumStores: ChecksumWorkload?
    private var handDecodedStore: HandDecodedFloor?

    var rawRead: RawReadWorkload {
        get throws {
            if let rawReadStore { return rawReadStore }
            let made = try RawReadWorkload(entries: scale.rawEntries, reads: scale.rawReads)
            rawReadStore = made
            return made
        }
    }

    var records: RecordReadWorkload {
        get throws {
            if let recordStore { return recordStore }
            let made = try RecordReadWorkload(items: scale.items, reads: scale.itemReads, hot: scale.hotItems)
            recordStore = made
            return made
        }
    }

    /// Row 4's floor, over the record workload's items and hot keys.
    var handDecoded: HandDecodedFloor {
        get throws {
            if let handDecodedStore { return handDecodedStore }
            let made = try HandDecodedFloor(items: scale.items, keys: try records.hotKeys)
            handDecodedStore = made
            return made
        }
    }

    var durable: DurableCommitWorkload {
        get throws {
            if let durableStores { return durableStores }
            let made = try DurableCommitWorkload()
            durableStores = made
            return made
        }
    }

    var checksums: ChecksumWorkload {
        get throws {
            if let checksumStores { return checksumStores }
            let made = try ChecksumWorkload(items: scale.items, reads: scale.itemReads)
            checksumStores = made
            return made
        }
    }

    var group: GroupCommitWorkload {
        get throws {
            if let groupStore { return groupStore }
            let made = try GroupCommitWorkload()
            groupStore = made
            return made
        }
    }
}
