import FightEngine
import FightProtocol
import PunchKit

// MARK: - The detector's types and the fight's and the wire's

// Switches, not names: a case added to either side stops these from compiling until the other
// side has its place for it.

extension PunchType {
    /// The fight's kind of a punch the detector found.
    init(_ kind: PunchKind) {
        switch kind {
        case .jab: self = .jab
        case .uppercut: self = .uppercut
        case .hook: self = .hook
        }
    }
}

extension PunchKind {
    /// The detector's kind of a punch a fight names (a teaching hold asks for one).
    init(_ type: PunchType) {
        switch type {
        case .jab: self = .jab
        case .uppercut: self = .uppercut
        case .hook: self = .hook
        }
    }
}

extension Hand {
    /// The detector's hand of a teaching's.
    init(_ hand: TeachingHand) {
        switch hand {
        case .left: self = .left
        case .right: self = .right
        }
    }
}

extension TeachingHand {
    /// The wire's hand of a profile's.
    init(_ hand: Hand) {
        switch hand {
        case .left: self = .left
        case .right: self = .right
        }
    }
}
