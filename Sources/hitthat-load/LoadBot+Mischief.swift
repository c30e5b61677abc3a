import FightClient
import FightEngine
import FightProtocol

// MARK: - Bad messages

extension LoadBot {
    /// Sends one bad message of a random kind through the session, and notes the error it must be
    /// answered with. The connection must stay up and nothing stored may change: the end of the
    /// run checks both.
    func misbehave(in fight: FightView, through driver: PlayerDriver) async {
        guard let session else { return }
        recorder.count("badMessagesSent")
        switch Int.random(in: 0..<7) {
        case 0:
            expectedUnreferenced.append([.malformed])
            _ = await driver.perform(.raw(#"{"type":"punch","v":1,"token":"#))
        case 1:
            expectedUnreferenced.append([.unknownType])
            _ = await driver.perform(.raw(#"{"type":"dance","v":1,"token":"\#(session.token)"}"#))
        case 2:
            expectedUnreferenced.append([.tooLarge])
            let padding = String(repeating: "x", count: ProtocolLimits.maxMessageBytes)
            _ = await driver.perform(.raw(#"{"type":"hello","v":1,"token":"\#(session.token)","pad":"\#(padding)"}"#))
        case 3:
            // Someone else's fight, or one that does not exist.
            let punch = PunchRequest(fight: FightID(fight.id.rawValue + 1_000_000), kind: .jab, damage: 10, after: 1)
            await send(.punch(punch), as: .mischief(expected: [.refused]), through: driver)
        case 4:
            // Out of scale: more than any sensor can report.
            let punch = PunchRequest(fight: fight.id, kind: .jab, damage: 5_000, after: fight.lastSequence)
            await send(.punch(punch), as: .mischief(expected: [.invalid]), through: driver)
        case 5:
            expectedUnreferenced.append([.unauthorized])
            _ = await driver.perform(.raw(#"{"type":"history","v":1,"token":"\#(String(repeating: "0", count: 64))"}"#))
        default:
            // The punch just thrown, again: it lands (or goes stale) once, so this one must not land.
            guard let lastPunch else { return }
            await send(.punch(lastPunch), as: .mischief(expected: [.stale, .refused]), through: driver)
        }
    }
}
