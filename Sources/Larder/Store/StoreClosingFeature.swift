/// Feature state (``StoreShared/feature(_:orMake:)``) that acts when the store closes in this
/// process: the last `Database` on it released it, just before the environment's handle closes.
protocol StoreClosingFeature: AnyObject {
    /// Called under the environment registry's lock: do not open or close stores here.
    func storeWillClose()
}
