import FightEngine
import FightProtocol

// MARK: - Taking turns

/// What requests take turns over at the hub: one fight, or the quick-match rooms.
enum Turns: Hashable, Sendable {
    case fight(FightID)
    case rooms

    /// What `request` takes turns over, if anything: a fight's requests, so that what the hub
    /// keeps of it (a wind-up, a hold) follows them in order; the rooms' requests, so that their
    /// events are pushed in the order they were saved (a room opened, then the match into it,
    /// pushed the other way round, left its owner sure they were still waiting).
    init?(of request: ClientRequest) {
        if let fight = request.fight {
            self = .fight(fight)
            return
        }
        switch request {
        case .quickMatch, .leaveQuickMatch: self = .rooms
        default: return nil
        }
    }
}

/// The requests under way, and those waiting for them, over each of `Turns`, in the order they
/// came: one at a time over each. `Waiter` is what the hub resumes (a continuation); tests use
/// anything.
struct TurnQueue<Waiter> {
    /// For each of `Turns` with a request under way, those waiting after it, first come first.
    private var waiting: [Turns: [Waiter]] = [:]

    /// A request over `turns` came: `true` if it runs now (it is under way from now); `false` if
    /// another is under way, and it is to wait (`wait`).
    mutating func arrive(over turns: Turns) -> Bool {
        guard waiting[turns] != nil else {
            waiting[turns] = []
            return true
        }
        return false
    }

    /// A request over `turns` waits, as `waiter`, for those under way and waiting before it.
    mutating func wait(over turns: Turns, _ waiter: Waiter) {
        waiting[turns, default: []].append(waiter)
    }

    /// The request under way over `turns` is done: the waiter to run next, if one waits (it is
    /// under way from now).
    mutating func finish(over turns: Turns) -> Waiter? {
        guard let next = waiting[turns]?.first else {
            waiting[turns] = nil
            return nil
        }
        waiting[turns]?.removeFirst()
        return next
    }

    /// A request waiting over `turns` (the first waiter `isIt` picks) gives up its place: its
    /// task was cancelled. The waiter, to be told, or `nil` when it no longer waits (it was
    /// handed its turn already, and ends it as any other).
    mutating func leave(over turns: Turns, _ isIt: (Waiter) -> Bool) -> Waiter? {
        guard let index = waiting[turns]?.firstIndex(where: isIt) else { return nil }
        return waiting[turns]?.remove(at: index)
    }

    /// How many requests wait over `turns`.
    func waitingCount(over turns: Turns) -> Int { waiting[turns]?.count ?? 0 }

    /// Whether a request over `turns` is under way.
    func isBusy(_ turns: Turns) -> Bool { waiting[turns] != nil }
}

/// How a request came to take its turn (`FightHub.takingTurns`): its turn now, to wait for it, or
/// not at all (its task was cancelled).
enum TurnArrival { case now, waiting, cancelled }

/// A request waiting at the hub for its turn (`FightHub.takingTurns`): resumed when its turn
/// comes, or thrown `CancellationError` when its task is cancelled first.
struct TurnWaiter: Sendable {
    /// Which request, among those waiting.
    let id: Int
    let continuation: CheckedContinuation<Void, any Error>
}

extension TurnQueue: Sendable where Waiter: Sendable {}
