/// A key that must end up in a counted tree (`present`) or out of it.
///
/// Not nested in the generic `CountedTree`, so that its metadata is never looked up at run time.
struct CountedTreeChange {
    var key: [UInt8]
    var present: Bool
}
