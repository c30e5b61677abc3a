// MARK: - PunchKind

/// The kinds of punch the detector tells apart.
public enum PunchKind: String, CaseIterable, Hashable, Sendable, Codable {
    /// A straight punch: a horizontal thrust stopped at full extension.
    case jab
    /// An upward punch, stopped by the muscles rather than the elbow's lockout.
    case uppercut
    /// A horizontal arc. Told where the source has a gyroscope (the path's sideways bend, with
    /// the turns undone); without one the detector reports hooks as jabs or uppercuts.
    case hook
}

/// A labelled punch in a recorded trace: the ground truth that `evaluate` scores against.
public struct PunchLabel: Hashable, Sendable {
    /// Seconds since the first sample when the punch begins (the thrust starts).
    public var start: Double
    /// Seconds since the first sample when the punch is over (the stop, or the end of retraction).
    public var end: Double
    /// What the punch is.
    public var kind: PunchKind

    /// Creates a label.
    public init(start: Double, end: Double, kind: PunchKind) {
        self.start = start
        self.end = end
        self.kind = kind
    }
}
