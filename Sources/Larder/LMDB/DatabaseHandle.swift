/// A named database of an open environment, as the layers above the LMDB layer hold it: an opaque
/// value they pass back to ``LMDBTransaction``, never a number to compute with.
///
/// A handle stays valid for the environment's life (LMDB's handles are opened once and never
/// closed, see LMDB-NOTES.md), so it is a cheap `Sendable` value that may be kept anywhere.
struct DatabaseHandle: Hashable, Sendable {
    /// LMDB's `MDB_dbi`; only the LMDB layer reads it.
    let raw: UInt32
}
