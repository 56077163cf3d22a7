/// The kinds of extension, as recorded in the store.
enum ExtensionKind {
    static let secondaryIndex = "secondaryIndex"
    static let view = "view"
    static let filteredView = "filteredView"
    static let relationships = "relationships"
    static let fullTextSearch = "fullTextSearch"
}
