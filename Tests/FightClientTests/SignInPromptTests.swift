import FightEngine
import FightProtocol
import Testing

@testable import FightClient

/// The password prompt of `hitthat play`, keys and the server's answers in, effects out: no
/// terminal and no server.
@Suite struct SignInPromptTests {
    static let session = Session(
        token: "t",
        fighter: FighterCard(
            Fighter(
                id: FighterID(1), username: try! Username(validating: "alice"), displayName: "alice",
                joinedAt: Timestamp(secondsSince1970: 1_800_000_000)),
            showingLocation: true))

    /// Types each byte of `text` and returns every effect, in order.
    static func type(_ text: String, into prompt: inout SignInPrompt) -> [SignInPrompt.Effect] {
        text.utf8.flatMap { prompt.handle(.key($0)) }
    }

    @Test func itAsksAndLogsInWithWhatWasTyped() {
        var prompt = SignInPrompt(username: "alice")
        #expect(prompt.handle(.start) == [.ask(prompt.passwordQuestion)])
        #expect(Self.type("correct horse\r", into: &prompt) == [.logIn("correct horse")])
        #expect(prompt.handle(.loggedIn(.session(Self.session))) == [.signedIn(Self.session)])
        #expect(prompt.isOver)
        #expect(Self.type("x\r", into: &prompt).isEmpty, "nothing after it is over")
    }

    /// Ctrl-C leaves at once, typed or not; the keys are not part of the password.
    @Test func ctrlCLeaves() {
        var prompt = SignInPrompt(username: "alice")
        _ = prompt.handle(.start)
        #expect(Self.type("abc\u{03}", into: &prompt) == [.leave(.interrupted)])
        #expect(prompt.isOver)
    }

    /// Ctrl-D leaves on an empty line (no password), and does nothing once something is typed.
    @Test func ctrlDLeavesOnAnEmptyLine() {
        var prompt = SignInPrompt(username: "alice")
        _ = prompt.handle(.start)
        #expect(Self.type("abc\u{04}", into: &prompt).isEmpty)
        #expect(Self.type("\u{15}\u{04}", into: &prompt) == [.leave(.endOfInput)], "Ctrl-U cleared the line")
    }

    /// A password the server would refuse for its length is asked for again, saying why, with
    /// the lengths the prompt was made with (the server's, by default).
    @Test func aPasswordOfTheWrongLengthIsAskedForAgain() {
        var prompt = SignInPrompt(username: "alice", lengths: 4...6)
        _ = prompt.handle(.start)
        #expect(
            Self.type("abc\n", into: &prompt) == [
                .say("a password is 4 to 6 characters; that was 3 characters"), .ask(prompt.passwordQuestion),
            ])
        #expect(Self.type("abcdefg\n", into: &prompt).first == .say("a password is 4 to 6 characters; that was 7 characters"))
        #expect(Self.type("\n", into: &prompt).first == .say("a password is 4 to 6 characters; that was nothing"))
        #expect(Self.type("abcd\n", into: &prompt) == [.logIn("abcd")], "the line starts afresh after each try")
        #expect(SignInPrompt(username: "alice").lengths == Credentials.passwordLengths)
    }

    /// Backspace takes back a whole character, however many bytes it is; other control keys are
    /// not typed.
    @Test func backspaceTakesBackACharacter() {
        var prompt = SignInPrompt(username: "alice", lengths: 1...10)
        _ = prompt.handle(.start)
        #expect(Self.type("pässé\u{7F}\u{7F}\u{7F}\tss\u{1B}\r", into: &prompt) == [.logIn("päss")])
    }

    /// A login the server refuses asks for the password again to make the account; the same
    /// password registers it.
    @Test func aNewAccountIsConfirmed() {
        var prompt = SignInPrompt(username: "alice")
        _ = prompt.handle(.start)
        _ = Self.type("correct horse\r", into: &prompt)
        #expect(Self.type("typed early", into: &prompt).isEmpty, "keys while the server is asked go nowhere")
        #expect(prompt.handle(.loggedIn(.unauthorized)) == [.say(prompt.notTaken), .ask(prompt.confirmQuestion)])
        #expect(Self.type("correct horse\r", into: &prompt) == [.register("correct horse")])
        #expect(prompt.handle(.registered(.session(Self.session))) == [.signedIn(Self.session)])
    }

    /// Two passwords that differ start over; a name that turns out to be taken was a wrong
    /// password, and starts over too.
    @Test func aConfirmationThatDiffersOrATakenNameStartsOver() {
        var prompt = SignInPrompt(username: "alice")
        _ = prompt.handle(.start)
        _ = Self.type("correct horse\r", into: &prompt)
        _ = prompt.handle(.loggedIn(.unauthorized))
        #expect(
            Self.type("correct hose\r", into: &prompt) == [
                .say("the two passwords differ; start again"), .ask(prompt.passwordQuestion),
            ])
        _ = Self.type("battery staple\r", into: &prompt)
        _ = prompt.handle(.loggedIn(.unauthorized))
        #expect(Self.type("battery staple\r", into: &prompt) == [.register("battery staple")])
        #expect(
            prompt.handle(.registered(.conflict)) == [
                .say("alice is someone's account, and that is not its password"), .ask(prompt.passwordQuestion),
            ])
        #expect(Self.type("tr0ub4dor&3\r", into: &prompt) == [.logIn("tr0ub4dor&3")])
    }

    /// Any other failure leaves with its words.
    @Test func aFailureLeavesWithItsWords() {
        var prompt = SignInPrompt(username: "alice")
        _ = prompt.handle(.start)
        _ = Self.type("correct horse\r", into: &prompt)
        #expect(prompt.handle(.loggedIn(.failed("too many sign-ins"))) == [.leave(.failed("too many sign-ins"))])
        #expect(prompt.isOver)
    }
}
