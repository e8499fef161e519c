import Foundation

/// An error reading or interpreting an input file, with a code a caller can switch on and a message
/// a person can act on (for example "column 'ppg' not found in header: time,red,green").
public struct InputError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What went wrong, for programs.
    public enum Code: String, Sendable {
        case fileNotFound, unreadable, empty, notText, missingColumn, notANumber, nonFinite
        case badTimestamps, badRate, tooShort, flatSignal, unsupportedFormat, toolMissing, corrupt
        /// An option's value that cannot apply to this input (e.g. a hop giving millions of windows).
        case badOption
        /// Two columns carry the name of one the command reads: which is meant cannot be told.
        case duplicateColumn
    }
    public var code: Code
    public var message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }

    /// A video that holds no frame (a Y4M header alone): nothing to analyse.
    static func noFrames(_ path: String) -> InputError { InputError(.empty, "\(path): the video has no frames") }
}

/// Refuses a `path` with nothing there or a directory there.
/// - Throws: `InputError.fileNotFound` or `.unreadable`.
func checkInputPath(_ path: String) throws {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw InputError(.fileNotFound, "\(path): no such file")
    }
    guard !isDirectory.boolValue else {
        throw InputError(.unreadable, "\(path): is a directory, not a file")
    }
}

/// Says why a read waits: called once, on another thread, when opening an input has waited 2 s,
/// which only a named pipe (FIFO) that nothing has opened for writing makes it do (opening one
/// waits for a writer, for ever if none comes). `vitals` prints it on stderr; nil says nothing.
nonisolated(unsafe) public var inputWaitNotice: (@Sendable (String) -> Void)?

/// Opens `path` for reading: a descriptor, or -1 with `errno` set. A named pipe with nothing
/// writing into it is waited on as `cat` waits, and after 2 s ``inputWaitNotice`` says so.
func openInput(_ path: String) -> Int32 {
    var s = stat()
    guard let notice = inputWaitNotice, stat(path, &s) == 0, s.st_mode & S_IFMT == S_IFIFO else {
        return open(path, O_RDONLY)
    }
    let say = DispatchWorkItem {
        notice("\(path): a named pipe (FIFO) that nothing writes into yet; waiting for a program to write into it (Ctrl-C stops)")
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + 2, execute: say)
    defer { say.cancel() }
    return open(path, O_RDONLY)
}

/// Most bytes a pipe or a device is read into memory up to: it cannot be read twice, so it is held
/// whole (a regular file is read a block at a time where the reader allows).
public let maximumHeldInput = 1 << 30

/// The bytes of the input file at `path`. A pipe or a device is refused past ``maximumHeldInput``
/// bytes, and with `text`, as soon as its first block shows it is not text (`/dev/zero` is endless).
/// - Parameters:
///   - path: the file, pipe or device.
///   - text: whether the input must be text (a CSV): binary data is refused at the first block.
/// - Throws: `InputError.fileNotFound` when nothing is there, `.unreadable` for a directory or a file
///   that cannot be read or a pipe too long to hold, `.notText` (with `text`) for binary data.
public func readInputFile(_ path: String, text: Bool = false) throws -> [UInt8] {
    try checkInputPath(path)
    let regular = isRegularFile(path)
    let blockSize = 1 << 20
    guard let file = FileBlocks(path: path, blockSize: blockSize) else { throw InputError(.unreadable, "\(path): cannot be read") }
    // Blocks, joined once their total is known and each freed as it is copied: an array grown as it
    // goes held twice the input. A pipe gives at most 64 KiB a read: reads gather in `file` until
    // they fill a block.
    var blocks: [[UInt8]] = []
    var total = 0
    var firstRead = true
    while true {
        let n = try file.readMore(blockSize, source: path)
        if text && firstRead && file.bytes.contains(0) {
            try CSVFile.checkText(blank: false, hasZero: true, head: Array(file.bytes.prefix(200)), source: path)
        }
        firstRead = false
        if file.count >= blockSize || n == 0 && file.count > 0 {
            total += file.count
            if !regular && total > maximumHeldInput {
                throw InputError(.unreadable, "\(path): over \(maximumHeldInput >> 30) GiB from a pipe or a device, which is held in memory as it cannot be read twice; save it to a file (files are read a block at a time)")
            }
            blocks.append(Array(file.bytes))
            file.consume(file.count)
        }
        if n == 0 { break }
    }
    if blocks.isEmpty { return [] }
    if blocks.count == 1 { return blocks[0] }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(total)
    for k in blocks.indices {
        bytes.append(contentsOf: blocks[k])
        blocks[k] = []
    }
    return bytes
}

/// The first `count` bytes of the input file at `path` (fewer for a shorter file), for recognising
/// its layout before reading it.
/// - Throws: as ``readInputFile(_:)``.
func readInputHead(_ path: String, count: Int = 512) throws -> [UInt8] {
    try checkInputPath(path)
    let descriptor = openInput(path)
    guard descriptor >= 0 else { throw InputError(.unreadable, "\(path): cannot be read") }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
    defer { try? handle.close() }
    do {
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    } catch {
        throw InputError(.unreadable, "\(path): cannot be read")
    }
}

/// Whether `path` is a regular file, or a link to one: a file that can be read more than once (not a
/// pipe or a device).
func isRegularFile(_ path: String) -> Bool { FileStamp(path)?.isRegular == true }

/// What tells cheaply whether a file's contents changed between two passes over it: its size and
/// modification time (of the file a link leads to).
struct FileStamp: Equatable, Sendable {
    let size: Int
    let modified: timespec
    let isRegular: Bool

    /// The stamp of `path` now; nil when it cannot be looked at.
    init?(_ path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        size = Int(st.st_size)
        #if canImport(Darwin)
        modified = st.st_mtimespec
        #else
        modified = st.st_mtim
        #endif
        isRegular = (st.st_mode & S_IFMT) == S_IFREG
    }

    static func == (a: FileStamp, b: FileStamp) -> Bool {
        a.size == b.size && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.isRegular == b.isRegular
    }
}

/// A file read a block at a time into one buffer, each block after the bytes the last pass over the
/// buffer kept (a line not yet ended): no copy beyond the kernel's, nothing allocated per block.
final class FileBlocks {
    private let descriptor: Int32
    private var storage: UnsafeMutableBufferPointer<UInt8>
    /// Bytes in the buffer: kept, then read.
    private(set) var count = 0

    /// Opens `path` for reading; nil when it cannot be opened.
    init?(path: String, blockSize: Int) {
        descriptor = openInput(path)
        guard descriptor >= 0 else { return nil }
        storage = .allocate(capacity: 2 * blockSize)
    }

    deinit {
        _ = close(descriptor)
        storage.deallocate()
    }

    /// The bytes in the buffer, valid until the next call.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: storage[..<count]) }

    /// Drops the buffer's first `n` bytes, keeping the rest at its start.
    func consume(_ n: Int) {
        if n < count { memmove(storage.baseAddress!, storage.baseAddress! + n, count - n) }
        count -= n
    }

    /// Reads up to `blockSize` more bytes after those kept (the buffer grows when they fill it).
    /// - Returns: how many were read; 0 at the end of the file.
    /// - Throws: `InputError.unreadable` for a read that fails.
    func readMore(_ blockSize: Int, source: String) throws -> Int {
        if storage.count - count < blockSize {
            let larger = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 2 * (count + blockSize))
            if count > 0 { larger.baseAddress!.update(from: storage.baseAddress!, count: count) }
            storage.deallocate()
            storage = larger
        }
        var n: Int
        repeat { n = read(descriptor, storage.baseAddress! + count, blockSize) } while n < 0 && errno == EINTR
        guard n >= 0 else { throw InputError(.unreadable, "\(source): cannot be read (\(String(cString: strerror(errno))))") }
        count += n
        return n
    }
}

/// The names of the entries of `directory`, sorted (the evaluations' data folders).
/// - Throws: `InputError.fileNotFound` when the directory cannot be listed.
func directoryEntries(_ directory: String) throws -> [String] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
        throw InputError(.fileNotFound, "\(directory): no such directory")
    }
    return names.sorted()
}

/// A comma-separated text file with a header line, parsed on demand.
///
/// A file named by path is read from disk a block at a time on each pass over its rows, so a file of
/// any length takes the memory of its longest line (a day of 100-Hz samples is 150 MB of text);
/// text given as bytes stays in memory. Fields are located lazily; numeric columns are converted
/// with `strtod` semantics (decimal or exponent notation, surrounding spaces allowed). Empty fields
/// read as NaN so callers can decide whether missing values are allowed.
public struct CSVFile: Sendable {
    /// The file's column names, in order, trimmed of spaces and quotes.
    public let header: [String]
    /// Where the text came from, for messages.
    public let source: String
    private let body: Body
    private let bodyStart: Int
    /// Whether the first line names the columns (otherwise they are numbered from the first row).
    private let hasHeader: Bool
    private let separator: UInt8

    /// Where the rows are read from.
    private enum Body: Sendable {
        /// The whole text (line breaks as LF).
        case memory([UInt8])
        /// A regular file read a block at a time, as it was when checked (`stamp`); `lineBreak` is LF,
        /// or CR for a file without any LF.
        case file(path: String, stamp: FileStamp, lineBreak: UInt8)
    }

    /// The text's length in bytes.
    private var size: Int {
        switch body {
        case .memory(let bytes): bytes.count
        case .file(_, let stamp, _): stamp.size
        }
    }

    /// Bytes read from a file at a time.
    static let blockSize = 1 << 20

    /// Checks `path` (one pass over its bytes: empty, binary or UTF-16 text are refused as for text in
    /// memory) and reads its header line; the rows are read when asked for.
    /// - Throws: `InputError` when the file is missing, empty, binary or has no header.
    public init(path: String) throws {
        try checkInputPath(path)
        // A pipe or a device cannot be read twice: its text is read into memory.
        guard let stamp = FileStamp(path), stamp.isRegular, let handle = FileHandle(forReadingAtPath: path),
              let file = FileBlocks(path: path, blockSize: Self.blockSize) else {
            try self.init(bytes: try readInputFile(path, text: true), source: path)
            return
        }
        defer { try? handle.close() }
        // What the checks of init(bytes:) look at, gathered a block at a time.
        var head: [UInt8] = []
        var blank = true, hasZero = false, hasLF = false, hasCR = false
        var size = 0
        while try file.readMore(Self.blockSize, source: path) > 0 {
            let bytes = file.bytes
            size += bytes.count
            if head.count < 200 { head += bytes.prefix(200 - head.count) }
            if blank { blank = bytes.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 } }
            if !hasZero { hasZero = memchr(bytes.baseAddress!, 0, bytes.count) != nil }
            if !hasLF { hasLF = memchr(bytes.baseAddress!, 0x0A, bytes.count) != nil }
            if !hasCR { hasCR = memchr(bytes.baseAddress!, 0x0D, bytes.count) != nil }
            file.consume(bytes.count)
        }
        guard size == stamp.size, FileStamp(path) == stamp else { throw Self.changed(path) }
        // Lines ended by CR alone (classic Mac OS, some spreadsheet exports) read as LF-ended lines.
        let lineBreak: UInt8 = !hasLF && hasCR ? 0x0D : 0x0A
        try Self.checkText(blank: blank, hasZero: hasZero, head: head, source: path)
        let parsed = try Self.parseHeader(try Self.firstLine(of: path, handle: handle, lineBreak: lineBreak),
                                          source: path, hasHeader: true)
        self.init(header: parsed.names, source: path, body: .file(path: path, stamp: stamp, lineBreak: lineBreak),
                  bodyStart: parsed.lineEnd + 1, hasHeader: true, separator: parsed.separator)
    }

    private init(header: [String], source: String, body: Body, bodyStart: Int, hasHeader: Bool, separator: UInt8) {
        self.header = header
        self.source = source
        self.body = body
        self.bodyStart = bodyStart
        self.hasHeader = hasHeader
        self.separator = separator
    }

    /// Most columns a header may name: wide sensor exports have hundreds. A first line with more is
    /// not a header (one 50-MB line of numbers, 2.5 million fields, took 20 s and 0.9 GB to split
    /// into names before the motion commands said there was no time column).
    static let maximumColumns = 65_536

    /// The bytes of `path` up to its first `lineBreak` (the whole file when it has none).
    private static func firstLine(of path: String, handle: FileHandle, lineBreak: UInt8) throws -> [UInt8] {
        var line: [UInt8] = []
        do {
            try handle.seek(toOffset: 0)
            while let block = try handle.read(upToCount: 1 << 16), !block.isEmpty {
                if let end = block.firstIndex(of: lineBreak) {
                    line += block[block.startIndex..<end]
                    break
                }
                line += block
            }
        } catch {
            throw InputError(.unreadable, "\(path): cannot be read")
        }
        return line
    }

    /// Parses CSV text already in memory. `hasHeader: false` names the columns `1`, `2`, ... (as people
    /// count them, so a message about a value names the column they see).
    public init(bytes input: [UInt8], source: String = "input", hasHeader: Bool = true) throws {
        var bytes = input
        // Lines ended by CR alone (classic Mac OS, some spreadsheet exports) read as LF-ended lines.
        if !bytes.contains(0x0A), bytes.contains(0x0D) {
            for i in bytes.indices where bytes[i] == 0x0D { bytes[i] = 0x0A }
        }
        try Self.checkText(blank: bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }),
                           hasZero: bytes.contains(0), head: Array(bytes.prefix(200)), source: source)
        let parsed = try Self.parseHeader(bytes, source: source, hasHeader: hasHeader)
        self.init(header: hasHeader ? parsed.names : parsed.names.indices.map { String($0 + 1) }, source: source,
                  body: .memory(bytes), bodyStart: hasHeader ? min(parsed.lineEnd + 1, bytes.count) : parsed.start,
                  hasHeader: hasHeader, separator: parsed.separator)
    }

    /// The error for a file that changed between two passes over it.
    static func changed(_ source: String) -> InputError {
        InputError(.unreadable, "\(source): the file changed while it was being read; read it again when it is complete")
    }

    /// Refuses text that is blank, binary or UTF-16, from what a pass over it found (`head`: its
    /// first 200 bytes).
    static func checkText(blank: Bool, hasZero: Bool, head: [UInt8], source: String) throws {
        if blank {
            throw InputError(.empty, "\(source): file is empty")
        }
        if hasZero {
            if Self.looksLikeUTF16(head) {
                throw InputError(.notText, "\(source): the file is UTF-16 text; save it as UTF-8 (\"CSV UTF-8\")")
            }
            throw InputError(.notText, "\(source): not a text CSV file (binary data)")
        }
    }

    /// The first line of `bytes` (after a UTF-8 byte-order mark, up to the first LF): its names,
    /// the separator they show, and where the line starts and ends.
    private static func parseHeader(_ bytes: [UInt8], source: String,
                                    hasHeader: Bool) throws -> (names: [String], separator: UInt8, start: Int, lineEnd: Int) {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }  // UTF-8 byte-order mark
        let lineEnd = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
        if hasHeader, bytes[start..<lineEnd].allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) {
            throw InputError(.missingColumn, "\(source): line 1 is empty; the header (the column names) must be the first line")
        }
        var firstLine = Array(bytes[start..<lineEnd])
        while firstLine.last == 0x0D { firstLine.removeLast() }  // CRLF, and CR CR LF (a CRLF file converted again)
        guard let text = String(validating: firstLine, as: UTF8.self) else {
            throw InputError(.notText, "\(source): not a text CSV file (first line is not UTF-8)")
        }
        let sep: UInt8 = text.contains(",") || !text.contains("\t") ? UInt8(ascii: ",") : 0x09
        let separators = firstLine.reduce(0) { $0 + ($1 == sep ? 1 : 0) }
        guard separators < maximumColumns else {
            throw InputError(.unsupportedFormat, "\(source): line 1 has \(separators + 1) fields: not a CSV whose first line names the columns (at most \(maximumColumns))")
        }
        var headerFields: [Range<Int>] = []
        firstLine.withUnsafeBufferPointer { Self.splitFields($0, 0..<$0.count, separator: sep, into: &headerFields) }
        // A header line wrapped whole in one pair of quotes ("time_s,r,g,b", as some exports write
        // it) is its names, not one name with commas in it.
        if headerFields.count == 1, firstLine.count >= 2, firstLine.first == 0x22, firstLine.last == 0x22,
           firstLine.dropFirst().dropLast().contains(sep), !firstLine.dropFirst().dropLast().contains(0x22) {
            firstLine.withUnsafeBufferPointer { Self.splitFields($0, 1..<($0.count - 1), separator: sep, into: &headerFields) }
        }
        let names = headerFields.map {
            String(decoding: firstLine[$0], as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: " \"'"))
        }
        return (names, sep, start, lineEnd)
    }

    /// The index of the first column whose name matches one of `names` (case-insensitive).
    public func columnIndex(_ names: String...) -> Int? {
        columnIndex(anyOf: names)
    }

    /// The index of the first column whose name matches one of `names` (case-insensitive).
    public func columnIndex(anyOf names: [String]) -> Int? {
        for name in names {
            if let i = header.firstIndex(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) { return i }
        }
        return nil
    }

    /// The header as written (comma-joined) for error messages, with a hint when the file is
    /// separated by semicolons (a single column holding `;`).
    public var headerDescription: String {
        // A header too long to read in one line (a file whose first line is data, or thousands of
        // columns) is shown by its first names and its column count.
        if header.count > Self.describedColumns {
            return header.prefix(Self.describedColumns).map { $0.prefix(40) }.joined(separator: ",")
                + ",... (\(header.count) columns)"
        }
        let joined = header.map { $0.count > 80 ? $0.prefix(80) + "..." : Substring($0) }.joined(separator: ",")
        guard header.count == 1, header[0].contains(";") else { return joined }
        return joined + " (the file looks separated by ';': Vitals reads values separated by commas or tabs)"
    }

    /// UTF-16 text (Excel's "Unicode text", some Windows loggers): a byte-order mark, or ASCII with
    /// every other byte zero.
    static func looksLikeUTF16(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) { return true }
        let head = bytes.prefix(200)
        guard head.count >= 8 else { return false }
        let evenZeros = stride(from: head.startIndex, to: head.endIndex, by: 2).filter { head[$0] == 0 }.count
        let oddZeros = stride(from: head.startIndex + 1, to: head.endIndex, by: 2).filter { head[$0] == 0 }.count
        let pairs = head.count / 2
        return max(evenZeros, oddZeros) * 10 >= pairs * 9 && min(evenZeros, oddZeros) * 10 <= pairs
    }

    /// Most column names an error message lists.
    static let describedColumns = 40

    /// Refuses a file in which a column of `columns` (indices into ``header``) shares its name with
    /// another (case-insensitive): the first was read and the other left out without a word.
    public func refuseDuplicateNames(of columns: [Int]) throws {
        for i in columns {
            guard let j = header.indices.first(where: { $0 != i && header[$0].caseInsensitiveCompare(header[i]) == .orderedSame })
            else { continue }
            throw InputError(.duplicateColumn,
                             "\(source): columns \(min(i, j) + 1) and \(max(i, j) + 1) are both named '\(header[i])': rename one (header: \(headerDescription))")
        }
    }

    /// The index of the column `name`, or an error listing the columns that do exist.
    public func requireColumn(_ name: String) throws -> Int {
        guard let i = columnIndex(name) else {
            throw InputError(.missingColumn,
                             "\(source): column '\(name)' not found in header: \(headerDescription)")
        }
        return i
    }

    /// Calls `body` once per non-blank data line with the byte ranges of its fields. A separator inside
    /// double quotes does not split (`"100,5"` is one field, quotes included in its range). A file is
    /// read a block at a time: `bytes` holds the line's block, and is valid only during the call.
    ///
    /// - Complexity: O(file size); no allocation per line beyond the reused range array.
    /// - Throws: what `body` throws, or `InputError.unreadable` when the file can no longer be read.
    public func forEachRow(_ body: (_ line: Int, _ fields: [Range<Int>], _ bytes: UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(header.count)
        var line = bodyStart == 0 ? 1 : 2
        switch self.body {
        case .memory(let bytes):
            _ = try bytes.withUnsafeBufferPointer { buf in
                try rows(buf, from: bodyStart, lineBreak: 0x0A, last: true, line: &line, ranges: &ranges, body)
            }
        case .file(let path, let stamp, let lineBreak):
            // Each pass reads the file as it was checked, or says it changed: columns read in two
            // passes of a file cut or rewritten between them would not line up.
            guard FileStamp(path) == stamp, let file = FileBlocks(path: path, blockSize: Self.blockSize) else {
                throw Self.changed(source)
            }
            var offset = 0  // bytes of the file before the buffer's first
            var total = 0
            var done = false
            while !done {
                let n = try file.readMore(Self.blockSize, source: source)
                total += n
                done = n == 0
                // Before the last line goes out: a file cut short ends in a line cut short.
                if done || total > stamp.size, !(total == stamp.size && FileStamp(path) == stamp) { throw Self.changed(source) }
                // The header's bytes are skipped as they arrive.
                let from = max(0, bodyStart - offset)
                guard from <= file.count else {
                    offset += file.count
                    file.consume(file.count)
                    continue
                }
                let used = try rows(file.bytes, from: from, lineBreak: lineBreak, last: done, line: &line, ranges: &ranges, body)
                // What follows the last complete line waits for the next block.
                file.consume(used)
                offset += used
            }
        }
    }

    /// Calls `body` for the non-blank lines of `buf` from `start`: each ended by `lineBreak` (and a CR
    /// before it), and with `last` the unended one after them.
    /// - Returns: where the unused bytes start (the unended line's start, or the end when `last`).
    private func rows(_ buf: UnsafeBufferPointer<UInt8>, from start: Int, lineBreak: UInt8, last: Bool, line: inout Int,
                      ranges: inout [Range<Int>],
                      _ body: (_ line: Int, _ fields: [Range<Int>], _ bytes: UnsafeBufferPointer<UInt8>) throws -> Void) throws -> Int {
        var i = start
        let n = buf.count
        while i < n {
            guard let found = memchr(buf.baseAddress! + i, Int32(lineBreak), n - i) else {
                if !last { return i }
                try row(buf, i..<n, line: line, ranges: &ranges, body)
                return n
            }
            let end = buf.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
            try row(buf, i..<end, line: line, ranges: &ranges, body)
            i = end + 1
            line += 1
        }
        return n
    }

    @inline(__always)
    private func row(_ buf: UnsafeBufferPointer<UInt8>, _ text: Range<Int>, line: Int, ranges: inout [Range<Int>],
                     _ body: (_ line: Int, _ fields: [Range<Int>], _ bytes: UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        var stop = text.upperBound
        while stop > text.lowerBound && buf[stop - 1] == 0x0D { stop -= 1 }
        guard stop > text.lowerBound else { return }
        Self.splitFields(buf, text.lowerBound..<stop, separator: separator, into: &ranges)
        try body(line, ranges, buf)
    }

    /// The byte ranges of the fields of `line` (no line break), in `ranges`. A field that opens with a
    /// double quote (after spaces) runs to its closing quote, separators included (`""` inside it is
    /// a quote); a quote elsewhere is an ordinary character (`5" screen`).
    @inline(__always)
    static func splitFields(_ buf: UnsafeBufferPointer<UInt8>, _ line: Range<Int>, separator: UInt8,
                            into ranges: inout [Range<Int>]) {
        ranges.removeAll(keepingCapacity: true)
        var f = line.lowerBound
        var j = f
        var quoted = false
        var atStart = true  // only spaces so far in this field
        while j < line.upperBound {
            let c = buf[j]
            if quoted {
                if c == 0x22 {
                    if j + 1 < line.upperBound && buf[j + 1] == 0x22 { j += 1 } else { quoted = false }
                }
            } else if c == separator {
                ranges.append(f..<j)
                f = j + 1
                atStart = true
            } else if c == 0x22 && atStart {
                quoted = true
                atStart = false
            } else if c != 0x20 {
                atStart = false
            }
            j += 1
        }
        ranges.append(f..<line.upperBound)
    }

    /// The file line (1-based) of data row `index` (0-based, as in the arrays ``numericColumns(_:)``
    /// and ``stringColumn(_:)`` return): blank lines are skipped by those, not by line numbers. For
    /// error messages; walks the file up to that row.
    public func lineNumber(ofRow index: Int) -> Int {
        var row = 0
        var found: Int?
        try? forEachRow { line, _, _ in
            if row == index && found == nil { found = line }
            row += 1
        }
        return found ?? (bodyStart == 0 ? 1 : 2) + index
    }

    /// Reads the numeric columns at `indices`, one array per column. Empty or missing fields are NaN.
    /// - Throws: `InputError.notANumber` naming the line and column of the first field that is not a number.
    public func numericColumns(_ indices: [Int]) throws -> [[Double]] {
        var out = [[Double]](repeating: [], count: indices.count)
        let estimate = size / max(8, header.count * 6)
        for k in out.indices { out[k].reserveCapacity(estimate) }
        try forEachNumericRow(indices) { _, values in
            for k in values.indices { out[k].append(values[k]) }
        }
        return out
    }

    /// Calls `body` once per data row with its line and the values of the columns at `indices`, in
    /// that order (empty or missing fields are NaN): ``numericColumns(_:)`` a row at a time, for a
    /// pass over a file too long to hold.
    /// - Throws: what `body` throws, or `InputError.notANumber` naming the line and column of the
    ///   first field that is not a number.
    public func forEachNumericRow(_ indices: [Int],
                                  _ body: (_ line: Int, _ values: UnsafeBufferPointer<Double>) throws -> Void) throws {
        let values = UnsafeMutableBufferPointer<Double>.allocate(capacity: indices.count)
        defer { values.deallocate() }
        try forEachRow { line, fields, buf in
            // More fields than the header names: the row does not line up with the columns (a
            // separator inside an unquoted value, a decimal comma), so every value read from it
            // could be the wrong one. Empty trailing fields (a trailing separator) are harmless.
            if hasHeader, fields.count > header.count,
               fields[header.count...].contains(where: { r in buf[r].contains { $0 != 0x20 && $0 != 0x09 } }) {
                let hint = fields.count == header.count + 1
                    ? " (a header without a name for the first column, as R's write.table writes row names? or a value with an unquoted comma)"
                    : separator == 0x2C ? " (a value with a comma in it, such as a decimal comma, must be quoted or use a decimal point)" : ""
                throw InputError(.notANumber,
                                 "\(source): line \(line) has \(fields.count) fields but the header names \(header.count) columns" + hint)
            }
            for k in indices.indices {
                let c = indices[k]
                guard c < fields.count else {
                    values[k] = .nan
                    continue
                }
                guard let v = CSVFile.parseDouble(buf, fields[c]) else {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: buf[fields[c]]), as: UTF8.self)
                    throw InputError(.notANumber,
                                     "\(source): line \(line), column '\(header[c])': '\(text.prefix(40))' is not a number"
                                     + (text.contains(",") ? " (a decimal comma? numbers need a decimal point)" : ""))
                }
                values[k] = v
            }
            try body(line, UnsafeBufferPointer(values))
        }
    }

    /// Reads the column at `index` as text, one string per data line ("" where missing).
    public func stringColumn(_ index: Int) throws -> [String] {
        var out: [String] = []
        try forEachText(ofColumn: index) { out.append($1) }
        return out
    }

    /// Calls `body` once per data row with its line and the text of the column at `index` (spaces and
    /// double quotes around it trimmed; "" where missing): ``stringColumn(_:)`` a row at a time.
    public func forEachText(ofColumn index: Int, _ body: (_ line: Int, _ text: String) throws -> Void) throws {
        try forEachRow { line, fields, buf in
            guard index < fields.count else { return try body(line, "") }
            try body(line, String(decoding: UnsafeBufferPointer(rebasing: buf[fields[index]]), as: UTF8.self)
                .trimmingCharacters(in: CharacterSet(charactersIn: " \"")))
        }
    }

    /// The text of data row `row`'s column `index`, as ``stringColumn(_:)`` reads it ("" where the
    /// row or field is missing or the file can no longer be read). For messages; walks the file up to
    /// that row.
    public func text(ofRow row: Int, column index: Int) -> String {
        var k = 0
        var found = ""
        try? forEachText(ofColumn: index) { _, text in
            if k == row { found = text }
            k += 1
        }
        return found
    }

    /// `text` read as a number field is (``parseDouble(_:_:)``; so not hexadecimal, which
    /// `Double(_:)` reads: "0x10" is 16); nil when it is none.
    static func number(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { parseDouble($0, 0..<$0.count) }
    }

    /// Parses one field as a double; an empty field is NaN, text that is not a number is nil.
    @inline(__always)
    static func parseDouble(_ buf: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        var lo = range.lowerBound
        var hi = range.upperBound
        while lo < hi && (buf[lo] == 0x20 || buf[lo] == 0x22) { lo += 1 }
        while hi > lo && (buf[hi - 1] == 0x20 || buf[hi - 1] == 0x22) { hi -= 1 }
        if lo == hi { return .nan }
        // Fast path: optional sign, digits, optional fraction; no exponent. Exact to the nearest
        // double for up to 15 significant digits (the integer mantissa stays below 2^53).
        var i = lo
        var negative = false
        if buf[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if buf[i] == UInt8(ascii: "+") { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        var sawDot = false
        var sawDigit = false
        var fast = i < hi
        while i < hi {
            let c = buf[i]
            if c >= 48 && c <= 57 {
                sawDigit = true
                if digits < 15 {
                    mantissa = mantissa &* 10 &+ UInt64(c - 48)
                    if sawDot { fraction += 1 }
                    if mantissa != 0 { digits += 1 }
                } else if !sawDot || c != 48 {
                    // A 16th significant digit can still change the nearest double (15 digits is
                    // all a double always keeps, not all it can hold: 1000000000000.0333 is not
                    // 1000000000000.03), so strtod rounds it; trailing zeros after the point cannot.
                    fast = false
                    break
                }
            } else if c == 46 && !sawDot {
                sawDot = true
            } else {
                fast = false
                break
            }
            i += 1
        }
        // A sign or a point without a digit is no number (strtod rejects ".", "-." and "+" too).
        if fast && !sawDigit { return nil }
        if fast && fraction < powersOfTen.count {
            let value = Double(mantissa) / powersOfTen[fraction]
            return negative ? -value : value
        }
        // Slow path: exponents, inf/nan words, many digits, anything unusual. A field of any length
        // is converted (a value written out in full, such as 1e308 in fixed notation, has 309 digits).
        let length = hi - lo
        // strtod also reads hexadecimal ("0x10" is 16): no CSV writes its numbers so, and a time
        // of 0x10 after 15.9 read as going backwards.
        if buf[lo..<hi].contains(where: { $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") }) { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { tmp in
            for k in 0..<length { tmp[k] = CChar(bitPattern: buf[lo + k]) }
            tmp[length] = 0
            var end: UnsafeMutablePointer<CChar>?
            let v = strtod(tmp.baseAddress!, &end)
            return end == tmp.baseAddress! + length ? v : nil
        }
    }
}

private let powersOfTen: [Double] = (0...22).map { pow(10.0, Double($0)) }
