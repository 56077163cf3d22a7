/// An array under construction in the fallback encoder.
final class MessagePackTreeArray {
    private(set) var elements: [MessagePackTreeSlot] = []

    /// Appends a fresh slot and returns it.
    func appendSlot() -> MessagePackTreeSlot {
        let slot = MessagePackTreeSlot()
        elements.append(slot)
        return slot
    }
}
