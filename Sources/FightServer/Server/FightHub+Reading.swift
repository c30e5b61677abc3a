import FightEngine
import FightProtocol
import FightStore

// MARK: - Requests that only read

extension FightHub {
    /// Answers `request` when it only reads (`hello`, `profile`, `fight`, `replay`, `history`,
    /// `statistics`, `punchProfile`); `nil` for any other, which `handle` takes. The store is awaited off
    /// the hub (the method is nonisolated): a
    /// thousand clients saying hello at once (a server's start, or another's outage sending its
    /// clients here) need nothing of its state. Only who is connected, for `welcome`, is asked of
    /// the hub. A reply may then leave after an event pushed meanwhile, as one
    /// answered on the hub may: a client takes both in either order.
    nonisolated func answerReading(_ request: ClientRequest, by me: FighterID, ref: Int?) async -> ServerMessage? {
        do {
            let body: ServerBody
            switch request {
            case .hello:
                let open = try await store.openFights(of: me)
                let card = FighterCard(try await fighter(me), showingLocation: true)
                let opponents = await presenceOfOpponents(of: me, in: open)
                let profile = try await storedProfile(of: me)
                body = .welcome(
                    Welcome(
                        fighter: card, openFights: open.map { FightView($0, seenBy: me) }, presence: opponents,
                        punchProfile: profile.map(WirePunchProfile.init), rules: rules))
            case .profile(let request):
                let id = request.fighter ?? me
                body = .profile(ProfileReply(fighter: FighterCard(try await fighter(id), showingLocation: id == me)))
            case .fight(let ref):
                body = .fight(FightReply(fight: FightView(try await fight(ref.fight, of: me), seenBy: me)))
            case .replay(let request):
                let fight = try await fight(request.fight, of: me)
                let events = try await store.events(ofFight: fight.id).filter { $0.sequence > request.after }
                body = .events(EventsReply(fight: request.fight, events: events.map(WireEvent.init)))
            case .punchProfile:
                let profile = try await storedProfile(of: me)
                body = .punchProfile(PunchProfileReply(profile: profile.map(WirePunchProfile.init)))
            case .history:
                body = .history(HistoryReply(fights: try await store.fights(of: me).map { FightView($0, seenBy: me) }))
            case .statistics(let request):
                let versus = request.versus.map { StatScope.pair(me, versus: $0) }
                let statistics = try await store.statistics([.fighter(me), .overall] + (versus.map { [$0] } ?? []))
                body = .statistics(
                    StatisticsReply(
                        fighter: WireStatLine(statistics[.fighter(me)]), overall: WireStatLine(statistics[.overall]),
                        versus: versus.map { WireStatLine(statistics[$0]) }))
            default:
                return nil
            }
            return ServerMessage(ref: ref, body)
        } catch {
            return refusal(error, of: request, by: me, ref: ref)
        }
    }
}
