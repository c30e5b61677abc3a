import FightClient
import FightEngine
import FightProtocol

// MARK: - Checking the run

extension LoadBot {
    /// Checks, over a connection of its own, that the server's log holds every fight event this
    /// client saw, unchanged; that the server's state of each fight is what the client followed;
    /// and that the client's record and statistics add up to its fights. Problems go to the recorder.
    func verify() async {
        guard let session, let me else { return }
        do {
            let client = try await FightClient.connect(session, to: address)
            let conversation = Conversation(client)
            do {
                try await check(over: conversation, as: me)
            } catch {
                recorder.problem("\(credentials.username): could not check the run: \(error)")
            }
            await client.close()
        } catch {
            recorder.problem("\(credentials.username): could not connect to check the run: \(error)")
        }
    }

    private func check(over conversation: Conversation, as me: FighterID) async throws {
        let name = credentials.username
        guard case .history(let history) = try await conversation.ask(.history) else {
            return recorder.problem("\(name): history was not answered with history")
        }
        var record = (wins: 0, losses: 0, draws: 0)
        let seenByFight = Dictionary(grouping: seen, by: \.key.fight)
        for view in history.fights {
            recorder.count("fightsChecked")
            if let followed = follower.fights[view.id] {
                if let difference = followed.difference(from: view) {
                    recorder.problem("\(name): \(view.id): followed \(difference)")
                }
            } else {
                recorder.problem("\(name): \(view.id) is in the history but the client never heard of it")
            }
            guard case .events(let log) = try await conversation.ask(.replay(ReplayRequest(fight: view.id, after: 0)))
            else { return recorder.problem("\(name): replay was not answered with events") }
            let logged = Dictionary(log.events.map { ($0.sequence ?? 0, $0) }, uniquingKeysWith: { first, _ in first })
            let seenHere = seenByFight[view.id] ?? []
            for (key, event) in seenHere where logged[key.sequence] != event {
                recorder.problem(
                    "\(name): \(view.id) sequence \(key.sequence): saw \(event.kind), the log has \(logged[key.sequence].map { "\($0.kind)" } ?? "nothing")")
            }
            let accounting = LogAccounting(
                logged: log.events.compactMap(\.sequence), seen: seenHere.map(\.key.sequence),
                stateTakenAt: stateTaken[view.id] ?? 0)
            if !accounting.lost.isEmpty {
                recorder.count("eventsLost", accounting.lost.count)
                recorder.problem("\(name): \(view.id) sequences \(accounting.lost): in the log, never received")
            }
            if !accounting.loggedTwice.isEmpty {
                recorder.count("eventsLoggedTwice", accounting.loggedTwice.count)
                recorder.problem("\(name): \(view.id) sequences \(accounting.loggedTwice): in the log twice")
            }
            recorder.count("eventsChecked", log.events.count)
            if view.ending?.known?.isDecided == true {
                if view.winner == me { record.wins += 1 } else if view.winner == nil { record.draws += 1 } else { record.losses += 1 }
            }
        }
        let historyIDs = Set(history.fights.map(\.id))
        for id in follower.fights.keys where !historyIDs.contains(id) {
            recorder.problem("\(name): \(id) was followed but is not in the history")
        }
        guard case .profile(let profile) = try await conversation.ask(.profile(ProfileRequest())) else {
            return recorder.problem("\(name): profile was not answered with profile")
        }
        let card = profile.fighter
        if (card.wins, card.losses, card.draws) != record {
            recorder.problem(
                "\(name): record \(card.wins)-\(card.losses)-\(card.draws), its fights say \(record.wins)-\(record.losses)-\(record.draws)")
        }
        guard case .statistics(let statistics) = try await conversation.ask(.statistics(StatisticsRequest())) else {
            return recorder.problem("\(name): statistics was not answered with statistics")
        }
        let line = statistics.fighter
        if line.qtyBattles != record.wins + record.losses + record.draws || line.qtyWins != record.wins {
            recorder.problem(
                "\(name): statistics \(line.qtyWins) won of \(line.qtyBattles), its fights say \(record.wins) of \(record.wins + record.losses + record.draws)")
        }
    }
}

// MARK: - Accounting

/// A fight's log against what one client received of it, by sequence.
struct LogAccounting: Equatable {
    /// Sequences in the log after the first one the client received that it never received,
    /// live or by replay, nor skipped by taking the fight's state: a gap no replay filled. (What
    /// the client skipped by taking the fight's state, when it first heard of the fight or after
    /// a stale punch, the end of the run compares apart: the state it followed against the server's.)
    var lost: [Int]
    /// Sequences the log holds more than once: an event applied twice.
    var loggedTwice: [Int]
}

extension LogAccounting {
    /// The accounting of a log of `logged` sequences, of which the client received `seen` and
    /// took the fight's state at sequence `stateTakenAt` at the latest.
    init(logged: [Int], seen: [Int], stateTakenAt: Int = 0) {
        let received = Set(seen)
        var counts: [Int: Int] = [:]
        for sequence in logged { counts[sequence, default: 0] += 1 }
        let loggedTwice = counts.filter { $0.value > 1 }.keys.sorted()
        guard let first = received.min() else {
            self.init(lost: [], loggedTwice: loggedTwice)
            return
        }
        let lost = counts.keys.filter { $0 > max(first, stateTakenAt) && !received.contains($0) }.sorted()
        self.init(lost: lost, loggedTwice: loggedTwice)
    }
}

// MARK: - Conversation

/// Requests over one connection, one at a time, each waiting for its answer (pushed events in
/// between are passed over), paced under the server's rate limit.
private actor Conversation {
    let client: FightClient
    private var texts: AsyncThrowingStream<String, any Error>.Iterator

    init(_ client: FightClient) {
        self.client = client
        texts = client.texts.makeAsyncIterator()
    }

    func ask(_ request: ClientRequest) async throws -> ServerBody {
        try await Task.sleep(for: .milliseconds(60))
        let ref = try await client.send(request)
        // The iterator shares the stream's state, so the copy reads on where the last answer left off.
        var texts = self.texts
        while let text = try await texts.next(isolation: self) {
            let message = try MessageCodec.decodeReply(text)
            if message.ref == ref { return message.body }
        }
        throw ConnectionError("the server closed the connection before answering \(request.type)")
    }
}

extension FightView {
    /// What differs between this view and `other` in what the fight's events decide, if anything.
    func difference(from other: FightView) -> String? {
        var found: [String] = []
        if lastSequence != other.lastSequence { found.append("to sequence \(lastSequence), the server is at \(other.lastSequence)") }
        if phase != other.phase { found.append("as \(phase), the server has \(other.phase)") }
        if (staminaChallenger, staminaOpponent) != (other.staminaChallenger, other.staminaOpponent) {
            found.append(
                "stamina \(staminaChallenger)/\(staminaOpponent), the server has \(other.staminaChallenger)/\(other.staminaOpponent)")
        }
        if (punchesChallenger, punchesOpponent) != (other.punchesChallenger, other.punchesOpponent) {
            found.append("punches differ")
        }
        if winner != other.winner { found.append("winner \(winner.map(String.init) ?? "none"), the server has \(other.winner.map(String.init) ?? "none")") }
        return found.isEmpty ? nil : found.joined(separator: "; ")
    }
}
