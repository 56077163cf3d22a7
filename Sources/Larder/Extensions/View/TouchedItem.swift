/// What a write transaction did to one item of a list (a view or a filtered view), for the
/// commit's change report: the item key it had when the transaction began and the one it has now
/// (`nil`: not in the list).
struct TouchedItem {
    /// The item key before the transaction, derived from the object's bytes as the transaction
    /// first found them.
    var before: ItemKeys
    /// The item keys after the transaction's latest change of the object.
    var now: ItemKeys
}
