import FightProtocol

// What the session asks for only so that a screen shows what is so: a fight's past after a
// restart, and cards that a fight's end or a profile update made stale. Apart from the session's
// core (connecting, following, punching), which works without any of it.

extension PlayerSession {
    /// Asks for the events of each fight in `openFights` that is not followed yet, from the first,
    /// when the configuration says a log shows them: the follower takes the fight's state from
    /// `welcome` and needs none of them, but a player back after a restart wants to see the fight
    /// so far. Called before the follower catches up on them.
    mutating func askForPasts(of openFights: [FightView], _ effects: inout [Effect]) {
        guard configuration.replaysPast else { return }
        for view in openFights where follower.fights[view.id] == nil && view.lastSequence > 0 {
            send(.replay(ReplayRequest(fight: view.id, after: 0)), &effects)
        }
    }

    /// Asks again for the cards `message` made stale, when cards are shown: both fighters' once
    /// a fight ends (their records changed), and the player's own once their profile changed
    /// (`profileUpdated` says no more than that it did).
    mutating func refreshCards(after message: ServerMessage, _ effects: inout [Effect]) {
        guard configuration.showsCards, let me, case .event(let event) = message.body else { return }
        switch event.kind {
        case .ended:
            guard let fight = event.fight.flatMap({ follower.fights[$0] }) else { return }
            for id in [fight.challenger, fight.opponent] {
                cardsAsked.insert(id)
                send(.profile(ProfileRequest(fighter: id == me ? nil : id)), &effects)
            }
        case .profileUpdated:
            send(.profile(ProfileRequest(fighter: nil)), &effects)
        default:
            break
        }
    }
}
