import FightEngine
import FightProtocol
import FightStore
import Logging
import MotionInput
import NIOCore
import PunchKit

// MARK: - Serving

extension FightHub {
    /// How long a server's lease lasts unrenewed, and how often it is renewed, in seconds by its
    /// clock: a server gone (killed, cut off) counts as serving for at most this long.
    static let lease: (seconds: Int64, renewedEvery: Int64) = (15, 5)

    /// How long after its run last renewed it a lease of this server's name must still be as it
    /// was, for that run to count as gone: a renewal's interval, and a late renewal's margin.
    static let leaseUnrenewed: Int64 = lease.renewedEvery + 2

    /// Starts serving: called once as the server starts, before the first deadline is settled, and
    /// before it listens. When no other server sharing the database is serving (or none can share
    /// it: SQLite), every turn under way starts afresh, so that the time all were down costs
    /// nobody a turn, and every fighter given a turn then is owed it again when they connect.
    /// When others are serving, their fights' turns run on: restarting them would hand whoever
    /// has the turn a new one whenever a server starts.
    ///
    /// A lease says who else is alive, not whether this server was down: a live lease of this
    /// server's name (`serverIdentity`) is its previous run's, killed, or another server's given
    /// the same name. It is watched (each tick) until its run would have renewed it: still as it
    /// was, it is replaced, and this start is alone if nobody else is serving; renewed, the
    /// name is in use, and the server refuses to start (`ServerNameInUse`). Cancelled while it
    /// watches, it throws `CancellationError`.
    func startServing() async throws {
        var watched: ServerLease?
        while true {
            let now = clock.now()
            let stale = watched.flatMap { now - $0.expiresAt >= Self.leaseUnrenewed - Self.lease.seconds ? $0 : nil }
            let start: ServingStart
            do {
                start = try await store.startServing(
                    as: serverName, named: serverIdentity, at: now, leaseUntil: now + Self.lease.seconds,
                    replacing: stale)
            } catch {
                // Served anyway, as one that joined: the first renewal takes the lease.
                logger.error("starting to serve failed", metadata: ["error": "\(error)"])
                return
            }
            switch start {
            case .nameHeld(let held):
                if let watched, held != watched {
                    throw ServerNameInUse(name: serverIdentity ?? serverName, renewedUntil: held.expiresAt)
                }
                if watched == nil {
                    logger.notice(
                        "a live lease has this server's name: waiting to see whether its run is gone",
                        metadata: ["name": "\(serverIdentity ?? "")", "until": "\(held.expiresAt.secondsSince1970)"])
                }
                watched = held
                try await Task.sleep(for: clock.tick)
                continue
            case .alone(let resumed):
                // Nobody is connected yet: nothing is pushed, but each turn is owed to its fighter.
                state.startedServing(at: now, resumed: resumed)
            case .joined(let others):
                state.startedServing(at: now, resumed: [])
                logger.notice(
                    "joining servers already serving; their turns run on", metadata: ["servers": "\(others)"])
            }
            return
        }
    }

    /// Renews this server's lease when it is due (called on each tick of the deadline service),
    /// and forgets the servers whose lease lapsed: their fighters connected nowhere else are gone.
    /// A lease of this server's that lapsed (the database was out of reach) may have been
    /// forgotten so by another server: its fighters connected here are noted again.
    /// The store is written off the hub's thread; only the deadline service calls this, one tick
    /// after another, so no other renewal runs meanwhile.
    func renewLease() async {
        let now = clock.now()
        guard store.isShared,
            case .due(let lapsed) = state.leaseRenewal(at: now, every: Self.lease.renewedEvery, lasting: Self.lease.seconds)
        else { return }
        do {
            let held = try await store.renewLease(of: serverName, named: serverIdentity, until: now + Self.lease.seconds)
            guard held else {
                // Cut off for a lease's length, and meanwhile a run with this server's name started:
                // this one's restart by a supervisor that believed it dead, or a twin. Tried again a
                // renewal later, in case the other stops; meanwhile this server counts as gone.
                state.leaseRenewed(at: now)
                logger.critical(
                    "another server took this server's name while its lease had lapsed: stop one of them, or give each its own --name",
                    metadata: ["name": "\(serverIdentity ?? "")"])
                return
            }
            state.leaseRenewed(at: now)
            if lapsed {
                // Another server may have forgotten every row of this one's: all noted again, with
                // the next batch, as if each fighter here had just come.
                if state.leaseLapsed(at: now) { ringPresence.yield() }
            }
            await tellGone(try await store.sweepLapsedServers(at: now), at: now)
        } catch is CancellationError {
            // The server is stopping: its lease is given up (`stopServing`).
        } catch {
            logger.error("renewing the lease failed", metadata: ["error": "\(error)"])
        }
    }

    /// Gives up this server's lease as it stops, and its fighters' presence with it: a server
    /// starting after the last one stopped resumes every turn, and the other servers' fighters
    /// are told at once who went with it.
    func stopServing() async {
        do {
            let now = clock.now()
            try await store.endLease(of: serverName)
            let gone = try await store.sweepLapsedServers(at: now)
            await tellGone(gone, at: now)
        } catch {
            logger.error("giving up the lease failed", metadata: ["error": "\(error)"])
        }
    }

    /// Tells the other fighters connected here of `fighters`, gone with a server that lapsed.
    func tellGone(_ fighters: [FighterID], at now: Timestamp) async {
        await tellPresence(of: state.goneWithServer(fighters, at: now))
    }

    /// Starts afresh, once, the turns the server's start began for `fighter` (who has just
    /// connected for the first time since), each while it is still the turn the start began:
    /// the fight still at the sequence the start left it at. A client finds the server again
    /// only some seconds after it is back, and the turn is then a whole one from when the player
    /// can see it.
    ///
    /// Once per fighter per start, and only for fights under way at the start: a turn started
    /// afresh at every reconnect would let a fighter hold their turn forever by dropping the
    /// connection before each deadline.
    ///
    /// Called once the connection's first message is answered, not as it connects: that answer
    /// is `welcome`, which a client waits for before it punches, so the turn it is given comes
    /// after it, when the client can act on it.
    func resumeOwedTurns(of fighter: FighterID) async {
        for (fight, sequence) in state.takeOwedTurns(of: fighter) {
            do {
                // The engine starts it afresh only if the fight is still at that sequence, checked
                // inside the transaction: a punch or a lapse since, on any server, leaves it be.
                try await execute(.resumeTurn(fight, of: fighter, after: sequence), ref: nil, sender: nil)
            } catch {
                logger.error(
                    "resuming a turn failed",
                    metadata: ["fight": "\(fight.rawValue)", "fighter": "\(fighter.rawValue)", "error": "\(error)"])
            }
        }
    }

    /// Passes every turn and expires every challenge whose deadline has come, and pushes what
    /// that caused. Called by the deadline service on each tick.
    func settleDeadlines() async {
        do {
            guard let next = (try await store.nextDeadline()), next <= clock.now() else {
                return
            }
            try await execute(.settleDeadlines, ref: nil, sender: nil)
        } catch is CancellationError {
            // The server is stopping: the next start settles them.
        } catch {
            logger.error("settling deadlines failed", metadata: ["error": "\(error)"])
        }
    }
}

/// Another server is serving under this one's name (`ServerConfiguration.name`): its lease was
/// renewed while this one waited to see whether it was a previous run's, killed.
public struct ServerNameInUse: Error, CustomStringConvertible {
    /// The name both were given.
    public var name: String
    /// Until when the other server's lease is live, as it renewed it.
    public var renewedUntil: Timestamp

    /// `NAME: …`, as the command line reports it.
    public var description: String {
        "\(name): another server is serving under this name (its lease was renewed while this one waited); give each server its own --name"
    }
}
