import Foundation

/// Refuses, before anything is written, an output file that is an input or another output of the
/// same command: `vitals frames clip.y4m --csv -o clip.y4m` would replace the video with its CSV.
///
/// Paths are compared resolved (absolute, `.` and `..` folded, symbolic links followed, also in the
/// folder of a file that does not exist yet), and files that exist by device and inode (hard links).
/// - Parameters:
///   - outputs: each output's description for the message ("--output FILE") and its path.
///   - inputs: each input's description ("the input video") and its path.
/// - Throws: `CLIError` naming both.
func checkDistinctFiles(outputs: [(what: String, path: String)], inputs: [(what: String, path: String)]) throws {
    for (i, output) in outputs.enumerated() {
        for other in inputs + outputs[..<i] where sameFile(output.path, other.path) {
            throw CLIError("\(output.what) is the same file as \(other.what) (\(other.path)): choose another output file")
        }
    }
}

/// Whether `a` and `b` name the same file: the same resolved path, or the same device and inode.
func sameFile(_ a: String, _ b: String) -> Bool {
    if resolvedPath(a) == resolvedPath(b) { return true }
    var sa = stat(), sb = stat()
    guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
}

/// `path` made absolute, `.` and `..` folded and symbolic links followed; for a file that does not
/// exist, its folder resolved and its name appended.
func resolvedPath(_ path: String) -> String {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    if FileManager.default.fileExists(atPath: url.path) { return url.resolvingSymlinksInPath().path }
    let folder = url.deletingLastPathComponent().resolvingSymlinksInPath()
    return folder.appendingPathComponent(url.lastPathComponent).path
}

/// Refuses, before the analysis (minutes on a long input), a `--report` file that would replace
/// the input, that is a folder or standard output (where the command prints its summary or JSON),
/// or whose folder is missing or not writable.
func checkReportTarget(_ report: String, input: String) throws {
    try refuseStandardOutput(report, option: "--report", what: "the page")
    try checkOutputTarget(report, what: "--report FILE", inputs: [("the input", input)])
}

/// Whether `path` is where standard output goes: `/dev/stdout`, or the file the shell sent it to
/// (`vitals simulate finger clip.y4m > clip.y4m`). Not /dev/null, where everything may go.
func isStandardOutput(_ path: String) -> Bool {
    sameFile(path, "/dev/stdout") && resolvedPath(path) != "/dev/null"
}

/// Prints a command's closing summary on standard output, or on standard error when one of
/// `outputs` is standard output, where the summary would be written into that file's content.
func printSummary(_ text: String, besides outputs: [String?]) {
    if outputs.contains(where: { $0.map(isStandardOutput) ?? false }) {
        status(text)
    } else {
        print(text)
    }
}

/// Refuses an output file (`option` names it, `what` says what it holds) that is standard output,
/// where the command prints its own summary or JSON. Both going to /dev/null mixes nothing.
func refuseStandardOutput(_ path: String, option: String, what: String) throws {
    if isStandardOutput(path) {
        throw CLIError("\(option) \(path): \(what) would be mixed into what the command prints on standard output; name a file")
    }
}

/// Refuses, before any work, an output file (`what` names it: "--report FILE") that would replace
/// one of `inputs`, that is a folder, that exists and cannot be written, or that does not exist in a
/// folder that is missing or not writable (a device, a FIFO or a writable file in a read-only folder
/// is written in place).
func checkOutputTarget(_ path: String, what: String, inputs: [(what: String, path: String)]) throws {
    try checkDistinctFiles(outputs: [(what, path)], inputs: inputs)
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
        guard !isFolder.boolValue else { throw CLIError("\(path): is a folder; \(what) names the file to write") }
        guard FileManager.default.isWritableFile(atPath: path) else { throw CLIError("\(path): cannot be written (no write permission)") }
        return
    }
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    guard FileManager.default.isWritableFile(atPath: folder) else {
        throw CLIError("\(path): cannot be written (its folder \(folder) is missing or not writable)")
    }
}

/// Writes a report page to `path` and says so on stderr.
func writeReport(_ html: String, to path: String) throws {
    try writeFile(Data(html.utf8), to: path)
    status("report written to \(path)")
}
