import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web page `hitthat serve` serves at `/`: the package's resources under `Page/` (plain HTML,
/// CSS and JavaScript, no build step), read once as the server starts and kept in memory: a few
/// tens of kilobytes, so a request costs no file I/O and a file changed under a running server
/// changes nothing until it restarts.
struct PageFiles: Sendable {
    /// One file as it is sent.
    struct File: Sendable {
        let body: ByteBuffer
        let contentType: String
    }

    /// By the path it is served at: `/` for `index.html`, `/NAME` for every file.
    let files: [String: File]

    /// The page shipped in the package (`Bundle.module`; SwiftPM puts it beside the binary, in
    /// `HitThat_FightServer.resources`).
    static func bundled() throws -> PageFiles {
        guard let folder = Bundle.module.url(forResource: "Page", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "Page"])
        }
        return try PageFiles(folder: folder)
    }

    /// Every file at the top of `folder`.
    init(folder: URL) throws {
        var files: [String: File] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            guard let contentType = Self.contentTypes[URL(fileURLWithPath: name).pathExtension] else { continue }
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let file = File(body: ByteBuffer(bytes: data), contentType: contentType)
            files["/\(name)"] = file
            if name == "index.html" { files["/"] = file }
        }
        self.files = files
    }

    /// The types of the files a page is made of; any other file in the folder is not served.
    static let contentTypes = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "webmanifest": "application/manifest+json",
    ]

    /// Adds a GET route for each file.
    func route(on router: Router<some RequestContext>) {
        for (path, file) in files {
            router.get(RouterPath(path)) { _, _ in
                Response(
                    status: .ok,
                    headers: [
                        .contentType: file.contentType,
                        // Revalidated every time: a page from before a restart must not talk to a
                        // newer server with an older script.
                        .cacheControl: "no-cache",
                        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
                        // Only the page's own files run, and it connects only to its own server's
                        // WebSocket (`ws:`/`wss:` spelled out: older browsers' 'self' left them out).
                        HTTPField.Name("Content-Security-Policy")!:
                            "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'",
                    ],
                    body: ResponseBody(byteBuffer: file.body))
            }
        }
    }
}
