import Foundation
import Testing
import VitalsIO

@Suite struct JSONTests {
    /// Strings are escaped as JSON wants (quote, backslash, control characters) whether or not they
    /// need it, keys too, and what is written reads back as the strings it was made from.
    @Test func stringsAreEscapedAndReadBack() throws {
        let strings = ["time_s", "a \"quoted\" name", "C:\\data\\x.csv", "two\nlines\r\n\tand a tab", "\u{1}\u{1F}", "é, 心, 🫀", ""]
        let doc = JSON.object(strings.map { ($0, .string($0)) })
        let text = doc.serialized()
        #expect(text.contains(#""a \"quoted\" name""#) && text.contains(#""C:\\data\\x.csv""#))
        #expect(text.contains(#""two\nlines\r\n\tand a tab""#) && text.contains(#""\u0001\u001f""#))
        #expect(text.contains(#""time_s": "time_s""#) && text.contains(#""é, 心, 🫀""#))
        let back = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(back == Dictionary(uniqueKeysWithValues: strings.map { ($0, $0) }))
    }
}
