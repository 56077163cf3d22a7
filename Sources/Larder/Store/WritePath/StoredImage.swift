/// The bytes stored at one index: its object and its metadata as stored (format byte
/// included), `nil` for none.
struct StoredImage: Equatable {
    var object: [UInt8]?
    var metadata: [UInt8]?
}
