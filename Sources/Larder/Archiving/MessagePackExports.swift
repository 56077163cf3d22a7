// The MessagePack format lives in its own target, `LarderMessagePack`, which the `larder` tool
// and the fuzz targets share. Re-exporting it keeps `import Larder` enough for every MessagePack
// symbol Larder has always had (`MessagePackEncoder`, `MessagePackDecoder`), spelled bare or as
// `Larder.MessagePackEncoder`, and for the value tree beside them. See
// Documentation/Architecture.md ("Layers") for why a re-export and not typealiases.
@_exported public import LarderMessagePack
