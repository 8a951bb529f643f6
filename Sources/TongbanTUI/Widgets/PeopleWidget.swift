import ChatCore
import ChatCrypto
import ChatMedia
import ChatViewModels
import TerminalUI

/// A profile's or group's picture on a page: drawn with half blocks at the
/// top left of the page's box (the same pixels the terminal's graphics
/// protocol gets, where it has one: `TerminalGraphics`), the page's first
/// lines beside it.
enum AvatarWidget {
    /// The picture's side in cells' pixels: `pixels` columns, half as many rows.
    static let pixels = 12
    static var rows: Int { (pixels + 1) / 2 }
    /// The columns the picture and a gap take before the text beside it.
    static var indent: Int { pixels + 2 }
    /// The side a picture is decoded at: enough for a terminal that draws
    /// pixels (kitty, sixel) over `pixels` columns; half blocks get it shrunk.
    static let decodedSide = 96

    /// `lines` with the first `rows` of them moved right of the picture
    /// (padded with blank ones when fewer).
    static func beside(_ lines: [(String, Style)]) -> [(String, Style)] {
        let pad = String(repeating: " ", count: indent)
        var out = lines.prefix(rows).map { (pad + $0.0, $0.1) }
        while out.count < rows { out.append(("", Style())) }
        return out + lines.dropFirst(rows)
    }

    /// Draws the decoded picture of `key` at `origin`, or a frame saying
    /// there is none (or that it is on its way).
    static func draw(_ key: String, _ s: AppState, _ options: RenderOptions, into g: inout Grid, at origin: (x: Int, y: Int),
                     _ L: Localizer) {
        if case .ready(let image)? = s.thumbnails[key] {
            place(image, key, columns: pixels, rows: rows, options, into: &g, at: origin)
            return
        }
        let word = key.isEmpty ? L.string("people.card.noAvatar") : "…"
        g.put("┌" + String(repeating: "─", count: pixels - 2) + "┐", x: origin.x, y: origin.y, style: Theme.dim)
        for row in 1..<(rows - 1) { g.put("│" + String(repeating: " ", count: pixels - 2) + "│", x: origin.x, y: origin.y + row, style: Theme.dim) }
        g.put(word, x: origin.x + max(1, (pixels - DisplayWidth.of(word)) / 2), y: origin.y + rows / 2, style: Theme.dim,
              maxWidth: pixels - 2)
        g.put("└" + String(repeating: "─", count: pixels - 2) + "┘", x: origin.x, y: origin.y + rows - 1, style: Theme.dim)
    }

    /// `image` over `columns`×`rows` cells: in half blocks (shrunk to fit),
    /// and as a `GridImage` for a terminal that draws pixels.
    static func place(_ image: RGBImage, _ key: String, columns: Int, rows: Int, _ options: RenderOptions,
                      into g: inout Grid, at origin: (x: Int, y: Int)) {
        let small = shrunk(image, width: columns, height: rows * 2)
        HalfBlock.draw(pixels: small.pixels, width: small.width, height: small.height, into: &g, x: origin.x, y: origin.y,
                       trueColor: options.trueColor)
        g.images.append(GridImage(x: origin.x, y: origin.y, columns: columns, rows: rows, width: image.width, height: image.height,
                                  pixels: image.pixels, id: imageId(key)))
    }

    /// A box-filtered copy at most `width`×`height` pixels, its shape kept.
    static func shrunk(_ image: RGBImage, width: Int, height: Int) -> RGBImage {
        guard image.width > width || image.height > height, image.width > 0, image.height > 0 else { return image }
        let scale = max(Double(image.width) / Double(width), Double(image.height) / Double(height))
        let w = max(1, Int(Double(image.width) / scale)), h = max(1, Int(Double(image.height) / scale))
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let x0 = x * image.width / w, x1 = max(x0 + 1, (x + 1) * image.width / w)
                let y0 = y * image.height / h, y1 = max(y0 + 1, (y + 1) * image.height / h)
                var sum = [0, 0, 0]
                for sy in y0..<y1 {
                    for sx in x0..<x1 {
                        for c in 0..<3 { sum[c] += Int(image.pixels[(sy * image.width + sx) * 3 + c]) }
                    }
                }
                let n = (x1 - x0) * (y1 - y0)
                for c in 0..<3 { out[(y * w + x) * 3 + c] = UInt8(sum[c] / n) }
            }
        }
        return RGBImage(width: w, height: h, pixels: out)
    }

    /// The same id for the same picture, so the terminal replaces it in place.
    static func imageId(_ key: String) -> UInt32 { imageId(key.utf8) }

    /// FNV-1a of the bytes, kept positive and non-zero (kitty's ids).
    static func imageId(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return max(1, hash & 0x7FFF_FFFF)
    }
}

/// The people overlays (PROTOCOL.md v3): contacts, adding a friend, my page,
/// a peer's page. All text from the network is cleaned (`oneLine`).
enum PeopleWidget {
    static func render(_ s: AppState, _ L: Localizer, _ options: RenderOptions, into g: inout Grid, _ area: Rect) {
        switch s.mode {
        case .contacts(let view):
            DialogWidget.render(title: L.string("people.contacts"), lines: contactLines(s, view, L, rows: area.height - 4),
                                into: &g, area)
        case .addFriend(let form):
            if let person = form.card {
                let origin = DialogWidget.render(title: L.string("people.add"), lines: cardLines(person, form, L), into: &g, area)
                AvatarWidget.draw(person.avatar, s, options, into: &g, at: origin, L)
            } else {
                DialogWidget.render(title: L.string("people.add"), lines: searchLines(form, L), into: &g, area)
            }
        case .me(let page):
            let origin = DialogWidget.render(title: L.string("people.me"), lines: myLines(page, s, L), into: &g, area)
            AvatarWidget.draw(page.profile?.avatar ?? "", s, options, into: &g, at: origin, L)
        case .peer(let page):
            let origin = DialogWidget.render(title: L.string("people.peer"), lines: peerLines(page, s, L), into: &g, area)
            AvatarWidget.draw(page.user.avatar, s, options, into: &g, at: origin, L)
        default:
            break
        }
    }

    static func contactLines(_ s: AppState, _ view: ContactsView, _ L: Localizer, rows: Int) -> [(String, Style)] {
        let all = ContactsView.rows(s.people, groups: s.list.conversations, query: view.query, L)
        var lines: [(String, Style)] = [(L.string("people.filter") + view.query + "▏", Theme.prompt)]
        // A window that keeps the selected row in sight.
        let room = max(1, rows - 2)
        let first = all.count <= room ? 0 : min(max(0, view.index - room / 2), all.count - room)
        for (n, row) in all.enumerated().dropFirst(first).prefix(room) {
            let selected = n == view.index
            switch row {
            case .heading(let title): lines.append((title, Theme.title))
            case .empty(let text): lines.append(("  " + text, Theme.dim))
            case .request(let r):
                let words = r.message.isEmpty ? "" : "：" + TerminalSanitizer.oneLine(r.message)
                lines.append(("  " + TerminalSanitizer.oneLine(name(r.from)) + words, selected ? Theme.selected : Theme.prompt))
            case .waiting(let r):
                lines.append(("  " + L.string("people.outgoing", ["who": TerminalSanitizer.oneLine(name(r.to))]), Theme.dim))
            case .friend(let c):
                let shown = c.remark.isEmpty ? name(c.user) : "\(c.remark) (\(name(c.user)))"
                lines.append(("  " + ContactOrder.initial(c.shownName) + "  " + TerminalSanitizer.oneLine(shown),
                              selected ? Theme.selected : Style()))
            case .group(let c):
                lines.append(("  " + TerminalSanitizer.oneLine(c.nickname), selected ? Theme.selected : Style()))
            case .room(let r):
                let line = "# " + TerminalSanitizer.oneLine(r.name) + "  " + L.string("people.room.present", ["n": String(r.presentCount)])
                lines.append(("  " + line, selected ? Theme.selected : Style()))
            case .blocked(let u):
                lines.append(("  " + TerminalSanitizer.oneLine(name(u)), selected ? Theme.selected : Theme.dim))
            }
        }
        lines.append((L.string("people.contactsHint"), Theme.dim))
        return lines
    }

    /// `name @account`.
    static func name(_ u: UserBasicInfo) -> String {
        u.account.map { "\(u.username) @\($0)" } ?? u.username
    }

    static func searchLines(_ form: AddFriendForm, _ L: Localizer) -> [(String, Style)] {
        var lines: [(String, Style)] = [(L.string("people.searchPrompt") + form.query + "▏", Theme.prompt)]
        if let found = form.found {
            if found.isEmpty { lines.append((L.string("people.noSuchUser"), Theme.error)) }
            for (n, u) in found.enumerated() {
                lines.append((TerminalSanitizer.oneLine(name(u)), n == form.index ? Theme.selected : Style()))
            }
        }
        lines.append((L.string(form.found == nil ? "people.searchHint" : "people.pickHint"), Theme.dim))
        return lines
    }

    static func cardLines(_ u: UserBasicInfo, _ form: AddFriendForm, _ L: Localizer) -> [(String, Style)] {
        AvatarWidget.beside(profileLines(u, L)) + [
            ("", Style()),
            (L.string("people.requestWords") + form.message + "▏", Theme.prompt),
            (L.string("people.cardHint"), Theme.dim),
        ]
    }

    /// Name, account, uid, signature: the card's and the pages' top lines.
    static func profileLines(_ u: UserBasicInfo, _ L: Localizer) -> [(String, Style)] {
        [
            (TerminalSanitizer.oneLine(u.username), Theme.title),
            (L.string("people.card.account", ["account": TerminalSanitizer.oneLine(u.account ?? "")]), Style()),
            (L.string("people.card.uid", ["uid": String(u.uid)]), Theme.dim),
            (L.string("people.card.signature", ["signature": TerminalSanitizer.oneLine(u.signature ?? "")]), Style()),
        ]
    }

    static func myLines(_ page: MyPage, _ s: AppState, _ L: Localizer) -> [(String, Style)] {
        var lines = AvatarWidget.beside(page.profile.map { profileLines($0, L) } ?? [(L.string("people.loading"), Theme.dim)])
        lines.append(("", Style()))
        for (n, row) in page.rows.enumerated() {
            let selected = n == page.index
            var style = selected ? Theme.selected : Style()
            let text: String
            switch row {
            case .field(let f):
                let label = L.string(f == .name ? "people.field.name" : f == .signature ? "people.field.signature" : "people.field.avatar")
                if page.editing == f {
                    text = label + page.text + "▏"
                    style = Theme.prompt
                } else {
                    let value: String
                    switch f {
                    case .name: value = page.profile?.username ?? ""
                    case .signature: value = page.profile?.signature ?? ""
                    case .avatar: value = L.string(page.profile?.avatar.isEmpty == false ? "people.avatarSet" : "people.card.noAvatar")
                    }
                    text = label + TerminalSanitizer.oneLine(value)
                }
            case .setting(let which):
                // Each reads as what ticking it does: friends only, typing shown, reads shown.
                let on: Bool?
                let label: String
                switch which {
                case .strangers: on = page.settings.map { !$0.acceptStrangers }; label = "people.strangersOff"
                case .typing: on = page.settings?.shareTyping; label = "people.shareTyping"
                case .reads: on = page.settings?.shareRead; label = "people.shareRead"
                }
                text = (on == true ? "[x] " : on == false ? "[ ] " : "[?] ") + L.string(label)
            case .device(let d):
                let mark = d.current ? " " + L.string("people.thisDevice") : ""
                let agent = TerminalSanitizer.oneLine(d.userAgent)
                text = L.string("people.device", ["agent": agent.isEmpty ? L.string("people.device.unnamed") : agent,
                                                  "seen": TimeLabel.text(d.lastSeenAt, L, now: s.now,
                                                                         utcOffsetSeconds: s.utcOffsetSeconds)]) + mark
            case .password:
                text = L.string("password.row")
            case .logout:
                text = L.string("people.logout")
                if !selected { style = Theme.error }
            }
            lines.append((text, style))
        }
        if let form = page.password { return lines + passwordLines(form, L) }
        switch page.asking {
        case .signOutDevice(let d)?:
            lines.append((L.string("people.askSignOut", ["agent": TerminalSanitizer.oneLine(d.userAgent)]), Theme.error))
        case .logout?:
            lines.append((L.string("people.askLogout"), Theme.error))
        case nil:
            lines.append((L.string(page.editing == nil ? "people.meHint" : "people.editHint"), Theme.dim))
        }
        return lines
    }

    /// The password form's three questions, each answer a star per
    /// character (never the characters), the one being typed with the cursor.
    static func passwordLines(_ form: PasswordForm, _ L: Localizer) -> [(String, Style)] {
        let labels: [PasswordForm.Step: String] = [.current: "password.current", .new: "password.new", .again: "password.again"]
        var lines: [(String, Style)] = [("", Style())]
        for step in PasswordForm.Step.allCases {
            let stars = String(repeating: "*", count: form[step].count)
            let typing = step == form.step
            lines.append((L.string(labels[step] ?? "") + stars + (typing ? "▏" : ""), typing ? Theme.prompt : Theme.dim))
        }
        lines.append((L.string("password.hint"), Theme.dim))
        return lines
    }

    static func peerLines(_ page: PeerPage, _ s: AppState, _ L: Localizer) -> [(String, Style)] {
        let u = page.user
        let friend = s.people.contact(u.uid)
        let blocked = s.people.isBlocked(u.uid)
        var top = profileLines(u, L)
        if let friend {
            let remark = friend.remark.isEmpty ? L.string("people.card.noAvatar") : TerminalSanitizer.oneLine(friend.remark)
            top.insert((L.string("people.remark", ["remark": remark]), Style()), at: 1)
        }
        var lines = AvatarWidget.beside(top)
        if !page.sharedGroups.isEmpty {
            let names = page.sharedGroups.map(TerminalSanitizer.oneLine).joined(separator: L.string("group.listSeparator"))
            lines.append((L.string("people.sharedGroups", ["groups": names]), Style()))
        }
        lines.append(("", Style()))
        if let remark = page.remark {
            lines.append((L.string("people.remarkPrompt") + remark + "▏", Theme.prompt))
        } else if friend != nil {
            lines.append((L.string("people.action.remove"), Style()))
            lines.append((L.string("people.action.remark"), Style()))
        } else if !blocked {
            lines.append((L.string("people.action.add"), Style()))
        }
        lines.append(("k  " + L.string("people.action.card"), Style()))
        lines.append((L.string("people.action.secret"), Style()))
        if let id = page.secretChat, !id.isEmpty {
            lines.append((L.string("people.secretTimer", ["timer": SecretNoticePayload.timerWords(page.timer, L)]), Style()))
        }
        lines.append(("", Style()))
        if let number = page.safetyNumber {
            lines.append((L.string("people.safetyNumber"), Theme.title))
            // 12 groups of 5 digits, in two rows of six.
            let groups = SafetyNumber.grouped(number).split(separator: " ").map(String.init)
            lines.append(("  " + groups.prefix(6).joined(separator: " "), Theme.prompt))
            lines.append(("  " + groups.dropFirst(6).joined(separator: " "), Theme.prompt))
            lines.append((L.string(page.verified ? "people.safetyVerified" : "people.safetyNotVerified"),
                          page.verified ? Theme.online : Style()))
        } else {
            lines.append((L.string("people.noSafetyNumber"), Theme.dim))
        }
        lines.append((L.string(blocked ? "people.action.unblock" : "people.action.block"), Theme.error))
        lines.append(("c  " + L.string("ui.settings.clear"), Theme.error))
        switch page.asking {
        case .removeFriend?: lines.append((L.string("people.askRemove", ["name": TerminalSanitizer.oneLine(u.username)]), Theme.error))
        case .block?: lines.append((L.string("people.askBlock", ["name": TerminalSanitizer.oneLine(u.username)]), Theme.error))
        case nil: break
        }
        return lines
    }
}
