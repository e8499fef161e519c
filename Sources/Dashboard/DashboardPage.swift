import Foundation

/// The dashboard's web page: static files bundled with this module (HTML, JavaScript, CSS; nothing
/// fetched from elsewhere, so it works offline). The page reads ``eventsPath`` with `EventSource`.
public enum DashboardPage {
    /// Where the page reads its Server-Sent Events.
    public static let eventsPath = "/events"

    /// A file of the page.
    public struct Asset: Sendable {
        /// The path it is served at ("/" for the page itself).
        public var path: String
        /// The `Content-Type` to serve it with.
        public var contentType: String
        public var data: Data
    }

    /// The page's files and where they are served.
    static let files: [(path: String, name: String, ext: String, contentType: String)] = [
        ("/", "index", "html", "text/html; charset=utf-8"),
        ("/dashboard.js", "dashboard", "js", "text/javascript; charset=utf-8"),
        ("/dashboard.css", "dashboard", "css", "text/css; charset=utf-8"),
    ]

    /// Every file of the page, read from the module's resources.
    /// - Throws: `CocoaError` if the build lacks one (a broken install).
    public static func assets() throws -> [Asset] {
        try files.map { file in
            guard let url = Bundle.module.url(forResource: file.name, withExtension: file.ext, subdirectory: "Page") else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "Page/\(file.name).\(file.ext)"])
            }
            return Asset(path: file.path, contentType: file.contentType, data: try Data(contentsOf: url))
        }
    }
}
