/// Where a container that starts at `start` ends, recorded once while the
/// input is validated.
///
/// Keyed containers find their entries by skipping over each value, and
/// unkeyed containers skip each element they pass. Walking a nested value
/// again at every level would make decoding cost the input size times the
/// nesting depth, which a hostile 1 MB input turns into tens of seconds.
/// With the spans of all containers of at least `minimumSize` bytes, a skip
/// over a big container is a binary search, and a container not in the table
/// is smaller than `minimumSize`, so walking it is cheap: total work stays
/// O(n log n) and the table never holds more than n / 16 entries.
package struct MessagePackContainerSpan {
    /// Containers smaller than this are walked instead of recorded.
    package static let minimumSize = 16
    /// Inputs smaller than this skip the table: walking them costs at most
    /// `inputThreshold` times the depth limit, and small values stay fast.
    package static let inputThreshold = 1_024

    package var start: Int
    package var end: Int

    /// The end of the recorded container starting at `start`, if there is one.
    /// `spans` is sorted by `start`, as containers are met in document order.
    static func end(ofContainerAt start: Int, in spans: [MessagePackContainerSpan]) -> Int? {
        var low = 0
        var high = spans.count
        while low < high {
            let middle = low + (high - low) / 2
            let candidate = spans[middle].start
            if candidate == start { return spans[middle].end }
            if candidate < start { low = middle + 1 } else { high = middle }
        }
        return nil
    }
}
