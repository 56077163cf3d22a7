/// One node of a spatial index's R-tree, decoded: a leaf holds the boxes of objects with their
/// object keys (``SpatialIndexRuntime/objectKey(_:)``), a branch the boxes of its children (each
/// the smallest box holding the child's entries) with the children's node ids.
///
/// Stored bytes: a flag (1: leaf), an entry count (`UInt16`, little-endian), then per entry the
/// four edges (`Double` bit patterns, little-endian) and, in a branch, the child's id (`UInt64`),
/// in a leaf, the object key's length (`UInt16`) and bytes.
struct SpatialNode {
    var isLeaf: Bool
    var boxes: [SpatialBox] = []
    /// A branch's children.
    var children: [UInt64] = []
    /// A leaf's object keys.
    var keys: [[UInt8]] = []

    var count: Int { boxes.count }

    /// The smallest box holding every entry; `nil` for an empty node.
    var bounds: SpatialBox? {
        guard var bounds = boxes.first else { return nil }
        for box in boxes.dropFirst() { bounds = bounds.union(box) }
        return bounds
    }

    mutating func remove(at position: Int) {
        boxes.remove(at: position)
        if isLeaf { keys.remove(at: position) } else { children.remove(at: position) }
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = [isLeaf ? 1 : 0]
        bytes.reserveCapacity(3 + count * (isLeaf ? 56 : 40))
        Self.append(UInt16(count), to: &bytes)
        for position in boxes.indices {
            let box = boxes[position]
            for edge in [box.minX, box.minY, box.maxX, box.maxY] { Self.append(edge.bitPattern, to: &bytes) }
            if isLeaf {
                Self.append(UInt16(keys[position].count), to: &bytes)
                bytes += keys[position]
            } else {
                Self.append(children[position], to: &bytes)
            }
        }
        return bytes
    }

    /// Decodes stored node bytes.
    /// - Throws: ``LarderError/Code/corrupted`` when they are not a node.
    init(decoding bytes: UnsafeRawBufferPointer, id: UInt64) throws {
        var reader = Reader(bytes: bytes)
        guard let flag = reader.read(UInt8.self), flag <= 1, let count = reader.read(UInt16.self) else { throw Self.damaged(id) }
        isLeaf = flag == 1
        for _ in 0..<count {
            guard let minX = reader.read(UInt64.self), let minY = reader.read(UInt64.self),
                  let maxX = reader.read(UInt64.self), let maxY = reader.read(UInt64.self) else { throw Self.damaged(id) }
            boxes.append(SpatialBox(minX: Double(bitPattern: minX), minY: Double(bitPattern: minY), maxX: Double(bitPattern: maxX), maxY: Double(bitPattern: maxY)))
            if isLeaf {
                guard let length = reader.read(UInt16.self), let key = reader.bytes(Int(length)) else { throw Self.damaged(id) }
                keys.append(key)
            } else {
                guard let child = reader.read(UInt64.self) else { throw Self.damaged(id) }
                children.append(child)
            }
        }
        guard reader.offset == bytes.count else { throw Self.damaged(id) }
    }

    init(isLeaf: Bool) {
        self.isLeaf = isLeaf
    }

    private static func damaged(_ id: UInt64) -> LarderError {
        LarderError(.corrupted, "spatial index node \(id) is damaged", operation: "spatialIndex")
    }

    private static func append<I: FixedWidthInteger>(_ value: I, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// Reads little-endian integers and byte runs, `nil` past the end.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func read<I: FixedWidthInteger>(_ type: I.Type) -> I? {
            guard offset + MemoryLayout<I>.size <= bytes.count else { return nil }
            defer { offset += MemoryLayout<I>.size }
            return I(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: I.self))
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard offset + count <= bytes.count else { return nil }
            defer { offset += count }
            return [UInt8](bytes[offset..<(offset + count)])
        }
    }
}
