import FightEngine
import FightProtocol
import FightStore

// MARK: - Requests that only read

extension FightHub {
    /// Answers `request` when it only reads (`hello`, `profile`, `fight`, `replay`, `history`,
    /// `statistics`, `punchProfile`); `nil` for any other, which `handle` takes. The store is read on the
    /// server's threads for waiting on the database (`DatabaseThreads`), without the hub: a
    /// thousand clients saying hello at once (a server's start, or another's outage sending its
    /// clients here) need nothing of its state. Only who is connected, for `welcome`, is asked of
    /// the hub. A reply may then leave after an event pushed meanwhile, as one
    /// answered on the hub may: a client takes both in either order.
    nonisolated func answerReading(_ request: ClientRequest, by me: FighterID, ref: Int?) async -> ServerMessage? {
        do {
            let body: ServerBody
            switch request {
            case .hello:
                let (open, card) = try await blocking { [self] in
                    (try store.openFights(of: me), FighterCard(try fighter(me), showingLocation: true))
                }
                let opponents = await presenceOfOpponents(of: me, in: open)
                let profile = try await storedProfile(of: me)
                body = .welcome(
                    Welcome(
                        fighter: card, openFights: open.map { FightView($0, seenBy: me) }, presence: opponents,
                        punchProfile: profile.map(WirePunchProfile.init), rules: rules))
            case .profile(let request):
                let id = request.fighter ?? me
                body = try await blocking { [self] in
                    .profile(ProfileReply(fighter: FighterCard(try fighter(id), showingLocation: id == me)))
                }
            case .fight(let ref):
                body = try await blocking { [self] in .fight(FightReply(fight: FightView(try fight(ref.fight, of: me), seenBy: me))) }
            case .replay(let request):
                body = try await blocking { [self] in
                    let fight = try fight(request.fight, of: me)
                    let events = try store.events(ofFight: fight.id).filter { $0.sequence > request.after }
                    return .events(EventsReply(fight: request.fight, events: events.map(WireEvent.init)))
                }
            case .punchProfile:
                let profile = try await storedProfile(of: me)
                body = .punchProfile(PunchProfileReply(profile: profile.map(WirePunchProfile.init)))
            case .history:
                body = try await blocking { [self] in
                    .history(HistoryReply(fights: try store.fights(of: me).map { FightView($0, seenBy: me) }))
                }
            case .statistics(let request):
                body = try await blocking { [self] in
                    let versus = request.versus.map { StatScope.pair(me, versus: $0) }
                    let statistics = try store.statistics([.fighter(me), .overall] + (versus.map { [$0] } ?? []))
                    return .statistics(
                        StatisticsReply(
                            fighter: WireStatLine(statistics[.fighter(me)]), overall: WireStatLine(statistics[.overall]),
                            versus: versus.map { WireStatLine(statistics[$0]) }))
                }
            default:
                return nil
            }
            return ServerMessage(ref: ref, body)
        } catch {
            return refusal(error, of: request, by: me, ref: ref)
        }
    }

    /// Runs `read` on the threads for waiting on the database: a database that is slow to answer
    /// holds one of them, not the hub's or one of Swift's few.
    nonisolated func blocking<T: Sendable>(_ read: @escaping @Sendable () throws -> T) async throws -> T {
        try await databaseThreads.run(read)
    }
}
