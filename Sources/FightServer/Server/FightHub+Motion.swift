import FightEngine
import FightProtocol
import FightStore
import Logging
import MotionInput
import NIOCore
import PunchKit

// MARK: - Motion

extension FightHub {
    /// Feeds a batch of `me`'s sensor to the hold it belongs to: the first punch the detector finds
    /// lands (its `punched` event carries `ref`); a hold's last batch without one is answered
    /// `holdEnded`; anything else, nothing. A batch that is refused (the fight's rules, its
    /// sequence, the sample budget, the hold's bounds) ends its hold, and later batches of a hold
    /// that is over are dropped.
    func motion(_ batch: MotionBatch, by me: FighterID, ref: Int?, connection: Int?) async throws
        -> ServerBody?
    {
        let key = HubState.HoldKey(fight: batch.fight, hold: batch.hold)
        if case .over(key, _)? = state.hold(of: me) { return nil }
        do {
            let reading: (hold: MotionHold, fight: Fight)?
            if case .reading(key, _, let hold, let fight)? = state.hold(of: me) {
                reading = (hold, fight)
            } else {
                reading = nil
            }
            let fight: Fight
            if let reading {
                fight = reading.fight
            } else {
                fight = try await self.fight(batch.fight, of: me)
            }
            // Refused early, before the samples are read: the punch found is judged again by the
            // engine on the fight as saved.
            try Self.awaitingPunch(by: me, at: batch.after, in: fight)
            try await takeMotionSamples(batch.samples.count, of: me)
            let hold: MotionHold
            if let reading {
                hold = reading.hold
            } else {
                // Typed by the fighter's punch profile, if they taught one.
                let configuration = try await detectorConfiguration(for: me)
                hold = MotionHold(
                    limits: Self.holdLimits, pressed: batch.pressed, configuration: configuration,
                    usualPunch: teacher.usualPunch(of: me).heldStill)
                // A connection that closed while the fight and the detector were awaited gets no
                // hold back: nobody is there to send its next batches, or to be answered.
                guard state.startReading(me, key, connection: connection, hold, fight: fight) else { return nil }
            }
            let samples = batch.samples.map(MotionSample.init(wire:))
            var punch: Punch?
            do { punch = try hold.take(samples) } catch { throw ProtocolError(error) }
            if punch == nil, batch.final { punch = hold.finish() }
            guard let punch else {
                guard batch.final else { return nil }
                state.endHold(me, key, connection: connection)
                return .holdEnded(HoldEnded(fight: fight.id, hold: batch.hold, samples: hold.count, seconds: hold.seconds))
            }
            state.endHold(me, key, connection: connection)
            teacher.noteSwing(punch, of: me)
            let kind = PunchType(punch.kind)
            // The detector's damage on its own scale, brought into the fight's: the engine caps it
            // at the kind's ceiling and the defender's guard, as for any sensor's punch. A stop at
            // the sensor's full scale is said, as `detect` says it.
            try await execute(
                .punch(
                    fight.id, by: me, after: batch.after, kind: kind, damage: Rules.clampedDamage(punch.damage),
                    clipped: punch.clipped),
                ref: ref, sender: connection)
            return nil
        } catch {
            state.endHold(me, key, connection: connection)
            throw error
        }
    }

    /// Takes `count` samples from `me`'s motion allowance (over all their connections, on every
    /// server sharing the database), or refuses the batch as `rateLimited`.
    func takeMotionSamples(_ count: Int, of me: FighterID) async throws {
        guard try await motionSamples.allow(me, cost: count) else {
            throw ProtocolError(
                .rateLimited,
                "samples: more than \(motionSamples.perSecond) motion samples a second from fighter \(me.rawValue); stream the sensor as it comes",
                field: "samples")
        }
    }

    /// Ends `fighter`'s hold `hold` in `fight`, one of whose batches on `connection` was refused
    /// before it reached here (its rows did not decode): its later batches are dropped. A hold
    /// being read on another connection is left alone.
    func endHold(_ hold: Int, in fight: FightID, of fighter: FighterID, connection: Int) {
        state.endHoldRefusedEarly(fighter, HubState.HoldKey(fight: fight, hold: hold), connection: connection)
    }
}

// MARK: - Motion's errors

extension ProtocolError {
    /// A batch that breaks a hold's bounds, as the client is told it: the sample at fault and
    /// what was expected.
    init(_ violation: MotionHold.Violation) {
        switch violation {
        case .timeWentBack(let index, let time, let previous):
            self.init(
                .invalid, "samples[\(index)]: expected a time after \(previous) s (time goes on), got \(time) s",
                field: "samples")
        case .tooFast(let index, let intervals, let seconds):
            let rate = Double(intervals) / seconds
            self.init(
                .invalid,
                "samples[\(index)]: expected at most \(Int(MotionLimits.maximumRate)) samples a second, got \(intervals) intervals in \(seconds) s (\(rate.isFinite ? "\(Int(rate.rounded())) Hz" : "no time"))",
                field: "samples")
        case .tooLong(let index, let seconds):
            self.init(
                .tooLarge,
                "samples[\(index)]: expected a hold of at most \(MotionLimits.holdSeconds) s, got \(seconds) s since it was pressed (or its first sample); release and hold again",
                field: "samples")
        case .leadTooLong(let index, let seconds):
            self.init(
                .tooLarge,
                "samples[\(index)]: expected a lead-in of at most \(MotionLimits.leadSeconds) s before pressed, got \(seconds) s",
                field: "samples")
        case .gyroscopeChanged(let index, let hadGyroscope):
            self.init(
                .invalid,
                "samples[\(index)]: expected \(hadGyroscope ? 7 : 4) numbers as in the hold's first row, got \(hadGyroscope ? 4 : 7)",
                field: "samples")
        }
    }
}

extension Vector3 {
    /// The wire's three axes.
    init(_ axes: SIMD3<Double>) { self.init(axes.x, axes.y, axes.z) }
}
