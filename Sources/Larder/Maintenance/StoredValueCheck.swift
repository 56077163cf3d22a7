/// The check of one stored value's framing and payload that ``Database/checkStructure()`` runs
/// on every object and metadata value, shared with the command-line tool so that `import` refuses
/// exactly what `check` would report.
package enum StoredValueCheck {
    /// What is wrong with a value stored as format byte `tag` followed by `payload`, or `nil`
    /// when the check accepts it. `what` names the value in the detail ("object", "metadata value").
    ///
    /// - MessagePack must be exactly one well-formed value;
    /// - JSON must be UTF-8;
    /// - raw bytes and custom formats (`0x40`–`0xFF`) are not looked into;
    /// - a format byte Larder reserves but does not define (`0x00`, `0x04`–`0x3F`) is refused.
    package static func problem(tag: UInt8, payload: UnsafeRawBufferPointer, what: String) -> (kind: StructureProblem.Kind, detail: String)? {
        switch ArchiveFormat(rawValue: tag) {
        case .messagePack:
            var spans: [MessagePackContainerSpan]? = nil
            do {
                let end = try MessagePackReader(bytes: payload).validateValue(at: 0, spans: &spans)
                if end != payload.count { return (.malformedValue, "the \(what) has \(payload.count - end) bytes after its MessagePack value") }
            } catch {
                return (.malformedValue, "the \(what) is not well-formed MessagePack (\(error))")
            }
        case .json:
            if String(validating: payload, as: UTF8.self) == nil { return (.malformedValue, "the \(what) is stored as JSON but is not UTF-8") }
        case .raw:
            break
        default:
            if tag < 0x40 { return (.unknownFormat, "the \(what) has format byte 0x\(String(tag, radix: 16)), which Larder reserves but does not define") }
        }
        return nil
    }
}
