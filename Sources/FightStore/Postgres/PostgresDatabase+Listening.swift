#if PostgreSQL
    import FightEngine
    import Foundation
    import Logging
    import NIOCore
    import PostgresNIO

    // MARK: - Hearing the other servers

    extension PostgresDatabase {
        /// Listens on a connection of its own (`listeningConnection`), and again, after a pause
        /// that doubles up to a few seconds, whenever it is lost; each time it listens it first
        /// says `.resynchronize`. The listening task is the stream's: it ends when the stream's
        /// consumer stops or drops it.
        func changes() -> AsyncStream<StoreChange>? {
            let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self)
            let listening = Task { await self.listen(telling: continuation) }
            continuation.onTermination = { _ in listening.cancel() }
            return stream
        }

        /// The first pause before listening again, and the longest: what a server missed
        /// meanwhile is caught up when it listens again, so the pause costs pushes a little delay.
        static let listeningRetry: (first: Duration, longest: Duration) = (.milliseconds(250), .seconds(4))

        private func listen(telling continuation: AsyncStream<StoreChange>.Continuation) async {
            var pause = Self.listeningRetry.first
            while !Task.isCancelled {
                do {
                    let connection = try await listeningConnection()
                    do {
                        try await connection.listen(on: channel) { notifications in
                            continuation.yield(.resynchronize)
                            pause = Self.listeningRetry.first
                            let logger = logger
                            try await withThrowingTaskGroup(of: Void.self) { group in
                                group.addTask { try await Self.keepAlive(connection, logger: logger) }
                                for try await notification in notifications {
                                    hear(notification.payload, telling: continuation)
                                }
                                group.cancelAll()
                            }
                        }
                    } catch {
                        logger.warning("stopped listening", metadata: ["error": "\(PostgresFailure.describing(error))"])
                    }
                    try? await connection.close()
                } catch {
                    logger.warning("cannot listen", metadata: ["error": "\(PostgresFailure.describing(error))"])
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, Self.listeningRetry.longest)
            }
            continuation.finish()
        }

        /// How often the listening connection is asked a trivial question, and how long it has to
        /// answer. A connection that hangs without closing (a network that drops packets, a
        /// server that stopped) tells nothing: without a question, a server would wait for
        /// notifications that never come.
        static let listenerCheck: (every: Duration, answerWithin: TimeAmount) = (.seconds(5), .seconds(5))

        /// Asks `connection` `SELECT 1` every few seconds; closes it when it does not answer in
        /// time, which ends its notifications, so that the loop listens again on a new one.
        /// Returns only by throwing: its cancellation, or the connection's failure.
        private static func keepAlive(_ connection: PostgresConnection, logger: Logger) async throws {
            while true {
                try await Task.sleep(for: listenerCheck.every)
                try await check(connection, logger: logger).get()
            }
        }

        /// `SELECT 1` on `connection`, which is closed if the answer has not come in time.
        private static func check(_ connection: PostgresConnection, logger: Logger) -> EventLoopFuture<Void> {
            let answered: EventLoopFuture<PostgresQueryResult> = connection.query("SELECT 1", logger: logger)
            let deadline = connection.eventLoop.scheduleTask(in: listenerCheck.answerWithin) {
                logger.warning("the listening connection did not answer: listening on another")
                connection.close().whenComplete { _ in }
            }
            return answered.always { _ in deadline.cancel() }.map { _ in }
        }

        private func hear(_ payload: String, telling continuation: AsyncStream<StoreChange>.Continuation) {
            guard let announcement = try? JSONDecoder().decode(Announcement.self, from: Data(payload.utf8)) else {
                logger.warning("an announcement not understood", metadata: ["payload": "\(payload.prefix(200))"])
                return
            }
            guard announcement.origin != origin else { return }
            continuation.yield(announcement.change)
        }
    }
#endif
