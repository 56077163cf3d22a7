import Synchronization

/// A view followed as a list user interface shows it: the items of some of its groups (or all,
/// as sections), within a range of positions, as of the latest commit, with the row changes
/// from the element before (``ViewPage``): what YapDatabase's mappings gave a table view.
///
/// ```swift
/// for try await page in db.observe(byDate, groups: ["inbox", "archive"], range: .first(50)) {
///     if page.isReset { reloadTable(page.sections) } else { applyBatchUpdate(page.rowChanges, page.sectionChanges) }
/// }
/// ```
///
/// Each element reads the sections at the newest commit and compares them with the element
/// before, so the changes are right whatever happened in between: this process's commits or
/// another's, commits merged while the consumer was busy, a range moved by ``setRange(_:)``.
/// A commit wakes the observation only when it touches the view's collections, or rebuilds or
/// removes the view (see `observe { txn in … }`); an element whose sections did not change is
/// not yielded. After a rebuild, a removal and registration again, or commits the change log no
/// longer has, the element is a reset (``ViewPage/isReset``): show it whole.
///
/// It ends when the consuming task is cancelled, and with the error when a read fails (the view
/// is not registered, a value does not decode).
public struct ViewObservation<Object: Codable & Sendable, Metadata: Codable & Sendable>: AsyncSequence, Sendable {
    /// One element: the sections shown and their changes.
    public typealias Element = ViewPage<Object>
    /// What a read threw.
    public typealias Failure = any Error

    let engine: ObservedRead
    let handle: ViewHandle<Object, Metadata>
    /// The groups followed, as sections in this order; `nil`: every group of the view.
    let groups: [String]?
    private let window: Window

    /// The range, shared by the copies of the observation and its iterator.
    final class Window: Sendable {
        let range: Mutex<ViewRange>
        init(_ range: ViewRange) { self.range = Mutex(range) }
    }

    init(reader: any DatabaseAccess, handle: ViewHandle<Object, Metadata>, groups: [String]?, range: ViewRange) {
        engine = ObservedRead(reader: reader)
        self.handle = handle
        self.groups = groups
        window = Window(range)
    }

    /// The positions each section shows.
    public var range: ViewRange { window.range.withLock { $0 } }

    /// Shows `range` from the next element on (a window that slides as the list scrolls): the
    /// next element comes at once, with the rows that left the window as deletes and those that
    /// entered as inserts.
    public func setRange(_ range: ViewRange) {
        window.range.withLock { $0 = range }
        engine.poke()
    }

    /// The sequence's iterator; the first ``Iterator/next()`` returns the current sections at
    /// once, as a reset.
    public func makeAsyncIterator() -> Iterator { Iterator(observation: self) }

    /// Iterates the elements; `nil` once the consuming task is cancelled or a read failed.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let observation: ViewObservation
        var last: ViewPage<Object>?
        var ended = false

        /// The current sections the first time; after that, waits for a commit that touches the
        /// view (or a new range), reads the sections again and returns them with their changes
        /// when they differ. `nil` (the end) once the consuming task is cancelled.
        /// - Throws: ``LarderError`` when a read fails (with
        ///   ``LarderError/Code/extensionNotRegistered`` when the view is not registered in this
        ///   process, ``LarderError/Code/decodingFailed`` when an object does not decode); the
        ///   sequence ends with it.
        public mutating func next() async throws -> ViewPage<Object>? {
            guard !ended else { return nil }
            while true {
                if let last {
                    guard await observation.engine.waitForCommit(after: last.commit, wakesOnPoke: true) else {
                        ended = true
                        return nil
                    }
                }
                if Task.isCancelled {
                    ended = true
                    return nil
                }
                let (handle, groups, range, since) = (observation.handle, observation.groups, observation.range, last?.commit)
                let page: ViewPage<Object>
                do {
                    let (snapshot, commit) = try await observation.engine.run { txn in
                        try ViewSnapshot.read(handle, groups: groups, range: range, since: since, in: txn)
                    }
                    page = ViewPage(snapshot: snapshot, commit: commit, following: last)
                } catch {
                    ended = true
                    throw error
                }
                defer { last = page }
                if let last, !page.isReset, page.rowChanges.isEmpty, page.sectionChanges.isEmpty, page.hasSameShape(as: last) { continue }
                return page
            }
        }
    }
}

extension ViewPage {
    /// Whether the two elements show the same positions of groups of the same sizes (then an
    /// element without row or section changes has nothing new to show).
    func hasSameShape(as other: ViewPage) -> Bool {
        sections.count == other.sections.count
            && zip(sections, other.sections).allSatisfy { $0.numberOfItems == $1.numberOfItems && $0.positions == $1.positions }
    }
}

extension DatabaseAccess {
    /// The view `handle` followed: the items of `groups` (every group of the view when `nil`)
    /// within `range`, now and after each commit that changes them, with the row changes from
    /// the element before (see ``ViewObservation``).
    ///
    /// Named groups are sections whether they hold items or not; with `groups: nil` a section
    /// appears and disappears with its group (``ViewPage/sectionChanges``). Objects are read
    /// through this database or connection; on a connection with a pinned snapshot every element
    /// shows the pinned commit.
    public func observe<Object, Metadata>(_ handle: ViewHandle<Object, Metadata>, groups: [String]? = nil, range: ViewRange = .all) -> ViewObservation<Object, Metadata> {
        ViewObservation(reader: self, handle: handle, groups: groups, range: range)
    }
}
