/// How a reused top-level keyed container reaches its decoder without keeping
/// it alive (which would make every pooled decoder look referenced).
///
/// Created once per decoder. Its `decoder` is valid while the decoder lives:
/// the container's box is held either by the decoder's own state (and dies
/// with it), or by someone who kept the container, in which case
/// `invalidate()` sets `keptDecoder` so that the decoder lives as long as they do.
final class MessagePackContainerLink {
    unowned(unsafe) let decoder: MessagePackBufferDecoder
    var keptDecoder: MessagePackBufferDecoder?

    init(decoder: MessagePackBufferDecoder) {
        self.decoder = decoder
    }
}
