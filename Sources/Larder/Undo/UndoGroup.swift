import Foundation
import Synchronization

/// Undoable writes made inside ``DatabaseAccess/undoGroup(named:_:)``: they join one step. Found
/// through a task-local value, so that it follows the code that opened it, on its thread and in
/// its child tasks.
final class UndoGroup: Sendable {
    @TaskLocal static var current: UndoGroup?

    /// The name of the step the group makes.
    let name: String
    /// Written into the group's step, so that a write joins only a step this group made (never
    /// one that took the same number after a failed commit of the group's).
    let token = UUID().uuidString
    /// The environment it groups writes of (another store's writes are not grouped).
    let environment: ObjectIdentifier
    /// The step the group's writes have made so far, once there is one.
    private let step = Mutex<UInt64?>(nil)

    init(name: String, environment: ObjectIdentifier) {
        self.name = name
        self.environment = environment
    }

    var stepNumber: UInt64? {
        get { step.withLock { $0 } }
        set { step.withLock { $0 = newValue } }
    }
}
