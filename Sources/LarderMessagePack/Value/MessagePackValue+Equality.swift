extension MessagePackValue {
    /// Whether `a` and `b` are the same value: the same case holding equal payloads, arrays and
    /// maps element by element (a map's entries in order). Floats compare as floats do (NaN
    /// differs from itself).
    ///
    /// The pairs still to compare are kept on a stack of its own, not the thread's, so values
    /// of any nesting compare.
    /// - Complexity: O(*n*) in the size of the smaller value.
    public static func == (a: MessagePackValue, b: MessagePackValue) -> Bool {
        var pending = [(a, b)]
        while let (a, b) = pending.popLast() {
            switch (a, b) {
            case (.nil, .nil):
                continue
            case (.bool(let x), .bool(let y)):
                guard x == y else { return false }
            case (.negative(let x), .negative(let y)):
                guard x == y else { return false }
            case (.unsigned(let x), .unsigned(let y)):
                guard x == y else { return false }
            case (.float(let x), .float(let y)):
                guard x == y else { return false }
            case (.double(let x), .double(let y)):
                guard x == y else { return false }
            case (.string(let x), .string(let y)), (.binary(let x), .binary(let y)):
                guard x == y else { return false }
            case (.array(let x), .array(let y)):
                guard x.count == y.count else { return false }
                pending.append(contentsOf: zip(x, y))
            case (.map(let x), .map(let y)):
                guard x.count == y.count else { return false }
                for (p, q) in zip(x, y) {
                    pending.append((p.value, q.value))
                    pending.append((p.key, q.key))
                }
            case (.ext(let xType, let xData), .ext(let yType, let yData)):
                guard xType == yType, xData == yData else { return false }
            default:
                return false
            }
        }
        return true
    }
}
