import Foundation
import Testing

/// Checks that every Swift code block of the article at `article` stands in the source file `tests`
/// line for line (indentation, blank lines and `import` lines aside: imports stand at the top of a
/// file), recording an issue for each that does not, so an article cannot drift from the code its
/// tests run. Blocks for which `skipping` is true are left out (Apple-only code). Returns how many
/// blocks were checked.
func codeBlocks(of article: URL, standIn tests: URL, skipping: (String) -> Bool = { _ in false }) throws -> Int {
    let text = try String(contentsOf: article, encoding: .utf8)
    func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }
    let source = lines(try String(contentsOf: tests, encoding: .utf8))
    let blocks = text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        .filter { !skipping($0) }
    for block in blocks {
        let lines = lines(block)
        let found = source.indices.contains { start in
            start + lines.count <= source.count && Array(source[start..<(start + lines.count)]) == lines
        }
        #expect(found, "\(article.lastPathComponent): not in \(tests.lastPathComponent) as written: \(lines.first ?? "")")
    }
    return blocks.count
}
