extension ReadWriteTransaction {
    /// Stores `object`, a value of any concrete type `archiver` registers, at (`collection`,
    /// `key`), replacing any object there and **removing any metadata** there.
    ///
    /// ```swift
    /// let shape: any Shape = Square(side: 2)
    /// try txn.setObject(shape, forKey: "s", inCollection: "shapes", archiver: shapes)
    /// ```
    /// - Throws: ``LarderError/Code/unregisteredType`` when the concrete type of `object` is not
    ///   registered with `archiver`; otherwise as
    ///   ``setObject(_:forKey:inCollection:archiver:metadata:metadataArchiver:)``. The store is
    ///   unchanged by a call that throws.
    public func setObject<Base>(_ object: Base, forKey key: String, inCollection collection: String, archiver: PolymorphicArchiver<Base>) throws {
        try setObject(object, forKey: key, inCollection: collection, archiver: archiver, metadata: nil as [UInt8]?, metadataArchiver: RawBytesArchiver())
    }
}
