// MARK: - TraceSummary

/// What a reader found out about a trace, and what it skipped.
public struct TraceSummary: Hashable, Sendable {
    /// The name the caller gave the source.
    public var source: String
    /// The sensor the file was read for: acceleration, or a gyroscope's file of an export.
    public var sensor: MotionSensor = .accelerometer
    /// The format, once the header is read (the caller's, when it forced one).
    public var format: TraceFormat?
    /// The field separator, once the header is read.
    public var separator: TraceSeparator?
    /// The columns the samples were read from, once the header is read.
    public var columns: TraceColumns?
    /// The time column's unit: from the header or the format, or from the spacing of the first
    /// rows; nil while undecided, or when there were no rows to decide it from.
    public var timeUnit: TimeUnit?
    /// The acceleration's unit: the caller's, the header's or the format's, or from the first
    /// rows' resting magnitude; nil while undecided, or when there were no rows.
    public var units: AccelerationUnit?
    /// Whether the units were guessed from the data (nothing else said what they are).
    public var unitsFromData = false
    /// The rotation rate's unit, for a gyroscope's file or rotation columns beside the
    /// acceleration: from the header or the format, or from the first rows' largest rate.
    public var rotationUnit: RotationUnit?
    /// Whether the rotation rate's unit was guessed from the data.
    public var rotationUnitFromData = false
    /// Whether the acceleration includes gravity: from the header, the format or the file's name,
    /// or from the first rows' resting magnitude; nil while undecided, or when there were no rows.
    public var gravityIncluded: Bool?
    /// The samples delivered so far.
    public var sampleCount = 0
    /// Rows skipped because a needed field was empty, which phyphox writes where a sensor
    /// delivered nothing. They are not errors.
    public var missingValueRows = 0
    /// Broken rows skipped in lenient mode.
    public var skippedRows = 0
    /// The first errors of the skipped rows (at most `TraceReader.keptErrors`), for reporting.
    public var errors: [TraceError] = []
    /// The lines read so far.
    public var lineCount = 0

    /// An empty summary for a source read for `sensor`'s readings.
    public init(source: String, sensor: MotionSensor = .accelerometer) {
        self.source = source
        self.sensor = sensor
    }
}

// MARK: - TraceReader

/// Reads an accelerometer CSV trace pushed to it in chunks of bytes, and delivers samples in g
/// and seconds as soon as their units are known.
///
/// The header line decides the format (unless the caller forces one) and often the units. What
/// the header leaves open (a generic file's time unit, its acceleration unit, whether gravity is
/// in it) is decided from the first rows, held back for at most `lookAheadRows` rows or
/// `lookAheadSeconds` seconds. Memory is bounded by that and by `maximumLineLength`.
///
/// Chunks may split lines anywhere: the samples and errors do not depend on where.
///
/// ```swift
/// var reader = TraceReader(source: "run.csv")
/// try reader.feed(chunk) { sample in detector.process(sample) }
/// try reader.finish { sample in detector.process(sample) }
/// ```
///
/// After an error is thrown the reader should not be fed again.
public struct TraceReader: Sendable {
    /// The most rows held back to decide units from.
    public static let lookAheadRows = 512
    /// The most time, in seconds, held back to decide units from.
    public static let lookAheadSeconds = 2.0
    /// The longest line, in bytes, that is read; a longer one is an error.
    public static let maximumLineLength = 1 << 20
    /// How many errors of skipped rows lenient mode keeps for reporting.
    public static let keptErrors = 10

    /// What has been found out so far.
    public private(set) var summary: TraceSummary

    private let forcedFormat: TraceFormat?
    private let forcedUnits: AccelerationUnit?
    private let isLenient: Bool
    private let sharedClock: Bool
    /// Whether the rows' rates need a unit: a gyroscope's file, or one with rotation columns.
    private var hasRotation = false

    /// The start of a line whose end has not arrived yet.
    private var pending: [UInt8] = []
    /// Whether the current line went over `maximumLineLength` and is dropped up to its end.
    private var isDroppingLine = false
    private var rowParser: TraceRowParser?
    /// Rows, in the file's units, held back until the units are decided; nil once they are.
    private var lookAhead: [MotionSample]? = []
    /// The last accepted row's time, in the file's unit.
    private var previousTime: Double?
    private var timeDivisor = 1.0
    private var accelerationDivisor = 1.0
    private var rotationDivisor = 1.0
    /// Whether the divisors are all 1 for an accelerometer's rows: they are delivered as read.
    private var isInSecondsAndG = false
    /// The array the rows of a chunk's second half are read into, kept from chunk to chunk (as
    /// large as the most rows half a chunk held).
    private var spareRows: [MotionSample] = []

    /// Creates a reader.
    ///
    /// - Parameters:
    ///   - source: the name used in errors and to tell what a Sensor Logger file holds
    ///     (`TotalAcceleration.csv` with gravity, `Accelerometer.csv` without, `Gyroscope.csv`
    ///     refused); `-` for standard input.
    ///   - format: the format to read, or nil to detect it from the header.
    ///   - units: the acceleration's unit, or nil to take it from the header, the format or the data.
    ///   - lenient: whether broken rows are skipped and counted instead of thrown.
    ///   - sensor: what the file is read for: acceleration (with any gyroscope columns beside
    ///     it), or a gyroscope's file, whose samples carry only a rotation rate.
    ///   - sharedClock: whether to read the time from a column every file of one export shares
    ///     (MetaBase's `epoch (ms)`), so that its sensors' files line up, rather than one that
    ///     starts at 0 in each file.
    public init(
        source: String, format: TraceFormat? = nil, units: AccelerationUnit? = nil, lenient: Bool = false,
        sensor: MotionSensor = .accelerometer, sharedClock: Bool = false
    ) {
        summary = TraceSummary(source: source, sensor: sensor)
        forcedFormat = format
        forcedUnits = units
        isLenient = lenient
        self.sharedClock = sharedClock
    }

    // MARK: - Feeding bytes

    /// Reads the next chunk of the file, delivering the samples it completes.
    public mutating func feed(_ chunk: UnsafeRawBufferPointer, _ emit: (MotionSample) throws -> Void) throws {
        var start = 0
        if !pending.isEmpty || isDroppingLine {
            guard let newline = Self.firstNewline(in: chunk, from: 0) else {
                try hold(UnsafeRawBufferPointer(rebasing: chunk[...]))
                return
            }
            try hold(UnsafeRawBufferPointer(rebasing: chunk[..<newline]))
            try endHeldLine(emit)
            start = newline + 1
        }
        while start < chunk.count {
            guard let newline = Self.firstNewline(in: chunk, from: start) else {
                try hold(UnsafeRawBufferPointer(rebasing: chunk[start...]))
                return
            }
            try readLine(UnsafeRawBufferPointer(rebasing: chunk[start..<newline]), emit)
            start = newline + 1
        }
    }

    /// The index of the first `\n` at or after `start`, looked for a word at a time.
    static func firstNewline(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index + 8 <= bytes.count {
            // Bytes equal to '\n' become zero; the lowest zero byte is the first to set its
            // high bit here (a borrow can only mark bytes after it).
            let loaded = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let word = loaded ^ 0x0A0A_0A0A_0A0A_0A0A
            let zeroBytes = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
            if zeroBytes != 0 { return index + zeroBytes.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] == TraceByte.newline { return index }
            index += 1
        }
        return nil
    }

    /// Reads a last line that has no line end, and delivers the samples still held back.
    ///
    /// - Parameter droppingUnfinishedLine: whether a last line with no line end is passed over, for
    ///   a stream stopped part way (Ctrl-C on a pipe), where it is a row cut short, not the last.
    /// - Throws: `TraceError.Kind.emptyFile` when there was no header.
    public mutating func finish(
        droppingUnfinishedLine: Bool = false, _ emit: (MotionSample) throws -> Void
    ) throws {
        if droppingUnfinishedLine {
            pending.removeAll()
            isDroppingLine = false
        }
        if !pending.isEmpty || isDroppingLine { try endHeldLine(emit) }
        guard rowParser != nil else {
            throw TraceError(
                .emptyFile, source: summary.source, line: nil, expected: "a header line",
                found: summary.lineCount == 0 ? "an empty file" : "only blank lines")
        }
        for reading in decideUnits() { try deliver(reading, emit) }
    }

    /// Reads a whole file held in memory.
    public static func readAll(
        bytes: [UInt8], source: String, format: TraceFormat? = nil, units: AccelerationUnit? = nil,
        lenient: Bool = false, sensor: MotionSensor = .accelerometer, sharedClock: Bool = false
    ) throws -> [MotionSample] {
        var reader = TraceReader(
            source: source, format: format, units: units, lenient: lenient, sensor: sensor, sharedClock: sharedClock)
        var samples: [MotionSample] = []
        try bytes.withUnsafeBytes { try reader.feed($0) { samples.append($0) } }
        try reader.finish { samples.append($0) }
        return samples
    }

    // MARK: - Lines

    /// Keeps the start of a line until its end arrives.
    private mutating func hold(_ bytes: UnsafeRawBufferPointer) throws {
        guard !isDroppingLine else { return }
        // Room for a BOM and a `\r` too, which do not count: `readLine` decides on the rest, so
        // where the chunks split cannot change what is too long.
        guard pending.count + bytes.count <= Self.maximumLineLength + 4 else {
            pending.removeAll()
            isDroppingLine = true
            try report(lineTooLong(summary.lineCount + 1))
            return
        }
        pending.append(contentsOf: bytes)
    }

    /// Reads the held line, now that its end has arrived.
    private mutating func endHeldLine(_ emit: (MotionSample) throws -> Void) throws {
        if isDroppingLine {
            isDroppingLine = false
            summary.lineCount += 1
            return
        }
        // Moved out so that reading it may change `self`; moved back to keep its capacity.
        var line = pending
        pending = []
        try line.withUnsafeBytes { try readLine($0, emit) }
        line.removeAll(keepingCapacity: true)
        pending = line
    }

    /// Reads one line without its `\n`.
    private mutating func readLine(_ bytes: UnsafeRawBufferPointer, _ emit: (MotionSample) throws -> Void) throws {
        summary.lineCount += 1
        var line = bytes
        if line.last == TraceByte.carriageReturn { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        if summary.lineCount == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) {
            line = UnsafeRawBufferPointer(rebasing: line.dropFirst(3))
        }
        guard line.count <= Self.maximumLineLength else {
            try report(lineTooLong(summary.lineCount))
            return
        }
        if line.allSatisfy({ $0 == TraceByte.space || $0 == TraceByte.tab }) { return }

        guard let rowParser else {
            try readHeader(line)
            return
        }
        switch rowParser.parse(line, line: summary.lineCount, notBefore: previousTime) {
        case .reading(let reading):
            previousTime = reading.time
            try accept(reading, emit)
        case .missingValue:
            summary.missingValueRows += 1
        case .failure(let error):
            try report(error)
        }
    }

    private mutating func readHeader(_ line: UnsafeRawBufferPointer) throws {
        let header = String(decoding: line, as: UTF8.self)
        let layout = try TraceLayout.read(
            header: header, format: forcedFormat, sensor: summary.sensor, sharedClock: sharedClock,
            source: summary.source, line: summary.lineCount)
        rowParser = TraceRowParser(layout: layout, source: summary.source)
        summary.format = layout.format
        summary.separator = layout.separator
        summary.columns = layout.columns
        summary.timeUnit = layout.timeUnit
        summary.rotationUnit = layout.rotationUnit
        hasRotation = summary.sensor == .gyroscope || layout.hasRotationBeside
        if summary.sensor == .accelerometer {
            summary.units = forcedUnits ?? layout.units
            summary.gravityIncluded = layout.gravityIncluded
        }
        let accelerationKnown = summary.sensor == .gyroscope || (summary.units != nil && summary.gravityIncluded != nil)
        if summary.timeUnit != nil && accelerationKnown && (!hasRotation || summary.rotationUnit != nil) {
            // Nothing to hold rows back for.
            _ = decideUnits()
        }
    }

    /// Throws the error of a broken row, or in lenient mode counts it and goes on.
    private mutating func report(_ error: TraceError) throws {
        guard isLenient else { throw error }
        summary.skippedRows += 1
        keep(error)
    }

    /// Keeps a skipped row's error for reporting, while fewer than `keptErrors` are kept.
    private mutating func keep(_ error: TraceError) {
        if summary.errors.count < Self.keptErrors { summary.errors.append(error) }
    }

    private func lineTooLong(_ line: Int) -> TraceError {
        TraceError(
            .lineTooLong, source: summary.source, line: line,
            expected: "a line of at most \(Self.maximumLineLength) bytes", found: "a longer one")
    }

    // MARK: - Samples

    /// Delivers a reading, or holds it back while the units are undecided.
    private mutating func accept(_ reading: MotionSample, _ emit: (MotionSample) throws -> Void) throws {
        guard lookAhead != nil else {
            try deliver(reading, emit)
            return
        }
        lookAhead?.append(reading)
        if let held = lookAhead, isEnoughToDecide(held) {
            for reading in decideUnits() { try deliver(reading, emit) }
        }
    }

    private mutating func deliver(_ reading: MotionSample, _ emit: (MotionSample) throws -> Void) throws {
        summary.sampleCount += 1
        // Seconds and g, as most traces are, need no division (which would change no bit).
        if isInSecondsAndG { return try emit(reading) }
        let time = reading.time / timeDivisor
        switch summary.sensor {
        case .accelerometer:
            try emit(
                MotionSample(
                    time: time, acceleration: reading.acceleration / accelerationDivisor,
                    rotationRate: reading.rotationRate.map { $0 / rotationDivisor }))
        case .gyroscope:
            // A gyroscope's file: its three axes were read where acceleration goes.
            try emit(MotionSample(time: time, acceleration: .zero, rotationRate: reading.acceleration / rotationDivisor))
        }
    }

    /// Decides what the header left open from the rows held back, and returns them for delivery.
    private mutating func decideUnits() -> [MotionSample] {
        guard let held = lookAhead else { return [] }
        lookAhead = nil
        if !held.isEmpty {
            if summary.timeUnit == nil { summary.timeUnit = TimeUnit(spacing: held) }
            if hasRotation && summary.rotationUnit == nil {
                let rates = summary.sensor == .gyroscope ? held.map(\.acceleration) : held.compactMap(\.rotationRate)
                summary.rotationUnit = RotationUnit.guess(largestRate: rates.map(\.length).max() ?? 0)
                summary.rotationUnitFromData = true
            }
            if summary.sensor == .accelerometer, let resting = restingMagnitude(held) {
                if summary.units == nil {
                    let guess = AccelerationUnit.guess(restingMagnitude: resting)
                    summary.units = guess.units
                    summary.unitsFromData = true
                    if summary.gravityIncluded == nil { summary.gravityIncluded = guess.gravityIncluded }
                } else if summary.gravityIncluded == nil, let units = summary.units {
                    summary.gravityIncluded = resting / units.perG > AccelerationUnit.gravityThreshold
                }
            }
        }
        timeDivisor = (summary.timeUnit ?? .seconds).perSecond
        accelerationDivisor = (summary.units ?? .g).perG
        rotationDivisor = (summary.rotationUnit ?? .radiansPerSecond).perRadianPerSecond
        isInSecondsAndG =
            summary.sensor == .accelerometer && timeDivisor == 1 && accelerationDivisor == 1
            && (!hasRotation || rotationDivisor == 1)
        return held
    }

    /// Whether the rows held back are enough: `lookAheadRows` of them, or `lookAheadSeconds`
    /// (checked every 16 rows, since an undecided time unit has to be guessed to measure it).
    private func isEnoughToDecide(_ held: [MotionSample]) -> Bool {
        if held.count >= Self.lookAheadRows { return true }
        guard held.count % 16 == 0, let first = held.first, let last = held.last else { return false }
        let unit = summary.timeUnit ?? TimeUnit(spacing: held)
        return (last.time - first.time) / unit.perSecond >= Self.lookAheadSeconds
    }

    /// The median length of the readings: the device's reading at rest, in the file's unit.
    private func restingMagnitude(_ readings: [MotionSample]) -> Double? {
        Self.median(readings.map(\.acceleration.length))
    }
}

// MARK: - Reading half a chunk alongside

extension TraceReader {
    /// Reads the next chunk as `feed(_:_:)` does, but the later part of its whole lines (from
    /// `splitPoint(from:to:)` on, the "second half") on another thread while this one reads the
    /// first: the same samples in the same order, the same errors and the same summary.
    ///
    /// Until the header is read and the units are decided, and for the line the last chunk
    /// began and the one this chunk begins, the chunk is read in order on this thread.
    ///
    /// - Parameter inBackground: starts its job on another thread and returns a function that
    ///   waits for the job to end, and returns at once when called again after it has.
    public mutating func feed(
        _ chunk: UnsafeRawBufferPointer, inBackground: (@escaping @Sendable () -> Void) -> () -> Void,
        _ emit: (MotionSample) throws -> Void
    ) throws {
        var start = 0
        if !pending.isEmpty || isDroppingLine {
            guard let newline = Self.firstNewline(in: chunk, from: 0) else { return try feed(chunk, emit) }
            try feed(UnsafeRawBufferPointer(rebasing: chunk[...newline]), emit)
            start = newline + 1
        }
        guard rowParser != nil, lookAhead == nil, let end = chunk[start...].lastIndex(of: TraceByte.newline),
            let middle = Self.firstNewline(in: chunk, from: Self.splitPoint(from: start, to: end)), middle < end
        else { return try feed(UnsafeRawBufferPointer(rebasing: chunk[start...]), emit) }
        let firstHalf = UnsafeRawBufferPointer(rebasing: chunk[start...middle])
        let secondHalf = UnsafeRawBufferPointer(rebasing: chunk[(middle + 1)...end])

        // The copy reading the second half counts from nothing, starts where this reader stands,
        // and keeps its rows unconverted. The time before its half is a guess, the last row of
        // the first half's; if that row turns out not to count (broken, or back in time), the
        // second half is read again, here, in order.
        var copy = self
        copy.summary.sampleCount = 0
        copy.summary.missingValueRows = 0
        copy.summary.skippedRows = 0
        copy.summary.errors = []
        copy.timeDivisor = 1
        copy.accelerationDivisor = 1
        copy.rotationDivisor = 1
        copy.isInSecondsAndG = false
        copy.spareRows = []
        copy.previousTime = lastRowTime(in: firstHalf)
        let half = HalfReading(reader: copy, rows: spareRows, lines: secondHalf)
        spareRows = []
        let firstLine = summary.lineCount
        let waitForHalf = inBackground { half.read() }
        // The job reads the chunk and writes `half`: it must end before either goes, also when
        // the first half throws.
        defer { waitForHalf() }
        try feed(firstHalf, emit)
        waitForHalf()
        if copy.previousTime == previousTime {
            try takeIn(half, linesBefore: summary.lineCount - firstLine, emit)
        } else {
            try feed(secondHalf, emit)
        }
        // Taken back, not copied, so that emptying it keeps its memory for the next chunk.
        swap(&spareRows, &half.rows)
        spareRows.removeAll(keepingCapacity: true)
        try feed(UnsafeRawBufferPointer(rebasing: chunk[(end + 1)...]), emit)
    }

    /// Where the lines from `start` to `end` are cut for reading alongside: the line that goes on
    /// at three eighths of the way is the last this thread reads. This thread also runs what
    /// the rows are for (the detector) on the first part, and then on the rows read alongside,
    /// while the other thread waits: a smaller first part keeps the two busy for about as long.
    static func splitPoint(from start: Int, to end: Int) -> Int { start + (end - start) * 3 / 8 }

    /// What the copy reading a chunk's second half found: its rows in the file's own units, and
    /// the error that stopped it, if one did. Written by that job only, and read once it ended.
    private final class HalfReading: @unchecked Sendable {
        var reader: TraceReader
        var rows: [MotionSample]
        var failure: TraceError?
        let lines: UnsafeRawBufferPointer

        init(reader: TraceReader, rows: [MotionSample], lines: UnsafeRawBufferPointer) {
            self.reader = reader
            self.rows = rows
            self.lines = lines
        }

        func read() {
            // Locals, not the properties, while reading: each access to a property would be checked.
            var reader = self.reader
            var rows = self.rows
            self.rows = []
            do {
                try reader.feed(lines) { rows.append($0) }
            } catch {
                // The rows go into an array, so only the reader's own errors are thrown.
                failure = error as? TraceError
            }
            self.reader = reader
            self.rows = rows
        }
    }

    /// The time of the last line of `lines` if it is a good row on its own, else nil.
    private func lastRowTime(in lines: UnsafeRawBufferPointer) -> Double? {
        guard let rowParser else { return nil }
        var line = lines.dropLast()
        if line.last == TraceByte.carriageReturn { line = line.dropLast() }
        let start = line.lastIndex(of: TraceByte.newline).map { $0 + 1 } ?? line.startIndex
        let outcome = rowParser.parse(UnsafeRawBufferPointer(rebasing: line[start...]), line: 0, notBefore: nil)
        guard case .reading(let row) = outcome else { return nil }
        return row.time
    }

    /// Adds what the copy found, `linesBefore` lines after where it started.
    private mutating func takeIn(
        _ half: HalfReading, linesBefore: Int, _ emit: (MotionSample) throws -> Void
    ) throws {
        func placed(_ error: TraceError) -> TraceError {
            var error = error
            error.line = error.line.map { $0 + linesBefore }
            return error
        }
        for row in half.rows { try deliver(row, emit) }
        let found = half.reader.summary
        summary.lineCount = found.lineCount + linesBefore
        summary.missingValueRows += found.missingValueRows
        summary.skippedRows += found.skippedRows
        for error in found.errors { keep(placed(error)) }
        if let time = half.reader.previousTime { previousTime = time }
        if let failure = half.failure { throw placed(failure) }
    }
}

// MARK: - Deciding units from data

extension TimeUnit {
    /// The unit that puts the median interval between distinct times at a rate a sensor
    /// records at (25 to 400 Hz, with room either side): the units' ranges are a thousand
    /// times apart, so the boundaries sit halfway between them on a log scale.
    init(spacing readings: [MotionSample]) {
        var steps: [Double] = []
        for (earlier, later) in zip(readings, readings.dropFirst()) where later.time > earlier.time {
            steps.append(later.time - earlier.time)
        }
        let step = TraceReader.median(steps) ?? 0.01
        self =
            switch step {
            case ..<0.316: .seconds
            case ..<316: .milliseconds
            case ..<316_000: .microseconds
            default: .nanoseconds
            }
    }
}

extension AccelerationUnit {
    /// The least resting magnitude, in g, that means gravity is in the readings.
    static let gravityThreshold = 0.5

    /// The unit and gravity that make sense of a device's resting magnitude in an unknown unit:
    /// about 1 is g with gravity, about 9.8 is m/s² with gravity, about 0 has no gravity and
    /// cannot tell its unit, so it is taken as m/s², which phones report linear acceleration in.
    static func guess(restingMagnitude: Double) -> (units: AccelerationUnit, gravityIncluded: Bool) {
        if restingMagnitude < gravityThreshold { return (.metersPerSecondSquared, false) }
        // Halfway between 1 and 9.8 on a log scale.
        return restingMagnitude < standardGravity.squareRoot() ? (.g, true) : (.metersPerSecondSquared, true)
    }
}

extension TraceReader {
    /// The median, or nil for no values.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
