extension Relationships {
    /// One edge a value declares: its name, its destination and its delete rules.
    public struct Link: Sendable, Hashable {
        /// The edge's name ("pages", "budget").
        public let name: String
        /// The value the edge points to.
        public let destination: YapDB.Index
        /// What deleting either end does.
        public let rules: DeleteRules
        /// The source, when it is not the value declaring the edge (edges added by hand).
        let source: YapDB.Index?

        /// An edge named `name` to `destination`.
        public init(_ name: String, to destination: YapDB.Index, rules: DeleteRules = []) {
            self.init(name: name, source: nil, destination: destination, rules: rules)
        }

        /// An edge named `name` to the value `ref` points to.
        public init<U: Persistable>(_ name: String, to ref: Ref<U>, rules: DeleteRules = []) {
            self.init(name: name, source: nil, destination: ref.index, rules: rules)
        }

        init(name: String, source: YapDB.Index?, destination: YapDB.Index, rules: DeleteRules) {
            self.name = name
            self.source = source
            self.destination = destination
            self.rules = rules
        }

        /// Whether the two links are the same: their names have the same UTF-8 bytes (as the
        /// store keys edges), and their ends and rules are equal.
        public static func == (a: Link, b: Link) -> Bool {
            ExactString.bytesEqual(a.name, b.name) && a.destination == b.destination && a.rules == b.rules && a.source == b.source
        }

        /// Hashes what ``==(_:_:)`` compares, the name as its bytes.
        public func hash(into hasher: inout Hasher) {
            ExactString.hashBytes(of: name, into: &hasher)
            hasher.combine(destination)
            hasher.combine(rules)
            hasher.combine(source)
        }
    }
}
