import CLMDB

/// LMDB constants the store layer needs, so that it never imports CLMDB itself.
enum MDBFlags {
    static let noOverwrite = MDB_NOOVERWRITE
    static let keyExists = MDB_KEYEXIST
}
