import FightEngine
import FightProtocol
import FightStore
import Logging
import MotionInput
import NIOCore
import PunchKit

// MARK: - Pushing events

extension FightHub {
    /// Pushes `saved`, a command's events with what pushing them needs, read with them off the
    /// hub's thread (`HubState.PushNeeds`), to every connection of the fighters each concerns.
    func publish(_ saved: HubState.Saved, ref: Int?, sender: Int?) {
        deliver(state.publish(saved), ref: ref, sender: sender)
    }

    /// Sends each of `deliveries`, in order; the sender's copies carry `ref`.
    func deliver(_ deliveries: [HubState.Delivery], ref: Int?, sender: Int?) {
        for delivery in deliveries {
            if case .fight(let event) = delivery.event {
                logger.info(
                    "fight event",
                    metadata: [
                        "fight": "\(event.fight.rawValue)", "sequence": "\(event.sequence)",
                        "event": "\(WireEvent(delivery.event).kind)",
                    ])
            }
            deliver(delivery.event, to: delivery.recipients, ref: ref, sender: sender)
        }
    }

    /// Tells each fighter of each fight begun since the last call (`HubState.takeFightsBegun`)
    /// whether the other is there: a challenge may be accepted, or a room joined, long after its
    /// owner left. Called once the events are pushed: on a database shared the store is asked,
    /// off the hub's thread.
    func tellWhoIsThere() async {
        for begun in state.takeFightsBegun() {
            let (challenger, opponent) = (begun.corners.challenger, begun.corners.opponent)
            push(.presence(await presence(of: opponent, in: begun.fight)), to: challenger)
            push(.presence(await presence(of: challenger, in: begun.fight)), to: opponent)
        }
    }

    /// Sends `event` to every connection of `recipients`; the sender's copy carries `ref`.
    func deliver(_ event: Event, to recipients: [FighterID], ref: Int?, sender: Int?) {
        let wire = WireEvent(event)
        let plain = MessageCodec.encode(ServerMessage(.event(wire)))
        let answered = ref == nil ? plain : MessageCodec.encode(ServerMessage(ref: ref, .event(wire)))
        for fighter in recipients {
            for (id, connection) in state.connections(of: fighter) {
                connection.outbox.yield(id == sender ? answered : plain)
            }
        }
    }

    // MARK: - Other servers' changes

    /// Hears `changes` until the stream ends: `first` sees each as it comes, and the hub acts on
    /// them in batches (`actOnHeard`), each batch all that came while the last one's events were
    /// read. Under load a read is for hundreds of changes, off the hub's thread; a read for each
    /// change on the hub's thread, while every command waited behind it, held the pushes across
    /// servers up for seconds. Both loops run on the hub's own thread: on Swift's shared threads,
    /// which decoding the clients' messages keeps busy, each change waited for a thread first.
    nonisolated func hear(_ changes: AsyncStream<StoreChange>, first: @escaping @Sendable (StoreChange) -> Void) async {
        // One ring stands for any number of changes come.
        let (rings, ring) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask { await self.collect(changes, first: first, ringing: ring) }
            group.addTask { await self.actOnHeard(rung: rings) }
        }
    }

    func collect(
        _ changes: AsyncStream<StoreChange>, first: @Sendable (StoreChange) -> Void,
        ringing ring: AsyncStream<Void>.Continuation
    ) async {
        for await change in changes {
            first(change)
            state.hear(change)
            ring.yield()
        }
        ring.finish()
    }

    /// Acts on the changes heard each time `rings` rings, as the state answers them
    /// (`HubState.act(on:)`): at once on those that need no reading, then pushes the fights' new
    /// events, read in one go. Commands run meanwhile: what they push first is not pushed again.
    func actOnHeard(rung rings: AsyncStream<Void>) async {
        for await _ in rings {
            var sequences: [FightID: Int] = [:]
            for action in state.act(on: state.takeHeard()) {
                switch action {
                case .deliver(let delivery): deliver([delivery], ref: nil, sender: nil)
                case .endSession(let key, let fighter): endSession(key, of: fighter, except: nil)
                case .tellPresence(let fighter): await tellPresence(of: [fighter])
                case .followOpenFights(let reading):
                    let open = await openFights(of: Array(state.fighters.keys))
                    sequences = state.followOpenFights(open.map { ($0.id, Both($0.challenger, $0.opponent)) }, reading: reading)
                case .readNews(let reading): sequences = reading
                }
            }
            guard !sequences.isEmpty else { continue }
            do {
                let news = try await store.events(after: sequences)
                deliver(state.publish(news), ref: nil, sender: nil)
                await tellWhoIsThere()
            } catch {
                // Their fighters find the events by `replay`; the next change to a fight tries again.
                logger.error("could not read the events to push", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Follows `fight` from sequence `sequence` on, unless it is followed already or (the store was
    /// read while the hub did other work) neither of its fighters is connected here any more.
    func follow(_ fight: Fight, from sequence: Int) {
        state.follow(fight.id, corners: Both(fight.challenger, fight.opponent), from: sequence)
    }
}
