import Observation

/// A view group (or several, as sections) kept current as an `@Observable` object: ``page``
/// follows `observe(handle, groups:range:)` (see ``ViewObservation``), set on the actor the live
/// view was made on, so that a SwiftUI list that reads it redraws when a commit changes what it
/// shows.
///
/// ```swift
/// @MainActor final class InboxModel {
///     let inbox: LiveView<Note>
///     init(db: Database, byDate: ViewHandle<Note, NoMetadata>) {
///         inbox = db.liveView(byDate, groups: ["inbox"], range: .first(50))
///     }
/// }
/// ```
///
/// ``page`` is `nil` until the first read returns; each later page carries the row and section
/// changes from the page before it (``ViewPage/rowChanges``), for a list that animates them, or
/// is a reset (``ViewPage/isReset``) to show whole. Read ``page`` and ``error`` on that actor.
/// The live view stops when it is released or ``stop()`` is called; when a read throws,
/// ``error`` holds the error and ``page`` keeps the last page.
@Observable
public final class LiveView<Object: Sendable>: @unchecked Sendable {
    // Only the actor the live view was made on sets `page` and `error` (the task below runs
    // there); the registrar the macro adds is itself thread-safe.

    /// The latest page: the sections shown and their changes from the page before.
    public private(set) var page: ViewPage<Object>?
    /// The error that ended the live view, if a read threw.
    public private(set) var error: (any Error)?

    @ObservationIgnored private var task: Task<Void, Never>?
    @ObservationIgnored private let moveWindow: @Sendable (ViewRange) -> Void

    init(moveWindow: @escaping @Sendable (ViewRange) -> Void) {
        self.moveWindow = moveWindow
    }

    /// Starts following `observation`, setting ``page`` on `actor`.
    func start<Metadata>(_ observation: ViewObservation<Object, Metadata>, isolation actor: isolated (any Actor)?) {
        task = Task { [weak self, actor] in
            _ = actor  // the task runs on the actor the live view was made on
            do {
                for try await page in observation {
                    guard let self else { return }
                    self.page = page
                }
            } catch {
                self?.error = error
            }
        }
    }

    /// Shows `range` from the next page on (a window that slides as the list scrolls): the next
    /// page comes at once, with the rows that left the window as deletes and those that entered
    /// as inserts.
    public func setRange(_ range: ViewRange) {
        moveWindow(range)
    }

    /// Stops following the store: ``page`` keeps its last value.
    public func stop() {
        task?.cancel()
    }

    deinit { task?.cancel() }
}

extension DatabaseAccess {
    /// The view `handle`'s `groups` (every group when `nil`) within `range`, as an
    /// `@Observable` ``LiveView`` whose ``LiveView/page`` follows
    /// `observe(handle, groups:range:)`, set on the calling actor (the main actor, called from a
    /// view model).
    public func liveView<Object, Metadata>(
        _ handle: ViewHandle<Object, Metadata>, groups: [String]? = nil, range: ViewRange = .all,
        isolation actor: isolated (any Actor)? = #isolation
    ) -> LiveView<Object> {
        let observation = observe(handle, groups: groups, range: range)
        let view = LiveView<Object> { observation.setRange($0) }
        view.start(observation, isolation: actor)
        return view
    }
}
