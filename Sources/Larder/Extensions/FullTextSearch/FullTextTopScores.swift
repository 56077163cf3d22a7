/// The `capacity` best scores seen, in a min-heap: the threshold a score must reach to be among
/// the best, found in O(n log k) for n scores instead of sorting them all.
struct FullTextTopScores {
    let capacity: Int
    private var heap: [Double] = []

    init(capacity: Int) {
        self.capacity = capacity
        heap.reserveCapacity(min(capacity, 1 << 16))
    }

    /// The smallest score among the best `capacity`, or -∞ while fewer were seen.
    var threshold: Double { heap.count < capacity ? -.infinity : heap[0] }

    mutating func insert(_ score: Double) {
        if heap.count < capacity {
            heap.append(score)
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child] < heap[parent] else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        } else if capacity > 0, score > heap[0] {
            heap[0] = score
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count, heap[left] < heap[smallest] { smallest = left }
                if right < heap.count, heap[right] < heap[smallest] { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
    }
}
