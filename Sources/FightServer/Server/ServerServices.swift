import FightStore
import ServiceLifecycle

// The services `FightServer` runs beside its HTTP server, in its `ServiceGroup`: each ends at a
// graceful shutdown.

// MARK: - Deadlines

/// Passes turns and expires challenges when their time comes, whether or not anyone acts; keeps
/// the server's lease, and tries again to note the comings and goings the store could not take.
struct DeadlineService: Service {
    let hub: FightHub
    let tick: Duration

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: tick)
                await hub.settleDeadlines()
                await hub.renewLease()
                await hub.notePresence()
            }
        }
    }
}

// MARK: - Presence

/// Notes the fighters' comings and goings in the store as they happen, in batches: each call
/// notes all those since the one before (`FightHub.notePresence`).
struct PresenceService: Service {
    let hub: FightHub

    func run() async throws {
        await cancelWhenGracefulShutdown { [hub] in
            for await _ in hub.presenceChanged { await hub.notePresence() }
        }
    }
}

// MARK: - Other servers' changes

/// Hands what the other servers sharing the database commit to the hub (which pushes it) and to
/// the accounts (a session logged out there is refused here too), as the store hears it.
struct StoreChangesService: Service {
    let changes: AsyncStream<StoreChange>
    let hub: FightHub
    let accounts: Accounts

    func run() async throws {
        // Cancelled at shutdown, the stream stops, and the store stops listening.
        await cancelWhenGracefulShutdown { [changes, hub, accounts] in
            await hub.hear(changes) { change in
                if case .sessionEnded(let key, _) = change { accounts.sessionEnded(key: key) }
            }
        }
    }
}
