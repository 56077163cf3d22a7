import CLMDB
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The part of the memory map that the data file backs, cached for the bounds check every key
/// and value LMDB hands back goes through (``LMDBTransaction``).
///
/// LMDB trusts the file: a damaged node can give a size or an overflow page that runs past the
/// end of the file, and touching a mapped page past the end of its file stops the process with
/// SIGBUS. The fast path is two loads and two compares; a buffer that fails them refreshes the
/// bound (the file may have grown through another process) before it is called damaged.
final class MapBound: Sendable {
    /// The first address of the map, and the address just past the file's last byte in it;
    /// both 0 until the first refresh. A stale pair only sends a check down the slow path: the
    /// map moves only in a resize, which runs with no transaction live and calls ``invalidate()``.
    private let start = Atomic<UInt>(0)
    private let fileEnd = Atomic<UInt>(0)

    /// Forgets the bound: the map is about to move (a resize).
    func invalidate() {
        start.store(0, ordering: .relaxed)
        fileEnd.store(0, ordering: .relaxed)
    }

    /// `value` as a buffer, after checking that it lies within the data file.
    ///
    /// - Parameter writable: whether the transaction writes; its buffers may point into dirty
    ///   pages on the heap, outside the map. In a read-only transaction every buffer is in the map.
    @inline(__always)
    func buffer(_ value: MDB_val, environment: Environment, writable: Bool, operation: String) throws(LarderError) -> UnsafeRawBufferPointer {
        let address = UInt(bitPattern: value.mv_data)
        let (end, overflow) = address.addingReportingOverflow(UInt(value.mv_size))
        if address >= start.load(ordering: .relaxed), end <= fileEnd.load(ordering: .relaxed), !overflow {
            return UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
        }
        return try slowCheck(value, environment: environment, writable: writable, operation: operation)
    }

    private func slowCheck(_ value: MDB_val, environment: Environment, writable: Bool, operation: String) throws(LarderError) -> UnsafeRawBufferPointer {
        let checked = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
        if value.mv_size == 0 { return checked }
        var info = MDB_envinfo()
        mdb_env_info(environment.handle, &info)
        var descriptor: Int32 = -1
        mdb_env_get_fd(environment.handle, &descriptor)
        var status = stat()
        let fileSize = descriptor >= 0 && fstat(descriptor, &status) == 0 ? UInt(status.st_size) : 0
        let mapStart = UInt(bitPattern: info.me_mapaddr)
        let mapEnd = mapStart &+ UInt(info.me_mapsize)
        let dataEnd = mapStart &+ min(fileSize, UInt(info.me_mapsize))
        start.store(mapStart, ordering: .relaxed)
        fileEnd.store(dataEnd, ordering: .relaxed)
        let address = UInt(bitPattern: value.mv_data)
        let (end, overflow) = address.addingReportingOverflow(UInt(value.mv_size))
        if address >= mapStart && address < mapEnd {
            if end <= dataEnd && !overflow { return checked }
            throw LarderError(
                .corrupted,
                "the store is damaged: LMDB returned \(value.mv_size) bytes that run past the end of the data file; run `larder check` and restore the store from a backup",
                operation: operation, path: environment.path)
        }
        // Outside the map: a dirty page of this write transaction, or a damaged page number.
        if writable { return checked }
        throw LarderError(
            .corrupted,
            "the store is damaged: LMDB returned a buffer outside the data file; run `larder check` and restore the store from a backup",
            operation: operation, path: environment.path)
    }
}
