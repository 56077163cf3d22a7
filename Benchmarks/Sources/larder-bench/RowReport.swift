import Foundation

/// One row of a run as `--json` prints it: one JSON object per line, so scripts can read a run
/// without parsing the table. Every field is present; what a row has not is `null`.
struct RowReport: Encodable {
    var id: String
    var workload: String
    /// `seconds per operation` for timed rows, `allocations per operation` for counted ones,
    /// `bytes` for sizes.
    var unit: String
    var larder: Double?
    var reference: Double?
    /// As the target states it (see ``Target/ratio(larder:reference:)``); without a target,
    /// reference / Larder (Larder / reference for sizes).
    var ratio: Double?
    var target: Target?
    /// Whether the target is met; `null` without a target or a measurement.
    var pass: Bool?

    enum CodingKeys: String, CodingKey { case id, workload, unit, larder, reference, ratio, target, pass }
    enum TargetKeys: String, CodingKey { case kind, limit, text }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(workload, forKey: .workload)
        try container.encode(unit, forKey: .unit)
        try container.encode(larder.flatMap(\.finite), forKey: .larder)
        try container.encode(reference.flatMap(\.finite), forKey: .reference)
        try container.encode(ratio.flatMap(\.finite), forKey: .ratio)
        if let target {
            var nested = container.nestedContainer(keyedBy: TargetKeys.self, forKey: .target)
            try nested.encode(target.kind.rawValue, forKey: .kind)
            try nested.encode(target.limit, forKey: .limit)
            try nested.encode(target.text, forKey: .text)
        } else {
            try container.encodeNil(forKey: .target)
        }
        try container.encode(pass, forKey: .pass)
    }

    /// The object on one line, keys sorted.
    var line: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{\"id\":\"\(id)\",\"error\":\"unencodable\"}"
    }
}

private extension Double {
    /// `self` unless it is infinite or NaN, which JSON cannot carry.
    var finite: Double? { isFinite ? self : nil }
}
