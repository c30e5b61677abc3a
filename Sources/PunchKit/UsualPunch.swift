// MARK: - UsualPunch

/// A player's usual stop, followed over their last punches, so that a punch's damage measures
/// the effort against the player's own rather than the device's grip.
///
/// How hard a stop reads depends on where the sensor sits more than on the punch: a phone gripped
/// in the hand snaps to a halt with the fingers, one strapped to the wrist is stopped by the arm,
/// and reads a quarter of the peak for the same effort. A player's own punches are what can be
/// measured without teaching: their usual peak counts as `PunchProfile.usualPeakG`, and a punch
/// harder than their usual does more. Until a player has punched, the usual peak is that of a
/// device held in the hand, so a player who does not punch differently sees no difference.
///
/// The usual peak is the median of the last eight peaks, the hand-held usual counted as the first
/// until eight punches have pushed it out, so that one wild reading moves nothing and a new grip
/// is followed within a few punches. A value: the
/// detector keeps one for its stream, and a server keeps one a fighter across their swings.
public struct UsualPunch: Hashable, Sendable {
    /// The last peaks, in g.
    private var peaks = LastEight()
    /// Whether punches noted are taken in: not in a copy held still (`heldStill`).
    private var follows = true

    /// The least usual peak counted, in g: below it, a player moving the sensor gently would have
    /// every twitch do a full punch's damage.
    public static let leastPeakG = 1.5

    /// A player not seen punching yet.
    public init() { note(PunchProfile.usualPeakG) }

    /// The usual peak so far, in g.
    public var peakG: Double { peaks.median }

    /// What a stop's peak is multiplied by for its damage: the hand-held usual over this player's.
    public var scale: Double { PunchProfile.usualPeakG / max(peakG, Self.leastPeakG) }

    /// This usual punch, taking no punch in from now on: what a swing's detector measures by when
    /// its owner notes the swing itself (a server's detector also reads the moments before the
    /// press, and would count the last swing twice).
    public var heldStill: UsualPunch {
        var copy = self
        copy.follows = false
        return copy
    }

    /// Takes a punch's peak, in g, into the usual one; a peak that is not a positive finite
    /// number is no punch's and is passed over, as is every peak in a copy held still.
    public mutating func note(_ peakG: Double) {
        guard follows, peakG.isFinite, peakG > 0 else { return }
        peaks.append(peakG)
    }
}

// MARK: - LastEight

/// The last eight values of a series (fewer before there were eight), kept with no allocation.
struct LastEight: Hashable, Sendable {
    /// The values, oldest first; the first `count` are in use.
    private var values = SIMD8<Double>.zero
    private(set) var count = 0

    /// Appends `value`, dropping the oldest when there are eight.
    mutating func append(_ value: Double) {
        if count == 8 {
            values = SIMD8(values[1], values[2], values[3], values[4], values[5], values[6], values[7], value)
        } else {
            values[count] = value
            count += 1
        }
    }

    /// Raises the newest value to `value`, if that is more.
    mutating func raiseNewest(to value: Double) {
        guard count > 0, values[count - 1] < value else { return }
        values[count - 1] = value
    }

    /// The median (the upper of the middle two for an even count), by rank; 0 with none.
    var median: Double {
        for i in 0..<count {
            var below = 0
            var equal = 0
            for j in 0..<count {
                if values[j] < values[i] { below += 1 } else if values[j] == values[i] { equal += 1 }
            }
            if below <= count / 2 && count / 2 < below + equal { return values[i] }
        }
        return 0
    }
}
