/// The bytes of one page (or run of overflow pages), read from the data file with `pread`.
struct PageBytes {
    let bytes: [UInt8]

    var count: Int { bytes.count }

    func uint16(at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    func uint32(at offset: Int) -> UInt32 {
        UInt32(uint16(at: offset)) | UInt32(uint16(at: offset + 2)) << 16
    }

    func uint64(at offset: Int) -> UInt64 {
        UInt64(uint32(at: offset)) | UInt64(uint32(at: offset + 4)) << 32
    }

    func slice(_ offset: Int, _ length: Int) -> ArraySlice<UInt8> {
        bytes[offset..<(offset + length)]
    }
}
