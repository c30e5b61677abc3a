// A report ThreadSanitizer makes about correctly synchronised code, with nothing but the standard
// library: a value handed from a thread to a task through a continuation that is registered under
// a mutex and resumed after the mutex is released. swift-nio's NIOThrowingAsyncSequenceProducer
// does exactly that (next(): NIOThrowingAsyncSequenceProducer.swift:637-640; yield(): the
// continuation is resumed at :519/:524, after the lock at :504), and HitThat's server tests once
// got this report for a WebSocket frame crossing it (README, Reliability).
//
//   swiftc -sanitize=thread -g -parse-as-library -o /tmp/handoff tools/tsan-continuation-handoff.swift
//   /tmp/handoff late    # no report
//   /tmp/handoff early   # one report, every run: the read below "races" the Payload's init
//
// Why: the Swift runtime tells TSan about a resumption with __tsan_release on the task in
// resumeTaskAfterContinuation, and __tsan_acquire when the task next runs as a job
// (runJobInEstablishedExecutorContext). When the resume comes before the task has suspended
// (still inside the continuation's closure, or racing its await), swift_continuation_await sees
// the status Resumed and goes on without running a job, so there is no acquire. The real
// happens-before is there (an acquire load of the continuation's status pairing with the resumer's
// release compare-exchange), but it is inside libswift_Concurrency, which TSan does not instrument.
// The program prints the runtime's TSan hooks first, to show they are active.
import Foundation
import Glibc

final class Payload {
    var value: Int
    init(_ value: Int) { self.value = value }
}

/// Where the waiting continuation is kept, under a pthread mutex (which TSan sees).
final class Slot: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var waiting: UnsafeContinuation<Payload, Never>?
    init() { pthread_mutex_init(&mutex, nil) }
    func register(_ continuation: UnsafeContinuation<Payload, Never>) {
        pthread_mutex_lock(&mutex)
        waiting = continuation
        pthread_mutex_unlock(&mutex)
    }
    func take() -> UnsafeContinuation<Payload, Never>? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        let continuation = waiting
        waiting = nil
        return continuation
    }
}

/// libswiftCore's hooks, set by its __tsan_on_initialize when the TSan runtime starts.
func hooks() -> String {
    func word(_ name: String) -> String {
        guard let symbol = dlsym(nil, name) else { return "\(name): not found" }
        return name == "_swift_tsan_enabled"
            ? "\(name) = \(symbol.load(as: Bool.self))"
            : "\(name) = 0x\(String(symbol.load(as: UInt.self), radix: 16))"
    }
    return ["_swift_tsan_enabled", "_swift_tsan_acquire", "_swift_tsan_release"].map(word).joined(separator: ", ")
}

/// early: the producer resumes while the task is still inside the continuation's closure.
/// late: the producer resumes after the task has suspended, so the task is enqueued and run as a job.
func handOff(early: Bool) async -> Int {
    let slot = Slot()
    let producer = Thread {
        var continuation: UnsafeContinuation<Payload, Never>?
        while continuation == nil {
            continuation = slot.take()
            if continuation == nil { usleep(100) }
        }
        if !early { usleep(20_000) }
        // Written after the mutex was last taken: only the resumption orders it before the read.
        let payload = Payload(42)
        continuation!.resume(returning: payload)
    }
    producer.start()
    let payload = await withUnsafeContinuation { (continuation: UnsafeContinuation<Payload, Never>) in
        slot.register(continuation)
        if early { usleep(20_000) }
    }
    return payload.value
}

@main struct Handoff {
    static func main() async {
        print(hooks())
        let early = CommandLine.arguments.dropFirst().first == "early"
        var sum = 0
        for _ in 0..<5 { sum += await handOff(early: early) }
        print(early ? "early" : "late", sum)
    }
}
