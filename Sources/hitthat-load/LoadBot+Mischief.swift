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
        switch Int.random(in: 0..<8) {
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
            let punch = PunchRequest(fight: FightID(fight.id.rawValue + 1_000_000), kind: .jab, after: 1)
            await send(.punch(punch), as: .mischief(expected: [.refused]), through: driver)
        case 4:
            // A punch that states its own damage: the server works damage out itself.
            expectedUnreferenced.append([.invalid])
            _ = await driver.perform(
                .raw(
                    #"{"type":"punch","v":1,"token":"\#(session.token)","fight":\#(fight.id.rawValue),"kind":"jab","damage":5000,"after":\#(fight.lastSequence)}"#
                ))
        case 5:
            expectedUnreferenced.append([.unauthorized])
            _ = await driver.perform(.raw(#"{"type":"history","v":1,"token":"\#(String(repeating: "0", count: 64))"}"#))
        case 6:
            // Motion no sensor makes: 1000 g.
            let batch = MotionBatch(
                fight: fight.id, after: fight.lastSequence, hold: -1,
                samples: [MotionRow(time: 0, acceleration: SIMD3(0, 9_806.65, 0))])
            await send(.motion(batch), as: .mischief(expected: [.invalid]), through: driver)
        default:
            // The motion just streamed, again in a hold of its own at a sequence already past: it
            // must not land.
            guard var lastPunch else { return }
            lastPunch.hold = -2
            lastPunch.after -= 1
            await send(.motion(lastPunch), as: .mischief(expected: [.stale]), through: driver)
        }
    }
}
