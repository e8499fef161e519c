import Dashboard
import Foundation
import Testing

@Suite struct DashboardPageTests {
    @Test func thePageAndItsScriptAndStyleAreBundled() throws {
        let assets = try DashboardPage.assets()
        #expect(assets.map(\.path) == ["/", "/dashboard.js", "/dashboard.css"])
        let page = String(decoding: assets[0].data, as: UTF8.self)
        #expect(page.contains(#"src="dashboard.js""#))
        #expect(page.contains(#"href="dashboard.css""#))
        #expect(assets[0].contentType.hasPrefix("text/html"))
    }

    @Test func thePageFetchesNothingFromElsewhere() throws {
        for asset in try DashboardPage.assets() {
            let text = String(decoding: asset.data, as: UTF8.self)
            #expect(!text.contains("http://") && !text.contains("https://"), "\(asset.path) names another site")
            #expect(!text.contains("@import"), "\(asset.path) imports a style sheet")
        }
    }

    @Test func theScriptReadsTheEventsPath() throws {
        let script = String(decoding: try DashboardPage.assets()[1].data, as: UTF8.self)
        #expect(script.contains(#"new EventSource("\#(DashboardPage.eventsPath.dropFirst())")"#))
    }
}
