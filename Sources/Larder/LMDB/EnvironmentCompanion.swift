/// State a layer above keeps once per open environment, shared by every user of that
/// environment in the process. ``EnvironmentRegistry`` makes it when it opens the environment,
/// holds it as long as the environment is open, and tells it first when the environment closes;
/// the LMDB layer knows nothing else of it.
protocol EnvironmentCompanion: AnyObject, Sendable {
    /// Called under the registry's lock just before the environment's handle closes: stop
    /// whatever would still use it (timers).
    func environmentWillClose()
}
