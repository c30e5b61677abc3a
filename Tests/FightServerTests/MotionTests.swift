import FightClient
import FightEngine
import FightProtocol
import Foundation
import MotionInput
import PunchKit
import Testing

/// A sensor's punch decided by the server: samples streamed as `motion` holds land what `hitthat
/// detect` finds in the same samples, a hold without a punch says so, and motion that no sensor
/// makes is refused with a typed error, landing nothing and leaving the server well.
@Suite struct MotionTests {
    // MARK: - The punches `detect` finds

    /// A generated trace, with a gyroscope, cut into holds that begin 0.6 s before each labelled
    /// punch: each hold, streamed in the fighter's turn, lands the first punch `hitthat detect`
    /// finds in the same samples (its kind, and its damage up to the kind's ceiling, measured
    /// against the thrower's usual punch over their earlier holds), or ends with `holdEnded` where
    /// `detect` finds none.
    @Test func holdsLandWhatDetectFindsInTheSameSamples() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("motion-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("session.csv").path
        let simulate = try RunningCommand([
            "simulate", "--gyroscope", "--seed", "29", "--punches", "12", "--kinds", "jab", "uppercut", "hook",
            "--output", trace,
        ])
        #expect(try await simulate.exitStatus() == 0)
        let rows = try Self.wireRows(of: trace)
        let labels = try String(contentsOfFile: folder.appendingPathComponent("session.labels.csv").path, encoding: .utf8)
            .split(separator: "\n").dropFirst().compactMap { Double($0.split(separator: ",")[0]) }
        try #require(labels.count == 12)

        let ring = try await FightOverLoopbackTests.ring()
        let meter = Rules().meter
        var fight = ring.fight
        var landed = 0
        var ended = 0
        var usual: [FighterID: UsualPunch] = [:]
        for (number, start) in labels.enumerated() {
            let hold = rows.filter { $0.time >= start - 0.6 && $0.time < start + 1.2 }
            // What `detect` finds in exactly these numbers, written as a phone's export has them.
            let file = folder.appendingPathComponent("hold-\(number).csv").path
            try Self.csv(hold).write(toFile: file, atomically: true, encoding: .utf8)
            let detect = try RunningCommand(["detect", "--json", file])
            #expect(try await detect.exitStatus() == 0)
            // A hold's punch needs a strength window of its samples up to its hump (`t` + half one).
            let found = detect.output.compactMap(DetectedLine.init).filter {
                $0.t >= DetectorConfiguration().strengthWindow / 2
            }

            var view = try #require(try await ring.alice.request(.fight(FightRef(fight: fight))).fightView)
            if view.phase != .active {
                // A knockout: a new fight, so that every hold is thrown.
                let challenged = try #require(
                    try await ring.alice.command(.challenge(OpponentRef(opponent: ring.bob.id))).event)
                fight = try #require(challenged.fight)
                try #require(try await ring.bob.command(.accept(FightRef(fight: fight))).error == nil)
                view = try #require(try await ring.alice.request(.fight(FightRef(fight: fight))).fightView)
            }
            let thrower = view.turn == ring.alice.id ? ring.alice : ring.bob
            let answer = try await thrower.hold(hold, fight: fight, after: view.lastSequence, hold: number)
            if let first = found.first {
                let event = try #require(answer.event, "hold \(number): detect found \(first), the server \(answer)")
                let kind = try #require(PunchType(rawValue: first.type))
                #expect(event.kind == .punched)
                #expect(event.punch == kind, "hold \(number)")
                // `detect` read the hold alone; the server, after the thrower's earlier swings. (The
                // peak is printed to a hundredth of a g: the damage may round apart by one.)
                let scale = usual[thrower.id, default: UsualPunch()].scale
                let perG = DetectorConfiguration().damagePerG
                let measured = first.damage == Int((first.peakG * perG).rounded())
                    ? min(max(Int((first.peakG * scale * perG).rounded()), 1), 100) : first.damage
                let expected = min(measured, meter.spot(for: kind).ceiling)
                #expect(abs((event.damage ?? -9) - expected) <= 1, "hold \(number): \(event.damage ?? -9), expected \(expected)")
                usual[thrower.id, default: UsualPunch()].note(first.peakG)
                #expect(event.by == thrower.id)
                landed += 1
            } else {
                guard case .holdEnded(let holdEnded) = answer.body else {
                    Issue.record("hold \(number): detect found nothing, the server said \(answer)")
                    continue
                }
                #expect(holdEnded.hold == number)
                #expect(holdEnded.samples == hold.count)
                ended += 1
            }
        }
        // Every hold was thrown, and the trace's punches are found: most holds land one.
        #expect(landed + ended == labels.count)
        #expect(landed >= 9, "landed \(landed), ended \(ended)")
    }

    /// A phone at rest for a second, with a gyroscope: no punch, and the hold's last batch says so.
    @Test func aHoldWithoutAPunchSaysSo() async throws {
        let ring = try await FightOverLoopbackTests.ring()
        let before = try #require(try await ring.alice.request(.fight(FightRef(fight: ring.fight))).fightView)
        let answer = try await ring.alice.hold(Self.rest(seconds: 1), fight: ring.fight, after: 2, hold: 1)
        guard case .holdEnded(let ended) = answer.body else {
            Issue.record("expected holdEnded, got \(answer)")
            return
        }
        #expect(ended == HoldEnded(fight: ring.fight, hold: 1, samples: 60, seconds: ended.seconds))
        #expect(abs(ended.seconds - 59.0 / 60) < 1e-9)
        let after = try #require(try await ring.alice.request(.fight(FightRef(fight: ring.fight))).fightView)
        #expect(after == before, "nothing landed: the turn goes on")
        // The turn is still alice's: a hold with a punch in it lands.
        #expect(try await ring.alice.hold(Self.punch(), fight: ring.fight, after: 2, hold: 2).event?.kind == .punched)
    }

    // MARK: - Strength

    /// A real swing is never refused for its strength: a phone in the hand passes ±16 g in a hard
    /// punch (up to 27 g), and such a hold lands, its damage at the fight's cap; a reading past
    /// 400 g, which no phone, watch or controller makes, is refused saying so in words. A stop at
    /// a sensor's full scale (a ±16 g phone topped out) lands saying `clipped`, as `detect` says it.
    @Test func aHardSwingPastSixteenGLandsAndOnlyWhatNoSensorReadsIsRefused() async throws {
        let ring = try await FightOverLoopbackTests.ring()
        let hard = Self.punch(stop: 27)
        #expect(hard.contains { abs($0.acceleration.x) > 16 * standardGravity }, "a sample past 16 g")
        let landed = try #require(
            try await ring.alice.hold(hard, fight: ring.fight, after: 2, hold: 1).event, "the hard swing lands")
        #expect(landed.kind == .punched && landed.by == ring.alice.id)
        let kind = try #require(landed.punch)
        #expect(landed.damage == Rules().meter.spot(for: kind).ceiling, "a stop past 16 g does the most a punch may")
        #expect(landed.clipped == nil, "27 g is no sensor's full scale")

        let after = try #require(landed.sequence)
        let beyond = try await ring.bob.hold(Self.punch(stop: 401), fight: ring.fight, after: after, hold: 1)
        let error = try #require(beyond.error, "\(beyond)")
        #expect(error.code == .invalid && error.field == "samples")
        #expect(error.message.contains("400 g: no phone, watch or controller reads more"), "\(error.message)")
        #expect(error.message.contains("(401 g, not a swing's)"), "\(error.message)")

        let toppedOut = try #require(
            try await ring.bob.hold(Self.punch(stop: 16), fight: ring.fight, after: after, hold: 2).event,
            "a swing at a ±16 g sensor's full scale lands")
        #expect(toppedOut.kind == .punched && toppedOut.by == ring.bob.id)
        #expect(toppedOut.clipped == true, "\(toppedOut)")
    }

    /// A fighter whose sensor reads a quarter of the usual stop (a phone strapped to the wrist)
    /// is measured against their own swings: from their third, a swing does what one from a phone
    /// in the hand does, and a harder one than their usual does more.
    @Test func aSoftGripIsMeasuredAgainstTheFightersOwnSwings() async throws {
        let ring = try await FightOverLoopbackTests.ring()
        var after = 2
        var soft: [Int] = []
        var inHand: [Int] = []
        func swing(_ player: Player, stop: Double = 9, softer: Double = 1, hold: Int) async throws -> Int {
            let event = try #require(
                try await player.hold(
                    Self.punch(stop: stop, softer: softer), fight: ring.fight, after: after, hold: hold
                ).event, "swing \(hold) of \(stop / softer) g lands")
            #expect(event.kind == .punched)
            after = try #require(event.sequence)
            return try #require(event.damage)
        }
        for hold in 1...3 {
            soft.append(try await swing(ring.alice, softer: 4, hold: hold))
            // Bob's first swing as hard as alice's, then gentle ones: nobody is knocked out.
            inHand.append(try await swing(ring.bob, stop: hold == 1 ? 9 : 3, hold: hold))
        }
        let harder = try await swing(ring.alice, stop: 12, softer: 4, hold: 4)
        #expect(soft[0] < inHand[0] / 2, "before the fighter's usual is known, the reading counts: \(soft), \(inHand)")
        #expect(abs(soft[2] - inHand[0]) <= 2, "\(soft), \(inHand)")
        #expect(harder > soft[2], "\(harder) after \(soft)")
    }

    // MARK: - Bounds

    /// Every bound of a batch and a hold: a typed error naming `samples`, nothing landed, the
    /// hold over (its later batches dropped), the fight as it was; and a good hold lands after.
    @Test func motionNoSensorMakesIsRefusedAndChangesNothing() async throws {
        let ring = try await FightOverLoopbackTests.ring()
        let (alice, fight) = (ring.alice, ring.fight)
        let before = try #require(try await alice.request(.fight(FightRef(fight: fight))).fightView)
        let still = Self.rest(seconds: 0.5)
        func batch(_ rows: String, hold: Int, ref: Int, final: Bool = false, pressed: String? = nil) -> String {
            let press = pressed.map { #","pressed":\#($0)"# } ?? ""
            return #"{"type":"motion","v":1,"ref":\#(ref),"token":"\#(alice.token)","fight":\#(fight.rawValue),"after":2,"hold":\#(hold),"samples":[\#(rows)],"final":\#(final)\#(press)}"#
        }
        let rows = (0..<65).map { "[\(Double($0) / 60),0.1,9.8,0.2]" }
        let bad: [(what: String, text: String, code: ProtocolError.Code)] = [
            ("65 rows", rows.joined(separator: ","), .tooLarge),
            ("5 numbers", "[0,0.1,9.8,0.2,1]", .invalid),
            ("3 numbers", "[0,0.1,9.8]", .invalid),
            ("two widths", "[0,0.1,9.8,0.2],[0.016,0.1,9.8,0.2,1,2,3]", .invalid),
            ("a null (JavaScript's NaN)", "[0,0.1,null,0.2]", .invalid),
            ("a string", #"[0,"0.1",9.8,0.2]"#, .invalid),
            ("a number no Double holds", "[0,0.1,1e999,0.2]", .invalid),
            ("not a row", "7", .invalid),
            ("time going back", "[0.5,0.1,9.8,0.2],[0.4,0.1,9.8,0.2]", .invalid),
            ("time standing still", "[0.5,0.1,9.8,0.2],[0.5,0.1,9.8,0.3]", .invalid),
            ("1000 g", "[0,0.1,9806.65,0.2]", .invalid),
            ("just past 400 g", "[0,0.1,-3923,0.2]", .invalid),
            ("a gyroscope beyond 4000 °/s", "[0,0.1,9.8,0.2,5000,0,0]", .invalid),
            ("5 kHz", (0..<20).map { "[\(Double($0) / 5000),0.1,9.8,0.2]" }.joined(separator: ","), .invalid),
            ("250 Hz", (0..<20).map { "[\(Double($0) / 250),0.1,9.8,0.2]" }.joined(separator: ","), .invalid),
        ]
        // A press that is no time, and a lead-in longer than 2 s before it.
        let badPress: [(what: String, text: String, pressed: String, code: ProtocolError.Code, field: String)] = [
            ("a null press (JavaScript's NaN)", "[0,0.1,9.8,0.2]", "null", .invalid, "pressed"),
            ("a press that is not a number", "[0,0.1,9.8,0.2]", #""soon""#, .invalid, "pressed"),
            ("a lead-in of 2.5 s", "[0,0.1,9.8,0.2],[0.1,0.1,9.8,0.2]", "2.5", .tooLarge, "samples"),
        ]
        let cases = bad.map { ($0.what, $0.text, String?.none, $0.code, "samples") }
            + badPress.map { ($0.what, $0.text, Optional($0.pressed), $0.code, $0.field) }
        var ref = 1000
        for (number, (what, text, pressed, code, field)) in cases.enumerated() {
            ref += 1
            try await alice.client.sendRaw(batch(text, hold: 100 + number, ref: ref, pressed: pressed))
            let error = try #require(try await alice.reply(to: ref).error, "\(what)")
            #expect(error.code == code, "\(what): \(error)")
            #expect(error.field == field, "\(what): \(error)")
            // The hold is over: a later batch of it (even a good one) is dropped without an answer.
            ref += 1
            try await alice.client.sendRaw(batch("[9,0.1,9.8,0.2]", hold: 100 + number, ref: ref, final: true))
            let probe = try await alice.request(.fight(FightRef(fight: fight)))
            #expect(probe.fightView == before, "\(what)")
            #expect(alice.taken { $0.ref == ref }.isEmpty, "\(what): a batch of a refused hold was answered")
        }
        // What takes a hold's earlier batches: time going back across batches, the width changing,
        // and a hold longer than 5 s.
        let acrossBatches: [(what: String, first: [MotionRow], second: [MotionRow], code: ProtocolError.Code)] = [
            ("time going back across batches", still, still, .invalid),
            ("the width changing", still, Self.rest(seconds: 0.5, from: 1, gyroscope: false), .invalid),
            ("longer than 5 s", Self.rest(seconds: 1), Self.rest(seconds: 0.2, from: 5.2), .tooLarge),
        ]
        for (number, (what, first, second, code)) in acrossBatches.enumerated() {
            let hold = 200 + number
            for part in stride(from: 0, to: first.count, by: 50) {
                let rows = Array(first[part..<min(part + 50, first.count)])
                let sent = try await alice.client.send(
                    .motion(MotionBatch(fight: fight, after: 2, hold: hold, samples: rows)))
                _ = sent
            }
            let answer = try await alice.reply(
                to: try await alice.client.send(
                    .motion(MotionBatch(fight: fight, after: 2, hold: hold, samples: second, final: true))))
            #expect(answer.error?.code == code, "\(what): \(answer)")
            #expect(answer.error?.field == "samples", "\(what)")
        }
        // Nobody's else turn, fight or sequence: the engine's refusals, as for a punch.
        let carol = try await Player.join("carol", at: ring.server)
        let outOfTurn = try await ring.bob.hold(Self.punch(), fight: fight, after: 2, hold: 1)
        #expect(outOfTurn.error?.reason == .known(.waitYourTurn))
        #expect(try await carol.hold(Self.punch(), fight: fight, after: 2, hold: 1).error?.reason == .known(.notInFight))
        #expect(try await alice.hold(Self.punch(), fight: fight, after: 1, hold: 300).error?.code == .stale)

        #expect(try await alice.request(.fight(FightRef(fight: fight))).fightView == before)
        // The server is well: alice's next hold lands.
        let landed = try #require(try await alice.hold(Self.punch(), fight: fight, after: 2, hold: 301).event)
        #expect(landed.kind == .punched && landed.by == alice.id && landed.sequence == 3)
    }

    /// Samples stream at a sensor's pace: a fighter who sends more than the server's rate (here
    /// 100 a second, by its clock) is refused `rateLimited`, and may go on once the clock moves.
    @Test func aFighterCannotStreamFasterThanTheSampleRate() async throws {
        let clock = TestClock()
        let server = try await TestServer.start(clock: clock, motionSamplesPerSecond: 100, motionSampleBurst: 100)
        let ring = try await FightOverLoopbackTests.ring(on: server, clock: clock)
        let rows = Self.rest(seconds: 2)
        let first = try await ring.alice.client.send(
            .motion(MotionBatch(fight: ring.fight, after: 2, hold: 1, samples: Array(rows[0..<60]))))
        let second = try await ring.alice.reply(
            to: try await ring.alice.client.send(
                .motion(MotionBatch(fight: ring.fight, after: 2, hold: 1, samples: Array(rows[60..<120])))))
        #expect(second.error?.code == .rateLimited)
        #expect(second.error?.field == "samples")
        #expect(ring.alice.taken { $0.ref == first }.isEmpty, "a batch that finds nothing yet is not answered")
        clock.advance(by: 1)
        let again = try await ring.alice.hold(Self.punch(), fight: ring.fight, after: 2, hold: 2)
        #expect(again.event?.kind == .punched)
    }

    // MARK: - Samples

    /// A phone lying still at 60 Hz, from `from` seconds: gravity on y and a little noise, with a
    /// gyroscope reading nearly nothing.
    static func rest(seconds: Double, from start: Double = 0, gyroscope: Bool = true) -> [MotionRow] {
        (0..<Int((seconds * 60).rounded())).map { index in
            let wobble = Double(index % 5) * 0.01
            return MotionRow(
                time: start + Double(index) / 60, acceleration: SIMD3(0.1 + wobble, 9.79, 0.2 - wobble),
                rotationRate: gyroscope ? SIMD3(0.5, -0.3, wobble) : nil)
        }
    }

    /// Half a second still, then a straight punch along x: 0.12 s of thrust at 3 g and its stop at
    /// `stop` g, then still again; 100 Hz with a gyroscope. A sensor `softer` times softer (strapped
    /// to the wrist, not gripped) reads the same punch that many times longer and weaker.
    static func punch(stop: Double = 8, softer: Double = 1) -> [MotionRow] {
        (0..<Int(120 * softer)).map { index in
            let time = Double(index) / 100
            var x = 0.0
            if (0.5..<0.5 + 0.12 * softer).contains(time) { x = 3 / softer * standardGravity }
            if (0.5 + 0.12 * softer..<0.5 + 0.16 * softer).contains(time) { x = -stop / softer * standardGravity }
            return MotionRow(
                time: time, acceleration: SIMD3(x + Double(index % 3) * 0.02, 9.79, 0.2),
                rotationRate: SIMD3(0.4, Double(index % 4) * 0.1, 0.1))
        }
    }

    /// The samples of a trace as `detect` reads them, in a phone's units: m/s² and °/s.
    static func wireRows(of path: String) throws -> [MotionRow] {
        let file = try TraceFile(path: path)
        var rows: [MotionRow] = []
        try file.forEachSample { sample in
            let a = sample.acceleration * standardGravity
            let rotation = try #require(sample.rotationRate) * (180 / Double.pi)
            rows.append(
                MotionRow(
                    time: sample.time, acceleration: SIMD3(a.x, a.y, a.z),
                    rotationRate: SIMD3(rotation.x, rotation.y, rotation.z)))
        }
        return rows
    }

    /// `rows` as a CSV trace whose header names the units, so that `detect` reads the very numbers
    /// the hold sends (Swift writes each as the shortest text that reads back the same, as JSON does).
    static func csv(_ rows: [MotionRow]) -> String {
        var text = "t,x (m/s^2),y (m/s^2),z (m/s^2),gx (deg/s),gy (deg/s),gz (deg/s)\n"
        for row in rows {
            let r = row.rotationRate ?? .zero
            text += "\(row.time),\(row.acceleration.x),\(row.acceleration.y),\(row.acceleration.z),\(r.x),\(r.y),\(r.z)\n"
        }
        return text
    }

    /// One line of `detect --json`.
    struct DetectedLine: Decodable, CustomStringConvertible {
        var type: String
        var damage: Int
        var peakG: Double
        var t: Double

        enum CodingKeys: String, CodingKey {
            case type, damage, t
            case peakG = "peak_g"
        }

        init?(_ line: String) {
            guard let value = try? JSONDecoder().decode(Self.self, from: Data(line.utf8)) else { return nil }
            self = value
        }

        var description: String { "\(type) \(damage)" }
    }
}

extension Player {
    /// Streams `rows` as hold `hold` in batches of `batchSize`, the last one `final` (each saying
    /// when the button was `pressed`, when given), and returns the first answer: the `punched`
    /// event, `holdEnded`, or an error. Later batches of a hold that was answered are dropped by
    /// the server: no second answer is looked for.
    func hold(
        _ rows: [MotionRow], fight: FightID, after: Int, hold: Int, batchSize: Int = 20, pressed: Double? = nil
    ) async throws -> ServerMessage {
        var refs: Set<Int> = []
        var start = 0
        repeat {
            let end = min(start + batchSize, rows.count)
            let batch = MotionBatch(
                fight: fight, after: after, hold: hold, samples: Array(rows[start..<end]), final: end == rows.count,
                pressed: pressed)
            refs.insert(try await client.send(.motion(batch)))
            start = end
        } while start < rows.count
        return try await next("the answer to hold \(hold)") { message in
            guard let ref = message.ref, refs.contains(ref) else { return false }
            if case .event(let event) = message.body { return event.kind == .punched }
            return true
        }
    }
}
