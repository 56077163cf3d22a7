/// Keeps a subscription while a stream or one of its iterators exists; ends it after.
final class SubscriptionLease: Sendable {
    let subscription: ChangeSubscription
    let database: Database  // keeps the store open while someone observes it

    /// - Parameter keepsDetails: whether the consumer reads extensions' changes and commit
    ///   information (a ``ChangeStream``) or only which indexes changed (``ObjectObservation``).
    /// - Parameter filter: which changesets to take (an observed read's); `nil`: all.
    init(database: Database, collection: String?, filter: ReadFilter? = nil, keepsDetails: Bool = true) {
        self.database = database
        let hub = database.shared.changeHub
        subscription = ChangeSubscription(collection: collection, filter: filter, keepsDetails: keepsDetails, hub: hub)
        hub.subscribe(subscription, environment: database.environment)
    }

    deinit { subscription.cancel() }
}
