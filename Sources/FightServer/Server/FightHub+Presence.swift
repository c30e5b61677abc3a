import FightEngine
import FightProtocol
import FightStore
import Logging
import MotionInput
import NIOCore
import PunchKit

// MARK: - Presence

extension FightHub {
    /// Notes in the store, in one batch, the fighters who came or went since the last batch (a
    /// fighter who came and went again meanwhile is left as noted), and tells the other fighter
    /// of each of their fights under way whether they are connected: unless, on a database
    /// shared, they are connected to another server as well, where the others were told then.
    /// Called by the presence service when rung, and on each tick of the deadline service, which
    /// tries again a batch the store could not take.
    ///
    /// The store is written off the hub's thread, one batch at a time (`HubState`): a call while a
    /// batch is being noted leaves what came meanwhile to the batch after it, taken here once the
    /// one under way is noted.
    func notePresence() async {
        while let changes = state.takePresenceToNote(), !changes.isEmpty {
            let elsewhere: [FighterID: Timestamp]
            do {
                elsewhere = try await store.notePresence(changes, on: serverName)
            } catch {
                // Cancelled, the server is stopping: its lease and presence go with it.
                if !(error is CancellationError) {
                    logger.error(
                        "noting who came and went failed; trying again on the next tick",
                        metadata: ["fighters": "\(changes.count)", "error": "\(error)"])
                }
                state.presenceNotNoted(changes)
                return
            }
            await tellPresence(of: state.presenceNoted(changes, elsewhere: elsewhere))
        }
    }

    /// Tells the other fighter of each of `fighters`' fights under way whether they are connected.
    /// Their open fights are read off the hub's thread.
    func tellPresence(of fighters: [FighterID]) async {
        guard !fighters.isEmpty else { return }
        let open = await openFights(of: fighters)
        var openOf: [FighterID: [Fight]] = [:]
        for fight in open {
            openOf[fight.challenger, default: []].append(fight)
            openOf[fight.opponent, default: []].append(fight)
        }
        for fighter in fighters { await pushPresence(of: fighter, in: openOf[fighter] ?? []) }
    }

    /// Whether the other fighter of each of `me`'s fights under way among `open` is connected, as
    /// `welcome` tells it.
    func presenceOfOpponents(of me: FighterID, in open: [Fight]) async -> [Presence] {
        var presences: [Presence] = []
        for fight in open where fight.isUnderWay {
            guard let corner = fight.corner(of: me) else { continue }
            presences.append(await presence(of: fight.fighter(in: corner.other), in: fight.id))
        }
        return presences
    }

    /// Whether `fighter` is connected, as the other fighter of `fight` is told it.
    /// On a database other servers share, a fighter with no connection here may have one on
    /// another server: the store says since when (`FightStore.presence(of:besides:at:)`).
    func presence(of fighter: FighterID, in fight: FightID) async -> Presence {
        let (state, since) = await presence(of: fighter)
        return Presence(fight: fight, fighter: fighter, state: state, since: since)
    }

    /// Whether `fighter` is connected, here or (on a database shared) elsewhere, and since when.
    /// The store is asked only of a fighter not connected here on a database shared, off the
    /// hub's thread (a storm of `hello`s asks it for each opponent); when it cannot say, this
    /// server's own connections are all that is told.
    func presence(of fighter: FighterID) async -> (Presence.State, since: Timestamp?) {
        if !state.isConnected(fighter), store.isShared {
            do {
                let now = clock.now()
                let elsewhere = try await store.presence(of: fighter, besides: serverName, at: now)
                if let elsewhere { return (.connected, elsewhere) }
            } catch {
                logger.error(
                    "presence across servers failed", metadata: ["fighter": "\(fighter.rawValue)", "error": "\(error)"])
            }
        }
        // As it is now, after the read: the fighter may have come or gone meanwhile.
        return (state.isConnected(fighter) ? .connected : .gone, state.presenceSince[fighter])
    }

    /// The open fights of `fighters`, read off the hub's thread, or none (logged) when the store
    /// cannot say.
    func openFights(of fighters: [FighterID]) async -> [Fight] {
        do {
            return try await store.openFights(of: fighters)
        } catch is CancellationError {
            return []
        } catch {
            logger.error(
                "could not read fighters' open fights",
                metadata: ["fighters": "\(fighters.map(\.rawValue))", "error": "\(error)"])
            return []
        }
    }

    /// Tells the other fighter of each of `fighter`'s fights under way (among `open`, their open
    /// fights) whether `fighter` is connected, after their first connection opened or their last
    /// one closed. Not a fight event: nothing is saved, and a client that was away learns it from
    /// `welcome`.
    func pushPresence(of fighter: FighterID, in open: [Fight]) async {
        let underWay = open.filter(\.isUnderWay)
        guard !underWay.isEmpty else { return }
        // Asked once for all the fighter's fights: on a shared database it is a read.
        let (state, since) = await presence(of: fighter)
        for fight in underWay {
            guard let corner = fight.corner(of: fighter) else { continue }
            push(
                .presence(Presence(fight: fight.id, fighter: fighter, state: state, since: since)),
                to: fight.fighter(in: corner.other))
        }
    }

    /// Sends `body` to every connection of `fighter`.
    func push(_ body: ServerBody, to fighter: FighterID) {
        let text = MessageCodec.encode(ServerMessage(body))
        for connection in state.connections(of: fighter).values { connection.outbox.yield(text) }
    }
}
