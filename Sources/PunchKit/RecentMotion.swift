// MARK: - RecentMotion

/// A fixed ring of the latest samples, for looking back from a punch to its thrust. It never
/// grows: at 400 Hz it covers 2.5 s, where the detector looks back about 0.7 s; above 1.4 kHz it
/// covers less than that, and the look backs take what it has.
///
/// Entries are numbered in the order they came, from 0, and the number never goes back, so the
/// detector can keep an entry's index and find it again while the ring still holds it.
struct RecentMotion: Sendable {
    /// One sample, as the detector saw it.
    struct Entry: Sendable {
        /// The source's time, in seconds.
        var time: Double
        /// The time since the sample before, in seconds; 0 for the first after a restart.
        var interval: Double
        /// The reading, in g, gravity included when the source has it.
        var raw: Vector3
        /// The reading with gravity removed, in g.
        var linear: Vector3
        /// The length of `linear`, in g.
        var magnitude: Double
        /// The strength of motion over the strength window that ends with this sample.
        var strength: Double
        /// The rotation rate, in rad/s, device frame; zero where the source has no gyroscope.
        var rotation: Vector3
        /// Up as the orientation filter had it after this sample (a unit vector, device frame),
        /// or zero where the source has no gyroscope or no gravity.
        var up: Vector3
    }

    /// How many entries the ring holds: a power of two, so that wrapping is a mask.
    static let capacity = 1024
    private var entries: ContiguousArray<Entry>
    /// The number the next entry gets: how many were ever appended.
    private(set) var endIndex = 0
    /// The first entry since the ring was last emptied.
    private var firstIndex = 0

    init() {
        let blank = Entry(
            time: 0, interval: 0, raw: .zero, linear: .zero, magnitude: 0, strength: 0, rotation: .zero, up: .zero)
        entries = ContiguousArray(repeating: blank, count: Self.capacity)
    }

    /// The oldest entry the ring still holds; `endIndex` when it holds none.
    var startIndex: Int { max(firstIndex, endIndex - Self.capacity) }

    /// Whether the ring holds no entry.
    var isEmpty: Bool { startIndex == endIndex }

    /// The entry at `index`, which the ring holds.
    subscript(index: Int) -> Entry {
        get { entries[index & (Self.capacity - 1)] }
        set { entries[index & (Self.capacity - 1)] = newValue }
    }

    /// The newest entry; the ring must hold one.
    var newest: Entry { self[endIndex - 1] }

    mutating func append(_ entry: Entry) {
        self[endIndex] = entry
        endIndex += 1
    }

    /// Forgets every entry; the numbering goes on.
    mutating func removeAll() { firstIndex = endIndex }

    /// The indices of the entries held, from the first at or after `time` to the newest.
    func indices(since time: Double) -> Range<Int> {
        var first = endIndex
        while first > startIndex && self[first - 1].time >= time { first -= 1 }
        return first..<endIndex
    }

    /// Whether no entry held from the first at or after `time` to the newest is stronger than
    /// `strength`: the entries of `indices(since:)`, walked back from the newest and left at the
    /// first stronger one, reading only their times and strengths.
    func isStrongest(_ strength: Double, since time: Double) -> Bool {
        let start = startIndex
        return entries.withUnsafeBufferPointer { entries in
            var index = endIndex
            while index > start {
                index -= 1
                let entry = entries[index & (Self.capacity - 1)]
                guard entry.time >= time else { return true }
                if entry.strength > strength { return false }
            }
            return true
        }
    }
}
