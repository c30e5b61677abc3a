import FightEngine
import Testing

@testable import FightStore

/// Many random fights, driven through the store and, side by side, through the engine over the
/// whole world in memory: the store (which hands the engine only a command's slice) must decide
/// every command the same way, and its statistics must equal the ones rebuilt from its log.
@Suite struct RandomFightsTests {
    /// A random command among `fighters` fighters and the fights so far: mostly sensible, often
    /// refused (wrong turn, wrong fighter, pair busy), so refusals are compared too.
    func randomCommand(_ state: FightState, fighters: Int64, using random: inout SeededRandom) -> Command {
        let someone = { (random: inout SeededRandom) in FighterID(Int64.random(in: 1...fighters, using: &random)) }
        let open = state.fights.values.filter(\.isOpen).sorted { $0.id < $1.id }
        let roll = Int.random(in: 0..<100, using: &random)
        if let fight = open.randomElement(using: &random), roll < 60 {
            let side: Corner = Bool.random(using: &random) ? .challenger : .opponent
            let who = fight.fighter(in: side)
            switch roll {
            case 0..<40:
                let kind = PunchType.allCases.randomElement(using: &random) ?? .jab
                // Now and then at the sequence before: a punch sent again, stale.
                let after = fight.lastSequence - (roll < 4 ? 1 : 0)
                return .punch(fight.id, by: who, after: after, kind: kind, damage: Int.random(in: 1...25, using: &random))
            case 40..<50: return .accept(fight.id, by: who)
            case 50..<54: return .decline(fight.id, by: who)
            default: return .forfeit(fight.id, by: who)
            }
        }
        switch roll {
        case 60..<80: return .challenge(someone(&random), opponent: someone(&random))
        case 80..<90: return .quickMatch(someone(&random))
        case 90..<93: return .leaveQuickMatch(someone(&random))
        default: return .settleDeadlines
        }
    }

    @Test(arguments: Backend.available, [UInt64(21), 22])
    func storeAgreesWithTheEngineAndStatisticsRebuildEqual(backend: Backend, seed: UInt64) async throws {
        let database = try TestDatabase(backend)
        var store = try await database.open()
        let referee = Referee()
        var state = FightState()
        var random = SeededRandom(seed: seed)
        var now = start
        let fighters: Int64 = 7
        var log: [Event] = []
        func apply(_ command: Command) async throws {
            let expected = referee.reduce(state, command, at: now)
            let actual = try await store.execute(command, at: now)
            #expect(actual == expected.map(\.events), "\(command) at \(now.secondsSince1970)")
            if case .success(let transition) = expected {
                state = transition.state
                log += transition.events
            }
        }
        for n in 1...fighters { try await apply(.register(Registration(username: "fighter\(n)", displayName: "F\(n)"))) }
        for step in 0..<1500 {
            // Mostly seconds apart; sometimes long enough for turns to lapse or challenges to expire.
            now =
                now
                + (Int.random(in: 0..<20, using: &random) == 0
                    ? Int64.random(in: 60...100_000, using: &random) : Int64.random(in: 0...20, using: &random))
            try await apply(randomCommand(state, fighters: fighters, using: &random))
            if step == 700 { store = try await database.open() }  // reopening changes nothing
        }

        let ended = log.filter { if case .fight(let event) = $0, case .ended = event.change { true } else { false } }
        #expect(ended.count > 50, "too few fights finished to mean anything")

        // Each fight's log is numbered 1, 2, 3, … and ends at most once.
        for fight in state.fights.values {
            let sequences = try await store.events(ofFight: fight.id).map(\.sequence)
            #expect(sequences == Array(1...fight.lastSequence))
        }
        #expect(try await store.events() == log)

        // Incremental, rebuilt in the store, and rebuilt by the engine from the log: all equal.
        let incremental = try await store.statistics()
        let rebuilt = try await store.rebuildStatistics()
        #expect(incremental == rebuilt)
        #expect(rebuilt == Statistics(rebuiltFrom: log))
        #expect(try await store.statistics() == incremental)

        // Records (changed by the engine as fights end) agree with statistics (counted from the log).
        for n in 1...fighters {
            let id = FighterID(n)
            let record = try #require(try await store.fighter(id)).record
            #expect(record == state.fighters[id]?.record)
            #expect(incremental[.fighter(id)].qtyBattles == record.fights)
            #expect(incremental[.fighter(id)].qtyWins == record.wins)
        }
        #expect(incremental[.overall].qtyBattles == ended.count)

        let audit = try await store.audit()
        #expect(audit.problems == [])
        #expect(audit.fights == state.fights.count)
    }
}
