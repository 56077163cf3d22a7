/// The postings of one term with their positions, for checking phrases: per document its id and
/// length, and per column where the term occurs its number and positions, all in flat arrays.
struct FullTextPositionList {
    var ids: [UInt64] = []
    var lengths: [UInt64] = []
    /// Where each document's column entries start in ``columns``; one more element than ``ids``.
    var columnStarts: [Int] = [0]
    var columns: [Int] = []
    /// Where each column entry's positions start in ``positions``; one more element than
    /// ``columns``.
    var positionStarts: [Int] = [0]
    var positions: [UInt32] = []

    var count: Int { ids.count }

    /// The positions of the term in `column` of the document at `offset`, empty when none.
    func positions(ofDocumentAt offset: Int, column: Int) -> ArraySlice<UInt32> {
        for entry in columnStarts[offset]..<columnStarts[offset + 1] where columns[entry] == column {
            return positions[positionStarts[entry]..<positionStarts[entry + 1]]
        }
        return []
    }
}
