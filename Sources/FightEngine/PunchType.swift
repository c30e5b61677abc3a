// MARK: - PunchType

/// The kinds of punch a fight records. The raw values are the detector's (`PunchKit.PunchKind`),
/// so a punch is passed on by name, `PunchType(rawValue: punch.kind.rawValue)`, without this module
/// depending on the detector; the different name keeps a file that imports both unambiguous.
public enum PunchType: String, CaseIterable, Hashable, Sendable, Codable {
    /// A straight punch.
    case jab
    /// An upward punch.
    case uppercut
    /// A horizontal arc.
    case hook
}
