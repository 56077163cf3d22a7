internal import CLMDB
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The part of the memory map that the data file backs, cached for the bounds check every key
/// and value LMDB hands back goes through (``LMDBTransaction``).
///
/// LMDB trusts the file: a damaged node can give a size or an overflow page that runs past the
/// end of the file, and touching a mapped page past the end of its file stops the process with
/// SIGBUS. The fast path is two loads and two compares (two more for a write transaction's
/// dirty pages, which live on the heap); a buffer that fails them refreshes the bound (the file
/// may have grown, through this process or another) before it is called damaged.
final class MapBound: @unchecked Sendable {  // the handle is only passed to mdb_env_info and mdb_env_get_fd, which any thread may call
    /// The first address of the map, and the address just past the file's last byte in it;
    /// both 0 until the first refresh. A stale pair only sends a check down the slow path: the
    /// map moves only in a resize, which runs with no transaction live and calls ``invalidate()``.
    private let start = Atomic<UInt>(0)
    private let fileEnd = Atomic<UInt>(0)
    /// The address just past the map (its reserved size, beyond the file).
    private let mapEnd = Atomic<UInt>(0)
    /// The environment's handle, data file and path, for the slow path.
    private let handle: OpaquePointer
    private let identity: FileIdentity
    private let path: String

    init(handle: OpaquePointer, identity: FileIdentity, path: String) {
        self.handle = handle
        self.identity = identity
        self.path = path
    }

    /// Forgets the bound: the map is about to move (a resize).
    func invalidate() {
        start.store(0, ordering: .relaxed)
        fileEnd.store(0, ordering: .relaxed)
        mapEnd.store(0, ordering: .relaxed)
    }

    /// `value` as a buffer, after checking that it lies within the data file.
    ///
    /// - Parameter writable: whether the transaction writes; its buffers may point into dirty
    ///   pages on the heap, outside the map. In a read-only transaction every buffer is in the map.
    @inline(__always)
    func buffer(_ value: MDB_val, writable: Bool, operation: StaticString) throws(LarderError) -> UnsafeRawBufferPointer {
        let address = UInt(bitPattern: value.mv_data)
        let (end, overflow) = address.addingReportingOverflow(UInt(value.mv_size))
        let mapStart = start.load(ordering: .relaxed)
        if address >= mapStart, end <= fileEnd.load(ordering: .relaxed), !overflow {
            return UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
        }
        // A write transaction's own dirty pages live on the heap, outside the map.
        if writable, mapStart != 0, address < mapStart || address >= mapEnd.load(ordering: .relaxed) {
            return UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
        }
        return try slowCheck(value, writable: writable, operation: "\(operation)")
    }

    @inline(never)
    private func slowCheck(_ value: MDB_val, writable: Bool, operation: String) throws(LarderError) -> UnsafeRawBufferPointer {
        let checked = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
        if value.mv_size == 0 { return checked }
        var mapStart = start.load(ordering: .relaxed)
        if mapStart == 0 {
            // LMDB does not say where it mapped the file (mdb_env_info's address is the fixed
            // address of MDB_FIXEDMAP, 0 here); the process's own map list does.
            guard let found = Self.mappedAddress(of: identity) else {
                // No map list (not Linux): let every buffer through the fast path unchecked.
                start.store(1, ordering: .relaxed)
                fileEnd.store(UInt.max, ordering: .relaxed)
                return checked
            }
            mapStart = found
        }
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var descriptor: Int32 = -1
        mdb_env_get_fd(handle, &descriptor)
        var status = stat()
        let fileSize = descriptor >= 0 && fstat(descriptor, &status) == 0 ? UInt(status.st_size) : 0
        let mapEnd = mapStart &+ UInt(info.me_mapsize)
        let dataEnd = mapStart &+ min(fileSize, UInt(info.me_mapsize))
        start.store(mapStart, ordering: .relaxed)
        fileEnd.store(dataEnd, ordering: .relaxed)
        self.mapEnd.store(mapEnd, ordering: .relaxed)
        let address = UInt(bitPattern: value.mv_data)
        let (end, overflow) = address.addingReportingOverflow(UInt(value.mv_size))
        if address >= mapStart && address < mapEnd {
            if end <= dataEnd && !overflow { return checked }
            throw LarderError(
                .corrupted,
                "the store is damaged: LMDB returned \(value.mv_size) bytes that run past the end of the data file; run `larder check` and restore the store from a backup",
                operation: operation, path: path)
        }
        // Outside the map: a dirty page of this write transaction, or a damaged page number.
        if writable { return checked }
        throw LarderError(
            .corrupted,
            "the store is damaged: LMDB returned a buffer outside the data file; run `larder check` and restore the store from a backup",
            operation: operation, path: path)
    }

    /// The address where this process mapped the data file from its start, read from
    /// `/proc/self/maps`; `nil` where there is no such list (then buffers go unchecked).
    private static func mappedAddress(of identity: FileIdentity) -> UInt? {
        let descriptor = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            contents.append(contentsOf: chunk[..<got])
        }
        // Each line: start-end perms offset major:minor inode path (numbers in hexadecimal but
        // the inode). Linux's device number: minor in bits 0-7 and 20-39, major in bits 8-19 and 40-63.
        let major = (identity.device >> 8) & 0xFFF | (identity.device >> 32) & ~0xFFF
        let minor = identity.device & 0xFF | (identity.device >> 12) & ~0xFF
        func hex(_ number: UInt64) -> String {
            let digits = String(number, radix: 16)
            return digits.count < 2 ? "0" + digits : digits
        }
        let device = hex(major) + ":" + hex(minor)
        for line in contents.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5,
                  UInt64(String(decoding: fields[4], as: UTF8.self)) == identity.inode,
                  String(decoding: fields[3], as: UTF8.self) == device,
                  UInt64(String(decoding: fields[2], as: UTF8.self), radix: 16) == 0,
                  let dash = fields[0].firstIndex(of: UInt8(ascii: "-")),
                  let address = UInt(String(decoding: fields[0][..<dash], as: UTF8.self), radix: 16) else { continue }
            return address
        }
        return nil
    }
}
