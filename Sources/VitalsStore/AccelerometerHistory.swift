import Foundation
import MotionAnalysis

/// A durable history of accelerometer samples in a folder, as Core Motion's `CMSensorRecorder` keeps
/// one: samples are appended as they come, survive the app being stopped or crashing, and any
/// stretch of them can be read back later (a tremor check over the last day, a workout's raw
/// movement). Samples older than ``Settings/retention`` before the newest are dropped, a segment
/// at a time.
///
/// On disk: one file per ``Settings/segmentDuration`` of samples (`accelerometer-<ms>.vah`, the
/// first sample's time in milliseconds), each a 32-byte header and then 32 bytes a sample (time and
/// x, y, z as little-endian 64-bit floats), so a reader finds any time by bisection and a half-written
/// last sample is recognised by the file's length. Opening the folder again reads up to the last whole
/// sample and changes no file; the next append cuts such a torn tail (``recoveredBytes``) and carries
/// on after it: nothing recorded before it is lost.
///
/// ```swift
/// let history = try AccelerometerHistory(folder: "/path/to/history")
/// try history.append(samples)                       // times in seconds, increasing
/// let lastHour = try history.samples(from: now - 3600, through: now)
/// ```
///
/// One writer at a time: the first append takes the folder's writer lock (an exclusive `flock` on its
/// `.writer-lock` file, held until the history is released), so a second history that appends to
/// the same folder, in this program or another, is refused with ``HistoryError/Code/inUse`` instead
/// of interleaving its samples with the first's. Taking the lock reads the folder again, so samples
/// another writer added since opening are counted before the new ones are checked. Others may open
/// the folder to read while one appends (opening changes nothing; a reader sees what was written when
/// it opened). Not thread-safe; use it from one task or queue.
public final class AccelerometerHistory {
    public struct Settings: Sendable, Equatable {
        /// How long samples are kept before the newest one, seconds (36 h: Core Motion's window for
        /// a watch app to fetch its recorded samples).
        public var retention: Double
        /// How much time one segment file holds, seconds (at least 1). Retention drops whole
        /// segments, so up to one segment more than ``retention`` can remain.
        public var segmentDuration: Double
        public init(retention: Double = 36 * 3600, segmentDuration: Double = 3600) {
            self.retention = retention
            self.segmentDuration = segmentDuration
        }
    }

    /// What the history holds.
    public struct Summary: Sendable, Equatable {
        public var segments: Int
        public var samples: Int
        /// Times of the oldest and newest samples, seconds (nil when empty).
        public var firstTime: Double?
        public var lastTime: Double?
        /// Bytes on disk, headers included.
        public var bytes: Int
    }

    /// The largest time a sample may have, seconds either side of 0 (31,700 years: any clock's
    /// seconds, and small enough to name a segment file in whole milliseconds).
    public static let maximumTime = 1e12

    static let magic = Array("VITALSAH".utf8)
    static let version: UInt32 = 1
    static let headerSize = 32
    static let recordSize = 32
    static let filePrefix = "accelerometer-"
    static let fileSuffix = ".vah"
    /// The names of a history's segment files, as a shell pattern.
    public static let segmentFilePattern = filePrefix + "*" + fileSuffix
    static let lockName = ".writer-lock"

    public let folder: URL
    public let settings: Settings
    /// The newest sample's time, seconds; the next sample appended must come after it.
    public private(set) var lastTime: Double?
    /// Bytes of a torn last sample (or of a segment cut off while its header was written) found on
    /// opening: not read, and cut from the files before the next append writes.
    public private(set) var recoveredBytes = 0

    private struct Segment {
        var url: URL
        /// Times of its first and last samples, seconds.
        var start: Double
        var last: Double
        var count: Int
    }

    /// Oldest first.
    private var segments: [Segment] = []
    /// The newest segment, open for appending (opened at the first append).
    private var writer: FileHandle?
    /// What an interrupted write left, to mend before the next one: a segment file to cut to its
    /// whole samples, or (`length` 0) one holding none to remove. Opening only notes them, as another
    /// program may be appending to the folder at that moment.
    private var repairs: [(url: URL, length: Int)] = []
    /// The writer lock's file descriptor, from the first append on (-1 before).
    private var lock: Int32 = -1

    /// Opens the history in `folder`, making the folder if needed.
    /// - Throws: ``HistoryError`` `folder` when it cannot be made or listed, `foreignFile` for a
    ///   segment file this version did not write (or two whose times overlap), `io` when a segment
    ///   cannot be read.
    public init(folder: String, settings: Settings = Settings()) throws {
        guard settings.retention > 0, settings.retention.isFinite,
              settings.segmentDuration >= 1, settings.segmentDuration.isFinite else {
            throw HistoryError(.folder, "the retention must be a positive number of seconds and a segment at least 1 s")
        }
        self.settings = settings
        self.folder = URL(fileURLWithPath: folder, isDirectory: true)
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: folder, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw HistoryError(.folder, "\(folder): not a folder") }
        } else {
            do {
                try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw HistoryError(.folder, "\(folder): cannot make the folder (\(error.localizedDescription))")
            }
        }
        try scan()
    }

    deinit {
        try? writer?.close()
        if lock >= 0 { close(lock) }
    }

    /// Reads the folder's segments: their times and counts, and what an interrupted write left.
    private func scan() throws {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: folder.path) } catch {
            throw HistoryError(.folder, "\(folder.path): cannot list the folder (\(error.localizedDescription))")
        }
        segments = []
        repairs = []
        recoveredBytes = 0
        let found = names.compactMap { name -> (String, Int64)? in
            guard name.hasPrefix(Self.filePrefix), name.hasSuffix(Self.fileSuffix),
                  let ms = Int64(name.dropFirst(Self.filePrefix.count).dropLast(Self.fileSuffix.count)) else { return nil }
            return (name, ms)
        }.sorted { $0.1 < $1.1 }
        for (name, _) in found {
            let url = folder.appendingPathComponent(name)
            // A folder under a segment's name opens for reading on Linux, and its read failed with
            // "The operation could not be completed. (NSCocoaErrorDomain error 256)".
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
                throw HistoryError(.foreignFile, "\(url.path): a folder, not a segment file; move it out of the history folder")
            }
            if let segment = try openSegment(url) { segments.append(segment) }
        }
        // Bisection and appending rely on each segment coming after the one before (a copy under a
        // name with the same time, accelerometer-00.vah, was read as a second 0 ... and times went back).
        for (before, segment) in zip(segments, segments.dropFirst()) where !(segment.start > before.last) {
            throw HistoryError(.foreignFile, "\(segment.url.path): its samples from \(segment.start) s overlap \(before.url.lastPathComponent)'s (to \(before.last) s), so one of the two was not written by this history; move it out of the folder")
        }
        lastTime = segments.last?.last
    }

    /// Takes the folder's writer lock at the first append, then reads the folder again: another
    /// writer may have appended since it was opened.
    private func lockForWriting() throws {
        guard lock < 0 else { return }
        let path = folder.appendingPathComponent(Self.lockName).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw HistoryError(.folder, "\(path): cannot open the writer lock (\(String(cString: strerror(errno))))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(descriptor)
            if reason == EWOULDBLOCK {
                throw HistoryError(.inUse, "\(folder.path): another writer is appending to this history (it holds \(Self.lockName)); nothing was recorded")
            }
            throw HistoryError(.folder, "\(path): cannot lock (\(String(cString: strerror(reason))))")
        }
        lock = descriptor
        try scan()
    }

    /// Appends samples after those recorded. All are checked before any is written: a batch with a
    /// sample that is not finite or not after the one before it is refused whole.
    ///
    /// Once this returns the samples are in the files (a crash of the app loses none of them); call
    /// ``synchronize()`` to have them on the storage itself, safe from a power loss.
    /// - Parameter samples: times in seconds (any clock that only moves forward, typically seconds
    ///   since 1970), acceleration in g.
    /// - Throws: ``HistoryError`` `invalidSample` or `timeNotIncreasing` (nothing written), `inUse`
    ///   when another history appends to the folder (nothing written), `io`
    ///   when writing fails (the samples before the failing segment stay recorded; ``lastTime``
    ///   says up to where).
    public func append(_ samples: some Collection<AccelerometerSample>) throws {
        try lockForWriting()
        var previous = lastTime
        for s in samples {
            let a = s.acceleration
            guard abs(s.time) <= Self.maximumTime, a.x.isFinite, a.y.isFinite, a.z.isFinite else {
                throw HistoryError(.invalidSample, "a sample at \(s.time) s is not a finite number (or its time is beyond ±10¹² s); nothing was recorded")
            }
            if let previous, !(s.time > previous) {
                throw HistoryError(.timeNotIncreasing, "a sample at \(s.time) s does not come after the one at \(previous) s; nothing was recorded")
            }
            previous = s.time
        }
        try mend()
        var pending: [UInt8] = []
        pending.reserveCapacity(min(samples.count, 65_536) * Self.recordSize)
        var pendingLast: Double?
        for s in samples {
            if segments.isEmpty || s.time >= segments[segments.count - 1].start + settings.segmentDuration {
                try write(&pending, through: pendingLast)
                try startSegment(at: s.time)
            }
            Self.encode(s, into: &pending)
            pendingLast = s.time
        }
        try write(&pending, through: pendingLast)
        try prune()
    }

    /// Appends the samples that come after ``lastTime`` and skips the others: for a source read again
    /// over a window that overlaps what is held (a sensor recorder asked for the last hours each time
    /// the app wakes). The samples must be in time order.
    /// - Returns: how many were appended.
    /// - Throws: as ``append(_:)``.
    @discardableResult
    public func appendNewer(_ samples: some Collection<AccelerometerSample>) throws -> Int {
        try lockForWriting()
        guard let lastTime else {
            try append(samples)
            return samples.count
        }
        let newer = samples.drop { $0.time <= lastTime }
        try append(newer)
        return newer.count
    }

    /// Flushes what was appended to the storage device (`fsync`), so that a power loss keeps it.
    /// - Throws: ``HistoryError`` `io`.
    public func synchronize() throws {
        do { try writer?.synchronize() } catch {
            throw HistoryError(.io, "cannot flush the history to storage: \(error.localizedDescription)")
        }
    }

    /// The samples from `start` through `end` (both included), oldest first.
    /// - Complexity: O(log n) to find `start`, then O(samples returned).
    public func samples(from start: Double, through end: Double) throws -> [AccelerometerSample] {
        var out: [AccelerometerSample] = []
        try read(from: start, through: end) { out += $0 }
        return out
    }

    /// Hands the samples from `start` through `end` (both included) to `body` in batches of at most
    /// `batchSize`, oldest first, so that a long stretch is read in constant memory.
    /// - Throws: ``HistoryError`` `io` when a segment cannot be read, `foreignFile` when a sample read
    ///   is not as this history writes them (a time or acceleration that is not a finite number, or a
    ///   time not after the one before: a file damaged or changed by another program), or what `body`
    ///   throws.
    public func read(from start: Double, through end: Double, batchSize: Int = 4096,
                     _ body: ([AccelerometerSample]) throws -> Void) throws {
        precondition(batchSize > 0, "the batch size must be positive")
        guard start <= end else { return }
        var previous: Double?
        for (i, segment) in segments.enumerated() where segment.start <= end {
            if i + 1 < segments.count, segments[i + 1].start <= start { continue }  // all before `start`
            // A segment that starts at or after `start` is read from its first sample: no bisection.
            var index = segment.start >= start ? 0 : try firstIndex(in: segment, notBefore: start)
            while index < segment.count {
                let batch = try readRecords(of: segment, range: index..<min(segment.count, index + batchSize))
                // Append never writes a sample that is not finite or not after the one before: one in
                // the file is damage. Read as it was, a NaN time ended an export there with success,
                // and a NaN acceleration was printed as "nan".
                var keptCount = 0
                for (k, s) in batch.enumerated() {
                    let a = s.acceleration
                    guard abs(s.time) <= Self.maximumTime, a.x.isFinite, a.y.isFinite, a.z.isFinite,
                          previous.map({ s.time > $0 }) ?? true else {
                        throw HistoryError(.foreignFile, "\(segment.url.path): sample \(index + k + 1) of \(segment.count) is damaged (time \(s.time) s\(previous.map { " after \($0) s" } ?? ""), acceleration \(a.x), \(a.y), \(a.z) g): the file was not left as this history wrote it; move it out of the folder")
                    }
                    if s.time > end { break }
                    previous = s.time
                    keptCount += 1
                }
                let kept = batch.prefix(keptCount)
                if !kept.isEmpty { try body(Array(kept)) }
                if kept.count < batch.count { return }
                index += batch.count
            }
        }
    }

    /// What the history holds now.
    public func summary() throws -> Summary {
        let samples = segments.reduce(0) { $0 + $1.count }
        return Summary(segments: segments.count, samples: samples,
                       firstTime: segments.first { $0.count > 0 }?.start, lastTime: lastTime,
                       bytes: segments.count * Self.headerSize + samples * Self.recordSize)
    }

    // MARK: Segments

    /// Checks a segment's header and length, and notes a torn last sample or a segment that holds no
    /// whole sample to mend before the next write. Returns nil for one that holds none.
    private func openSegment(_ url: URL) throws -> Segment? {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw HistoryError(.io, "\(url.path): cannot open (\(error.localizedDescription))")
        }
        defer { try? handle.close() }
        let size: Int
        let header: [UInt8]
        do {
            size = Int(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
            header = [UInt8](try handle.read(upToCount: Self.headerSize) ?? Data())
        } catch {
            throw HistoryError(.io, "\(url.path): cannot read (\(error.localizedDescription))")
        }
        let expected = Self.header()
        guard header == Array(expected.prefix(header.count)) else {
            throw HistoryError(.foreignFile, "\(url.path): not a Vitals accelerometer history segment (its header differs); move it out of the folder")
        }
        let count = max(0, (size - Self.headerSize) / Self.recordSize)
        let whole = count == 0 ? 0 : Self.headerSize + count * Self.recordSize
        if size != whole {
            repairs.append((url, whole))
            recoveredBytes += size - whole
        }
        guard count > 0 else { return nil }
        var segment = Segment(url: url, start: 0, last: 0, count: count)
        segment.start = try readRecords(of: segment, range: 0..<1)[0].time
        segment.last = try readRecords(of: segment, range: (count - 1)..<count)[0].time
        return segment
    }

    /// Cuts the torn tails and removes the empty segments found on opening.
    private func mend() throws {
        while let (url, length) = repairs.first {
            do {
                if length == 0 {
                    try FileManager.default.removeItem(at: url)
                } else {
                    let handle = try FileHandle(forUpdating: url)
                    defer { try? handle.close() }
                    try handle.truncate(atOffset: UInt64(length))
                }
            } catch {
                throw HistoryError(.io, "\(url.path): cannot cut its torn end (\(error.localizedDescription))")
            }
            repairs.removeFirst()
        }
    }

    /// A new segment file whose first sample is at `time`; it becomes the one appended to.
    private func startSegment(at time: Double) throws {
        let name = "\(Self.filePrefix)\(Int64((time * 1000).rounded(.down)))\(Self.fileSuffix)"
        let url = folder.appendingPathComponent(name)
        guard !FileManager.default.fileExists(atPath: url.path),
              FileManager.default.createFile(atPath: url.path, contents: Data(Self.header())) else {
            throw HistoryError(.io, "\(url.path): cannot create the segment file (it exists, or the folder cannot be written)")
        }
        try? writer?.close()
        writer = try handle(forUpdating: url)
        segments.append(Segment(url: url, start: time, last: time, count: 0))
    }

    /// Writes the encoded samples to the newest segment and empties `bytes`; on failure the
    /// segment is cut back to its last whole write.
    private func write(_ bytes: inout [UInt8], through time: Double?) throws {
        guard !bytes.isEmpty, let time else { return }
        let last = segments.count - 1
        let writer = try writer ?? handle(forUpdating: segments[last].url)
        self.writer = writer
        do {
            try writer.seekToEnd()
            try writer.write(contentsOf: bytes)
        } catch {
            try? writer.truncate(atOffset: UInt64(Self.headerSize + segments[last].count * Self.recordSize))
            throw HistoryError(.io, "\(segments[last].url.path): cannot write (\(error.localizedDescription))")
        }
        segments[last].count += bytes.count / Self.recordSize
        segments[last].last = time
        lastTime = time
        bytes.removeAll(keepingCapacity: true)
    }

    /// Removes the segments whose last sample is before the retention window (never the newest). By
    /// the segment's own last sample, not the next one's start: after a gap in recording that start
    /// can be well inside the window while the segment before it is long past.
    private func prune() throws {
        guard let lastTime else { return }
        let cutoff = lastTime - settings.retention
        while segments.count > 1, segments[0].last < cutoff {
            do { try FileManager.default.removeItem(at: segments[0].url) } catch {
                throw HistoryError(.io, "\(segments[0].url.path): cannot remove an expired segment (\(error.localizedDescription))")
            }
            segments.removeFirst()
        }
    }

    /// The index of the first sample at or after `time` in `segment` (its count when none is).
    private func firstIndex(in segment: Segment, notBefore time: Double) throws -> Int {
        var lo = 0, hi = segment.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if try readRecords(of: segment, range: mid..<(mid + 1))[0].time < time { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    private func readRecords(of segment: Segment, range: Range<Int>) throws -> [AccelerometerSample] {
        guard !range.isEmpty else { return [] }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: segment.url)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(Self.headerSize + range.lowerBound * Self.recordSize))
            data = try handle.read(upToCount: range.count * Self.recordSize) ?? Data()
        } catch {
            throw HistoryError(.io, "\(segment.url.path): cannot read (\(error.localizedDescription))")
        }
        guard data.count == range.count * Self.recordSize else {
            throw HistoryError(.io, "\(segment.url.path): shorter than expected (changed by another program?)")
        }
        return data.withUnsafeBytes { raw in
            (0..<range.count).map { Self.decode(raw, at: $0 * Self.recordSize) }
        }
    }

    private func handle(forUpdating url: URL) throws -> FileHandle {
        do { return try FileHandle(forUpdating: url) } catch {
            throw HistoryError(.io, "\(url.path): cannot open (\(error.localizedDescription))")
        }
    }

    // MARK: Encoding

    static func header() -> [UInt8] {
        var bytes = magic
        withUnsafeBytes(of: version.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(recordSize).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8](repeating: 0, count: headerSize - bytes.count))
        return bytes
    }

    static func encode(_ s: AccelerometerSample, into bytes: inout [UInt8]) {
        func put(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        put(s.time)
        put(s.acceleration.x)
        put(s.acceleration.y)
        put(s.acceleration.z)
    }

    static func decode(_ raw: UnsafeRawBufferPointer, at offset: Int) -> AccelerometerSample {
        func value(_ k: Int) -> Double {
            Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8 * k, as: UInt64.self)))
        }
        return AccelerometerSample(time: value(0), acceleration: Vector3(x: value(1), y: value(2), z: value(3)))
    }
}
