extension FullTextPostingsEditor {
    /// Where a document falls in ``block``, as ``locate(_:first:)`` finds it.
    struct Place {
        /// The block's number of documents, and where that count ends.
        var count: Int
        var countEnd: Int
        /// The number of documents before the document (or before where it would go).
        var position = 0
        /// The id of the document before it (the block's first id when there is none).
        var previousID: UInt64
        /// The first document whose id is at least the one looked for: its id, where its delta
        /// starts, where its posting starts and ends. `nil`: every document is before it.
        var found: (id: UInt64, start: Int, postingStart: Int, end: Int)?
        /// When `found` is the document itself, the one after it: its id and where its posting
        /// starts.
        var next: (id: UInt64, postingStart: Int)?
    }

    /// Edits the posting of document `id` in ``block`` (first id `first`) by splicing its bytes:
    /// the postings before it are stepped over up to it, those after it are copied as they are,
    /// and only the deltas beside it are encoded again. This is what an update costs per term,
    /// where decoding the whole block into ``entries`` and encoding it back cost most of the
    /// time (a 4 KiB block of a common term holds several hundred postings).
    /// - Returns: as ``edit(term:id:posting:existing:)``; `nil`, having changed nothing, when
    ///   the block would outgrow its caps: the caller's general path splits it.
    /// - Throws: ``LarderError/Code/corruptValue`` for a damaged block; LMDB failures.
    mutating func splice(id: UInt64, posting: ArraySlice<UInt8>?, existing: Bool, prefix: [UInt8], first: UInt64) throws -> Bool? {
        let place = try locate(id, first: first)
        let present = place.found?.id == id
        guard present == existing else { return false }
        value.removeAll(keepingCapacity: true)
        var newFirst = first
        switch (place.found, posting) {
        case (nil, nil):
            return false
        case (nil, let posting?):
            // After the block's last document.
            guard place.count + 1 <= Self.maximumBlockDocuments else { return nil }
            FullTextVarint.append(place.count + 1, to: &value)
            value.append(contentsOf: block[place.countEnd...])
            FullTextVarint.append(id - place.previousID, to: &value)
            value.append(contentsOf: posting)
        case (let found?, nil):
            // Removal: the next document's delta now counts from the one before.
            guard place.count > 1 else {
                var oldKey = prefix
                FullTextVarint.appendBigEndian(first, to: &oldKey)
                try oldKey.withUnsafeBytes { _ = try lmdb.delete(postings, key: $0) }
                return true
            }
            FullTextVarint.append(place.count - 1, to: &value)
            value.append(contentsOf: block[place.countEnd..<found.start])
            if let next = place.next {
                if place.position == 0 {
                    newFirst = next.id
                    value.append(0)
                } else {
                    FullTextVarint.append(next.id - place.previousID, to: &value)
                }
                value.append(contentsOf: block[next.postingStart...])
            }
        case (let found?, let posting?) where present:
            FullTextVarint.append(place.count, to: &value)
            value.append(contentsOf: block[place.countEnd..<found.postingStart])
            value.append(contentsOf: posting)
            value.append(contentsOf: block[found.end...])
        case (let found?, let posting?):
            // Insertion before `found`, which then counts its delta from `id`.
            guard place.count + 1 <= Self.maximumBlockDocuments else { return nil }
            FullTextVarint.append(place.count + 1, to: &value)
            value.append(contentsOf: block[place.countEnd..<found.start])
            if place.position == 0 {
                newFirst = id
                value.append(0)
            } else {
                FullTextVarint.append(id - place.previousID, to: &value)
            }
            value.append(contentsOf: posting)
            FullTextVarint.append(found.id - id, to: &value)
            value.append(contentsOf: block[found.postingStart...])
        }
        if posting != nil, value.count > Self.maximumBlockBytes { return nil }
        if newFirst != first {
            var oldKey = prefix
            FullTextVarint.appendBigEndian(first, to: &oldKey)
            try oldKey.withUnsafeBytes { _ = try lmdb.delete(postings, key: $0) }
        }
        key = prefix
        FullTextVarint.appendBigEndian(newFirst, to: &key)
        try put(key: key, value: value)
        return true
    }

    /// Steps through ``block`` (first id `first`) to the first document whose id is at least
    /// `id`, checking the ids on the way, without decoding the postings after it.
    /// - Throws: ``LarderError/Code/corruptValue`` for a damaged block.
    func locate(_ id: UInt64, first: UInt64) throws -> Place {
        try block.withUnsafeBytes { bytes throws(LarderError) -> Place in
            var reader = FullTextByteReader(bytes, what: "a postings block")
            let count = try reader.int(upTo: bytes.count)
            var place = Place(count: count, countEnd: reader.offset, previousID: first)
            var current = first
            for number in 0..<count {
                let start = reader.offset
                let delta = try reader.varint()
                if number > 0 {
                    guard delta > 0, current <= UInt64.max - delta else { throw reader.damaged("its document ids do not grow") }
                    current += delta
                } else {
                    guard delta == 0 else { throw reader.damaged("its first document is not the one its key names") }
                }
                let postingStart = reader.offset
                try Self.skipPosting(&reader, limit: bytes.count)
                if current >= id {
                    place.found = (current, start, postingStart, reader.offset)
                    if current == id, number + 1 < count {
                        let delta = try reader.varint()
                        guard delta > 0, current <= UInt64.max - delta else { throw reader.damaged("its document ids do not grow") }
                        place.next = (current + delta, reader.offset)
                    }
                    return place
                }
                place.position = number + 1
                place.previousID = current
            }
            guard reader.isAtEnd else { throw reader.damaged("it has bytes after its last document") }
            return place
        }
    }
}
