import Foundation
import Testing

/// Checks that every Swift code block of the article at `article` stands in the source file `tests`
/// line for line (indentation aside), recording an issue for each that does not, so an article
/// cannot drift from the code its tests run. Returns how many blocks there are.
func codeBlocks(of article: URL, standIn tests: URL) throws -> Int {
    let text = try String(contentsOf: article, encoding: .utf8)
    let source = try String(contentsOf: tests, encoding: .utf8).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    let blocks = text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    for block in blocks {
        let lines = block.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let found = source.indices.contains { start in
            start + lines.count <= source.count && Array(source[start..<(start + lines.count)]) == lines
        }
        #expect(found, "\(article.lastPathComponent): not in \(tests.lastPathComponent) as written: \(lines.first ?? "")")
    }
    return blocks.count
}
