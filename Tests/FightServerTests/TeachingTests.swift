import FightClient
import FightEngine
import FightProtocol
import FightStoreTestSupport
import Foundation
import MotionInput
import PunchKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Teaching the server's detector a fighter's punches (PROTOCOL.md's "Teaching the detector your
/// punches"): the teaching holds are read as swings are, the profile learned is kept with the
/// fighter across a restart, and the fighter's swings are typed by it from then on, not anyone
/// else's.
@Suite struct TeachingTests {
    /// Simulated swings of one kind (upright, with a gyroscope): each a hold that begins with a
    /// lead-in of 1.2 s and is pressed 0.3 s before the punch the simulator labelled.
    static func swings(of kind: String, seed: Int, count: Int) async throws -> [(rows: [MotionRow], pressed: Double)] {
        let (rows, starts) = try await simulated(kind, seed: seed, count: count)
        return starts.map { start in
            (rows.filter { $0.time >= start - 1.5 && $0.time < start + 1.2 }, start - 0.3)
        }
    }

    /// `count` simulated punches of `kind` (upright, with a gyroscope): the trace's rows in a phone's
    /// units, and when each labelled punch starts.
    static func simulated(_ kind: String, seed: Int, count: Int) async throws -> (rows: [MotionRow], starts: [Double]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("teach-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let trace = folder.appendingPathComponent("\(kind).csv").path
        let simulate = try RunningCommand([
            "simulate", "--gyroscope", "--upright", "--seed", "\(seed)", "--punches", "\(count)", "--kinds", kind,
            "--output", trace,
        ])
        #expect(try await simulate.exitStatus() == 0)
        let starts = try String(
            contentsOfFile: folder.appendingPathComponent("\(kind).labels.csv").path, encoding: .utf8
        )
        .split(separator: "\n").dropFirst().compactMap { Double($0.split(separator: ",")[0]) }
        try #require(starts.count == count)
        return (try MotionTests.wireRows(of: trace), starts)
    }

    /// Alice teaches the server her jabs as uppercuts and her uppercuts as jabs (hooks as hooks).
    /// Her next jab swing lands as an uppercut, and still does after the server restarts; the
    /// very same samples from Bob, who taught nothing, land as a jab. On each database.
    @Test(arguments: StoreBackend.available)
    func aFighterTaughtWithJabsAndUppercutsSwappedLandsAJabAsAnUppercut(backend: StoreBackend) async throws {
        let jabs = try await Self.swings(of: "jab", seed: 41, count: 6)
        let uppercuts = try await Self.swings(of: "uppercut", seed: 42, count: 5)
        let hooks = try await Self.swings(of: "hook", seed: 43, count: 5)
        let clock = TestClock()
        let path = try TestServer.temporaryDatabase(backend)
        let ring = try await FightOverLoopbackTests.ring(clock: clock, databasePath: path)

        let started = try await ring.alice.request(.teach(TeachRequest(hand: .right)))
        guard case .teaching(let progress) = started.body else { throw TestFailure("teach: \(started)") }
        #expect(progress.jabs + progress.uppercuts + progress.hooks == 0)
        var hold = 0
        var taught: WirePunchProfile?
        // Three of each, asked for by name: the jab swings as uppercuts, the uppercut swings as jabs.
        for (asked, swings) in [(PunchType.uppercut, jabs.prefix(4)), (.jab, uppercuts[...]), (.hook, hooks[...])] {
            var found = 0
            for swing in swings where found < 3 {
                hold += 1
                let answer = try await ring.alice.teachingHold(
                    swing.rows, kind: asked, hold: hold, pressed: swing.pressed)
                switch answer.body {
                case .teaching(let progress):
                    #expect(progress.kind == asked && progress.hold == hold)
                    #expect(progress.punches(of: asked) == found + 1)
                    found += 1
                case .taught(let reply):
                    taught = reply.profile
                    found += 1
                case .error(let error):
                    #expect(error.reason == .known(.noPunchFound), "hold \(hold): \(error)")
                default:
                    Issue.record("hold \(hold): \(answer)")
                }
            }
            try #require(found == 3, "\(asked): \(found) teaching punches found")
        }
        // The ninth punch learned the profile at once.
        let profile = try #require(taught)
        #expect(Set(profile.kinds.map(\.kind)) == [.jab, .uppercut, .hook])
        #expect(profile.kinds.allSatisfy { $0.punches == 3 })
        #expect(profile.gyroscope && profile.hand == .right && profile.typicalPeakG > 0)

        // Alice's turn: a jab swing (one she did not teach with) lands as an uppercut.
        let jab = jabs[5]
        var view = try #require(try await ring.alice.request(.fight(FightRef(fight: ring.fight))).fightView)
        #expect(view.turn == ring.alice.id)
        let byAlice = try await ring.alice.hold(
            jab.rows, fight: ring.fight, after: view.lastSequence, hold: 1, pressed: jab.pressed)
        #expect(byAlice.event?.punch == .uppercut, "alice: \(byAlice)")
        // Bob's turn: the same samples land as a jab.
        view = try #require(try await ring.bob.request(.fight(FightRef(fight: ring.fight))).fightView)
        #expect(view.turn == ring.bob.id)
        let byBob = try await ring.bob.hold(
            jab.rows, fight: ring.fight, after: view.lastSequence, hold: 1, pressed: jab.pressed)
        #expect(byBob.event?.punch == .jab, "bob: \(byBob)")

        // A restart: the profile is the store's, read again.
        await ring.alice.close()
        await ring.bob.close()
        try await ring.server.stop()
        let server = try await TestServer.start(databasePath: path, clock: clock)
        let alice = try await Player.join("alice", at: server)
        let welcome = try await alice.request(.hello)
        guard case .welcome(let greeting) = welcome.body else { throw TestFailure("hello: \(welcome)") }
        #expect(greeting.punchProfile == profile)
        view = try #require(try await alice.request(.fight(FightRef(fight: ring.fight))).fightView)
        try #require(view.phase == .active && view.turn == alice.id, "\(view)")
        let again = try await alice.hold(
            jab.rows, fight: ring.fight, after: view.lastSequence, hold: 2, pressed: jab.pressed)
        #expect(again.event?.punch == .uppercut, "alice after the restart: \(again)")
        try await server.stop()
    }

    /// What a teaching refuses, in words: a hold with no punch in it, too few of a kind, a
    /// teaching hold or `teachDone` with no teaching under way. Asking for the profile, and
    /// forgetting it, answer `punchProfile`.
    @Test func teachingRefusesWhatItCannotLearnFrom() async throws {
        let jabs = try await Self.swings(of: "jab", seed: 44, count: 3)
        let server = try await TestServer.start(clock: TestClock())
        let alice = try await Player.join("alice", at: server)

        let early = try await alice.teachingHold(jabs[0].rows, kind: .jab, hold: 1, pressed: jabs[0].pressed)
        #expect(early.error?.reason == .known(.notTeaching), "\(early)")
        #expect(try await alice.request(.teachDone).error?.reason == .known(.notTeaching))

        _ = try await alice.request(.teach(TeachRequest()))
        let still = try await alice.teachingHold(MotionTests.rest(seconds: 2), kind: .hook, hold: 1, pressed: 0.5)
        #expect(still.error?.reason == .known(.noPunchFound), "\(still)")
        #expect(still.error?.message.contains("no punch found in that swing") == true)
        #expect(try await alice.request(.teachDone).error?.reason == .known(.tooFewPunches))

        var found = 0
        for (index, swing) in jabs.enumerated() {
            let answer = try await alice.teachingHold(swing.rows, kind: .jab, hold: 2 + index, pressed: swing.pressed)
            if case .teaching = answer.body { found += 1 }
        }
        try #require(found >= 1)
        if found < 3 {
            let refused = try await alice.request(.teachDone)
            #expect(refused.error?.reason == .known(.tooFewPunches))
            #expect(refused.error?.message.contains("jab: \(found) teaching punch") == true, "\(refused)")
        } else {
            // Jabs only: a profile of one kind, the others left to the default rule.
            guard case .taught(let taught) = try await alice.request(.teachDone).body else {
                throw TestFailure("no profile")
            }
            #expect(taught.profile.kinds.map(\.kind) == [.jab])
            guard case .punchProfile(let stored) = try await alice.request(.punchProfile).body else {
                throw TestFailure("no punchProfile")
            }
            #expect(stored.profile == taught.profile)
        }
        guard case .punchProfile(let forgotten) = try await alice.request(.forgetPunchProfile).body else {
            throw TestFailure("no punchProfile")
        }
        #expect(forgotten.profile == nil)
        guard case .punchProfile(let none) = try await alice.request(.punchProfile).body else {
            throw TestFailure("no punchProfile")
        }
        #expect(none.profile == nil)
        try await server.stop()
    }
}

extension TeachingTests {
    /// `hitthat play --script --sensor TRACE`, the trace three jabs, three uppercuts and three
    /// hooks one after the other: `teach` asks for each kind by name and streams the trace's
    /// swings as teaching holds until the server says what it learned; the next run is welcomed
    /// with it, and `forget punches` deletes it.
    @Test func theScriptTeachesFromItsSensorAndIsToldWhatWasLearned() async throws {
        var rows: [MotionRow] = []
        for (kind, seed) in [("jab", 51), ("uppercut", 52), ("hook", 53)] {
            let offset = (rows.last?.time ?? -0.01) + 0.01
            rows += try await Self.simulated(kind, seed: seed, count: 3).rows.map {
                MotionRow(time: $0.time + offset, acceleration: $0.acceleration, rotationRate: $0.rotationRate)
            }
        }
        let trace = FileManager.default.temporaryDirectory.appendingPathComponent("lesson-\(UUID()).csv").path
        try MotionTests.csv(rows).write(toFile: trace, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: trace) }

        // A trace is played twice as fast as it was made, and each hold begins with 2 s of lead-in.
        let (server, port) = try await ScriptClientTests.serve(
            database: try TestServer.temporaryDatabase(), ["--motion-rate", "2000"])
        defer { server.kill(SIGTERM) }
        let alice = try ScriptClientTests.play("alice", port: port, sensor: trace)
        alice.send("teach")
        let profile = try await alice.wait("what was learned", seconds: 120) { _, _ in
            alice.messages.lazy.compactMap { if case .taught(let reply) = $0.body { reply.profile } else { nil } }.first
        }
        #expect(profile.kinds.map(\.kind) == [.jab, .uppercut, .hook])
        #expect(profile.kinds.allSatisfy { $0.punches == 3 })
        // Each kind was asked for, in order, three times, by the server's counts.
        let asked = alice.messages.compactMap {
            if case .teaching(let progress) = $0.body { progress.kind } else { nil }
        }
        #expect(asked == [.jab, .jab, .jab, .uppercut, .uppercut, .uppercut, .hook, .hook])
        alice.send("quit")
        #expect(try await alice.exitStatus() == 0)

        let again = try ScriptClientTests.play("alice", port: port)
        again.send("forget punches")
        again.send("quit")
        #expect(try await again.exitStatus() == 0)
        let welcome = again.messages.compactMap { if case .welcome(let welcome) = $0.body { welcome } else { nil } }
        #expect(welcome.first?.punchProfile == profile)
        #expect(again.messages.contains { $0.body == .punchProfile(PunchProfileReply(profile: nil)) })
    }
}

extension Player {
    /// Streams `rows` as teaching hold `hold` of `kind`, pressed at `pressed`, in batches of 20,
    /// the last one `final`, and returns the first answer: `teaching`, `taught` or an error.
    func teachingHold(_ rows: [MotionRow], kind: PunchType, hold: Int, pressed: Double) async throws -> ServerMessage {
        var refs: Set<Int> = []
        var start = 0
        repeat {
            let end = min(start + 20, rows.count)
            let batch = TeachingBatch(
                kind: kind, hold: hold, samples: Array(rows[start..<end]), final: end == rows.count, pressed: pressed)
            refs.insert(try await client.send(.teachMotion(batch)))
            start = end
        } while start < rows.count
        return try await next("the answer to teaching hold \(hold)") { message in
            guard let ref = message.ref else { return false }
            return refs.contains(ref)
        }
    }
}
