#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Converts between `Date` and the (seconds since 1970, nanoseconds) pair that
/// the MessagePack timestamp extension stores.
///
/// `Date` keeps a `Double` of seconds since 2001, so the whole seconds are split
/// off in that frame (exactly) and only then shifted to the 1970 epoch as an
/// integer; going through `timeIntervalSince1970` would round twice and break
/// bit-exact round trips.
package enum MessagePackTimestamp {
    package static let referenceDateOffset: Int64 = 978_307_200

    /// Returns nil for dates that are not finite or whose seconds do not fit in Int64.
    package static func components(of date: Date) -> (seconds: Int64, nanoseconds: UInt32)? {
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite else { return nil }
        let whole = interval.rounded(.down)
        // 2^63 is exactly representable; anything at or beyond it cannot become Int64.
        guard whole >= -9_223_372_036_854_775_808.0, whole < 9_223_372_036_854_775_808.0 else { return nil }
        var seconds = Int64(whole)
        var nanoseconds = ((interval - whole) * 1_000_000_000).rounded()
        if nanoseconds >= 1_000_000_000 {
            nanoseconds = 0
            let (carried, overflow) = seconds.addingReportingOverflow(1)
            if overflow { return nil }
            seconds = carried
        }
        let (unixSeconds, overflow) = seconds.addingReportingOverflow(referenceDateOffset)
        if overflow { return nil }
        return (unixSeconds, UInt32(nanoseconds))
    }

    package static func date(seconds: Int64, nanoseconds: UInt32) -> Date {
        let fraction = Double(nanoseconds) / 1_000_000_000
        let (referenceSeconds, overflow) = seconds.subtractingReportingOverflow(referenceDateOffset)
        if overflow {
            // Only reachable near Int64.min, where Double cannot resolve the offset anyway.
            return Date(timeIntervalSinceReferenceDate: Double(seconds) - Double(referenceDateOffset) + fraction)
        }
        return Date(timeIntervalSinceReferenceDate: Double(referenceSeconds) + fraction)
    }
}
