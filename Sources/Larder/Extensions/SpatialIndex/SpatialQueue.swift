/// A binary min-heap of items by priority: the queue of a nearest-neighbour search.
struct SpatialQueue<Item> {
    private var heap: [(item: Item, priority: Double)] = []

    mutating func push(_ item: Item, priority: Double) {
        heap.append((item, priority))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].priority < heap[parent].priority else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (Item, Double)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].priority < heap[smallest].priority { smallest = left }
            if right < heap.count && heap[right].priority < heap[smallest].priority { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return (top.item, top.priority)
    }
}
