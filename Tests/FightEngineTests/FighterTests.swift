import FightEngine
import Testing

@Suite struct FighterTests {
    @Test(arguments: ["abc", "Fighter_01", "a_b", "ABCDEFGHIJ0123456789"])
    func acceptsUsername(_ name: String) throws {
        var ring = Ring()
        let id = try ring.register(name)
        #expect(try ring.fighter(id).username.rawValue == name)
    }

    @Test(arguments: [
        ("ab", Field.username), ("abcdefghij0123456789x", .username), ("has space", .username),
        ("dash-name", .username), ("émile", .username), ("", .username),
    ])
    func refusesUsername(_ name: String, field: Field) {
        let refusal = Ring().refusal(.register(Registration(username: name, displayName: "x")))
        guard case .invalid(let error) = refusal else {
            Issue.record("expected an invalid field, got \(String(describing: refusal))")
            return
        }
        #expect(error.field == field)
    }

    @Test func usernamesAreUniqueWithoutCase() throws {
        var ring = Ring()
        _ = try ring.register("Rocky")
        #expect(ring.refusal(.register(Registration(username: "rOCKY", displayName: "x"))) == .usernameTaken("rOCKY"))
    }

    @Test func registrationKeepsEverythingGiven() throws {
        var ring = Ring()
        let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)
        let profile = ProfileStats(heightCm: 180, weightKg: 75, reachCm: 185)
        let events = try ring.run(
            .register(
                Registration(
                    username: "ali", displayName: "Muhammad", bio: "float like a butterfly", location: paris,
                    profile: profile)))
        let fighter = try ring.fighter(FighterID(1))
        #expect(fighter.displayName == "Muhammad" && fighter.bio == "float like a butterfly")
        #expect(fighter.location == paris && fighter.profile == profile && fighter.record == Record())
        #expect(fighter.joinedAt == ring.now)
        #expect(events == [.fighter(FighterEvent(fighter: fighter.id, at: ring.now, change: .registered(fighter)))])
        #expect(ring.state.nextFighterID == FighterID(2))
    }

    @Test(arguments: [
        (Registration(username: "abc", displayName: ""), Field.displayName),
        (Registration(username: "abc", displayName: "   "), .displayName),
        (Registration(username: "abc", displayName: String(repeating: "x", count: 51)), .displayName),
        (Registration(username: "abc", displayName: "x", bio: String(repeating: "b", count: 301)), .bio),
        (
            Registration(username: "abc", displayName: "x", location: Coordinate(latitude: 90.5, longitude: 0)),
            .latitude
        ),
        (
            Registration(username: "abc", displayName: "x", location: Coordinate(latitude: .nan, longitude: 0)),
            .latitude
        ),
        (
            Registration(username: "abc", displayName: "x", location: Coordinate(latitude: 0, longitude: -181)),
            .longitude
        ),
        (Registration(username: "abc", displayName: "x", profile: ProfileStats(heightCm: 20)), .heightCm),
        (Registration(username: "abc", displayName: "x", profile: ProfileStats(weightKg: 1000)), .weightKg),
        (Registration(username: "abc", displayName: "x", profile: ProfileStats(reachCm: -5)), .reachCm),
    ])
    func refusesBadField(_ registration: Registration, field: Field) {
        guard case .invalid(let error) = Ring().refusal(.register(registration)) else {
            Issue.record("expected \(field) to be refused")
            return
        }
        #expect(error.field == field)
    }

    @Test func limitsAreInclusive() throws {
        var ring = Ring()
        try ring.run(
            .register(
                Registration(
                    username: "edge", displayName: String(repeating: "x", count: 50),
                    bio: String(repeating: "b", count: 300),
                    location: Coordinate(latitude: -90, longitude: 180))))
    }

    @Test func updatesProfileAndLocation() throws {
        var ring = Ring()
        let id = try ring.register("joe")
        let profile = ProfileStats(heightCm: 170, weightKg: 60, reachCm: 172)
        try ring.run(.updateProfile(id, displayName: "Smokin' Joe", bio: "left hook", profile: profile))
        let london = Coordinate(latitude: 51.5074, longitude: -0.1278)
        try ring.run(.move(id, to: london))
        let joe = try ring.fighter(id)
        #expect(
            joe.displayName == "Smokin' Joe" && joe.bio == "left hook" && joe.profile == profile
                && joe.location == london)
        #expect(
            ring.refusal(.move(id, to: Coordinate(latitude: 0, longitude: 200)))
                == .invalid(FieldError(.longitude, expected: "a number from -180 to 180", got: "200.0")))
        #expect(
            ring.refusal(.updateProfile(FighterID(99), displayName: "x", bio: "", profile: profile))
                == .unknownFighter(FighterID(99)))
    }

    @Test func fieldErrorNamesFieldAndExpectation() {
        let error = FieldError(.username, expected: "3 to 20 characters", got: "2 characters")
        #expect(error.description == "username: expected 3 to 20 characters, got 2 characters")
    }
}

/// Names and bios are shown on other people's terminals and saved as text: a control character
/// could hide part of one, cut it short, or move the cursor, so the engine refuses it.
@Suite struct TextFieldTests {
    /// Text as people write it: emoji (with joiners and skin tones), combining marks, scripts
    /// written right to left, and the spaces and punctuation of ordinary names.
    static let ordinary = [
        "Muhammad Ali", "🥊 Rocky 🇮🇹", "👩🏽‍🦱 Zoë", "e\u{301}le\u{300}ve", "محمد علي", "李小龍", "Iron  Mike",
        "O'Neil-Šimić",
    ]

    @Test(arguments: ordinary)
    func ordinaryNamesAndBiosAreAccepted(_ text: String) throws {
        var ring = Ring()
        try ring.run(.register(Registration(username: "abc", displayName: text, bio: text + "\nline two\twith a tab")))
    }

    @Test(arguments: [
        ("ab\u{0}cd", "U+0000"), ("\u{0}abc", "U+0000"), ("two\nlines", "U+000A"), ("tab\there", "U+0009"),
        ("bell\u{7}", "U+0007"), ("\u{1B}[2Jclear", "U+001B"), ("del\u{7F}", "U+007F"), ("c1\u{85}", "U+0085"),
        ("line\u{2028}separator", "U+2028"), ("paragraph\u{2029}separator", "U+2029"),
    ])
    func displayNamesRefuseEveryControlCharacterAndLineBreak(_ name: String, _ codePoint: String) throws {
        let expected = Refusal.invalid(
            FieldError(.displayName, expected: "no control characters or line breaks", got: codePoint))
        var ring = Ring()
        #expect(ring.refusal(.register(Registration(username: "abc", displayName: name))) == expected)
        let id = try ring.register("alice")
        #expect(ring.refusal(.updateProfile(id, displayName: name, bio: "", profile: ProfileStats())) == expected)
    }

    @Test(arguments: [
        ("ab\u{0}cd", "U+0000"), ("\r\n", "U+000D"), ("\u{1B}[31mred", "U+001B"), ("a\u{2028}b", "U+2028"),
    ])
    func biosRefuseControlCharactersButNewlineAndTab(_ bio: String, _ codePoint: String) throws {
        var ring = Ring()
        let id = try ring.register("alice")
        #expect(
            ring.refusal(.updateProfile(id, displayName: "Alice", bio: bio, profile: ProfileStats()))
                == .invalid(
                    FieldError(
                        .bio, expected: "no control characters or line separators but newline and tab", got: codePoint))
        )
        try ring.run(.updateProfile(id, displayName: "Alice", bio: "first\n\tsecond", profile: ProfileStats()))
        #expect(try ring.fighter(id).bio == "first\n\tsecond")
    }
}
