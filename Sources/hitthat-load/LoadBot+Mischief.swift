import FightProtocol

// MARK: - Bad messages

extension LoadBot {
    /// Sends one bad message of a random kind, and notes the error it must be answered with. The
    /// connection must stay up and nothing stored may change: the end of the run checks both.
    func misbehave(in fight: FightView) async {
        guard let client, let session else { return }
        recorder.count("badMessagesSent")
        do {
            switch Int.random(in: 0..<7) {
            case 0:
                expectedUnreferenced.append([.malformed])
                try await client.sendRaw(#"{"type":"punch","v":1,"token":"#)
            case 1:
                expectedUnreferenced.append([.unknownType])
                try await client.sendRaw(#"{"type":"dance","v":1,"token":"\#(session.token)"}"#)
            case 2:
                expectedUnreferenced.append([.tooLarge])
                let padding = String(repeating: "x", count: ProtocolLimits.maxMessageBytes)
                try await client.sendRaw(#"{"type":"hello","v":1,"token":"\#(session.token)","pad":"\#(padding)"}"#)
            case 3:
                // Someone else's fight, or one that does not exist.
                let punch = PunchRequest(fight: fight.id + 1_000_000, kind: .jab, damage: 10, after: 1)
                try await send(.punch(punch), as: .mischief(expected: [.refused]))
            case 4:
                // Out of scale: more than any sensor can report.
                let punch = PunchRequest(fight: fight.id, kind: .jab, damage: 5_000, after: fight.lastSequence)
                try await send(.punch(punch), as: .mischief(expected: [.invalid]))
            case 5:
                expectedUnreferenced.append([.unauthorized])
                try await client.sendRaw(#"{"type":"history","v":1,"token":"\#(String(repeating: "0", count: 64))"}"#)
            default:
                // The previous punch again: it landed already (or went stale), so it must not land twice.
                guard let lastPunch else { return }
                try await send(.punch(lastPunch), as: .mischief(expected: [.stale, .refused]))
            }
        } catch {
            recorder.count("connectionsLost")
        }
    }
}
