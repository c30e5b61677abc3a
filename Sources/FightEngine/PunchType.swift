// MARK: - PunchType

/// The kinds of punch a fight records: the detector's (`PunchKit.PunchKind`), named apart so that
/// this module depends on nothing and a file that imports both stays unambiguous. The server, which
/// imports both, turns one into the other by a switch (`FightServer`'s `DetectorTypes.swift`).
public enum PunchType: String, CaseIterable, Hashable, Sendable, Codable {
    /// A straight punch.
    case jab
    /// An upward punch.
    case uppercut
    /// A horizontal arc.
    case hook
}
