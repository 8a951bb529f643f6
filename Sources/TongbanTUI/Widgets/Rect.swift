/// A rectangle of cells (ratatui's `Rect`): widgets draw inside one.
struct Rect: Equatable, Sendable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    var maxX: Int { x + width }
    var maxY: Int { y + height }

    /// The top `rows` rows and the rest.
    func splitTop(_ rows: Int) -> (top: Rect, rest: Rect) {
        let r = max(0, min(rows, height))
        return (Rect(x: x, y: y, width: width, height: r), Rect(x: x, y: y + r, width: width, height: height - r))
    }

    /// The rest and the bottom `rows` rows.
    func splitBottom(_ rows: Int) -> (rest: Rect, bottom: Rect) {
        let r = max(0, min(rows, height))
        return (Rect(x: x, y: y, width: width, height: height - r), Rect(x: x, y: maxY - r, width: width, height: r))
    }

    /// The left `columns` columns, one column between, and the rest.
    func splitLeft(_ columns: Int, gap: Int = 0) -> (left: Rect, right: Rect) {
        let c = max(0, min(columns, width))
        return (Rect(x: x, y: y, width: c, height: height),
                Rect(x: x + c + gap, y: y, width: max(0, width - c - gap), height: height))
    }

    /// A `w`×`h` rectangle centred in this one.
    func centered(width w: Int, height h: Int) -> Rect {
        Rect(x: x + (width - w) / 2, y: y + max(0, (height - h) / 2), width: w, height: h)
    }
}

/// Where each part of the screen goes, from the state alone: drawing and
/// the scroll logic agree on the message pane's size.
struct ScreenLayout {
    static let minWidth = 40
    static let minHeight = 10
    static let maxInputLines = 5

    /// Whether the terminal is big enough to draw the client at all.
    let fits: Bool
    let list: Rect?
    /// The column of the line between the panes (wide screens).
    let separatorX: Int?
    let chat: Rect?
    let header: Rect
    let messages: Rect
    let input: Rect
    let status: Rect
    /// The screen without the status line (overlays centre in it).
    let body: Rect

    init(_ s: AppState) {
        let screen = Rect(x: 0, y: 0, width: s.size.width, height: s.size.height)
        fits = s.size.width >= Self.minWidth && s.size.height >= Self.minHeight
        let (body, status) = screen.splitBottom(1)
        self.body = body
        self.status = status
        var list: Rect?, chat: Rect?, separator: Int?
        if s.size.width >= 80 {
            let split = body.splitLeft(max(24, s.size.width * 3 / 10), gap: 1)
            list = split.left
            separator = split.left.maxX
            chat = split.right
        } else if s.narrowShowsMessages && s.chat != nil {
            chat = body
        } else {
            list = body
        }
        self.list = list
        self.separatorX = separator
        self.chat = chat
        let pane = chat ?? .zero
        // The header and its rule, the messages, a rule, the input bar.
        let (header, below) = pane.splitTop(2)
        let inputLines = InputBarWidget.visibleLines(s.input, width: InputBarWidget.textWidth(pane.width))
        let (rest, input) = below.splitBottom(inputLines)
        self.header = header
        self.input = input
        self.messages = Rect(x: rest.x, y: rest.y, width: rest.width, height: max(1, rest.height - 1))
    }
}
