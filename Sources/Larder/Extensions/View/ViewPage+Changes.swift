extension ViewPage where Object: Codable {
    /// The element that shows `snapshot`, read at `commit`, with its changes from `previous`.
    ///
    /// The changes come from comparing the two elements' items, section by section (a section is
    /// its group, compared by bytes): items gone are deletes, items new are inserts, and of the
    /// items in both, those outside a longest run that kept its order are moves (so the fewest
    /// rows move). Items that kept their place and whose object or metadata a commit in between
    /// changed are updates. An item whose group changed is a delete from one section and an
    /// insert into the other; an item of a deleted or inserted section has no row change.
    /// - Complexity: O(n log n) for the n items the two elements show.
    init(snapshot: ViewSnapshot<Object>, commit: UInt64, following previous: ViewPage?) {
        guard let previous, !snapshot.isReset else {
            self.init(sections: snapshot.sections, rowChanges: [], sectionChanges: [], isReset: true, commit: commit)
            return
        }
        var sectionChanges: [SectionChange] = []
        var rowChanges: [RowChange] = []
        var oldSections: [ExactString: Int] = [:]
        for (number, section) in previous.sections.enumerated() { oldSections[ExactString(section.group)] = number }
        var newSections: [ExactString: Int] = [:]
        for (number, section) in snapshot.sections.enumerated() { newSections[ExactString(section.group)] = number }
        for (number, section) in previous.sections.enumerated() where newSections[ExactString(section.group)] == nil {
            sectionChanges.append(SectionChange(kind: .delete, section: number, group: section.group))
        }
        for (number, section) in snapshot.sections.enumerated() {
            guard let oldNumber = oldSections[ExactString(section.group)] else {
                sectionChanges.append(SectionChange(kind: .insert, section: number, group: section.group))
                continue
            }
            Self.compare(previous.sections[oldNumber].items, in: oldNumber, with: section.items, in: number, snapshot: snapshot, into: &rowChanges)
        }
        self.init(sections: snapshot.sections, rowChanges: rowChanges, sectionChanges: sectionChanges, isReset: false, commit: commit)
    }

    /// The row changes that turn `old` (section `oldSection` of the element before) into `new`
    /// (section `newSection` of this one).
    private static func compare(_ old: [Item], in oldSection: Int, with new: [Item], in newSection: Int, snapshot: ViewSnapshot<Object>, into changes: inout [RowChange]) {
        var oldRows: [YapDB.Index: Int] = [:]
        for (row, item) in old.enumerated() { oldRows[item.index] = row }
        var newRows: Set<YapDB.Index> = []
        // The items in both, in the new order, with their old rows.
        var kept: [(newRow: Int, oldRow: Int)] = []
        for (row, item) in new.enumerated() {
            newRows.insert(item.index)
            if let oldRow = oldRows[item.index] {
                kept.append((row, oldRow))
            } else {
                changes.append(RowChange(kind: .insert, index: item.index, from: nil, to: Position(section: newSection, row: row)))
            }
        }
        for (row, item) in old.enumerated() where !newRows.contains(item.index) {
            changes.append(RowChange(kind: .delete, index: item.index, from: Position(section: oldSection, row: row), to: nil))
        }
        let staying = longestIncreasingRun(kept.map(\.oldRow))
        for (position, pair) in kept.enumerated() {
            let index = new[pair.newRow].index
            let from = Position(section: oldSection, row: pair.oldRow)
            let to = Position(section: newSection, row: pair.newRow)
            if !staying.contains(position) {
                changes.append(RowChange(kind: .move, index: index, from: from, to: to))
            } else if snapshot.mayHaveChanged(index) {
                changes.append(RowChange(kind: .update, index: index, from: from, to: to))
            }
        }
    }

    /// The positions in `values` of a longest strictly increasing subsequence.
    /// - Complexity: O(n log n).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        // tails[k]: the position of the smallest last value of an increasing run of length k + 1.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var run: Set<Int> = []
        var position = tails.last ?? -1
        while position >= 0 {
            run.insert(position)
            position = previous[position]
        }
        return run
    }
}
